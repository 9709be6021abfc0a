//! Unit tests of [`super::prepare`] on small hand-built meshes.

use super::*;
use crate::geom::V3;

/// Unit cube at `offset`, vertex index = `first` + x + 2y + 4z, triangles outward.
fn cube_at(offset: [f64; 3], first: u32) -> Mesh {
    let lo = P3::from(offset);
    let (positions, triangles) = crate::geom::box_mesh(lo, lo + V3::repeat(1.0));
    let triangles = triangles
        .into_iter()
        .map(|t| t.map(|i| i + first))
        .collect();
    Mesh {
        positions,
        triangles,
    }
}

fn cube() -> Mesh {
    cube_at([0.0; 3], 0)
}

fn append(a: &mut Mesh, b: Mesh) {
    a.positions.extend(b.positions);
    a.triangles.extend(b.triangles);
}

#[test]
fn closed_cube() {
    let p = prepare(cube()).unwrap();
    let r = &p.report;
    assert_eq!((r.input_vertices, r.input_triangles), (8, 12));
    assert_eq!((r.welded_vertices, r.unreferenced_vertices), (0, 0));
    assert_eq!((r.degenerate_triangles, r.duplicate_triangles), (0, 0));
    assert_eq!(
        (r.open_edges, r.non_manifold_edges, r.inconsistent_edges),
        (0, 0, 0)
    );
    assert_eq!((r.shells, r.inward_shells_flipped), (1, 0));
    assert!(r.watertight);
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    assert_eq!(p.shells.len(), 1);
    assert!(p.shells[0].closed);
    assert_eq!(p.shells[0].vertices, (0..8).collect::<Vec<u32>>());
    // Largest side 0.9 in the normalized frame: volume 0.9³.
    assert!((p.shells[0].volume - 0.729).abs() < 1e-12);
    assert_eq!(p.weld, (0..8).collect::<Vec<u32>>());
    let lo = p.positions.iter().fold(f64::INFINITY, |m, q| m.min(q.x));
    assert!((lo - 0.05).abs() < 1e-12);
}

#[test]
fn cube_with_one_flipped_face_is_reoriented() {
    let mut m = cube();
    for t in &mut m.triangles[0..2] {
        t.swap(1, 2);
    }
    let p = prepare(m).unwrap();
    let r = &p.report;
    // The flipped quad's four boundary edges disagree; its diagonal agrees.
    assert_eq!(r.inconsistent_edges, 4);
    assert_eq!((r.open_edges, r.non_manifold_edges), (0, 0));
    assert_eq!(r.inward_shells_flipped, 0);
    assert!(r.watertight, "orientation is repaired");
    assert_eq!(p.triangles[0], [0, 2, 3]);
    assert!((p.shells[0].volume - 0.729).abs() < 1e-12);
    assert!(r.notes.iter().any(|n| n.contains("re-oriented")));
}

#[test]
fn two_cubes_are_two_closed_shells() {
    let mut m = cube();
    append(&mut m, cube_at([3.0, 0.0, 0.0], 8));
    m.triangles.truncate(23); // the second cube loses one triangle: 3 open edges
    let p = prepare(m).unwrap();
    let r = &p.report;
    assert_eq!(r.shells, 2);
    assert_eq!(r.open_edges, 3);
    assert!(!r.watertight);
    assert_eq!(p.shells[0].triangles.len(), 12, "largest first");
    assert!(p.shells[0].closed);
    assert!(!p.shells[1].closed);
    assert!(r.notes.iter().any(|n| n.starts_with("2 shells")));
}

#[test]
fn open_box() {
    let mut m = cube();
    m.triangles.drain(2..4); // remove the +z face
    let p = prepare(m).unwrap();
    let r = &p.report;
    assert_eq!(r.open_edges, 4);
    assert_eq!(
        (r.non_manifold_edges, r.inconsistent_edges, r.shells),
        (0, 0, 1)
    );
    assert!(!r.watertight);
    assert!(!p.shells[0].closed);
    assert!(r.notes.iter().any(|n| n.contains("winding number")));
}

#[test]
fn non_manifold_fin() {
    let mut m = cube();
    // A fin on the cube edge 0–1 (y = 0, z = 0) sticking out along −y and −z.
    m.positions.push(P3::new(0.5, -1.0, -1.0));
    m.triangles.push([0, 1, 8]);
    let p = prepare(m).unwrap();
    let r = &p.report;
    assert_eq!(r.non_manifold_edges, 1);
    assert_eq!(r.open_edges, 2);
    assert_eq!(r.shells, 1);
    assert!(!r.watertight);
    assert!(!p.shells[0].closed);
}

#[test]
fn inside_out_tetrahedron_is_flipped() {
    let m = Mesh {
        positions: vec![
            P3::new(0.0, 0.0, 0.0),
            P3::new(1.0, 0.0, 0.0),
            P3::new(0.0, 1.0, 0.0),
            P3::new(0.0, 0.0, 1.0),
        ],
        // Inward-facing: each face's normal points to the interior.
        triangles: vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
    };
    let p = prepare(m).unwrap();
    let r = &p.report;
    assert_eq!(r.inward_shells_flipped, 1);
    assert!(r.watertight);
    assert!((p.shells[0].volume - 0.729 / 6.0).abs() < 1e-12);
}

#[test]
fn seams_duplicates_degenerates_and_unreferenced() {
    let mut m = cube();
    // Split vertex 7 at a seam: the +x face uses a copy.
    m.positions.push(P3::new(1.0, 1.0, 1.0 + 1e-13));
    for t in &mut m.triangles[10..12] {
        for i in t.iter_mut().filter(|i| **i == 7) {
            *i = 8;
        }
    }
    m.positions.push(P3::new(5.0, 5.0, 5.0)); // unreferenced, and outside the bbox
    m.triangles.push([0, 0, 1]); // repeated vertex
    m.triangles.push([0, 1, 1]);
    m.triangles.push([2, 3, 0]); // same vertex set as [0, 2, 3]
    let p = prepare(m).unwrap();
    let r = &p.report;
    assert_eq!(r.welded_vertices, 1);
    assert_eq!(p.weld[8], 7);
    assert_eq!(r.unreferenced_vertices, 1);
    assert_eq!(r.degenerate_triangles, 2);
    assert_eq!(r.duplicate_triangles, 1);
    assert!(r.watertight);
    assert_eq!(p.triangles.len(), 12);
    // Normalization ignores the unreferenced vertex.
    assert!((p.normalization.scale - 0.9).abs() < 1e-12);
}

#[test]
fn flat_quad_is_degenerate() {
    let m = Mesh {
        positions: vec![
            P3::new(0.0, 0.0, 0.0),
            P3::new(1.0, 0.0, 0.0),
            P3::new(1.0, 1.0, 0.0),
            P3::new(0.0, 1.0, 0.0),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    };
    assert!(matches!(prepare(m), Err(PrepareError::Degenerate(_))));
}

#[test]
fn zero_area_only_is_degenerate() {
    let mut m = cube();
    m.triangles = vec![[0, 1, 1], [0, 0, 0]];
    assert!(matches!(prepare(m), Err(PrepareError::Degenerate(_))));
}

#[test]
fn empty_and_non_finite_are_errors() {
    assert!(matches!(
        prepare(Mesh::default()),
        Err(PrepareError::Empty {
            vertices: 0,
            triangles: 0
        })
    ));
    let mut m = cube();
    m.positions[5].y = f64::NAN;
    assert!(matches!(prepare(m), Err(PrepareError::NonFinite(5))));
}

#[test]
fn out_of_range_indices_do_not_panic() {
    let mut m = cube();
    m.triangles.push([0, 1, 99]);
    let p = prepare(m).unwrap();
    assert_eq!(p.report.degenerate_triangles, 1);
    assert!(p.report.watertight);
}
