//! Whole-rig confidence checks that run after the choice: a box-built figure's pieces all carried
//! by bones ([`crate::confidence::pieces`]), and a skin that articulates the shape
//! ([`crate::confidence::articulation`]). Each marks the rig `low_confidence` with its reason,
//! whatever the embedding's own status.

use crate::choose::Fit;
use crate::mesh::PreparedMesh;
use crate::rig::{Rig, Status};
use crate::skin::Skin;

/// A rig that leaves a box of a box-built figure without a bone cannot move it: `low_confidence`
/// with the reason ([`crate::confidence::pieces`]), whatever the embedding's own status.
pub(super) fn pieces(prepared: &PreparedMesh, rig: &mut Rig, fit: &Fit) {
    let joints = &fit.embedding.joints;
    let bones: Vec<_> = fit
        .skeleton
        .joints
        .iter()
        .zip(joints)
        .filter_map(|(j, p)| j.parent.and_then(|q| joints.get(q.0)).map(|a| (*a, *p)))
        .collect();
    let pieces = crate::confidence::pieces::box_figure(prepared);
    let Some(reason) = crate::confidence::pieces::unposed(&pieces, &bones) else {
        return;
    };
    mark_low(rig, reason);
}

/// Marks `rig` (and its chosen template trial) `low_confidence` for `reason`.
fn mark_low(rig: &mut Rig, reason: String) {
    rig.status = Status::LowConfidence;
    rig.warnings.push(format!("low confidence: {reason}"));
    rig.confidence_reasons.push(reason);
    for t in rig.templates.iter_mut().filter(|t| t.chosen) {
        t.status = Some(Status::LowConfidence);
    }
}

/// A rig whose skin moves the body with one joint does not articulate the shape: `low_confidence`
/// with the reason ([`crate::confidence::articulation`]), whatever the embedding's own status.
pub(super) fn articulation(prepared: &PreparedMesh, rig: &mut Rig, skin: &Skin) {
    let Some(reason) = crate::confidence::articulation::rigid_body(prepared, &rig.joints, skin)
    else {
        return;
    };
    mark_low(rig, reason);
}
