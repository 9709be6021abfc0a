//! Shared helpers for the skin and export tests: synthetic capsules with exact signed distances
//! and hand-built prepared meshes.
#![allow(dead_code)]

#[path = "../common/mod.rs"]
pub mod common;

use geppetto::geom::{P3, V3};
use geppetto::mesh::{Mesh, Normalization, PreparedMesh, RepairReport};
use geppetto::rig::RigJoint;
use geppetto::skin::{skin_with_sdf, Skin, SkinOptions};

/// A capsule around the y axis from y = 0 to y = `len`, radius `r`, revolved with `seg` sides.
pub fn capsule(len: f64, r: f64, seg: usize, offset: V3) -> Mesh {
    let mut profile = Vec::new(); // (y, radius), bottom pole excluded
    let cap = 6;
    for i in 1..=cap {
        let th = std::f64::consts::FRAC_PI_2 * i as f64 / cap as f64;
        profile.push((-r * th.cos(), r * th.sin()));
    }
    let rings = 24;
    for i in 1..rings {
        profile.push((len * i as f64 / rings as f64, r));
    }
    for i in 0..cap {
        let th = std::f64::consts::FRAC_PI_2 * i as f64 / cap as f64;
        profile.push((len + r * th.sin(), r * th.cos()));
    }
    revolve(&profile, seg, (-r, len + r), offset)
}

/// A closed surface of revolution around the y axis, shifted by `offset`: a pole at y = `poles.0`,
/// one ring of `seg` vertices per (y, radius) of `profile` (bottom to top), a pole at y = `poles.1`.
pub fn revolve(profile: &[(f64, f64)], seg: usize, poles: (f64, f64), offset: V3) -> Mesh {
    let mut positions = vec![P3::new(0.0, poles.0, 0.0) + offset];
    for &(y, rad) in profile {
        for k in 0..seg {
            let a = std::f64::consts::TAU * k as f64 / seg as f64;
            positions.push(P3::new(rad * a.cos(), y, rad * a.sin()) + offset);
        }
    }
    positions.push(P3::new(0.0, poles.1, 0.0) + offset);
    let top = (positions.len() - 1) as u32;
    let ring = |i: usize, k: usize| (1 + i * seg + k % seg) as u32;
    let last = profile.len() - 1;
    let mut triangles = Vec::new();
    for k in 0..seg {
        triangles.push([0, ring(0, k + 1), ring(0, k)]);
        triangles.push([top, ring(last, k), ring(last, k + 1)]);
    }
    for i in 0..last {
        for k in 0..seg {
            triangles.push([ring(i, k), ring(i, k + 1), ring(i + 1, k + 1)]);
            triangles.push([ring(i, k), ring(i + 1, k + 1), ring(i + 1, k)]);
        }
    }
    Mesh {
        positions,
        triangles,
    }
}

pub fn capsule_sdf(p: &P3, len: f64, r: f64, offset: V3) -> f64 {
    let q = p - offset;
    let y = q.y.clamp(0.0, len);
    (q - P3::new(0.0, y, 0.0)).norm() - r
}

/// Welded positions (mesh frame), input→welded map, welded triangles.
pub type Welded = (Vec<P3>, Vec<u32>, Vec<[u32; 3]>);

/// A prepared mesh built by hand: identity weld unless `welded` is given, shells computed by the
/// skinning code itself (empty list here).
pub fn prepare(input: Mesh, welded: Option<Welded>) -> PreparedMesh {
    let normalization = Normalization::from_aabb(&input.aabb());
    let (pos_mesh, weld, triangles) = welded.unwrap_or_else(|| {
        (
            input.positions.clone(),
            (0..input.positions.len() as u32).collect(),
            input.triangles.clone(),
        )
    });
    PreparedMesh {
        positions: pos_mesh
            .iter()
            .map(|p| normalization.to_normalized(p))
            .collect(),
        normalization,
        weld,
        triangles,
        shells: Vec::new(),
        report: RepairReport::default(),
        input,
    }
}

/// A joint of an artist's skeleton (not an end marker), mesh frame.
pub fn joint(name: &str, parent: Option<usize>, position: [f64; 3]) -> RigJoint {
    RigJoint {
        name: name.into(),
        parent,
        position,
        end: false,
    }
}

pub fn chain(scale: f64) -> Vec<RigJoint> {
    let j = |name: &str, parent, y: f64, end| RigJoint {
        name: name.into(),
        parent,
        position: [0.0, y * scale, 0.0],
        end,
    };
    vec![
        j("hips", None, 0.2, false),
        j("spine", Some(0), 1.2, false),
        j("chest", Some(1), 2.2, false),
        j("top_end", Some(2), 3.2, true),
    ]
}

pub fn run(mesh: &PreparedMesh, sdf: impl Fn(&P3) -> f64 + Sync, joints: &[RigJoint]) -> Skin {
    let n = mesh.normalization;
    let f = move |p: &P3| sdf(&n.to_mesh(p)) * n.scale;
    skin_with_sdf(mesh, &f, joints, &SkinOptions::default()).expect("skin")
}

/// Every row non-empty, weights finite in (0, 1], joint indices in range, rows summing to 1.
pub fn assert_valid(skin: &Skin, vertices: usize, joints: usize) {
    assert_eq!(skin.weights.len(), vertices);
    for (i, row) in skin.weights.iter().enumerate() {
        assert!(!row.is_empty(), "vertex {i} has no weights");
        let sum: f64 = row.iter().map(|e| e.1).sum();
        assert!((sum - 1.0).abs() < 1e-9, "vertex {i} sums to {sum}");
        for &(j, w) in row {
            assert!((j as usize) < joints);
            assert!(
                w.is_finite() && w > 0.0 && w <= 1.0,
                "vertex {i}: weight {w}"
            );
        }
    }
}

/// Run `.ci/validate-gltf.mjs` (Khronos glTF-Validator) on `files`: `(passed, report)`, or `None`
/// (after `common::skip`) when `GLTF_VALIDATOR_DIR` is not set. CI installs it and sets it.
pub fn gltf_validator<P: AsRef<std::path::Path>>(files: &[P]) -> Option<(bool, String)> {
    let Ok(dir) = std::env::var("GLTF_VALIDATOR_DIR") else {
        common::skip("GLB validation: GLTF_VALIDATOR_DIR not set (.ci/run installs the validator)");
        return None;
    };
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/validate-gltf.mjs");
    let out = std::process::Command::new("node")
        .arg(script)
        .args(files.iter().map(AsRef::as_ref))
        .env("GLTF_VALIDATOR_DIR", dir)
        .output()
        .expect("run node");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    Some((out.status.success(), text))
}
