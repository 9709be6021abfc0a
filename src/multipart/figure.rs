//! A procedural figure of separate parts for the method's tests and demos: deterministic, no
//! file needed (the multi-component method's unit tests and `tests/multipart_orientation.rs`).

use crate::geom::{box_mesh, P3};
use crate::mesh::Mesh;

/// A robot of 14 separate closed boxes shaped like the human template (+Y up, facing +Z, about 1.75
/// units tall): torso, head, 3-piece arms (upper arm, forearm, hand) and legs (thigh, shin, foot).
/// The multi-component method's test figure (its parts touch or nearly touch, as a robot's do).
pub fn box_robot() -> Mesh {
    let mut m = Mesh::default();
    let mut b = |lo: [f64; 3], hi: [f64; 3]| {
        let base = m.positions.len() as u32;
        let (corners, tris) = box_mesh(P3::from(lo), P3::from(hi));
        m.positions.extend(corners);
        m.triangles
            .extend(tris.into_iter().map(|t| t.map(|i| base + i)));
    };
    b([-0.2, 0.9, -0.1], [0.2, 1.5, 0.1]); // torso
    b([-0.1, 1.5, -0.1], [0.1, 1.75, 0.1]); // head
    for s in [-1.0f64, 1.0] {
        // x range from |a| to |c| on side s.
        let x = |a: f64, c: f64| ((s * a).min(s * c), (s * a).max(s * c));
        let mut piece =
            |(x0, x1): (f64, f64), y: [f64; 2], z: [f64; 2]| b([x0, y[0], z[0]], [x1, y[1], z[1]]);
        piece(x(0.2, 0.5), [1.35, 1.45], [-0.05, 0.05]); // upper arm
        piece(x(0.5, 0.8), [1.35, 1.45], [-0.05, 0.05]); // forearm
        piece(x(0.8, 0.95), [1.33, 1.47], [-0.06, 0.06]); // hand
        piece(x(0.05, 0.18), [0.5, 0.9], [-0.06, 0.06]); // thigh
        piece(x(0.05, 0.18), [0.08, 0.5], [-0.06, 0.06]); // shin
        piece(x(0.05, 0.18), [0.0, 0.08], [-0.06, 0.2]); // foot
    }
    m
}
