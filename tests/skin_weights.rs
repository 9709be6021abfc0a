//! Heat-diffusion weights on synthetic meshes with exact signed distances: invariants, bone
//! dominance, orientation independence, multi-shell robustness, scale invariance.

mod skin_common;

use geppetto::geom::{P3, V3};
use geppetto::rig::RigJoint;
use geppetto::skin::ShellBinding;
use skin_common::{assert_valid, capsule, capsule_sdf, chain, prepare, run};

fn dominant(row: &[(u32, f64)]) -> u32 {
    row.iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(u32::MAX, |e| e.0)
}

#[test]
fn capsule_chain_each_bone_dominates_its_middle() {
    let (len, r) = (3.4, 0.3);
    let mesh = prepare(capsule(len, r, 16, V3::zeros()), None);
    let joints = chain(1.0);
    let skin = run(&mesh, |p| capsule_sdf(p, len, r, V3::zeros()), &joints);
    assert_valid(&skin, mesh.input.positions.len(), joints.len());
    assert!(matches!(
        skin.shells.as_slice(),
        [ShellBinding::Heat { .. }]
    ));
    assert!(skin.warnings.is_empty(), "{:?}", skin.warnings);
    let mut checked = [0usize; 3];
    for (p, row) in mesh.input.positions.iter().zip(&skin.weights) {
        // Middle halves of the three bones: y in [0.45, 0.95] → hips, etc.
        for (b, lo) in [0.2f64, 1.2, 2.2].iter().enumerate() {
            if p.y > lo + 0.25 && p.y < lo + 0.75 {
                assert_eq!(dominant(row), b as u32, "vertex at y = {}", p.y);
                checked[b] += 1;
            }
        }
    }
    assert!(checked.iter().all(|&c| c > 0));
    // The end marker owns nothing.
    assert!(skin.weights.iter().flatten().all(|e| e.0 != 3));
}

#[test]
fn flipped_faces_give_the_same_weights() {
    let (len, r) = (3.4, 0.3);
    let m = capsule(len, r, 12, V3::zeros());
    let mut flipped = m.clone();
    for t in &mut flipped.triangles {
        t.swap(1, 2);
    }
    let joints = chain(1.0);
    let sdf = |p: &P3| capsule_sdf(p, len, r, V3::zeros());
    let a = run(&prepare(m, None), sdf, &joints);
    let b = run(&prepare(flipped, None), sdf, &joints);
    for (ra, rb) in a.weights.iter().zip(&b.weights) {
        assert_eq!(ra.len(), rb.len());
        for (x, y) in ra.iter().zip(rb) {
            assert_eq!(x.0, y.0);
            assert!((x.1 - y.1).abs() < 1e-9);
        }
    }
}

#[test]
fn tiny_and_huge_scales_give_the_same_weights() {
    let (len, r) = (3.4, 0.3);
    let joints = chain(1.0);
    let base = run(
        &prepare(capsule(len, r, 12, V3::zeros()), None),
        |p| capsule_sdf(p, len, r, V3::zeros()),
        &joints,
    );
    for s in [1e-6, 1e6] {
        let mut m = capsule(len, r, 12, V3::zeros());
        m.positions.iter_mut().for_each(|p| *p *= s);
        let skin = run(
            &prepare(m, None),
            move |p| capsule_sdf(&(p / s), len, r, V3::zeros()) * s,
            &chain(s),
        );
        for (ra, rb) in base.weights.iter().zip(&skin.weights) {
            assert_eq!(dominant(ra), dominant(rb));
            assert!((ra[0].1 - rb[0].1).abs() < 1e-6);
        }
    }
}

#[test]
fn stray_island_duplicates_and_loose_vertices_are_all_weighted() {
    let (len, r) = (3.4, 0.3);
    let body = capsule(len, r, 12, V3::zeros());
    let far = V3::new(3.0, 1.0, 0.0);
    let island = capsule(0.2, 0.1, 6, far); // a prop floating outside
    let eye_at = V3::new(0.0, 2.9, 0.1);
    let eye = capsule(0.0, 0.08, 6, eye_at); // inside the body
    let mut input = body.clone();
    for part in [&island, &eye] {
        let base = input.positions.len() as u32;
        input.positions.extend(&part.positions);
        input
            .triangles
            .extend(part.triangles.iter().map(|t| t.map(|v| v + base)));
    }
    let welded_count = input.positions.len();
    // One duplicate of vertex 5 (welded onto it) and one unreferenced vertex.
    input.positions.push(input.positions[5]);
    input.positions.push(P3::new(0.0, 5.0, 0.0));
    let mut weld: Vec<u32> = (0..welded_count as u32).collect();
    weld.push(5);
    weld.push(welded_count as u32);
    let mut welded_pos = input.positions[..welded_count].to_vec();
    welded_pos.push(P3::new(0.0, 5.0, 0.0));
    let tris = input.triangles.clone();
    let mesh = prepare(input, Some((welded_pos, weld, tris)));
    let sdf = move |p: &P3| {
        capsule_sdf(p, len, r, V3::zeros())
            .min(capsule_sdf(p, 0.2, 0.1, far))
            .min(capsule_sdf(p, 0.0, 0.08, eye_at))
    };
    let joints = chain(1.0);
    let skin = run(&mesh, sdf, &joints);
    assert_valid(&skin, mesh.input.positions.len(), joints.len());
    assert_eq!(skin.shells.len(), 3);
    let rigid: Vec<&ShellBinding> = skin
        .shells
        .iter()
        .filter(|s| matches!(s, ShellBinding::Rigid { .. }))
        .collect();
    assert_eq!(rigid.len(), 1, "{:?}", skin.shells);
    assert!(skin.warnings.iter().any(|w| w.contains("rigidly")));
    assert!(skin.warnings.iter().any(|w| w.contains("no triangle")));
    let n = mesh.input.positions.len();
    assert_eq!(skin.weights[n - 2], skin.weights[5]);
    // The island follows one joint rigidly.
    let start = body.positions.len();
    let first = &skin.weights[start];
    assert_eq!(first.len(), 1);
    for row in &skin.weights[start..start + island.positions.len()] {
        assert_eq!(row, first);
    }
    // The eye diffuses and follows the chest.
    let eye_start = start + island.positions.len();
    for row in &skin.weights[eye_start..eye_start + eye.positions.len()] {
        assert_eq!(dominant(row), 2);
    }
}

#[test]
fn leaf_joint_owns_the_mesh_beyond_it() {
    // No end marker: the chest is a leaf, so a virtual segment continues to the cap.
    let (len, r) = (3.4, 0.3);
    let mesh = prepare(capsule(len, r, 12, V3::zeros()), None);
    let joints: Vec<RigJoint> = chain(1.0).into_iter().take(3).collect();
    let skin = run(&mesh, |p| capsule_sdf(p, len, r, V3::zeros()), &joints);
    assert_valid(&skin, mesh.input.positions.len(), joints.len());
    for (p, row) in mesh.input.positions.iter().zip(&skin.weights) {
        if p.y > 2.7 {
            assert_eq!(dominant(row), 2, "vertex at y = {}", p.y);
        }
    }
}

#[test]
fn root_outside_and_several_roots() {
    let (len, r) = (3.4, 0.3);
    let mesh = prepare(capsule(len, r, 12, V3::zeros()), None);
    let mut joints = chain(1.0);
    joints.insert(
        0,
        RigJoint {
            name: "ground".into(),
            parent: None,
            position: [0.0, -2.0, 0.0],
            end: false,
        },
    );
    for j in joints.iter_mut().skip(1) {
        j.parent = j.parent.map(|p| p + 1);
    }
    joints.push(RigJoint {
        name: "prop".into(),
        parent: None,
        position: [5.0, 5.0, 5.0],
        end: false,
    });
    let skin = run(&mesh, |p| capsule_sdf(p, len, r, V3::zeros()), &joints);
    assert_valid(&skin, mesh.input.positions.len(), joints.len());
    for (p, row) in mesh.input.positions.iter().zip(&skin.weights) {
        if p.y > 1.45 && p.y < 1.95 {
            assert_eq!(dominant(row), 2);
        }
    }
}

#[test]
fn short_bone_nobody_is_nearest_to_still_gets_vertices() {
    // The spine bone (1.75 → 1.76) lies between two vertex rings and is never the nearest bone
    // of any vertex; its joint must still own vertices (else rotating it moves nothing).
    let (len, r) = (3.4, 0.3);
    let mesh = prepare(capsule(len, r, 12, V3::zeros()), None);
    let mut joints = chain(1.0);
    joints[1].position[1] = 1.75;
    joints[2].position[1] = 1.76;
    let skin = run(&mesh, |p| capsule_sdf(p, len, r, V3::zeros()), &joints);
    assert_valid(&skin, mesh.input.positions.len(), joints.len());
    for j in 0..3u32 {
        assert!(
            skin.weights.iter().flatten().any(|e| e.0 == j),
            "joint {j} owns no vertex; warnings {:?}",
            skin.warnings
        );
    }
}
