//! Checks from the method's description (Bharaj et al. 2012): segmentation, contacts at 0.5ε vs 2ε
//! and a sparse broad phase, the quadric identity, clustering invariants on a synthetic stick
//! figure, the dynamic program against brute force, and determinism.

use super::cluster::{self, Criteria, DegreeRule, Graph, Node};
use super::samples::{components, Component};
use super::*;
use crate::geom::{P3, V3};
use crate::mesh::{prepare, Mesh};
use crate::multipart::figure::box_robot;

/// A closed axis-aligned box `[lo, hi]` (12 triangles, outward).
fn push_box(m: &mut Mesh, lo: P3, hi: P3) {
    let b = m.positions.len() as u32;
    let (corners, triangles) = crate::geom::box_mesh(lo, hi);
    m.positions.extend(corners);
    m.triangles
        .extend(triangles.into_iter().map(|t| t.map(|i| b + i)));
}

fn parts_of(m: Mesh, eps: f64) -> (Vec<Component>, f64) {
    let p = prepare(m).expect("prepares");
    let s = 1.0 / (eps * eps);
    (components(&p, s, 32), p.normalization.scale)
}

#[test]
fn disjoint_boxes_are_separate_components_in_any_order() {
    let mut m = Mesh::default();
    for i in 0..5 {
        let x = f64::from(i) * 2.0;
        push_box(&mut m, P3::new(x, 0.0, 0.0), P3::new(x + 1.0, 1.0, 1.0));
    }
    let mut rev = m.clone();
    rev.triangles.reverse();
    assert_eq!(prepare(m).unwrap().shells.len(), 5);
    assert_eq!(prepare(rev).unwrap().shells.len(), 5);
}

#[test]
fn contact_at_half_eps_but_not_at_twice_eps() {
    for (gap_in_eps, expected) in [(0.5, 1), (2.0, 0)] {
        let mut m = Mesh::default();
        push_box(&mut m, P3::new(0.0, 0.0, 0.0), P3::new(1.0, 1.0, 1.0));
        // ε in mesh units: the normalization maps the largest side (≈ 2) to 0.9.
        let eps_mesh = 0.02;
        let gap = gap_in_eps * eps_mesh;
        push_box(
            &mut m,
            P3::new(1.0 + gap, 0.0, 0.0),
            P3::new(2.0 + gap, 1.0, 1.0),
        );
        let side = 2.0 + gap;
        let eps = eps_mesh * 0.9 / side;
        // Samples dense enough that the spacing is a fraction of ε.
        let (parts, _) = parts_of(m, eps / 3.0);
        let g = contacts::detect(&parts, eps);
        let real = g.contacts.iter().filter(|c| !c.forced).count();
        assert_eq!(real, expected, "gap {gap_in_eps} ε");
    }
}

#[test]
fn far_pairs_never_reach_the_narrow_phase() {
    let mut m = Mesh::default();
    let n = 40;
    for i in 0..n {
        let x = f64::from(i) * 1.5; // a row of separate boxes
        push_box(&mut m, P3::new(x, 0.0, 0.0), P3::new(x + 1.0, 1.0, 1.0));
    }
    let (parts, _) = parts_of(m, 0.01);
    let g = contacts::detect(&parts, 0.005);
    let all_pairs = n * (n - 1) / 2;
    assert!(
        g.narrow_pairs < n as usize,
        "{} narrow pairs",
        g.narrow_pairs
    );
    assert!(
        g.box_tests < all_pairs as usize / 10,
        "{} box tests",
        g.box_tests
    );
    // The row is disconnected: every box but one floats and is linked to a neighbour.
    assert_eq!(g.contacts.len(), n as usize - 1);
}

#[test]
fn quadric_is_the_squared_distance_to_the_line() {
    let (ni, nj) = (P3::new(0.3, -0.2, 0.5), P3::new(1.1, 0.4, -0.7));
    let q = cluster::line_quadric(&ni, &nj).unwrap();
    let a = (ni - nj).normalize();
    for k in 0..20 {
        let t = f64::from(k);
        let p = P3::new((t * 0.37).sin() * 2.0, (t * 0.71).cos(), t * 0.1 - 1.0);
        let d = (p - ni).cross(&a).norm_squared();
        let e = cluster::quadric_error(&q, &p);
        assert!((e - d).abs() <= 1e-9 * d.max(1.0), "{e} vs {d}");
    }
    let mid = P3::from((ni.coords + nj.coords) * 0.5);
    assert!(cluster::quadric_error(&q, &mid).abs() < 1e-12);
}

/// Stick figure: a torso of 10 interlocking blocks (a ring plus chords), and 5 limbs of 3 pieces.
fn stick_figure() -> Graph {
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    let node = |p: P3, i: usize| Node {
        centre: p,
        area: 1.0,
        members: vec![i],
        merged_q: None,
    };
    for k in 0..10 {
        let a = f64::from(k) / 10.0 * std::f64::consts::TAU;
        nodes.push(node(P3::new(0.1 * a.cos(), 0.1 * a.sin(), 0.0), k as usize));
        edges.push((k as usize, ((k + 1) % 10) as usize));
        edges.push((k as usize, ((k + 3) % 10) as usize));
    }
    let dirs = [
        V3::new(1.0, 0.3, 0.0),
        V3::new(-1.0, 0.3, 0.0),
        V3::new(0.3, -1.0, 0.0),
        V3::new(-0.3, -1.0, 0.0),
        V3::new(0.0, 1.0, 0.0),
    ];
    for (l, d) in dirs.iter().enumerate() {
        let mut prev = l * 2; // a torso block
        for s in 1..=3 {
            let i = nodes.len();
            nodes.push(node(P3::from(d * (0.1 + 0.2 * f64::from(s))), i));
            edges.push((prev, i));
            prev = i;
        }
    }
    Graph::new(nodes, edges)
}

fn is_tree(g: &Graph) -> bool {
    let v = g.alive.len();
    let e = g.edges().len();
    let comps = {
        let mut seen = std::collections::BTreeSet::new();
        let mut count = 0;
        for &s in &g.alive {
            if seen.insert(s) {
                count += 1;
                let mut stack = vec![s];
                while let Some(x) = stack.pop() {
                    for &y in &g.adj[x] {
                        if seen.insert(y) {
                            stack.push(y);
                        }
                    }
                }
            }
        }
        count
    };
    comps == 1 && e + 1 == v
}

#[test]
fn stick_figure_clustering_keeps_limbs_and_partitions_pieces() {
    let g = stick_figure();
    let crit = |degree| Criteria {
        degree,
        area_below: None,
        length_below: None,
    };
    let high = cluster::cluster(&g, &crit(DegreeRule::BothEndpoints));
    let low = cluster::cluster(
        &g,
        &Criteria {
            area_below: Some(1.5),
            length_below: Some(0.05),
            ..crit(DegreeRule::BothEndpoints)
        },
    );
    for c in [&high, &low] {
        assert!(is_tree(&c.graph));
        // Every piece in exactly one node.
        let mut seen = vec![0; g.nodes.len()];
        for &n in &c.graph.alive {
            for &m in &c.graph.nodes[n].members {
                seen[m] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }
    assert!(high.graph.alive.len() >= low.graph.alive.len());
    let adj: Vec<Vec<usize>> = g.adj.iter().map(|s| s.iter().copied().collect()).collect();
    let root = tree::root_component(&adj, &vec![1.0; g.nodes.len()]);
    assert!(root < 10, "root {root} is not a torso block");
    let t = tree::rooted(&high, root);
    assert!(t.branches().len() >= 5, "{} branches", t.branches().len());
    // The printed A.1 ("either endpoint") collapses the figure to a path.
    let literal = cluster::cluster(&g, &crit(DegreeRule::Literal));
    let lt = tree::rooted(&literal, root);
    assert!(lt.branches().len() <= 2, "{} branches", lt.branches().len());
}

#[test]
fn dynamic_program_equals_brute_force() {
    let mut u = crate::util::test_rng::lcg(12345);
    let mut rnd = || u() - 0.3;
    for s_len in 1..=5 {
        for t_len in s_len..=8 {
            let costs: Vec<Vec<f64>> = (0..s_len)
                .map(|_| (0..t_len).map(|_| rnd()).collect())
                .collect();
            let (q, t) = branch_match::monotone_match(s_len, t_len, &|s, t| costs[s][t]);
            assert!(t.windows(2).all(|w| w[0] < w[1]));
            let brute = best_brute(&costs, 0, 0);
            assert!((q - brute).abs() < 1e-12, "{q} vs {brute}");
        }
    }
}

fn best_brute(c: &[Vec<f64>], s: usize, from: usize) -> f64 {
    if s == c.len() {
        return 0.0;
    }
    (from..c[0].len())
        .filter(|t| c[0].len() - t >= c.len() - s)
        .map(|t| c[s][t] + best_brute(c, s + 1, t + 1))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn box_robot_maps_every_limb_and_is_deterministic() {
    let mesh = box_robot();
    let prepared = prepare(mesh).unwrap();
    let template = crate::skeleton::load_template("human").unwrap();
    let opts = MultipartOptions::default();
    let a = rig(&prepared, &template, &[], &opts).unwrap();
    let b = rig(&prepared, &template, &[], &opts).unwrap();
    assert_eq!(a.joints, b.joints);
    assert_eq!(a.shell_bone, b.shell_bone);
    assert!(a.report.unmapped_limbs.is_empty(), "{:?}", a.report);
    assert!(a.shell_bone.iter().all(Option::is_some));
}

/// The shell of the box robot whose centre is nearest `p` (mesh frame).
fn shell_near(prepared: &crate::mesh::PreparedMesh, p: P3) -> usize {
    let centre = |s: usize| {
        let tris = &prepared.shells[s].triangles;
        let sum = tris
            .iter()
            .flat_map(|&t| prepared.triangles[t as usize])
            .fold(V3::zeros(), |a, v| {
                a + prepared.positions[v as usize].coords
            });
        prepared
            .normalization
            .to_mesh(&P3::from(sum / (3 * tris.len()) as f64))
    };
    (0..prepared.shells.len())
        .min_by(|&a, &b| (centre(a) - p).norm().total_cmp(&(centre(b) - p).norm()))
        .unwrap()
}

#[test]
fn a_pin_on_the_other_arm_swaps_the_arms() {
    let prepared = prepare(box_robot()).unwrap();
    let template = crate::skeleton::load_template("human").unwrap();
    let opts = MultipartOptions::default();
    let left = template.find("LeftHand").unwrap();
    let free = rig(&prepared, &template, &[], &opts).unwrap();
    // The hand piece the unpinned mapping gave the left arm, and the one on the other side.
    // Joints are in the normalized frame; the robot is symmetric about x = 0 in the mesh frame.
    let side = prepared
        .normalization
        .to_mesh(&free.joints[left.0])
        .x
        .signum();
    let own = shell_near(&prepared, P3::new(side * 0.875, 1.4, 0.0));
    let other_hand = P3::new(-side * 0.875, 1.4, 0.0);
    let other = shell_near(&prepared, other_hand);
    assert_ne!(free.shell_bone[own], free.shell_bone[other], "precondition");
    let hint = crate::embed::hints::ResolvedHint {
        joint: left,
        position: prepared.normalization.to_normalized(&other_hand),
        radius: 0.05,
    };
    let pinned = rig(&prepared, &template, &[hint], &opts).unwrap();
    let limbs = &pinned.report.limbs;
    let name = |b: Option<usize>| b.map_or("", |b| template.joints[b].name.as_str());
    assert!(
        name(free.shell_bone[other]).starts_with("Right"),
        "precondition: {}",
        name(free.shell_bone[other])
    );
    // The limb follows the pin: the pinned piece is on the left arm's chain, the other hand not.
    assert!(
        name(pinned.shell_bone[other]).starts_with("Left"),
        "pinned hand bound to {}: {limbs:?}",
        name(pinned.shell_bone[other])
    );
    assert!(
        !name(pinned.shell_bone[own]).starts_with("Left"),
        "the free hand left the left arm, bound to {}: {limbs:?}",
        name(pinned.shell_bone[own])
    );
    assert!(
        limbs.iter().any(|l| l.limb == "LeftHand_End" && l.primary),
        "{limbs:?}"
    );
}

/// A walker robot of 16 boxes whose pieces differ in thickness (so clustering keeps thigh, shin
/// and foot apart), touching at the joints: Y up, facing +Z.
fn walker_robot() -> Mesh {
    let mut m = Mesh::default();
    let mut b = |lo: [f64; 3], hi: [f64; 3]| push_box(&mut m, P3::from(lo), P3::from(hi));
    b([-0.25, 0.95, -0.15], [0.25, 1.15, 0.15]); // pelvis
    b([-0.3, 1.13, -0.18], [0.3, 1.65, 0.18]); // torso
    b([-0.06, 1.63, -0.06], [0.06, 1.75, 0.06]); // neck
    b([-0.16, 1.73, -0.16], [0.16, 2.0, 0.16]); // head
    for s in [-1.0f64, 1.0] {
        let x = |a: f64, b: f64| ((s * a).min(s * b), (s * a).max(s * b));
        let mut piece =
            |(x0, x1): (f64, f64), y: [f64; 2], z: [f64; 2]| b([x0, y[0], z[0]], [x1, y[1], z[1]]);
        piece(x(0.29, 0.62), [1.50, 1.62], [-0.07, 0.07]); // upper arm
        piece(x(0.60, 0.92), [1.51, 1.61], [-0.06, 0.06]); // forearm
        piece(x(0.90, 1.05), [1.49, 1.63], [-0.05, 0.05]); // hand
        piece(x(0.04, 0.20), [0.52, 0.97], [-0.08, 0.08]); // thigh
        piece(x(0.05, 0.19), [0.08, 0.54], [-0.07, 0.07]); // shin
        piece(x(0.04, 0.20), [0.0, 0.1], [-0.08, 0.22]); // foot
    }
    m
}

/// Regression (a box walker rigged with its leg names one piece off): the joint a piece is bound
/// to sits where that piece meets its parent, and the names follow the template down the limb:
/// the thigh moves with the hip joint (`*UpLeg`, at the torso–thigh contact), the shin with the
/// knee (`*Leg`, at the thigh–shin contact), the upper arm with `*Arm`.
#[test]
fn leg_and_arm_pieces_move_with_the_joint_at_their_top() {
    let prepared = prepare(walker_robot()).unwrap();
    let template = crate::skeleton::load_template("human").unwrap();
    let fit = rig(&prepared, &template, &[], &MultipartOptions::default()).unwrap();
    let name =
        |s: usize| fit.shell_bone[s].map_or(String::new(), |b| template.joints[b].name.clone());
    let at = |j: &str| {
        let id = template.find(j).unwrap();
        prepared.normalization.to_mesh(&fit.joints[id.0])
    };
    for s in [-1.0f64, 1.0] {
        let thigh = name(shell_near(&prepared, P3::new(s * 0.12, 0.75, 0.0)));
        let shin = name(shell_near(&prepared, P3::new(s * 0.12, 0.31, 0.0)));
        let upper_arm = name(shell_near(&prepared, P3::new(s * 0.45, 1.56, 0.0)));
        assert!(thigh.ends_with("UpLeg"), "thigh moves with {thigh}");
        assert!(
            shin.ends_with("Leg") && !shin.ends_with("UpLeg"),
            "shin moves with {shin}"
        );
        assert!(
            upper_arm.ends_with("Arm") && !upper_arm.contains("Fore"),
            "{upper_arm}"
        );
        let side = &thigh[..thigh.len() - "UpLeg".len()];
        let (hip, knee) = (at(&format!("{side}UpLeg")), at(&format!("{side}Leg")));
        assert!(
            (hip.y - 0.9).abs() < 0.06,
            "{side}UpLeg at height {}",
            hip.y
        );
        assert!(
            (knee.y - 0.5).abs() < 0.06,
            "{side}Leg at height {}",
            knee.y
        );
    }
}
