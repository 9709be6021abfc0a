//! Best-first search over partial embeddings with the original's lower bound (Baran & Popović 2007 §3.4; docs/algorithms.md#search), plus
//! a budget.
//!
//! Priority = accumulated penalty + Σ over unplaced joints whose parent is placed of their cheapest
//! candidate's penalty; a child is kept only if that stays below 1. The first complete match popped is
//! optimal (every bound is a lower bound). Differences from the original:
//! * a **greedy depth-first dive** runs first, so a complete embedding exists early; the best-first
//!   search stops as soon as the queue's best bound reaches the best complete penalty;
//! * a **budget** counted in deterministic work — penalty evaluations (the unit of cost: one expansion
//!   evaluates every candidate of the next joint and, for the lower bound, every candidate of the joints
//!   it unlocks) and expanded nodes (memory) — so the same input gives the same result on a busy or a
//!   quiet machine and with any thread count. On budget, the best complete embedding found is returned
//!   with `budget_hit`; if there is none, dives from the best queued partial matches get the rest of the
//!   budget. Wall-clock time is only a last-resort safety cap, far above a normal search
//!   (`time_cap_hit`, reported to the user because it makes the result timing-dependent);
//! * if no embedding passes the cutoff at all, a **relaxed** dive (vetoes cost 1 instead of rejecting)
//!   returns the least bad forced fit, flagged `forced`, instead of nothing.
//!
//! Layout: the arena of partial matches and the queue order (`tree.rs`); one node's children with
//! their lower bounds, best bound first (`expand.rs`); the depth-first dive and the work meter
//! (`dive.rs`); the search's phases — dive then best-first, rescue, forced fit, screening
//! (`phases.rs`); here, the limits, the result and the entry function.

mod dive;
mod expand;
mod phases;
mod tree;

use std::time::{Duration, Instant};

use super::penalty::{Ctx, VETO};
use dive::Meter;
use phases::Run;
use tree::{mark_path, Tree};

/// When to stop.
pub struct Limits<'a> {
    /// Maximum expanded nodes (bounds memory: every node stores its taken-vertex bitset).
    pub max_nodes: usize,
    /// Maximum penalty evaluations: the deterministic budget.
    pub max_work: u64,
    /// Last-resort wall-clock cap, far above the time `max_work` normally takes.
    pub safety_time: Duration,
    /// Polled every expansion.
    pub cancelled: &'a (dyn Fn() -> bool + Sync),
    /// What kind of search this is.
    pub mode: Mode,
    /// Prune partial matches whose lower bound reaches this (the original's 1; lower when the
    /// caller only wants a match that beats one it already has).
    pub cutoff: f64,
}

/// Kinds of search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The full search: dive, best-first with the lower bound, rescue, forced fit.
    Full,
    /// Only show whether some match beats `Limits::cutoff`: the full search without the forced fit
    /// (`None` if nothing beats it).
    Beat,
    /// A cheap estimate for ranking orientations and templates: greedy backtracking dives with no
    /// lookahead bound (one penalty evaluation per candidate), strict and then relaxed, at most
    /// [`screen_expansions`] expansions each.
    Screen,
}

/// Expansions a screening dive may make: one per joint plus a few backtracks. A well-fitting
/// orientation completes without backtracking; a lying one fails fast instead of exploring.
pub fn screen_expansions(joints: usize) -> usize {
    joints + 4
}

/// A screening dive may spend the search budget (`Limits::max_work`) divided by this: screening all
/// 24 orientations then costs at most two full searches. A greedy dive on a fitting orientation
/// needs far less (about 1/70 of the budget on sveta, 1/40 on the camel, measured).
pub const SCREEN_SHARE_DIVISOR: u64 = 12;

/// A complete discrete embedding.
#[derive(Clone, Debug)]
pub struct Found {
    /// Graph vertex per reduced joint (search order).
    pub matched: Vec<u32>,
    /// Weighted terms summed over joints.
    pub terms: [f64; 9],
    /// Sum of `terms`.
    pub total: f64,
    /// The budget stopped the search before optimality was proven.
    pub budget_hit: bool,
    /// No embedding passed the penalty cutoff; this is a relaxed (forced) fit.
    pub forced: bool,
    /// Expanded nodes.
    pub nodes: usize,
    /// Penalty evaluations spent.
    pub work: u64,
    /// The wall-clock safety cap stopped the search (the result may then depend on machine load).
    pub time_cap_hit: bool,
    /// Cancelled by the caller.
    pub cancelled: bool,
}

/// Best-first search with a greedy first dive and a budget. `None` only if not even a relaxed fit
/// exists (unreachable parts, empty candidate sets).
pub fn search(ctx: &Ctx, limits: &Limits) -> Option<Found> {
    let k = ctx.red.len();
    if k == 0 || ctx.cand.iter().any(Vec::is_empty) {
        return None;
    }
    let mut run = Run {
        ctx,
        limits,
        tree: Tree::new(ctx.pos.len()),
        meter: Meter {
            limits,
            t0: Instant::now(),
            nodes: 0,
            work: 0,
            time_cap_hit: false,
        },
    };
    if limits.mode == Mode::Screen {
        return run.screen();
    }
    let (mut best, heap, budget_hit, proven) = run.best_first();
    if best.is_none() && budget_hit {
        best = run.rescue(heap);
    }
    let mut forced = false;
    if best.is_none() && limits.mode == Mode::Beat {
        return None;
    }
    if best.is_none() {
        forced = true;
        best = run.forced_fit();
    }
    let matched = run.tree.matched(best?);
    let (terms, total) = replay(ctx, &matched, forced);
    Some(Found {
        matched,
        terms,
        total,
        budget_hit: budget_hit && !proven,
        forced,
        nodes: run.meter.nodes,
        work: run.meter.work,
        time_cap_hit: run.meter.time_cap_hit,
        cancelled: (limits.cancelled)(),
    })
}

/// Per-term weighted sums of a complete match (relaxed scoring when `forced`).
pub fn replay(ctx: &Ctx, matched: &[u32], forced: bool) -> ([f64; 9], f64) {
    let mut terms = [0.0; 9];
    let mut taken = vec![0u64; ctx.pos.len().div_ceil(64).max(1)];
    for idx in 1..matched.len() {
        let t = ctx
            .terms(&matched[..idx], &taken, idx, matched[idx], forced)
            .or_else(|| ctx.terms(&matched[..idx], &taken, idx, matched[idx], true))
            .unwrap_or([VETO / 9.0; 9]);
        for (a, b) in terms.iter_mut().zip(t) {
            *a += b;
        }
        if let Some(p) = ctx.red.joints[idx].parent {
            mark_path(ctx, &mut taken, matched[idx], matched[p]);
        }
    }
    (terms, terms.iter().sum())
}
