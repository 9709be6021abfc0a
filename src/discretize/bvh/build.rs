//! Construction of the [`Bvh`]: binned-SAH splits, parallel halves spliced in serial order,
//! per-slot supporting planes.

use super::{empty_node, outward, Bvh, Node, Plane, Tri};
use crate::geom::{P3, V3};

/// Most triangles in a leaf: small leaves prune well; the per-triangle test is cheap.
pub(super) const LEAF_SIZE: usize = 4;

impl Bvh {
    /// Build over `triangles` (indices into `positions`). Triangles with an index out of range
    /// are skipped (never panics on bad input).
    pub fn build(positions: &[P3], triangles: &[[u32; 3]]) -> Self {
        Self::build_par(positions, triangles, PAR_BUILD)
    }

    /// [`Self::build`], halves of at least `par_min` triangles built in parallel.
    pub(super) fn build_par(positions: &[P3], triangles: &[[u32; 3]], par_min: usize) -> Self {
        let mut items: Vec<(u32, Tri, V3)> = Vec::with_capacity(triangles.len());
        for (i, t) in triangles.iter().enumerate() {
            let get = |k: u32| positions.get(k as usize).map(|p| p.coords);
            if let (Some(a), Some(b), Some(c)) = (get(t[0]), get(t[1]), get(t[2])) {
                items.push((i as u32, Tri { v: [a, b, c] }, (a + b + c) / 3.0));
            }
        }
        let mut nodes = Vec::with_capacity(2 * items.len() / LEAF_SIZE + 2);
        nodes.push(empty_node());
        if !items.is_empty() {
            build_rec(&mut nodes, &mut items, 0, 0, par_min);
        }
        let planes = items
            .iter()
            .map(|(_, t, _)| {
                let n = (t.v[1] - t.v[0])
                    .cross(&(t.v[2] - t.v[0]))
                    .try_normalize(1e-300)
                    .unwrap_or_else(V3::zeros);
                let (lo, hi) = outward(
                    &t.v[0].inf(&t.v[1]).inf(&t.v[2]),
                    &t.v[0].sup(&t.v[1]).sup(&t.v[2]),
                );
                Plane {
                    n,
                    off: n.dot(&t.v[0]),
                    lo,
                    hi,
                }
            })
            .collect();
        Self {
            nodes,
            tri_ids: items.iter().map(|x| x.0).collect(),
            tris: items.iter().map(|x| x.1).collect(),
            planes,
        }
    }
}

/// Bins for the surface-area-heuristic split.
const BINS: usize = 12;

/// Reorder `items` and return the split position: binned SAH along the longest centroid axis
/// (tighter boxes than a median split prune closest-point queries better); median split when
/// the centroids coincide or SAH puts everything on one side.
fn sah_split(items: &mut [(u32, Tri, V3)], clo: &V3, chi: &V3) -> usize {
    let ext = chi - clo;
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    let median = |items: &mut [(u32, Tri, V3)]| {
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |a, b| a.2[axis].total_cmp(&b.2[axis]));
        mid
    };
    if ext[axis] <= 0.0 {
        return median(items);
    }
    let bin_of =
        |c: &V3| (((c[axis] - clo[axis]) / ext[axis] * BINS as f64) as usize).min(BINS - 1);
    let mut count = [0usize; BINS];
    let mut blo = [V3::repeat(f64::INFINITY); BINS];
    let mut bhi = [V3::repeat(f64::NEG_INFINITY); BINS];
    for (_, t, c) in items.iter() {
        let b = bin_of(c);
        count[b] += 1;
        for v in &t.v {
            blo[b] = blo[b].inf(v);
            bhi[b] = bhi[b].sup(v);
        }
    }
    let best = best_bin(&count, &blo, &bhi, items.len());
    if best == 0 {
        return median(items);
    }
    // In-place partition: bins < best first.
    let mut i = 0;
    for j in 0..items.len() {
        if bin_of(&items[j].2) < best {
            items.swap(i, j);
            i += 1;
        }
    }
    i
}

/// The SAH split bin: the first bin of the right side (1..BINS) of least cost among the splits
/// that leave both sides non-empty; 0 when there is none. `total` is the item count.
fn best_bin(count: &[usize; BINS], blo: &[V3; BINS], bhi: &[V3; BINS], total: usize) -> usize {
    let area = |lo: &V3, hi: &V3| {
        let e = (hi - lo).map(|x| x.max(0.0));
        e.x * e.y + e.y * e.z + e.z * e.x
    };
    // Right-to-left sweep for the right side costs.
    let mut right = [0.0f64; BINS];
    let (mut lo, mut hi, mut n) = (V3::repeat(f64::INFINITY), V3::repeat(f64::NEG_INFINITY), 0);
    for b in (1..BINS).rev() {
        lo = lo.inf(&blo[b]);
        hi = hi.sup(&bhi[b]);
        n += count[b];
        right[b] = area(&lo, &hi) * n as f64;
    }
    let (mut best, mut best_cost) = (0usize, f64::INFINITY);
    let (mut lo, mut hi, mut n) = (V3::repeat(f64::INFINITY), V3::repeat(f64::NEG_INFINITY), 0);
    for b in 1..BINS {
        lo = lo.inf(&blo[b - 1]);
        hi = hi.sup(&bhi[b - 1]);
        n += count[b - 1];
        let cost = area(&lo, &hi) * n as f64 + right[b];
        if n > 0 && n < total && cost < best_cost {
            best = b;
            best_cost = cost;
        }
    }
    best
}

/// Subtrees of at least this many triangles build their two halves in parallel (below it a
/// rayon task costs more than it saves).
pub(super) const PAR_BUILD: usize = 2048;

/// Recursive split (SAH, see [`sah_split`]) of the centroid box. `offset` is the slot of
/// `items[0]` in the final triangle order; `index` is the node being filled. Halves of at least
/// `par_min` triangles are built in parallel and spliced in ([`splice`]) at the indices the
/// serial recursion gives them, so the tree does not depend on the thread count.
fn build_rec(
    nodes: &mut Vec<Node>,
    items: &mut [(u32, Tri, V3)],
    offset: usize,
    index: usize,
    par_min: usize,
) {
    let (mut lo, mut hi) = (V3::repeat(f64::INFINITY), V3::repeat(f64::NEG_INFINITY));
    let (mut clo, mut chi) = (lo, hi);
    for (_, t, c) in items.iter() {
        for v in &t.v {
            lo = lo.inf(v);
            hi = hi.sup(v);
        }
        clo = clo.inf(c);
        chi = chi.sup(c);
    }
    let (blo, bhi) = outward(&lo, &hi);
    if items.len() <= LEAF_SIZE {
        nodes[index] = Node {
            lo: blo,
            hi: bhi,
            first: offset as u32,
            count: items.len() as u32,
        };
        return;
    }
    let mid = sah_split(items, &clo, &chi);
    let left = nodes.len();
    nodes.push(empty_node());
    nodes.push(empty_node());
    nodes[index] = Node {
        lo: blo,
        hi: bhi,
        first: left as u32,
        count: 0,
    };
    let parallel = items.len() >= par_min;
    let (a, b) = items.split_at_mut(mid);
    if parallel {
        let subtree = |items: &mut [(u32, Tri, V3)], offset: usize| {
            let mut sub = vec![empty_node()];
            build_rec(&mut sub, items, offset, 0, par_min);
            sub
        };
        let (sa, sb) = rayon::join(|| subtree(a, offset), || subtree(b, offset + mid));
        splice(nodes, left, &sa);
        splice(nodes, left + 1, &sb);
    } else {
        build_rec(nodes, a, offset, left, par_min);
        build_rec(nodes, b, offset + mid, left + 1, par_min);
    }
}

/// Put a subtree built on its own (`sub[0]` its root, `sub[1..]` its other nodes in serial
/// allocation order, child links relative to `sub`) into node `slot`, its other nodes appended:
/// exactly where the serial recursion would have allocated them.
fn splice(nodes: &mut Vec<Node>, slot: usize, sub: &[Node]) {
    let base = nodes.len() as u32;
    let fix = |n: &Node| {
        let mut n = *n;
        if n.count == 0 && n.first > 0 {
            n.first = base + n.first - 1;
        }
        n
    };
    if let Some(root) = sub.first() {
        nodes[slot] = fix(root);
        nodes.extend(sub[1..].iter().map(fix));
    }
}
