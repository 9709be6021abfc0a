//! Edge topology of a welded triangle soup: open, non-manifold and inconsistently oriented edges,
//! edge-connected shells, and re-orientation so each shell's triangles agree.
//!
//! The original aborts on any duplicate directed edge (Pinocchio source, `mesh.cpp`; docs/algorithms.md#load-and-prepare) and walks off open
//! boundaries (`attachment.cpp`); here every case is counted and repaired where it can be, never fatal.

use std::collections::VecDeque;

/// Counts over the undirected edges of a triangle list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EdgeCounts {
    /// Edges with one incident triangle.
    pub open: usize,
    /// Edges with more than two incident triangles.
    pub non_manifold: usize,
    /// Two-triangle edges traversed in the same direction by both.
    pub inconsistent: usize,
}

/// One directed half-edge occurrence: the undirected edge key (`lo << 32 | hi`), and the
/// triangle index shifted left by one with bit 0 set if the triangle walks the edge lo → hi.
/// Packed as a plain tuple so sorting compares integers only (this sort dominates `prepare`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct HalfEdge(u64, u32);

impl HalfEdge {
    fn key(self) -> u64 {
        self.0
    }
    fn tri(self) -> u32 {
        self.1 >> 1
    }
    fn forward(self) -> bool {
        self.1 & 1 == 1
    }
}

/// All half-edges sorted by undirected key, so each edge's triangles are adjacent. A counting
/// sort on the smaller vertex id, then a tiny sort per vertex: linear time, several times faster
/// than a comparison sort of all half-edges (this is the hot spot of `prepare`).
fn half_edges(tris: &[[u32; 3]]) -> Vec<HalfEdge> {
    let nv = tris.iter().flatten().max().map_or(0, |&m| m as usize + 1);
    let mut start = vec![0usize; nv + 1];
    for tri in tris {
        for k in 0..3 {
            start[tri[k].min(tri[(k + 1) % 3]) as usize + 1] += 1;
        }
    }
    for i in 0..nv {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = vec![HalfEdge(0, 0); start[nv]];
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            let slot = &mut fill[lo as usize];
            if let Some(h) = out.get_mut(*slot) {
                *h = HalfEdge(
                    (u64::from(lo) << 32) | u64::from(hi),
                    ((t as u32) << 1) | u32::from(a < b),
                );
            }
            *slot += 1;
        }
    }
    for w in start.windows(2) {
        if let Some(bucket) = out.get_mut(w[0]..w[1]) {
            bucket.sort_unstable();
        }
    }
    out
}

/// Groups of half-edges sharing an undirected edge.
fn edge_groups(halves: &[HalfEdge]) -> impl Iterator<Item = &[HalfEdge]> {
    halves.chunk_by(|a, b| a.key() == b.key())
}

/// Count open, non-manifold and inconsistent edges.
#[cfg(test)]
pub(crate) fn edge_counts(tris: &[[u32; 3]]) -> EdgeCounts {
    counts_with_flips(&half_edges(tris), &[])
}

/// Edge counts as if every triangle `t` with `flip[t]` were reversed (missing entries: no flip).
fn counts_with_flips(halves: &[HalfEdge], flip: &[bool]) -> EdgeCounts {
    let fwd = |h: &HalfEdge| h.forward() ^ flip.get(h.tri() as usize).copied().unwrap_or(false);
    let mut c = EdgeCounts::default();
    for g in edge_groups(halves) {
        match g {
            [_] => c.open += 1,
            [a, b] => c.inconsistent += usize::from(fwd(a) == fwd(b)),
            _ => c.non_manifold += 1,
        }
    }
    c
}

/// Union-find with path halving.
struct UnionFind(Vec<u32>);

impl UnionFind {
    fn find(&mut self, mut x: u32) -> u32 {
        while let Some(&p) = self.0.get(x as usize) {
            if p == x {
                break;
            }
            let gp = self.0.get(p as usize).copied().unwrap_or(p);
            if let Some(slot) = self.0.get_mut(x as usize) {
                *slot = gp;
            }
            x = gp;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            if let Some(slot) = self.0.get_mut(hi as usize) {
                *slot = lo;
            }
        }
    }
}

/// Shell structure of a triangle list.
pub(crate) struct Shells {
    /// Triangle indices per shell, largest shell first (ties: lowest first triangle first).
    pub shells: Vec<Vec<u32>>,
    /// Per triangle: true if one of its edges is open or non-manifold.
    pub touches_boundary: Vec<bool>,
    /// Triangles flipped to agree with their neighbours.
    pub reoriented: usize,
    /// Edge counts of the input triangles.
    pub found: EdgeCounts,
    /// Edge counts after re-orientation (inconsistent edges left are non-orientable).
    pub after: EdgeCounts,
}

/// Find edge-connected shells and make orientation consistent across manifold edges by BFS,
/// keeping the majority orientation of each manifold-connected patch. `tris` is modified in place.
pub(crate) fn orient_and_split(tris: &mut [[u32; 3]]) -> Shells {
    let n = tris.len();
    let halves = half_edges(tris);
    let mut uf = UnionFind((0..n as u32).collect());
    let mut touches_boundary = vec![false; n];
    // Per triangle, how many manifold neighbours it has (shifted by one: the CSR row starts).
    let mut start = vec![0usize; n + 1];
    for g in edge_groups(&halves) {
        if let [a, b] = g {
            start[a.tri() as usize + 1] += 1;
            start[b.tri() as usize + 1] += 1;
        } else {
            for h in g {
                if let Some(flag) = touches_boundary.get_mut(h.tri() as usize) {
                    *flag = true;
                }
            }
        }
        if let Some(first) = g.first() {
            for h in &g[1..] {
                uf.union(first.tri(), h.tri());
            }
        }
    }
    let (start, adj) = manifold_adjacency(&halves, start);
    let flip = bfs_orientation(n, &start, &adj);
    let found = counts_with_flips(&halves, &[]);
    let after = counts_with_flips(&halves, &flip);
    let mut reoriented = 0;
    for (tri, &f) in tris.iter_mut().zip(&flip) {
        if f {
            tri.swap(1, 2);
            reoriented += 1;
        }
    }
    Shells {
        shells: shell_lists(&mut uf, n),
        touches_boundary,
        reoriented,
        found,
        after,
    }
}

/// The manifold adjacency in CSR form: `counts[t + 1]` holds triangle t's number of manifold
/// neighbours; returns the row starts and, per triangle, its (neighbour, same direction) entries,
/// in edge-group order.
fn manifold_adjacency(halves: &[HalfEdge], counts: Vec<usize>) -> (Vec<usize>, Vec<(u32, bool)>) {
    let mut start = counts;
    let n = start.len() - 1;
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut adj = vec![(0u32, false); start[n]];
    for g in edge_groups(halves) {
        if let [a, b] = g {
            let same = a.forward() == b.forward();
            for (x, y) in [(a, b), (b, a)] {
                let slot = &mut fill[x.tri() as usize];
                if let Some(e) = adj.get_mut(*slot) {
                    *e = (y.tri(), same);
                }
                *slot += 1;
            }
        }
    }
    (start, adj)
}

/// The triangles of each union-find class (edge-connected shell), largest first, ties by first
/// triangle.
fn shell_lists(uf: &mut UnionFind, n: usize) -> Vec<Vec<u32>> {
    let mut by_root: Vec<Vec<u32>> = vec![Vec::new(); n];
    for t in 0..n as u32 {
        let r = uf.find(t) as usize;
        if let Some(list) = by_root.get_mut(r) {
            list.push(t);
        }
    }
    let mut shells: Vec<Vec<u32>> = by_root.into_iter().filter(|s| !s.is_empty()).collect();
    shells.sort_by_key(|s| (std::cmp::Reverse(s.len()), s.first().copied()));
    shells
}

/// Per triangle: flip it? BFS over manifold edges; each patch keeps its majority orientation.
fn bfs_orientation(n: usize, start: &[usize], adj: &[(u32, bool)]) -> Vec<bool> {
    let mut flip = vec![false; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::new();
    let mut patch = Vec::new();
    for seed in 0..n {
        if seen[seed] {
            continue;
        }
        seen[seed] = true;
        patch.clear();
        queue.push_back(seed);
        while let Some(t) = queue.pop_front() {
            patch.push(t);
            let range = start[t]..start[t + 1];
            for &(u, same) in adj.get(range).unwrap_or(&[]) {
                let u = u as usize;
                if !seen[u] {
                    seen[u] = true;
                    // Consistent neighbours traverse the shared edge in opposite directions.
                    flip[u] = flip[t] ^ same;
                    queue.push_back(u);
                }
            }
        }
        let flipped = patch.iter().filter(|&&t| flip[t]).count();
        if flipped * 2 > patch.len() {
            for &t in &patch {
                flip[t] = !flip[t];
            }
        }
    }
    flip
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_triangle_has_three_open_edges() {
        let c = edge_counts(&[[0, 1, 2]]);
        assert_eq!(c.open, 3);
        assert_eq!(c.non_manifold, 0);
    }

    #[test]
    fn strip_with_one_flipped_triangle_is_repaired() {
        let mut tris = vec![[0, 1, 2], [2, 1, 3], [3, 2, 4]];
        assert_eq!(edge_counts(&tris).inconsistent, 1);
        let s = orient_and_split(&mut tris);
        assert_eq!(s.reoriented, 1);
        assert_eq!(edge_counts(&tris).inconsistent, 0);
        assert_eq!(s.shells.len(), 1);
    }
}
