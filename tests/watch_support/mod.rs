//! The watch tests' harness (tests/watch_folder.rs, tests/watch_companions.rs): a watcher and job
//! pool on a real temporary folder, driven through the same `App`/`update` and `Runtime` as the UI
//! (headless), with every job event recorded.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use geppetto::config::RigConfig;
use geppetto::tui::app::{App, LastRun, Msg};
use geppetto::tui::runtime::Runtime;
use geppetto::tui::update;
use geppetto::watch::{JobEvent, JobResult, WatchConfig, WatchSettings};

/// How long to wait for an expected state (`GEPPETTO_TEST_DEADLINE_S` overrides; default 300 s).
pub fn deadline() -> Duration {
    let secs = std::env::var("GEPPETTO_TEST_DEADLINE_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    Duration::from_secs(secs)
}

pub struct Rt {
    pub app: App,
    pub rt: Runtime,
    pub rx: Receiver<Msg>,
    pub dir: tempfile::TempDir,
    /// Every job event seen: (mesh, started?, finished result kind).
    pub events: Vec<(PathBuf, &'static str)>,
}

impl Rt {
    pub fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self::start_in(dir)
    }

    pub fn start_in(dir: tempfile::TempDir) -> Self {
        Self::start_with(dir, None)
    }

    pub fn start_with(dir: tempfile::TempDir, poll: Option<Duration>) -> Self {
        let mut s = WatchSettings::resolve(&WatchConfig::default(), dir.path()).unwrap();
        s.poll = poll;
        s.settle = Duration::from_millis(400);
        s.debounce = Duration::from_millis(100);
        s.workers = 2;
        let (tx, rx) = mpsc::channel();
        let mut app = App::new(s.root.clone(), s.out_dir.clone(), Instant::now());
        app.headless = true;
        let rt = Runtime::start(&s, RigConfig::default(), None, tx).unwrap();
        Self {
            app,
            rt,
            rx,
            dir,
            events: Vec::new(),
        }
    }

    pub fn root(&self) -> PathBuf {
        self.app.root.clone()
    }

    /// Process messages until `pred` holds; panics with the app state after the deadline.
    pub fn until(&mut self, what: &str, pred: impl Fn(&App) -> bool) {
        let t = Instant::now();
        while !pred(&self.app) {
            assert!(
                t.elapsed() < deadline(),
                "timed out waiting for {what}; state:\n{}",
                dump(&self.app)
            );
            if let Ok(msg) = self.rx.recv_timeout(Duration::from_millis(50)) {
                if let Msg::Job(e) = &msg {
                    self.events.push(match e {
                        JobEvent::Started { path, .. } => (path.clone(), "started"),
                        JobEvent::Finished { path, result, .. } => (
                            path.clone(),
                            match result {
                                JobResult::Done(_) => "done",
                                JobResult::Failed(_) => "failed",
                                JobResult::Cancelled => "cancelled",
                            },
                        ),
                        JobEvent::Stage { path, .. }
                        | JobEvent::Retry { path, .. }
                        | JobEvent::Fraction { path, .. } => (path.clone(), "progress"),
                    });
                }
                let fx = update(&mut self.app, msg);
                self.rt.execute(fx);
            }
        }
    }

    /// Keep processing for `d` (to see that nothing else happens).
    pub fn idle(&mut self, d: Duration) {
        let end = Instant::now() + d;
        self.until("idle", |_| Instant::now() >= end);
    }

    pub fn count(&self, path: &Path, kind: &str) -> usize {
        self.events
            .iter()
            .filter(|(p, k)| p == path && *k == kind)
            .count()
    }
}

pub fn dump(app: &App) -> String {
    app.assets
        .iter()
        .map(|a| {
            let err = match &a.last {
                Some(LastRun::Failed(e)) => e.clone(),
                _ => String::new(),
            };
            format!("  {} {:?} runs={} {err}", a.name, a.status(), a.runs)
        })
        .chain(app.log.iter().rev().take(10).map(|l| format!("  log: {l}")))
        .collect::<Vec<_>>()
        .join("\n")
}
