//! The penalty terms that relate the chain being placed to the chains already placed (Baran &
//! Popović 2007 §3.3; docs/algorithms.md#penalty-terms): GlobalDotPF (direction from the parent and
//! the siblings), SymPF (mirror partner), DoublePF (shared path, plus bridge edges: see the
//! [module doc](super)), DisjointPF (chains that touch).

use super::{is_taken, unit, Ctx, BRIDGE_COST, PLAY};
use crate::embed::paths::NONE;

/// A shared-path vertex this thin (normalized radius) cannot carry two chains: veto.
const THIN_SHARED: f64 = 0.02;
/// Paths are "not disjoint" when the detour through the common ancestor exceeds the direct
/// distance by this factor.
const DISJOINT_RATIO: f64 = 2.0;

impl Ctx<'_> {
    /// GlobalDotPF: direction from the parent and from placed siblings vs the template.
    pub(super) fn global_dot(&self, m: &[u32], idx: usize, prev: usize, next: u32) -> Option<f64> {
        Some(
            self.global_dot_part(m, idx, prev, next, true)?
                + self.global_dot_part(m, idx, prev, next, false)?,
        )
    }

    /// The parent (`parent = true`) or the siblings' part of GlobalDotPF.
    pub(super) fn global_dot_part(
        &self,
        m: &[u32],
        idx: usize,
        prev: usize,
        next: u32,
        parent: bool,
    ) -> Option<f64> {
        if parent {
            // Only the parent's entry of the match counts.
            return match m.get(prev) {
                Some(&pv) => self.global_dot_parent(idx, prev, pv, next),
                None => Some(0.0),
            };
        }
        let mut out = 0.0;
        for (i, &mi) in m.iter().enumerate() {
            let sibling = i != prev && self.red.joints[i].parent == Some(prev);
            if !sibling || mi == next {
                continue;
            }
            let dot =
                unit(self.pos[next as usize] - self.pos[mi as usize]).dot(&self.rest_dir(idx, i));
            if dot < -0.5 {
                return None;
            }
            out += 0.5 * ((2.0 * (1.0 - dot)).powi(2) - 0.5).max(0.0);
        }
        Some(out)
    }

    /// The parent's part of GlobalDotPF, with the parent `prev` placed at `pv`: what
    /// [`Self::global_dot_part`] adds (from 0) for the parent's entry of a match.
    pub(super) fn global_dot_parent(
        &self,
        idx: usize,
        prev: usize,
        pv: u32,
        next: u32,
    ) -> Option<f64> {
        let mut out = 0.0;
        if pv != next {
            let dot = unit(self.pos[next as usize] - self.pos[pv as usize])
                .dot(&self.rest_dir(idx, prev));
            if dot < 0.0 {
                return None;
            }
            out += 0.5 * ((4.0 * (1.0 - dot)).powi(2) - 0.1).max(0.0);
        }
        Some(out)
    }

    /// SymPF: this chain vs its already placed mirror partner.
    pub(super) fn sym_term(&self, m: &[u32], idx: usize, pv: u32, next: u32) -> f64 {
        let Some(v1) = self.red.joints[idx].sym else {
            return 0.0;
        };
        if self.pinned[idx] || self.pinned[v1] {
            return 0.0;
        }
        let Some(v2) = self.red.joints[v1].parent else {
            return 0.0;
        };
        let (Some(&a), Some(&b)) = (m.get(v1), m.get(v2)) else {
            return 0.0;
        };
        let r = |v: u32| self.rad[v as usize];
        let dist = self.paths.dist(next, pv);
        let dist_c = dist + PLAY * (r(next) + r(pv));
        let s_dist = self.paths.dist(a, b);
        let s_dist_c = s_dist + PLAY * (r(a) + r(b));
        let noc = (dist / (s_dist + 1e-8))
            .max(s_dist / (dist + 1e-8))
            .min(2.0);
        let ratio = (s_dist / dist_c).max(dist / s_dist_c);
        ((0.2 * noc + 0.8 * ratio).powi(3) - 1.2).max(0.0)
    }

    /// DoublePF: the chain's path reuses vertices of earlier chains (plus bridge crossings).
    pub(super) fn double_term(&self, taken: &[u64], pv: u32, next: u32) -> Option<f64> {
        let (mut sum, mut any) = (0.0, false);
        let (mut cur, mut i) = (next, 0usize);
        while cur != pv && cur != NONE && i <= self.pos.len() {
            if is_taken(taken, cur) {
                if self.rad[cur as usize] < THIN_SHARED {
                    return None;
                }
                sum += 0.5 / ((i + 1) * (i + 1)) as f64;
                any = true;
            }
            cur = self.paths.hop(cur, pv);
            i += 1;
        }
        let bridges = f64::from(self.paths.bridges_on(next, pv)) * BRIDGE_COST;
        Some(if any { sum + 0.5 } else { 0.0 } + bridges)
    }

    /// DisjointPF: chains whose tree route is much longer than their direct graph distance touch.
    pub(super) fn disjoint_term(&self, m: &[u32], idx: usize, prev: usize, next: u32) -> f64 {
        let k = self.red.len();
        let mut out = 0.0;
        for (i, &mi) in m.iter().enumerate() {
            if i == prev || i == idx {
                continue;
            }
            let Some(&ma) = self.lca.get(idx * k + i).and_then(|a| m.get(*a)) else {
                continue;
            };
            let s = self.rad[next as usize] + self.rad[mi as usize];
            let d = &self.paths;
            let ratio = (d.dist(next, ma) + d.dist(ma, mi) + s) / (d.dist(next, mi) + s);
            if ratio > DISJOINT_RATIO {
                out += 1.0;
            }
        }
        out
    }
}
