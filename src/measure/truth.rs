//! Rigs to score, from any of the accepted files, in one shape ([`ScoredRig`], **mesh frame**).
//!
//! * `rig.json` ([`crate::rig::Rig`]): joints, optional skin, the mesh bounding box and path.
//! * corpus truth JSON (`../shared/corpus/README.md`): `joint_names`, `parents` (-1 = root),
//!   `joint_positions`, and per vertex the top-4 `skin_joints` / `skin_weights` (unused slots -1 / 0).
//! * rigged glTF (`.glb`/`.gltf`): read by [`crate::mesh::load::load_rigged_gltf`].

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::MeasureError;
use crate::geom::{Aabb, P3};
use crate::mesh::{Mesh, MeshFormat};
use crate::rig::{Rig, RigJoint};

/// Skin weights indexed by this rig's joints: one list of `(joint index, weight)` per vertex.
pub type Weights = Vec<Vec<(usize, f64)>>;

/// What file a [`ScoredRig`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RigKind {
    /// A Geppetto `rig.json`.
    RigJson,
    /// A corpus truth JSON.
    Truth,
    /// A rigged glTF.
    Gltf,
}

/// A rig reduced to what scoring needs. All positions are in the **mesh frame**.
#[derive(Clone, Debug)]
pub struct ScoredRig {
    /// The file it was read from.
    pub source: PathBuf,
    /// Its format.
    pub kind: RigKind,
    /// Joint names (one per joint).
    pub names: Vec<String>,
    /// Parent joint index per joint, `None` for a root.
    pub parents: Vec<Option<usize>>,
    /// Joint positions (one per joint).
    pub positions: Vec<P3>,
    /// Skin weights per vertex, if the file has them.
    pub skin: Option<Weights>,
    /// The mesh bounding box recorded in a rig.json (`None` for other files or an empty box).
    pub bbox: Option<Aabb>,
    /// The mesh inside a rigged glTF.
    pub mesh: Option<Mesh>,
    /// Mesh file the rig refers to: rig.json `mesh`, or a truth file's `obj` resolved against the
    /// corpus folder (the truth file's grandparent), when that file exists.
    pub mesh_path: Option<PathBuf>,
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

fn input_err(path: &Path, message: impl Into<String>) -> MeasureError {
    MeasureError::Input {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// Read a rig.json, corpus truth JSON or rigged glTF (chosen by extension, then by JSON keys).
pub fn load(path: &Path) -> Result<ScoredRig, MeasureError> {
    if matches!(
        MeshFormat::from_path(path),
        Some(MeshFormat::Glb | MeshFormat::Gltf)
    ) {
        return load_gltf(path);
    }
    let text = std::fs::read_to_string(path).map_err(|e| input_err(path, e.to_string()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| input_err(path, format!("not JSON: {e}")))?;
    if value.get("joint_names").is_some() {
        let t: TruthFile = serde_json::from_value(value)
            .map_err(|e| input_err(path, format!("not a corpus truth file: {e}")))?;
        from_truth(path, t)
    } else {
        let rig: Rig = serde_json::from_value(value)
            .map_err(|e| input_err(path, format!("not a rig.json: {e}")))?;
        Ok(from_rig(path, &rig))
    }
}

/// A [`ScoredRig`] from an in-memory rig (`source` is only a label).
pub fn from_rig(source: &Path, rig: &Rig) -> ScoredRig {
    let bbox = Aabb {
        min: P3::from(rig.bbox[0]),
        max: P3::from(rig.bbox[1]),
    };
    let skin = rig.skin.as_ref().map(|table| {
        table
            .iter()
            .map(|row| row.iter().map(|(j, w)| (*j as usize, *w)).collect())
            .collect()
    });
    ScoredRig {
        source: source.to_path_buf(),
        kind: RigKind::RigJson,
        names: rig.joints.iter().map(|j| j.name.clone()).collect(),
        parents: rig.joints.iter().map(|j| j.parent).collect(),
        positions: rig.joints.iter().map(|j| P3::from(j.position)).collect(),
        skin,
        bbox: (rig.max_extent() > 0.0).then_some(bbox),
        mesh: None,
        mesh_path: (!rig.mesh.is_empty()).then(|| PathBuf::from(&rig.mesh)),
    }
}

fn from_truth(path: &Path, t: TruthFile) -> Result<ScoredRig, MeasureError> {
    let n = t.joint_names.len();
    if t.parents.len() != n || t.joint_positions.len() != n {
        return Err(input_err(
            path,
            format!(
                "{n} joint names but {} parents and {} positions",
                t.parents.len(),
                t.joint_positions.len()
            ),
        ));
    }
    let parents = t.parents.iter().map(|&p| usize::try_from(p).ok()).collect();
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
    Ok(ScoredRig {
        source: path.to_path_buf(),
        kind: RigKind::Truth,
        names: t.joint_names,
        parents,
        positions: t.joint_positions.iter().map(|p| P3::from(*p)).collect(),
        skin,
        bbox: None,
        mesh: None,
        mesh_path,
    })
}

/// Top-4 rows → weight lists; slots with a negative joint or a zero weight are padding.
fn truth_skin(
    path: &Path,
    joints: &[Vec<i64>],
    weights: &[Vec<f64>],
    n: usize,
) -> Result<Weights, MeasureError> {
    if joints.len() != weights.len() {
        return Err(input_err(
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
            let Ok(j) = usize::try_from(j) else { continue };
            if w == 0.0 {
                continue;
            }
            if j >= n {
                return Err(input_err(
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

fn load_gltf(path: &Path) -> Result<ScoredRig, MeasureError> {
    let rigged = crate::mesh::load::load_rigged_gltf(path)
        .map_err(|e| input_err(path, format!("cannot read the rigged glTF: {e}")))?;
    let skin = rigged.skin.as_ref().map(|table| {
        table
            .iter()
            .map(|row| row.iter().map(|(j, w)| (*j as usize, *w)).collect())
            .collect()
    });
    Ok(ScoredRig {
        source: path.to_path_buf(),
        kind: RigKind::Gltf,
        names: rigged.joints.iter().map(|j| j.name.clone()).collect(),
        parents: rigged.joints.iter().map(|j| j.parent).collect(),
        positions: rigged.joints.iter().map(|j| P3::from(j.position)).collect(),
        skin,
        bbox: None,
        mesh: Some(rigged.mesh),
        mesh_path: None,
    })
}

/// A skeleton-only rig.json for `rig` (so `geppetto attach --skeleton-from` can read an artist
/// skeleton). `bbox` is the mesh's box, mesh frame; no joint is an end marker, because artist leaf
/// joints (heads, hands) own vertices.
pub fn to_rig(rig: &ScoredRig, mesh_path: &Path, bbox: Option<Aabb>) -> Rig {
    let bb = bbox.unwrap_or_else(|| Aabb::of_points(&rig.positions));
    Rig {
        mesh: mesh_path.display().to_string(),
        skeleton: format!("artist ({})", rig.source.display()),
        joints: rig
            .names
            .iter()
            .zip(&rig.parents)
            .zip(&rig.positions)
            .map(|((name, parent), p)| RigJoint {
                name: name.clone(),
                parent: *parent,
                position: [p.x, p.y, p.z],
                end: false,
            })
            .collect(),
        bbox: [
            [bb.min.x, bb.min.y, bb.min.z],
            [bb.max.x, bb.max.y, bb.max.z],
        ],
        ..Rig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_json_is_parsed_with_padding() {
        let dir = tempfile::tempdir().ok();
        let Some(dir) = dir else { return };
        let path = dir.path().join("t.json");
        let text = r#"{"joint_names":["a","b"],"parents":[-1,0],
            "joint_positions":[[0,0,0],[0,1,0]],
            "skin_joints":[[0,1,-1,-1],[1,-1,-1,-1]],
            "skin_weights":[[0.75,0.25,0,0],[1,0,0,0]]}"#;
        assert!(std::fs::write(&path, text).is_ok());
        let r = load(&path);
        assert!(r.is_ok(), "{r:?}");
        let Ok(r) = r else { return };
        assert_eq!(r.kind, RigKind::Truth);
        assert_eq!(r.parents, vec![None, Some(0)]);
        assert_eq!(
            r.skin,
            Some(vec![vec![(0, 0.75), (1, 0.25)], vec![(1, 1.0)]])
        );
        // Round trip through a skeleton-only rig.json keeps the joints.
        let rig = to_rig(&r, Path::new("m.obj"), None);
        let back = from_rig(Path::new("x"), &rig);
        assert_eq!(back.positions, r.positions);
        assert_eq!(back.parents, r.parents);
    }

    #[test]
    fn bad_truth_is_an_error() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let path = dir.path().join("t.json");
        let text = r#"{"joint_names":["a"],"parents":[-1],"joint_positions":[[0,0,0]],
            "skin_joints":[[3,-1,-1,-1]],"skin_weights":[[1,0,0,0]]}"#;
        assert!(std::fs::write(&path, text).is_ok());
        assert!(load(&path).is_err());
    }
}
