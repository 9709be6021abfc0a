//! The rows a local re-solve hands back (Bang et al. 2015; docs/algorithms.md#rig-editing): raw
//! solution values, and the rows finished from them exactly as the global solve finishes its own
//! ([`crate::skin::finish_row`]), stored back to back in fixed-size chunks.

use rayon::prelude::*;

use super::Session;
use crate::skin::finish_row_into;
use crate::skin::heat::Source;

/// Raw solution values at or below this are not stored (the original's clipping level, 1e-8):
/// far below the prune level, so frozen boundary values are exact to well within it.
pub const RAW_KEEP: f64 = 1e-8;

/// Rows of a region in chunks of `FINISH_CHUNK` rows (as the parallel finish made them).
#[derive(Clone, Debug, Default)]
pub struct ChunkedRows {
    chunks: Vec<FlatRows>,
}

impl ChunkedRows {
    /// Row `i`.
    pub fn row(&self, i: usize) -> &[(u32, f64)] {
        self.chunks[i / FINISH_CHUNK].row(i % FINISH_CHUNK)
    }
}

/// Rows of (joint, weight) entries stored back to back: one allocation for many rows instead of
/// one per vertex (the session copies them into its own rows, reusing their allocations).
#[derive(Clone, Debug, Default)]
pub struct FlatRows {
    /// Row i is `entries[start[i]..start[i + 1]]`.
    start: Vec<usize>,
    entries: Vec<(u32, f64)>,
}

impl FlatRows {
    /// Row `i`.
    pub fn row(&self, i: usize) -> &[(u32, f64)] {
        &self.entries[self.start[i]..self.start[i + 1]]
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// No rows yet.
    fn new() -> Self {
        Self {
            start: vec![0],
            entries: Vec::new(),
        }
    }

    /// Close the row made of the entries pushed since the last one.
    fn end_row(&mut self) {
        self.start.push(self.entries.len());
    }
}

/// Vertices finished per parallel task: fixed, so the work split never depends on the thread
/// count (each vertex is finished on its own anyway).
const FINISH_CHUNK: usize = 1024;

/// New rows (clipped, pruned, renormalized) and raw rows of the region's vertices, in parallel
/// chunks of [`FINISH_CHUNK`] vertices (each vertex on its own: deterministic).
pub(super) fn finish(
    s: &Session,
    verts: &[u32],
    columns: &[u32],
    x: &[f64],
    sources: &[Option<&Source>],
) -> (ChunkedRows, ChunkedRows) {
    let n = verts.len();
    let parts: Vec<(FlatRows, FlatRows)> = (0..n.div_ceil(FINISH_CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut rows, mut raw) = (FlatRows::new(), FlatRows::new());
            let mut w = Vec::new();
            for l in c * FINISH_CHUNK..((c + 1) * FINISH_CHUNK).min(n) {
                let v = verts[l] as usize;
                let new = columns
                    .iter()
                    .enumerate()
                    .map(|(ci, &j)| (j, x[ci * n + l]));
                let kept_raw = s.raw[v]
                    .iter()
                    .filter(|e| columns.binary_search(&e.0).is_err())
                    .copied();
                let first = raw.entries.len();
                raw.entries
                    .extend(new.chain(kept_raw).filter(|e| e.1.abs() > RAW_KEEP));
                // Rows are finished from the raw values (the new columns and the raw values kept
                // outside them), never from finished rows: pruning is not idempotent (its soft
                // cut would shave kept weights again), and the global solve finishes its raw
                // values once.
                finish_row_into(raw.entries[first..].iter().copied(), &s.opts, &mut w);
                raw.end_row();
                if w.is_empty() {
                    match source_row(sources[l]) {
                        Some(r) => rows.entries.extend_from_slice(&r),
                        None => rows.entries.extend_from_slice(&s.rows[v]),
                    }
                } else {
                    rows.entries.extend_from_slice(&w);
                }
                rows.end_row();
            }
            (rows, raw)
        })
        .collect();
    let (chunks, raw) = parts.into_iter().unzip();
    (ChunkedRows { chunks }, ChunkedRows { chunks: raw })
}

/// Equal weights over a heat source's tied joints (`None` for no source or no joint).
fn source_row(src: Option<&Source>) -> Option<Vec<(u32, f64)>> {
    let src = src.filter(|s| !s.joints.is_empty())?;
    let w = 1.0 / src.joints.len() as f64;
    Some(src.joints.iter().map(|&j| (j, w)).collect())
}
