//! The edits: [`Session::apply`] for every [`EditOp`], and the global re-solve.

use std::time::Instant;

use super::{EditOutcome, Session};
use crate::edit::local::Patch;
use crate::edit::skeleton as skel;
use crate::edit::{Control, EditError, EditOp, MAX_SMOOTHNESS};
use crate::util::ms_since;

impl Session<'_> {
    /// Apply one edit and re-solve the weights it affects.
    pub fn apply(&mut self, op: &EditOp) -> Result<EditOutcome, EditError> {
        let t = Instant::now();
        self.last_region.clear();
        self.last_columns.clear();
        let mut out = match op {
            EditOp::MoveJoint {
                joint,
                to,
                with_descendants,
            } => self.move_joint(joint, to, *with_descendants)?,
            EditOp::InsertJoint { child, at, name } => self.insert(child, *at, name)?,
            EditOp::DeleteJoint { joint } => self.delete(joint)?,
            EditOp::Align { joints } => self.align(joints)?,
            EditOp::Reroot { joint } => self.reroot(joint)?,
            EditOp::Handle { joint, offset } => {
                check_finite("handle", offset)?;
                self.set_control(joint, |c| c.handle = *offset, true)?
            }
            EditOp::Magnitude { joint, c } => {
                if !(c.is_finite() && *c > 0.0) {
                    return Err(refused("magnitude", format!("c must be > 0, got {c}")));
                }
                self.set_control(joint, |k| k.magnitude = *c, false)?
            }
            EditOp::Smoothness { joint, b } => {
                if !(0.0..=MAX_SMOOTHNESS).contains(b) {
                    let why = format!("b must lie in [0, {MAX_SMOOTHNESS}], got {b}");
                    return Err(refused("smoothness", why));
                }
                self.set_control(joint, |k| k.smoothness = *b, false)?
            }
        };
        out.op = op.label();
        out.total_ms = ms_since(t);
        Ok(out)
    }

    /// Move `joint` (with its subtree if asked) to `to` and re-solve the weights around it.
    fn move_joint(
        &mut self,
        joint: &str,
        to: &[f64; 3],
        with_descendants: bool,
    ) -> Result<EditOutcome, EditError> {
        let k = skel::find(&self.joints, joint)?;
        check_finite("move_joint", to)?;
        let moved = skel::subtree(&self.joints, k);
        let moved = if with_descendants { moved } else { vec![k] };
        let watch = self.attached(&moved);
        // The region search reads only the weights, so the joint moves first and the
        // heat sources of a continuing drag are computed beside the search.
        skel::move_joint(&mut self.joints, k, *to, with_descendants);
        self.mark_dirty();
        let (region, pre) = self.region_and_prefetch(&moved, &watch);
        self.solve_with(region, &watch, &moved, pre)
    }

    /// Align the chain `joints` on a line and re-solve the weights around it.
    fn align(&mut self, joints: &[String]) -> Result<EditOutcome, EditError> {
        let chain = joints
            .iter()
            .map(|n| skel::find(&self.joints, n))
            .collect::<Result<Vec<_>, _>>()?;
        let watch = self.attached(&chain);
        let region = self.region(&chain, &watch);
        let (_, up) = skel::align(&mut self.joints, &chain)?;
        let mut o = self.solve(region, &watch, &chain)?;
        o.up = Some(up);
        Ok(o)
    }

    /// Make `joint` the root (controls follow their joints) and re-solve every weight.
    fn reroot(&mut self, joint: &str) -> Result<EditOutcome, EditError> {
        let r = skel::find(&self.joints, joint)?;
        let map = skel::reroot(&mut self.joints, r)?;
        // Controls follow their joints to the new indices.
        let mut controls = self.controls.clone();
        for (old, new) in map.iter().enumerate() {
            if let Some(new) = *new {
                controls[new] = self.controls[old];
            }
        }
        self.controls = controls;
        self.renumber(&map, None);
        self.rebuild_regions();
        self.global()
    }

    /// Re-solve every weight on the whole mesh with the current joints and controls.
    pub fn global(&mut self) -> Result<EditOutcome, EditError> {
        let t = Instant::now();
        self.last_columns.clear();
        self.dirty = None;
        let all = self.heat_verts.clone();
        let watch: Vec<u32> = (0..self.joints.len() as u32).collect();
        let patch = self.solve_cached(&all, &watch, None)?;
        let mut out = self.outcome(&patch, 1);
        out.global = true;
        self.patch(patch);
        self.bones_cached = self.virtual_bones();
        self.dirty = Some(vec![false; self.bones_cached.len()]);
        out.total_ms = ms_since(t);
        Ok(out)
    }

    fn set_control(
        &mut self,
        joint: &str,
        set: impl FnOnce(&mut Control),
        incoming: bool,
    ) -> Result<EditOutcome, EditError> {
        let j = skel::find(&self.joints, joint)?;
        let mut control = self.controls[j];
        set(&mut control);
        if control == self.controls[j] {
            // Nothing changes (e.g. a handle created on its joint): no weight may change either
            // (facts §10.2), not even by the round-off of a re-solve.
            return Ok(self.outcome(&Patch::default(), 0));
        }
        let watch = if incoming {
            self.attached(&[j])
        } else {
            vec![j as u32]
        };
        let region = self.region(&[j], &watch);
        self.controls[j] = control;
        self.solve(region, &watch, &[j])
    }

    fn insert(&mut self, child: &str, at: f64, name: &str) -> Result<EditOutcome, EditError> {
        let k = skel::find(&self.joints, child)?;
        let p = self.joints[k].parent.ok_or_else(|| {
            refused(
                "insert",
                format!("{child} is a root: there is no bone to split"),
            )
        })?;
        let watch = self.attached(&[k]);
        let region = self.region(&[p, k], &watch);
        let (n, map) = skel::insert(&mut self.joints, k, at, name)?;
        self.renumber(&map, None);
        self.controls.insert(n, Control::default());
        self.rebuild_regions();
        let watch = self.attached(&[n, n + 1]);
        self.solve(region, &watch, &[n])
    }

    fn delete(&mut self, joint: &str) -> Result<EditOutcome, EditError> {
        let k = skel::find(&self.joints, joint)?;
        if self.joints[k].parent.is_none() {
            return Err(refused(
                "delete",
                format!("{joint} is a root and cannot be deleted"),
            ));
        }
        let watch = self.attached(&[k]);
        let region = self.region(&[k], &watch);
        let (parent, map) = skel::delete(&mut self.joints, k)?;
        let parent_new = map[parent].unwrap_or(parent);
        self.renumber(&map, Some(parent_new as u32));
        self.controls.remove(k);
        self.rebuild_regions();
        let watch = self.attached(&[parent_new]);
        self.solve(region, &watch, &[parent_new])
    }
}

fn refused(op: &'static str, reason: String) -> EditError {
    EditError::Refused { op, reason }
}

fn check_finite(op: &'static str, p: &[f64; 3]) -> Result<(), EditError> {
    if p.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(refused(op, format!("non-finite position {p:?}")))
    }
}
