//! Expanding one partial match (Baran & Popović 2007 §3.4; docs/algorithms.md#search): every
//! candidate of the next joint, scored, with the lower bound that adds each joint it unlocks at its
//! cheapest candidate; children come back best bound first.

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
            bound += cheapest(ctx, &m2, &tk, j, relaxed, work);
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

/// The penalty of joint `j`'s cheapest candidate given the partial match `m` (its share of the lower
/// bound), stopping early at a free one; adds the penalty evaluations made to `work`.
fn cheapest(ctx: &Ctx, m: &[u32], taken: &[u64], j: usize, relaxed: bool, work: &mut u64) -> f64 {
    if !relaxed {
        return ctx.cheapest(m, taken, j, work);
    }
    let mut best = f64::INFINITY;
    for &w in &ctx.cand[j] {
        *work += 1;
        let p = ctx
            .terms(m, taken, j, w, true)
            .map_or(f64::INFINITY, |t| t.iter().sum());
        best = best.min(p);
        if best <= 0.0 {
            break;
        }
    }
    best
}
