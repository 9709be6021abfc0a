//! The lower bound's inner loop (Baran & Popović 2007 §3.4): the cheapest candidate of one joint
//! given a partial match, as the search's `cheapest` scanned it with [`Ctx::penalty`] — the same
//! value and the same number of penalty evaluations counted (the search's deterministic budget),
//! with less work per evaluation.
//!
//! Two savings, neither of which changes a result bit: the pair terms of (joint, parent vertex,
//! candidate) are cached in one row per (joint, parent vertex), and a candidate whose total cannot
//! go below the best so far is not finished. Every term is ≥ 0 and IEEE addition is monotone
//! (`a ≤ b` ⇒ `a + c ≤ b + c` after rounding), so a running sum with some terms left out bounds
//! the full sum, in the same order, from below: first the pair sum's first three terms (length,
//! foot, zero length: no path walk), then the pair sum, then that plus the relation terms computed
//! so far. When a bound reaches the best so far — and that best is at most [`VETO`], so a veto
//! could not lower it either — the minimum stays what it was.

use super::{Ctx, Placing, Rest, VETO};

/// A cached pair whose second entry is this holds only [`Ctx::pair_prefix`] in its first: the
/// full pair terms were not needed yet. (A full entry's second value, the parent part of the
/// global direction term, is ≥ 0, or NaN for a veto.)
const PREFIX_ONLY: f64 = -1.0;

impl Ctx<'_> {
    /// `min` of [`Ctx::penalty`]`(m, taken, j, w)` over `j`'s candidates `w` in order, stopping at
    /// the first that costs nothing; adds one to `work` per candidate reached, as that scan did.
    pub fn cheapest(&self, m: &[u32], taken: &[u64], j: usize, work: &mut u64) -> f64 {
        let cands = &self.cand[j];
        if cands.is_empty() {
            return f64::INFINITY;
        }
        let Some(prev) = self.red.joints.get(j).and_then(|r| r.parent) else {
            // The root costs nothing wherever it goes: the first candidate ends the scan.
            *work += 1;
            return 0.0;
        };
        let Some(&pv) = m.get(prev) else {
            *work += cands.len() as u64;
            return VETO;
        };
        let key = ((j as u64) << 32) | u64::from(pv);
        let mut rows = self.rows.borrow_mut();
        let row = rows.entry(key).or_default();
        let mut best = f64::INFINITY;
        for (i, &next) in cands.iter().enumerate() {
            *work += 1;
            if i == row.len() {
                let prefix = self.pair_prefix(j, pv, next);
                row.push(prefix.map_or([f64::NAN; 2], |s| [s, PREFIX_ONLY]));
            }
            let bound = if best <= VETO { best } else { f64::INFINITY };
            if row[i][0] < bound && row[i][1] == PREFIX_ONLY {
                row[i] = self
                    .pair_rest(j, pv, next, row[i][0])
                    .unwrap_or([f64::NAN; 2]);
            }
            let pair = row[i];
            let p = if pair[0].is_nan() {
                VETO
            } else {
                if pair[0] >= bound {
                    continue;
                }
                let at = Placing {
                    m,
                    taken,
                    idx: j,
                    prev,
                    pv,
                    next,
                };
                match self.rest(&at, pair, bound) {
                    Rest::Veto => VETO,
                    Rest::NotBelow => continue,
                    Rest::Sum(r) => pair[0] + r,
                }
            };
            best = best.min(p);
            if best <= 0.0 {
                break;
            }
        }
        best
    }

    /// `[weighted sum of length, foot, zero length, direction, mid-limb end; unweighted parent part of
    /// global direction]`, or `None` on a veto of any of them.
    pub(super) fn pair_terms(&self, idx: usize, pv: u32, next: u32) -> Option<[f64; 2]> {
        let prefix = self.pair_prefix(idx, pv, next)?;
        self.pair_rest(idx, pv, next, prefix)
    }

    /// [`Ctx::pair_terms`] given its `prefix` ([`Ctx::pair_prefix`], not a veto): the scan
    /// finishes a cached prefix without computing it again. Every term is pure, so which veto is
    /// met first does not change the result.
    fn pair_rest(&self, idx: usize, pv: u32, next: u32, prefix: f64) -> Option<[f64; 2]> {
        let prev = self.red.joints[idx].parent?;
        if !self.pins_met(idx, pv, next) {
            return None;
        }
        // The parent part reads only the parent's entry of the match.
        let gd = self.global_dot_parent(idx, prev, pv, next)?;
        if self.weights[1] * gd > 1.0 {
            return None;
        }
        let rest = [
            (6, self.dot_term(idx, pv, next)),
            (7, self.extrem_term(idx, pv, next)),
        ];
        Some([self.weighted_sum(prefix, &rest)?, gd])
    }

    /// The weighted length, foot and zero-length terms summed from 0 in that order — how
    /// [`Ctx::pair_terms`] begins its sum, so a lower bound on it — or `None` on a veto of one of
    /// them (or an unreachable or out-of-range `next`).
    fn pair_prefix(&self, idx: usize, pv: u32, next: u32) -> Option<f64> {
        let nu = next as usize;
        if nu >= self.pos.len() || !self.paths.dist(next, pv).is_finite() {
            return None;
        }
        let foot = if self.red.joints[idx].foot {
            self.pos[nu].y - self.foot_base
        } else {
            0.0
        };
        let dup = if next == pv { 1.0 } else { 0.0 };
        let raw = [(0, self.dist_term(idx, pv, next)?), (4, foot), (5, dup)];
        self.weighted_sum(0.0, &raw)
    }

    /// `sum` plus each Γ-weighted `(term, value)` in turn; `None` when one is above 1 or not
    /// finite (a veto). A zero weight switches its term off.
    fn weighted_sum(&self, mut sum: f64, raw: &[(usize, f64)]) -> Option<f64> {
        for &(k, v) in raw {
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
        Some(sum)
    }
}
