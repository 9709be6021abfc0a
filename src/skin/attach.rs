//! Weights for a skeleton the user already has (`geppetto attach`, Blender's "automatic
//! weights"; also how skins are scored against artist rigs).
//!
//! Joints come from a `rig.json`, a corpus truth JSON (`joint_names`/`parents`/`joint_positions`),
//! a rigged `.glb`/`.gltf` or an `.fbx` with a skeleton, in the mesh frame. Only what the weights need is computed: load,
//! prepare, the distance field (visibility and leaf extension), then [`super::skin`]. Leaf joints
//! that are not end markers own the mesh beyond them through a virtual segment
//! ([`super::bones`]); roots outside the mesh and several roots are fine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Deserialize;

use super::{Skin, SkinOptions};
use crate::discretize::{field, DiscretizeOptions};
use crate::error::RigError;
use crate::mesh::{self, PreparedMesh};
use crate::rig::{Rig, RigJoint};
use crate::skeleton::SkeletonError;
use crate::util::ms_since;

/// The corpus truth format (`../shared/corpus/README.md`).
#[derive(Deserialize)]
struct TruthJson {
    joint_names: Vec<String>,
    parents: Vec<i64>,
    joint_positions: Vec<[f64; 3]>,
}

fn invalid(path: &Path, message: impl Into<String>) -> RigError {
    RigError::Skeleton(SkeletonError::Invalid {
        path: path.to_path_buf(),
        message: message.into(),
    })
}

/// Read joints (mesh frame) from a `rig.json`, a corpus truth JSON or a rigged glTF.
pub fn load_joints(path: &Path) -> Result<Vec<RigJoint>, RigError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if matches!(ext.as_deref(), Some("glb" | "gltf" | "fbx")) {
        return mesh::load::load_rigged(path)
            .map(|r| r.joints)
            .map_err(|source| RigError::Load {
                path: path.to_path_buf(),
                source,
            });
    }
    let text = std::fs::read_to_string(path).map_err(|source| {
        RigError::Skeleton(SkeletonError::Io {
            path: path.to_path_buf(),
            source,
        })
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| invalid(path, format!("not JSON: {e}")))?;
    let joints = if value.get("joint_names").is_some() {
        let t: TruthJson = serde_json::from_value(value)
            .map_err(|e| invalid(path, format!("not a truth JSON: {e}")))?;
        truth_joints(path, t)?
    } else {
        let rig: Rig = serde_json::from_value(value)
            .map_err(|e| invalid(path, format!("not a rig.json: {e}")))?;
        rig.joints
    };
    check_joints(path, &joints)?;
    Ok(joints)
}

fn truth_joints(path: &Path, t: TruthJson) -> Result<Vec<RigJoint>, RigError> {
    let n = t.joint_names.len();
    if t.parents.len() != n || t.joint_positions.len() != n {
        return Err(invalid(
            path,
            "joint_names, parents and joint_positions differ in length",
        ));
    }
    Ok(t.joint_names
        .into_iter()
        .zip(t.parents)
        .zip(t.joint_positions)
        .map(|((name, parent), position)| RigJoint {
            name,
            parent: usize::try_from(parent).ok(),
            position,
            end: false,
        })
        .collect())
}

fn check_joints(path: &Path, joints: &[RigJoint]) -> Result<(), RigError> {
    if joints.is_empty() {
        return Err(invalid(path, "no joints"));
    }
    for (i, j) in joints.iter().enumerate() {
        if j.parent.is_some_and(|p| p >= joints.len() || p == i) {
            return Err(invalid(
                path,
                format!("joint {i} ({}) has an invalid parent", j.name),
            ));
        }
        if j.position.iter().any(|c| !c.is_finite()) {
            return Err(invalid(
                path,
                format!("joint {i} ({}) is not finite", j.name),
            ));
        }
    }
    Ok(())
}

/// The result of an attach run.
#[derive(Clone, Debug)]
pub struct Attached {
    /// The rig record (`skeleton` = "from FILE", joints as given, skin).
    pub rig: Rig,
    /// The prepared mesh (input mesh inside).
    pub prepared: PreparedMesh,
    /// Weights and the shell report.
    pub skin: Skin,
    /// The mesh file's document (materials, textures, structure) the GLB is written into.
    pub source: Option<std::sync::Arc<mesh::load::SourceDocument>>,
}

/// Compute weights on the mesh at `mesh_path` for `joints` (mesh frame). `source` names where
/// the joints came from, for the rig record.
pub fn attach(
    mesh_path: &Path,
    joints: Vec<RigJoint>,
    source: &Path,
    discretize: &DiscretizeOptions,
    opts: &SkinOptions,
) -> Result<Attached, RigError> {
    let t_total = Instant::now();
    let err_path = || PathBuf::from(mesh_path);
    let mut timings = BTreeMap::new();
    let t = Instant::now();
    let loaded = mesh::load::load_with_source(mesh_path).map_err(|source| RigError::Load {
        path: err_path(),
        source,
    })?;
    let (input, doc) = (loaded.mesh, loaded.source);
    timings.insert("load".to_string(), ms_since(t));
    let t = Instant::now();
    let prepared = mesh::prepare(input).map_err(|source| RigError::Prepare {
        path: err_path(),
        source,
    })?;
    timings.insert("prepare".to_string(), ms_since(t));
    let t = Instant::now();
    let sdf = field::build(&prepared, discretize);
    timings.insert("field".to_string(), ms_since(t));
    let t = Instant::now();
    let skin = super::skin(&prepared, &sdf, &joints, opts).map_err(|source| RigError::Skin {
        path: err_path(),
        source,
    })?;
    timings.insert("skin".to_string(), ms_since(t));
    timings.insert("total".to_string(), ms_since(t_total));
    let bbox = prepared.input.aabb();
    let rig = Rig {
        mesh: mesh_path.to_string_lossy().into_owned(),
        skeleton: format!("from {}", source.display()),
        orientation: "as given".into(),
        joints,
        warnings: doc
            .iter()
            .flat_map(|d| d.warnings.iter())
            .chain(&skin.warnings)
            .cloned()
            .collect(),
        repair: prepared.report.clone(),
        timings_ms: timings,
        bbox: [bbox.min.into(), bbox.max.into()],
        vertex_count: prepared.input.positions.len(),
        skin: Some(skin.weights.clone()),
        ..Rig::default()
    };
    Ok(Attached {
        rig,
        prepared,
        skin,
        source: doc.map(std::sync::Arc::new),
    })
}
