//! Same-named assets never overwrite each other's outputs (README "Outputs"): `a/hero.obj`,
//! `b/hero.obj`, `hero.obj`, `villain.obj` and `villain.ply` in one folder give five sets of
//! outputs (rig.json, glb, png), in `watch`, `demo` and `rig`, and each set belongs to its own
//! asset (the five meshes have different vertex counts, and each rig.json names its mesh).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use geppetto::rig::Rig;

/// Relative mesh path and where its outputs go (relative to the output folder, without suffix).
const ASSETS: [(&str, &str); 5] = [
    ("a/hero.obj", "a/hero"),
    ("b/hero.obj", "b/hero"),
    ("hero.obj", "hero"),
    ("villain.obj", "villain.obj"),
    ("villain.ply", "villain.ply"),
];

/// Write the five assets (demo humanoids of different seeds, so of different vertex counts)
/// under `dir`; returns (absolute path, vertex count) per asset.
fn write_assets(dir: &Path) -> Vec<(PathBuf, usize)> {
    let mut out = Vec::new();
    for (i, (rel, _)) in ASSETS.iter().enumerate() {
        let mesh = geppetto::demo::humanoid(2 + i as u64).mesh;
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = if rel.ends_with(".ply") {
            common::ply_ascii(&mesh)
        } else {
            geppetto::mesh::write::obj_string(&mesh)
        };
        std::fs::write(&path, text).unwrap();
        out.push((path, mesh.positions.len()));
    }
    let mut counts: Vec<usize> = out.iter().map(|(_, n)| *n).collect();
    counts.sort_unstable();
    counts.dedup();
    assert_eq!(counts.len(), 5, "test meshes must differ in vertex count");
    out
}

fn glb_vertices(path: &Path) -> usize {
    let (doc, _, _) = gltf::import(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    doc.meshes()
        .flat_map(|m| m.primitives())
        .filter_map(|p| p.get(&gltf::Semantic::Positions).map(|a| a.count()))
        .sum()
}

/// Every asset's three outputs exist under `out` at the documented place and describe that asset.
fn assert_five_outputs(out: &Path, assets: &[(PathBuf, usize)]) {
    assert_five_outputs_from(out, assets, Path::new("."));
}

/// [`assert_five_outputs`] for a run in `cwd` (rig.json's mesh path is as given, maybe relative).
fn assert_five_outputs_from(out: &Path, assets: &[(PathBuf, usize)], cwd: &Path) {
    for ((mesh, vertices), (_, base)) in assets.iter().zip(ASSETS) {
        let json = out.join(format!("{base}.rig.json"));
        let rig = Rig::load(&json).unwrap_or_else(|e| panic!("{}: {e}", json.display()));
        assert_eq!(rig.vertex_count, *vertices, "{}", json.display());
        assert_eq!(
            std::fs::canonicalize(cwd.join(&rig.mesh)).unwrap(),
            std::fs::canonicalize(mesh).unwrap(),
            "{} names its own mesh",
            json.display()
        );
        let glb = out.join(format!("{base}.glb"));
        assert_eq!(glb_vertices(&glb), *vertices, "{}", glb.display());
        let png = out.join(format!("{base}.png"));
        assert!(png.is_file(), "{}", png.display());
    }
}

fn run(args: &[&std::ffi::OsStr]) {
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn watch_gives_five_same_named_assets_five_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let assets = write_assets(dir.path());
    run(&[
        "watch".as_ref(),
        dir.path().as_os_str(),
        "--once".as_ref(),
        "--workers".as_ref(),
        "2".as_ref(),
    ]);
    assert_five_outputs(&dir.path().join("rigged"), &assets);
}

#[test]
fn demo_gives_five_same_named_assets_five_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let assets = write_assets(dir.path());
    run(&[
        "demo".as_ref(),
        dir.path().as_os_str(),
        "--headless".as_ref(),
    ]);
    assert_five_outputs(&dir.path().join("rigged"), &assets);
    assert!(dir.path().join("rigged/demo_humanoid.rig.json").is_file());
}

#[test]
fn rig_gives_five_same_named_inputs_five_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let assets = write_assets(dir.path());
    let out = dir.path().join("out");
    let mut args: Vec<&std::ffi::OsStr> = vec!["rig".as_ref()];
    args.extend(assets.iter().map(|(p, _)| p.as_os_str()));
    // The same file twice is rigged once (it would write the same outputs).
    args.push(assets[0].0.as_os_str());
    args.extend([
        "--out".as_ref(),
        out.as_os_str(),
        "--format".as_ref(),
        "json,glb,png".as_ref(),
    ]);
    run(&args);
    assert_five_outputs(&out, &assets);
}

/// `geppetto rig x/hero.obj …` with paths relative to the current folder (how people type them)
/// must mirror the folders too: before, relative inputs all wrote `OUT/hero.*`, so `a/hero.obj`
/// and `b/hero.obj` overwrote each other.
#[test]
fn rig_with_relative_paths_gives_five_same_named_inputs_five_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let assets = write_assets(dir.path());
    let mut args: Vec<&str> = vec!["rig"];
    args.extend(ASSETS.iter().map(|(rel, _)| *rel));
    args.extend(["--out", "out", "--format", "json,glb,png"]);
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .current_dir(dir.path())
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_five_outputs_from(&dir.path().join("out"), &assets, dir.path());
}

/// `geppetto rig hero.glb --out .` would write `./hero.glb` over the user's mesh: the rig fails
/// with a message naming the file, and the mesh is untouched (no other output written either).
#[test]
fn rig_never_writes_an_output_over_its_input_mesh() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("src.obj");
    std::fs::write(
        &obj,
        geppetto::mesh::write::obj_string(&geppetto::demo::humanoid(1).mesh),
    )
    .unwrap();
    run(&[
        "rig".as_ref(),
        obj.as_os_str(),
        "--out".as_ref(),
        dir.path().join("first").as_os_str(),
    ]);
    let glb = dir.path().join("hero.glb");
    std::fs::rename(dir.path().join("first/src.glb"), &glb).unwrap();
    let before = std::fs::read(&glb).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .current_dir(dir.path())
        .args(["rig", "hero.glb", "--out", "."])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("hero.glb") && stderr.contains("would replace the input mesh"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&glb).unwrap(),
        before,
        "the input mesh changed"
    );
    assert!(
        !dir.path().join("hero.rig.json").exists(),
        "half a set of outputs"
    );
}

/// `rig hero.obj --out . --format png,json` beside the texture `hero.png` its MTL uses: the
/// thumbnail would replace the user's image, so the rig is refused naming the file, before
/// anything is written. Geppetto's own thumbnail is replaced on the next run as before.
#[test]
fn rig_never_writes_a_thumbnail_over_the_users_image() {
    let dir = tempfile::tempdir().unwrap();
    let obj = geppetto::mesh::write::obj_string(&geppetto::demo::humanoid(1).mesh);
    std::fs::write(
        dir.path().join("hero.obj"),
        format!("mtllib hero.mtl\n{obj}"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("hero.mtl"),
        "newmtl skin\nmap_Kd hero.png\n",
    )
    .unwrap();
    let texture = image::RgbaImage::from_pixel(4, 4, image::Rgba([200, 120, 90, 255]));
    texture.save(dir.path().join("hero.png")).unwrap();
    let before = std::fs::read(dir.path().join("hero.png")).unwrap();
    let rig = |out: &str| {
        Command::new(env!("CARGO_BIN_EXE_geppetto"))
            .current_dir(dir.path())
            .args([
                "rig", "hero.obj", "--out", out, "--format", "json", "--format", "png",
            ])
            .output()
            .unwrap()
    };
    let out = rig(".");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("hero.png") && stderr.contains("Geppetto did not write"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(dir.path().join("hero.png")).unwrap(), before);
    assert!(
        !dir.path().join("hero.rig.json").exists(),
        "half a set of outputs"
    );
    for _ in 0..2 {
        let out = rig("rigged");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(dir.path().join("rigged/hero.png").is_file());
}
