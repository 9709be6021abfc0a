//! Skeleton templates (YAML in `skeletons/`, built-ins compiled in).
//!
//! A template is a tree of named joints with rest positions in the **template frame** (+Y up, facing +Z,
//! the character's left at +X; Baran & Popović 2007 §3, docs/algorithms.md#frames) and the attributes the discrete penalties need:
//! `symmetric` partner (SymPF), `foot` (FootPF), `fat` (candidate restriction, docs/algorithms.md#candidates) and `end` (end markers
//! that own no vertices). The YAML schema is documented in [`load`] and in each built-in file's header.

pub mod joints_json;
pub mod load;
pub mod rigged;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::geom::{JointId, P3};

/// A skeleton template. Joints are stored parent-first (`parent < index`).
///
/// Rest positions are in the **template frame**: +Y up, facing +Z, the character's left at +X
/// (the glTF/BVH/Mixamo naming; Pinocchio's own skeletons mirror it). Only bone vectors matter to the embedding, not absolute position or scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skeleton {
    /// Template name (`human`, `quadruped`, … or the file stem).
    pub name: String,
    /// Joints, parent-first.
    pub joints: Vec<Joint>,
}

/// One template joint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Joint {
    /// Unique name, e.g. `LeftForeArm` (Mixamo style for the human).
    pub name: String,
    /// Parent joint; `None` for the root.
    pub parent: Option<JointId>,
    /// Rest position, template frame.
    pub rest: P3,
    /// Mirror partner (e.g. `RightArm` for `LeftArm`), for the symmetry penalties.
    pub symmetric: Option<JointId>,
    /// Foot joint: should touch the lowest part of the model (FootPF).
    pub foot: bool,
    /// Fat joint: embedded only at the thickest spheres (hips, chest, head).
    pub fat: bool,
    /// End marker (`HeadTop_End`, `LeftToe_End`, …): its bone's parent joint owns the vertices
    /// beyond it; the end joint itself owns no vertices.
    pub end: bool,
    /// Optional limb part (a tail): the shape may lack it, so a collapsed or odd-length chain through
    /// this joint is not a confidence problem.
    #[serde(default)]
    pub optional: bool,
}

impl Skeleton {
    /// Index of the joint called `name`.
    pub fn find(&self, name: &str) -> Option<JointId> {
        self.joints.iter().position(|j| j.name == name).map(JointId)
    }
}

/// Why a template could not be loaded.
#[derive(Debug, Error)]
pub enum SkeletonError {
    /// Neither a built-in name nor a readable file.
    #[error("unknown skeleton '{0}' (auto, curve, a built-in template: human, quadruped, horse, centaur; or a path to a .yaml file)")]
    Unknown(String),
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// YAML syntax or schema error, with line and column in the message.
    #[error("{path}: {message}")]
    Parse {
        /// File.
        path: PathBuf,
        /// Message including line/column.
        message: String,
    },
    /// Structural problem (unknown parent, cycle, duplicate name, …).
    #[error("{path}: {message}")]
    Invalid {
        /// File.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The template name that asks for the automatic choice.
pub const AUTO_TEMPLATE: &str = "auto";

/// The built-in templates: `(name, YAML text)`, compiled into the binary.
pub const BUILTIN: [(&str, &str); 4] = [
    ("human", include_str!("../../skeletons/human.yaml")),
    ("quadruped", include_str!("../../skeletons/quadruped.yaml")),
    ("horse", include_str!("../../skeletons/horse.yaml")),
    ("centaur", include_str!("../../skeletons/centaur.yaml")),
];

/// Load a built-in template by name (`human`, `quadruped`, `horse`, `centaur`) or a YAML file by path.
/// Built-in names win over files of the same name in the working directory.
pub fn load_template(name_or_path: &str) -> Result<Skeleton, SkeletonError> {
    // `auto` is not a template but a choice among them: `choose::Template::parse` handles it.
    let key = name_or_path.trim();
    if let Some((name, text)) = BUILTIN.iter().find(|(n, _)| n.eq_ignore_ascii_case(key)) {
        let path = PathBuf::from(format!("skeletons/{name}.yaml (built in)"));
        return load::parse_template(text, &path, name);
    }
    let path = Path::new(key);
    if !path.exists() {
        return Err(SkeletonError::Unknown(name_or_path.to_string()));
    }
    let text = std::fs::read_to_string(path).map_err(|source| SkeletonError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "custom".into());
    load::parse_template(&text, path, &stem)
}

impl Skeleton {
    /// Children of every joint (full skeleton), in joint order.
    pub fn children(&self) -> Vec<Vec<JointId>> {
        let mut out = vec![Vec::new(); self.joints.len()];
        for (i, j) in self.joints.iter().enumerate() {
            if let Some(p) = j.parent {
                if let Some(c) = out.get_mut(p.0) {
                    c.push(JointId(i));
                }
            }
        }
        out
    }

    /// Largest side of the rest pose's bounding box (template units; 0 for a single joint).
    pub fn rest_extent(&self) -> f64 {
        crate::geom::Aabb::of_points(self.joints.iter().map(|j| &j.rest)).max_extent()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_load_and_are_parent_first() {
        for (name, _) in BUILTIN {
            let s = load_template(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(s.name, name);
            assert_eq!(s.joints[0].parent, None);
            for (i, j) in s.joints.iter().enumerate().skip(1) {
                let p = j.parent.expect("one root");
                assert!(p.0 < i, "{name}: {} before its parent", j.name);
            }
            for (i, j) in s.joints.iter().enumerate() {
                if let Some(m) = j.symmetric {
                    assert_eq!(
                        s.joints[m.0].symmetric,
                        Some(JointId(i)),
                        "{name}: {}",
                        j.name
                    );
                    // Mirror partners sit at mirrored x.
                    assert!((s.joints[m.0].rest.x + j.rest.x).abs() < 1e-9, "{}", j.name);
                }
            }
            assert!(s.joints.iter().any(|j| j.foot) && s.joints.iter().any(|j| j.fat));
        }
    }

    #[test]
    fn human_has_mixamo_names_and_left_at_plus_x() {
        let s = load_template("human").unwrap();
        for n in [
            "Hips",
            "Spine",
            "Spine1",
            "Spine2",
            "Neck",
            "Head",
            "HeadTop_End",
            "LeftShoulder",
            "LeftArm",
            "LeftForeArm",
            "LeftHand",
            "LeftHand_End",
            "LeftUpLeg",
            "LeftLeg",
            "LeftFoot",
            "LeftToeBase",
            "LeftToe_End",
            "RightHand_End",
            "RightToe_End",
        ] {
            assert!(s.find(n).is_some(), "{n}");
        }
        // The character's own left: +X when it faces +Z with +Y up (glTF, BVH, Mixamo).
        let l = s.find("LeftHand").unwrap();
        assert!(s.joints[l.0].rest.x > 0.0);
        // Every non-end leaf would own no bone: all leaves must be end markers.
        let ch = s.children();
        for (i, j) in s.joints.iter().enumerate() {
            assert_eq!(ch[i].is_empty(), j.end, "{}", j.name);
        }
    }

    fn parse(text: &str) -> Result<Skeleton, SkeletonError> {
        load::parse_template(text, Path::new("bad.yaml"), "bad")
    }

    #[test]
    fn bad_files_name_file_line_and_column() {
        let cases = [
            ("joints:\n  - { name: A, position: [0, 0] }\n", "line"),
            ("joints:\n  - { name: A, position: [0,0,0] }\n  - { name: B, parent: Nope, position: [0,1,0] }\n", "line 3"),
            ("joints:\n  - { name: A, position: [0,0,0] }\n  - { name: A, parent: A, position: [0,1,0] }\n", "duplicate"),
            ("joints:\n  - { name: A, position: [0,0,0] }\n  - { name: B, position: [0,1,0] }\n", "exactly one root"),
            ("joints:\n  - { name: R, position: [0,0,0] }\n  - { name: A, parent: B, position: [0,0,0] }\n  - { name: B, parent: A, position: [0,1,0] }\n", "cycle"),
            ("joints:\n  - { name: A, position: [0,0,0], symmetric: Q }\n", "symmetric partner"),
            ("joints:\n  - { name: A, position: [0,0,0], colour: red }\n", "colour"),
            ("joints: []\n", "no joints"),
        ];
        for (text, want) in cases {
            let e = parse(text).expect_err(text).to_string();
            assert!(e.contains("bad.yaml"), "{e}");
            assert!(e.contains(want), "want '{want}' in: {e}");
        }
    }

    #[test]
    fn reorders_parent_first_and_loads_from_path() {
        let text = "joints:\n  - { name: B, parent: A, position: [0,1,0], foot: true }\n  - { name: A, position: [0,0,0] }\n";
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("mine.yaml");
        std::fs::write(&p, text).unwrap();
        let s = load_template(p.to_str().unwrap()).unwrap();
        assert_eq!(s.name, "mine");
        assert_eq!(s.joints[0].name, "A");
        assert_eq!(s.joints[1].parent, Some(JointId(0)));
        assert!(s.joints[1].foot);
        assert!(matches!(
            load_template("/nonexistent/x.yaml"),
            Err(SkeletonError::Unknown(_))
        ));
    }
}
