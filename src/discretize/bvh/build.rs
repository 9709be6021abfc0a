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
        let mut items: Vec<Item> = Vec::with_capacity(triangles.len());
        for (i, t) in triangles.iter().enumerate() {
            if let Some([a, b, c]) = corners(positions, t) {
                items.push(Item {
                    id: i as u32,
                    bin: 0,
                    c: (a + b + c) / 3.0,
                    lo: a.inf(&b).inf(&c),
                    hi: a.sup(&b).sup(&c),
                });
            }
        }
        let mut nodes = Vec::with_capacity(2 * items.len() / LEAF_SIZE + 2);
        nodes.push(empty_node());
        if !items.is_empty() {
            let bounds = Bounds::of(&items);
            build_rec(&mut nodes, &mut items, bounds, 0, 0, par_min);
        }
        let tris: Vec<Tri> = items
            .iter()
            .filter_map(|it| corners(positions, &triangles[it.id as usize]))
            .map(|v| Tri { v })
            .collect();
        let planes = tris
            .iter()
            .map(|t| {
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
        let wide = super::wide::collapse(&nodes, !tris.is_empty());
        Self {
            nodes,
            tri_ids: items.iter().map(|x| x.id).collect(),
            tris,
            planes,
            wide,
        }
    }
}

/// The three corners of triangle `t`, or `None` when an index is out of range.
fn corners(positions: &[P3], t: &[u32; 3]) -> Option<[V3; 3]> {
    let get = |k: u32| positions.get(k as usize).map(|p| p.coords);
    Some([get(t[0])?, get(t[1])?, get(t[2])?])
}

/// A triangle while the tree is built: its input index, centroid and box. The box is computed
/// once (the build reads it at every level; the minima and maxima of the corners are exact, so
/// a node's box is the same as when folded over the corners themselves), and the item is 80
/// bytes instead of the 104 of the triangle itself: the partitions move less memory.
#[derive(Clone, Copy, Debug)]
pub(super) struct Item {
    id: u32,
    /// Its SAH bin in the split being made (in the id's padding: the item stays 80 bytes), so
    /// the partition reads the bin the binning pass computed instead of computing it again.
    bin: u32,
    c: V3,
    lo: V3,
    hi: V3,
}

/// Bins for the surface-area-heuristic split.
const BINS: usize = 12;

/// Reorder `items` and return the split position: binned SAH along the longest centroid axis
/// (tighter boxes than a median split prune closest-point queries better); median split when
/// the centroids coincide or SAH puts everything on one side.
fn sah_split(items: &mut [Item], bounds: &Bounds) -> (usize, Option<[Bounds; 2]>) {
    let (clo, chi) = (&bounds.clo, &bounds.chi);
    let ext = chi - clo;
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    if ext[axis] <= 0.0 {
        return (median_split(items, axis), None);
    }
    let bin_of =
        |c: &V3| (((c[axis] - clo[axis]) / ext[axis] * BINS as f64) as usize).min(BINS - 1);
    let mut count = [0usize; BINS];
    let mut blo = [V3::repeat(f64::INFINITY); BINS];
    let mut bhi = [V3::repeat(f64::NEG_INFINITY); BINS];
    let mut bins = [Bounds::EMPTY; BINS];
    for it in items.iter_mut() {
        let b = bin_of(&it.c);
        it.bin = b as u32;
        count[b] += 1;
        blo[b] = blo[b].inf(&it.lo);
        bhi[b] = bhi[b].sup(&it.hi);
        bins[b].clo = bins[b].clo.inf(&it.c);
        bins[b].chi = bins[b].chi.sup(&it.c);
    }
    let best = best_bin(&count, &blo, &bhi, items.len());
    if best == 0 {
        return (median_split(items, axis), None);
    }
    // The two sides' bounds from their bins (exact minima and maxima: the same as folded over
    // the sides' items), so the children need no pass of their own.
    let mut sides = [Bounds::EMPTY; 2];
    for b in 0..BINS {
        bins[b].lo = blo[b];
        bins[b].hi = bhi[b];
        sides[usize::from(b >= best)].add(&bins[b]);
    }
    // In-place partition: bins < best first (the swaps as before; a swap with itself skipped).
    let mut i = 0;
    for j in 0..items.len() {
        if (items[j].bin as usize) < best {
            if i != j {
                items.swap(i, j);
            }
            i += 1;
        }
    }
    (i, Some(sides))
}

/// The box of a node's triangles and of their centroids.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    lo: V3,
    hi: V3,
    clo: V3,
    chi: V3,
}

impl Bounds {
    const EMPTY: Bounds = Bounds {
        lo: V3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY),
        hi: V3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
        clo: V3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY),
        chi: V3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
    };

    /// The bounds of `items`, one pass.
    fn of(items: &[Item]) -> Self {
        let mut b = Self::EMPTY;
        for it in items {
            b.lo = b.lo.inf(&it.lo);
            b.hi = b.hi.sup(&it.hi);
            b.clo = b.clo.inf(&it.c);
            b.chi = b.chi.sup(&it.c);
        }
        b
    }

    /// Grow to enclose `o`.
    fn add(&mut self, o: &Bounds) {
        self.lo = self.lo.inf(&o.lo);
        self.hi = self.hi.sup(&o.hi);
        self.clo = self.clo.inf(&o.clo);
        self.chi = self.chi.sup(&o.chi);
    }
}

/// The median split along `axis`: the permutation `select_nth_unstable_by` gives on the
/// triangles as the build held them before [`Item`] (104-byte `(index, Tri, centroid)` records:
/// the standard library picks its partition scheme by element size, and the order it leaves
/// fixes the leaves' slot order, hence which of equally near triangles a query meets first).
/// Only for coincident centroids (duplicate triangles): the copy costs nothing elsewhere.
fn median_split(items: &mut [Item], axis: usize) -> usize {
    let mid = items.len() / 2;
    let blank = Tri {
        v: [V3::zeros(); 3],
    };
    let mut legacy: Vec<(u32, Tri, V3)> = (0..items.len())
        .map(|k| (k as u32, blank, items[k].c))
        .collect();
    legacy.select_nth_unstable_by(mid, |a, b| a.2[axis].total_cmp(&b.2[axis]));
    let before = items.to_vec();
    for (slot, (k, _, _)) in items.iter_mut().zip(&legacy) {
        *slot = before[*k as usize];
    }
    mid
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
/// serial recursion gives them, so the tree does not depend on the thread count. `bounds` are
/// the items' bounds ([`Bounds::of`]).
fn build_rec(
    nodes: &mut Vec<Node>,
    items: &mut [Item],
    bounds: Bounds,
    offset: usize,
    index: usize,
    par_min: usize,
) {
    let (blo, bhi) = outward(&bounds.lo, &bounds.hi);
    if items.len() <= LEAF_SIZE {
        nodes[index] = Node {
            lo: blo,
            hi: bhi,
            first: offset as u32,
            count: items.len() as u32,
        };
        return;
    }
    let (mid, sides) = sah_split(items, &bounds);
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
    let [ba, bb] = sides.unwrap_or_else(|| [Bounds::of(a), Bounds::of(b)]);
    if parallel {
        let subtree = |items: &mut [Item], bounds: Bounds, offset: usize| {
            let mut sub = vec![empty_node()];
            build_rec(&mut sub, items, bounds, offset, 0, par_min);
            sub
        };
        let (sa, sb) = rayon::join(|| subtree(a, ba, offset), || subtree(b, bb, offset + mid));
        splice(nodes, left, &sa);
        splice(nodes, left + 1, &sb);
    } else {
        build_rec(nodes, a, ba, offset, left, par_min);
        build_rec(nodes, b, bb, offset + mid, left + 1, par_min);
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

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
