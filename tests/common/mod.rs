//! Shared helpers for integration tests: locating the shared corpus, reading its manifest, and the
//! one place where a test says it cannot run here ([`skip`]).
#![allow(dead_code)]

use std::fmt::Display;
use std::path::PathBuf;

/// The variable CI sets (`.ci/run`): with it, a test that would skip (no corpus, no glTF
/// validator, no python3, no tmux) fails instead, so a missing dependency is never a silent green.
pub const REQUIRE_ENV: &str = "GEPPETTO_REQUIRE_CORPUS";

/// Whether skips are failures (`GEPPETTO_REQUIRE_CORPUS` set to anything but empty or `0`).
pub fn skips_fail() -> bool {
    std::env::var(REQUIRE_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The running test's name, for messages.
fn test_name() -> String {
    std::thread::current().name().unwrap_or("test").to_string()
}

/// Report that the running test cannot run here because of `reason` (a missing corpus or tool).
/// Locally it prints "TEST: skipped: REASON" and the caller returns; under CI
/// (`GEPPETTO_REQUIRE_CORPUS=1`) it panics with the same reason.
pub fn skip(reason: impl Display) {
    let test = test_name();
    assert!(
        !skips_fail(),
        "{test}: cannot run: {reason} ({REQUIRE_ENV}=1 turns every skip into a failure)"
    );
    println!("{test}: skipped: {reason}");
}

/// The corpus folder: `$GEPPETTO_CORPUS`, else `../shared/corpus` beside the repository.
/// `None` (after [`skip`]) if it is absent.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GEPPETTO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        skip(format_args!(
            "corpus not found at {} (set GEPPETTO_CORPUS)",
            dir.display()
        ));
        None
    }
}

/// `corpus/meshes/NAME.obj`, or `None` (after [`skip`]) when the corpus or that file is absent.
pub fn corpus_mesh(name: &str) -> Option<PathBuf> {
    let path = corpus()?.join("meshes").join(format!("{name}.obj"));
    if path.is_file() {
        Some(path)
    } else {
        skip(format_args!("{} not found", path.display()));
        None
    }
}

/// Whether `program args…` runs and exits successfully; otherwise [`skip`] with `why` (what
/// the program is needed for) and `false`.
pub fn tool(program: &str, args: &[&str], why: &str) -> bool {
    let ok = std::process::Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(format_args!("{program} not found ({why})"));
    }
    ok
}

/// `(name, category)` per `MANIFEST.tsv` row, read with the library's manifest reader.
pub fn manifest(dir: &std::path::Path) -> Vec<(String, String)> {
    geppetto::measure::bench::manifest::read(dir)
        .expect("MANIFEST.tsv parses")
        .into_iter()
        .map(|e| (e.name, e.category))
        .collect()
}

/// `m` as an ASCII PLY file (double-precision coordinates, so it reads back exactly).
pub fn ply_ascii(m: &geppetto::mesh::Mesh) -> String {
    let mut s = format!(
        "ply\nformat ascii 1.0\nelement vertex {}\nproperty double x\nproperty double y\n\
property double z\nelement face {}\nproperty list uchar uint vertex_indices\nend_header\n",
        m.positions.len(),
        m.triangles.len()
    );
    for p in &m.positions {
        s += &format!("{} {} {}\n", p.x, p.y, p.z);
    }
    for t in &m.triangles {
        s += &format!("3 {} {} {}\n", t[0], t[1], t[2]);
    }
    s
}

/// The 12 outward triangles of a box whose corner `k` takes the high x when `k & 1`, the high y
/// when `k & 2` and the high z when `k & 4` (counter-clockwise seen from outside).
pub const BOX_TRIANGLES: [[u32; 3]; 12] = [
    [0, 2, 1],
    [1, 2, 3],
    [4, 5, 6],
    [5, 7, 6],
    [0, 1, 4],
    [1, 5, 4],
    [2, 6, 3],
    [3, 6, 7],
    [0, 4, 2],
    [2, 4, 6],
    [1, 3, 5],
    [3, 7, 5],
];

/// The arms-into-ears humanoid: flat ears 0.44 m wide, 0.52 m tall, 5 cm thick, hanging from the
/// head to the shoulders; half-length arms held forward and down, in front of the body. Unhinted,
/// the search runs the arms into the ears (not `ok`); pinned at the wrists it rigs `ok`.
pub fn eared_humanoid() -> geppetto::demo::DemoCharacter {
    geppetto::demo::humanoid_variant(
        3,
        &geppetto::demo::characters::Variant {
            arm_scale: 0.3,
            arm_dir: Some(geppetto::geom::V3::new(-0.25, -0.5, 0.83)),
            ears: Some(geppetto::geom::V3::new(0.22, 0.26, 0.025)),
            ..Default::default()
        },
    )
}

/// Points from `a` to `b` at fraction `t`.
pub fn along(a: geppetto::geom::P3, b: geppetto::geom::P3, t: f64) -> geppetto::geom::P3 {
    a + (b - a) * t
}

/// The elephant's failure on [`eared_humanoid`], built by hand: one side's arm chain run from the
/// shoulder up into the flat ear, down to the ear's lower rim (`side` "Left" or "Right"; the
/// ear's half width 0.22 and half height 0.26 as built there). Joint name and new position.
pub fn arm_into_ear(
    c: &geppetto::demo::DemoCharacter,
    side: &str,
) -> [(String, geppetto::geom::P3); 3] {
    use geppetto::geom::V3;
    let sx = if side == "Right" { -1.0 } else { 1.0 };
    let shoulder = c.joint(&format!("{side}Arm")).expect("shoulder");
    let head = c.joint("Head").expect("head");
    let ear = head + V3::new(sx * (0.06 + 0.22), 0.1 - 0.26 * 0.8, 0.0);
    [
        (format!("{side}ForeArm"), along(shoulder, ear, 0.8)),
        (format!("{side}Hand"), ear + V3::new(sx * 0.06, -0.08, 0.0)),
        (
            format!("{side}Hand_End"),
            ear + V3::new(sx * 0.12, -0.17, 0.0),
        ),
    ]
}

/// Write a demo character as `<dir>/<name>.obj`, returning the path.
pub fn write_obj(c: &geppetto::demo::DemoCharacter, dir: &std::path::Path) -> PathBuf {
    let path = dir.join(format!("{}.obj", c.name));
    std::fs::write(&path, geppetto::mesh::write::obj_string(&c.mesh)).expect("write obj");
    path
}

/// CD-J2J (% of `extent`, the largest side) of joints `pred` (mesh frame, in `skel`'s joint order)
/// against the character's construction skeleton.
pub fn cd_to_construction(
    pred: &[geppetto::geom::P3],
    extent: f64,
    c: &geppetto::demo::DemoCharacter,
    skel: &geppetto::skeleton::Skeleton,
) -> f64 {
    let parents: Vec<Option<usize>> = skel.joints.iter().map(|j| j.parent.map(|p| p.0)).collect();
    let truth: Vec<geppetto::geom::P3> = skel
        .joints
        .iter()
        .map(|j| c.joint(&j.name).expect("construction joint"))
        .collect();
    geppetto::measure::joints::measure((pred, &parents), (&truth, &parents), extent).cd_j2j
}

/// Run `geppetto rig ARGS --out OUT MESH` (the test's binary), assert it succeeded, and read the
/// rig back from `OUT/STEM.rig.json`.
pub fn rig_cli(mesh: &std::path::Path, out: &std::path::Path, args: &[&str]) -> geppetto::rig::Rig {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .arg("rig")
        .args(args)
        .arg("--out")
        .arg(out)
        .arg(mesh)
        .status()
        .expect("run geppetto");
    assert!(
        status.success(),
        "geppetto rig failed on {}",
        mesh.display()
    );
    let stem = mesh.file_stem().unwrap().to_string_lossy();
    geppetto::rig::Rig::load(&out.join(format!("{stem}.rig.json"))).expect("rig.json")
}

/// CD-J2J (% of the model's largest extent) of `rig` against the artist joints in `truth_path`:
/// the corpus README's correspondence-free joint measure.
pub fn cd_j2j(rig: &geppetto::rig::Rig, truth_path: &std::path::Path) -> f64 {
    use geppetto::measure::{joints, truth};
    let t = truth::load(truth_path).unwrap_or_else(|e| panic!("{e}"));
    let pred: truth::ScoredRig =
        geppetto::rig::read::RigFile::from_rig(std::path::Path::new("pred"), rig).into();
    joints::measure(
        (&pred.positions, &pred.parents),
        (&t.positions, &t.parents),
        rig.max_extent(),
    )
    .cd_j2j
}
