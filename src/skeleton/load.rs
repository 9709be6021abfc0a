//! Template YAML loading and validation.
//!
//! File schema (every built-in in `skeletons/` documents it in its header):
//!
//! ```yaml
//! name: human            # optional; defaults to the file stem
//! joints:
//!   - { name: Hips, position: [0, 0, 0], fat: true }          # the single root: no parent
//!   - { name: Spine, parent: Hips, position: [0, 0.12, 0] }
//!   - { name: LeftToe_End, parent: LeftToeBase, position: [-0.11, -0.84, 0.18], foot: true, end: true }
//!   - { name: RightArm, parent: RightShoulder, position: [0.2, 0.46, 0], symmetric: LeftArm }
//!   - { name: Tail, parent: Hips, position: [0, 0, -0.6], optional: true }   # the shape may lack it
//! ```
//!
//! Positions are in the template frame (+Y up, facing +Z, the character's left at +X). Joints may be
//! listed in any order; the loader reorders them parent-first. Errors name the file, line and column.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Joint, Skeleton, SkeletonError};
use crate::geom::{JointId, P3};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[serde(default)]
    name: Option<String>,
    joints: Vec<FileJoint>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileJoint {
    name: Spanned<String>,
    #[serde(default)]
    parent: Option<Spanned<String>>,
    position: [f64; 3],
    #[serde(default)]
    symmetric: Option<Spanned<String>>,
    #[serde(default)]
    foot: bool,
    #[serde(default)]
    fat: bool,
    #[serde(default)]
    end: bool,
    #[serde(default)]
    optional: bool,
}

fn at<T>(s: &Spanned<T>) -> String {
    format!(
        "line {}, column {}",
        s.referenced.line(),
        s.referenced.column()
    )
}

/// Parse and validate template YAML. `path` names the source in errors; `default_name` is used when
/// the file has no `name:`.
pub fn parse_template(
    text: &str,
    path: &Path,
    default_name: &str,
) -> Result<Skeleton, SkeletonError> {
    let doc: FileDoc = serde_saphyr::from_str(text).map_err(|e| SkeletonError::Parse {
        path: path.to_path_buf(),
        message: crate::util::yaml_message(&e),
    })?;
    let invalid = |message: String| SkeletonError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    if doc.joints.is_empty() {
        return Err(invalid("the template has no joints".into()));
    }
    let index = name_index(&doc, path)?;
    let mut parent = vec![None; doc.joints.len()];
    for (i, j) in doc.joints.iter().enumerate() {
        if let Some(p) = &j.parent {
            parent[i] = Some(joint_ref(
                index_of(&index, p),
                i,
                &j.name.value,
                p,
                "parent",
                path,
            )?);
        }
    }
    let root = single_root(&doc, &parent, path)?;
    let order = parent_first_order(&parent, root);
    if order.len() != doc.joints.len() {
        let stuck = (0..doc.joints.len())
            .find(|i| !order.contains(i))
            .map(|i| doc.joints[i].name.value.clone())
            .unwrap_or_default();
        return Err(invalid(format!(
            "the parent links form a cycle (joint '{stuck}' is not connected to the root)"
        )));
    }
    build(&doc, &order, &parent, &index, path, default_name)
}

/// The template's joints by name; every name non-empty and unique, every position finite.
fn name_index<'a>(doc: &'a FileDoc, path: &Path) -> Result<HashMap<&'a str, usize>, SkeletonError> {
    let invalid = |message: String| SkeletonError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, j) in doc.joints.iter().enumerate() {
        if j.name.value.trim().is_empty() {
            return Err(invalid(format!("{}: empty joint name", at(&j.name))));
        }
        if !j.position.iter().all(|c| c.is_finite()) {
            return Err(invalid(format!(
                "{}: joint '{}' has a non-finite position",
                at(&j.name),
                j.name.value
            )));
        }
        if index.insert(j.name.value.as_str(), i).is_some() {
            return Err(invalid(format!(
                "{}: duplicate joint name '{}'",
                at(&j.name),
                j.name.value
            )));
        }
    }
    Ok(index)
}

/// The one joint without a parent.
fn single_root(
    doc: &FileDoc,
    parent: &[Option<usize>],
    path: &Path,
) -> Result<usize, SkeletonError> {
    let invalid = |message: String| SkeletonError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let roots: Vec<usize> = (0..doc.joints.len())
        .filter(|i| parent[*i].is_none())
        .collect();
    if roots.len() != 1 {
        let names: Vec<&str> = roots
            .iter()
            .map(|i| doc.joints[*i].name.value.as_str())
            .collect();
        return Err(invalid(format!(
            "exactly one root joint (without a parent) is required, found {}: [{}]",
            roots.len(),
            names.join(", ")
        )));
    }
    Ok(roots[0])
}

/// Depth-first preorder from the root, children in file order: a file already listed parent-first
/// with contiguous chains keeps its order. Joints not reached are part of a cycle.
fn index_of(index: &HashMap<&str, usize>, name: &Spanned<String>) -> Option<usize> {
    index.get(name.value.as_str()).copied()
}

/// Joint `i` (called `name`) refers to `target` (found at `found`) as its `role`: it must be
/// another joint of the template.
fn joint_ref(
    found: Option<usize>,
    i: usize,
    name: &str,
    target: &Spanned<String>,
    role: &str,
    path: &Path,
) -> Result<usize, SkeletonError> {
    let invalid = |message: String| SkeletonError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let Some(t) = found else {
        return Err(invalid(format!(
            "{}: joint '{name}' names {role} '{}', which is not a joint of this template",
            at(target),
            target.value
        )));
    };
    if t == i {
        return Err(invalid(format!(
            "{}: joint '{}' is its own {role}",
            at(target),
            target.value
        )));
    }
    Ok(t)
}

fn parent_first_order(parent: &[Option<usize>], root: usize) -> Vec<usize> {
    let mut children = vec![Vec::new(); parent.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i);
        }
    }
    let mut order = Vec::with_capacity(parent.len());
    let mut stack = vec![root];
    while let Some(cur) = stack.pop() {
        order.push(cur);
        stack.extend(children[cur].iter().rev().copied());
    }
    order
}

fn build(
    doc: &FileDoc,
    order: &[usize],
    parent: &[Option<usize>],
    index: &HashMap<&str, usize>,
    path: &Path,
    default_name: &str,
) -> Result<Skeleton, SkeletonError> {
    let invalid = |message: String| SkeletonError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let mut new_of_old = vec![0usize; order.len()];
    for (new, old) in order.iter().enumerate() {
        new_of_old[*old] = new;
    }
    let mut sym: Vec<Option<usize>> = vec![None; order.len()];
    for (i, j) in doc.joints.iter().enumerate() {
        let Some(s) = &j.symmetric else { continue };
        let si = joint_ref(
            index_of(index, s),
            i,
            &j.name.value,
            s,
            "symmetric partner",
            path,
        )?;
        for (a, b) in [(i, si), (si, i)] {
            if sym[a].is_some_and(|x| x != b) {
                return Err(invalid(format!(
                    "{}: joint '{}' has two different symmetric partners",
                    at(s),
                    doc.joints[a].name.value
                )));
            }
            sym[a] = Some(b);
        }
    }
    let joints = order
        .iter()
        .map(|&old| {
            let j = &doc.joints[old];
            Joint {
                name: j.name.value.clone(),
                parent: parent[old].map(|p| JointId(new_of_old[p])),
                rest: P3::new(j.position[0], j.position[1], j.position[2]),
                symmetric: sym[old].map(|s| JointId(new_of_old[s])),
                foot: j.foot,
                fat: j.fat,
                end: j.end,
                optional: j.optional,
            }
        })
        .collect();
    Ok(Skeleton {
        name: doc.name.clone().unwrap_or_else(|| default_name.to_string()),
        joints,
    })
}
