//! `geppetto watch --headless --once` as a script or CI would run it: one log line per event, a
//! summary, exit status 0 when everything rigged and 1 when something failed.

use std::process::Command;

fn write_figure(path: &std::path::Path) {
    let (m, _) = geppetto::raster::figure::box_figure(false);
    geppetto::mesh::write_obj(&m, path).unwrap();
}

/// Runs `geppetto watch --headless --once [extra] DIR`; returns the output and its stdout text.
fn watch_once(dir: &std::path::Path, extra: &[&str]) -> (std::process::Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["watch", "--headless", "--once"])
        .args(extra)
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, text)
}

#[test]
fn headless_once_rigs_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    write_figure(&dir.path().join("one.obj"));
    let (out, text) = watch_once(dir.path(), &["--workers", "1"]);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        // Counts of one read in the singular ("1 meshes", "1 workers" before).
        "(1 worker, skeleton",
        "scan: 1 mesh in",
        "rigging: one.obj",
        "one.obj: embed",
        // The figure is built from boxes, so the box-figure path rigs it (no penalty to show).
        "ok: one.obj",
    ] {
        assert!(text.contains(needle), "missing '{needle}' in:\n{text}");
    }
    assert!(dir.path().join("rigged/one.rig.json").is_file());
    assert!(dir.path().join("rigged/one.png").is_file());
}

#[test]
fn headless_once_with_a_corrupt_file_exits_one_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.obj"), "v 1 2\nf 9 9 9\n").unwrap();
    let (out, text) = watch_once(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("failed: bad.obj"), "{text}");
    // The user's file is untouched.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("bad.obj")).unwrap(),
        "v 1 2\nf 9 9 9\n"
    );
}

/// An empty mesh file (an editor creates it, content follows) gets a row that says so, and a
/// `--once` run finishes instead of waiting for it forever; the file is rigged once it is filled.
#[test]
fn headless_once_shows_an_empty_file_and_finishes() {
    let dir = tempfile::tempdir().unwrap();
    write_figure(&dir.path().join("one.obj"));
    std::fs::write(dir.path().join("blank.obj"), b"").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["watch", "--headless", "--once", "--workers", "1"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("`watch --once` never finished with an empty file in the folder");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("empty: blank.obj"), "{text}");
    assert!(text.contains("ok: one.obj"), "{text}");
    assert!(!text.contains("failed: blank.obj"), "{text}");
}

/// Junk with a mesh extension (random bytes, a text file renamed `.obj`) is not "an empty
/// mesh": the line names the file and says what it is instead.
#[test]
fn headless_once_names_junk_with_a_mesh_extension_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let noise: Vec<u8> = (0u32..4096)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.path().join("noise.obj"), &noise).unwrap();
    std::fs::write(
        dir.path().join("notes.obj"),
        "shopping list\nmilk, eggs\nremember to export the hero\n".repeat(300),
    )
    .unwrap();
    let (out, text) = watch_once(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(&format!("failed: {name}")))
            .unwrap_or_else(|| panic!("no failure line for {name}:\n{text}"))
            .to_string()
    };
    let noise_line = line("noise.obj");
    assert!(
        noise_line.contains("binary data, not OBJ text"),
        "{noise_line}"
    );
    let notes_line = line("notes.obj");
    assert!(notes_line.contains("no vertex"), "{notes_line}");
    assert!(notes_line.contains("KB of text"), "{notes_line}");
    assert!(!text.contains("mesh is empty"), "{text}");
}

/// The output folder cannot be written (here a file stands where the folder should be; a
/// read-only folder behaves alike): the log line and the summary say the outputs were NOT
/// written and the run exits 1. Before, it printed "ok", "1 ok" and exited 0 with no files.
#[test]
fn headless_once_with_an_unwritable_output_folder_says_so_and_exits_one() {
    let dir = tempfile::tempdir().unwrap();
    write_figure(&dir.path().join("one.obj"));
    std::fs::write(dir.path().join("rigged"), "not a folder").unwrap();
    let (out, text) = watch_once(dir.path(), &["--workers", "1"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("NOT written"), "{text}");
    assert!(
        text.contains("not written: ") && text.contains("one.rig.json"),
        "{text}"
    );
}

#[test]
fn demo_headless_writes_both_characters_and_rigs_them() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["demo", "--headless"])
        .arg(&demo)
        .env("TERM", "dumb")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["demo_humanoid", "demo_quadruped"] {
        assert!(demo.join(format!("{name}.obj")).is_file());
        assert!(
            demo.join(format!("rigged/{name}.rig.json")).is_file(),
            "{text}"
        );
        assert!(demo.join(format!("rigged/{name}.png")).is_file());
    }
    assert!(text.contains("2 ok, 0 low confidence, 0 failed"), "{text}");
    // Running it again never overwrites the (possibly edited) characters.
    let before = std::fs::metadata(demo.join("demo_humanoid.obj"))
        .unwrap()
        .modified()
        .unwrap();
    let again = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["demo", "--headless"])
        .arg(&demo)
        .output()
        .unwrap();
    assert!(again.status.success());
    let after = std::fs::metadata(demo.join("demo_humanoid.obj"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);
}

/// A settings file the watcher cannot use is a usage error: exit code 2 (the README's exit
/// codes; it was 1, the code for "a mesh failed"), with the file and the line named.
#[test]
fn a_bad_settings_file_is_a_usage_error_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("watch.yaml");
    for (text, needle) in [
        ("workers: 2\nglobs: [\"*.obj\"\nout_dir: x\n", "line "),
        ("motion: {clip: nope}\n", "motion.clip"),
    ] {
        std::fs::write(&config, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
            .args(["watch", "--headless", "--once", "--config"])
            .arg(&config)
            .arg(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains("watch.yaml") && err.contains(needle), "{err}");
    }
    // The engine's --config of `rig` alike.
    std::fs::write(&config, "skin: {heat: 0}\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["rig", "--config"])
        .arg(&config)
        .arg(dir.path().join("none.obj"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("watch.yaml") && err.contains("skin.heat"),
        "{err}"
    );
}

/// A later run with another `--out` finds the first run's outputs inside the watched folder
/// (`DIR/rigged/*.glb`): they are Geppetto's own files, reported once and not rigged again as
/// new assets (qa6's finding: the second run listed and rigged `rigged/one.glb`).
#[test]
fn an_earlier_runs_outputs_in_the_folder_are_not_rigged_again() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir(&assets).unwrap();
    write_figure(&assets.join("one.obj"));
    let (first, text) = watch_once(&assets, &["--workers", "1"]);
    assert!(first.status.success(), "{text}");
    assert!(assets.join("rigged/one.glb").is_file());
    let elsewhere = dir.path().join("elsewhere");
    let elsewhere_arg = elsewhere.to_str().unwrap();
    let (second, text) = watch_once(&assets, &["--workers", "1", "--out", elsewhere_arg]);
    assert!(second.status.success(), "{text}");
    assert!(
        text.contains("skipped: rigged/one.glb (written by geppetto "),
        "the old output is not reported as ours:\n{text}"
    );
    assert!(text.contains("scan: 1 mesh in"), "{text}");
    assert!(!text.contains("rigging: rigged/one.glb"), "{text}");
    assert!(elsewhere.join("one.glb").is_file());
    assert!(
        !elsewhere.join("rigged").exists(),
        "the old outputs were rigged again into {}",
        elsewhere.display()
    );
}
