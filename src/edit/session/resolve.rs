//! Re-solve bookkeeping: the settle passes and the frozen drag region around each solve, the
//! patch of new rows, the heat-source flags and the re-indexing after hierarchy changes.

use std::time::Instant;

use rayon::prelude::*;

use super::{EditOutcome, Session, SETTLE_PASSES};
use crate::edit::drag::Drag;
use crate::edit::local::{self, add_times, Patch, SolveTimes};
use crate::edit::skeleton::Renumbering;
use crate::edit::sources::Prefetched;
use crate::edit::EditError;
use crate::skin::laplacian::NOT_IN_SYSTEM;
use crate::util::ms_since;

impl Session<'_> {
    /// Solve on `region`, then settle: while the watched weights are still above zero on the
    /// border, grow the region from the new weights and solve again.
    pub(super) fn solve(
        &mut self,
        region: Vec<u32>,
        watch: &[u32],
        seeds: &[usize],
    ) -> Result<EditOutcome, EditError> {
        self.solve_with(region, watch, seeds, None)
    }

    /// [`Self::solve`] with heat sources computed ahead (used by the first pass if they were
    /// computed for its region).
    pub(super) fn solve_with(
        &mut self,
        region: Vec<u32>,
        watch: &[u32],
        seeds: &[usize],
        mut pre: Option<Prefetched>,
    ) -> Result<EditOutcome, EditError> {
        if self.defer {
            self.search_ms = 0.0;
            return Ok(EditOutcome::default());
        }
        let drag = match self.drag.take() {
            Some(d) if d.continues(seeds, watch, &region) => d,
            _ => self.start_drag(seeds, watch, &region),
        };
        let mut region = drag.region.clone();
        self.mark_dirty();
        let mut passes = 0;
        let mut region_ms = std::mem::take(&mut self.search_ms);
        let mut times = SolveTimes::default();
        loop {
            let patch = self.solve_cached(&region, watch, pre.take())?;
            passes += 1;
            add_times(&mut times, &patch.times);
            let solved = patch.region.clone();
            let last = self.outcome(&patch, passes);
            self.patch(patch);
            let t = Instant::now();
            let grow = passes <= SETTLE_PASSES && self.border_hot(&solved, watch);
            region_ms += ms_since(t);
            let next = if grow {
                let mut r = self.region(seeds, watch);
                region_ms += std::mem::take(&mut self.search_ms);
                r.extend_from_slice(&solved);
                r.sort_unstable();
                r.dedup();
                (r.len() > solved.len()).then_some(r)
            } else {
                None
            };
            match next {
                Some(r) => region = r,
                None => {
                    let mut solved = solved;
                    solved.sort_unstable();
                    self.drag = Some(if solved == drag.region {
                        drag
                    } else {
                        self.start_drag(seeds, watch, &solved)
                    });
                    return Ok(EditOutcome {
                        region_ms,
                        times,
                        ..last
                    });
                }
            }
        }
    }

    /// A drag starting on `region` (facts §9.8, [`Drag`]).
    fn start_drag(&self, seeds: &[usize], watch: &[u32], region: &[u32]) -> Drag {
        let row_of = &self.row_of;
        let in_system = |v: u32| row_of[v as usize] != NOT_IN_SYSTEM;
        Drag::start(seeds, watch, region, &self.adj, &in_system)
    }

    /// [`local::solve_region_cached`] with the session's cache.
    pub(super) fn solve_cached(
        &mut self,
        region: &[u32],
        watch: &[u32],
        pre: Option<Prefetched>,
    ) -> Result<Patch, EditError> {
        let mut cache = std::mem::take(&mut self.cache);
        let patch = local::solve_region_cached(self, region, watch, &mut cache, pre);
        self.cache = cache;
        patch
    }

    /// True if a vertex of `region` next to a heat vertex outside it has a watched weight.
    fn border_hot(&self, region: &[u32], watch: &[u32]) -> bool {
        let mut inside = vec![false; self.rows.len()];
        for &v in region {
            inside[v as usize] = true;
        }
        let watched = self.watch_mask(watch);
        region.iter().any(|&v| {
            let v = v as usize;
            self.adj
                .of(v)
                .iter()
                .any(|&u| !inside[u as usize] && self.row_of[u as usize] != NOT_IN_SYSTEM)
                && self.hot(v, &watched)
        })
    }

    pub(super) fn outcome(&self, patch: &Patch, passes: usize) -> EditOutcome {
        EditOutcome {
            region: patch.region.len(),
            vertices: self.heat_verts.len(),
            columns: patch.columns.len(),
            passes,
            eps: self.eps(),
            times: patch.times.clone(),
            ..EditOutcome::default()
        }
    }

    pub(super) fn patch(&mut self, patch: Patch) {
        self.last_region = patch.region.clone();
        self.last_region.sort_unstable();
        let mut pos = vec![u32::MAX; self.rows.len()];
        for (i, &v) in patch.region.iter().enumerate() {
            pos[v as usize] = i as u32;
        }
        // Rows are copied into the existing rows (their allocations reused), in parallel over
        // disjoint vertices; the changed-column flags are OR-ed (order-free: deterministic).
        let (rows, raw) = (&patch.rows, &patch.raw);
        let changed = self
            .rows
            .par_iter_mut()
            .zip(self.raw.par_iter_mut())
            .zip(pos.par_iter())
            .with_min_len(PATCH_CHUNK)
            .fold(Vec::new, |mut changed: Vec<bool>, ((old, old_raw), &i)| {
                if i != u32::MAX {
                    let row = rows.row(i as usize);
                    // Columns whose weight moves in or out of a row count as changed there.
                    old.iter().chain(row).for_each(|e| mark(&mut changed, e.0));
                    old.clear();
                    old.extend_from_slice(row);
                    old_raw.clear();
                    old_raw.extend_from_slice(raw.row(i as usize));
                }
                changed
            })
            .reduce(Vec::new, or_flags);
        let mut changed = or_flags(changed, vec![false; self.joints.len()]);
        self.last_columns
            .iter()
            .chain(&patch.columns)
            .for_each(|&j| mark(&mut changed, j));
        for (l, src) in patch.sources {
            self.sources[patch.region[l] as usize] = src;
        }
        self.last_columns = (0..changed.len())
            .filter(|&j| changed[j])
            .map(|j| j as u32)
            .collect();
    }

    /// Flag the bones that differ from the cached ones (all, if the bone list changed shape).
    /// Flags accumulate until the next global solve: vertices outside a region keep sources from
    /// older bones.
    pub(super) fn mark_dirty(&mut self) {
        let now = self.virtual_bones();
        self.dirty = match self.dirty.take() {
            Some(mut d) if now.len() == self.bones_cached.len() => {
                for (i, (a, b)) in now.iter().zip(&self.bones_cached).enumerate() {
                    d[i] |= a != b;
                }
                Some(d)
            }
            _ => None,
        };
        // The reference stays the geometry of the last global solve; a flag, once set, stays.
        if self.dirty.is_none() {
            self.bones_cached = now;
        }
    }

    /// Re-index weight columns after a hierarchy change; a deleted joint's weight goes to `merge`.
    pub(super) fn renumber(&mut self, map: &Renumbering, merge: Option<u32>) {
        self.drag = None;
        let remap = |row: &mut Vec<(u32, f64)>| {
            let mut out: Vec<(u32, f64)> = Vec::with_capacity(row.len());
            for &(j, w) in row.iter() {
                let Some(nj) = map
                    .get(j as usize)
                    .copied()
                    .flatten()
                    .map(|n| n as u32)
                    .or(merge)
                else {
                    continue;
                };
                match out.iter_mut().find(|e| e.0 == nj) {
                    Some(e) => e.1 += w,
                    None => out.push((nj, w)),
                }
            }
            out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            *row = out;
        };
        self.rows.iter_mut().for_each(remap);
        self.raw.iter_mut().for_each(remap);
        self.input_rows.iter_mut().for_each(remap);
    }
}

/// Least rows per parallel task when a patch is copied into the session.
const PATCH_CHUNK: usize = 4096;

/// Flag column `j` in `changed` (grown as needed).
fn mark(changed: &mut Vec<bool>, j: u32) {
    let j = j as usize;
    if j >= changed.len() {
        changed.resize(j + 1, false);
    }
    changed[j] = true;
}

/// Element-wise OR of two flag lists (the longer length).
fn or_flags(mut a: Vec<bool>, b: Vec<bool>) -> Vec<bool> {
    if a.len() < b.len() {
        a.resize(b.len(), false);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x |= y;
    }
    a
}
