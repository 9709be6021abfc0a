//! Issue 12 §2 on synthetic shapes with exact signed distances: a separate shell that one bone
//! carries (a plate strapped to the upper arm) follows that bone rigidly, a sleeve over the elbow
//! keeps deforming; influences are pruned to the configured count with partition of unity; the
//! exact visibility field does not let a vertex see through the gap to a neighbouring capsule.

mod skin_common;

use geppetto::discretize::{field, DiscretizeOptions};
use geppetto::geom::{P3, V3};
use geppetto::mesh::Mesh;
use geppetto::skin::visibility::VisibilityField;
use geppetto::skin::{heat, skin_with_sdf, ShellBinding, SkinOptions};
use skin_common::{assert_valid, capsule, capsule_sdf, chain, prepare};

/// All shells of `parts` in one mesh, in order.
fn union(parts: &[Mesh]) -> Mesh {
    let mut m = Mesh::default();
    for p in parts {
        let base = m.positions.len() as u32;
        m.positions.extend(&p.positions);
        m.triangles
            .extend(p.triangles.iter().map(|t| t.map(|v| v + base)));
    }
    m
}

fn dominant(row: &[(u32, f64)]) -> u32 {
    row.iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(u32::MAX, |e| e.0)
}

/// An arm (capsule along y, joints at y = 0.2, 1.2, 2.2, end at 3.2), a plate overlapping its
/// first bone's middle, and a sleeve around the joint at y = 1.2.
#[test]
fn a_plate_follows_one_bone_and_a_sleeve_over_the_elbow_deforms() {
    let (len, r) = (3.4, 0.3);
    let arm = capsule(len, r, 16, V3::zeros());
    let plate_at = V3::new(r + 0.06, 0.5, 0.0);
    let plate = capsule(0.3, 0.1, 10, plate_at);
    let sleeve_at = V3::new(0.0, 0.75, 0.0);
    let sleeve = capsule(0.9, r + 0.08, 16, sleeve_at);
    let (na, np) = (arm.positions.len(), plate.positions.len());
    let mesh = prepare(union(&[arm, plate, sleeve]), None);
    let sdf_mesh = move |p: &P3| {
        capsule_sdf(p, len, r, V3::zeros())
            .min(capsule_sdf(p, 0.3, 0.1, plate_at))
            .min(capsule_sdf(p, 0.9, r + 0.08, sleeve_at))
    };
    let n = mesh.normalization;
    let sdf = move |p: &P3| sdf_mesh(&n.to_mesh(p)) * n.scale;
    let joints = chain(1.0);
    let skin = skin_with_sdf(&mesh, &sdf, &joints, &SkinOptions::default()).expect("skin");
    assert_valid(&skin, mesh.input.positions.len(), joints.len());
    assert_eq!(skin.shells.len(), 3, "{:?}", skin.shells);
    // The plate: one joint carries it, every vertex follows it alone.
    match &skin.shells[1] {
        ShellBinding::Part { joint, share, .. } => {
            assert_eq!(joint, "hips");
            assert!(*share >= 0.9, "{share}");
        }
        other => panic!("plate not bound as a rigid part: {other:?}"),
    }
    let plate_rows = &skin.weights[na..na + np];
    assert!(plate_rows.iter().all(|w| w.len() == 1 && w[0] == (0, 1.0)));
    // The sleeve spans the joint at y = 1.2: still diffused, its two ends follow different bones.
    assert!(
        matches!(skin.shells[2], ShellBinding::Heat { .. }),
        "{:?}",
        skin.shells[2]
    );
    let sleeve_rows: Vec<(f64, u32)> = mesh.input.positions[na + np..]
        .iter()
        .zip(&skin.weights[na + np..])
        .map(|(p, w)| (p.y, dominant(w)))
        .collect();
    assert!(sleeve_rows.iter().any(|&(y, j)| y < 0.9 && j == 0));
    assert!(sleeve_rows.iter().any(|&(y, j)| y > 1.5 && j == 1));
    // Switching the rule off gives the plate a diffused blend again.
    let opts = SkinOptions {
        rigid_share: 2.0,
        ..SkinOptions::default()
    };
    let plain = skin_with_sdf(&mesh, &sdf, &joints, &opts).expect("skin");
    assert!(matches!(plain.shells[1], ShellBinding::Heat { .. }));
}

#[test]
fn influences_are_pruned_to_the_configured_count_with_partition_of_unity() {
    let (len, r) = (3.4, 0.3);
    let mesh = prepare(capsule(len, r, 16, V3::zeros()), None);
    let n = mesh.normalization;
    let sdf = move |p: &P3| capsule_sdf(&n.to_mesh(p), len, r, V3::zeros()) * n.scale;
    // Five bones along the capsule so that heat reaches vertices from more than two joints.
    let joints: Vec<geppetto::rig::RigJoint> = (0..7usize)
        .map(|i| geppetto::rig::RigJoint {
            name: format!("j{i}"),
            parent: i.checked_sub(1),
            position: [0.0, 0.1 + 0.5 * i as f64, 0.0],
            end: i == 6,
        })
        .collect();
    for max in [1, 2, 4] {
        let opts = SkinOptions {
            max_influences: max,
            relative_prune: 0.0,
            ..SkinOptions::default()
        };
        let skin = skin_with_sdf(&mesh, &sdf, &joints, &opts).expect("skin");
        assert_valid(&skin, mesh.input.positions.len(), joints.len());
        let most = skin.weights.iter().map(Vec::len).max().unwrap_or(0);
        assert!(most <= max, "max_influences {max}: a row has {most}");
        if max > 1 {
            assert!(most > 1, "pruning must not make the skin rigid");
        }
    }
    // Unpruned, some rows do carry more than four joints: the limit is doing work.
    let wide = SkinOptions {
        max_influences: usize::MAX,
        relative_prune: 0.0,
        ..SkinOptions::default()
    };
    let skin = skin_with_sdf(&mesh, &sdf, &joints, &wide).expect("skin");
    assert!(skin.weights.iter().any(|w| w.len() > 4));
}

/// Two parallel capsules ("fingers") a small gap apart: from the inner side of the first, the
/// second's axis lies across the gap, outside the surface. The exact visibility field blocks it
/// while the finger's own axis stays visible.
#[test]
fn exact_visibility_does_not_see_across_a_gap() {
    let (len, r, gap) = (2.0, 0.3, 0.034);
    let b_at = V3::new(2.0 * r + gap, 0.0, 0.0);
    let mut m = union(&[capsule(len, r, 24, V3::zeros()), capsule(len, r, 24, b_at)]);
    m.positions.iter_mut().for_each(|p| p.y += 0.3);
    let prepared = geppetto::mesh::prepare(m).expect("prepare");
    let f = field::build(&prepared, &DiscretizeOptions::default());
    let vis = VisibilityField::new(&prepared, &f, true);
    let sdf = |p: &P3| vis.eval(p);
    let n = prepared.normalization;
    let at = |x: f64, y: f64| n.to_normalized(&P3::new(x, y + 0.3, 0.0));
    // Inner-side vertex of finger A (facing B) at mid height.
    let from = at(r, 1.0);
    assert!(heat::visible(&from, &at(0.0, 1.0), &sdf), "own axis");
    assert!(
        !heat::visible(&from, &at(b_at.x, 1.0), &sdf),
        "the neighbour's axis is across the gap"
    );
    let plain = VisibilityField::new(&prepared, &f, false);
    println!(
        "interpolated field sees the neighbour: {}",
        heat::visible(&from, &at(b_at.x, 1.0), &|p: &P3| plain.eval(p))
    );
    // Exact values in the gap's middle: outside by half the gap (normalized units).
    let mid = at(r + gap / 2.0, 1.0);
    let expect = gap / 2.0 * n.scale;
    assert!((vis.eval(&mid) - expect).abs() < 1e-3, "{}", vis.eval(&mid));
}

/// A closed box `lo`–`hi` (8 vertices, 12 outward triangles).
fn box_mesh(lo: V3, hi: V3) -> Mesh {
    let mut m = Mesh::default();
    for k in 0..8 {
        let pick = |bit: usize, a: f64, b: f64| if k & bit == 0 { a } else { b };
        m.positions.push(P3::new(
            pick(1, lo.x, hi.x),
            pick(2, lo.y, hi.y),
            pick(4, lo.z, hi.z),
        ));
    }
    m.triangles = skin_common::common::BOX_TRIANGLES.to_vec();
    m
}

fn box_sdf(p: &P3, lo: V3, hi: V3) -> f64 {
    let c = (lo + hi) / 2.0;
    let h = (hi - lo) / 2.0;
    let q = (p.coords - c).abs() - h;
    q.map(|x| x.max(0.0)).norm() + q.max().min(0.0)
}

/// A prop (a slab held against a thick left leg, seeing no bone through its small gap) follows
/// the leg it touches, although its far end is nearer to the thin right leg's bone; a prop
/// floating in open space keeps its nearest bone.
#[test]
fn a_prop_follows_the_body_part_it_touches() {
    let (left_x, left_r, right_x, right_r, len) = (-0.6, 0.4, 0.5, 0.1, 3.0);
    let left = capsule(len, left_r, 16, V3::new(left_x, 0.0, 0.0));
    let right = capsule(len, right_r, 12, V3::new(right_x, 0.0, 0.0));
    // Gap 0.05 to the left leg's surface (x = −0.2): outside the visibility tolerance, within
    // the contact gap; the right end (x = 0.25) is 0.25 from the right bone, 0.15 from its skin.
    let (plo, phi) = (V3::new(-0.15, 1.4, -0.1), V3::new(0.25, 1.6, 0.1));
    let prop = box_mesh(plo, phi);
    // A second prop far from both legs, nearest to the right bone.
    let (flo, fhi) = (V3::new(1.2, 1.4, -0.1), V3::new(1.4, 1.6, 0.1));
    let floating = box_mesh(flo, fhi);
    let (nl, nr, np) = (
        left.positions.len(),
        right.positions.len(),
        prop.positions.len(),
    );
    let mesh = prepare(union(&[left, right, prop, floating]), None);
    let sdf_mesh = move |p: &P3| {
        capsule_sdf(p, len, left_r, V3::new(left_x, 0.0, 0.0))
            .min(capsule_sdf(p, len, right_r, V3::new(right_x, 0.0, 0.0)))
            .min(box_sdf(p, plo, phi))
            .min(box_sdf(p, flo, fhi))
    };
    let n = mesh.normalization;
    let sdf = move |p: &P3| sdf_mesh(&n.to_mesh(p)) * n.scale;
    let joint = |name: &str, parent, x: f64, y: f64, end| geppetto::rig::RigJoint {
        name: name.into(),
        parent,
        position: [x, y, 0.0],
        end,
    };
    // The left leg bends at a knee (so it stays heat-diffused: a deforming body part).
    let joints = vec![
        joint("left", None, left_x, 0.0, false),
        joint("left_knee", Some(0), left_x, 2.0, false),
        joint("left_end", Some(1), left_x, len, true),
        joint("right", None, right_x, 0.0, false),
        joint("right_end", Some(3), right_x, len, true),
    ];
    let skin = skin_with_sdf(&mesh, &sdf, &joints, &SkinOptions::default()).expect("skin");
    assert_valid(&skin, mesh.input.positions.len(), joints.len());
    match &skin.shells[2] {
        ShellBinding::Prop { joint, gap, .. } => {
            assert_eq!(joint, "left");
            assert!(
                *gap > 0.004 && *gap <= geppetto::skin::props::CONTACT_GAP,
                "{gap}"
            );
        }
        other => panic!("the held prop is not bound to the leg it touches: {other:?}"),
    }
    let prop_rows = &skin.weights[nl + nr..nl + nr + np];
    assert!(
        prop_rows.iter().all(|w| w == &vec![(0, 1.0)]),
        "{prop_rows:?}"
    );
    match &skin.shells[3] {
        ShellBinding::Rigid { joint, .. } => assert_eq!(joint, "right"),
        other => panic!("the floating prop should keep its nearest bone: {other:?}"),
    }
    let floating_rows = &skin.weights[nl + nr + np..];
    assert!(floating_rows.iter().all(|w| w == &vec![(3, 1.0)]));
}

/// A hint re-run takes the heat system (matrix + AMD ordering) from the mesh's cache instead of
/// building it: the weights must be the ones a fresh build gives, bit for bit, on a mesh whose
/// shells are diffused (arm, sleeve) and bound rigidly (plate) — and a cold cache is filled.
#[test]
fn a_kept_heat_system_gives_the_same_weights_bit_for_bit() {
    use geppetto::skin::{skin_with_sdf_cached, SystemCache};
    let (len, r) = (3.4, 0.3);
    let arm = capsule(len, r, 16, V3::zeros());
    let plate_at = V3::new(r + 0.06, 0.5, 0.0);
    let plate = capsule(0.3, 0.1, 10, plate_at);
    let mesh = prepare(union(&[arm, plate]), None);
    let n = mesh.normalization;
    let sdf = move |p: &P3| {
        let q = n.to_mesh(p);
        capsule_sdf(&q, len, r, V3::zeros()).min(capsule_sdf(&q, 0.3, 0.1, plate_at)) * n.scale
    };
    let joints = chain(1.0);
    let opts = SkinOptions::default();
    let bits = |s: &geppetto::skin::Skin| -> Vec<Vec<(u32, u64)>> {
        s.weights
            .iter()
            .map(|row| row.iter().map(|&(j, w)| (j, w.to_bits())).collect())
            .collect()
    };
    let fresh = skin_with_sdf(&mesh, &sdf, &joints, &opts).expect("skin");
    let cache = SystemCache::default();
    assert!(!cache.holds());
    let first = skin_with_sdf_cached(&mesh, &sdf, &joints, &opts, Some(&cache)).expect("skin");
    assert!(cache.holds(), "a cold cache keeps the system it built");
    let again = skin_with_sdf_cached(&mesh, &sdf, &joints, &opts, Some(&cache)).expect("skin");
    assert_eq!(again.stats.symbolic_ms, 0.0, "the kept ordering was reused");
    assert_eq!(bits(&fresh), bits(&first));
    assert_eq!(bits(&fresh), bits(&again));
    // Another skeleton on the same mesh (a hint moved a joint): still the fresh weights.
    let moved = chain(1.1);
    let fresh = skin_with_sdf(&mesh, &sdf, &moved, &opts).expect("skin");
    let kept = skin_with_sdf_cached(&mesh, &sdf, &moved, &opts, Some(&cache)).expect("skin");
    assert_eq!(bits(&fresh), bits(&kept));
}

/// On a character built from parts every heat-diffused shell follows one joint (`many_parts`,
/// `rigid_share` 0: the mode `pipeline::attach::skin_options` sets for the multi-component
/// method's meshes),
/// except a modelled body part the skeleton bends inside: a waisted (not convex) arm with the
/// `spine` joint inside keeps its blend, its two ends following different joints, while a convex
/// capsule over the same joints stays one rigid piece (a box figure's limb).
#[test]
fn many_parts_mode_keeps_a_bent_body_part_diffused() {
    let (len, r) = (3.4, 0.3);
    let waist = |y: f64| 1.0 - 0.3 * (-((y - 1.2) / 0.4).powi(2)).exp();
    let mut arm = capsule(len, r, 16, V3::zeros());
    for p in &mut arm.positions {
        let f = waist(p.y);
        p.x *= f;
        p.z *= f;
    }
    let opts = SkinOptions {
        rigid_share: 0.0,
        many_parts: true,
        ..SkinOptions::default()
    };
    let joints = chain(1.0);
    let skin_of = |m: Mesh| {
        let prepared = geppetto::mesh::prepare(m).expect("prepare");
        let n = prepared.normalization;
        let sdf = move |p: &P3| capsule_sdf(&n.to_mesh(p), len, r, V3::zeros()) * n.scale;
        let skin = skin_with_sdf(&prepared, &sdf, &joints, &opts).expect("skin");
        assert_valid(&skin, prepared.input.positions.len(), joints.len());
        (prepared, skin)
    };
    let (prepared, skin) = skin_of(arm);
    assert!(
        matches!(skin.shells[..], [ShellBinding::Heat { .. }]),
        "{:?}",
        skin.shells
    );
    let ends: Vec<(f64, u32)> = prepared
        .input
        .positions
        .iter()
        .zip(&skin.weights)
        .map(|(p, w)| (p.y, dominant(w)))
        .collect();
    assert!(ends.iter().any(|&(y, j)| y < 0.6 && j == 0));
    assert!(ends.iter().any(|&(y, j)| y > 1.6 && j == 1));
    let (_, rigid) = skin_of(capsule(len, r, 16, V3::zeros()));
    assert!(
        matches!(rigid.shells[..], [ShellBinding::Part { .. }]),
        "{:?}",
        rigid.shells
    );
}
