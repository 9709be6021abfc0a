//! The 4-wide view of the [`Bvh`] that closest-point queries traverse: the binary tree collapsed
//! so each wide node holds up to four of its nodes (children and grandchildren), their boxes
//! stored lane by lane (SoA, f32) so one visit computes four box distances in one pass the
//! compiler vectorizes. Half the node visits of the binary tree, each one packed test.
//!
//! Exactness: a lane's distance is compared conservatively (query point rounded outward to f32,
//! the best distance grown by [`GROW`]), so a box is skipped only when it cannot hold a
//! triangle strictly nearer than the best so far: the distance found is the binary tree's, bit
//! for bit. Among exactly tied triangles the one met first wins, and the visiting order differs
//! from the binary tree's; the value stored in the field (±√d²) does not depend on which, and the
//! sign of a tie agrees (bench/results.md, issue 16 rounds 13 and 14).

use super::{Bvh, Node};

/// Lanes per wide node.
pub(super) const WIDTH: usize = 4;

/// Relative growth of the best squared distance before a lane's f32 bound is compared with it:
/// it covers the f32 rounding of the three gaps, their squares and their sum (at most about
/// 5 · 2⁻²⁴ ≈ 3e-7 relative) and the rounding of the best distance itself, so a box is skipped
/// only when it cannot hold a triangle strictly nearer than the best.
const GROW: f64 = 1.0 + 1e-6;

/// A wide node: lane `i` is empty (infinite box), a leaf over `count[i]` triangles from slot
/// `child[i]`, or (`count[i] == 0`) the wide node `child[i]`.
/// 128 bytes, two cache lines.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(super) struct Wide {
    lo: [[f32; WIDTH]; 3],
    hi: [[f32; WIDTH]; 3],
    /// Per lane: [`Lane::key`].
    key: [u32; WIDTH],
}

const EMPTY: Wide = Wide {
    lo: [[f32::INFINITY; WIDTH]; 3],
    hi: [[f32::NEG_INFINITY; WIDTH]; 3],
    key: [0; WIDTH],
};

/// A reference to visit, with its lane's f32 bound on the squared distance: 8 bytes, one
/// register (a 12-byte lane written field by field and read whole stalled store forwarding).
#[derive(Clone, Copy, Debug)]
pub(super) struct Lane {
    /// `child << 3 | count`: a leaf's first slot and triangle count (1..=LEAF_SIZE), or a wide
    /// node's index and 0.
    pub(super) key: u32,
    pub(super) bound: f32,
}

impl Lane {
    /// The first slot or wide node index.
    #[inline(always)]
    pub(super) fn child(self) -> u32 {
        self.key >> 3
    }

    /// The leaf's triangle count (0 for a wide node).
    #[inline(always)]
    pub(super) fn count(self) -> u32 {
        self.key & 7
    }
}

/// [`Lane::key`] of a child: leaves hold at most LEAF_SIZE (4) triangles, and slots and node
/// indices stay below 2²⁹.
fn key(child: u32, count: u32) -> u32 {
    debug_assert!(count < 8 && child < 1 << 29);
    child << 3 | count
}

/// The wide tree of a binary node array (root first); empty for an empty tree.
pub(super) fn collapse(nodes: &[Node], has_tris: bool) -> Vec<Wide> {
    let mut out = Vec::with_capacity(nodes.len() / 3 + 1);
    if has_tris && !nodes.is_empty() {
        emit(nodes, 0, &mut out);
    }
    out
}

/// Append the wide node for binary node `n` and (depth first) those below it; its index.
fn emit(nodes: &[Node], n: usize, out: &mut Vec<Wide>) -> u32 {
    let me = out.len();
    out.push(EMPTY);
    let (lanes, len) = lanes_of(nodes, n);
    let mut w = EMPTY;
    for (i, &c) in lanes[..len].iter().enumerate() {
        let nd = &nodes[c];
        for a in 0..3 {
            w.lo[a][i] = nd.lo[a];
            w.hi[a][i] = nd.hi[a];
        }
        w.key[i] = if nd.count > 0 {
            key(nd.first, nd.count)
        } else {
            key(emit(nodes, c, out), 0)
        };
    }
    out[me] = w;
    me as u32
}

/// The binary nodes a wide node over `n` holds, in left-to-right order: `n`'s children, the
/// internal one with the largest box surface opened into its two until there are four.
fn lanes_of(nodes: &[Node], n: usize) -> ([usize; WIDTH], usize) {
    let mut lanes = [0usize; WIDTH];
    let internal = |c: usize| nodes[c].count == 0 && nodes.len() > nodes[c].first as usize + 1;
    if !internal(n) {
        lanes[0] = n;
        return (lanes, 1);
    }
    let l = nodes[n].first as usize;
    lanes[0] = l;
    lanes[1] = l + 1;
    let mut len = 2;
    while len < WIDTH {
        let pick =
            (0..len)
                .filter(|&i| internal(lanes[i]))
                .fold(None, |acc: Option<(usize, f64)>, i| {
                    let s = area(&nodes[lanes[i]]);
                    match acc {
                        Some((_, best)) if best >= s => acc,
                        _ => Some((i, s)),
                    }
                });
        let Some((i, _)) = pick else { break };
        let first = nodes[lanes[i]].first as usize;
        lanes.copy_within(i + 1..len, i + 2);
        lanes[i] = first;
        lanes[i + 1] = first + 1;
        len += 1;
    }
    (lanes, len)
}

/// Half the surface area of a node's box.
fn area(n: &Node) -> f64 {
    let e = |k: usize| f64::from(n.hi[k]) - f64::from(n.lo[k]);
    e(0) * e(1) + e(1) * e(2) + e(2) * e(0)
}

impl Bvh {
    /// The lanes of wide node `w` whose bound is below `cut` ([`cut_of`] the best distance),
    /// nearest first (lane order on equal bounds): the rest are pushed on `stack` farthest
    /// first and the nearest is returned.
    #[inline(always)]
    pub(super) fn visit_wide(
        &self,
        w: usize,
        p: &Point,
        cut: f32,
        stack: &mut Vec<Lane>,
    ) -> Option<Lane> {
        let w = self.wide.get(w)?;
        let (d, mut mask) = lane_dist2(w, p, cut);
        let lane = |i: usize| Lane {
            key: w.key[i],
            bound: d[i],
        };
        if mask == 0 {
            return None;
        }
        let i = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        if mask == 0 {
            return Some(lane(i));
        }
        let j = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        if mask == 0 {
            // Two lanes (the common case): the nearer one now, the other (i < j: i on ties)
            // pushed.
            let (near, far) = if d[j] < d[i] { (j, i) } else { (i, j) };
            stack.push(lane(far));
            return Some(lane(near));
        }
        let mut cand = [lane(i), lane(j), lane(j), lane(j)];
        if d[j] < d[i] {
            cand.swap(0, 1);
        }
        let mut n = 2;
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let mut j = n;
            while j > 0 && cand[j - 1].bound > d[i] {
                cand[j] = cand[j - 1];
                j -= 1;
            }
            cand[j] = lane(i);
            n += 1;
        }
        for k in (1..n).rev() {
            stack.push(cand[k]);
        }
        Some(cand[0])
    }
}

/// The f32 threshold a lane's bound must be below to be visited when the best squared distance
/// is `best2`: `best2` grown by [`GROW`] and rounded up, so it exceeds the f32 bound of every
/// box that can hold a triangle strictly nearer than `best2`.
#[inline(always)]
pub(super) fn cut_of(best2: f64) -> f32 {
    // One f32 step above the nearest f32 is above `x` (no data-dependent branch: which way
    // the rounding went is a coin toss a branch predictor cannot learn).
    ((best2 * GROW) as f32).next_up()
}

/// The query point rounded down and up to f32, per axis (broadcast to the lanes).
#[derive(Clone, Copy, Debug)]
pub(super) struct Point {
    lo: [f32; 3],
    hi: [f32; 3],
}

impl Point {
    /// `p` rounded outward to f32.
    #[inline(always)]
    pub(super) fn new(p: &crate::geom::V3) -> Self {
        // One f32 step either side of the nearest f32 brackets the coordinate (branch-free,
        // as in [`cut_of`]; the bracket is one step wider than needed, which costs nothing).
        let near = [p.x as f32, p.y as f32, p.z as f32];
        Self {
            lo: near.map(f32::next_down),
            hi: near.map(f32::next_up),
        }
    }
}

/// Squared f32 distances from the outward-rounded point to the four lane boxes, and the mask of
/// the lanes below `cut`. Each axis gap is measured from the side of the rounded point nearer
/// the box, so before the f32 subtraction rounds it never exceeds the true gap; the rounding of
/// the gaps, squares and sum (a few units of 2⁻²⁴, relative) is what [`GROW`] covers.
#[inline(always)]
fn lane_dist2(w: &Wide, p: &Point, cut: f32) -> ([f32; WIDTH], u32) {
    let mut d = [0f32; WIDTH];
    for a in 0..3 {
        let (lo, hi) = (&w.lo[a], &w.hi[a]);
        let (plo, phi) = (p.lo[a], p.hi[a]);
        for i in 0..WIDTH {
            let below = lo[i] - phi;
            let above = plo - hi[i];
            let t = if below > above { below } else { above };
            let t = if t > 0.0 { t } else { 0.0 };
            d[i] += t * t;
        }
    }
    // The lanes below `cut`, compared as integers: both are non-negative floats or +inf
    // (never NaN: the query point is finite), whose bit patterns order as the values do, so
    // the sign of the difference decides and the four compares vectorize.
    let c = cut.to_bits() as i32;
    let bits: [u32; WIDTH] =
        std::array::from_fn(|i| ((d[i].to_bits() as i32).wrapping_sub(c) >> 31) as u32 & (1 << i));
    (d, bits[0] | bits[1] | bits[2] | bits[3])
}
