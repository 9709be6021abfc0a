//! The two front ends over the same [`App`] and [`Runtime`]: the interactive terminal loop and the
//! headless loop (one log line per event).

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use ratatui_image::picker::Picker;

use super::app::{App, Msg, RowStatus};
use super::runtime::{cell_pixels, Runtime};
use super::trace::{KeyTrace, Stamps};
use super::update::update;
use super::view;
use crate::config::RigConfig;
use crate::watch::jobs::WORKER_THREAD_PREFIX;
use crate::watch::{JobEvent, WatchSettings};

/// How often the clock ticks (running times, redraws) when nothing else happens.
const TICK: Duration = Duration::from_millis(250);

/// Leave raw mode and the alternate screen (idempotent; safe to call from a panic hook).
pub fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// Restore the terminal before a panic message is printed — except for panics on worker threads,
/// which `catch_unwind` turns into failed rows while the UI keeps running.
pub fn install_panic_hook(screen: bool) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let worker = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with(WORKER_THREAD_PREFIX));
        if worker {
            return;
        }
        if screen {
            restore_terminal();
        }
        default(info);
    }));
}

/// Run the interactive UI until `q` or Ctrl-C.
///
/// Order matters: raw mode first (it records the terminal settings to restore on exit), then the
/// alternate screen, then the image-protocol query on this thread ([`super::probe`]), and only
/// then the input thread, so that exactly one reader ever reads the terminal at a time.
pub fn run_tui(settings: &WatchSettings, config: RigConfig) -> anyhow::Result<ExitCode> {
    super::runtime::protocol_type(&settings.protocol)?;
    install_panic_hook(true);
    enable_raw_mode()?;
    let result = (|| {
        execute!(std::io::stdout(), EnterAlternateScreen)?;
        let (picker, interrupted) = super::probe::picker(&settings.protocol)?;
        if interrupted {
            return Ok(()); // Ctrl-C while the terminal was being asked: leave quietly
        }
        execute!(std::io::stdout(), EnableMouseCapture)?;
        interactive(settings, config, picker)
    })();
    restore_terminal();
    result?;
    Ok(ExitCode::SUCCESS)
}

/// The UI proper, once the terminal is set up.
fn interactive(settings: &WatchSettings, config: RigConfig, picker: Picker) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel();
    let mut app = App::new(
        settings.root.clone(),
        settings.out_dir.clone(),
        Instant::now(),
    );
    app.templates = settings.template_rules();
    app.cell_px = cell_pixels(&picker);
    app.protocol = format!("{:?}", picker.protocol_type()).to_lowercase();
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    let size = terminal.size()?;
    app.size = (size.width, size.height);
    let runtime = Runtime::start(settings, config, Some(picker), tx.clone())?;
    let mut trace = KeyTrace::from_env()?;
    let stop = Arc::new(AtomicBool::new(false));
    let input = spawn_input(tx, stop.clone(), trace.as_ref().map(KeyTrace::stamps))?;
    let r = ui_loop(&mut app, &runtime, &rx, &mut terminal, trace.as_mut());
    if let Some(t) = &mut trace {
        t.flush()?;
    }
    stop.store(true, Ordering::Relaxed);
    let _ = input.join();
    r
}

fn spawn_input(
    tx: mpsc::Sender<Msg>,
    stop: Arc<AtomicBool>,
    stamps: Option<Stamps>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("geppetto-input".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if !event::poll(Duration::from_millis(50)).unwrap_or(false) {
                    continue;
                }
                let msg = match event::read() {
                    Ok(Event::Key(k)) => {
                        if let Some(s) = &stamps {
                            s.push(Instant::now());
                        }
                        Msg::Key(k)
                    }
                    Ok(Event::Mouse(m)) => Msg::Mouse(m),
                    Ok(Event::Resize(w, h)) => Msg::Resize(w, h),
                    Ok(_) => continue,
                    Err(_) => break,
                };
                if tx.send(msg).is_err() {
                    break;
                }
            }
        })
}

fn ui_loop(
    app: &mut App,
    runtime: &Runtime,
    rx: &Receiver<Msg>,
    terminal: &mut Terminal<CrosstermBackend<std::io::Stdout>>,
    mut trace: Option<&mut KeyTrace>,
) -> anyhow::Result<()> {
    terminal.draw(|f| view::render(app, f))?;
    let mut last_tick = Instant::now();
    while !app.quit {
        // A playing clip ticks at its frame rate; otherwise the clock ticks every TICK.
        let due = super::play::deadline(app);
        let wait = due.map_or(TICK, |d| {
            d.saturating_duration_since(Instant::now()).min(TICK)
        });
        let first = match rx.recv_timeout(wait) {
            Ok(m) => Some(m),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        // Handle everything already waiting, then draw once.
        for msg in first
            .into_iter()
            .chain(std::iter::from_fn(|| rx.try_recv().ok()))
        {
            if let (Some(t), Msg::Key(k)) = (trace.as_deref_mut(), &msg) {
                t.key(k);
            }
            let is_key = matches!(msg, Msg::Key(_));
            let fx = update(app, msg);
            if let Some(t) = trace.as_deref_mut() {
                if is_key && fx.iter().any(is_edit_apply) {
                    t.edit_sent();
                }
            }
            runtime.execute(fx);
            if app.quit {
                break;
            }
        }
        let frame_due = super::play::deadline(app).is_some_and(|d| d <= Instant::now());
        if last_tick.elapsed() >= TICK || frame_due {
            last_tick = Instant::now();
            let fx = update(app, Msg::Tick(last_tick));
            runtime.execute(fx);
        }
        terminal.draw(|f| view::render(app, f))?;
        if let Some(t) = trace.as_deref_mut() {
            t.drawn(app);
        }
    }
    Ok(())
}

/// An edit command that changes the rig (apply or undo), for the latency trace.
fn is_edit_apply(e: &super::app::Effect) -> bool {
    use super::editor::EditCmdBody;
    matches!(e, super::app::Effect::Edit(c) if matches!(c.body, EditCmdBody::Apply { .. } | EditCmdBody::Undo { .. }))
}

/// Run without a screen: one log line per event on stdout. With `once`, exit after every mesh found
/// by the initial scan is rigged; the exit code is 1 if any failed.
pub fn run_headless(
    settings: &WatchSettings,
    config: RigConfig,
    once: bool,
) -> anyhow::Result<ExitCode> {
    install_panic_hook(false);
    let (tx, rx) = mpsc::channel();
    let mut app = App::new(
        settings.root.clone(),
        settings.out_dir.clone(),
        Instant::now(),
    );
    app.templates = settings.template_rules();
    app.headless = true;
    let runtime = Runtime::start(settings, config, None, tx)?;
    println!(
        "watching {} → {} ({}, skeleton {})",
        settings.root.display(),
        settings.out_dir.display(),
        crate::util::count(settings.workers, "worker", "workers"),
        settings.skeleton
    );
    let mut printed = 0u64;
    let mut stdout = std::io::stdout();
    loop {
        let msg = match rx.recv_timeout(TICK) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => Msg::Tick(Instant::now()),
            Err(RecvTimeoutError::Disconnected) => break,
        };
        print_job_event(&mut stdout, &app, &msg);
        let fx = update(&mut app, msg);
        runtime.execute(fx);
        printed = print_new_log(&mut stdout, &app, printed);
        if once && app.settled() {
            break;
        }
    }
    print_summary(&app);
    let failed = app.assets.iter().any(|a| {
        a.status() == RowStatus::Failed || a.rig().is_some_and(|r| !r.output_errors.is_empty())
    });
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The headless line of a job starting or entering a stage (the log itself says how it ended).
fn print_job_event(out: &mut impl Write, app: &App, msg: &Msg) {
    if let Msg::Job(JobEvent::Stage { path, stage, .. }) = msg {
        let _ = writeln!(out, "{}: {}", app.rel(path), stage.name());
    }
    if let Msg::Job(JobEvent::Started { path, .. }) = msg {
        let _ = writeln!(out, "rigging: {}", app.rel(path));
    }
    if let Msg::Job(JobEvent::Retry { path, .. }) = msg {
        let _ = writeln!(
            out,
            "{}: finer retry (low confidence so far: rigging again at a finer resolution, which reaches thinner limbs; this takes longer)",
            app.rel(path)
        );
    }
}

/// Print the log lines added since `printed` of them were (the log keeps only the newest, so
/// count by the running total) and flush; returns the new total.
fn print_new_log(out: &mut impl Write, app: &App, printed: u64) -> u64 {
    let new = app.log_total - printed;
    for line in app
        .log
        .iter()
        .skip(app.log.len().saturating_sub(new as usize))
    {
        let _ = writeln!(out, "{line}");
    }
    let _ = out.flush();
    app.log_total
}

/// A table of every asset: name, status, penalty, time.
pub fn print_summary(app: &App) {
    for line in summary_lines(app) {
        println!("{line}");
    }
}

/// The lines [`print_summary`] prints (a blank line, the header, a row per asset with its
/// failure or unwritten outputs, the totals).
pub fn summary_lines(app: &App) -> Vec<String> {
    let super::header::Counts {
        ok,
        low,
        failed,
        empty,
        ..
    } = app.counts();
    let empty = if empty > 0 {
        let files = crate::util::count(empty, "empty (0-byte) file", "empty (0-byte) files");
        format!(", {files} not rigged")
    } else {
        String::new()
    };
    let mut out = vec![
        String::new(),
        format!(
            "{:<40} {:<14} {:>9} {:>8}",
            "asset", "status", "penalty", "time"
        ),
    ];
    for &i in &app.order() {
        let a = &app.assets[i];
        let (s, _) = view::status_text(a.status());
        let (pen, time) = a.rig().map_or((String::new(), String::new()), |r| {
            (
                super::rig_view::penalty_text(&r.rig),
                r.rig
                    .timings_ms
                    .get("total")
                    .map_or(String::new(), |t| format!("{:.1}s", t / 1000.0)),
            )
        });
        out.push(format!("{:<40} {:<14} {:>9} {:>8}", a.name, s, pen, time));
        if let Some(super::app::LastRun::Failed(e)) = &a.last {
            out.push(format!("    {e}"));
        }
        for e in a.rig().iter().flat_map(|r| &r.output_errors) {
            out.push(format!("    not written: {e}"));
        }
    }
    out.push(format!(
        "{ok} ok, {low} low confidence, {failed} failed{empty}; outputs in {}",
        app.out_dir.display()
    ));
    out
}
