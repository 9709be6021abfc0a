//! A tiny procedural box figure (mesh + matching rig) for golden-image tests, UI snapshot tests and
//! the latency benchmark: deterministic, no engine needed. Mesh frame: +Y up, facing +Z, 2 units tall.

use crate::geom::P3;
use crate::mesh::Mesh;
use crate::rig::{Rig, RigJoint, RigPenalty};

/// Append an axis-aligned box `[lo, hi]` (12 triangles, outward winding; [`crate::geom::box_mesh`]).
pub fn push_box(mesh: &mut Mesh, lo: [f64; 3], hi: [f64; 3]) {
    let base = mesh.positions.len() as u32;
    let (corners, triangles) = crate::geom::box_mesh(P3::from(lo), P3::from(hi));
    mesh.positions.extend(corners);
    mesh.triangles
        .extend(triangles.into_iter().map(|t| t.map(|v| base + v)));
}

/// The joints of the figure: (name, parent, position).
const JOINTS: [(&str, Option<usize>, [f64; 3]); 11] = [
    ("Hips", None, [0.0, 1.0, 0.0]),
    ("Spine", Some(0), [0.0, 1.3, 0.0]),
    ("Head", Some(1), [0.0, 1.7, 0.0]),
    ("LeftArm", Some(1), [0.25, 1.5, 0.0]),
    ("LeftHand", Some(3), [0.75, 1.5, 0.0]),
    ("RightArm", Some(1), [-0.25, 1.5, 0.0]),
    ("RightHand", Some(5), [-0.75, 1.5, 0.0]),
    ("LeftUpLeg", Some(0), [0.12, 0.95, 0.0]),
    ("LeftFoot", Some(7), [0.12, 0.05, 0.05]),
    ("RightUpLeg", Some(0), [-0.12, 0.95, 0.0]),
    ("RightFoot", Some(9), [-0.12, 0.05, 0.05]),
];

/// A T-posed box figure and a rig whose joints sit inside it. When `skin` is true the rig carries
/// skin weights: each vertex bound to the nearest joint (enough to show a heat map).
pub fn box_figure(skin: bool) -> (Mesh, Rig) {
    let mut m = Mesh::default();
    push_box(&mut m, [-0.22, 0.9, -0.12], [0.22, 1.55, 0.12]); // torso
    push_box(&mut m, [-0.12, 1.55, -0.12], [0.12, 1.85, 0.14]); // head
    push_box(&mut m, [0.22, 1.44, -0.06], [0.8, 1.56, 0.06]); // left arm
    push_box(&mut m, [-0.8, 1.44, -0.06], [-0.22, 1.56, 0.06]); // right arm
    push_box(&mut m, [0.04, 0.0, -0.08], [0.2, 0.9, 0.08]); // left leg
    push_box(&mut m, [-0.2, 0.0, -0.08], [-0.04, 0.9, 0.08]); // right leg
    push_box(&mut m, [0.04, 0.0, 0.08], [0.2, 0.08, 0.2]); // left toe
    push_box(&mut m, [-0.2, 0.0, 0.08], [-0.04, 0.08, 0.2]); // right toe
    let joints: Vec<RigJoint> = JOINTS
        .iter()
        .map(|(n, p, pos)| RigJoint {
            name: (*n).to_string(),
            parent: *p,
            position: *pos,
            end: false,
        })
        .collect();
    let weights = skin.then(|| {
        m.positions
            .iter()
            .map(|v| {
                let d = |j: &RigJoint| (0..3).map(|k| (v[k] - j.position[k]).powi(2)).sum::<f64>();
                let best = (0..joints.len())
                    .min_by(|&a, &b| d(&joints[a]).total_cmp(&d(&joints[b])))
                    .unwrap_or(0);
                vec![(best as u32, 1.0)]
            })
            .collect()
    });
    let bb = m.aabb();
    let rig = Rig {
        mesh: "figure.obj".into(),
        skeleton: "human".into(),
        orientation: "+Y up, +Z forward".into(),
        joints,
        penalty: RigPenalty::default(),
        bbox: [
            [bb.min.x, bb.min.y, bb.min.z],
            [bb.max.x, bb.max.y, bb.max.z],
        ],
        vertex_count: m.positions.len(),
        skin: weights,
        ..Rig::default()
    };
    (m, rig)
}
