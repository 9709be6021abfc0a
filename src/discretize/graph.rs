//! Sphere graph (Baran & Popović 2007 §3.1; docs/algorithms.md#sphere-graph): intersecting spheres plus
//! Gabriel edges that stay inside, made connected, with all-pairs shortest paths.
//!
//! Same edges as the original's O(n³) loop, found faster: for each sphere `i` the others are
//! sorted by distance; a blocker of the pair (i, j) lies strictly inside the ball with diameter
//! c_i–c_j, hence strictly closer to `i` than `j` is, so only the sphere's nearer neighbours are
//! tested, nearest first (blocked pairs usually stop at the first one).
//!
//! The packing can leave several components; the embedding search needs one. Components are
//! joined first through the interior (a thin closed limb whose spheres are too sparse for the
//! strict interior rule joins its own body, as ordinary edges), and only then by bridges that
//! leave the solid (separate parts of multi-part meshes), chosen to stay outside as little as
//! possible and listed in [`SphereGraph::bridges`].

use std::cmp::Ordering;
use std::sync::OnceLock;

use rayon::prelude::*;

use super::paths::Paths;
use super::{DistanceField, Sphere};
use crate::geom::{NodeId, P3};

/// Samples along a candidate edge for the interior rule (the original's 101).
const SEGMENT_SAMPLES: usize = 101;
/// Nearest spheres of other components tried as links per sphere when joining components.
const JOIN_CANDIDATES: usize = 16;
/// Relaxed interior rule for joining components: depth as a fraction of the smaller radius
/// (the strict rule uses 0.5).
const JOIN_DEPTH: f64 = 0.1;
/// Cost weight of the outside part of a bridge (relative to its length).
const OUTSIDE_WEIGHT: f64 = 50.0;

/// The graph the discrete embedding searches. Vertices are packed spheres (normalized frame).
#[derive(Clone, Debug, Default)]
pub struct SphereGraph {
    /// One entry per graph vertex.
    pub spheres: Vec<Sphere>,
    /// Adjacency lists: `(neighbour, Euclidean edge length)`, sorted by neighbour.
    pub edges: Vec<Vec<(NodeId, f64)>>,
    /// Edges added only to connect otherwise separate components (they leave the interior);
    /// each is also in `edges`. Stored with the smaller id first.
    pub bridges: Vec<(NodeId, NodeId)>,
    /// All-pairs shortest paths over `edges`: computed by [`connect`] (the graph stage), or on
    /// first use for graphs built by hand.
    paths: OnceLock<Paths>,
}

impl SphereGraph {
    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.spheres.len()
    }

    /// True if there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.spheres.is_empty()
    }

    /// All-pairs shortest paths (Dijkstra from every vertex, as the original).
    pub fn paths(&self) -> &Paths {
        self.paths.get_or_init(|| Paths::new(self))
    }

    /// Shortest-path distance (normalized units); `f64::INFINITY` if unreachable or out of range.
    /// Symmetric by construction: both orders read the tree rooted at the larger id.
    pub fn dist(&self, a: NodeId, b: NodeId) -> f64 {
        let (lo, hi) = (a.0.min(b.0), a.0.max(b.0));
        self.paths().dist(lo, hi)
    }

    /// Shortest path from `a` to `b`, both ends included (`[a]` when a == b; empty if
    /// unreachable or out of range).
    pub fn path(&self, a: NodeId, b: NodeId) -> Vec<NodeId> {
        self.paths()
            .path(a.0, b.0)
            .into_iter()
            .map(NodeId)
            .collect()
    }

    /// Number of parts that only bridges join (1 + number of bridges); components joined
    /// through the interior count as one.
    pub fn components_before_bridging(&self) -> usize {
        1 + self.bridges.len()
    }
}

/// Connect packed spheres into a graph and compute all-pairs shortest paths.
pub fn connect(spheres: Vec<Sphere>, field: &DistanceField) -> SphereGraph {
    let n = spheres.len();
    let half: Vec<Vec<(u32, f64)>> = (0..n)
        .into_par_iter()
        .map(|i| edges_from(&spheres, field, i))
        .collect();
    let mut adj: Vec<Vec<(NodeId, f64)>> = vec![Vec::new(); n];
    for (i, list) in half.iter().enumerate() {
        for &(j, len) in list {
            adj[i].push((NodeId(j), len));
            adj[j as usize].push((NodeId(i as u32), len));
        }
    }
    let bridges = join_components(&spheres, field, &mut adj);
    for list in &mut adj {
        list.sort_by_key(|e| e.0);
    }
    let graph = SphereGraph {
        spheres,
        edges: adj,
        bridges,
        paths: OnceLock::new(),
    };
    let _ = graph.paths(); // computed here so the graph stage's time includes it
    graph
}

/// Edges (i, j) with j > i: intersecting spheres, or Gabriel pairs whose segment stays at least
/// half the smaller radius inside (the original's interior rule).
fn edges_from(s: &[Sphere], field: &DistanceField, i: usize) -> Vec<(u32, f64)> {
    let ci = s[i].center;
    let mut order: Vec<(f64, u32)> = s
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != i)
        .map(|(k, sk)| ((sk.center - ci).norm_squared(), k as u32))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    for (pos, &(d2, j)) in order.iter().enumerate() {
        let ju = j as usize;
        if ju <= i {
            continue;
        }
        let sj = &s[ju];
        let d = d2.sqrt();
        if d < s[i].radius + sj.radius {
            out.push((j, d));
            continue;
        }
        let mid = nalgebra::center(&ci, &sj.center);
        let r2 = d2 / 4.0;
        let blocked = order[..pos]
            .iter()
            .any(|&(_, k)| k != j && (s[k as usize].center - mid).norm_squared() < r2);
        if !blocked && segment_inside(field, &ci, &sj.center, 0.5 * s[i].radius.min(sj.radius)) {
            out.push((j, d));
        }
    }
    out
}

/// True if every one of the 101 evenly spaced samples of a–b is deeper than `depth`.
fn segment_inside(field: &DistanceField, a: &P3, b: &P3, depth: f64) -> bool {
    (0..SEGMENT_SAMPLES).all(|k| {
        let t = k as f64 / (SEGMENT_SAMPLES - 1) as f64;
        field.eval(&(a + (b - a) * t)) < -depth
    })
}

/// Join components (the paper leaves this open; the original assumes one). Candidate
/// links are each sphere's [`JOIN_CANDIDATES`] nearest spheres in other components. Links whose
/// segment stays inside the surface (every sample deeper than [`JOIN_DEPTH`] × the smaller
/// radius: a relaxed interior rule) are taken first, shortest first, as ordinary edges: a thin
/// limb whose spheres are too sparse for the strict rule still joins its own body, never a
/// neighbouring limb across the gap. The rest are joined by bridges chosen by
/// [`bridge_cost`], which heavily charges the part of the segment outside the surface. A final
/// Euclidean Borůvka pass guarantees one component. Returns the bridges only.
fn join_components(
    s: &[Sphere],
    field: &DistanceField,
    adj: &mut [Vec<(NodeId, f64)>],
) -> Vec<(NodeId, NodeId)> {
    let comp = components(adj);
    if comp.iter().all(|&c| c == 0) {
        return Vec::new();
    }
    let mut cands = join_candidates(s, field, &comp);
    // Kruskal: inside links first, then by cost; ties by ids (deterministic).
    cands.sort_by(|a, b| {
        b.inside
            .cmp(&a.inside)
            .then(a.cost.total_cmp(&b.cost))
            .then((a.i, a.j).cmp(&(b.i, b.j)))
    });
    let ncomp = comp.iter().max().map_or(0, |m| m + 1) as usize;
    let mut parent: Vec<usize> = (0..ncomp).collect();
    let mut bridges = Vec::new();
    for c in &cands {
        let (a, b) = (
            find(&mut parent, comp[c.i] as usize),
            find(&mut parent, comp[c.j] as usize),
        );
        if a == b {
            continue;
        }
        parent[a] = b;
        let len = (s[c.i].center - s[c.j].center).norm();
        adj[c.i].push((NodeId(c.j as u32), len));
        adj[c.j].push((NodeId(c.i as u32), len));
        if !c.inside {
            bridges.push((NodeId(c.i as u32), NodeId(c.j as u32)));
        }
    }
    bridges.extend(bridge_components(s, adj));
    bridges
}

/// Union-find root with path halving.
fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// A possible link between two components (`i < j`, sphere indices).
struct Cand {
    inside: bool,
    cost: f64,
    i: usize,
    j: usize,
}

/// Each sphere's nearest spheres in other components, deduplicated, with their class and cost.
fn join_candidates(s: &[Sphere], field: &DistanceField, comp: &[u32]) -> Vec<Cand> {
    let mut pairs: Vec<(usize, usize)> = (0..s.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let mut near: Vec<(f64, usize)> = (0..s.len())
                .filter(|&k| comp[k] != comp[i])
                .map(|k| ((s[k].center - s[i].center).norm_squared(), k))
                .collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            near.truncate(JOIN_CANDIDATES);
            near.into_iter().map(move |(_, k)| (i.min(k), i.max(k)))
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
        .into_par_iter()
        .map(|(i, j)| {
            let depth = JOIN_DEPTH * s[i].radius.min(s[j].radius);
            let (inside, cost) = bridge_cost(field, &s[i].center, &s[j].center, depth);
            Cand { inside, cost, i, j }
        })
        .collect()
}

/// Samples a–b like the interior rule: returns whether every sample is deeper than `depth`,
/// and the cost `length + OUTSIDE_WEIGHT × (length of the part outside the surface)`.
fn bridge_cost(field: &DistanceField, a: &P3, b: &P3, depth: f64) -> (bool, f64) {
    let len = (b - a).norm();
    let mut inside = true;
    let mut outside = 0usize;
    for k in 0..SEGMENT_SAMPLES {
        let t = k as f64 / (SEGMENT_SAMPLES - 1) as f64;
        let f = field.eval(&(a + (b - a) * t));
        inside &= f < -depth;
        outside += usize::from(f > 0.0);
    }
    let frac = outside as f64 / SEGMENT_SAMPLES as f64;
    (inside, len * (1.0 + OUTSIDE_WEIGHT * frac))
}

/// Fallback: join components with the shortest centre-to-centre edges (Borůvka over the complete
/// inter-component graph; ties broken by ids, so deterministic). Returns the added edges.
fn bridge_components(s: &[Sphere], adj: &mut [Vec<(NodeId, f64)>]) -> Vec<(NodeId, NodeId)> {
    let n = s.len();
    let mut comp = components(adj);
    let mut bridges = Vec::new();
    loop {
        let ncomp = comp.iter().max().map_or(0, |m| m + 1);
        if ncomp <= 1 {
            return bridges;
        }
        // Best outgoing edge per component.
        let mut best: Vec<Option<(f64, u32, u32)>> = vec![None; ncomp as usize];
        for i in 0..n {
            for j in i + 1..n {
                if comp[i] == comp[j] {
                    continue;
                }
                let d = (s[i].center - s[j].center).norm();
                let cand = (d, i as u32, j as u32);
                for c in [comp[i], comp[j]] {
                    let slot = &mut best[c as usize];
                    if slot.is_none_or(|b| cmp_edge(&cand, &b) == Ordering::Less) {
                        *slot = Some(cand);
                    }
                }
            }
        }
        let mut chosen: Vec<(f64, u32, u32)> = best.into_iter().flatten().collect();
        chosen.sort_by(cmp_edge);
        chosen.dedup_by(|a, b| a.1 == b.1 && a.2 == b.2);
        for (d, i, j) in chosen {
            adj[i as usize].push((NodeId(j), d));
            adj[j as usize].push((NodeId(i), d));
            bridges.push((NodeId(i), NodeId(j)));
        }
        comp = components(adj);
    }
}

fn cmp_edge(a: &(f64, u32, u32), b: &(f64, u32, u32)) -> Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// Component label per vertex (0-based, in order of first vertex).
fn components(adj: &[Vec<(NodeId, f64)>]) -> Vec<u32> {
    let mut comp = vec![u32::MAX; adj.len()];
    let mut next = 0;
    let mut stack = Vec::new();
    for s in 0..adj.len() {
        if comp[s] != u32::MAX {
            continue;
        }
        comp[s] = next;
        stack.push(s);
        while let Some(v) = stack.pop() {
            for &(w, _) in &adj[v] {
                if let Some(c) = comp.get_mut(w.idx()) {
                    if *c == u32::MAX {
                        *c = next;
                        stack.push(w.idx());
                    }
                }
            }
        }
        next += 1;
    }
    comp
}
