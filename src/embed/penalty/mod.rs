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
//! placed (`relations.rs`: GlobalDotPF, SymPF, DoublePF, DisjointPF); the lower bound's scan for a
//! joint's cheapest candidate, with the cache of the chain-only (pair) terms (`cheapest.rs`); here,
//! the Γ-weighted total with its per-term veto.

mod chain;
mod cheapest;
mod context;
mod relations;
#[cfg(test)]
mod tests;

pub use chain::{bone_dot, split_polyline};

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

/// The pair-term cache's map type: per (joint, parent vertex), the pair terms of the joint's
/// candidates in candidate order, as far as a scan has reached ([`Ctx::cheapest`]).
type PairRows = HashMap<u64, Vec<[f64; 2]>, BuildHasherDefault<KeyHasher>>;

/// One placement being scored: joint `idx` (parent joint `prev`, at vertex `pv`) at `next`,
/// given the partial match `m` and its `taken` vertices.
struct Placing<'m> {
    m: &'m [u32],
    taken: &'m [u64],
    idx: usize,
    prev: usize,
    pv: u32,
    next: u32,
}

/// The relation terms of a placement against a bound ([`Ctx::rest`]).
enum Rest {
    /// A term vetoes.
    Veto,
    /// The total reaches the bound (or a term not computed would veto).
    NotBelow,
    /// Their weighted sum.
    Sum(f64),
}

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
    /// Unit template direction from reduced joint `j` to `i` at `rest_dirs[i * k + j]`
    /// (GlobalDotPF's reference, the same for every pair scored).
    rest_dirs: Vec<V3>,
    /// Cache of [`Ctx::pair_terms`], one row per (joint, parent vertex) in candidate order; NaN
    /// marks a veto. The lower bound scans a joint's candidates in order for every child of
    /// every expanded node, so one row lookup serves the whole scan (a lookup per candidate,
    /// even with a multiplicative hash, was most of a cheap pair's cost).
    rows: std::cell::RefCell<PairRows>,
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

    /// Total penalty, [`VETO`] on a veto (strict mode): the sum of [`Ctx::terms`], grouped as
    /// the search adds it (the terms of the pair (`idx`'s parent vertex, `next`), then the relation
    /// terms). The search itself scores through [`Ctx::cheapest`], which caches the pair terms;
    /// this is its reference form.
    pub fn penalty(&self, m: &[u32], taken: &[u64], idx: usize, next: u32) -> f64 {
        let Some(prev) = self.red.joints.get(idx).and_then(|r| r.parent) else {
            return 0.0;
        };
        let Some(&pv) = m.get(prev) else { return VETO };
        let pair = self.pair_terms(idx, pv, next).unwrap_or([f64::NAN; 2]);
        if pair[0].is_nan() {
            return VETO;
        }
        let at = Placing {
            m,
            taken,
            idx,
            prev,
            pv,
            next,
        };
        match self.rest(&at, pair, f64::INFINITY) {
            Rest::Sum(r) => pair[0] + r,
            Rest::Veto | Rest::NotBelow => VETO,
        }
    }

    /// The Γ-weighted relation terms (global direction with the pair's parent part `pair[1]`,
    /// symmetry, shared path, disjointness) of a placement whose pair terms are `pair`: the total
    /// is `pair[0] + r`. All terms are ≥ 0 and rounding is monotone, so `pair[0]` plus any of them
    /// summed in the same order is a lower bound on that total: once one reaches `bound`, the
    /// rest (the path walk of the shared-path term last) is not computed and `NotBelow` says the
    /// total is ≥ `bound` or a veto. `bound` must be ∞ or at most [`VETO`].
    fn rest(&self, at: &Placing, pair: [f64; 2], bound: f64) -> Rest {
        let w = &self.weights;
        let check = |k: usize, v: Option<f64>| -> Option<f64> {
            let x = if w[k] == 0.0 { 0.0 } else { w[k] * v? };
            (x.is_finite() && x <= 1.0).then_some(x)
        };
        let below = |part: f64| pair[0] + part < bound;
        let (m, idx, pv, next) = (at.m, at.idx, at.pv, at.next);
        let gd = self.global_dot_part(m, idx, at.prev, next, false);
        let Some(gd) = check(1, gd.map(|g| pair[1] + g)) else {
            return Rest::Veto;
        };
        if !below(gd) {
            return Rest::NotBelow;
        }
        let Some(sym) = check(2, Some(self.sym_term(m, idx, pv, next))) else {
            return Rest::Veto;
        };
        if !below(gd + sym) {
            return Rest::NotBelow;
        }
        let Some(dis) = check(8, Some(self.disjoint_term(m, idx, at.prev, next))) else {
            return Rest::Veto;
        };
        if !below(gd + sym + dis) {
            return Rest::NotBelow;
        }
        let Some(dbl) = check(3, self.double_term(at.taken, pv, next)) else {
            return Rest::Veto;
        };
        Rest::Sum(gd + sym + dbl + dis)
    }
}
