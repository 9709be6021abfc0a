//! Nonsense must not be reported as success: a human skeleton "embedded" in a tetrahedron, a sphere
//! or a box is `low_confidence` with a reason about the shape, while the procedural demo humanoid
//! (the control: a check that flags everything would pass the first half) is `ok`. The sphere and
//! box are also judged on synthetic discretizations denser than any real packing, so the search
//! has every chance to "find" limbs in them.

mod common;

use std::path::Path;
use std::sync::Arc;

use geppetto::confidence::assess_with;
use geppetto::config::RigConfig;
use geppetto::discretize::Field;
use geppetto::discretize::{Sphere, SphereGraph};
use geppetto::embed::run_with as embed_with;
use geppetto::embed::synthetic::Capsules;
use geppetto::embed::{EmbedOptions, OrientationMode};
use geppetto::geom::{NodeId, P3, V3};
use geppetto::pipeline::{Pipeline, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::Status;
use geppetto::skeleton::load_template;

fn write_obj(path: &Path, v: &[[f64; 3]], f: &[[usize; 3]]) {
    let mesh = geppetto::mesh::Mesh {
        positions: v.iter().map(|p| (*p).into()).collect(),
        triangles: f.iter().map(|t| t.map(|i| i as u32)).collect(),
    };
    geppetto::mesh::write_obj(&mesh, path).expect("write obj");
}

fn tetrahedron(path: &Path) {
    let v = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.5, 0.0, 0.87],
        [0.5, 0.82, 0.29],
    ];
    write_obj(path, &v, &[[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]]);
}

fn sphere(path: &Path) {
    let (nu, nv) = (24usize, 12usize);
    let mut v = vec![[0.0, 1.0, 0.0]];
    for i in 1..nv {
        let th = std::f64::consts::PI * i as f64 / nv as f64;
        for j in 0..nu {
            let ph = 2.0 * std::f64::consts::PI * j as f64 / nu as f64;
            v.push([th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin()]);
        }
    }
    v.push([0.0, -1.0, 0.0]);
    let ring = |i: usize, j: usize| 1 + (i - 1) * nu + j % nu;
    let mut f = Vec::new();
    for j in 0..nu {
        f.push([0, ring(1, j + 1), ring(1, j)]);
        f.push([v.len() - 1, ring(nv - 1, j), ring(nv - 1, j + 1)]);
    }
    for i in 1..nv - 1 {
        for j in 0..nu {
            f.push([ring(i, j), ring(i, j + 1), ring(i + 1, j)]);
            f.push([ring(i + 1, j), ring(i, j + 1), ring(i + 1, j + 1)]);
        }
    }
    write_obj(path, &v, &f);
}

fn boxy(path: &Path) {
    let (x, y, z) = (0.5, 1.0, 0.3);
    let v: Vec<[f64; 3]> = (0..8)
        .map(|i| {
            [
                if i & 1 == 0 { -x } else { x },
                if i & 2 == 0 { -y } else { y },
                if i & 4 == 0 { -z } else { z },
            ]
        })
        .collect();
    let f = common::BOX_TRIANGLES.map(|t| t.map(|i| i as usize));
    write_obj(path, &v, &f);
}

/// Reasons that say something about the shape (not only that the search ran out of budget).
fn shape_reasons(reasons: &[String]) -> Vec<&String> {
    reasons.iter().filter(|r| !r.contains("budget")).collect()
}

#[test]
fn blobs_are_low_confidence_with_reasons() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pipeline = Pipeline::new(RigConfig::default());
    let skel = Arc::new(load_template("human").expect("built-in"));
    for (name, make) in [
        ("tetrahedron", tetrahedron as fn(&Path)),
        ("sphere", sphere),
        ("box", boxy),
    ] {
        let path = dir.path().join(format!("{name}.obj"));
        make(&path);
        let mut req = RigRequest::with_sidecar(&path, skel.clone()).expect("request");
        req.skin = false;
        // Closed blobs have an interior (the medial sampler falls back to depth maxima), so they
        // rig: the confidence check, not an error, must say that the result is nonsense.
        let out = pipeline
            .rig(&req, &NoProgress)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let reasons = &out.rig.confidence_reasons;
        println!("{name}: {:?} {reasons:?}", out.rig.status);
        assert_eq!(out.rig.status, Status::LowConfidence, "{name} rigged as ok");
        assert!(
            !shape_reasons(reasons).is_empty(),
            "{name}: no reason about the shape in {reasons:?}"
        );
        assert!(out
            .rig
            .warnings
            .iter()
            .any(|w| w.contains("low confidence")));
    }
    let written = geppetto::demo::write_demo_folder(dir.path()).expect("demo characters");
    let humanoid = written
        .iter()
        .find(|p| p.to_string_lossy().contains("humanoid"))
        .expect("demo humanoid written");
    let mut req = RigRequest::with_sidecar(humanoid, skel).expect("request");
    req.skin = false;
    let out = pipeline.rig(&req, &NoProgress).expect("demo humanoid rigs");
    assert_eq!(
        out.rig.status,
        Status::Ok,
        "the demo humanoid is low confidence: {:?}",
        out.rig.confidence_reasons
    );
}

/// Signed distance of an axis-aligned box (normalized frame), for the synthetic blob cases.
struct BoxField {
    centre: P3,
    half: V3,
}

impl Field for BoxField {
    fn eval(&self, p: &P3) -> f64 {
        let q = (p - self.centre).abs() - self.half;
        let outside = q.map(|c| c.max(0.0)).norm();
        outside + q.max().min(0.0)
    }
    fn gradient(&self, p: &P3) -> V3 {
        let h = 1e-5;
        V3::from_fn(|i, _| {
            let mut a = *p;
            let mut b = *p;
            a[i] += h;
            b[i] -= h;
            (self.eval(&a) - self.eval(&b)) / (2.0 * h)
        })
    }
}

/// What a discretizer that does find a blob's interior would hand the embedding: spheres on a grid
/// inside the shape, each as large as its depth, connected when they intersect (the paper's rule).
/// Denser than any real packing, so the search has every chance to "find" limbs in the blob.
fn blob_graph(field: &dyn Field, spacing: f64) -> (SphereGraph, Vec<Sphere>) {
    let n = (1.0 / spacing) as usize;
    let mut spheres: Vec<Sphere> = (0..=n)
        .flat_map(|i| (0..=n).flat_map(move |j| (0..=n).map(move |k| (i, j, k))))
        .map(|(i, j, k)| {
            let c = P3::new(i as f64, j as f64, k as f64) * spacing;
            Sphere {
                center: c,
                radius: -field.eval(&c),
            }
        })
        .filter(|s| s.radius > 0.01)
        .collect();
    spheres.sort_by(|a, b| b.radius.total_cmp(&a.radius));
    let mut g = SphereGraph::default();
    g.edges = vec![Vec::new(); spheres.len()];
    for a in 0..spheres.len() {
        for b in (a + 1)..spheres.len() {
            let d = (spheres[a].center - spheres[b].center).norm();
            if d < spheres[a].radius + spheres[b].radius {
                g.edges[a].push((NodeId(b as u32), d));
                g.edges[b].push((NodeId(a as u32), d));
            }
        }
    }
    g.spheres = spheres.clone();
    (g, spheres)
}

/// The real discretizer packs only a few spheres into a sphere or a box. With a dense synthetic
/// packing the search has many more places to put limbs; the human skeleton embedded there must
/// still be `low_confidence` with a reason about the shape, never `ok` (default and auto
/// orientation).
#[test]
fn synthetic_sphere_and_box_interiors_are_low_confidence() {
    let c = P3::new(0.5, 0.5, 0.5);
    let ball = Capsules {
        segs: vec![(c, c, 0.45, 0.45)],
    };
    let slab = BoxField {
        centre: c,
        half: V3::new(0.225, 0.45, 0.135),
    };
    let skel = load_template("human").expect("built-in");
    let never = || false;
    for (name, field) in [("sphere", &ball as &dyn Field), ("box", &slab)] {
        let (g, medial) = blob_graph(field, 0.1);
        assert!(
            g.len() > 2 * skel.joints.len(),
            "{name}: {} spheres",
            g.len()
        );
        for mode in [OrientationMode::Default, OrientationMode::Auto] {
            let opts = EmbedOptions {
                orientation: mode,
                ..EmbedOptions::default()
            };
            let e = embed_with(&g, field, &medial, &skel, &[], &opts, &never)
                .unwrap_or_else(|err| panic!("{name} {mode:?}: no embedding ({err})"));
            let conf = assess_with(field, g.len(), &skel, &e);
            println!(
                "{name} {mode:?}: penalty {:.3} {:?} {:?}",
                e.penalty.total, conf.status, conf.reasons
            );
            assert_eq!(conf.status, Status::LowConfidence, "{name} {mode:?} ok");
            assert!(
                !shape_reasons(&conf.reasons).is_empty(),
                "{name} {mode:?}: no reason about the shape in {:?}",
                conf.reasons
            );
        }
    }
}
