//! Basis values of a complete discrete embedding: the 9 unweighted penalty terms summed over the
//! reduced joints, placed in search order exactly as the search scores them (Baran & Popović 2007
//! §3.3: the penalty is Γᵀb). The same replay serves corpus labels and hint labels, so both are
//! computed on the graph the embedding was found on.

use std::time::Duration;

use crate::discretize::SphereGraph;
use crate::embed::candidates::candidates;
use crate::embed::penalty::Ctx;
use crate::embed::reduced::Reduced;
use crate::embed::search::{search, Found, Limits, Mode};
use crate::embed::Orientation;

/// Everything the replay and the searches need for one template on one graph and orientation.
pub struct Scene<'a> {
    /// The sphere graph (normalized frame).
    pub graph: &'a SphereGraph,
    /// Reduced template.
    pub red: Reduced,
    /// Candidate vertices per reduced joint (no hints).
    pub cand: Vec<Vec<u32>>,
    /// Orientation seen through.
    pub orientation: Orientation,
}

impl<'a> Scene<'a> {
    /// The scene of `skel` on `graph` in orientation `o`.
    pub fn new(graph: &'a SphereGraph, skel: &crate::skeleton::Skeleton, o: Orientation) -> Self {
        let red = Reduced::new(skel);
        let (cand, _) = candidates(graph, skel, &red, &[]);
        Self {
            graph,
            red,
            cand,
            orientation: o,
        }
    }

    fn ctx(&self, gamma: [f64; 9]) -> Ctx<'_> {
        self.ctx_with(gamma, self.cand.clone())
    }

    fn ctx_with(&self, gamma: [f64; 9], cand: Vec<Vec<u32>>) -> Ctx<'_> {
        Ctx::from_graph(
            &self.red,
            self.graph.paths(),
            self.graph,
            &self.orientation,
            gamma,
            cand,
        )
    }

    /// Up to `k` candidates of reduced joint `j` spread over the shape: farthest-point sampling of
    /// their sphere centres from the first candidate (deterministic).
    pub fn spread_candidates(&self, j: usize, k: usize) -> Vec<u32> {
        let Some(cands) = self.cand.get(j) else {
            return Vec::new();
        };
        let centre = |v: u32| self.graph.spheres[v as usize].center;
        let mut picked: Vec<u32> = cands.first().copied().into_iter().collect();
        while picked.len() < k.min(cands.len()) {
            let far = cands
                .iter()
                .copied()
                .filter(|v| !picked.contains(v))
                .max_by(|a, b| {
                    let d = |v: u32| {
                        picked
                            .iter()
                            .map(|p| (centre(v) - centre(*p)).norm())
                            .fold(f64::INFINITY, f64::min)
                    };
                    d(*a).total_cmp(&d(*b)).then(b.cmp(a))
                });
            match far {
                Some(v) => picked.push(v),
                None => break,
            }
        }
        picked
    }

    /// Summed unweighted basis values of `matched`; `None` if it is not a complete match or a hard
    /// veto (`+∞`) occurs: such an embedding is never picked under any Γ > 0.
    pub fn basis(&self, matched: &[u32]) -> Option<[f64; 9]> {
        if matched.len() != self.red.len() {
            return None;
        }
        let ctx = self.ctx([1.0; 9]);
        let mut sum = [0.0; 9];
        let mut taken = vec![0u64; self.graph.len().div_ceil(64).max(1)];
        for idx in 1..matched.len() {
            let b = ctx.basis(&matched[..idx], &taken, idx, matched[idx])?;
            for (s, v) in sum.iter_mut().zip(b) {
                *s += v;
            }
            if let Some(p) = self.red.joints[idx].parent {
                for v in self.graph.paths().path(matched[idx], matched[p]) {
                    if let Some(w) = taken.get_mut(v as usize / 64) {
                        *w |= 1u64 << (v % 64);
                    }
                }
            }
        }
        sum.iter().all(|v| v.is_finite()).then_some(sum)
    }

    /// One search under `gamma` with `max_work` penalty evaluations (`mode`: the full search or a
    /// greedy screening dive), as `embed` runs it for one orientation.
    pub fn search(
        &self,
        gamma: [f64; 9],
        max_nodes: usize,
        max_work: u64,
        mode: Mode,
    ) -> Option<Found> {
        search(&self.ctx(gamma), &limits(max_nodes, max_work, mode))
    }

    /// [`Scene::search`] with reduced joint `j` pinned to vertex `v` (the paper's hint mechanism:
    /// the joint's candidate set becomes `{v}`): the best embedding with that joint there.
    pub fn search_pinned(
        &self,
        gamma: [f64; 9],
        (j, v): (usize, u32),
        max_nodes: usize,
        max_work: u64,
    ) -> Option<Found> {
        let limits = limits(max_nodes, max_work, Mode::Full);
        let mut cand = self.cand.clone();
        if let Some(c) = cand.get_mut(j) {
            *c = vec![v];
        }
        search(&self.ctx_with(gamma, cand), &limits)
    }
}

/// Wall-clock safety cap of a labelling search; the work budget stops it long before.
const SAFETY_SECONDS: u64 = 120;

/// Never cancelled: learning runs to its deterministic work budget.
fn never() -> bool {
    false
}

/// The search limits of one labelling search: the deterministic node and work budgets, full cutoff.
fn limits(max_nodes: usize, max_work: u64, mode: Mode) -> Limits<'static> {
    Limits {
        max_nodes: max_nodes.max(1),
        max_work: max_work.max(1),
        safety_time: Duration::from_secs(SAFETY_SECONDS),
        cancelled: &never,
        mode,
        cutoff: 1.0,
    }
}
