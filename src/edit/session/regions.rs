//! The region search of a session (Bang et al. 2015; facts §3.2, §9): the proxy regions the
//! skeleton defines, the weight columns an edit touches, and the computing region grown from the
//! edited joints while a watched weight is still above the zero threshold, with its time
//! accounted and, during a drag, the frozen region's heat sources prefetched beside it.

use std::time::Instant;

use super::Session;
use crate::edit::region;
use crate::edit::sources::{self, Prefetched};
use crate::geom::P3;
use crate::skeleton::rigged::RigJoint;
use crate::skin::bones;
use crate::util::ms_since;

impl Session<'_> {
    /// Rebuild the proxy regions (after a hierarchy change; facts §3.2: not after moves).
    pub(super) fn rebuild_regions(&mut self) {
        let tuples = self.joint_tuples(false);
        let bones = bones::bones(&tuples, self.sdf, Some(self.surface()));
        let ends = bone_ends(&self.joints);
        let pos: Vec<P3> = tuples.iter().map(|t| t.0).collect();
        self.region_of =
            region::proxy_regions(&self.mesh.positions, &self.heat_verts, &bones, &ends, &pos);
        self.members = region::members(&self.region_of);
    }

    /// The weight columns a change at joints `js` touches: each joint's own (its outgoing bones)
    /// and its parent's (the incoming bone), end markers excepted (facts §9.5).
    pub(super) fn attached(&self, js: &[usize]) -> Vec<u32> {
        let mut out: Vec<u32> = js
            .iter()
            .flat_map(|&j| [Some(j), self.joints[j].parent])
            .flatten()
            .filter(|&j| !self.joints[j].end)
            .map(|j| j as u32)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// True if a watched column's raw heat solution exceeds the zero threshold at welded vertex
    /// `v` (`watched[j]`: column j is watched). The region rule (§3.2) tests the solution of the
    /// heat system, not the pruned rows: a joint pruned from a vertex's four influences still
    /// carries its raw weight there, and the frozen raw values are what the next solve reads as
    /// boundary values.
    pub(super) fn hot(&self, v: usize, watched: &[bool]) -> bool {
        let eps = self.eps();
        self.raw[v]
            .iter()
            .any(|e| e.1 > eps && watched.get(e.0 as usize).copied().unwrap_or(false))
    }

    /// Per joint: is its column in `watch`?
    pub(super) fn watch_mask(&self, watch: &[u32]) -> Vec<bool> {
        let mut m = vec![false; self.joints.len()];
        for &j in watch {
            if let Some(x) = m.get_mut(j as usize) {
                *x = true;
            }
        }
        m
    }

    /// The computing region for seeds `js` watching columns `watch` (current weights); its time
    /// goes to the next outcome's `region_ms`.
    pub(super) fn region(&mut self, js: &[usize], watch: &[u32]) -> Vec<u32> {
        let t = Instant::now();
        let r = self.search(js, watch);
        self.search_ms += ms_since(t);
        r
    }

    pub(super) fn search(&self, js: &[usize], watch: &[u32]) -> Vec<u32> {
        let watched = self.watch_mask(watch);
        let hot = |v: usize| self.hot(v, &watched);
        region::computing_region_in(&self.adj, &self.region_of, &self.members, js, &hot)
    }

    /// [`Self::region`] and, beside it on the second core, the heat sources of the frozen region
    /// of the drag this edit may continue (same seeds and columns; facts §9.8). Call after the
    /// joints moved and the changed bones were flagged: the sources are then exactly those the
    /// solve would compute, and the solve uses them only if it solves that region.
    pub(super) fn region_and_prefetch(
        &mut self,
        js: &[usize],
        watch: &[u32],
    ) -> (Vec<u32>, Option<Prefetched>) {
        let frozen = match &self.drag {
            Some(d) if !self.defer && d.seeds == js && d.watch == watch => d.region.clone(),
            _ => return (self.region(js, watch), None),
        };
        let t = Instant::now();
        let (r, pre) = rayon::join(
            || self.search(js, watch),
            || sources::prefetch_sources(self, &frozen),
        );
        // Wall time beyond the (overlapped) heat sources counts as search.
        self.search_ms += (ms_since(t) - pre.heat_ms).max(0.0);
        (r, Some(pre))
    }
}

/// `(parent end, child end)` joint of every bone, in [`bones::bones`] order: one bone per
/// parent → child link whose parent is not an end marker, one virtual bone per leaf, then one
/// per hub of leaves ([`bones::leaf_hubs`]).
fn bone_ends(joints: &[RigJoint]) -> Vec<(u32, u32)> {
    let n = joints.len();
    let parent = |j: usize| joints[j].parent.filter(|&p| p < n && p != j);
    let mut has_child = vec![false; n];
    let mut out = Vec::new();
    for c in 0..n {
        if let Some(p) = parent(c) {
            has_child[p] = true;
            if !joints[p].end {
                out.push((p as u32, c as u32));
            }
        }
    }
    for (j, joint) in joints.iter().enumerate() {
        if !has_child[j] && !joint.end {
            out.push((j as u32, j as u32));
        }
    }
    let hubs = bones::leaf_hubs(n, parent, |j| joints[j].end);
    out.extend(hubs.into_iter().map(|j| (j as u32, j as u32)));
    out
}
