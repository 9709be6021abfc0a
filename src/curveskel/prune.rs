//! Pruning and junction merging (absent from the paper, §5.5: a raw chordal axis of a dense outline
//! has a twig at every wrinkle) and the split of the axis into branches (§5.4).
//!
//! * Robust: a leaf branch is outline noise when its tip protrudes beyond its junction's disc by
//!   less than [`PRUNE_RATIO`] × its own base radius (a bump, not a limb: limbs are longer than
//!   wide), or by less than [`MIN_PROTRUSION`] of the model. At most one twig per junction goes per
//!   round, the smallest, so a real limb is never judged against a junction that only noise made.
//! * Faithful: Teddy's test (the chordal-axis method the paper builds on): a twig whose tip lies in
//!   the disc spanned by its base chord is a bump.
//! * Junctions whose maximal discs overlap (joined by a chain shorter than [`JUNCTION_MERGE`] ×
//!   the sum of their radii) are one branching point (the paper's "large junction triangle", §5.4:
//!   a palm's, pelvis's or mantle's many small junction triangles become one; the chain between
//!   them never leaves the body the two discs cover). Junctions farther apart keep the chain
//!   between them as a branch (a hand's palm between the fingers' and the thumb's junctions).

use std::collections::BTreeSet;

use super::axis::Axis;
use super::view::Frame;
use super::{CurveHints, CurveMode};
use crate::geom::P3;

/// A limb's tip protrudes beyond its junction's disc by at least this many base radii.
pub const PRUNE_RATIO: f64 = 0.5;
/// …and by at least this fraction of the model's largest side.
pub const MIN_PROTRUSION: f64 = 0.02;
/// Junctions closer (along the axis) than this many times the sum of their radii merge: 1.0 is
/// "the two maximal discs overlap".
pub const JUNCTION_MERGE: f64 = 1.0;
/// A pruned tip protruding by more than this fraction of the model was a visible tip (diagnostic).
pub const VISIBLE_TIP: f64 = 0.06;

/// One tree node (frame coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TNode {
    /// Position, frame coordinates.
    pub pos: P3,
    /// Local radius.
    pub r: f64,
    /// Still part of the skeleton.
    pub alive: bool,
}

/// A twig removed as noise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pruned {
    /// Its tip, frame coordinates.
    pub tip: P3,
    /// How far it protruded beyond its junction's disc (normalized units).
    pub protrusion: f64,
}

/// One branch: a chain of tree nodes between two key nodes (ends or junctions).
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    /// Tree node ids, first key node to last key node.
    pub nodes: Vec<usize>,
    /// Their positions (frame coordinates; depth refined later).
    pub pts: Vec<P3>,
    /// Their local radii.
    pub radius: Vec<f64>,
}

/// The axis as an editable tree.
#[derive(Clone, Debug)]
pub struct Tree {
    /// Nodes.
    pub nodes: Vec<TNode>,
    /// Neighbours.
    pub adj: Vec<BTreeSet<usize>>,
    /// For removed nodes: the node that absorbed them.
    pub redirect: Vec<usize>,
}

impl Tree {
    /// The tree of the axis.
    pub fn from_axis(ax: &Axis, _mode: CurveMode) -> Self {
        let nodes = ax
            .nodes
            .iter()
            .map(|n| TNode {
                pos: P3::new(n.x, n.y, n.z),
                r: n.r,
                alive: true,
            })
            .collect();
        let adj = ax.adj.iter().map(|a| a.iter().copied().collect()).collect();
        Self {
            nodes,
            adj,
            redirect: (0..ax.nodes.len()).collect(),
        }
    }

    pub(super) fn deg(&self, i: usize) -> usize {
        self.adj[i].len()
    }

    /// Walk from `from` through `first` until a node of degree ≠ 2: the chain, both ends included.
    pub(super) fn walk(&self, from: usize, first: usize) -> Vec<usize> {
        let mut path = vec![from, first];
        let (mut prev, mut cur) = (from, first);
        while self.deg(cur) == 2 {
            let Some(&next) = self.adj[cur].iter().find(|&&n| n != prev) else {
                break;
            };
            if next == from {
                break;
            }
            path.push(next);
            (prev, cur) = (cur, next);
        }
        path
    }

    /// The leaf chain from each leaf to its junction (skipping chains that end at another leaf).
    pub(super) fn leaf_chains(&self) -> Vec<Vec<usize>> {
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].alive && self.deg(i) == 1)
            .map(|i| self.walk(i, *self.adj[i].iter().next().expect("degree 1")))
            .filter(|p| self.deg(*p.last().expect("non-empty")) >= 3)
            .collect()
    }

    /// Remove the chain's nodes but its last (the junction), which absorbs them.
    pub(super) fn cut(&mut self, path: &[usize]) {
        let (j, rest) = path.split_last().expect("non-empty");
        for &n in rest {
            for m in std::mem::take(&mut self.adj[n]) {
                self.adj[m].remove(&n);
            }
            self.nodes[n].alive = false;
            self.redirect[n] = *j;
        }
    }

    /// Prune noise twigs (module comment); returns what was removed.
    pub fn prune(&mut self, mode: CurveMode, extent: f64) -> Vec<Pruned> {
        let mut out = Vec::new();
        loop {
            // Per junction, the twig with the smallest protrusion that fails the test.
            let mut worst: std::collections::BTreeMap<usize, (f64, Vec<usize>)> =
                Default::default();
            for path in self.leaf_chains() {
                let (tip, j) = (path[0], *path.last().expect("non-empty"));
                let base = path[path.len() - 2];
                let (t, jn, b) = (self.nodes[tip], self.nodes[j], self.nodes[base]);
                let d2 = |a: &P3, c: &P3| ((a.x - c.x).powi(2) + (a.y - c.y).powi(2)).sqrt();
                let protrusion = d2(&t.pos, &jn.pos) - jn.r;
                let noise = match mode {
                    CurveMode::Robust => {
                        protrusion < PRUNE_RATIO * b.r || protrusion < MIN_PROTRUSION * extent
                    }
                    CurveMode::Faithful => d2(&t.pos, &b.pos) <= b.r,
                };
                if noise && worst.get(&j).is_none_or(|w| protrusion < w.0) {
                    worst.insert(j, (protrusion, path));
                }
            }
            if worst.is_empty() {
                return out;
            }
            for (protrusion, path) in worst.into_values() {
                out.push(Pruned {
                    tip: self.nodes[path[0]].pos,
                    protrusion,
                });
                self.cut(&path);
            }
        }
    }

    /// Merge junctions joined by short chains (module comment), shortest chain first.
    pub fn merge_junctions(&mut self) {
        loop {
            let mut best: Option<(f64, Vec<usize>)> = None;
            for i in (0..self.nodes.len()).filter(|&i| self.nodes[i].alive && self.deg(i) >= 3) {
                for &n in &self.adj[i] {
                    let path = self.walk(i, n);
                    let j = *path.last().expect("non-empty");
                    if j <= i || self.deg(j) < 3 {
                        continue;
                    }
                    let len = self.length(&path);
                    let limit = JUNCTION_MERGE * (self.nodes[i].r + self.nodes[j].r);
                    if len < limit && best.as_ref().is_none_or(|b| len < b.0) {
                        best = Some((len, path));
                    }
                }
            }
            let Some((_, path)) = best else { return };
            self.merge(&path);
        }
    }

    fn length(&self, path: &[usize]) -> f64 {
        path.windows(2)
            .map(|w| (self.nodes[w[0]].pos - self.nodes[w[1]].pos).norm())
            .sum()
    }

    /// Contract the chain `path` (junction to junction) into its thicker end.
    fn merge(&mut self, path: &[usize]) {
        let (a, b) = (path[0], *path.last().expect("non-empty"));
        let (keep, gone) = if self.nodes[a].r >= self.nodes[b].r {
            (a, b)
        } else {
            (b, a)
        };
        let (na, nb) = (self.nodes[a], self.nodes[b]);
        let w = na.r + nb.r;
        let pos = P3::from((na.pos.coords * na.r + nb.pos.coords * nb.r) / w.max(1e-12));
        let others: Vec<usize> = self.adj[gone]
            .iter()
            .copied()
            .filter(|m| !path.contains(m))
            .collect();
        for &n in path.iter().filter(|&&n| n != keep) {
            for m in std::mem::take(&mut self.adj[n]) {
                self.adj[m].remove(&n);
            }
            self.nodes[n].alive = false;
            self.redirect[n] = keep;
        }
        for m in others {
            self.adj[m].insert(keep);
            self.adj[keep].insert(m);
        }
        self.nodes[keep].pos = pos;
        self.nodes[keep].r = na.r.max(nb.r);
    }

    /// The sidecar's branch-end edits (normalized frame points): delete the leaf branch nearest each
    /// `remove_ends` point; add a branch from the nearest node to each `add_ends` point.
    pub fn apply_end_hints(&mut self, hints: &CurveHints, frame: &Frame, _ax: &Axis) {
        for q in &hints.remove_ends {
            let f = frame.to_frame(q);
            let chains = self.leaf_chains();
            if let Some(path) = chains.into_iter().min_by(|a, b| {
                (self.nodes[a[0]].pos - f)
                    .norm()
                    .total_cmp(&(self.nodes[b[0]].pos - f).norm())
            }) {
                self.cut(&path);
            }
        }
        for q in &hints.add_ends {
            let f = frame.to_frame(q);
            let near = (0..self.nodes.len())
                .filter(|&i| self.nodes[i].alive)
                .min_by(|&a, &b| {
                    (self.nodes[a].pos - f)
                        .norm()
                        .total_cmp(&(self.nodes[b].pos - f).norm())
                });
            if let Some(n) = near {
                let id = self.nodes.len();
                self.nodes.push(TNode {
                    pos: f,
                    r: 0.5 * self.nodes[n].r,
                    alive: true,
                });
                self.adj.push(BTreeSet::from([n]));
                self.adj[n].insert(id);
                self.redirect.push(id);
            }
        }
    }

    /// The alive node that absorbed node `i`.
    pub fn owner(&self, mut i: usize) -> usize {
        while !self.nodes[i].alive && self.redirect[i] != i {
            i = self.redirect[i];
        }
        i
    }

    /// Key nodes: alive, degree ≠ 2.
    pub fn is_key(&self, i: usize) -> bool {
        self.nodes[i].alive && self.deg(i) != 2
    }

    /// The branches: chains between key nodes, in node order.
    pub fn branches(&self) -> Vec<Branch> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for i in (0..self.nodes.len()).filter(|&i| self.is_key(i)) {
            for &n in &self.adj[i] {
                if !seen.insert((i.min(n), i.max(n))) {
                    continue;
                }
                let path = self.walk(i, n);
                if let [.., x, y] = path[..] {
                    seen.insert((x.min(y), x.max(y)));
                }
                out.push(Branch {
                    pts: path.iter().map(|&k| self.nodes[k].pos).collect(),
                    radius: path.iter().map(|&k| self.nodes[k].r).collect(),
                    nodes: path,
                });
            }
        }
        out
    }
}
