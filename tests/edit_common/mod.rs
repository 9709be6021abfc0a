//! The fixture of the rig-editing tests: a long tube with a chain of joints and an exact signed
//! distance, and helpers (interactive-rigging facts §10).
#![allow(dead_code)]

#[path = "../skin_common/mod.rs"]
mod skin_common;

#[allow(unused_imports)]
pub use skin_common::common;

use geppetto::edit::{EditOp, Session};
use geppetto::geom::{P3, V3};
use geppetto::mesh::{Mesh, PreparedMesh};
use geppetto::rig::RigJoint;
use geppetto::skin::{skin_with_sdf, SkinOptions};
use skin_common::{capsule_sdf, prepare, revolve};

pub const LEN: f64 = 8.0;
pub const R: f64 = 0.35;
pub const JOINTS: usize = 9;

/// A capsule around the y axis (0..LEN), `rings` rings of `seg` vertices plus poles.
pub fn tube(seg: usize, rings: usize) -> Mesh {
    let mut profile: Vec<(f64, f64)> = (1..4)
        .map(|i| {
            let th = std::f64::consts::FRAC_PI_2 * i as f64 / 4.0;
            (-R * th.cos(), R * th.sin())
        })
        .collect();
    profile.extend((0..=rings).map(|i| (LEN * i as f64 / rings as f64, R)));
    profile.extend((1..4).map(|i| {
        let th = std::f64::consts::FRAC_PI_2 * i as f64 / 4.0;
        (LEN + R * th.sin(), R * th.cos())
    }));
    revolve(&profile, seg, (-R, LEN + R), V3::zeros())
}

pub fn joints() -> Vec<RigJoint> {
    (0..JOINTS)
        .map(|i| RigJoint {
            name: format!("j{i}"),
            parent: i.checked_sub(1),
            position: [0.0, 0.3 + 0.9 * i as f64, 0.0],
            end: i == JOINTS - 1,
        })
        .collect()
}

pub struct Fixture {
    pub mesh: PreparedMesh,
}

impl Fixture {
    pub fn new() -> Self {
        Self::with(16, 120)
    }

    /// The tube with `seg` vertices per ring and `rings` rings.
    pub fn with(seg: usize, rings: usize) -> Self {
        Self {
            mesh: prepare(tube(seg, rings), None),
        }
    }
}

pub fn sdf_of(mesh: &PreparedMesh) -> impl Fn(&P3) -> f64 + Sync {
    let n = mesh.normalization;
    move |p: &P3| capsule_sdf(&n.to_mesh(p), LEN, R, V3::zeros()) * n.scale
}

pub fn session<'a>(mesh: &'a PreparedMesh, sdf: &'a (dyn Fn(&P3) -> f64 + Sync)) -> Session<'a> {
    let skin = skin_with_sdf(mesh, sdf, &joints(), &opts()).expect("skin");
    Session::new(mesh, sdf, joints(), &skin, opts()).expect("session")
}

pub fn max_diff(a: &[Vec<(u32, f64)>], b: &[Vec<(u32, f64)>]) -> f64 {
    let w = |r: &[(u32, f64)], j: u32| r.iter().find(|e| e.0 == j).map_or(0.0, |e| e.1);
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| (0..JOINTS as u32 + 2).map(move |j| (w(x, j) - w(y, j)).abs()))
        .fold(0.0, f64::max)
}

pub fn assert_unity(rows: &[Vec<(u32, f64)>]) {
    for (v, r) in rows.iter().enumerate() {
        let s: f64 = r.iter().map(|e| e.1).sum();
        assert!((s - 1.0).abs() < 1e-9, "vertex {v} sums to {s}");
    }
}

pub fn mv(joint: &str, to: [f64; 3]) -> EditOp {
    EditOp::MoveJoint {
        joint: joint.into(),
        to,
        with_descendants: false,
    }
}

/// Default skin options without the influence limit: local ≈ global is a property of the solve,
/// and pruning's soft cut moves every kept weight with the cut, multiplying the region's
/// truncation error (pruning has its own tests in tests/skin_parts.rs and skin::prune).
pub fn opts() -> SkinOptions {
    SkinOptions {
        max_influences: usize::MAX,
        relative_prune: 0.0,
        ..SkinOptions::default()
    }
}
