//! `geppetto watch --headless --once` as a script or CI would run it: one log line per event, a
//! summary, exit status 0 when everything rigged and 1 when something failed.

use std::process::Command;

fn write_figure(path: &std::path::Path) {
    let (m, _) = geppetto::raster::figure::box_figure(false);
    let mut s = String::new();
    for p in &m.positions {
        s += &format!("v {} {} {}\n", p.x, p.y, p.z);
    }
    for t in &m.triangles {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(path, s).unwrap();
}

#[test]
fn headless_once_rigs_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    write_figure(&dir.path().join("one.obj"));
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["watch", "--headless", "--once", "--workers", "1"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "scan: 1 meshes",
        "rigging: one.obj",
        "one.obj: embed",
        "one.obj penalty",
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
    let out = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["watch", "--headless", "--once"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("failed: bad.obj"), "{text}");
    // The user's file is untouched.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("bad.obj")).unwrap(),
        "v 1 2\nf 9 9 9\n"
    );
}
