//! The heat system restricted to a vertex region with the weights outside held fixed
//! (Bang et al. 2015 Eq. 2 and Eq. 3; docs/algorithms.md#rig-editing).
//!
//! In the area-weighted form of the plain solver (`(K + M H) w = M H p`, K the cotangent stiffness,
//! M the one-ring areas, facts §9.2), the smoothness mix a + b = 1 becomes the symmetric positive
//! definite `(M H + a K + b K M⁻¹ K) w = M H p` (the thin-plate sign, facts §5.3: the literal
//! `H − aL − bL²` can be indefinite). On the region C with the rest F frozen this is a Dirichlet
//! problem: `A_CC x = (M H p)_C − A_CF w_F`, one factorization per distinct b, one right-hand side
//! per recomputed weight column. With C = every heat vertex it is the global solve.

use crate::skin::finish_row;
use std::collections::BTreeSet;
use std::time::Instant;

use super::{EditError, Session};
use crate::skin::bones::Bone;
use crate::skin::heat::{self, Source};
use crate::skin::laplacian::SymCsc;
use crate::skin::solve::solve_spd;
use crate::util::ms_since;

/// Distances below this (normalized units) are clamped before H = c/d², as in the plain solver.
const MIN_HEAT_DISTANCE: f64 = 1e-6;
/// Raw solution values at or below this are not stored (the original's clipping level, 1e-8):
/// far below the prune level, so frozen boundary values are exact to well within it.
pub const RAW_KEEP: f64 = 1e-8;

/// New weight rows for the vertices of a region.
#[derive(Clone, Debug, Default)]
pub struct Patch {
    /// Welded vertices re-solved.
    pub region: Vec<u32>,
    /// Their new rows (joint, weight), heaviest first, summing to 1.
    pub rows: Vec<Vec<(u32, f64)>>,
    /// Their raw solution values (before clipping, pruning and renormalizing), the boundary values
    /// later solves freeze.
    pub raw: Vec<Vec<(u32, f64)>>,
    /// Weight columns (joints) recomputed.
    pub columns: Vec<u32>,
    /// Heat sources of the region's vertices (cached by the session).
    pub sources: Vec<Option<Source>>,
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
}

/// Solve for the weights on `region` (welded vertices of heat shells) with every other vertex
/// frozen. `watch` columns are always recomputed; so is every column with a weight on the region
/// or its frozen rings, and every joint that becomes a heat source there (facts §9.6), so the
/// recomputed columns sum to 1 on the region before the final renormalization.
pub fn solve_region(s: &Session, region: &[u32], watch: &[u32]) -> Result<Patch, EditError> {
    let mut rows_c: Vec<usize> = region
        .iter()
        .map(|&v| s.row_of[v as usize])
        .filter(|&r| r != u32::MAX)
        .map(|r| r as usize)
        .collect();
    rows_c.sort_unstable();
    rows_c.dedup();
    let verts: Vec<u32> = rows_c.iter().map(|&r| s.heat_verts[r]).collect();
    let mut lidx = vec![usize::MAX; s.heat_verts.len()];
    for (l, &r) in rows_c.iter().enumerate() {
        lidx[r] = l;
    }
    let mut times = SolveTimes::default();

    let t = Instant::now();
    let bones = s.virtual_bones();
    let sources = region_sources(s, &verts, &bones);
    times.heat_ms = ms_since(t);

    let t = Instant::now();
    let columns = columns(s, &rows_c, &lidx, &sources, watch);
    let mh: Vec<f64> = rows_c
        .iter()
        .zip(&sources)
        .map(|(&r, src)| src.as_ref().map_or(0.0, |src| heat_term(s, r, src)))
        .collect();
    let n = rows_c.len();
    let mut x = vec![0.0; n * columns.len()];
    let mut groups: Vec<(f64, Vec<usize>)> = Vec::new();
    for (ci, &col) in columns.iter().enumerate() {
        let b = s.controls.get(col as usize).map_or(0.0, |c| c.smoothness);
        match groups.iter_mut().find(|g| g.0.to_bits() == b.to_bits()) {
            Some(g) => g.1.push(ci),
            None => groups.push((b, vec![ci])),
        }
    }
    times.assemble_ms = ms_since(t);
    for (b, cis) in &groups {
        let t = Instant::now();
        let a = matrix(s, &rows_c, &lidx, &mh, *b);
        let mut rhs = vec![0.0; n * cis.len()];
        for (k, &ci) in cis.iter().enumerate() {
            let col = columns[ci];
            let out = &mut rhs[k * n..(k + 1) * n];
            fill_rhs(s, &rows_c, &lidx, &mh, &sources, col, *b, out);
        }
        times.assemble_ms += ms_since(t);
        let st = solve_spd(&a, &mut rhs, cis.len()).map_err(EditError::Solve)?;
        times.factor_ms += st.symbolic_ms + st.numeric_ms;
        times.solve_ms += st.solve_ms;
        for (k, &ci) in cis.iter().enumerate() {
            x[ci * n..(ci + 1) * n].copy_from_slice(&rhs[k * n..(k + 1) * n]);
        }
    }

    let t = Instant::now();
    let raw: Vec<Vec<(u32, f64)>> = (0..n)
        .map(|l| {
            let new = columns
                .iter()
                .enumerate()
                .map(|(ci, &j)| (j, x[ci * n + l]));
            let kept = s.raw[verts[l] as usize]
                .iter()
                .filter(|e| columns.binary_search(&e.0).is_err())
                .copied();
            new.chain(kept).filter(|e| e.1.abs() > RAW_KEEP).collect()
        })
        .collect();
    // Rows are finished from the raw values (the new columns and the raw values kept outside
    // them), never from finished rows: pruning is not idempotent (its soft cut would shave kept
    // weights again), and the global solve finishes its raw values once.
    let rows = (0..n)
        .map(|l| {
            let w = finish_row(raw[l].iter().copied(), &s.opts);
            if w.is_empty() {
                source_row(sources[l].as_ref()).unwrap_or_else(|| s.rows[verts[l] as usize].clone())
            } else {
                w
            }
        })
        .collect();
    times.post_ms = ms_since(t);
    Ok(Patch {
        region: verts,
        rows,
        raw,
        columns,
        sources,
        times,
    })
}

/// Heat sources on `verts`. A vertex keeps its cached source unless a bone that changed since the
/// cache was filled could matter to it: its source joint owns a changed bone, or a changed bone is
/// now at most as far as its source. Unchanged bones keep their distances and visibility, so the
/// nearest visible one among them is unchanged: the result equals a full recomputation.
fn region_sources(s: &Session, verts: &[u32], bones: &[Bone]) -> Vec<Option<Source>> {
    let dirty: Option<Vec<&Bone>> = match &s.dirty {
        Some(d) if d.len() == bones.len() => Some(
            bones
                .iter()
                .zip(d)
                .filter(|(_, &x)| x)
                .map(|(b, _)| b)
                .collect(),
        ),
        _ => None,
    };
    let stale = |v: u32| -> bool {
        let Some(dirty) = &dirty else { return true };
        let Some(Some(src)) = s.sources.get(v as usize) else {
            return true;
        };
        let p = &s.mesh.positions[v as usize];
        dirty.iter().any(|b| {
            src.joints.contains(&b.joint) || b.distance(p) <= src.distance * (1.0 + TIE) + 1e-12
        })
    };
    let redo: Vec<u32> = verts.iter().copied().filter(|&v| stale(v)).collect();
    let points: Vec<_> = redo.iter().map(|&v| s.mesh.positions[v as usize]).collect();
    let mut fresh = heat::sources(&points, bones, s.sdf).into_iter();
    let mut redo = redo.into_iter().peekable();
    verts
        .iter()
        .map(|&v| {
            if redo.peek() == Some(&v) {
                redo.next();
                fresh.next().flatten()
            } else {
                s.sources[v as usize].clone()
            }
        })
        .collect()
}

/// Relative distance under which bones tie as nearest (the plain solver's factor).
const TIE: f64 = 1e-5;

/// `M_ii · c / d²` of a vertex (row `r`) with heat source `src`; c is the magnitude of the joints
/// the source's bones belong to (their mean when bones of several joints tie), facts §5.2.
fn heat_term(s: &Session, r: usize, src: &Source) -> f64 {
    let c = src
        .joints
        .iter()
        .map(|&j| s.controls.get(j as usize).map_or(1.0, |c| c.magnitude))
        .sum::<f64>()
        / src.joints.len().max(1) as f64;
    s.mass[r] * s.opts.heat * c / src.distance.max(MIN_HEAT_DISTANCE).powi(2)
}

/// The columns to recompute (sorted): `watch`, every joint with weight on the region or its two
/// frozen rings, every joint that is a heat source on the region.
fn columns(
    s: &Session,
    rows_c: &[usize],
    lidx: &[usize],
    sources: &[Option<Source>],
    watch: &[u32],
) -> Vec<u32> {
    let mut set: BTreeSet<u32> = watch.iter().copied().collect();
    for src in sources.iter().flatten() {
        set.extend(src.joints.iter().copied());
    }
    let mut look = |r: usize| {
        let v = s.heat_verts[r] as usize;
        set.extend(s.rows[v].iter().map(|e| e.0));
    };
    for &r in rows_c {
        look(r);
        for (k, _) in s.k_column(r) {
            if lidx[k] == usize::MAX {
                look(k);
                for (k2, _) in s.k_column(k) {
                    if lidx[k2] == usize::MAX {
                        look(k2);
                    }
                }
            }
        }
    }
    set.into_iter()
        .filter(|&j| (j as usize) < s.joints.len() && !s.joints[j as usize].end)
        .collect()
}

/// `A_CC = diag(M H) + a K_CC + b (K M⁻¹ K)_CC`, a = 1 − b. The bi-Laplacian product runs over all
/// middle vertices, including frozen ones: that is the exact principal block of the global matrix.
fn matrix(s: &Session, rows_c: &[usize], lidx: &[usize], mh: &[f64], b: f64) -> SymCsc {
    let a = 1.0 - b;
    let n = rows_c.len();
    let mut out = SymCsc {
        n,
        col_ptr: vec![0],
        ..SymCsc::default()
    };
    let mut col: Vec<(usize, f64)> = Vec::new();
    for (l, &r) in rows_c.iter().enumerate() {
        col.clear();
        for (k, kv) in s.k_column(r) {
            if lidx[k] != usize::MAX {
                col.push((lidx[k], if b == 0.0 { kv } else { a * kv }));
            }
            if b > 0.0 {
                let scale = b * kv / s.mass[k];
                for (j, jv) in s.k_column(k) {
                    if lidx[j] != usize::MAX {
                        col.push((lidx[j], scale * jv));
                    }
                }
            }
        }
        col.sort_unstable_by_key(|e| e.0);
        let mut last = usize::MAX;
        for &(j, v) in &col {
            if j == last {
                if let Some(x) = out.values.last_mut() {
                    *x += v;
                }
            } else {
                if j == l {
                    out.diag.push(out.values.len());
                }
                out.row_idx.push(j);
                out.values.push(v);
                last = j;
            }
        }
        out.col_ptr.push(out.values.len());
    }
    for (l, &d) in out.diag.iter().enumerate() {
        out.values[d] += mh[l];
    }
    out
}

/// Right-hand side of column `col`: `M H p` (every tied source joint gets the full term, as in the
/// plain solver) minus the frozen values' coupling `(a K + b K M⁻¹ K)_CF w_F`.
#[allow(clippy::too_many_arguments)]
fn fill_rhs(
    s: &Session,
    rows_c: &[usize],
    lidx: &[usize],
    mh: &[f64],
    sources: &[Option<Source>],
    col: u32,
    b: f64,
    out: &mut [f64],
) {
    let a = 1.0 - b;
    let frozen = |k: usize| {
        if lidx[k] == usize::MAX {
            s.raw_weight(s.heat_verts[k] as usize, col)
        } else {
            0.0
        }
    };
    // (K w_F) at row k, w_F zero on the region.
    let k_wf = |k: usize| -> f64 { s.k_column(k).map(|(l, v)| v * frozen(l)).sum() };
    for (l, &r) in rows_c.iter().enumerate() {
        let mut v = match &sources[l] {
            Some(src) if src.joints.contains(&col) => mh[l],
            _ => 0.0,
        };
        let mut coupling = 0.0;
        for (k, kv) in s.k_column(r) {
            coupling += a * kv * frozen(k);
            if b > 0.0 {
                coupling += b * kv / s.mass[k] * k_wf(k);
            }
        }
        v -= coupling;
        out[l] = v;
    }
}

fn source_row(src: Option<&Source>) -> Option<Vec<(u32, f64)>> {
    let src = src.filter(|s| !s.joints.is_empty())?;
    let w = 1.0 / src.joints.len() as f64;
    Some(src.joints.iter().map(|&j| (j, w)).collect())
}
