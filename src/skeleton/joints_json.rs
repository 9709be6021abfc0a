//! The minimal skeleton file for `geppetto attach --skeleton-from`: joints only, in the mesh frame.
//!
//! ```json
//! {"joints": [
//!   {"name": "Hips",  "parent": null,   "position": [0.0, 1.0, 0.0]},
//!   {"name": "Spine", "parent": "Hips", "position": [0.0, 1.2, 0.0]},
//!   {"name": "Head",  "parent": 1,      "position": [0.0, 1.6, 0.0]}
//! ]}
//! ```
//!
//! `parent` is another joint's name or its 0-based index in the list; `null` or absent for a root.
//! Joints may come in any order; names must be unique; the parents must form a forest.

use std::path::Path;

use serde::Deserialize;

use super::rigged::RigJoint;
use super::SkeletonError;

/// A parent given by name or by 0-based index.
#[derive(Deserialize)]
#[serde(untagged)]
enum ParentRef {
    Index(usize),
    Name(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MinimalJoint {
    name: String,
    #[serde(default)]
    parent: Option<ParentRef>,
    position: [f64; 3],
}

#[derive(Deserialize)]
struct MinimalSkeleton {
    joints: Vec<MinimalJoint>,
}

/// True when `value` looks like a minimal skeleton file: a `joints` list and none of the other
/// formats' keys (a rig.json names its `mesh`, a corpus truth JSON has `joint_names`).
pub fn is_minimal(value: &serde_json::Value) -> bool {
    value.get("joints").is_some()
        && value.get("mesh").is_none()
        && value.get("joint_names").is_none()
}

/// Read a minimal skeleton (already parsed as JSON) into joints; `path` names the file in errors.
pub fn from_value(value: serde_json::Value, path: &Path) -> Result<Vec<RigJoint>, SkeletonError> {
    let invalid = |message: String| SkeletonError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let s: MinimalSkeleton = serde_json::from_value(value).map_err(|e| {
        invalid(format!(
            "not a skeleton file ({{\"joints\": [{{\"name\", \"parent\", \"position\"}}]}}): {e}"
        ))
    })?;
    let names: Vec<&str> = s.joints.iter().map(|j| j.name.as_str()).collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(invalid(format!("joint name '{n}' is used twice")));
        }
    }
    let mut joints = Vec::with_capacity(s.joints.len());
    for (i, j) in s.joints.iter().enumerate() {
        let parent = match &j.parent {
            None => None,
            Some(ParentRef::Index(p)) if *p < names.len() => Some(*p),
            Some(ParentRef::Index(p)) => {
                return Err(invalid(format!(
                "joint {i} ({}): parent index {p}, but there are {} joints (indices count from 0)",
                j.name,
                names.len()
            )))
            }
            Some(ParentRef::Name(p)) => {
                Some(names.iter().position(|n| n == p).ok_or_else(|| {
                    invalid(format!("joint {i} ({}): no joint named '{p}'", j.name))
                })?)
            }
        };
        joints.push(RigJoint {
            name: j.name.clone(),
            parent,
            position: j.position,
            end: false,
        });
    }
    check_forest(&joints).map_err(invalid)?;
    Ok(joints)
}

/// Every parent chain reaches a root (no joint is its own ancestor).
fn check_forest(joints: &[RigJoint]) -> Result<(), String> {
    for (i, j) in joints.iter().enumerate() {
        let mut cur = j.parent;
        let mut steps = 0;
        while let Some(p) = cur {
            steps += 1;
            if p == i || steps > joints.len() {
                return Err(format!("joint {i} ({}) is its own ancestor", j.name));
            }
            cur = joints[p].parent;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<RigJoint>, SkeletonError> {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        assert!(is_minimal(&v));
        from_value(v, Path::new("s.json"))
    }

    #[test]
    fn parents_by_name_index_or_none_in_any_order() {
        let j = parse(
            r#"{"joints": [
                {"name": "Head", "parent": "Spine", "position": [0, 1.6, 0]},
                {"name": "Hips", "parent": null, "position": [0, 1, 0]},
                {"name": "Spine", "parent": 1, "position": [0, 1.2, 0]},
                {"name": "Tail", "position": [0, 1, -0.2]}
            ]}"#,
        )
        .unwrap();
        let parents: Vec<Option<usize>> = j.iter().map(|j| j.parent).collect();
        assert_eq!(parents, [Some(2), None, Some(1), None]);
        assert_eq!(j[0].position, [0.0, 1.6, 0.0]);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let cases = [
            (
                r#"{"joints": [{"name": "A", "parent": "B", "position": [0,0,0]}]}"#,
                "no joint named 'B'",
            ),
            (
                r#"{"joints": [{"name": "A", "parent": 3, "position": [0,0,0]}]}"#,
                "parent index 3",
            ),
            (
                r#"{"joints": [{"name": "A", "position": [0,0,0]}, {"name": "A", "position": [0,1,0]}]}"#,
                "used twice",
            ),
            (
                r#"{"joints": [{"name": "A", "parent": "B", "position": [0,0,0]}, {"name": "B", "parent": 0, "position": [0,1,0]}]}"#,
                "own ancestor",
            ),
            (
                r#"{"joints": [{"name": "A", "position": [0,0]}]}"#,
                "not a skeleton file",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("s.json"), "{text}: {e}");
        }
    }

    #[test]
    fn a_rig_json_is_not_taken_for_a_minimal_file() {
        let v = serde_json::json!({"mesh": "a.obj", "joints": []});
        assert!(!is_minimal(&v));
    }
}
