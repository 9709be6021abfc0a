//! The skin of the first template's fit computed ahead, beside the later templates' fits
//! (`--skeleton auto`).
//!
//! Under `auto` the first template (the human) is fitted first; when it fits with confidence, it
//! is usually the rig, yet the quadruped's fit must still be made for its trial record (its
//! penalty and status are in rig.json) and may, rarely, win. Much of that second fit runs on one
//! core: its main search, its refinement, and a re-choice that re-searches when a structural check
//! fails (70 ms on cheburashka). The skin of the first fit's joints runs beside it on the other
//! core. The skin stage uses it only when the final rig has exactly those joints on the same
//! discretization: the skin is a function of the prepared mesh, the field, the joints and the
//! options alone, so what is used is what the skin stage would compute. Otherwise (another
//! template or the curve skeleton won, the finer discretization was kept) it is dropped and the
//! skin stage computes its own, as before.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::choose::Fit;
use crate::discretize::Discretization;
use crate::mesh::PreparedMesh;
use crate::rig::Status;
use crate::skeleton::rigged::RigJoint;
use crate::skin::{self, Skin, SkinError, SkinOptions, SystemCache};
use crate::util::ms_since;

/// A skin computed ahead for some joints, with its time.
struct Done {
    joints: Vec<RigJoint>,
    skin: Result<Skin, SkinError>,
    ms: f64,
}

/// What the skin ahead reads (the skin stage's own inputs) and what it made.
pub(super) struct SkinAhead<'a> {
    prepared: &'a PreparedMesh,
    disc: Arc<Discretization>,
    heat: Option<&'a SystemCache>,
    opts: SkinOptions,
    done: Mutex<Option<Done>>,
}

impl<'a> SkinAhead<'a> {
    /// The skin stage's inputs: the mesh, the discretization the fits are made on, the heat
    /// system built ahead (if any) and the skin options.
    pub(super) fn new(
        prepared: &'a PreparedMesh,
        disc: Arc<Discretization>,
        heat: Option<&'a SystemCache>,
        opts: SkinOptions,
    ) -> Self {
        Self {
            prepared,
            disc,
            heat,
            opts,
            done: Mutex::new(None),
        }
    }

    /// The joints the skin ahead would be made for, if `fit` (the first template's) is worth
    /// it: only a fit judged `ok` is likely to stay the rig.
    pub(super) fn joints_for(&self, fit: &Fit) -> Option<Vec<RigJoint>> {
        (fit.confidence.status == Status::Ok).then(|| super::rig_joints(self.prepared, fit))
    }

    /// Skin `joints` and keep the result.
    pub(super) fn run(&self, joints: Vec<RigJoint>) {
        let t = Instant::now();
        let field = &self.disc.field;
        let skin = skin::skin_cached(self.prepared, field, &joints, &self.opts, self.heat);
        let done = Done {
            joints,
            skin,
            ms: ms_since(t),
        };
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = Some(done);
    }

    /// The skin made ahead and its time, if it was made for exactly `joints` on `disc`.
    pub(super) fn take(
        &self,
        disc: &Discretization,
        joints: &[RigJoint],
    ) -> Option<(Result<Skin, SkinError>, f64)> {
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        (std::ptr::eq(&*self.disc, disc) && done.joints == joints).then_some((done.skin, done.ms))
    }
}

#[cfg(test)]
mod tests {
    use crate::choose::Template;
    use crate::config::RigConfig;
    use crate::pipeline::{attach, Pipeline, RigRequest};
    use crate::progress::NoProgress;

    /// Under `auto`, a figure the human fits with confidence gets the skin made ahead beside the
    /// quadruped's fit (`timings_ms.skin_ahead`), and its weights are exactly those the skin stage
    /// computes from the final rig's joints.
    #[test]
    fn the_skin_made_ahead_is_the_skin_of_the_final_joints() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("figure.obj");
        crate::mesh::write::write_obj(&crate::demo::humanoid(1).mesh, &path).unwrap();
        let pipe = Pipeline::new(RigConfig::default());
        let req = RigRequest::with_sidecar(&path, Template::Auto).unwrap();
        let out = pipe.rig(&req, &NoProgress).unwrap();
        assert_eq!(out.rig.skeleton, "human");
        assert!(
            out.rig.timings_ms.contains_key("skin_ahead"),
            "{:?}",
            out.rig.timings_ms
        );
        let disc = out.discretization.as_ref().unwrap();
        let opts = attach::skin_options(&pipe.config.skin, &out.prepared);
        let fresh =
            crate::skin::skin_cached(&out.prepared, &disc.field, &out.rig.joints, &opts, None)
                .unwrap();
        assert!(fresh.weights == out.skin.unwrap().weights);
    }
}
