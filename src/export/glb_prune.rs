//! Pruning what is left of a replaced skeleton: old joint nodes whose whole subtree is old joints
//! with nothing attached, and the node references (children, scenes) renumbered to match.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::glb_nodes::children;
use super::glb_source::set_or_remove;

/// Remove old joint nodes whose whole subtree is old joints without anything attached (mesh,
/// camera, extensions): what is left of a replaced skeleton. Returns old index → new index.
pub(super) fn prune_nodes(json: &mut Value, old_joints: &BTreeSet<usize>) -> Vec<Option<usize>> {
    let nodes: Vec<Value> = json["nodes"].as_array().cloned().unwrap_or_default();
    let removable = removable_nodes(&nodes, old_joints);
    let remap = kept_index_map(&removable);
    let kept: Vec<Value> = nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| !removable[*i])
        .map(|(_, nd)| {
            let mut nd = nd.clone();
            if nd.get("children").is_some() {
                let c = map_list(&nd["children"], &remap);
                if c.as_array().is_some_and(Vec::is_empty) {
                    nd.as_object_mut().map(|o| o.remove("children"));
                } else {
                    nd["children"] = c;
                }
            }
            nd
        })
        .collect();
    set_or_remove(json, "nodes", kept);
    if let Some(scenes) = json.get_mut("scenes").and_then(Value::as_array_mut) {
        for s in scenes {
            if s.get("nodes").is_some() {
                s["nodes"] = map_list(&s["nodes"], &remap);
            }
        }
    }
    remap
}

/// Per node, whether it is an old joint with nothing attached whose children are all removable.
fn removable_nodes(nodes: &[Value], old_joints: &BTreeSet<usize>) -> Vec<bool> {
    let n = nodes.len();
    let bare = |i: usize| {
        old_joints.contains(&i)
            && ["mesh", "camera", "extensions"]
                .iter()
                .all(|k| nodes[i].get(*k).is_none())
    };
    // A node is removable if it is bare and all its children are removable (children first:
    // iterate to a fixed point, bounded by the node count).
    let mut removable: Vec<bool> = (0..n).map(bare).collect();
    for _ in 0..n {
        let mut changed = false;
        for i in 0..n {
            if removable[i]
                && children(&nodes[i])
                    .iter()
                    .any(|&c| !removable.get(c).copied().unwrap_or(true))
            {
                removable[i] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    removable
}

/// Old index → new index of the nodes kept, in order.
fn kept_index_map(removable: &[bool]) -> Vec<Option<usize>> {
    let mut remap = vec![None; removable.len()];
    let mut next = 0;
    for (i, r) in removable.iter().enumerate() {
        if !r {
            remap[i] = Some(next);
            next += 1;
        }
    }
    remap
}

/// A list of node indices through `remap`, dropping removed nodes (a non-list becomes `[]`).
fn map_list(v: &Value, remap: &[Option<usize>]) -> Value {
    let list: Vec<usize> = v
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_u64)
                .filter_map(|c| remap.get(c as usize).copied().flatten())
                .collect()
        })
        .unwrap_or_default();
    json!(list)
}
