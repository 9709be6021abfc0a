//! The 9 discrete penalty terms (Baran & Popović 2007 §3.3; docs/algorithms.md#penalty-terms), weighted by Γ, with the original's per-term veto.
//!
//! Terms are evaluated when reduced joint `idx` (search order) is placed at graph vertex `next`, given
//! the partial match `m` (one vertex per earlier reduced joint) and the set of `taken` vertices (those on
//! the paths of chains already placed, endpoints included). Positions are the sphere centres rotated
//! into the template frame (+Y up, facing +Z).
//!
//! One addition to the original: `shared_path` also counts **bridge edges** (edges the graph added only
//! to connect separate parts of a multi-part mesh): each one on the chain's path adds
//! [`BRIDGE_COST`], so chains avoid leaving the volume when another route exists.
//!
//! Layout: the context and its construction (`context.rs`); the terms that depend only on the chain
//! being placed (`chain.rs`: DistPF, DotPF, ExtremPF) and those that relate it to chains already
//! placed (`relations.rs`: GlobalDotPF, SymPF, DoublePF, DisjointPF); here, the Γ-weighted total
//! with its per-term veto and the cache of the chain-only terms.

mod chain;
mod context;
mod relations;
#[cfg(test)]
mod tests;

pub use chain::split_polyline;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::paths::Paths;
use super::pins::PathPin;
use super::reduced::Reduced;
use crate::discretize::KeyHasher;
use crate::geom::V3;

/// A veto (the original's `NOMATCH` or a weighted term above 1).
pub const VETO: f64 = 2.0;
/// Unweighted shared-path cost per bridge edge on a chain's path.
pub const BRIDGE_COST: f64 = 1.0;

// The shapes of the terms are the original code's (docs/algorithms.md#penalty-terms); the
// thresholds that decide a veto or a penalty are named beside the term that uses them.
/// A chain's graph length is measured with this fraction of its end spheres' radii added (the
/// ends may sit anywhere inside their spheres).
const PLAY: f64 = 0.7;

/// The pair-term cache's map type.
type PairMap = HashMap<u64, [f64; 2], BuildHasherDefault<KeyHasher>>;

/// Everything the terms need for one orientation.
#[derive(Clone, Debug)]
pub struct Ctx<'a> {
    /// Reduced skeleton, search order.
    pub red: &'a Reduced,
    /// Shortest paths.
    pub paths: &'a Paths,
    /// Sphere centres, template frame (rotated), one per graph vertex.
    pub pos: Vec<V3>,
    /// Sphere radii.
    pub rad: Vec<f64>,
    /// Graph neighbours.
    pub nbrs: Vec<Vec<u32>>,
    /// `min(1, min_v y(v))`, the ground for FootPF.
    pub foot_base: f64,
    /// Γ.
    pub weights: [f64; 9],
    /// Candidate vertices per reduced joint.
    pub cand: Vec<Vec<u32>>,
    /// Lowest common ancestor of reduced joints `i`, `j` at `lca[i * k + j]`.
    lca: Vec<usize>,
    /// Cache of [`Ctx::pair_terms`] keyed by (joint, parent vertex, vertex); NaN marks a veto.
    /// Hashed by a multiplicative mix, not SipHash: the search looks a pair up for every
    /// candidate of every joint it bounds, and hashing was most of the lookup's cost.
    pairs: std::cell::RefCell<PairMap>,
    /// Hints on chains: a placement whose path misses one is vetoed (see [`super::pins`]).
    pins: Vec<PathPin>,
    /// Per reduced joint: its chain holds a pin. The pins then say where the limb is, so its length
    /// and its symmetry with its mirror are not penalized (nor vetoed).
    pinned: Vec<bool>,
}

/// Clamped linear ramp: `a` at `v ≤ lo`, `b` at `v ≥ hi` (the original's `smoothInterp`).
pub fn ramp(v: f64, lo: f64, a: f64, hi: f64, b: f64) -> f64 {
    if v <= lo {
        a
    } else if v >= hi {
        b
    } else {
        a + (v - lo) / (hi - lo) * (b - a)
    }
}

fn unit(v: V3) -> V3 {
    let n = v.norm();
    if n > 0.0 {
        v / n
    } else {
        V3::zeros()
    }
}

/// Whether `v` is set in a taken bitset.
#[inline]
pub fn is_taken(taken: &[u64], v: u32) -> bool {
    taken
        .get(v as usize / 64)
        .is_some_and(|w| w & (1u64 << (v % 64)) != 0)
}

impl Ctx<'_> {
    /// Weighted terms for placing `idx` at `next`; `None` on a veto. In `relaxed` mode a veto condition
    /// costs 1 (weighted) on its term instead, and no term vetoes; only unreachable vertices fail.
    pub fn terms(
        &self,
        m: &[u32],
        taken: &[u64],
        idx: usize,
        next: u32,
        relaxed: bool,
    ) -> Option<[f64; 9]> {
        let mut t = self.basis(m, taken, idx, next)?;
        for (k, v) in t.iter_mut().enumerate() {
            // A zero weight switches a term off entirely, veto included.
            let w = if self.weights[k] == 0.0 {
                0.0
            } else {
                self.weights[k] * *v
            };
            *v = if w.is_finite() && w <= 1.0 {
                w
            } else if relaxed {
                1.0
            } else {
                return None;
            };
        }
        Some(t)
    }

    /// The 9 **unweighted** basis values b (Baran & Popović 2007 §3.3: the penalty is Γᵀb) of
    /// placing `idx` at `next`; a hard veto (the original's `NOMATCH`) is `+∞` on its term. `None`
    /// only when `next` is unreachable or out of range. Γ never enters: these are what
    /// `crate::learn` stores and learns from.
    pub fn basis(&self, m: &[u32], taken: &[u64], idx: usize, next: u32) -> Option<[f64; 9]> {
        let mut t = [0.0; 9];
        let Some(prev) = self.red.joints.get(idx)?.parent else {
            return Some(t);
        };
        let pv = *m.get(prev)?;
        let nu = next as usize;
        if nu >= self.pos.len() {
            return None;
        }
        let hard = f64::INFINITY;
        // A chain that misses a pin inside it vetoes (relaxed: costs 1) on the length term.
        t[0] = if self.pins_met(idx, pv, next) {
            self.dist_term(idx, pv, next).unwrap_or(hard)
        } else {
            hard
        };
        t[1] = self.global_dot(m, idx, prev, next).unwrap_or(hard);
        t[2] = self.sym_term(m, idx, pv, next);
        t[3] = self.double_term(taken, pv, next).unwrap_or(hard);
        let rj = &self.red.joints[idx];
        if rj.foot {
            t[4] = self.pos[nu].y - self.foot_base;
        }
        t[5] = if next == pv { 1.0 } else { 0.0 };
        t[6] = self.dot_term(idx, pv, next);
        t[7] = self.extrem_term(idx, pv, next);
        t[8] = self.disjoint_term(m, idx, prev, next);
        if !self.paths.dist(next, pv).is_finite() {
            return None;
        }
        Some(t)
    }

    /// Total penalty, [`VETO`] on a veto (strict mode). Equal to the sum of [`Ctx::terms`], but the
    /// terms that depend only on (`idx`, parent vertex, `next`) — length, the parent's global
    /// direction, foot, zero length, local direction, mid-limb end — are computed once and cached:
    /// the lower bound re-evaluates the same pairs for every child of every expanded node.
    pub fn penalty(&self, m: &[u32], taken: &[u64], idx: usize, next: u32) -> f64 {
        let Some(prev) = self.red.joints.get(idx).and_then(|r| r.parent) else {
            return 0.0;
        };
        let Some(&pv) = m.get(prev) else { return VETO };
        let key = ((idx as u64) << 48) | (u64::from(pv) << 24) | u64::from(next);
        let pair = {
            let cached = self.pairs.borrow().get(&key).copied();
            match cached {
                Some(p) => p,
                None => {
                    let p = self.pair_terms(idx, pv, next).unwrap_or([f64::NAN; 2]);
                    self.pairs.borrow_mut().insert(key, p);
                    p
                }
            }
        };
        if pair[0].is_nan() {
            return VETO;
        }
        let w = &self.weights;
        let check = |k: usize, v: Option<f64>| -> Option<f64> {
            let x = if w[k] == 0.0 { 0.0 } else { w[k] * v? };
            (x.is_finite() && x <= 1.0).then_some(x)
        };
        let rest = (|| {
            let gd = check(
                1,
                Some(pair[1] + self.global_dot_part(m, idx, prev, next, false)?),
            )?;
            let sym = check(2, Some(self.sym_term(m, idx, pv, next)))?;
            let dbl = check(3, self.double_term(taken, pv, next))?;
            let dis = check(8, Some(self.disjoint_term(m, idx, prev, next)))?;
            Some(gd + sym + dbl + dis)
        })();
        rest.map_or(VETO, |r| pair[0] + r)
    }

    /// `[weighted sum of length, foot, zero length, direction, mid-limb end; unweighted parent part of
    /// global direction]`, or `None` on a veto of any of them.
    fn pair_terms(&self, idx: usize, pv: u32, next: u32) -> Option<[f64; 2]> {
        let nu = next as usize;
        if nu >= self.pos.len() || !self.paths.dist(next, pv).is_finite() {
            return None;
        }
        let rj = &self.red.joints[idx];
        let prev = rj.parent?;
        if !self.pins_met(idx, pv, next) {
            return None;
        }
        let mut m = vec![0; prev + 1];
        m[prev] = pv;
        let gd = self.global_dot_part(&m, idx, prev, next, true)?;
        if self.weights[1] * gd > 1.0 {
            return None;
        }
        let foot = if rj.foot {
            self.pos[nu].y - self.foot_base
        } else {
            0.0
        };
        let dup = if next == pv { 1.0 } else { 0.0 };
        let raw = [
            (0, self.dist_term(idx, pv, next)?),
            (4, foot),
            (5, dup),
            (6, self.dot_term(idx, pv, next)),
            (7, self.extrem_term(idx, pv, next)),
        ];
        let mut sum = 0.0;
        for (k, v) in raw {
            let x = if self.weights[k] == 0.0 {
                0.0
            } else {
                self.weights[k] * v
            };
            if !(x.is_finite() && x <= 1.0) {
                return None;
            }
            sum += x;
        }
        Some([sum, gd])
    }
}
