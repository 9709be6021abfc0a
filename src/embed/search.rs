//! Best-first search over partial embeddings with the original's lower bound (Baran & Popović 2007 §3.4; docs/algorithms.md#search), plus
//! a budget.
//!
//! Priority = accumulated penalty + Σ over unplaced joints whose parent is placed of their cheapest
//! candidate's penalty; a child is kept only if that stays below 1. The first complete match popped is
//! optimal (every bound is a lower bound). Differences from the original:
//! * a **greedy depth-first dive** runs first, so a complete embedding exists early; the best-first
//!   search stops as soon as the queue's best bound reaches the best complete penalty;
//! * a **budget** (expanded nodes, wall time, cancellation): on budget, the best complete embedding found
//!   is returned with `budget_hit`; if there is none, dives from the best queued partial matches get the
//!   rest of the budget;
//! * if no embedding passes the cutoff at all, a **relaxed** dive (vetoes cost 1 instead of rejecting)
//!   returns the least bad forced fit, flagged `forced`, instead of nothing.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use super::penalty::{Ctx, VETO};

/// When to stop.
pub struct Limits<'a> {
    /// Maximum expanded nodes.
    pub max_nodes: usize,
    /// Wall-clock budget.
    pub max_time: Duration,
    /// Polled every expansion.
    pub cancelled: &'a (dyn Fn() -> bool + Sync),
    /// Screening: give up (return `None`) rather than spend more than the budget on a forced fit.
    pub screening: bool,
}

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

/// Children of `id` as `(vertex, accumulated penalty, bound, taken)`, bound ascending.
fn expand(ctx: &Ctx, tree: &Tree, id: u32, relaxed: bool) -> Vec<(u32, f64, f64, Vec<u64>)> {
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
        let Some(t) = ctx.terms(&m, tree.taken(id), idx, v, relaxed) else {
            continue;
        };
        let pen = base + t.iter().sum::<f64>();
        if !relaxed && pen >= 1.0 {
            continue;
        }
        let mut tk = tree.taken(id).to_vec();
        if let Some(p) = parent {
            mark_path(ctx, &mut tk, v, m[p]);
        }
        m2[idx] = v;
        let mut bound = pen;
        for j in (idx + 1)..k {
            if ctx.red.joints[j].parent.is_none_or(|p| p > idx) {
                continue;
            }
            let mut best = f64::INFINITY;
            for &w in &ctx.cand[j] {
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
            if !relaxed && bound >= 1.0 {
                break;
            }
        }
        if relaxed || bound < 1.0 {
            out.push((v, pen, bound, tk));
        }
    }
    out.sort_by(|a, b| a.2.total_cmp(&b.2));
    out
}

/// Depth-first: always the best-bounded child first, backtracking, at most `cap` expansions.
fn dive(
    ctx: &Ctx,
    tree: &mut Tree,
    start: u32,
    cap: usize,
    relaxed: bool,
    used: &mut usize,
    stop: &dyn Fn() -> bool,
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
        if budget == 0 || stop() {
            return None;
        }
        budget -= 1;
        *used += 1;
        let mut ids: Vec<u32> = expand(ctx, tree, id, relaxed)
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
        t0: Instant::now(),
        tree: Tree::new(ctx.pos.len()),
        used: 0,
    };
    let (mut best, heap, budget_hit, proven) = run.best_first();
    if best.is_none() && budget_hit {
        best = run.rescue(heap);
    }
    let mut forced = false;
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
        nodes: run.used,
        cancelled: (limits.cancelled)(),
    })
}

/// One search's mutable state.
struct Run<'a> {
    ctx: &'a Ctx<'a>,
    limits: &'a Limits<'a>,
    t0: Instant,
    tree: Tree,
    used: usize,
}

impl Run<'_> {
    /// Greedy dive, then best-first with the lower bound on 80% of the budget. Returns the best
    /// complete node, the remaining queue, whether the budget stopped it, and whether the result is
    /// proven optimal.
    fn best_first(&mut self) -> (Option<u32>, BinaryHeap<QItem>, bool, bool) {
        let (ctx, limits, t0) = (self.ctx, self.limits, self.t0);
        let k = ctx.red.len();
        let main_time = limits.max_time.mul_f64(0.8);
        let main_nodes = limits.max_nodes.saturating_mul(4) / 5;
        let stop_main = || t0.elapsed() >= main_time || (limits.cancelled)();
        let cap = (main_nodes / 20).max(50);
        let mut best = dive(
            ctx,
            &mut self.tree,
            0,
            cap,
            false,
            &mut self.used,
            &stop_main,
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
            // Checked every expansion: one expansion can cost milliseconds on a big candidate set.
            if self.used >= main_nodes || stop_main() {
                budget_hit = true;
                heap.push(QItem(bound, id));
                break;
            }
            self.used += 1;
            for (v, pen, b, tk) in expand(ctx, &self.tree, id, false) {
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
        let (ctx, limits, t0) = (self.ctx, self.limits, self.t0);
        let k = ctx.red.len();
        let stop = || t0.elapsed() >= limits.max_time * 2 || (limits.cancelled)();
        let mut u = 0;
        let best = dive(ctx, &mut self.tree, 0, 4 * k + 16, true, &mut u, &stop);
        self.used += u;
        if best.is_some() || limits.screening {
            return best;
        }
        let never = || (limits.cancelled)();
        let mut u = 0;
        let best = dive(ctx, &mut self.tree, 0, k, true, &mut u, &never);
        self.used += u;
        best
    }

    /// No complete match yet: dives from the best queued partial matches, with the rest of the budget.
    fn rescue(&mut self, mut heap: BinaryHeap<QItem>) -> Option<u32> {
        let (limits, t0) = (self.limits, self.t0);
        let over = |used: usize| {
            used >= limits.max_nodes.max(1)
                || t0.elapsed() >= limits.max_time
                || (limits.cancelled)()
        };
        while let Some(QItem(_, id)) = heap.pop() {
            if over(self.used) {
                break;
            }
            let used = self.used;
            let stop = || over(used);
            let mut u = 0;
            let best = dive(self.ctx, &mut self.tree, id, 64, false, &mut u, &stop);
            self.used += u;
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
