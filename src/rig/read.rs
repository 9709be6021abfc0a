//! The one reader for rig files: a Geppetto `rig.json`, a corpus truth JSON or a rigged glTF, all
//! returned as joints (**mesh frame**) plus an optional skin. `geppetto score`, `geppetto attach`
//! and `geppetto bench` read skeletons only through [`read`] / [`read_joints`].
//!
//! * `rig.json` ([`Rig`]): joints, optional skin, the mesh bounding box and path.
//! * corpus truth JSON: `joint_names`, `parents` (−1 = root), `joint_positions`, and per vertex the
//!   top-4 `skin_joints` / `skin_weights` (unused slots −1 / 0); `obj` names the mesh.
//! * rigged glTF (`.glb`/`.gltf`): the first skin, read by [`crate::mesh::load::load_rigged_gltf`].
//!
//! The file type is chosen by extension, then (for JSON) by its keys.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use super::{Rig, RigJoint, SkinTable};
use crate::geom::{Aabb, P3};
use crate::mesh::{LoadError, Mesh, MeshFormat};

/// Why a rig file could not be read. Every variant names the file.
#[derive(Debug, Error)]
pub enum RigReadError {
    /// The file could not be read.
    #[error("{}: cannot read: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause (in the message, not a separate error source, so it is printed once).
        cause: std::io::Error,
    },
    /// The file was read but its content is not a usable rig.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A glTF or FBX that is not a readable skinned mesh.
    #[error("{}: cannot read the rigged glTF/FBX: {cause}", path.display())]
    Gltf {
        /// The file.
        path: PathBuf,
        /// Cause (in the message, printed once).
        cause: LoadError,
    },
}

/// What kind of file a [`RigFile`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RigFileKind {
    /// A Geppetto `rig.json`.
    RigJson,
    /// A corpus truth JSON.
    Truth,
    /// A rigged glTF.
    Gltf,
}

/// A rig as read from a file. All positions are in the **mesh frame**.
#[derive(Clone, Debug)]
pub struct RigFile {
    /// The file it was read from (only a label for in-memory rigs).
    pub source: PathBuf,
    /// Its format.
    pub kind: RigFileKind,
    /// Joints, in file order (parent indices refer to this list).
    pub joints: Vec<RigJoint>,
    /// Skin weights per vertex, if the file has them.
    pub skin: Option<SkinTable>,
    /// The mesh bounding box recorded in a rig.json (`None` for other files or an empty box).
    pub bbox: Option<Aabb>,
    /// The mesh inside a rigged glTF.
    pub mesh: Option<Mesh>,
    /// Mesh file the rig refers to: rig.json `mesh`, or a truth file's `obj` resolved against the
    /// corpus folder (the truth file's grandparent, then its folder), when that file exists.
    pub mesh_path: Option<PathBuf>,
    /// The character frame a Geppetto rig.json records (`+Z up, -Y forward`), when it names one;
    /// a glTF's, which its specification fixes (+Y up, facing +Z); `None` for other files (a truth
    /// JSON or a joints list says nothing of up and forward).
    pub orientation: Option<String>,
}

#[derive(Deserialize)]
struct TruthFile {
    joint_names: Vec<String>,
    parents: Vec<i64>,
    joint_positions: Vec<[f64; 3]>,
    #[serde(default)]
    skin_joints: Option<Vec<Vec<i64>>>,
    #[serde(default)]
    skin_weights: Option<Vec<Vec<f64>>>,
    #[serde(default)]
    obj: Option<String>,
}

fn invalid(path: &Path, message: impl Into<String>) -> RigReadError {
    RigReadError::Invalid {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Read a rig.json, corpus truth JSON or rigged glTF. The joint hierarchy is checked (at least one
/// joint, parents in range and not the joint itself, finite positions).
pub fn read(path: &Path) -> Result<RigFile, RigReadError> {
    let file = match MeshFormat::from_path(path) {
        Some(MeshFormat::Glb | MeshFormat::Gltf | MeshFormat::Fbx) => read_gltf(path)?,
        Some(MeshFormat::Obj | MeshFormat::Off | MeshFormat::Ply) => return Err(no_skeleton(path)),
        None => read_json(path)?,
    };
    check_joints(path, &file.joints)?;
    Ok(file)
}

/// A mesh format that holds no skeleton; it used to be read as JSON ("not JSON: expected value
/// at line 1 column 1").
fn no_skeleton(path: &Path) -> RigReadError {
    invalid(
        path,
        "a mesh file without a skeleton (OBJ, OFF and PLY hold none): give a rig.json, a corpus \
         truth JSON, or a rigged .glb, .gltf or .fbx",
    )
}

/// Only the joints of [`read`].
pub fn read_joints(path: &Path) -> Result<Vec<RigJoint>, RigReadError> {
    read(path).map(|f| f.joints)
}

fn read_json(path: &Path) -> Result<RigFile, RigReadError> {
    let text = std::fs::read_to_string(path).map_err(|cause| RigReadError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| invalid(path, format!("not JSON: {e}")))?;
    if crate::skeleton::joints_json::is_minimal(&value) {
        let joints =
            crate::skeleton::joints_json::from_value(value, path).map_err(|e| match e {
                crate::skeleton::SkeletonError::Invalid { message, .. } => invalid(path, message),
                other => invalid(path, other.to_string()),
            })?;
        Ok(RigFile {
            source: path.to_path_buf(),
            kind: RigFileKind::RigJson,
            joints,
            skin: None,
            bbox: None,
            mesh: None,
            mesh_path: None,
            orientation: None,
        })
    } else if value.get("joint_names").is_some() {
        let t: TruthFile = serde_json::from_value(value)
            .map_err(|e| invalid(path, format!("not a corpus truth file: {e}")))?;
        from_truth(path, t)
    } else {
        let rig: Rig = serde_json::from_value(value)
            .map_err(|e| invalid(path, format!("not a rig.json: {e}")))?;
        Ok(RigFile::from_rig(path, &rig))
    }
}

impl RigFile {
    /// A [`RigFile`] from an in-memory rig (`source` is only a label).
    pub fn from_rig(source: &Path, rig: &Rig) -> Self {
        let bbox = Aabb {
            min: P3::from(rig.bbox[0]),
            max: P3::from(rig.bbox[1]),
        };
        Self {
            source: source.to_path_buf(),
            kind: RigFileKind::RigJson,
            joints: rig.joints.clone(),
            skin: rig.skin.clone(),
            bbox: (rig.max_extent() > 0.0).then_some(bbox),
            mesh: None,
            mesh_path: (!rig.mesh.is_empty()).then(|| PathBuf::from(&rig.mesh)),
            orientation: crate::embed::Orientation::from_label(&rig.orientation).map(|o| o.label()),
        }
    }

    /// Which of `joints` (this file's joint order) the file's own skin never uses
    /// ([`crate::skin::controls::unbound`]): only for an artist's file with a skin. A rig.json's
    /// skin is ours, not the artist's statement, so nothing is marked there.
    pub fn unbound(&self, joints: &[RigJoint]) -> Vec<bool> {
        match &self.skin {
            Some(skin) if self.kind != RigFileKind::RigJson => {
                crate::skin::controls::unbound(joints, skin)
            }
            _ => vec![false; joints.len()],
        }
    }

    /// A skeleton-only rig.json (so `geppetto attach --skeleton-from` can read an artist skeleton).
    /// `bbox` is the mesh's box, mesh frame (default: the joints' box). Artist leaf joints (heads,
    /// hands) own vertices, so a joint is an end marker only when the file's own skin never uses
    /// it ([`crate::skin::controls::unbound`]), as `attach --skeleton-from` this file decides.
    pub fn skeleton_rig(&self, mesh_path: &Path, bbox: Option<Aabb>) -> Rig {
        let positions: Vec<P3> = self.joints.iter().map(|j| j.point()).collect();
        let bb = bbox.unwrap_or_else(|| Aabb::of_points(&positions));
        let open: Vec<RigJoint> = self
            .joints
            .iter()
            .map(|j| RigJoint {
                end: false,
                ..j.clone()
            })
            .collect();
        let unbound = self.unbound(&open);
        Rig {
            mesh: mesh_path.display().to_string(),
            skeleton: format!("artist ({})", self.source.display()),
            joints: open
                .into_iter()
                .zip(unbound)
                .map(|(j, end)| RigJoint { end, ..j })
                .collect(),
            bbox: [bb.min.into(), bb.max.into()],
            ..Rig::default()
        }
    }
}

fn from_truth(path: &Path, t: TruthFile) -> Result<RigFile, RigReadError> {
    let n = t.joint_names.len();
    if t.parents.len() != n || t.joint_positions.len() != n {
        return Err(invalid(
            path,
            format!(
                "{n} joint names but {} parents and {} positions",
                t.parents.len(),
                t.joint_positions.len()
            ),
        ));
    }
    let skin = match (&t.skin_joints, &t.skin_weights) {
        (Some(js), Some(ws)) => Some(truth_skin(path, js, ws, n)?),
        _ => None,
    };
    let mesh_path = t.obj.as_ref().and_then(|obj| {
        let dir = path.parent()?;
        [dir.parent().map(|d| d.join(obj)), Some(dir.join(obj))]
            .into_iter()
            .flatten()
            .find(|p| p.is_file())
    });
    let joints = t
        .joint_names
        .into_iter()
        .zip(t.parents)
        .zip(t.joint_positions)
        .map(|((name, parent), position)| RigJoint {
            name,
            parent: usize::try_from(parent).ok(),
            position,
            end: false,
        })
        .collect();
    Ok(RigFile {
        source: path.to_path_buf(),
        kind: RigFileKind::Truth,
        joints,
        skin,
        bbox: None,
        mesh: None,
        mesh_path,
        orientation: None,
    })
}

/// The character frame the glTF 2.0 specification fixes (§3.4): +Y up, the asset's front facing +Z.
const GLTF_FRAME: &str = "+Y up, +Z forward";

/// Top-4 rows → weight lists; slots with a negative joint or a zero weight are padding.
fn truth_skin(
    path: &Path,
    joints: &[Vec<i64>],
    weights: &[Vec<f64>],
    n: usize,
) -> Result<SkinTable, RigReadError> {
    if joints.len() != weights.len() {
        return Err(invalid(
            path,
            format!(
                "{} skin_joints rows but {} skin_weights rows",
                joints.len(),
                weights.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(joints.len());
    for (v, (js, ws)) in joints.iter().zip(weights).enumerate() {
        let mut row = Vec::with_capacity(js.len());
        for (&j, &w) in js.iter().zip(ws) {
            let Ok(j) = u32::try_from(j) else { continue };
            if w == 0.0 {
                continue;
            }
            if j as usize >= n {
                return Err(invalid(
                    path,
                    format!("vertex {v} refers to joint {j}, but there are {n} joints"),
                ));
            }
            row.push((j, w));
        }
        out.push(row);
    }
    Ok(out)
}

fn read_gltf(path: &Path) -> Result<RigFile, RigReadError> {
    let rigged = crate::mesh::load::load_rigged(path).map_err(|cause| RigReadError::Gltf {
        path: path.to_path_buf(),
        cause,
    })?;
    Ok(RigFile {
        source: path.to_path_buf(),
        kind: RigFileKind::Gltf,
        joints: rigged.joints,
        skin: rigged.skin,
        bbox: None,
        mesh: Some(rigged.mesh),
        mesh_path: None,
        // glTF 2.0 §3.4 (coordinate system and units): +Y is up and the front of an asset faces
        // +Z, so a glTF skeleton's frame is known; an FBX's is not fixed by its format.
        orientation: is_gltf(path).then(|| GLTF_FRAME.to_owned()),
    })
}

/// A `.gltf` or `.glb` file name (any case).
fn is_gltf(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("glb"))
}

fn check_joints(path: &Path, joints: &[RigJoint]) -> Result<(), RigReadError> {
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

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
