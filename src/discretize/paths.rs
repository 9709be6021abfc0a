//! All-pairs shortest paths over the sphere graph (Dijkstra from every vertex, as the original; docs/algorithms.md#sphere-graph),
//! with the next hop toward every target and the number of bridge edges on each path.
//!
//! Computed once per mesh in the graph stage ([`super::graph::connect`], kept in the cached
//! [`SphereGraph`], so hint re-runs and all 24 orientations share it) and laid out for the
//! embedding search: row `b` holds, for every vertex `v`, the distance to `b` and the next vertex
//! from `v` toward `b`.

use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::discretize::SphereGraph;

/// Marker for "no next hop" (the target itself, or unreachable).
pub const NONE: u32 = u32::MAX;

/// Room reserved for a path up front: the search asks for paths (its direction term splits
/// them) tens of thousands of times, and growing each from one element took several
/// reallocations; paths through a packing of ≤ 1000 spheres are rarely longer.
const PATH_CAPACITY: usize = 32;

/// Shortest-path tables, `n × n`, row-major by target.
#[derive(Clone, Debug, Default)]
pub struct Paths {
    n: usize,
    dist: Vec<f64>,
    hop: Vec<u32>,
    bridges: Vec<u8>,
}

#[derive(PartialEq)]
struct Item(f64, u32);
impl Eq for Item {}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Paths {
    /// Dijkstra from every vertex of `g` (edges made symmetric; bridge edges keep their length but are
    /// counted on every path that uses them).
    pub fn new(g: &SphereGraph) -> Self {
        let n = g.len();
        let mut adj: Vec<Vec<(u32, f64, bool)>> = vec![Vec::new(); n];
        let is_bridge = |a: usize, b: usize| {
            g.bridges
                .iter()
                .any(|(x, y)| (x.idx() == a && y.idx() == b) || (x.idx() == b && y.idx() == a))
        };
        for (a, list) in g.edges.iter().enumerate().take(n) {
            for (b, w) in list {
                let b = b.idx();
                if b >= n || b == a || !w.is_finite() {
                    continue;
                }
                let br = is_bridge(a, b);
                for (x, y) in [(a, b), (b, a)] {
                    if !adj[x].iter().any(|e| e.0 as usize == y) {
                        adj[x].push((y as u32, *w, br));
                    }
                }
            }
        }
        // Threads only pay off on big graphs (the original packs at most ~1000 spheres).
        let rows: Vec<(Vec<f64>, Vec<u32>, Vec<u8>)> = if n >= 400 {
            (0..n).into_par_iter().map(|s| dijkstra(&adj, s)).collect()
        } else {
            (0..n).map(|s| dijkstra(&adj, s)).collect()
        };
        let mut out = Self {
            n,
            dist: Vec::with_capacity(n * n),
            hop: Vec::with_capacity(n * n),
            bridges: Vec::with_capacity(n * n),
        };
        for (d, h, b) in rows {
            out.dist.extend(d);
            out.hop.extend(h);
            out.bridges.extend(b);
        }
        out
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True if the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Graph distance (normalized units); infinite if unreachable or out of range.
    #[inline]
    pub fn dist(&self, a: u32, b: u32) -> f64 {
        let (a, b) = (a as usize, b as usize);
        if a >= self.n || b >= self.n {
            return f64::INFINITY;
        }
        self.dist[b * self.n + a]
    }

    /// Next vertex from `a` toward `b` ([`NONE`] at `b` or when unreachable).
    #[inline]
    pub fn hop(&self, a: u32, b: u32) -> u32 {
        let (a, b) = (a as usize, b as usize);
        if a >= self.n || b >= self.n {
            return NONE;
        }
        self.hop[b * self.n + a]
    }

    /// Number of bridge edges on the shortest path from `a` to `b`.
    pub fn bridges_on(&self, a: u32, b: u32) -> u8 {
        let (a, b) = (a as usize, b as usize);
        if a >= self.n || b >= self.n {
            return 0;
        }
        self.bridges[b * self.n + a]
    }

    /// The shortest path from `a` to `b`, both included (`[a]` when equal; empty if unreachable).
    pub fn path(&self, a: u32, b: u32) -> Vec<u32> {
        if !self.dist(a, b).is_finite() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(PATH_CAPACITY.min(self.n));
        out.push(a);
        let mut cur = a;
        while cur != b && out.len() <= self.n {
            cur = self.hop(cur, b);
            if cur == NONE {
                return Vec::new();
            }
            out.push(cur);
        }
        out
    }
}

/// Distances to `s`, next hops toward `s`, bridge counts.
fn dijkstra(adj: &[Vec<(u32, f64, bool)>], s: usize) -> (Vec<f64>, Vec<u32>, Vec<u8>) {
    let n = adj.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut hop = vec![NONE; n];
    let mut br = vec![0u8; n];
    let mut heap = BinaryHeap::new();
    dist[s] = 0.0;
    heap.push(Item(0.0, s as u32));
    while let Some(Item(d, v)) = heap.pop() {
        let v = v as usize;
        if d > dist[v] {
            continue;
        }
        for &(u, w, b) in &adj[v] {
            let u = u as usize;
            let nd = d + w;
            if nd < dist[u] {
                dist[u] = nd;
                hop[u] = v as u32;
                br[u] = br[v].saturating_add(u8::from(b));
                heap.push(Item(nd, u as u32));
            }
        }
    }
    (dist, hop, br)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discretize::Sphere;
    use crate::geom::{NodeId, P3};

    #[test]
    fn line_graph_paths_and_bridges() {
        // 0 - 1 - 2   3 (isolated) ; 2-4 is a bridge
        let sp = |x: f64| Sphere {
            center: P3::new(x, 0.0, 0.0),
            radius: 0.1,
        };
        let mut g = SphereGraph::default();
        g.spheres = vec![sp(0.0), sp(1.0), sp(2.0), sp(9.0), sp(3.0)];
        g.edges = vec![
            vec![(NodeId(1), 1.0)],
            vec![(NodeId(0), 1.0), (NodeId(2), 1.0)],
            vec![(NodeId(1), 1.0)],
            vec![],
            vec![(NodeId(2), 1.0)],
        ];
        g.bridges = vec![(NodeId(4), NodeId(2))];
        let p = Paths::new(&g);
        assert_eq!(p.dist(0, 2), 2.0);
        assert_eq!(p.path(0, 2), vec![0, 1, 2]);
        assert_eq!(p.path(2, 0), vec![2, 1, 0]);
        assert_eq!(p.path(1, 1), vec![1]);
        assert!(p.dist(0, 3).is_infinite() && p.path(0, 3).is_empty());
        assert_eq!(p.dist(0, 4), 3.0);
        assert_eq!(p.bridges_on(0, 4), 1);
        assert_eq!(p.bridges_on(4, 0), 1);
        assert_eq!(p.bridges_on(0, 2), 0);
    }
}
