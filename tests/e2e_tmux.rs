//! End-to-end: the real `geppetto watch` binary inside tmux (`send-keys` to type, `capture-pane`
//! to read) on a temp folder with the two demo characters, with the DEFAULT settings (no
//! `--protocol`: the image-protocol query runs, as it does for a new user).
//!
//! Two terminals are exercised: tmux as tmux (the query is wrapped for the outer terminal, which
//! does not exist here, so it is never answered) and tmux posing as a plain terminal (tmux answers
//! the query itself). In both, keys must reach the UI: Down moves the selection on screen, a joint
//! is pinned with keys and the asset re-rigs from the embedding, Space plays the walk in the
//! thumbnail pane (the frame changes on screen) and pauses it, `q` and Ctrl-C quit with status 0
//! and give the shell back its terminal settings. Skipped with a printed reason when tmux is not
//! installed (a failure when `GEPPETTO_REQUIRE_CORPUS=1`, as in CI).

mod common;

use std::path::{Path, PathBuf};
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

    /// Start `geppetto watch DIR` (plus `extra` arguments) in a detached session; `env` prefixes
    /// the command. The shell prints the exit status and whether the terminal settings it had
    /// before are back.
    fn start(name: &str, dir: &Path, env: &str, extra: &str) -> Self {
        let tmux = Tmux {
            socket: format!("geppetto-e2e-{name}-{}", std::process::id()),
        };
        let bin = env!("CARGO_BIN_EXE_geppetto");
        let cmd = format!(
            "S0=$(stty -g); {env} '{bin}' watch '{}' {extra}; echo EXITED:$?; \
             [ \"$(stty -g)\" = \"$S0\" ] && echo TTY:RESTORED; sleep 120",
            dir.display()
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
        tmux
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// The screen with its colours (escape sequences), to see what the half-block image shows.
    fn capture_colours(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-e", "-t", "e2e"]).stdout)
            .into_owned()
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

/// True when tmux runs; otherwise the test is skipped (a failure under CI's
/// `GEPPETTO_REQUIRE_CORPUS=1`, see `common::skip`).
fn have_tmux() -> bool {
    common::tool("tmux", &["-V"], "CI installs it via .ci/run")
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

/// The list row of the selected asset starts with the selection mark.
fn selected(screen: &str, name: &str) -> bool {
    screen.contains(&format!("▶{name}"))
}

const LONG: Duration = Duration::from_secs(600);

/// Wait until both rows are rigged, then check that Down and Up move the selection on screen.
fn rigged_and_arrows_work(tmux: &Tmux, names: &[String; 2]) {
    let screen = tmux.wait("both meshes rigged", LONG, |s| {
        names.iter().all(|n| row_rigged(s, n))
    });
    assert!(screen.contains("geppetto watch"), "{screen}");
    assert!(
        selected(&screen, &names[0]),
        "first row selected:\n{screen}"
    );
    tmux.keys(&["Down"]);
    let screen = tmux.wait("Down to move the selection", Duration::from_secs(10), |s| {
        selected(s, &names[1])
    });
    assert!(
        !screen.contains("^[["),
        "keys echoed as text (terminal not in raw mode):\n{screen}"
    );
    tmux.keys(&["Up"]);
    tmux.wait(
        "Up to move the selection back",
        Duration::from_secs(10),
        |s| selected(s, &names[0]),
    );
}

/// A watch session with the default settings on two demo meshes in a fresh folder, with the
/// key-to-frame trace (`GEPPETTO_TUI_TRACE`) written outside the watched folder.
struct Traced {
    tmux: Tmux,
    dir: tempfile::TempDir,
    names: [String; 2],
    trace: PathBuf,
    _trace_dir: tempfile::TempDir,
}

fn traced(session: &str) -> Traced {
    let dir = tempfile::tempdir().unwrap();
    let names = two_meshes(dir.path());
    let trace_dir = tempfile::tempdir().unwrap();
    let trace = trace_dir.path().join("keys.tsv");
    let env = format!("GEPPETTO_TUI_TRACE='{}'", trace.display());
    let tmux = Tmux::start(session, dir.path(), &env, "");
    Traced {
        tmux,
        dir,
        names,
        trace,
        _trace_dir: trace_dir,
    }
}

fn clean_exit(tmux: &Tmux) {
    let screen = tmux.wait("clean exit", Duration::from_secs(30), |s| {
        s.contains("EXITED:")
    });
    assert!(screen.contains("EXITED:0"), "exit status:\n{screen}");
    // The shell prints TTY:RESTORED right after EXITED when `stty -g` matches its value before.
    tmux.wait(
        "the terminal settings from before the run",
        Duration::from_secs(5),
        |s| s.contains("TTY:RESTORED"),
    );
}

/// tmux as itself (TERM_PROGRAM=tmux): the query goes to an outer terminal that never answers.
#[test]
fn default_settings_in_tmux_keys_pin_rerig_and_quit() {
    if !have_tmux() {
        return;
    }
    // `tmux` is bound last so it drops first: the session is killed before its folders go.
    let Traced {
        dir,
        names,
        trace,
        _trace_dir,
        tmux,
    } = traced("tmux");
    rigged_and_arrows_work(&tmux, &names);
    let screen = tmux.capture();
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
    let screen = tmux.wait("re-rig from the embedding", LONG, |s| {
        s.contains("runs: 2")
            && s.contains("re-run from the embedding")
            && row_rigged(s, "demo_humanoid.obj")
    });
    assert!(
        screen.contains("pinned at"),
        "the pinned joint is shown:\n{screen}"
    );

    play_and_pause(&tmux);
    tmux.keys(&["q"]);
    clean_exit(&tmux);
    trace_has_every_key(&trace);
}

/// The trace has one parsable line per key handled, in order, and saw the clip playing.
fn trace_has_every_key(path: &Path) {
    let text = std::fs::read_to_string(path).expect("the trace file is written");
    let lines = geppetto::tui::trace::parse(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    let keys: Vec<&str> = lines.iter().map(|l| l.key.as_str()).collect();
    let tabs = keys.iter().filter(|k| **k == "Tab").count();
    assert!(tabs >= 4, "four Tabs traced: {keys:?}");
    assert_eq!(
        keys.last(),
        Some(&"Char('q')"),
        "q is the last key: {keys:?}"
    );
    let spaces: Vec<_> = lines.iter().filter(|l| l.key == "Char(' ')").collect();
    assert_eq!(spaces.len(), 2, "Space to play, Space to pause: {keys:?}");
    assert!(spaces[0].playing && !spaces[1].playing, "{spaces:?}");
    assert!(
        lines.iter().all(|l| l.ms.is_finite() && l.ms >= 0.0),
        "{text}"
    );
}

/// The clip counter in the thumbnail pane's title (`▶ walk 5/17 │ Space pause`): whether it plays
/// and the frame number.
fn clip_counter(screen: &str) -> Option<(bool, usize)> {
    screen.lines().find_map(|l| {
        let playing = l.contains("Space pause");
        if !playing && !l.contains("Space resume") {
            return None;
        }
        let mark = if playing { "▶ " } else { "⏸ " };
        let after = &l[l.find(mark)? + mark.len()..];
        let counter = after.split_whitespace().nth(1)?;
        Some((playing, counter.split_once('/')?.0.parse().ok()?))
    })
}

/// The thumbnail pane's rows with their colours (the right-hand pane of every body row).
fn pane_pixels(coloured: &str) -> Vec<String> {
    coloured
        .lines()
        .skip(2) // header, pane titles
        .filter_map(|l| l.split('│').nth(3).map(str::to_owned))
        .collect()
}

/// Space plays the selected asset's clip in the thumbnail pane (the frames change on screen),
/// Space again pauses it (the frame stays).
fn play_and_pause(tmux: &Tmux) {
    tmux.keys(&["Space"]);
    let screen = tmux.wait("the clip to play", Duration::from_secs(60), |s| {
        clip_counter(s).is_some_and(|(playing, _)| playing)
    });
    assert!(screen.contains("▶ walk"), "the humanoid walks:\n{screen}");
    let before = tmux.capture_colours();
    let (_, first) = clip_counter(&before).expect("counter");
    let t = Instant::now();
    loop {
        let now = tmux.capture_colours();
        let moved = clip_counter(&now).is_some_and(|(_, n)| n != first);
        if moved && pane_pixels(&now) != pane_pixels(&before) {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the frame did not change from {first}:\n{}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(40));
    }
    tmux.keys(&["Space"]);
    tmux.wait("the clip to pause", Duration::from_secs(10), |s| {
        clip_counter(s).is_some_and(|(playing, _)| !playing)
    });
    let paused = tmux.capture_colours();
    std::thread::sleep(Duration::from_millis(600));
    let later = tmux.capture_colours();
    assert_eq!(
        clip_counter(&paused),
        clip_counter(&later),
        "paused:\n{}",
        tmux.capture()
    );
    assert!(
        pane_pixels(&paused) == pane_pixels(&later),
        "a paused clip's frame stays on screen"
    );
}

/// tmux posing as a plain terminal (no TERM_PROGRAM): tmux answers the query itself. Ctrl-C quits.
#[test]
fn default_settings_in_a_plain_terminal_keys_and_ctrl_c() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names = two_meshes(dir.path());
    let tmux = Tmux::start(
        "plain",
        dir.path(),
        "env -u TERM_PROGRAM -u TMUX TERM=xterm-256color",
        "",
    );
    rigged_and_arrows_work(&tmux, &names);
    tmux.keys(&["C-c"]);
    clean_exit(&tmux);
}

/// Rig editing (issue 11) with the default settings: `E` enters edit mode, Tab selects the right
/// forearm, ↑ moves it (the weights are re-solved and the thumbnail changes on screen), `u`
/// undoes one move, `w` saves; the sidecar holds the edit, and a re-rig (`r`) re-applies it.
#[test]
fn default_settings_in_tmux_edit_a_joint_undo_save_and_rerig() {
    if !have_tmux() {
        return;
    }
    // `tmux` is bound last so it drops first: the session is killed before its folders go.
    let Traced {
        dir,
        names,
        trace,
        _trace_dir,
        tmux,
    } = traced("edit");
    rigged_and_arrows_work(&tmux, &names);
    tmux.keys(&["E"]);
    tmux.wait("the edit session", LONG, |s| s.contains("edit mode ready"));
    // Joints of the demo humanoid in order: Hips … RightArm, RightForeArm is the tenth.
    tmux.keys(&["Tab"; 9]);
    tmux.wait("RightForeArm selected", Duration::from_secs(10), |s| {
        s.contains("EDIT RightForeArm")
    });
    let before = pane_pixels(&tmux.capture_colours());
    tmux.keys(&["Up", "Up"]);
    let screen = tmux.wait("two moves re-solved", Duration::from_secs(30), |s| {
        s.contains("2 edits, unsaved") && s.contains("local re-solve")
    });
    assert!(screen.contains("move_joint RightForeArm"), "{screen}");
    let t = Instant::now();
    while pane_pixels(&tmux.capture_colours()) == before {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the thumbnail did not change:\n{}",
            tmux.capture()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.keys(&["u"]);
    tmux.wait("one move undone", Duration::from_secs(30), |s| {
        s.contains("1 edit, unsaved · redo 1")
    });
    tmux.keys(&["w"]);
    tmux.wait("saved", Duration::from_secs(60), |s| {
        s.contains("saved 1 edit to demo_humanoid.edits.yaml")
    });
    let mesh = dir.path().join("demo_humanoid.obj");
    let log = geppetto::edit::sidecar::EditLog::load_for(&mesh)
        .expect("sidecar readable")
        .expect("sidecar written");
    let [geppetto::edit::EditOp::MoveJoint { joint, to, .. }] = log.edits.as_slice() else {
        panic!("one move in the sidecar: {log:?}");
    };
    assert_eq!(joint, "RightForeArm");
    tmux.keys(&["E"]);
    tmux.wait("edit mode left", Duration::from_secs(10), |s| {
        s.contains("left edit mode")
    });
    tmux.keys(&["r"]);
    let screen = tmux.wait("the re-rig re-applying the edit", LONG, |s| {
        s.contains("runs: 2") && row_rigged(s, "demo_humanoid.obj")
    });
    assert!(screen.contains("1 of 1 edits"), "{screen}");
    let json = dir.path().join("rigged/demo_humanoid.rig.json");
    let rig = geppetto::rig::Rig::load(&json).expect("rig.json");
    let j = rig.joints.iter().find(|j| &j.name == joint).expect("joint");
    assert_eq!(
        &j.position, to,
        "the re-rig put the joint where the edit did"
    );
    tmux.keys(&["q"]);
    clean_exit(&tmux);
    let text = std::fs::read_to_string(&trace).expect("trace");
    let lines = geppetto::tui::trace::parse(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    let edits: Vec<_> = lines
        .iter()
        .filter(|l| l.key.starts_with("edit:"))
        .collect();
    assert!(
        !edits.is_empty(),
        "edit keys are timed to their frame:\n{text}"
    );
    for l in &edits {
        println!("key-to-frame {}: {:.1} ms", l.key, l.ms);
    }
}
