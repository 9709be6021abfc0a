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
                &rj.bone_dots[0],
                self.pos[next as usize] - self.pos[pv as usize],
            );
        }
        // From the parent's vertex to this joint's: the path toward `pv`, reversed, as vertex
        // ids (the positions are read where needed). Held on the stack (the search scores tens
        // of thousands of pairs; allocating was a third of this, zeroing arrays of positions a
        // tenth).
        let mut ids = [0u32; STACK_PATH];
        let hops = self.path_ids(next, pv, &mut ids);
        // Unreachable (no path) and long paths: the plain form, whose answer this reproduces.
        if hops == 0 || hops > STACK_PATH || rj.fractions.len() > STACK_SPLIT {
            return self.dot_term_heap(idx, pv, next);
        }
        let at = |k: usize| self.pos[ids[k] as usize];
        let mut segs = [0.0; STACK_PATH];
        for (k, s) in segs[..hops - 1].iter_mut().enumerate() {
            *s = (at(k + 1) - at(k)).norm();
        }
        let mut pts = [V3::zeros(); STACK_SPLIT];
        split_into(at, &segs[..hops - 1], &rj.fractions, &mut pts);
        rj.bone_dots
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
        rj.bone_dots
            .iter()
            .zip(pts.windows(2))
            .map(|(b, w)| dot_one(b, w[1] - w[0]))
            .sum()
    }

    /// Vertex ids of the shortest path from `pv` to `next` (both included) in `out`, as
    /// `Paths::path(next, pv)` reversed; returns its length (0 if unreachable), which may exceed
    /// `out`'s (then `out` holds only part of it).
    fn path_ids(&self, next: u32, pv: u32, out: &mut [u32]) -> usize {
        let path = &self.paths;
        if !path.dist(next, pv).is_finite() {
            return 0;
        }
        let (mut len, mut cur) = (1, next);
        out[0] = next;
        while cur != pv && len <= path.len() {
            cur = path.hop(cur, pv);
            if cur == NONE {
                return 0;
            }
            if let Some(slot) = out.get_mut(len) {
                *slot = cur;
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

/// What DotPF reads of a template bone `s` ([`crate::embed::reduced::RJoint::bone_dots`]): its
/// unit direction and `50 |s|²`, the term's scale.
pub fn bone_dot(s: &V3) -> (V3, f64) {
    (unit(*s), 50.0 * s.norm_squared())
}

/// DotPF of one template bone (`(unit direction, 50 |s|²)`, [`bone_dot`]) against the path
/// piece `d`.
fn dot_one(&(dir, scale): &(V3, f64), d: V3) -> f64 {
    let dot = dir.dot(&unit(d));
    scale * ((1.0 - dot) * ramp(dot, -0.5, 6.0, 0.0, 1.0)).powi(2)
}

/// Paths up to this many vertices are split on the stack in [`Ctx::dot_term`]; longer ones take
/// the heap.
pub(super) const STACK_PATH: usize = 48;

/// Chains of up to this many joints are split on the stack in [`Ctx::dot_term`] (a shipped
/// template's longest has 6); longer ones take the heap.
const STACK_SPLIT: usize = 16;

/// Points at the cumulative length `fractions` (0 … 1) along a polyline (the `splitPaths` rule, docs/algorithms.md#split);
/// a zero-length polyline puts all of them on its first point.
pub fn split_polyline(path: &[V3], fractions: &[f64]) -> Vec<V3> {
    if path.is_empty() {
        return Vec::new();
    }
    let segs: Vec<f64> = path.windows(2).map(|w| (w[1] - w[0]).norm()).collect();
    let mut out = vec![V3::zeros(); fractions.len()];
    split_into(|k| path[k], &segs, fractions, &mut out);
    out
}

/// [`split_polyline`] of the polyline of `segs.len() + 1` points `at(0)`, `at(1)`, … whose
/// segment lengths are `segs` (`segs[k]` = |at(k+1) − at(k)|), into `out[..fractions.len()]`.
/// Each length is computed once by the caller; the arithmetic on them is the rule's own.
fn split_into(at: impl Fn(usize) -> V3, segs: &[f64], fractions: &[f64], out: &mut [V3]) {
    let first = at(0);
    let n = segs.len();
    let total: f64 = segs.iter().sum();
    if total <= 0.0 {
        out[..fractions.len()].fill(first);
        return;
    }
    let (mut k, mut acc) = (0usize, 0.0);
    for (f, o) in fractions.iter().zip(out.iter_mut()) {
        let target = f.clamp(0.0, 1.0) * total;
        while k < n && acc + segs[k] < target {
            acc += segs[k];
            k += 1;
        }
        *o = if k >= n || segs[k] <= 0.0 {
            at(n)
        } else {
            let t = ((target - acc) / segs[k]).clamp(0.0, 1.0);
            at(k) + (at(k + 1) - at(k)) * t
        };
    }
}
