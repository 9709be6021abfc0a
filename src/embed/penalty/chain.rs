//! The penalty terms that depend only on the chain being placed — its parent's vertex and its own
//! (Baran & Popović 2007 §3.3; docs/algorithms.md#penalty-terms): DistPF (length), DotPF (bone
//! directions along the path), ExtremPF (a limb end that could continue). FootPF and the zero-length
//! term are one line each and live in [`Ctx::basis`].

use super::{ramp, unit, Ctx, PLAY};
use crate::embed::paths::NONE;
use crate::geom::V3;

/// A limb end "could continue" when a neighbour lies this straight on from the parent …
const EXTREM_FROM_PARENT: f64 = 0.95;
/// … and this straight on from the end itself (direction dot products).
const EXTREM_FROM_END: f64 = 0.8;

impl Ctx<'_> {
    /// DistPF: chains embedded much shorter than the template cost more; below half the length vetoes.
    pub(super) fn dist_term(&self, idx: usize, pv: u32, next: u32) -> Option<f64> {
        let d = self.paths.dist(next, pv);
        if self.pinned[idx] {
            return d.is_finite().then_some(0.0);
        }
        let play = PLAY * (self.rad[next as usize] + self.rad[pv as usize]);
        let opt = self.red.joints[idx].chain_len;
        if !d.is_finite() || d + play < 0.5 * opt {
            return None;
        }
        Some(ramp(opt / (d + play), 0.5, 0.0, 2.0, 3.0).powi(3))
    }

    /// DotPF: each template bone's direction vs the matching piece of the split graph path.
    pub(super) fn dot_term(&self, idx: usize, pv: u32, next: u32) -> f64 {
        if next == pv {
            return 0.0;
        }
        let rj = &self.red.joints[idx];
        if rj.bones.len() == 1 {
            return dot_one(
                &rj.bones[0],
                self.pos[next as usize] - self.pos[pv as usize],
            );
        }
        // From the parent's vertex to this joint's: the path toward `pv`, reversed. Held on the
        // stack (the search scores tens of thousands of pairs; allocating was a third of this).
        let mut path = [V3::zeros(); STACK_PATH];
        let mut pts = [V3::zeros(); STACK_PATH];
        let hops = self.path_positions(next, pv, &mut path);
        // Unreachable (no path) and long paths: the plain form, whose answer this reproduces.
        if hops == 0 || hops > STACK_PATH || rj.fractions.len() > STACK_PATH {
            return self.dot_term_heap(idx, pv, next);
        }
        split_polyline_into(&path[..hops], &rj.fractions, &mut pts);
        rj.bones
            .iter()
            .zip(pts[..rj.fractions.len()].windows(2))
            .map(|(b, w)| dot_one(b, w[1] - w[0]))
            .sum()
    }

    /// [`Self::dot_term`] for paths longer than [`STACK_PATH`] (same arithmetic, on the heap).
    pub(super) fn dot_term_heap(&self, idx: usize, pv: u32, next: u32) -> f64 {
        let rj = &self.red.joints[idx];
        let path: Vec<V3> = self
            .paths
            .path(next, pv)
            .iter()
            .rev()
            .map(|v| self.pos[*v as usize])
            .collect();
        let pts = split_polyline(&path, &rj.fractions);
        rj.bones
            .iter()
            .zip(pts.windows(2))
            .map(|(b, w)| dot_one(b, w[1] - w[0]))
            .sum()
    }

    /// Positions of the shortest path from `pv` to `next` (both included) in `out`, as
    /// `Paths::path(next, pv)` reversed; returns its length (0 if unreachable), which may exceed
    /// `out`'s (then `out` holds only part of it).
    fn path_positions(&self, next: u32, pv: u32, out: &mut [V3]) -> usize {
        let path = &self.paths;
        if !path.dist(next, pv).is_finite() {
            return 0;
        }
        let (mut len, mut cur) = (1, next);
        out[0] = self.pos[next as usize];
        while cur != pv && len <= path.len() {
            cur = path.hop(cur, pv);
            if cur == NONE {
                return 0;
            }
            if let Some(slot) = out.get_mut(len) {
                *slot = self.pos[cur as usize];
            }
            len += 1;
        }
        if len <= out.len() {
            out[..len].reverse();
        }
        len
    }

    /// ExtremPF: a limb end with a graph neighbour further along the same direction ends mid-limb.
    pub(super) fn extrem_term(&self, idx: usize, pv: u32, next: u32) -> f64 {
        if !self.red.joints[idx].leaf || next == pv {
            return 0.0;
        }
        let (x, xp) = (self.pos[next as usize], self.pos[pv as usize]);
        let d = unit(x - xp);
        let r = self.rad[next as usize];
        let beyond = self.nbrs[next as usize].iter().any(|&o| {
            let xo = self.pos[o as usize];
            r <= 2.0 * self.rad[o as usize]
                && unit(xo - xp).dot(&d) > EXTREM_FROM_PARENT
                && unit(xo - x).dot(&d) > EXTREM_FROM_END
        });
        if beyond {
            1.0
        } else {
            0.0
        }
    }
}

/// DotPF of one template bone `s` against the path piece `d`.
fn dot_one(s: &V3, d: V3) -> f64 {
    let dot = unit(*s).dot(&unit(d));
    50.0 * s.norm_squared() * ((1.0 - dot) * ramp(dot, -0.5, 6.0, 0.0, 1.0)).powi(2)
}

/// Paths up to this many vertices (and templates up to this many joints per chain) are split on
/// the stack in [`Ctx::dot_term`]; longer ones take the heap.
pub(super) const STACK_PATH: usize = 48;

/// Points at the cumulative length `fractions` (0 … 1) along a polyline (the `splitPaths` rule, docs/algorithms.md#split);
/// a zero-length polyline puts all of them on its first point.
pub fn split_polyline(path: &[V3], fractions: &[f64]) -> Vec<V3> {
    if path.is_empty() {
        return Vec::new();
    }
    let mut out = vec![V3::zeros(); fractions.len()];
    split_polyline_into(path, fractions, &mut out);
    out
}

/// [`split_polyline`] into `out[..fractions.len()]` (left alone when `path` is empty): the
/// segment lengths are computed where they are needed, the same way each time.
fn split_polyline_into(path: &[V3], fractions: &[f64], out: &mut [V3]) {
    let Some(first) = path.first() else {
        return;
    };
    let seg = |k: usize| (path[k + 1] - path[k]).norm();
    let total: f64 = (0..path.len() - 1).map(seg).sum();
    if total <= 0.0 {
        out[..fractions.len()].fill(*first);
        return;
    }
    let n = path.len() - 1;
    let (mut k, mut acc) = (0usize, 0.0);
    for (f, o) in fractions.iter().zip(out.iter_mut()) {
        let target = f.clamp(0.0, 1.0) * total;
        while k < n && acc + seg(k) < target {
            acc += seg(k);
            k += 1;
        }
        *o = if k >= n || seg(k) <= 0.0 {
            *path.last().unwrap_or(first)
        } else {
            let t = ((target - acc) / seg(k)).clamp(0.0, 1.0);
            path[k] + (path[k + 1] - path[k]) * t
        };
    }
}
