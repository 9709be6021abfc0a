//! The heat-diffusion solve of the skin (Baran & Popović 2007 §4): assemble `(L_c + M·H) W = M·H·P`
//! over the diffused vertices, one SPD solve, then each row clipped, pruned and renormalized.

use std::time::Instant;

use rayon::prelude::*;

use super::heat::{Source, MIN_HEAT_DISTANCE};
use super::laplacian::SymCsc;
use super::solve::{solve_spd_with, SpdPattern};
use super::system::HeatSystem;
use super::weights::Rows;
use super::{SkinOptions, SkinStats};
use crate::util::ms_since;

/// Solve the heat system over `verts` and fill their rows. Never fails: if the factorization
/// fails even after regularization, each vertex follows its nearest visible bone(s).
pub(super) fn diffuse(
    sources: &[Option<Source>],
    system: HeatSystem,
    opts: &SkinOptions,
    rows: &mut Rows,
    stats: &mut SkinStats,
    warnings: &mut Vec<String>,
) {
    let t = Instant::now();
    stats.symbolic_ms = system.analyze_ms;
    let (pattern, verts) = (system.pattern, system.verts);
    let verts = verts.as_slice();
    let (a, mut x, joint_of_column) =
        assemble(system.stiffness, &system.mass, sources, verts, opts);
    let (n, k) = (verts.len(), joint_of_column.len());
    stats.unknowns = n;
    stats.columns = k;
    stats.assemble_ms = ms_since(t);
    solve_or_zero(&pattern, &a, &mut x, (n, k), stats, warnings);
    let t = Instant::now();
    let fallback = fill_rows(&x, &joint_of_column, verts, sources, opts, rows);
    if fallback > 0 {
        warnings.push(format!(
            "{fallback} vertices received no heat through the surface and follow their nearest visible bone"
        ));
    }
    keep_pruned_joints(&x, n, &joint_of_column, verts, opts, rows);
    stats.post_ms = ms_since(t);
}

/// Solve `A X = B` in place in `x` (`n × k`, column-major), recording the factor and solve times
/// and a warning if the factorization needed a shift. If it fails even so, `x` is zeroed, so
/// every row falls back to its heat source ([`fill_rows`]).
fn solve_or_zero(
    pattern: &Result<SpdPattern, String>,
    a: &SymCsc,
    x: &mut [f64],
    (n, k): (usize, usize),
    stats: &mut SkinStats,
    warnings: &mut Vec<String>,
) {
    let solved = match pattern {
        _ if n == 0 || k == 0 => Ok(Default::default()),
        Ok(p) => solve_spd_with(p, a, x, k),
        Err(e) => Err(e.clone()),
    };
    match solved {
        Ok(s) => {
            stats.numeric_ms = s.numeric_ms;
            stats.solve_ms = s.solve_ms;
            if s.attempts > 1 {
                warnings.push(format!(
                    "the heat system needed a diagonal shift of {:.0e} to factor",
                    s.shift
                ));
            }
        }
        Err(e) => {
            warnings.push(format!(
                "the heat system could not be factored ({e}); vertices follow their nearest visible bone"
            ));
            x.iter_mut().for_each(|v| *v = 0.0);
        }
    }
}

/// Each diffused vertex's row from its solved weights ([`finish_row`]); a row left empty takes
/// equal weights over its heat source's joints instead. Returns how many rows did.
fn fill_rows(
    x: &[f64],
    joint_of_column: &[u32],
    verts: &[u32],
    sources: &[Option<Source>],
    opts: &SkinOptions,
    rows: &mut Rows,
) -> usize {
    let n = verts.len();
    // Each row reads its own entries of `x` and its own source: the rows are finished on every
    // core (each the same arithmetic as one after another, so the same weights on any number of
    // threads), then put in place.
    let finished: Vec<(Vec<(u32, f64)>, bool)> = verts
        .par_iter()
        .enumerate()
        .with_min_len(ROWS_PER_TASK)
        .map(|(r, &v)| {
            let raw = joint_of_column
                .iter()
                .enumerate()
                .map(|(c, &j)| (j, x[c * n + r]));
            let w = finish_row(raw, opts);
            if !w.is_empty() {
                return (w, false);
            }
            let mut r = source_row(sources[v as usize].as_ref());
            super::prune::prune_row(&mut r, opts);
            (r, true)
        })
        .collect();
    let mut fallback = 0usize;
    for (&v, (row, fell_back)) in verts.iter().zip(finished) {
        rows[v as usize] = row;
        fallback += usize::from(fell_back);
    }
    fallback
}

/// Rows finished per parallel task in [`fill_rows`]: a row costs well under a microsecond, so a
/// task must hold hundreds to outweigh rayon's split.
const ROWS_PER_TASK: usize = 512;

/// A joint that received heat but lost every vertex to pruning (a short spine bone that only
/// adopted a few vertices, [`super::heat::adopt_orphans`]) would move nothing: it keeps its weight on
/// the vertex where its raw weight is largest, in place of that row's lightest joint if the row
/// is full, and the row is renormalized. Two such joints can peak at one vertex (two short spine
/// bones of a low-poly torso): the second then takes the place of the lightest joint this pass
/// did not put there, so the first is not pushed out again.
fn keep_pruned_joints(
    x: &[f64],
    n: usize,
    joint_of_column: &[u32],
    verts: &[u32],
    opts: &SkinOptions,
    rows: &mut Rows,
) {
    let present: std::collections::BTreeSet<u32> = verts
        .iter()
        .flat_map(|&v| rows[v as usize].iter().map(|e| e.0))
        .collect();
    let mut placed: Vec<(u32, u32)> = Vec::new();
    for (c, &j) in joint_of_column.iter().enumerate() {
        if present.contains(&j) || n == 0 {
            continue;
        }
        let column = &x[c * n..(c + 1) * n];
        let Some((r, &w)) = column
            .iter()
            .enumerate()
            .filter(|(_, w)| w.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1))
        else {
            continue;
        };
        if w < opts.prune {
            continue;
        }
        let v = verts[r];
        let row = &mut rows[v as usize];
        if row.len() >= opts.max_influences.max(1) {
            let Some(lightest) = row.iter().rposition(|e| !placed.contains(&(v, e.0))) else {
                continue;
            };
            row.remove(lightest);
        }
        placed.push((v, j));
        row.push((j, w.clamp(0.0, 1.0)));
        let sum: f64 = row.iter().map(|e| e.1).sum();
        row.iter_mut().for_each(|e| e.1 /= sum);
        row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    }
}

/// The system `A = L_c + M·H` over `verts` (row r = `verts[r]`; `a` holds `L_c` on entry) and the
/// right-hand sides `B[:, c] = M·H·p_c` (column-major, `verts.len() × columns`), one column per
/// joint that receives heat anywhere; returns `(A, B, joint of each column)`.
fn assemble(
    mut a: SymCsc,
    mass: &[f64],
    sources: &[Option<Source>],
    verts: &[u32],
    opts: &SkinOptions,
) -> (SymCsc, Vec<f64>, Vec<u32>) {
    let n = verts.len();
    let mut column_of = std::collections::BTreeMap::new();
    for s in verts.iter().filter_map(|&v| sources[v as usize].as_ref()) {
        for &j in &s.joints {
            let next = column_of.len();
            column_of.entry(j).or_insert(next);
        }
    }
    let k = column_of.len();
    let mut x = vec![0.0; n * k];
    for (r, &v) in verts.iter().enumerate() {
        if let Some(s) = &sources[v as usize] {
            let mh = mass[r] * opts.heat / s.distance.max(MIN_HEAT_DISTANCE).powi(2);
            a.values[a.diag[r]] += mh;
            for j in &s.joints {
                x[column_of[j] * n + r] = mh;
            }
        }
    }
    let mut joint_of_column = vec![0u32; k];
    for (&joint, &c) in &column_of {
        joint_of_column[c] = joint;
    }
    (a, x, joint_of_column)
}

/// Clip to [0, 1], drop weights below `opts.prune`, prune the influences relative to the row
/// ([`super::prune::prune_row`]: at most `opts.max_influences`), renormalize, sort heaviest first.
/// Empty if nothing is left. Also the post-processing of `edit`'s local re-solves, so both give
/// the same rows.
pub fn finish_row(raw: impl Iterator<Item = (u32, f64)>, opts: &SkinOptions) -> Vec<(u32, f64)> {
    let mut w = Vec::new();
    finish_row_into(raw, opts, &mut w);
    w
}

/// [`finish_row`] into `out` (cleared first; its allocation is reused).
pub fn finish_row_into(
    raw: impl Iterator<Item = (u32, f64)>,
    opts: &SkinOptions,
    out: &mut Vec<(u32, f64)>,
) {
    out.clear();
    out.extend(
        raw.filter(|(_, v)| v.is_finite())
            .map(|(j, v)| (j, v.clamp(0.0, 1.0)))
            .filter(|&(_, v)| v >= opts.prune && v > 0.0),
    );
    super::prune::prune_row(out, opts);
}

/// Equal weights over a heat source's tied joints (empty for no source).
fn source_row(s: Option<&Source>) -> Vec<(u32, f64)> {
    match s {
        Some(s) if !s.joints.is_empty() => {
            let w = 1.0 / s.joints.len() as f64;
            s.joints.iter().map(|&j| (j, w)).collect()
        }
        _ => Vec::new(),
    }
}
