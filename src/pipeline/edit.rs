//! The pipeline's two uses of [`crate::edit`]: the base an editing session starts from (mesh,
//! distance field, plain skin for a given skeleton), and the replay of the edits sidecar after the
//! skin stage of every re-rig.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use super::{prepare, run_stage, AttachRequest, Pipeline};
use crate::discretize::{field, DistanceField};
use crate::edit::sidecar::{self, EditLog};
use crate::edit::Session;
use crate::error::RigError;
use crate::geom::P3;
use crate::mesh::PreparedMesh;
use crate::progress::{Progress, Stage};
use crate::rig::Rig;
use crate::skin::{self, Skin, SkinOptions};
use crate::util::ms_since;

/// What an editing session needs: the prepared mesh, its distance field, the plain skin of the
/// requested joints, the input's document (for the GLB) and the stage timings.
pub struct EditBase {
    /// Prepared mesh.
    pub prepared: Arc<PreparedMesh>,
    /// Signed distance, normalized frame.
    pub field: DistanceField,
    /// The plain solver's weights for the request's joints.
    pub skin: Skin,
    /// The mesh file's document.
    pub source: Option<Arc<crate::mesh::load::SourceDocument>>,
    /// Milliseconds per stage.
    pub timings: BTreeMap<String, f64>,
}

impl Pipeline {
    /// Load, prepare, build the distance field and skin `req.joints` (as `attach` does), keeping
    /// the field for the session's visibility tests.
    pub fn edit_base(
        &self,
        req: &AttachRequest,
        progress: &dyn Progress,
    ) -> Result<EditBase, RigError> {
        let path = &req.mesh_path;
        let mut timings = BTreeMap::new();
        let (mesh, source, _) = self.load(path, progress, &mut timings)?;
        let prepared = Arc::new(prepare(path, mesh, progress, &mut timings)?);
        let field = run_stage(progress, Stage::Field, &mut timings, || {
            Ok(field::build(&prepared, &self.config.discretize))
        })?;
        let skin = run_stage(progress, Stage::Skin, &mut timings, || {
            let opts = super::attach::skin_options(&self.config.skin, &prepared);
            skin::skin(&prepared, &field, &req.joints, &opts).map_err(|source| RigError::Skin {
                path: path.clone(),
                source,
            })
        })?;
        Ok(EditBase {
            prepared,
            field,
            skin,
            source,
            timings,
        })
    }
}

/// Replay the mesh's edits sidecar (`NAME.edits.yaml`, if any) onto a freshly skinned rig: the
/// joints and weights of `rig` and `skin` become the edited ones. An edit that no longer applies
/// (its joint vanished) is skipped and reported in rig.json's warnings (issue 11). A sidecar that
/// cannot be read fails the rig, as a bad hints file does: rigging on without it would overwrite
/// the artist's edited outputs with unedited ones and say `ok`.
pub fn replay_sidecar(
    prepared: &PreparedMesh,
    field: &DistanceField,
    rig: &mut Rig,
    skin: &mut Skin,
    opts: &SkinOptions,
    timings: &mut BTreeMap<String, f64>,
) -> Result<(), RigError> {
    let mesh_path = std::path::Path::new(&rig.mesh).to_path_buf();
    let log = match EditLog::load_for(&mesh_path)? {
        Some(log) if !log.edits.is_empty() => log,
        _ => return Ok(()),
    };
    let t = Instant::now();
    let vis = skin::visibility::VisibilityField::new(prepared, field, opts.exact_visibility);
    let sdf = |p: &P3| vis.eval(p);
    let file = sidecar::sidecar_path(&mesh_path);
    let result = Session::new(prepared, &sdf, rig.joints.clone(), skin, opts.clone()).and_then(
        |mut session| {
            let skipped = sidecar::replay(&mut session, &log.edits)?;
            Ok((session.joints.clone(), session.skin_table(), skipped))
        },
    );
    match result {
        Ok((joints, weights, skipped)) => {
            let applied = log.edits.len() - skipped.len();
            rig.warnings.push(format!(
                "{applied} of {} edits from {} applied",
                log.edits.len(),
                file.display()
            ));
            rig.warnings.extend(skipped);
            rig.joints = joints;
            rig.skin = Some(weights.clone());
            skin.weights = weights;
        }
        Err(e) => rig
            .warnings
            .push(format!("edits from {} not applied: {e}", file.display())),
    }
    timings.insert("edits".into(), ms_since(t));
    Ok(())
}
