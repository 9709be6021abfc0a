//! The heat system restricted to a vertex region with the weights outside held fixed
//! (Bang et al. 2015 Eq. 2 and Eq. 3; docs/algorithms.md#rig-editing).
//!
//! In the area-weighted form of the plain solver (`(K + M H) w = M H p`, K the cotangent stiffness,
//! M the one-ring areas, facts §9.2), the smoothness mix a + b = 1 becomes the symmetric positive
//! definite `(M H + a K + b K M⁻¹ K) w = M H p` (the thin-plate sign, facts §5.3: the literal
//! `H − aL − bL²` can be indefinite). On the region C with the rest F frozen this is a Dirichlet
//! problem: `A_CC x = (M H p)_C − A_CF w_F`, one factorization per distinct b, one right-hand side
//! per recomputed weight column. With C = every heat vertex it is the global solve.

use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::assemble::{fill_rhs, frozen_coupling, heat_rhs, stiffness_block};
use super::cache::{FactorCache, Numeric, Stiffness};
use super::rows::finish;
pub use super::rows::{ChunkedRows, FlatRows, RAW_KEEP};
use super::sources::{heat_term, region_sources, Prefetched};
use super::{EditError, Session};
use crate::skin::heat::Source;
use crate::skin::solve::{SolveStats, SpdFactor, SpdPattern};
use crate::util::ms_since;

/// New weight rows for the vertices of a region.
#[derive(Clone, Debug, Default)]
pub struct Patch {
    /// Welded vertices re-solved.
    pub region: Vec<u32>,
    /// Their new rows (joint, weight), heaviest first, summing to 1 (row i for `region[i]`).
    pub rows: ChunkedRows,
    /// Their raw solution values (before clipping, pruning and renormalizing), the boundary values
    /// later solves freeze.
    pub raw: ChunkedRows,
    /// Weight columns (joints) recomputed.
    pub columns: Vec<u32>,
    /// Heat sources recomputed on the region, by position in `region` (cached by the session; the
    /// others are unchanged).
    pub sources: Vec<(usize, Option<Source>)>,
    /// Timings, ms.
    pub times: SolveTimes,
}

/// Phases of one local solve, milliseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveTimes {
    /// Heat sources (nearest visible virtual bone) on the region.
    pub heat_ms: f64,
    /// Matrix and right-hand sides.
    pub assemble_ms: f64,
    /// Symbolic and numeric factorization.
    pub factor_ms: f64,
    /// Triangular solves.
    pub solve_ms: f64,
    /// Clip, prune, renormalize.
    pub post_ms: f64,
    /// Factorizations whose stiffness part and symbolic analysis came from the cache.
    pub symbolic_reused: usize,
    /// Factorizations taken whole from the cache (same region, b and heat diagonal).
    pub numeric_reused: usize,
}

/// Solve for the weights on `region` (welded vertices of heat shells) with every other vertex
/// frozen. `watch` columns are always recomputed; so is every column with a weight on the region
/// or its frozen rings, and every joint that becomes a heat source there (facts §9.6), so the
/// recomputed columns sum to 1 on the region before the final renormalization.
pub fn solve_region(s: &Session, region: &[u32], watch: &[u32]) -> Result<Patch, EditError> {
    solve_region_cached(s, region, watch, &mut FactorCache::default(), None)
}

/// [`solve_region`], reusing (and filling) `cache` where the region and matrix repeat; the result
/// is bit-identical to an uncached solve. `pre`: heat sources computed ahead, used if they were
/// computed for this region.
pub fn solve_region_cached(
    s: &Session,
    region: &[u32],
    watch: &[u32],
    cache: &mut FactorCache,
    pre: Option<Prefetched>,
) -> Result<Patch, EditError> {
    let sys = Region::new(s, region);
    let mut times = SolveTimes::default();

    let t = Instant::now();
    let fresh = match pre {
        Some(p) if p.region == region => {
            times.heat_ms += p.heat_ms;
            p.fresh
        }
        _ => region_sources(s, &sys.verts, &s.virtual_bones()),
    };
    let mut sources: Vec<Option<&Source>> = sys
        .verts
        .iter()
        .map(|&v| s.sources[v as usize].as_ref())
        .collect();
    for (l, src) in &fresh {
        sources[*l] = src.as_ref();
    }
    times.heat_ms += ms_since(t);

    let t = Instant::now();
    let columns = columns(s, &sys.rows, &sys.lidx, &sources, watch);
    let mh = heat_diagonal(s, &sys, &sources);
    times.assemble_ms = ms_since(t);
    let x = solve_groups(s, &sys, &mh, &sources, &columns, cache, &mut times)?;

    let t = Instant::now();
    let (rows, raw) = finish(s, &sys.verts, &columns, &x, &sources);
    times.post_ms = ms_since(t);
    Ok(Patch {
        region: sys.verts,
        rows,
        raw,
        columns,
        sources: fresh,
        times,
    })
}

/// The heat term `M H` of each region row (zero without a heat source).
fn heat_diagonal(s: &Session, sys: &Region, sources: &[Option<&Source>]) -> Vec<f64> {
    sys.rows
        .par_iter()
        .zip(sources)
        .with_min_len(COLUMNS_CHUNK)
        .map(|(&r, src)| src.map_or(0.0, |src| heat_term(s, r, src)))
        .collect()
}

/// Raw solutions of every recomputed column (column-major, `columns` order), one factorization
/// per smoothness group b; phase times added to `times`.
fn solve_groups(
    s: &Session,
    sys: &Region,
    mh: &[f64],
    sources: &[Option<&Source>],
    columns: &[u32],
    cache: &mut FactorCache,
    times: &mut SolveTimes,
) -> Result<Vec<f64>, EditError> {
    let n = sys.rows.len();
    let mut coupling: Option<Vec<f64>> = None;
    let mut x = vec![0.0; n * columns.len()];
    for (b, cis) in smoothness_groups(s, columns) {
        // One group (every column, in order) solves in `x` itself: no buffer, no copy back.
        let whole = cis.len() == columns.len();
        let mut own = if whole {
            Vec::new()
        } else {
            vec![0.0; n * cis.len()]
        };
        let rhs: &mut [f64] = if whole { &mut x } else { &mut own };
        // The factorization and the right-hand sides are independent: built side by side on two
        // threads, each by the same sequential code whatever the thread count (deterministic).
        let t = Instant::now();
        let mut factor_times = SolveTimes::default();
        let (factor, ()) = rayon::join(
            || factor_for(s, sys, mh, b, cache, &mut factor_times),
            || {
                let coupling = coupling.get_or_insert_with(|| frozen_coupling(s, sys, columns));
                group_rhs(s, sys, mh, sources, columns, coupling, &cis, b, rhs);
            },
        );
        let factor = factor?;
        // Phases overlap here: the wall time beyond the factorization's phases counts as assembly.
        let side = ms_since(t) - factor_times.assemble_ms - factor_times.factor_ms;
        add_times(times, &factor_times);
        times.assemble_ms += side.max(0.0);
        let t = Instant::now();
        solve_columns(&factor.factor, rhs, n, cis.len()).map_err(EditError::Solve)?;
        times.solve_ms += ms_since(t);
        if !whole {
            for (k, &ci) in cis.iter().enumerate() {
                x[ci * n..(ci + 1) * n].copy_from_slice(&own[k * n..(k + 1) * n]);
            }
        }
    }
    Ok(x)
}

/// Right-hand sides of the columns `cis` (indices into `columns`) of one smoothness group `b`, in
/// `rhs` (column-major, one column per entry of `cis`); `coupling` is the frozen one-ring
/// coupling of every column (used with b = 0).
#[allow(clippy::too_many_arguments)]
fn group_rhs(
    s: &Session,
    sys: &Region,
    mh: &[f64],
    sources: &[Option<&Source>],
    columns: &[u32],
    coupling: &[f64],
    cis: &[usize],
    b: f64,
    rhs: &mut [f64],
) {
    let n = sys.rows.len();
    for (k, &ci) in cis.iter().enumerate() {
        let out = &mut rhs[k * n..(k + 1) * n];
        let col = columns[ci];
        if b == 0.0 {
            heat_rhs(mh, sources, col, &coupling[ci * n..(ci + 1) * n], out);
        } else {
            fill_rhs(s, sys, mh, sources, col, b, out);
        }
    }
}

/// Sum `t`'s phase times and reuse counts into `sum`.
pub(super) fn add_times(sum: &mut SolveTimes, t: &SolveTimes) {
    sum.heat_ms += t.heat_ms;
    sum.assemble_ms += t.assemble_ms;
    sum.factor_ms += t.factor_ms;
    sum.solve_ms += t.solve_ms;
    sum.post_ms += t.post_ms;
    sum.symbolic_reused += t.symbolic_reused;
    sum.numeric_reused += t.numeric_reused;
}

/// The heat rows of a region and the map back.
pub(super) struct Region {
    /// Heat rows, sorted.
    pub(super) rows: Vec<usize>,
    /// Their welded vertices.
    pub(super) verts: Vec<u32>,
    /// Heat row → position in `rows` (`usize::MAX` outside).
    pub(super) lidx: Vec<usize>,
}

impl Region {
    fn new(s: &Session, region: &[u32]) -> Self {
        let rows = Self::rows_of(s, region);
        let verts = rows.iter().map(|&r| s.heat_verts[r]).collect();
        let mut lidx = vec![usize::MAX; s.heat_verts.len()];
        for (l, &r) in rows.iter().enumerate() {
            lidx[r] = l;
        }
        Self { rows, verts, lidx }
    }

    /// The heat rows of `region`'s vertices, sorted.
    pub(super) fn rows_of(s: &Session, region: &[u32]) -> Vec<usize> {
        let mut rows: Vec<usize> = region
            .iter()
            .map(|&v| s.row_of[v as usize])
            .filter(|&r| r != u32::MAX)
            .map(|r| r as usize)
            .collect();
        rows.sort_unstable();
        rows.dedup();
        rows
    }
}

/// Column indices grouped by their bi-Laplacian share b (one matrix per group), first-seen order.
fn smoothness_groups(s: &Session, columns: &[u32]) -> Vec<(f64, Vec<usize>)> {
    let mut groups: Vec<(f64, Vec<usize>)> = Vec::new();
    for (ci, &col) in columns.iter().enumerate() {
        let b = s.controls.get(col as usize).map_or(0.0, |c| c.smoothness);
        match groups.iter_mut().find(|g| g.0.to_bits() == b.to_bits()) {
            Some(g) => g.1.push(ci),
            None => groups.push((b, vec![ci])),
        }
    }
    groups
}

/// The factor of `A_CC` for smoothness `b`: the cached one when this exact matrix was factored
/// before, else a numeric factorization on the cached (or a new) stiffness part and analysis.
fn factor_for(
    s: &Session,
    sys: &Region,
    mh: &[f64],
    b: f64,
    cache: &mut FactorCache,
    times: &mut SolveTimes,
) -> Result<Arc<Numeric>, EditError> {
    if let Some(f) = cache.numeric(&sys.rows, b, mh) {
        times.numeric_reused += 1;
        return Ok(f);
    }
    let stiff = match cache.stiffness(&sys.rows, b) {
        Some(st) => {
            times.symbolic_reused += 1;
            st
        }
        None => {
            let t = Instant::now();
            let matrix = stiffness_block(s, &sys.rows, &sys.lidx, b);
            times.assemble_ms += ms_since(t);
            let t = Instant::now();
            let pattern = SpdPattern::analyze(&matrix).map_err(EditError::Solve)?;
            times.factor_ms += ms_since(t);
            let st = Arc::new(Stiffness {
                rows: sys.rows.clone(),
                b_bits: b.to_bits(),
                matrix,
                pattern,
            });
            cache.put_stiffness(st.clone());
            st
        }
    };
    // The last factor of this region and b (another heat diagonal) lends its value array.
    let spare = cache.spare_values(&sys.rows, b);
    let mut st = SolveStats::default();
    let factor = stiff
        .pattern
        .factor_reusing(&stiff.matrix, mh, &mut st, spare)
        .map_err(EditError::Solve)?;
    times.factor_ms += st.numeric_ms;
    Ok(cache.put_numeric(&sys.rows, b, mh, factor))
}

/// Solve `k` columns: two fixed halves on two threads. The columns are independent and the
/// split depends on `k` only, never on the thread count, so the result is deterministic.
fn solve_columns(f: &SpdFactor, rhs: &mut [f64], n: usize, k: usize) -> Result<(), String> {
    if k < 2 {
        return f.solve_in_place(rhs, k);
    }
    let k1 = k.div_ceil(2);
    let (left, right) = rhs.split_at_mut(n * k1);
    let (a, b) = rayon::join(
        || f.solve_in_place(left, k1),
        || f.solve_in_place(right, k - k1),
    );
    a.and(b)
}

/// Least region rows per parallel task of the column search.
const COLUMNS_CHUNK: usize = 2048;

/// The columns to recompute (sorted): `watch`, every joint with weight on the region or its two
/// frozen rings, every joint that is a heat source on the region.
fn columns(
    s: &Session,
    rows_c: &[usize],
    lidx: &[usize],
    sources: &[Option<&Source>],
    watch: &[u32],
) -> Vec<u32> {
    let nj = s.joints.len();
    let add = |set: &mut Vec<bool>, j: u32| {
        if let Some(x) = set.get_mut(j as usize) {
            *x = true;
        }
    };
    let look = |set: &mut Vec<bool>, r: usize| {
        let v = s.heat_verts[r] as usize;
        s.rows[v].iter().for_each(|e| add(set, e.0));
    };
    // Per region row in parallel, the flags OR-ed (order-free: deterministic).
    let mut set = rows_c
        .par_iter()
        .with_min_len(COLUMNS_CHUNK)
        .fold(
            || vec![false; nj],
            |mut set, &r| {
                look(&mut set, r);
                for (k, _) in s.k_column(r) {
                    if lidx[k] == usize::MAX {
                        look(&mut set, k);
                        for (k2, _) in s.k_column(k) {
                            if lidx[k2] == usize::MAX {
                                look(&mut set, k2);
                            }
                        }
                    }
                }
                set
            },
        )
        .reduce(
            || vec![false; nj],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
                a
            },
        );
    watch.iter().for_each(|&j| add(&mut set, j));
    for src in sources.iter().flatten() {
        src.joints.iter().for_each(|&j| add(&mut set, j));
    }
    (0..s.joints.len())
        .filter(|&j| set[j] && !s.joints[j].end)
        .map(|j| j as u32)
        .collect()
}
