//! The input document's node hierarchy as the GLB writer reads it: parents, children, and every
//! node's world transform at the default pose (glTF 2.0 §3.5.3), which places the joints and the
//! bind matrices of [`super::glb_source`].

use nalgebra::{Matrix4, Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;

/// A node's local transform: `matrix`, or translation · rotation · scale (glTF spec §3.5.3).
fn local_matrix(node: &Value) -> Matrix4<f64> {
    let nums = |key: &str| -> Option<Vec<f64>> {
        node.get(key)?
            .as_array()?
            .iter()
            .map(Value::as_f64)
            .collect()
    };
    if let Some(m) = nums("matrix").filter(|m| m.len() == 16) {
        return Matrix4::from_column_slice(&m);
    }
    let t = nums("translation").filter(|v| v.len() == 3);
    let r = nums("rotation").filter(|v| v.len() == 4);
    let s = nums("scale").filter(|v| v.len() == 3);
    let mut m = Matrix4::identity();
    if let Some(t) = t {
        m = m.append_translation(&Vector3::new(t[0], t[1], t[2]));
    }
    if let Some(q) = r {
        let rot = UnitQuaternion::from_quaternion(Quaternion::new(q[3], q[0], q[1], q[2]));
        m *= rot.to_homogeneous();
    }
    if let Some(s) = s {
        m *= Matrix4::new_nonuniform_scaling(&Vector3::new(s[0], s[1], s[2]));
    }
    m
}

/// Per node: its parent (first node listing it as a child).
pub(super) fn node_parents(json: &Value) -> Vec<Option<usize>> {
    let nodes = json["nodes"].as_array().map_or(&[][..], Vec::as_slice);
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in children(n) {
            if let Some(slot) = parent.get_mut(c) {
                slot.get_or_insert(i);
            }
        }
    }
    parent
}

/// A node's children indices.
pub(super) fn children(node: &Value) -> Vec<usize> {
    indices(&node["children"])
}

/// The indices in a JSON array of indices (`children`, a skin's `joints`); none if it is absent.
pub(super) fn indices(list: &Value) -> Vec<usize> {
    list.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_u64)
                .map(|i| i as usize)
                .collect()
        })
        .unwrap_or_default()
}

/// Every node's world transform at the document's default pose.
pub(super) fn node_worlds(json: &Value) -> Vec<Matrix4<f64>> {
    let nodes = json["nodes"].as_array().map_or(&[][..], Vec::as_slice);
    let parent = node_parents(json);
    let local: Vec<Matrix4<f64>> = nodes.iter().map(local_matrix).collect();
    (0..nodes.len())
        .map(|i| {
            let mut m = local[i];
            let mut cur = i;
            // A chain longer than the node count is a cycle: cut it.
            for _ in 0..nodes.len() {
                let Some(p) = parent[cur] else { break };
                m = local[p] * m;
                cur = p;
            }
            m
        })
        .collect()
}
