use super::*;
use crate::mesh::{prepare, Mesh};

/// The boxes `[lo, hi]` as one prepared mesh (coincident corners weld).
fn boxes(bs: &[([f64; 3], [f64; 3])]) -> PreparedMesh {
    let mut m = Mesh::default();
    for (lo, hi) in bs {
        let b = m.positions.len() as u32;
        let (corners, triangles) = crate::geom::box_mesh(P3::from(*lo), P3::from(*hi));
        m.positions.extend(corners);
        m.triangles
            .extend(triangles.into_iter().map(|t| t.map(|i| b + i)));
    }
    prepare(m).expect("prepares")
}

/// A body box with an arm box welded to each side along a shared face, and a head box apart.
fn welded() -> PreparedMesh {
    boxes(&[
        ([-4.0, 12.0, -2.0], [4.0, 24.0, 2.0]),
        ([4.0, 12.0, -2.0], [8.0, 24.0, 2.0]),
        ([-8.0, 12.0, -2.0], [-4.0, 24.0, 2.0]),
        ([-4.0, 25.0, -4.0], [4.0, 33.0, 4.0]),
    ])
}

#[test]
fn welded_boxes_are_separate_pieces() {
    let mesh = welded();
    assert_eq!(mesh.shells.len(), 2, "body and arms weld into one shell");
    let ps = pieces(&mesh);
    assert_eq!(ps.len(), 4, "body, two arms and head");
    // The arm piece ends at the shared face: a point in the body is not inside it.
    let in_body = mesh.normalization.to_normalized(&P3::new(0.0, 18.0, 0.0));
    let in_arm = mesh.normalization.to_normalized(&P3::new(6.0, 18.0, 0.0));
    let holding = |p: &P3| ps.iter().filter(|q| q.entered_by(p, p)).count();
    assert_eq!(holding(&in_body), 1);
    assert_eq!(holding(&in_arm), 1);
}

#[test]
fn a_dented_shape_is_not_a_piece() {
    // An L of two boxes welded along part of a face is one non-convex closed region; its
    // patches are not convex either.
    let mesh = boxes(&[
        ([0.0, 0.0, 0.0], [4.0, 1.0, 1.0]),
        ([0.0, 1.0, 0.0], [1.0, 4.0, 1.0]),
    ]);
    let ps = pieces(&mesh);
    assert!(ps.len() <= 2, "{}", ps.len());
    // Whatever is found, nothing covers the notch of the L.
    let notch = mesh.normalization.to_normalized(&P3::new(3.0, 3.0, 0.5));
    assert!(ps.iter().all(|p| !p.entered_by(&notch, &notch)));
}

#[test]
fn a_box_without_a_bone_is_reported_when_an_equal_box_has_one() {
    let mesh = welded();
    let ps = pieces(&mesh);
    let n = |x: f64, y: f64, z: f64| mesh.normalization.to_normalized(&P3::new(x, y, z));
    let spine = (n(0.0, 12.5, 0.0), n(0.0, 29.0, 0.0));
    let left = (n(6.0, 23.0, 0.0), n(6.0, 13.0, 0.0));
    let right = (n(-6.0, 23.0, 0.0), n(-6.0, 13.0, 0.0));
    assert_eq!(
        unposed(&ps, &[spine, left, right]),
        None,
        "every box holds a bone"
    );
    let why = unposed(&ps, &[spine, left]).expect("the right arm box holds no bone");
    assert!(why.contains("1 of 4"), "{why}");
    // Only pieces larger than the boneless ones posed: nothing to compare the arms with
    // (the rule's limit: it never calls a piece a body part on size alone).
    assert_eq!(unposed(&ps, &[spine]), None);
    // A prop smaller than every posed piece (an eyeball) is not a body part.
    let small = boxes(&[
        ([0.0, 0.0, 0.0], [4.0, 8.0, 4.0]),
        ([5.0, 0.0, 0.0], [5.5, 0.5, 0.5]),
    ]);
    let ps = pieces(&small);
    let m = |x: f64, y: f64, z: f64| small.normalization.to_normalized(&P3::new(x, y, z));
    assert_eq!(unposed(&ps, &[(m(2.0, 1.0, 2.0), m(2.0, 7.0, 2.0))]), None);
}

/// An L-shaped prism (one closed, non-convex shell): 8 × 8 with arms 2 thick, 2 deep.
fn l_prism(m: &mut Mesh) {
    let outline = [
        (0.0, 0.0),
        (8.0, 0.0),
        (8.0, 2.0),
        (2.0, 2.0),
        (2.0, 8.0),
        (0.0, 8.0),
    ];
    let b = m.positions.len() as u32;
    for z in [0.0, 2.0] {
        m.positions
            .extend(outline.iter().map(|&(x, y)| P3::new(x, y, z)));
    }
    // A fan from the reflex corner (index 3) covers the L.
    for [i, j] in [[4, 5], [5, 0], [0, 1], [1, 2]] {
        m.triangles.push([b + 3, b + j, b + i]);
        m.triangles.push([b + 9, b + 6 + i, b + 6 + j]);
    }
    for i in 0..6u32 {
        let j = (i + 1) % 6;
        m.triangles.push([b + i, b + j, b + 6 + j]);
        m.triangles.push([b + i, b + 6 + j, b + 6 + i]);
    }
}

#[test]
fn convex_props_on_a_body_do_not_make_a_box_figure() {
    // A non-convex body with two equal eyeball boxes: the pieces hold far less than half the
    // surface.
    let mut m = Mesh::default();
    l_prism(&mut m);
    for x in [3.0, 4.0] {
        let b = m.positions.len() as u32;
        let (c, t) = crate::geom::box_mesh(P3::new(x, 3.0, 0.0), P3::new(x + 0.5, 3.5, 0.5));
        m.positions.extend(c);
        m.triangles.extend(t.into_iter().map(|t| t.map(|i| b + i)));
    }
    let mesh = prepare(m).expect("prepares");
    assert_eq!(mesh.shells.len(), 3);
    assert_eq!(pieces(&mesh).len(), 2, "the eyes are pieces, the L is not");
    assert!(box_figure(&mesh).is_empty());
    assert_eq!(box_figure(&welded()).len(), 4);
}
