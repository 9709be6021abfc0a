//! Opt-in key-to-frame latency trace (`GEPPETTO_TUI_TRACE=FILE`): for each key, the time from the
//! input thread reading it (crossterm) to the end of the terminal draw that shows it (after
//! `Terminal::draw` returned, which flushes). Written by the runtime loop only, never by `update`
//! or `view`; lines are buffered in memory and reach the file when the buffer fills or the UI
//! quits, so tracing adds no system call to the loop.
//!
//! Format: a header line, then one tab-separated line per key: `key  ms  playing  jobs`. A key
//! that sends a rig edit (edit mode) gets a second line, `edit:KEY`, timed to the first draw
//! that shows the re-solved rig's thumbnail (every edit answered and its thumbnail on screen).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crossterm::event::KeyEvent;

use super::app::App;

/// The environment variable naming the trace file.
pub const TRACE_ENV: &str = "GEPPETTO_TUI_TRACE";

/// The header line of a trace file.
pub const HEADER: &str = "key\tms\tplaying\tjobs";

/// When each key was read, in order; the input thread pushes, the UI loop pops (keys reach the
/// loop through one channel in the same order).
#[derive(Clone, Default)]
pub struct Stamps(Arc<Mutex<VecDeque<Instant>>>);

impl Stamps {
    /// Record that a key was just read.
    pub fn push(&self, at: Instant) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(at);
    }

    fn pop(&self) -> Option<Instant> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
    }
}

/// True when every edit sent has been answered and the thumbnail on screen shows the rig of
/// the last answer.
fn edit_shown(app: &App) -> bool {
    let Some(e) = app.edit.as_ref() else {
        return false;
    };
    e.pending == 0
        && app
            .thumb
            .as_ref()
            .is_some_and(|t| t.key.mesh == e.mesh && t.key.edit == e.rev + 1)
}

/// One parsed trace line.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceLine {
    /// The key, as crossterm names it (`Down`, `Char(' ')`, …).
    pub key: String,
    /// Milliseconds from reading the key to the end of the draw showing it.
    pub ms: f64,
    /// Whether a clip was playing when the frame was drawn.
    pub playing: bool,
    /// Rig jobs running when the frame was drawn.
    pub jobs: usize,
}

/// The trace writer, owned by the UI loop.
pub struct KeyTrace {
    out: BufWriter<File>,
    stamps: Stamps,
    /// Keys handled since the last draw: name and read time.
    pending: Vec<(String, Instant)>,
    /// Edit keys whose result is not on screen yet: name and read time.
    edits: Vec<(String, Instant)>,
}

impl KeyTrace {
    /// Create the trace file named by [`TRACE_ENV`], if set.
    pub fn from_env() -> anyhow::Result<Option<Self>> {
        match std::env::var_os(TRACE_ENV) {
            Some(p) if !p.is_empty() => Ok(Some(Self::create(Path::new(&p))?)),
            _ => Ok(None),
        }
    }

    /// Create (truncate) `path` and write the header.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
        let f = File::create(path).map_err(|e| {
            anyhow::anyhow!("{}: cannot create the trace file: {e}", path.display())
        })?;
        // Large enough that a session's lines (~30 bytes each) rarely reach the disk mid-run.
        let mut out = BufWriter::with_capacity(1 << 16, f);
        writeln!(out, "{HEADER}")?;
        Ok(Self {
            out,
            stamps: Stamps::default(),
            pending: Vec::new(),
            edits: Vec::new(),
        })
    }

    /// The stamps the input thread pushes to.
    pub fn stamps(&self) -> Stamps {
        self.stamps.clone()
    }

    /// The UI loop handled `key`: pair it with its read time.
    pub fn key(&mut self, key: &KeyEvent) {
        let at = self.stamps.pop().unwrap_or_else(Instant::now);
        self.pending.push((format!("{:?}", key.code), at));
    }

    /// The key just handled sent a rig edit: time it to the frame that shows the result too.
    pub fn edit_sent(&mut self) {
        if let Some((key, at)) = self.pending.last() {
            self.edits.push((format!("edit:{key}"), *at));
        }
    }

    /// A draw has just finished: write one line per key handled since the previous draw, and
    /// one per edit key whose result this frame shows.
    pub fn drawn(&mut self, app: &App) {
        if app.edit.is_none() {
            self.edits.clear(); // the session closed unanswered: nothing to time
        }
        let done = if edit_shown(app) {
            std::mem::take(&mut self.edits)
        } else {
            Vec::new()
        };
        if self.pending.is_empty() && done.is_empty() {
            return;
        }
        let now = Instant::now();
        let playing = app.play.as_ref().is_some_and(|p| p.playing);
        let jobs = app.assets.iter().filter(|a| a.running.is_some()).count();
        for (key, at) in self.pending.drain(..).chain(done) {
            let ms = now.duration_since(at).as_secs_f64() * 1e3;
            let _ = writeln!(self.out, "{key}\t{ms:.2}\t{playing}\t{jobs}");
        }
    }

    /// Write everything buffered to the file.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Parse a trace file's text (header first); the error names the first bad line.
pub fn parse(text: &str) -> Result<Vec<TraceLine>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err("missing header".into());
    }
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let bad = || format!("bad trace line: {l:?}");
            if f.len() != 4 {
                return Err(bad());
            }
            Ok(TraceLine {
                key: f[0].to_string(),
                ms: f[1].parse().map_err(|_| bad())?,
                playing: f[2].parse().map_err(|_| bad())?,
                jobs: f[3].parse().map_err(|_| bad())?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};
    use std::time::Duration;

    #[test]
    fn keys_are_paired_with_their_read_time_and_written_after_the_draw() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.tsv");
        let mut t = KeyTrace::create(&path).unwrap();
        let app = App::new(dir.path().into(), dir.path().join("out"), Instant::now());
        let read = Instant::now() - Duration::from_millis(20);
        t.stamps().push(read);
        t.stamps().push(read + Duration::from_millis(5));
        t.key(&KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
        t.key(&KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
        t.drawn(&app);
        t.drawn(&app); // nothing pending: no line
        t.flush().unwrap();
        let lines = parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].key, "Down");
        assert_eq!(lines[1].key, "Char(' ')");
        assert!(lines[0].ms >= 20.0 && lines[0].ms < 10_000.0, "{lines:?}");
        assert!(
            lines[1].ms >= 15.0 && lines[1].ms < lines[0].ms,
            "{lines:?}"
        );
        assert!(!lines[0].playing && lines[0].jobs == 0);
    }

    #[test]
    fn parse_rejects_malformed_lines() {
        assert!(parse("nope\n").is_err());
        assert!(parse(&format!("{HEADER}\nDown\tx\tfalse\t0\n")).is_err());
        assert!(parse(&format!("{HEADER}\nDown\t1.5\tfalse\n")).is_err());
        assert_eq!(parse(&format!("{HEADER}\n")).unwrap(), vec![]);
    }
}
