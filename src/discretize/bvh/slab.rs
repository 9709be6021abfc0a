//! Per-node slabs of the [`Bvh`]: a second lower bound on the distance to a node's triangles,
//! beside its axis-aligned box.
//!
//! A node over a patch of surface has a box as thick as the patch is tilted against the axes;
//! a query point above the patch is often within the box's distance bound though every triangle
//! is farther. The slab is the range `[lo, hi]` of the patch's vertices along the patch's mean
//! normal `n`: every point `x` of the node's triangles has `n·x` in it (triangles are the convex
//! hulls of their vertices), so `|n·p − n·x| ≥ dist(n·p, [lo, hi])` and the distance from `p` to
//! the node is at least that over `|n|`. On the corpus's characters it drops a quarter of the
//! internal nodes and nearly half the leaf triangles a closest-point query visits
//! (bench/results.md, "distance field, round 13").
//!
//! Exactness: a node is skipped only when the slab bound is not below the best squared distance
//! so far, with margins far above rounding (below): every triangle inside then has a computed
//! squared distance at least the best, and the traversal keeps a triangle only when strictly
//! nearer, so skipping it changes no later comparison: the hit, ties included, is the one the
//! traversal without slabs returns, bit for bit.

use rayon::prelude::*;

use super::{Bvh, Tri};
use crate::geom::V3;

/// Nodes over more triangles than this get no slab (a large patch curves: its slab is as thick
/// as its box). Each triangle then lies under at most five slab nodes (4 to 64 triangles), which
/// keeps the build's added cost a few dot products per triangle.
const SLAB_MAX: usize = 64;

/// Absolute widening of a slab (normalized-frame units, scaled by the offsets' magnitude), far
/// above the rounding of the offsets (~1e-16 relative) and of `n·p` for query points within the
/// frame; far below any distance the field resolves.
const SLAB_PAD: f64 = 1e-9;

/// Relative margin on the slab's squared distance: covers `|n| ≠ 1` after rounding `n` to f32
/// (relative error ~1e-7) and the rounding of a triangle's computed squared distance.
const SLAB_SLACK: f64 = 1e-5;

/// A node's slab: direction `n` (unit before rounding to f32) and the range of its triangles'
/// vertices along it, rounded outward. The slab of every direction (`n = 0`, infinite range)
/// never prunes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slab {
    n: [f32; 3],
    lo: f32,
    hi: f32,
}

impl Slab {
    const ALL: Slab = Slab {
        n: [0.0; 3],
        lo: f32::NEG_INFINITY,
        hi: f32::INFINITY,
    };

    /// True if no triangle under the slab can be strictly nearer to `p` than `best2` (squared).
    #[inline(always)]
    pub(super) fn prunes(&self, p: &V3, best2: f64) -> bool {
        let o = f64::from(self.n[0]) * p.x + f64::from(self.n[1]) * p.y + f64::from(self.n[2]) * p.z;
        let s = (f64::from(self.lo) - o).max(o - f64::from(self.hi)).max(0.0);
        s * s * (1.0 - SLAB_SLACK) >= best2
    }

    /// The slab of `tris`: along their area-weighted mean normal (summed in slot order).
    fn of(tris: &[Tri]) -> Self {
        let sum: V3 = tris
            .iter()
            .map(|t| (t.v[1] - t.v[0]).cross(&(t.v[2] - t.v[0])))
            .fold(V3::zeros(), |a, b| a + b);
        let Some(unit) = sum.try_normalize(1e-300) else {
            return Self::ALL;
        };
        let n = [unit.x as f32, unit.y as f32, unit.z as f32];
        let n64 = V3::new(f64::from(n[0]), f64::from(n[1]), f64::from(n[2]));
        let (mut mn, mut mx) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in tris.iter().flat_map(|t| &t.v) {
            let o = n64.dot(v);
            mn = mn.min(o);
            mx = mx.max(o);
        }
        if !(mn.is_finite() && mx.is_finite()) {
            return Self::ALL;
        }
        let pad = SLAB_PAD * (1.0 + mn.abs().max(mx.abs()));
        let (lo, hi) = super::outward(&V3::repeat(mn - pad), &V3::repeat(mx + pad));
        Self {
            n,
            lo: lo[0],
            hi: hi[0],
        }
    }
}

impl Bvh {
    /// Every node's slab ([`Slab::ALL`] above [`SLAB_MAX`] triangles). A node's triangles are
    /// the slots its leaves cover, contiguous (the build assigns slots depth first); children
    /// come after their parent in the node array, so one backward pass gives every range.
    pub(super) fn slabs(&self) -> Vec<Slab> {
        let mut range = vec![(0u32, 0u32); self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            let n = self.nodes[i];
            range[i] = if n.count > 0 {
                (n.first, n.first + n.count)
            } else {
                let l = n.first as usize;
                match (range.get(l), range.get(l + 1)) {
                    (Some(a), Some(b)) if l > i => (a.0, b.1),
                    _ => (0, 0),
                }
            };
        }
        range
            .par_iter()
            .with_min_len(1024)
            .map(|&(a, b)| {
                let tris = self.tris.get(a as usize..b as usize).unwrap_or(&[]);
                if tris.is_empty() || tris.len() > SLAB_MAX {
                    Slab::ALL
                } else {
                    Slab::of(tris)
                }
            })
            .collect()
    }
}
