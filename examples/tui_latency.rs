//! Responsiveness benchmark (issue 5): key press → redrawn frame while two real rigs run.
//!
//! Starts the real runtime (watcher, two workers, thumbnail thread) on a temp folder, keeps two
//! rigs running (writing fresh mesh variants whenever fewer than two run), and injects key presses
//! (↓ ↑ Tab w) into `update`, executing the effects and drawing the frame into a 160×48
//! `TestBackend`, exactly as the UI loop does. Only presses made while two rigs were running count.
//!
//! `cargo run --release --example tui_latency [SAMPLES]` (default 200).

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use geppetto::config::RigConfig;
use geppetto::tui::app::{update, App, Msg, RowStatus};
use geppetto::tui::runtime::{cell_pixels, Runtime};
use geppetto::tui::view;
use geppetto::watch::{WatchConfig, WatchSettings};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use ratatui_image::picker::Picker;

fn write_variant(dir: &Path, i: usize) {
    let (m, _) = geppetto::raster::figure::box_figure(false);
    // Subdivide nothing, just vary proportions so the discretization cache cannot help.
    let sy = 1.0 + 0.01 * i as f64;
    let mut s = String::new();
    for p in &m.positions {
        s += &format!("v {} {} {}\n", p.x, p.y * sy, p.z);
    }
    for t in &m.triangles {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(dir.join(format!("variant{i:03}.obj")), s).expect("write mesh");
}

fn main() -> anyhow::Result<()> {
    let samples: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir()?;
    let mut settings = WatchSettings::resolve(&WatchConfig::default(), dir.path())?;
    settings.workers = 2;
    settings.settle = Duration::from_millis(200);
    let picker = Picker::halfblocks();
    let (tx, rx) = mpsc::channel();
    let mut app = App::new(
        settings.root.clone(),
        settings.out_dir.clone(),
        Instant::now(),
    );
    app.size = (160, 48);
    app.cell_px = cell_pixels(&picker);
    let rt = Runtime::start(&settings, RigConfig::default(), Some(picker), tx)?;
    let mut term = Terminal::new(TestBackend::new(160, 48))?;
    let keys = [KeyCode::Down, KeyCode::Up, KeyCode::Tab, KeyCode::Char('w')];
    let mut lat = Vec::new();
    let mut written = 0;
    let t_start = Instant::now();
    while lat.len() < samples && t_start.elapsed() < Duration::from_secs(900) {
        // Drain background messages as the UI loop would.
        while let Ok(m) = rx.try_recv() {
            let fx = update(&mut app, m);
            rt.execute(fx);
        }
        let running = app
            .assets
            .iter()
            .filter(|a| matches!(a.status(), RowStatus::Running(..)))
            .count();
        let pending = app
            .assets
            .iter()
            .filter(|a| a.status() == RowStatus::Queued)
            .count();
        if running + pending < 2 {
            write_variant(dir.path(), written);
            written += 1;
        }
        if running == 2 {
            let key = keys[lat.len() % keys.len()];
            let t = Instant::now();
            let fx = update(&mut app, Msg::Key(KeyEvent::new(key, KeyModifiers::NONE)));
            rt.execute(fx);
            term.draw(|f| view::render(&app, f))?;
            lat.push(t.elapsed().as_secs_f64() * 1e3);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if lat.is_empty() {
        anyhow::bail!("never saw two rigs running at once (rigs too fast or all failing?)");
    }
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
    println!(
        "key→frame latency with two rigs running: n={} median {:.2} ms, p95 {:.2} ms, max {:.2} ms ({} meshes rigged)",
        lat.len(),
        pct(0.5),
        pct(0.95),
        lat[lat.len() - 1],
        app.assets.iter().filter(|a| a.runs > 0).count()
    );
    Ok(())
}
