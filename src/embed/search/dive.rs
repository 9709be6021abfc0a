//! The greedy depth-first dive (Baran & Popović 2007 §3.4, with a budget: see the [module
//! doc](super)) and the meter that counts the deterministic work it spends.

use std::time::Instant;

use super::expand::expand;
use super::tree::Tree;
use super::{Ctx, Limits};

/// Work spent so far and the limits it is checked against.
pub(super) struct Meter<'a> {
    pub(super) limits: &'a Limits<'a>,
    pub(super) t0: Instant,
    pub(super) nodes: usize,
    pub(super) work: u64,
    pub(super) time_cap_hit: bool,
}

impl Meter<'_> {
    /// True once `nodes`/`work` reach the given shares of the budget, the safety time cap fires
    /// (recorded) or the caller cancels.
    pub(super) fn over(&mut self, max_nodes: usize, max_work: u64) -> bool {
        if (max_nodes, max_work) == UNBOUNDED {
            return (self.limits.cancelled)();
        }
        if self.nodes >= max_nodes || self.work >= max_work {
            return true;
        }
        if self.t0.elapsed() >= self.limits.safety_time {
            self.time_cap_hit = true;
            return true;
        }
        (self.limits.cancelled)()
    }
}

/// A meter limit that only cancellation stops: the last greedy descent of a forced fit, which
/// completes in `k` expansions by construction.
pub(super) const UNBOUNDED: (usize, u64) = (usize::MAX, u64::MAX);

/// Depth-first: always the best-bounded child first, backtracking, at most `cap` expansions and
/// until the meter reaches `(max_nodes, max_work)`.
pub(super) fn dive(
    ctx: &Ctx,
    tree: &mut Tree,
    start: u32,
    cap: usize,
    (relaxed, lookahead_depth): (bool, usize),
    meter: &mut Meter,
    max: (usize, u64),
) -> Option<u32> {
    let k = ctx.red.len();
    let mut stack: Vec<Vec<u32>> = vec![vec![start]];
    let mut budget = cap;
    while let Some(top) = stack.last_mut() {
        let Some(id) = top.pop() else {
            stack.pop();
            continue;
        };
        if tree.nodes[id as usize].depth as usize == k {
            return Some(id);
        }
        if budget == 0 || meter.over(max.0, max.1) {
            return None;
        }
        budget -= 1;
        meter.nodes += 1;
        let mut ids: Vec<u32> = expand(
            ctx,
            tree,
            id,
            relaxed,
            meter.limits.cutoff,
            (tree.nodes[id as usize].depth as usize) < lookahead_depth,
            &mut meter.work,
        )
        .into_iter()
        .map(|(v, pen, _, tk)| tree.add(id, v, pen, &tk))
        .collect();
        if relaxed {
            ids.truncate(3); // a forced fit only needs one complete match, not the optimum
        }
        ids.reverse();
        stack.push(ids);
    }
    None
}
