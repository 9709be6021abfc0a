//! `geppetto attach`: weights for a skeleton the user already has (Blender's "automatic weights";
//! also how skins are scored against artist rigs).
//!
//! Joints come from any file [`crate::rig::read`] accepts (rig.json, corpus truth JSON, a minimal
//! skeleton JSON, a rigged glTF or an FBX with a skeleton), in the mesh frame. Only what the weights
//! need is computed: load, prepare, the distance field (visibility and leaf extension) only in the
//! cells the skin reads ([`LazyField`]), then [`crate::skin::skin`]. A discretization of the same mesh already in the pipeline's cache is
//! reused. Leaf joints that are not end markers own the mesh beyond them through a virtual segment
//! ([`crate::skin::bones`]); roots outside the mesh and several roots are fine. Control joints
//! (those an artist's file's own skin never uses, those outside the mesh with bones mostly outside
//! it, leaves named as chain-tip markers) are marked as end markers first and own nothing
//! ([`crate::skin::controls`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::{prepare, run_stage, Pipeline};
use crate::discretize::lazy::LazyField;
use crate::discretize::{field, DistanceField};
use crate::error::RigError;
use crate::mesh::PreparedMesh;
use crate::progress::{Progress, Stage};
use crate::rig::read::{read, RigReadError};
use crate::rig::{Rig, RigJoint};
use crate::skin::{self, Skin};
use crate::util::ms_since;

/// The distance field `attach` reads: a cached discretization's, or one built only where the
/// skin reads it ([`LazyField`]: the same values, a fraction of the cells).
enum Field<'a> {
    Full(Cow<'a, DistanceField>),
    Lazy(Box<LazyField>),
}

/// What to attach: a mesh and the skeleton to bind it to.
#[derive(Clone, Debug)]
pub struct AttachRequest {
    /// The mesh file.
    pub mesh_path: PathBuf,
    /// Joints, mesh frame, parent indices into this list.
    pub joints: Vec<RigJoint>,
    /// Where the joints came from (recorded in the rig as `from FILE`).
    pub source: PathBuf,
    /// What reading the skeleton decided, for the rig's warnings (the joints the file's own skin
    /// never uses, made end markers).
    pub notes: Vec<String>,
    /// The character frame of the skeleton's file (a Geppetto rig.json's `orientation`), recorded
    /// in the rig so thumbnails, the editor and `animate` know up and forward; `None`: "as given".
    pub orientation: Option<String>,
}

impl AttachRequest {
    /// A request with the joints of `skeleton_from` (rig.json, corpus truth JSON or rigged glTF /
    /// FBX). An artist's file that carries a skin states which joints deform: those its binding
    /// never uses are made end markers ([`skin::controls::unbound`]), with a note naming them.
    pub fn from_file(mesh_path: &Path, skeleton_from: &Path) -> Result<Self, RigReadError> {
        Self::from_file_with(mesh_path, skeleton_from, true)
    }

    /// [`Self::from_file`], with `file_deform = false` weighting every joint of the file
    /// (`--weight-every-joint`). A rig.json keeps its own end markers either way: its skin is
    /// ours, not the artist's statement.
    pub fn from_file_with(
        mesh_path: &Path,
        skeleton_from: &Path,
        file_deform: bool,
    ) -> Result<Self, RigReadError> {
        let file = read(skeleton_from)?;
        let marked = if file_deform {
            file.unbound(&file.joints)
        } else {
            vec![false; file.joints.len()]
        };
        let (joints, note) = skin::controls::mark_unbound(&file.joints, &marked);
        Ok(Self {
            mesh_path: mesh_path.to_path_buf(),
            joints,
            source: skeleton_from.to_path_buf(),
            notes: note.into_iter().collect(),
            orientation: file.orientation.clone(),
        })
    }
}

/// The result of an attach run.
#[derive(Clone, Debug)]
pub struct Attached {
    /// The rig record (`skeleton` = "from FILE", joints as given, skin).
    pub rig: Rig,
    /// The prepared mesh (input mesh inside).
    pub prepared: Arc<PreparedMesh>,
    /// Weights and the shell report.
    pub skin: Skin,
    /// The mesh file's document (materials, textures, structure) the GLB is written into.
    pub source: Option<Arc<crate::mesh::load::SourceDocument>>,
}

impl Pipeline {
    /// Compute weights on `req.mesh_path` for `req.joints`, checking for cancellation between
    /// stages.
    pub fn attach(
        &self,
        req: &AttachRequest,
        progress: &dyn Progress,
    ) -> Result<Attached, RigError> {
        let t_total = Instant::now();
        let path = &req.mesh_path;
        let mut timings = BTreeMap::new();
        let (mesh, source, key) = self.load(path, progress, &mut timings)?;
        let cached = self.cache_get(key);
        let (prepared, field) = match &cached {
            Some((prepared, disc)) => (prepared.clone(), Field::Full(Cow::Borrowed(&disc.field))),
            None => {
                let prepared = Arc::new(prepare(path, mesh, progress, &mut timings)?);
                let f = self.attach_field(&prepared, progress, &mut timings)?;
                (prepared, f)
            }
        };
        let (joints, controls) = field.mark_controls(&prepared, &req.joints);
        let skin = run_stage(progress, Stage::Skin, &mut timings, || {
            let opts = skin_options(&self.config.skin, &prepared);
            field
                .skin(&prepared, &joints, &opts)
                .map_err(|source| RigError::Skin {
                    path: path.clone(),
                    source,
                })
        })?;
        timings.insert("total".into(), ms_since(t_total));
        let mut rig = attached_rig(req, &prepared, source.as_deref(), &skin, timings);
        rig.joints = joints;
        rig.warnings.extend(controls);
        Ok(Attached {
            rig,
            prepared,
            skin,
            source,
        })
    }

    /// The field stage of an uncached mesh: the full field when exact visibility asks for it,
    /// else the lazy one.
    fn attach_field(
        &self,
        prepared: &PreparedMesh,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<Field<'static>, RigError> {
        let opts = &self.config.discretize;
        // The exact visibility mode reads the full field's cells everywhere near the
        // surface: it keeps the whole build.
        run_stage(progress, Stage::Field, timings, || {
            Ok(if self.config.skin.exact_visibility {
                Field::Full(Cow::Owned(field::build(prepared, opts)))
            } else {
                Field::Lazy(Box::new(LazyField::new(prepared, opts)))
            })
        })
    }
}

impl Field<'_> {
    /// `joints` with the skeleton's control joints marked as end markers
    /// ([`skin::controls`]), and the warning naming them.
    fn mark_controls(
        &self,
        prepared: &PreparedMesh,
        joints: &[RigJoint],
    ) -> (Vec<RigJoint>, Option<String>) {
        match self {
            Field::Full(f) => skin::controls::mark_controls(joints, prepared, &|p| f.eval(p)),
            Field::Lazy(f) => skin::controls::mark_controls(joints, prepared, &|p| f.eval(p)),
        }
    }

    /// The skin of `joints` on `prepared`, reading this field.
    fn skin(
        &self,
        prepared: &PreparedMesh,
        joints: &[RigJoint],
        opts: &skin::SkinOptions,
    ) -> Result<Skin, skin::SkinError> {
        match self {
            Field::Full(f) => skin::skin(prepared, f, joints, opts),
            Field::Lazy(f) => skin::skin_with_sdf(prepared, &|p| f.eval(p), joints, opts),
        }
    }
}

/// The rig record of an attach run: the joints as given, the source's and the skin's warnings,
/// the repair report, `timings`, and the weights.
fn attached_rig(
    req: &AttachRequest,
    prepared: &PreparedMesh,
    source: Option<&crate::mesh::load::SourceDocument>,
    skin: &Skin,
    timings: BTreeMap<String, f64>,
) -> Rig {
    let bbox = prepared.input.aabb();
    Rig {
        mesh: req.mesh_path.to_string_lossy().into_owned(),
        skeleton: format!("from {}", req.source.display()),
        orientation: req.orientation.clone().unwrap_or_else(|| "as given".into()),
        joints: req.joints.clone(),
        warnings: source
            .iter()
            .flat_map(|d| d.warnings.iter())
            .chain(&req.notes)
            .chain(&skin.warnings)
            .cloned()
            .collect(),
        repair: prepared.report.clone(),
        timings_ms: timings,
        bbox: [bbox.min.into(), bbox.max.into()],
        vertex_count: prepared.input.positions.len(),
        skin: Some(skin.weights.clone()),
        ..Rig::default()
    }
}

/// The skin settings for `prepared`: `base`, except that a character built from many parts with
/// none dominant (the multi-component method's own test, [`crate::multipart::detect`]) binds every
/// heat-diffused shell rigidly to the joint carrying most of it, as that method's skin does
/// (Bharaj et al. 2012 §7). On other meshes only shells one joint already carries are rigid
/// ([`skin::parts`]). `rig` (heat skin), `attach` and `edit` all skin through this, so a mesh
/// gets the same treatment whichever way its skeleton came.
pub fn skin_options(base: &skin::SkinOptions, prepared: &PreparedMesh) -> skin::SkinOptions {
    let mut opts = base.clone();
    if opts.rigid_share <= 1.0 && crate::multipart::detect(prepared).multipart {
        opts.rigid_share = 0.0;
        opts.many_parts = true;
    }
    opts
}
