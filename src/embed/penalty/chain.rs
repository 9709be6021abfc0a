//! The penalty terms that depend only on the chain being placed — its parent's vertex and its own
//! (Baran & Popović 2007 §3.3; docs/algorithms.md#penalty-terms): DistPF (length), DotPF (bone
//! directions along the path), ExtremPF (a limb end that could continue). FootPF and the zero-length
//! term are one line each and live in [`Ctx::basis`].

use super::{ramp, unit, Ctx, PLAY};
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
        let one = |s: &V3, d: V3| {
            let dot = unit(*s).dot(&unit(d));
            50.0 * s.norm_squared() * ((1.0 - dot) * ramp(dot, -0.5, 6.0, 0.0, 1.0)).powi(2)
        };
        if rj.bones.len() == 1 {
            return one(
                &rj.bones[0],
                self.pos[next as usize] - self.pos[pv as usize],
            );
        }
        // From the parent's vertex to this joint's: the path toward `pv`, reversed.
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
            .map(|(b, w)| one(b, w[1] - w[0]))
            .sum()
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

/// Points at the cumulative length `fractions` (0 … 1) along a polyline (the `splitPaths` rule, docs/algorithms.md#split);
/// a zero-length polyline puts all of them on its first point.
pub fn split_polyline(path: &[V3], fractions: &[f64]) -> Vec<V3> {
    let Some(first) = path.first() else {
        return Vec::new();
    };
    let seg: Vec<f64> = path.windows(2).map(|w| (w[1] - w[0]).norm()).collect();
    let total: f64 = seg.iter().sum();
    let mut out = Vec::with_capacity(fractions.len());
    let (mut k, mut acc) = (0usize, 0.0);
    for f in fractions {
        let target = f.clamp(0.0, 1.0) * total;
        while k < seg.len() && acc + seg[k] < target {
            acc += seg[k];
            k += 1;
        }
        if k >= seg.len() || seg[k] <= 0.0 {
            out.push(*path.last().unwrap_or(first));
        } else {
            let t = ((target - acc) / seg[k]).clamp(0.0, 1.0);
            out.push(path[k] + (path[k + 1] - path[k]) * t);
        }
    }
    if total <= 0.0 {
        return vec![*first; fractions.len()];
    }
    out
}
