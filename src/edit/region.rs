//! The local computing region of an edit (Bang et al. 2015 §3.2; docs/algorithms.md#rig-editing):
//! proxy corresponding regions Π, growth until the watched weights vanish on the border, trim to
//! the non-zero vertices plus a band of [`BAND_RINGS`] rings.
//!
//! A template embedding has no mesh-contraction history, so Π is the proxy of facts §9.10: each
//! vertex goes to the nearer end joint of its nearest bone segment. The regions only seed the
//! search; they are rebuilt when the hierarchy changes, not when joints move (§3.2).

use rayon::prelude::*;

use crate::geom::P3;
use crate::skin::bones::Bone;

/// Least vertices of a joining region tested for `hot` per parallel task (the test is a short
/// row scan; each vertex is tested on its own, so the split never changes an answer).
const HOT_CHUNK: usize = 2048;

/// Zero-weight rings kept around the non-zero vertices so the re-solved weights meet the frozen
/// ones continuously (the paper's c = 4, found empirically, §3.2 step 4).
pub const BAND_RINGS: usize = 4;

/// Vertex adjacency of the welded mesh, compressed rows.
#[derive(Clone, Debug, Default)]
pub struct Adjacency {
    start: Vec<usize>,
    nbr: Vec<u32>,
}

impl Adjacency {
    /// Edge adjacency of `triangles` over `n` vertices (each neighbour listed once).
    pub fn new(n: usize, triangles: &[[u32; 3]]) -> Self {
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        for t in triangles {
            for k in 0..3 {
                let (a, b) = (t[k] as usize, t[(k + 1) % 3] as usize);
                if a < n && b < n {
                    lists[a].push(b as u32);
                    lists[b].push(a as u32);
                }
            }
        }
        let mut start = vec![0];
        let mut nbr = Vec::new();
        for l in &mut lists {
            l.sort_unstable();
            l.dedup();
            nbr.extend_from_slice(l);
            start.push(nbr.len());
        }
        Self { start, nbr }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// True without vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Neighbours of `v`.
    pub fn of(&self, v: usize) -> &[u32] {
        &self.nbr[self.start[v]..self.start[v + 1]]
    }
}

/// Proxy corresponding regions: `region_of[v]` for every vertex in `verts` (`u32::MAX` elsewhere).
/// `ends[b] = (parent end joint, child end joint)` of bone `b`; a vertex goes to the child end when
/// its closest point lies past the bone's middle (§9.10). Joints left without a vertex get their
/// nearest one, so every joint has a region.
pub fn proxy_regions(
    points: &[P3],
    verts: &[u32],
    bones: &[Bone],
    ends: &[(u32, u32)],
    joint_pos: &[P3],
) -> Vec<u32> {
    let mut region_of = vec![u32::MAX; points.len()];
    for &v in verts {
        let p = &points[v as usize];
        let best = bones
            .iter()
            .enumerate()
            .map(|(b, bone)| (b, bone.distance(p)))
            .min_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((b, _)) = best {
            let bone = &bones[b];
            let d = bone.b - bone.a;
            let s = if d.norm_squared() > 0.0 {
                (p - bone.a).dot(&d) / d.norm_squared()
            } else {
                0.0
            };
            region_of[v as usize] = if s > 0.5 { ends[b].1 } else { ends[b].0 };
        }
    }
    let mut has = vec![false; joint_pos.len()];
    for &v in verts {
        if let Some(h) = has.get_mut(region_of[v as usize] as usize) {
            *h = true;
        }
    }
    for (j, q) in joint_pos.iter().enumerate().filter(|(j, _)| !has[*j]) {
        let nearest = verts.iter().min_by(|&&a, &&b| {
            (points[a as usize] - q)
                .norm()
                .total_cmp(&(points[b as usize] - q).norm())
        });
        if let Some(&v) = nearest {
            region_of[v as usize] = j as u32;
        }
    }
    region_of
}

/// The computing region for an edit seeded at the joints `seeds`: grow Γ from their regions while
/// a border vertex has `hot(v)` (a watched weight above the zero threshold), then keep the hot
/// vertices of Γ plus [`BAND_RINGS`] rings around them inside Γ. Only vertices with
/// `region_of[v] != u32::MAX` take part. Returns the region, sorted.
pub fn computing_region(
    adj: &Adjacency,
    region_of: &[u32],
    seeds: &[usize],
    hot: &(dyn Fn(usize) -> bool + Sync),
) -> Vec<u32> {
    computing_region_in(adj, region_of, &members(region_of), seeds, hot)
}

/// The vertices of every corresponding region (`members[j]`, sorted), for
/// [`computing_region_in`].
pub fn members(region_of: &[u32]) -> Vec<Vec<u32>> {
    let n = region_of
        .iter()
        .filter(|&&r| r != u32::MAX)
        .map(|&r| r as usize + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![Vec::new(); n];
    for (v, &r) in region_of.iter().enumerate() {
        if r != u32::MAX {
            out[r as usize].push(v as u32);
        }
    }
    out
}

/// [`computing_region`] with the regions' vertex lists precomputed. Growth is a closure: a vertex
/// of Γ is examined once, when its region joins (its outside neighbours' regions all join then,
/// so it never borders the outside again); the result is the smallest union of regions holding
/// the seeds whose hot vertices all lie inside, whatever the order. `hot` is asked once per vertex
/// of Γ, for a joining region's vertices in parallel (a pure per-vertex test: the answers, and so
/// the region, do not depend on the thread count); the trim reuses the answers.
pub fn computing_region_in(
    adj: &Adjacency,
    region_of: &[u32],
    members: &[Vec<u32>],
    seeds: &[usize],
    hot: &(dyn Fn(usize) -> bool + Sync),
) -> Vec<u32> {
    let mut chosen = vec![false; members.len()];
    let mut gamma = vec![false; region_of.len()];
    // Hot vertices of Γ whose outside neighbours have not been joined yet.
    let mut stack: Vec<u32> = Vec::new();
    let mut join = |r: usize, gamma: &mut Vec<bool>, stack: &mut Vec<u32>| {
        if r < chosen.len() && !chosen[r] {
            chosen[r] = true;
            for &v in &members[r] {
                gamma[v as usize] = true;
            }
            let flags: Vec<bool> = members[r]
                .par_iter()
                .with_min_len(HOT_CHUNK)
                .map(|&v| hot(v as usize))
                .collect();
            stack.extend(members[r].iter().zip(flags).filter(|e| e.1).map(|e| *e.0));
        }
    };
    for &s in seeds {
        join(s, &mut gamma, &mut stack);
    }
    // Every vertex of Γ is tested exactly once (when its region joins).
    let mut hot_verts: Vec<u32> = Vec::new();
    while let Some(v) = stack.pop() {
        hot_verts.push(v);
        for &u in adj.of(v as usize) {
            let r = region_of[u as usize];
            if r != u32::MAX && !gamma[u as usize] {
                join(r as usize, &mut gamma, &mut stack);
            }
        }
    }
    trim(adj, &gamma, hot_verts)
}

/// The hot vertices of `gamma` (`hot_verts`) and every vertex of `gamma` within [`BAND_RINGS`]
/// edge hops of them (BFS staying inside `gamma`). With no hot vertex at all, `gamma` itself.
fn trim(adj: &Adjacency, gamma: &[bool], hot_verts: Vec<u32>) -> Vec<u32> {
    if hot_verts.is_empty() {
        return (0..gamma.len())
            .filter(|&v| gamma[v])
            .map(|v| v as u32)
            .collect();
    }
    let mut kept = vec![false; gamma.len()];
    for &v in &hot_verts {
        kept[v as usize] = true;
    }
    let mut out = hot_verts.clone();
    let mut frontier = hot_verts;
    for _ in 0..BAND_RINGS {
        let mut next = Vec::new();
        for &v in &frontier {
            for &u in adj.of(v as usize) {
                if gamma[u as usize] && !kept[u as usize] {
                    kept[u as usize] = true;
                    next.push(u);
                }
            }
        }
        out.extend_from_slice(&next);
        frontier = next;
    }
    out.sort_unstable();
    out
}

/// Vertices outside `inside` within `rings` edge hops of it (the frozen rings the local system
/// reads as boundary values: one ring for the Laplacian, two with the bi-Laplacian, facts §5.3).
pub fn outer_rings(adj: &Adjacency, inside: &[bool], region: &[u32], rings: usize) -> Vec<u32> {
    let mut seen = inside.to_vec();
    let mut frontier: Vec<u32> = region.to_vec();
    let mut out = Vec::new();
    for _ in 0..rings {
        let mut next = Vec::new();
        for &v in &frontier {
            for &u in adj.of(v as usize) {
                if !seen[u as usize] {
                    seen[u as usize] = true;
                    next.push(u);
                }
            }
        }
        out.extend_from_slice(&next);
        frontier = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strip of `n` vertices in a line (triangles degenerate to edges for adjacency).
    fn path(n: usize) -> Adjacency {
        let tris: Vec<[u32; 3]> = (0..n as u32 - 1).map(|i| [i, i + 1, i + 1]).collect();
        Adjacency::new(n, &tris)
    }

    #[test]
    fn grows_until_the_border_is_cold_then_keeps_a_four_ring_band() {
        // 40 vertices, regions of 5 vertices each (joint = v / 5); weights hot on 8..=17.
        let adj = path(40);
        let region_of: Vec<u32> = (0..40).map(|v| v / 5).collect();
        let hot = |v: usize| (8..=17).contains(&v);
        let c = computing_region(&adj, &region_of, &[2], &hot);
        // Γ grows from region 2 (10..15) to regions 1..=3 (5..20), band 4 rings inside Γ.
        let want: Vec<u32> = (5..20).collect();
        assert_eq!(c, want);
        // A cold seed with no hot vertex anywhere returns the seed region.
        let c = computing_region(&adj, &region_of, &[6], &|_| false);
        assert_eq!(c, (30..35).collect::<Vec<u32>>());
        // The band is cut at 4 rings when Γ is larger.
        let region_of: Vec<u32> = (0..40).map(|v| if v < 30 { 0 } else { 1 }).collect();
        let c = computing_region(&adj, &region_of, &[0], &|v| v == 15);
        assert_eq!(c, (11..=19).collect::<Vec<u32>>());
    }
}
