//! Bounding-volume hierarchy over the triangles of a prepared mesh, for exact closest-point queries
//! (the exact distances of the octree field, docs/algorithms.md#distance-field) and, through its per-node
//! dipoles, for fast generalized winding numbers ([`super::winding`]).
//!
//! Layout: one flat node array, the two children of an internal node stored next to each other,
//! triangles copied into leaf order so a leaf's triangles are contiguous in memory. Traversal is
//! iterative with a small fixed stack, visiting the nearer child first and pruning every box
//! farther than the best distance found so far.

use crate::geom::{P3, V3};

/// Most triangles in a leaf: small leaves prune well; the per-triangle test is cheap.
const LEAF_SIZE: usize = 4;
/// Traversal stack size; the tree depth is about log2(F / LEAF_SIZE) + slack from median splits,
/// and the nearer-first push keeps at most one pending sibling per level.
const STACK: usize = 96;

/// One triangle, vertices in the normalized frame.
#[derive(Clone, Copy, Debug)]
pub struct Tri {
    /// Vertices, in the mesh's winding order (counter-clockwise seen from outside when oriented).
    pub v: [V3; 3],
}

/// Supporting plane of a triangle slot: unit normal and offset (`n·x = off` on the plane); the
/// squared plane distance is a cheap lower bound that rejects most triangles of a visited leaf
/// before the full closest-point test. Zero normal for degenerate triangles (never rejects).
/// Also the triangle's own f32 box (rounded outward): a second lower bound, tighter than the
/// leaf's box, tried before the full closest-point test.
#[derive(Clone, Copy, Debug)]
struct Plane {
    n: V3,
    off: f64,
    lo: [f32; 3],
    hi: [f32; 3],
}

/// Relative margin on the triangle-box skip: a triangle is skipped only when its box is farther
/// than the best distance by more than this, so no rounding of the box or of the triangle's
/// distance can make a skipped triangle one the full test would have kept (the full test keeps
/// only a strictly nearer one); which triangle wins is unchanged, ties included.
const TRI_BOX_SLACK: f64 = 1e-9;

/// A BVH node: `count > 0` is a leaf over `tris[first..first + count]`; otherwise its children
/// are nodes `first` and `first + 1`.
/// Boxes are f32, rounded outward, so a node is 32 bytes (two per cache line) and box distances
/// stay conservative lower bounds.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Box lower corner (rounded down).
    pub lo: [f32; 3],
    /// Box upper corner (rounded up).
    pub hi: [f32; 3],
    /// First triangle slot (leaf) or left child (internal).
    pub first: u32,
    /// Triangle count (leaf) or 0 (internal).
    pub count: u32,
}

/// Which feature of a triangle the closest point lies on (Ericson's Voronoi regions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Interior of the face.
    Face,
    /// Vertex `k` (0, 1, 2).
    Vertex(u8),
    /// Edge from vertex `k` to vertex `(k + 1) % 3`.
    Edge(u8),
}

/// Result of a closest-point query.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Squared distance to the surface.
    pub dist2: f64,
    /// The closest surface point.
    pub point: V3,
    /// Triangle slot (index into [`Bvh::tris`]; [`Bvh::tri_ids`] maps it back).
    pub slot: u32,
    /// Feature of that triangle the point lies on.
    pub feature: Feature,
}

/// The hierarchy.
#[derive(Clone, Debug)]
pub struct Bvh {
    /// Flat node array; node 0 is the root.
    pub nodes: Vec<Node>,
    /// Triangles in leaf order.
    pub tris: Vec<Tri>,
    /// For each slot, the index of the triangle in the input triangle list.
    pub tri_ids: Vec<u32>,
    /// Per slot: supporting plane.
    planes: Vec<Plane>,
}

impl Bvh {
    /// Build over `triangles` (indices into `positions`). Triangles with an index out of range
    /// are skipped (never panics on bad input).
    pub fn build(positions: &[P3], triangles: &[[u32; 3]]) -> Self {
        Self::build_par(positions, triangles, PAR_BUILD)
    }

    /// [`Self::build`], halves of at least `par_min` triangles built in parallel.
    fn build_par(positions: &[P3], triangles: &[[u32; 3]], par_min: usize) -> Self {
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

    /// True if there are no triangles.
    pub fn is_empty(&self) -> bool {
        self.tris.is_empty()
    }

    /// Exact closest surface point to `p`. `hint` is a triangle slot whose distance seeds the
    /// search bound (e.g. the previous query's answer for a nearby point); pass `None` otherwise.
    /// Returns `None` only for an empty tree.
    ///
    /// Visiting order, pruning and tie-breaking: nearer child first (the left one on equal
    /// distances), a box pruned when its distance is not below the best, a triangle kept only
    /// when strictly nearer; the first triangle found among equally near ones wins, and the
    /// pseudo-normal sign depends on which. The tests hold it bit for bit to the
    /// traversal as written before the caller-held stack.
    pub fn closest(&self, p: &V3, hint: Option<u32>) -> Option<Hit> {
        self.closest_with(p, hint, &mut Scratch::default())
    }

    /// [`Self::closest`] with a caller-held traversal stack (a query's own array would be
    /// zeroed on every call: a tenth of a short query's time).
    pub fn closest_with(&self, p: &V3, hint: Option<u32>, scratch: &mut Scratch) -> Option<Hit> {
        self.closest_below(p, hint, f64::INFINITY, scratch)
    }

    /// [`Self::closest_with`] among the triangles strictly nearer than `sqrt(bound2)`: None if
    /// there is none. The hit, when there is one, is the one [`Self::closest_with`] returns (a
    /// bound only prunes boxes and triangles that could not have won).
    pub fn closest_below(
        &self,
        p: &V3,
        hint: Option<u32>,
        bound2: f64,
        scratch: &mut Scratch,
    ) -> Option<Hit> {
        let mut best = Best {
            hit: None,
            dist2: bound2,
        };
        if let Some(t) = hint.and_then(|s| self.tris.get(s as usize)) {
            let (q, f) = closest_on_triangle(p, t);
            let d2 = (q - p).norm_squared();
            if d2 < best.dist2 {
                best.dist2 = d2;
                best.hit = hint.map(|slot| Hit {
                    dist2: d2,
                    point: q,
                    slot,
                    feature: f,
                });
            }
        }
        if self.tris.is_empty() {
            return best.hit;
        }
        let stack = &mut scratch.0;
        stack.clear();
        let mut node = 0usize;
        while let Some(&n) = self.nodes.get(node) {
            if n.count > 0 {
                self.test_leaf(p, n.first, n.count, &mut best);
            } else {
                let l = n.first as usize;
                let (dl, dr) = match (self.nodes.get(l), self.nodes.get(l + 1)) {
                    (Some(a), Some(b)) => (box_dist2(p, a), box_dist2(p, b)),
                    _ => (f64::INFINITY, f64::INFINITY),
                };
                let (near, far, dn, df) = if dl <= dr {
                    (l, l + 1, dl, dr)
                } else {
                    (l + 1, l, dr, dl)
                };
                if df < best.dist2 && stack.len() < STACK {
                    stack.push((far as u32, df));
                }
                if dn < best.dist2 {
                    node = near;
                    continue;
                }
            }
            let mut next = None;
            while let Some((cand, d2)) = stack.pop() {
                if d2 < best.dist2 {
                    next = Some(cand as usize);
                    break;
                }
            }
            match next {
                Some(c) => node = c,
                None => break,
            }
        }
        best.hit
    }

    /// Test the `count` triangles from slot `first` in slot order (plane bound first).
    #[inline(always)]
    fn test_leaf(&self, p: &V3, first: u32, count: u32, best: &mut Best) {
        let first = first as usize;
        let end = (first + count as usize).min(self.tris.len());
        for slot in first..end {
            let pl = &self.planes[slot];
            let h = pl.n.dot(p) - pl.off;
            if h * h >= best.dist2
                || box_dist2_parts(p, &pl.lo, &pl.hi) >= best.dist2 * (1.0 + TRI_BOX_SLACK)
            {
                continue;
            }
            let (q, f) = closest_on_triangle(p, &self.tris[slot]);
            let d2 = (q - p).norm_squared();
            if d2 < best.dist2 {
                best.dist2 = d2;
                best.hit = Some(Hit {
                    dist2: d2,
                    point: q,
                    slot: slot as u32,
                    feature: f,
                });
            }
        }
    }
}

/// The traversal stack of [`Bvh::closest_with`], kept by the caller across queries.
#[derive(Debug, Default)]
pub struct Scratch(Vec<(u32, f64)>);

/// The best hit so far and its squared distance (infinite before the first).
struct Best {
    hit: Option<Hit>,
    dist2: f64,
}

fn empty_node() -> Node {
    Node {
        lo: [f32::INFINITY; 3],
        hi: [f32::NEG_INFINITY; 3],
        first: 0,
        count: 0,
    }
}

/// f32 box enclosing the f64 box [lo, hi].
fn outward(lo: &V3, hi: &V3) -> ([f32; 3], [f32; 3]) {
    let down = |x: f64| {
        let f = x as f32;
        if f64::from(f) > x {
            f.next_down()
        } else {
            f
        }
    };
    let up = |x: f64| {
        let f = x as f32;
        if f64::from(f) < x {
            f.next_up()
        } else {
            f
        }
    };
    (
        [down(lo.x), down(lo.y), down(lo.z)],
        [up(hi.x), up(hi.y), up(hi.z)],
    )
}

impl Node {
    /// Box corners as f64 vectors.
    pub fn bounds(&self) -> (V3, V3) {
        let v = |a: [f32; 3]| V3::new(f64::from(a[0]), f64::from(a[1]), f64::from(a[2]));
        (v(self.lo), v(self.hi))
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
        if n > 0 && n < items.len() && cost < best_cost {
            best = b;
            best_cost = cost;
        }
    }
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

/// Subtrees of at least this many triangles build their two halves in parallel (below it a
/// rayon task costs more than it saves).
const PAR_BUILD: usize = 2048;

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

/// Squared distance from `p` to a node's box (0 inside).
#[inline]
pub fn box_dist2(p: &V3, n: &Node) -> f64 {
    box_dist2_parts(p, &n.lo, &n.hi)
}

/// Squared distance from `p` to the f32 box `[lo, hi]` (0 inside).
#[inline(always)]
fn box_dist2_parts(p: &V3, lo: &[f32; 3], hi: &[f32; 3]) -> f64 {
    let d = |k: usize, x: f64| (f64::from(lo[k]) - x).max(0.0).max(x - f64::from(hi[k]));
    let (dx, dy, dz) = (d(0, p.x), d(1, p.y), d(2, p.z));
    dx * dx + dy * dy + dz * dz
}

/// Closest point on a triangle and the feature it lies on (Ericson, *Real-Time Collision
/// Detection* §5.1.5: Voronoi regions tested with barycentric dot products).
#[inline]
pub fn closest_on_triangle(p: &V3, t: &Tri) -> (V3, Feature) {
    let [a, b, c] = t.v;
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = p - b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, Feature::Edge(0));
    }
    let cp = p - c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + ac * w, Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Feature::Edge(1));
    }
    let denom = va + vb + vc;
    if denom.abs() < f64::MIN_POSITIVE {
        // Degenerate (zero-area) triangle that slipped through: fall back to vertex a.
        return (a, Feature::Vertex(0));
    }
    let v = vb / denom;
    let w = vc / denom;
    (a + ab * v + ac * w, Feature::Face)
}

#[cfg(test)]
#[path = "bvh_tests.rs"]
mod tests;
