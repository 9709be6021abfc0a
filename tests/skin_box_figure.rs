//! Figures built from boxes, one per body part (Minetest-style game characters; issue 12 §2): the
//! artist binds each box to one bone, and the box is convex with no bending joint inside, so
//! the skin binds it rigidly (`skin::parts::convex_unbent`) instead of blending it across the
//! bones near it. A box with an elbow inside still bends.

use geppetto::geom::P3;
use geppetto::mesh::{prepare, Mesh};
use geppetto::rig::RigJoint;
use geppetto::skin::{skin_with_sdf, ShellBinding, SkinOptions};

/// Axis-aligned box `[lo, hi]`.
type Box3 = ([f64; 3], [f64; 3]);

/// Torso, head, two arms, two legs, a small gap between each.
const BOXES: [(&str, Box3); 6] = [
    ("leg_l", ([-0.45, 0.0, -0.2], [-0.05, 1.0, 0.2])),
    ("leg_r", ([0.05, 0.0, -0.2], [0.45, 1.0, 0.2])),
    ("torso", ([-0.5, 1.02, -0.25], [0.5, 2.0, 0.25])),
    ("arm_l", ([-0.82, 1.1, -0.15], [-0.52, 2.0, 0.15])),
    ("arm_r", ([0.52, 1.1, -0.15], [0.82, 2.0, 0.15])),
    ("head", ([-0.3, 2.02, -0.3], [0.3, 2.6, 0.3])),
];

/// The eight corners and twelve outward triangles of each box, appended to one mesh.
fn figure() -> Mesh {
    let mut m = Mesh::default();
    for (_, (lo, hi)) in BOXES {
        geppetto::raster::figure::push_box(&mut m, lo, hi);
    }
    m
}

/// Exact signed distance of the union of the boxes (mesh frame).
fn sdf(p: &P3) -> f64 {
    BOXES
        .iter()
        .map(|(_, (lo, hi))| {
            let c = [0, 1, 2].map(|a| 0.5 * (lo[a] + hi[a]));
            let h = [0, 1, 2].map(|a| 0.5 * (hi[a] - lo[a]));
            let q = [0, 1, 2].map(|a| (p[a] - c[a]).abs() - h[a]);
            let out = q
                .iter()
                .map(|v| v.max(0.0) * v.max(0.0))
                .sum::<f64>()
                .sqrt();
            out + q[0].max(q[1]).max(q[2]).min(0.0)
        })
        .fold(f64::INFINITY, f64::min)
}

fn joint(name: &str, parent: Option<usize>, at: [f64; 3]) -> RigJoint {
    RigJoint {
        name: name.into(),
        parent,
        position: at,
        end: false,
    }
}

/// A sparse game skeleton: a root low in the torso and one leaf per limb at the limb's root
/// (the Minetest convention: no knees, elbows or end joints).
fn sparse() -> Vec<RigJoint> {
    vec![
        joint("root", None, [0.0, 1.1, 0.0]),
        joint("leg_l", Some(0), [-0.25, 0.95, 0.0]),
        joint("leg_r", Some(0), [0.25, 0.95, 0.0]),
        joint("arm_l", Some(0), [-0.67, 1.9, 0.0]),
        joint("arm_r", Some(0), [0.67, 1.9, 0.0]),
        joint("head", Some(0), [0.0, 2.1, 0.0]),
    ]
}

/// One box's skin rows (its eight input vertices).
type Rows = Vec<Vec<(u32, f64)>>;

/// The skin's binding and the joints of each box's input vertices.
fn bindings(joints: &[RigJoint]) -> Vec<(ShellBinding, Rows)> {
    let mesh = prepare(figure()).expect("prepare");
    assert_eq!(mesh.shells.len(), BOXES.len());
    let n = mesh.normalization;
    let f = move |p: &P3| sdf(&n.to_mesh(p)) * n.scale;
    let skin = skin_with_sdf(&mesh, &f, joints, &SkinOptions::default()).expect("skin");
    (0..BOXES.len())
        .map(|b| {
            let rows = skin.weights[8 * b..8 * b + 8].to_vec();
            let shell = mesh.weld[8 * b] as usize;
            let s = mesh
                .shells
                .iter()
                .position(|s| s.vertices.contains(&(shell as u32)))
                .expect("shell");
            let binding = skin
                .shells
                .iter()
                .find(|x| {
                    matches!(x, ShellBinding::Heat { shell, .. } | ShellBinding::Part { shell, .. }
                        | ShellBinding::Rigid { shell, .. } | ShellBinding::Prop { shell, .. } if *shell == s)
                })
                .expect("binding")
                .clone();
            (binding, rows)
        })
        .collect()
}

#[test]
fn every_box_follows_one_joint() {
    let joints = sparse();
    for ((name, _), (binding, rows)) in BOXES.iter().zip(bindings(&joints)) {
        assert!(
            matches!(binding, ShellBinding::Part { .. }),
            "{name}: {binding:?}"
        );
        // Each box follows the joint inside it (the torso: the root).
        let own = if *name == "torso" { "root" } else { name };
        let j = joints.iter().position(|j| j.name == own).expect("joint") as u32;
        assert!(
            rows.iter().all(|r| r.len() == 1 && r[0] == (j, 1.0)),
            "{name}: {rows:?}"
        );
    }
}

#[test]
fn a_box_with_an_elbow_inside_still_bends() {
    let mut joints = sparse();
    // The left arm gets an elbow and a hand inside its box: a bending joint.
    joints.push(joint("elbow_l", Some(3), [-0.67, 1.5, 0.0]));
    joints.push(joint("hand_l", Some(6), [-0.67, 1.15, 0.0]));
    let all = bindings(&joints);
    let (binding, rows) = &all[3];
    assert!(matches!(binding, ShellBinding::Heat { .. }), "{binding:?}");
    let joints_used: std::collections::BTreeSet<u32> = rows.iter().flatten().map(|e| e.0).collect();
    assert!(joints_used.len() > 1, "{rows:?}");
    // The other boxes are still rigid parts.
    for (b, (binding, _)) in all.iter().enumerate().filter(|(b, _)| *b != 3) {
        assert!(
            matches!(binding, ShellBinding::Part { .. }),
            "box {b}: {binding:?}"
        );
    }
}
