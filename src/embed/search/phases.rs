//! The phases of one search (Baran & Popović 2007 §3.4; docs/algorithms.md#search): a greedy dive
//! then best-first with the lower bound, a rescue from the best queued partial matches when the
//! budget ran out, the forced (relaxed) fit, and screening.

use std::collections::BinaryHeap;

use super::dive::{dive, Meter, UNBOUNDED};
use super::expand::expand;
use super::tree::{QItem, Tree};
use super::{replay, screen_expansions, Ctx, Found, Limits, Mode, SCREEN_SHARE_DIVISOR};

/// One search's mutable state.
pub(super) struct Run<'a> {
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) limits: &'a Limits<'a>,
    pub(super) tree: Tree,
    pub(super) meter: Meter<'a>,
}

/// Share of the budget for the dive and the best-first search; the rest is for [`Run::rescue`].
const MAIN_SHARE: f64 = 0.8;

impl Run<'_> {
    /// Greedy dive, then best-first with the lower bound on [`MAIN_SHARE`] of the budget. Returns the
    /// best complete node, the remaining queue, whether the budget stopped it, and whether the result
    /// is proven optimal.
    pub(super) fn best_first(&mut self) -> (Option<u32>, BinaryHeap<QItem>, bool, bool) {
        let (ctx, limits) = (self.ctx, self.limits);
        let k = ctx.red.len();
        let main = (
            (limits.max_nodes as f64 * MAIN_SHARE) as usize,
            (limits.max_work as f64 * MAIN_SHARE) as u64,
        );
        let cap = (main.0 / 20).max(50);
        let mut best = dive(
            ctx,
            &mut self.tree,
            0,
            cap,
            (false, usize::MAX),
            &mut self.meter,
            main,
        );
        let mut heap = BinaryHeap::new();
        heap.push(QItem(0.0, 0u32));
        let (mut budget_hit, mut proven) = (false, false);
        while let Some(QItem(bound, id)) = heap.pop() {
            if best.is_some_and(|b| bound >= self.tree.nodes[b as usize].pen) {
                proven = true;
                break;
            }
            if self.tree.nodes[id as usize].depth as usize == k {
                best = Some(id);
                proven = true;
                break;
            }
            if self.meter.over(main.0, main.1) {
                budget_hit = true;
                heap.push(QItem(bound, id));
                break;
            }
            self.meter.nodes += 1;
            for (v, pen, b, tk) in expand(
                ctx,
                &self.tree,
                id,
                false,
                limits.cutoff,
                true,
                &mut self.meter.work,
            ) {
                let c = self.tree.add(id, v, pen, &tk);
                heap.push(QItem(b, c));
            }
        }
        // The queue emptied: nothing beats the dive's result.
        proven |= heap.is_empty() && best.is_some();
        (best, heap, budget_hit, proven)
    }

    /// The least bad relaxed fit: backtracking dives within a second budget, then (unless screening)
    /// a single greedy descent, which always completes in `k` expansions (relaxed terms never veto).
    pub(super) fn forced_fit(&mut self) -> Option<u32> {
        let (ctx, limits) = (self.ctx, self.limits);
        let k = ctx.red.len();
        let second = (usize::MAX, self.meter.work.saturating_add(limits.max_work));
        let best = dive(
            ctx,
            &mut self.tree,
            0,
            4 * k + 16,
            (true, usize::MAX),
            &mut self.meter,
            second,
        );
        if best.is_some() || limits.mode != Mode::Full {
            return best;
        }
        dive(
            ctx,
            &mut self.tree,
            0,
            k,
            (true, usize::MAX),
            &mut self.meter,
            UNBOUNDED,
        )
    }

    /// [`Mode::Screen`]: a strict greedy dive, else a relaxed one (flagged `forced`).
    pub(super) fn screen(mut self) -> Option<Found> {
        let (ctx, cap) = (self.ctx, screen_expansions(self.ctx.red.len()));
        let max = (
            self.limits.max_nodes,
            self.limits.max_work / SCREEN_SHARE_DIVISOR,
        );
        let mut forced = false;
        let strict = (false, usize::MAX);
        let mut best = dive(ctx, &mut self.tree, 0, cap, strict, &mut self.meter, max);
        if best.is_none() {
            // Only ranks orientations that fit nothing: no lower bound, so it costs little.
            forced = true;
            let max = (usize::MAX, u64::MAX - 1);
            best = dive(ctx, &mut self.tree, 0, cap, (true, 0), &mut self.meter, max);
        }
        let matched = self.tree.matched(best?);
        let (terms, total) = replay(ctx, &matched, forced);
        Some(Found {
            matched,
            terms,
            total,
            budget_hit: true,
            forced,
            nodes: self.meter.nodes,
            work: self.meter.work,
            time_cap_hit: self.meter.time_cap_hit,
            cancelled: (self.limits.cancelled)(),
        })
    }

    /// No complete match yet: dives from the best queued partial matches, with the rest of the budget.
    pub(super) fn rescue(&mut self, mut heap: BinaryHeap<QItem>) -> Option<u32> {
        let max = (self.limits.max_nodes.max(1), self.limits.max_work.max(1));
        while let Some(QItem(_, id)) = heap.pop() {
            if self.meter.over(max.0, max.1) {
                break;
            }
            let best = dive(
                self.ctx,
                &mut self.tree,
                id,
                64,
                (false, usize::MAX),
                &mut self.meter,
                max,
            );
            if best.is_some() {
                return best;
            }
        }
        None
    }
}
