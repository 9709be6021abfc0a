//! Expanding one partial match (Baran & Popović 2007 §3.4; docs/algorithms.md#search): every
//! candidate of the next joint, scored, with the lower bound that adds each joint it unlocks at its
//! cheapest candidate; children come back best bound first.

use rayon::prelude::*;

use super::tree::{mark_path, Tree};
use super::Ctx;

/// Children of `id` as `(vertex, accumulated penalty, bound, taken)`, bound ascending; adds the
/// penalty evaluations made to `work`.
pub(super) fn expand(
    ctx: &Ctx,
    tree: &Tree,
    id: u32,
    relaxed: bool,
    cutoff: f64,
    lookahead: bool,
    work: &mut u64,
) -> Vec<Child> {
    let m = tree.matched(id);
    let idx = m.len();
    let base = tree.nodes[id as usize].pen;
    let Some(cands) = ctx.cand.get(idx) else {
        return Vec::new();
    };
    let parent = ctx.red.joints[idx].parent;
    let taken = tree.taken(id);
    // Each candidate is scored on its own (an expansion scores thousands of penalties), on every
    // core; results and work are gathered in candidate order, so nothing depends on threads.
    let scored: Vec<(Option<Child>, u64)> = cands
        .par_iter()
        .with_min_len(CANDIDATES_PER_TASK)
        .map(|&v| {
            let mut w = 0;
            let child = score(ctx, &m, taken, (idx, v, parent), base, relaxed, cutoff, lookahead, &mut w);
            (child, w)
        })
        .collect();
    let mut out = Vec::new();
    for (child, w) in scored {
        *work += w;
        out.extend(child);
    }
    out.sort_by(|a, b| a.2.total_cmp(&b.2));
    out
}

/// Fewest candidates per rayon task in [`expand`].
const CANDIDATES_PER_TASK: usize = 4;

/// One child of an expansion: `(vertex, accumulated penalty, bound, taken)`.
type Child = (u32, f64, f64, Vec<u64>);

/// Candidate `v` for joint `idx` (whose parent joint is `parent`) after the partial match `m`
/// (penalty `base`, vertices `taken`): the child, or `None` when vetoed or cut off; adds the
/// penalty evaluations made to `work`.
#[allow(clippy::too_many_arguments)]
fn score(
    ctx: &Ctx,
    m: &[u32],
    taken: &[u64],
    (idx, v, parent): (usize, u32, Option<usize>),
    base: f64,
    relaxed: bool,
    cutoff: f64,
    lookahead: bool,
    work: &mut u64,
) -> Option<Child> {
    let k = ctx.red.len();
    *work += 1;
    let t = ctx.terms(m, taken, idx, v, relaxed)?;
    let pen = base + t.iter().sum::<f64>();
    if !relaxed && pen >= cutoff {
        return None;
    }
    let mut tk = taken.to_vec();
    if let Some(p) = parent {
        mark_path(ctx, &mut tk, v, m[p]);
    }
    let mut m2 = m.to_vec();
    m2.push(v);
    let mut bound = pen;
    let unlocked = if lookahead { (idx + 1)..k } else { k..k };
    for j in unlocked {
        if ctx.red.joints[j].parent.is_none_or(|p| p > idx) {
            continue;
        }
        bound += cheapest(ctx, &m2, &tk, j, relaxed, work);
        if !relaxed && bound >= cutoff {
            break;
        }
    }
    (relaxed || bound < cutoff).then_some((v, pen, bound, tk))
}

/// The penalty of joint `j`'s cheapest candidate given the partial match `m` (its share of the lower
/// bound), stopping early at a free one; adds the penalty evaluations made to `work`.
fn cheapest(ctx: &Ctx, m: &[u32], taken: &[u64], j: usize, relaxed: bool, work: &mut u64) -> f64 {
    let mut best = f64::INFINITY;
    for &w in &ctx.cand[j] {
        *work += 1;
        let p = if relaxed {
            ctx.terms(m, taken, j, w, true)
                .map_or(f64::INFINITY, |t| t.iter().sum())
        } else {
            ctx.penalty(m, taken, j, w)
        };
        best = best.min(p);
        if best <= 0.0 {
            break;
        }
    }
    best
}
