//! A hand-edited `NAME.edits.yaml` with a YAML mistake. The rig used to go on without the edits,
//! `ok`, and overwrite the artist's edited rig.json and GLB with unedited ones; the only sign
//! was a warning. It now fails, as a bad hints file does: the error names the sidecar and the
//! line, and the earlier outputs stay as they were.

use std::process::Command;

mod common;

#[test]
fn a_broken_edits_sidecar_fails_the_rig_and_keeps_the_edited_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = common::write_obj(&geppetto::demo::humanoid(1), dir.path());
    let stem = mesh.file_stem().unwrap().to_string_lossy().to_string();
    let out = dir.path().join("out");
    let sidecar = dir.path().join(format!("{stem}.edits.yaml"));
    std::fs::write(
        &sidecar,
        "version: 1\nedits:\n  - magnitude: { joint: Spine, c: 0.5 }\n",
    )
    .unwrap();
    let edited = common::rig_cli(&mesh, &out, &["--format", "json,glb"]);
    assert!(
        edited
            .warnings
            .iter()
            .any(|w| w.starts_with("1 of 1 edits")),
        "{:?}",
        edited.warnings
    );
    let outputs = [
        out.join(format!("{stem}.rig.json")),
        out.join(format!("{stem}.glb")),
    ];
    let before: Vec<Vec<u8>> = outputs.iter().map(|p| std::fs::read(p).unwrap()).collect();

    std::fs::write(&sidecar, "version: 1\nedits:\n  - {magnitude: x\n").unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["rig", "--format", "json,glb", "--out"])
        .arg(&out)
        .arg(&mesh)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success(),
        "a broken sidecar must fail: {stderr}"
    );
    assert!(
        stderr.contains(&format!("{stem}.edits.yaml")) && stderr.contains("line"),
        "the error names the sidecar and the line: {stderr}"
    );
    for (p, b) in outputs.iter().zip(&before) {
        assert_eq!(
            &std::fs::read(p).unwrap(),
            b,
            "{} was rewritten",
            p.display()
        );
    }
}
