//! Command-line values a demanding user types that used to be taken without a word: each is
//! refused naming the flag (or the file and the setting) and the rule, or means what the
//! documentation says.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

fn geppetto_in(cwd: &Path, args: &[&str]) -> Output {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `geppetto edit` of the rigged hero in `p`: LeftForeArm moved, `--eps eps`, into `edited/`.
fn edit_with_eps(p: &Path, eps: &str) -> Output {
    geppetto_in(
        p,
        &[
            "edit",
            "rigged/hero.rig.json",
            "--move",
            "LeftForeArm",
            "0.3",
            "1.0",
            "0.05",
            "--eps",
            eps,
            "--out",
            "edited",
        ],
    )
}

/// `edit --eps inf` (or NaN, a negative, 0, ≥ 1) was taken: NaN, 0 and negatives silently became
/// the prune level, `inf` and 5 a region that ignores the edit's reach, and the rig was written
/// (exit 0). They are usage errors naming the flag and the range, before any solve; a value in
/// the range still edits.
#[test]
fn edit_refuses_a_zero_threshold_outside_its_range() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mesh = geppetto::mesh::write::obj_string(&geppetto::demo::humanoid(1).mesh);
    std::fs::write(p.join("hero.obj"), mesh).unwrap();
    let out = geppetto_in(p, &["rig", "hero.obj"]);
    assert!(out.status.success(), "{}", text(&out));
    for eps in ["inf", "NaN", "-1", "0", "1", "5", "1e-9"] {
        let out = edit_with_eps(p, eps);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "--eps {eps}: {t}");
        assert!(
            t.contains("--eps") && t.contains("up to (not including) 1"),
            "--eps {eps}: {t}"
        );
        assert!(!p.join("edited").exists(), "--eps {eps} wrote a rig");
    }
    let out = edit_with_eps(p, "0.05");
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("eps 5e-2"), "{}", text(&out));
}
