//! End-to-end: the real `geppetto watch` binary inside tmux (`send-keys` to type, `capture-pane`
//! to read) on a temp folder with the two demo characters: both reach "ok", a joint is
//! pinned with keys, the sidecar hints file appears and the asset re-rigs from the embedding; `q`
//! quits with exit status 0. Skipped with a printed reason when tmux is not installed (a failure
//! under `GEPPETTO_REQUIRE_CORPUS=1`, as in CI).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A private tmux server (own socket) killed on drop, so nothing leaks between runs.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.cmd(&["send-keys", "-t", "e2e", k]);
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    /// Poll the screen until `pred` holds.
    fn wait(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let t = Instant::now();
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            assert!(
                t.elapsed() < timeout,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// The two demo characters (humanoid, quadruped) in `dir`.
fn two_meshes(dir: &Path) -> [String; 2] {
    let written = geppetto::demo::write_demo_folder(dir).expect("demo characters");
    assert_eq!(written.len(), 2, "{written:?}");
    ["demo_humanoid.obj".into(), "demo_quadruped.obj".into()]
}

fn row_rigged(screen: &str, name: &str) -> bool {
    screen
        .lines()
        .any(|l| l.contains(name) && l.contains(" ok "))
}

#[test]
fn watch_ui_under_tmux_rigs_pins_and_rerigs() {
    if !common::tool("tmux", &["-V"], "CI installs it via .ci/run") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names = two_meshes(dir.path());
    let tmux = Tmux {
        socket: format!("geppetto-e2e-{}", std::process::id()),
    };
    let bin = env!("CARGO_BIN_EXE_geppetto");
    let cmd = format!(
        "TERM=xterm-256color '{bin}' watch '{}' --protocol halfblocks --workers 2; echo EXITED:$?; sleep 120",
        dir.path().display()
    );
    let out = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "160",
        "-y",
        "48",
        &cmd,
    ]);
    assert!(
        out.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let long = Duration::from_secs(600);
    let screen = tmux.wait("both meshes rigged", long, |s| {
        names.iter().all(|n| row_rigged(s, n))
    });
    assert!(screen.contains("geppetto watch"), "{screen}");
    assert!(
        screen.contains("runs: 1"),
        "detail pane of the selected asset:\n{screen}"
    );

    // Select the fifth joint and pin it where it is: writes demo_humanoid.hints.yaml and re-rigs.
    tmux.keys(&["Tab", "Tab", "Tab", "Tab", "p"]);
    let sidecar = dir.path().join("demo_humanoid.hints.yaml");
    let t = Instant::now();
    while !sidecar.is_file() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no sidecar written; screen:\n{}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let yaml = std::fs::read_to_string(&sidecar).unwrap();
    assert!(yaml.contains("joint:"), "{yaml}");
    let screen = tmux.wait("re-rig from the embedding", long, |s| {
        s.contains("runs: 2")
            && s.contains("re-run from the embedding")
            && row_rigged(s, "demo_humanoid.obj")
    });
    assert!(
        screen.contains("pinned at"),
        "the pinned joint is shown:\n{screen}"
    );

    tmux.keys(&["q"]);
    tmux.wait("clean exit", Duration::from_secs(30), |s| {
        s.contains("EXITED:0")
    });
}
