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

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use super::penalty::{Ctx, VETO};

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

struct Node {
    parent: u32,
    vertex: u32,
    depth: u16,
    pen: f64,
}

/// Arena of partial matches; `taken` bitsets stored flat, `words` per node.
struct Tree {
    nodes: Vec<Node>,
    taken: Vec<u64>,
    words: usize,
}

impl Tree {
    fn new(n: usize) -> Self {
        let words = n.div_ceil(64).max(1);
        Self {
            nodes: vec![Node {
                parent: 0,
                vertex: 0,
                depth: 0,
                pen: 0.0,
            }],
            taken: vec![0; words],
            words,
        }
    }

    fn matched(&self, mut id: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while id != 0 {
            let n = &self.nodes[id as usize];
            out.push(n.vertex);
            id = n.parent;
        }
        out.reverse();
        out
    }

    fn taken(&self, id: u32) -> &[u64] {
        let s = id as usize * self.words;
        &self.taken[s..s + self.words]
    }

    fn add(&mut self, parent: u32, vertex: u32, pen: f64, taken: &[u64]) -> u32 {
        let depth = self.nodes[parent as usize].depth + 1;
        self.nodes.push(Node {
            parent,
            vertex,
            depth,
            pen,
        });
        self.taken.extend_from_slice(taken);
        (self.nodes.len() - 1) as u32
    }
}

#[derive(PartialEq)]
struct QItem(f64, u32);
impl Eq for QItem {}
impl Ord for QItem {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}
impl PartialOrd for QItem {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Mark the path `a → b` (both ends) in a bitset.
fn mark_path(ctx: &Ctx, taken: &mut [u64], a: u32, b: u32) {
    for v in ctx.paths.path(a, b) {
        if let Some(w) = taken.get_mut(v as usize / 64) {
            *w |= 1u64 << (v % 64);
        }
    }
}

/// Children of `id` as `(vertex, accumulated penalty, bound, taken)`, bound ascending; adds the
/// penalty evaluations made to `work`.
fn expand(
    ctx: &Ctx,
    tree: &Tree,
    id: u32,
    relaxed: bool,
    cutoff: f64,
    lookahead: bool,
    work: &mut u64,
) -> Vec<(u32, f64, f64, Vec<u64>)> {
    let m = tree.matched(id);
    let idx = m.len();
    let k = ctx.red.len();
    let base = tree.nodes[id as usize].pen;
    let Some(cands) = ctx.cand.get(idx) else {
        return Vec::new();
    };
    let parent = ctx.red.joints[idx].parent;
    let mut out = Vec::new();
    let mut m2 = m.clone();
    m2.push(0);
    for &v in cands {
        *work += 1;
        let Some(t) = ctx.terms(&m, tree.taken(id), idx, v, relaxed) else {
            continue;
        };
        let pen = base + t.iter().sum::<f64>();
        if !relaxed && pen >= cutoff {
            continue;
        }
        let mut tk = tree.taken(id).to_vec();
        if let Some(p) = parent {
            mark_path(ctx, &mut tk, v, m[p]);
        }
        m2[idx] = v;
        let mut bound = pen;
        let unlocked = if lookahead { (idx + 1)..k } else { k..k };
        for j in unlocked {
            if ctx.red.joints[j].parent.is_none_or(|p| p > idx) {
                continue;
            }
            let mut best = f64::INFINITY;
            for &w in &ctx.cand[j] {
                *work += 1;
                let p = if relaxed {
                    ctx.terms(&m2, &tk, j, w, true)
                        .map_or(f64::INFINITY, |t| t.iter().sum())
                } else {
                    ctx.penalty(&m2, &tk, j, w)
                };
                best = best.min(p);
                if best <= 0.0 {
                    break;
                }
            }
            bound += best;
            if !relaxed && bound >= cutoff {
                break;
            }
        }
        if relaxed || bound < cutoff {
            out.push((v, pen, bound, tk));
        }
    }
    out.sort_by(|a, b| a.2.total_cmp(&b.2));
    out
}

/// Work spent so far and the limits it is checked against.
struct Meter<'a> {
    limits: &'a Limits<'a>,
    t0: Instant,
    nodes: usize,
    work: u64,
    time_cap_hit: bool,
}

impl Meter<'_> {
    /// True once `nodes`/`work` reach the given shares of the budget, the safety time cap fires
    /// (recorded) or the caller cancels.
    fn over(&mut self, max_nodes: usize, max_work: u64) -> bool {
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
const UNBOUNDED: (usize, u64) = (usize::MAX, u64::MAX);

/// Depth-first: always the best-bounded child first, backtracking, at most `cap` expansions and
/// until the meter reaches `(max_nodes, max_work)`.
fn dive(
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

/// One search's mutable state.
struct Run<'a> {
    ctx: &'a Ctx<'a>,
    limits: &'a Limits<'a>,
    tree: Tree,
    meter: Meter<'a>,
}

/// Share of the budget for the dive and the best-first search; the rest is for [`Run::rescue`].
const MAIN_SHARE: f64 = 0.8;

impl Run<'_> {
    /// Greedy dive, then best-first with the lower bound on [`MAIN_SHARE`] of the budget. Returns the
    /// best complete node, the remaining queue, whether the budget stopped it, and whether the result
    /// is proven optimal.
    fn best_first(&mut self) -> (Option<u32>, BinaryHeap<QItem>, bool, bool) {
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
    fn forced_fit(&mut self) -> Option<u32> {
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
    fn screen(mut self) -> Option<Found> {
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
    fn rescue(&mut self, mut heap: BinaryHeap<QItem>) -> Option<u32> {
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
