//! What the silhouette method cannot see, said in plain words instead of a silently wrong rig
//! (the paper's own limits, §12: occlusion in the primary view, limbs along the view direction):
//!
//! * parts overlapping in the primary view (a limb in front of or behind the body): many pixels
//!   whose ray crosses more than two surface layers;
//! * a branch pointing along the view: Eq. 3's second direction degenerates;
//! * a second silhouette that found no surface (a degenerate second direction);
//! * visible outline tips that got no branch (pruned as noise, yet large);
//! * joints outside the mesh; no limbs at all (a blob);
//! * separate outline parts hung from the nearest joint across a gap (a guessed hierarchy).

use super::joints::Built;
use super::prune::{Branch, Pruned, VISIBLE_TIP};
use super::raster::Raster;
use super::refine::Refined;
use super::view::Frame;
use crate::confidence::Confidence;
use crate::geom::P3;
use crate::rig::Status;
use crate::util::count;

/// Overlap fraction of the primary view above which parts are said to hide each other.
pub const OVERLAP_LIMIT: f64 = 0.15;

/// What the diagnostics look at.
pub struct Inputs<'a> {
    /// Primary raster.
    pub primary: &'a Raster,
    /// Branches (refined).
    pub branches: &'a [Branch],
    /// Refinement record.
    pub refined: &'a Refined,
    /// Pruned twigs.
    pub pruned: &'a [Pruned],
    /// The skeleton.
    pub built: &'a Built,
    /// The primary frame.
    pub frame: &'a Frame,
    /// Inside test (normalized frame).
    pub inside: &'a dyn Fn(&P3) -> bool,
}

/// Findings: reasons that lower confidence, and notes that only warn.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    /// Make the rig `low_confidence`.
    pub reasons: Vec<String>,
    /// Worth knowing, not disqualifying.
    pub warnings: Vec<String>,
}

impl Diagnostics {
    /// Reasons then warnings.
    pub fn all(&self) -> Vec<String> {
        self.reasons.iter().chain(&self.warnings).cloned().collect()
    }

    /// The confidence these findings give.
    pub fn confidence(&self) -> Confidence {
        Confidence {
            status: if self.reasons.is_empty() {
                Status::Ok
            } else {
                Status::LowConfidence
            },
            reasons: self.reasons.clone(),
        }
    }
}

/// Run every check.
pub fn run(i: &Inputs) -> Diagnostics {
    let mut d = Diagnostics::default();
    let overlap = i.primary.overlap_fraction();
    if overlap > OVERLAP_LIMIT {
        d.reasons.push(format!(
            "parts overlap in the primary view ({:.0}% of the outline's area has more than two surface layers): a limb in front of or behind the body gets no branch of its own",
            overlap * 100.0
        ));
    }
    if !i.refined.along_view.is_empty() {
        d.warnings.push(format!(
            "{} along the view direction: their depth was not refined (degenerate second direction)",
            count(i.refined.along_view.len(), "branch points", "branches point")
        ));
    }
    if !i.refined.empty.is_empty() {
        d.warnings.push(format!(
            "{} no surface in their second silhouette at most stations (degenerate second direction)",
            count(i.refined.empty.len(), "branch had", "branches had")
        ));
    }
    d.warnings.extend(lost_tips(i.pruned, i.primary.extent));
    check_joints(i, &mut d);
    let hidden = i
        .branches
        .iter()
        .filter(|b| over_another_part(i.primary, b))
        .count();
    if hidden > 0 {
        d.warnings.push(format!(
            "{} over another part in the primary view (a limb in front of or behind the body): their depth is uncertain",
            count(hidden, "branch lies", "branches lie")
        ));
    }
    d
}

/// The checks of the built joints: at least two limbs, joints inside the mesh, parts bridged.
fn check_joints(i: &Inputs, d: &mut Diagnostics) {
    let leaves = i.built.joints.iter().filter(|j| j.end).count();
    if leaves < 2 {
        d.reasons.push(
            "the outline has no limbs (fewer than two branch ends): a blob, not a creature".into(),
        );
    }
    let outside = i
        .built
        .joints
        .iter()
        .filter(|j| !(i.inside)(&i.frame.to_norm(&j.pos)))
        .count();
    if outside * 10 > i.built.joints.len() {
        d.reasons.push(format!(
            "{outside} of {} joints lie outside the mesh",
            i.built.joints.len()
        ));
    } else if outside > 0 {
        d.warnings.push(format!(
            "{} just outside the mesh",
            count(outside, "joint lies", "joints lie")
        ));
    }
    // A part the outline shows apart from the rest is hung from the nearest joint: nothing in
    // the silhouette says which part it belongs to, so the hierarchy across the gap is a guess
    // (an arm box bridged to a hip corner, a leg hung from the other leg). The template embedding
    // lowers confidence for bones that cross between separate parts for the same reason
    // (`confidence::assess_with`); here it does too, so a guessed hierarchy never says `ok`.
    if i.built.bridged_parts > 0 {
        d.reasons.push(format!(
            "{} separate outline part(s) joined to the nearest joint across a gap: the outline shows no connection, so which joint each hangs from is a guess",
            i.built.bridged_parts
        ));
    }
}

/// The warning for pruned twigs whose tips protrude visibly ([`VISIBLE_TIP`] of the model
/// `extent`): the outline shows more tips than the skeleton has branches.
fn lost_tips(pruned: &[Pruned], extent: f64) -> Option<String> {
    let lost = pruned
        .iter()
        .filter(|p| p.protrusion > VISIBLE_TIP * extent)
        .count();
    (lost > 0).then(|| {
        format!(
            "fewer branches than the outline's visible tips: {lost} tip(s) protruding more than {:.0}% of the model were judged too stubby for a branch",
            VISIBLE_TIP * 100.0
        )
    })
}

/// Most of the branch's nodes look through more than two surface layers.
fn over_another_part(r: &Raster, b: &Branch) -> bool {
    let deep = b
        .pts
        .iter()
        .filter(|q| {
            let (u, v) = r.to_px(q.x, q.y);
            r.index(u, v).is_some_and(|k| r.layers[k] > 2)
        })
        .count();
    b.pts.len() >= 3 && deep * 2 > b.pts.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twig(protrusion: f64) -> Pruned {
        Pruned {
            tip: P3::origin(),
            protrusion,
        }
    }

    #[test]
    fn a_pruned_but_visible_tip_is_reported_and_noise_is_not() {
        // Model extent 0.9: a wrinkle (1 % of the model) and a plate (negative) stay silent; a
        // stubby lobe protruding 10 % of the model is a tip the skeleton lost.
        let quiet = [twig(0.009), twig(-0.2)];
        assert_eq!(lost_tips(&quiet, 0.9), None);
        let w = lost_tips(&[twig(0.009), twig(0.09)], 0.9).expect("a visible tip was lost");
        assert!(
            w.starts_with("fewer branches than the outline's visible tips: 1 tip(s)"),
            "{w}"
        );
    }
}
