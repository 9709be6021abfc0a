//! The demo characters are single watertight manifold shells of a sensible size, deterministic
//! per seed, with their bones inside the surface.

use std::time::Instant;

use geppetto::demo::{humanoid, quadruped, write_demo_folder, DemoCharacter};
use geppetto::mesh::prepare;

fn check(c: &DemoCharacter) {
    let t = Instant::now();
    let p = prepare(c.mesh.clone()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let r = &p.report;
    println!(
        "{}: {} vertices, {} triangles, prepare {:.1} ms, notes {:?}",
        c.name,
        r.input_vertices,
        r.input_triangles,
        t.elapsed().as_secs_f64() * 1e3,
        r.notes
    );
    assert!(r.watertight, "{}: {r:?}", c.name);
    assert_eq!(r.shells, 1, "{}", c.name);
    assert_eq!(
        (
            r.welded_vertices,
            r.degenerate_triangles,
            r.duplicate_triangles
        ),
        (0, 0, 0),
        "{}",
        c.name
    );
    assert_eq!(
        (r.inconsistent_edges, r.inward_shells_flipped),
        (0, 0),
        "{}",
        c.name
    );
    assert!(
        (3_000..=15_000).contains(&r.input_vertices),
        "{}: {} vertices",
        c.name,
        r.input_vertices
    );
    assert!(p.shells[0].volume > 0.0);
    // Every bone position lies within the mesh's bounding box.
    let b = c.mesh.aabb();
    for (name, j) in &c.joints {
        for a in 0..3 {
            assert!(
                j[a] >= b.min[a] && j[a] <= b.max[a],
                "{}: {name} outside the bbox",
                c.name
            );
        }
    }
}

#[test]
fn humanoids_are_single_watertight_shells() {
    for seed in [1, 2, 3, 7, 42] {
        let t = Instant::now();
        let c = humanoid(seed);
        println!(
            "humanoid({seed}) generated in {:.0} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
        check(&c);
        assert_eq!(c.skeleton, "human");
        // Convention: the character's left at +X (left = up × forward), facing +Z, +Y up.
        let l = c.joint("LeftHand").unwrap();
        let r = c.joint("RightHand").unwrap();
        assert!(l.x > 0.3 && r.x < -0.3);
        assert!(c.joint("Head").unwrap().y > c.joint("Hips").unwrap().y);
        assert!(c.joint("LeftToe_End").unwrap().z > c.joint("LeftFoot").unwrap().z);
    }
}

#[test]
fn quadrupeds_are_single_watertight_shells() {
    for seed in [1, 2, 3, 7, 42] {
        let t = Instant::now();
        let c = quadruped(seed);
        println!(
            "quadruped({seed}) generated in {:.0} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
        check(&c);
        assert_eq!(c.skeleton, "quadruped");
        assert!(c.joint("Head").unwrap().z > c.joint("Hips").unwrap().z);
        assert!(c.joint("LeftFrontFoot").unwrap().x > 0.0);
    }
}

#[test]
fn deterministic_per_seed_and_varied_across_seeds() {
    assert_eq!(humanoid(5).mesh, humanoid(5).mesh);
    assert_eq!(quadruped(5).joints, quadruped(5).joints);
    assert_ne!(humanoid(5).joints, humanoid(6).joints);
    assert_ne!(quadruped(5).mesh.positions.len(), 0);
}

#[test]
fn demo_folder_is_written_once_and_never_clobbered() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("new").join("demo");
    let paths = write_demo_folder(&target).unwrap();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["demo_humanoid.obj", "demo_quadruped.obj"]);
    let m = geppetto::mesh::load(&paths[0]).unwrap();
    assert_eq!(m, humanoid(geppetto::demo::DEFAULT_SEED).mesh);
    // Running again is fine; a file with different content is left untouched.
    assert_eq!(write_demo_folder(&target).unwrap(), paths);
    std::fs::write(&paths[1], "v 0 0 0\n").unwrap();
    assert_eq!(write_demo_folder(&target).unwrap(), paths);
    assert_eq!(std::fs::read_to_string(&paths[1]).unwrap(), "v 0 0 0\n");
}
