//! The application state, its messages and effects (style anchor P8): `update(&mut App, Msg)`
//! changes state and returns [`Effect`]s for the runtime to perform; it does no I/O and never
//! waits, so tests drive it with scripted messages and an injected clock.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{KeyEvent, MouseEvent};
use ratatui_image::protocol::Protocol;

pub use super::header::Counts;
use crate::embed::hints::Hints;
use crate::mesh::Mesh;
use crate::raster::{ThumbnailView, ViewMap};
use crate::rig::Rig;
use crate::watch::{FsChange, JobEvent};

pub use super::asset::{Asset, LastRun, RigInfo, RowStatus};

/// Everything that can happen to the app.
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event.
    Mouse(MouseEvent),
    /// The watcher saw something.
    Fs(FsChange),
    /// A job reported.
    Job(JobEvent),
    /// A thumbnail finished rendering.
    Thumb(Box<ThumbReady>),
    /// A hints file write finished (`Err` carries the message).
    HintsSaved {
        /// The mesh.
        mesh: PathBuf,
        /// Outcome.
        result: Result<(), String>,
    },
    /// The clip render job reported (see [`super::play`]).
    Play(Box<super::play::PlayEvent>),
    /// The rig-edit worker replied (see [`super::edit`]).
    Edit(Box<super::editor::EditEvent>),
    /// Time passed (the app's clock; tests inject it).
    Tick(Instant),
    /// The terminal was resized to (columns, rows).
    Resize(u16, u16),
}

/// Work for the runtime; the app never performs it itself.
#[derive(Debug)]
pub enum Effect {
    /// Queue (or re-queue, coalescing) a rig of this mesh.
    Rig(PathBuf),
    /// Drop queued work and cancel a running rig of this mesh (it was deleted).
    Cancel(PathBuf),
    /// Write the sidecar `NAME.hints.yaml` of `mesh` atomically.
    SaveHints {
        /// The mesh.
        mesh: PathBuf,
        /// The new hints.
        hints: Hints,
    },
    /// Render a thumbnail off the UI thread.
    Thumbnail(Box<ThumbRequest>),
    /// Render a clip's frames off the UI thread (cancelling any clip job before it).
    Play(Box<super::play::PlayRequest>),
    /// Cancel the clip job.
    PlayStop,
    /// A command for the rig-edit worker.
    Edit(Box<super::editor::EditCmd>),
    /// Leave the program.
    Quit,
}

/// What a thumbnail shows; a new request is made whenever this changes.
#[derive(Clone, Debug, PartialEq)]
pub struct ThumbKey {
    /// The mesh.
    pub mesh: PathBuf,
    /// Rig run number of the asset.
    pub run: u32,
    /// Selection, heat map and draft.
    pub view: ThumbnailView,
    /// Size in terminal cells.
    pub cells: (u16, u16),
    /// Revision of the edited rig shown (0: the asset's own rig, not in edit mode).
    pub edit: u32,
}

/// A thumbnail to render.
#[derive(Debug)]
pub struct ThumbRequest {
    /// What to render.
    pub key: ThumbKey,
    /// The mesh, mesh frame.
    pub mesh: Arc<Mesh>,
    /// The rig.
    pub rig: Arc<Rig>,
}

/// A rendered thumbnail, encoded for the terminal.
pub struct ThumbReady {
    /// What it shows.
    pub key: ThumbKey,
    /// Terminal image (half-blocks, sixel, kitty or iTerm2).
    pub protocol: Protocol,
    /// Pixel ↔ mesh mapping, for mouse clicks.
    pub map: ViewMap,
}

/// A joint position being edited (mesh frame), not yet written.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// The mesh.
    pub mesh: PathBuf,
    /// Joint index.
    pub joint: usize,
    /// Position, mesh frame.
    pub pos: [f64; 3],
}

/// The whole UI state.
pub struct App {
    /// Watched folder.
    pub root: PathBuf,
    /// Output folder.
    pub out_dir: PathBuf,
    /// Assets in discovery order (see [`App::order`] for display order).
    pub assets: Vec<Asset>,
    /// Selected asset.
    pub selected: Option<PathBuf>,
    /// Sort failures (then low confidence) first.
    pub failures_first: bool,
    /// Show the selected joint's weights.
    pub heat: bool,
    /// Joint position being edited.
    pub draft: Option<Draft>,
    /// Coordinate entry line, when open.
    pub input: Option<String>,
    /// Previous hints per mesh, for undo.
    pub undo: HashMap<PathBuf, Vec<Hints>>,
    /// Recent events (newest last).
    pub log: VecDeque<String>,
    /// Lines ever logged (headless mode prints the new ones).
    pub log_total: u64,
    /// A message for the status line: the answer to the last key, shown until the next event
    /// is logged (outside edit mode and the coordinate line, whose messages stay).
    pub message: Option<String>,
    /// Detail pane scroll offset (lines).
    pub scroll: u16,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// Image pixels per terminal cell (1×2 for half-blocks, the font size otherwise).
    pub cell_px: (u16, u16),
    /// Image protocol name, for the header.
    pub protocol: String,
    /// The current thumbnail.
    pub thumb: Option<ThumbReady>,
    /// The thumbnail last requested.
    pub thumb_requested: Option<ThumbKey>,
    /// The clip playing (or paused) in the thumbnail pane.
    pub play: Option<super::play::Playback>,
    /// Rig edit mode (issue 11), when on.
    pub edit: Option<super::edit::EditState>,
    /// Edit sessions started so far (session ids).
    pub edit_sessions: u64,
    /// No screen: never request thumbnails.
    pub headless: bool,
    /// The initial scan finished.
    pub scan_done: bool,
    /// Which assets depend on which other files (buffers, `.mtl`, textures), as their last loads
    /// saw them.
    pub companions: crate::watch::Companions,
    /// The app clock.
    pub now: Instant,
    /// Quit requested.
    pub quit: bool,
    /// The watcher's template rules: what a mesh whose sidecar names no template is rigged with.
    pub templates: crate::watch::TemplateRules,
}

/// Log lines kept.
const LOG_LINES: usize = 200;

impl App {
    /// A fresh app for `root` with outputs in `out_dir`.
    pub fn new(root: PathBuf, out_dir: PathBuf, now: Instant) -> Self {
        Self {
            root,
            out_dir,
            assets: Vec::new(),
            selected: None,
            failures_first: false,
            heat: false,
            draft: None,
            input: None,
            undo: HashMap::new(),
            log: VecDeque::new(),
            log_total: 0,
            message: None,
            scroll: 0,
            size: (100, 30),
            cell_px: (1, 2),
            protocol: "halfblocks".into(),
            thumb: None,
            thumb_requested: None,
            play: None,
            edit: None,
            edit_sessions: 0,
            headless: false,
            scan_done: false,
            companions: crate::watch::Companions::default(),
            templates: crate::watch::TemplateRules::default(),
            now,
            quit: false,
        }
    }

    /// Asset indices in display order: by name, or failures and low confidence first.
    pub fn order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.assets.len()).collect();
        let rank = |a: &Asset| match (self.failures_first, a.status()) {
            (false, _) => 0,
            (true, RowStatus::Failed) => 0,
            (true, RowStatus::NotWritten | RowStatus::LowConfidence) => 1,
            (true, _) => 2,
        };
        idx.sort_by(|&a, &b| {
            let (x, y) = (&self.assets[a], &self.assets[b]);
            rank(x).cmp(&rank(y)).then_with(|| x.name.cmp(&y.name))
        });
        idx
    }

    /// Index of the asset at `path`.
    pub fn find(&self, path: &Path) -> Option<usize> {
        self.assets.iter().position(|a| a.path == path)
    }

    /// The selected asset.
    pub fn current(&self) -> Option<&Asset> {
        self.selected
            .as_deref()
            .and_then(|p| self.find(p))
            .map(|i| &self.assets[i])
    }

    /// The selected asset's selected joint index (0 when nothing is selected).
    pub fn joint(&self) -> usize {
        self.current().map_or(0, |a| a.joint)
    }

    /// True once the initial scan is done and no asset is queued or running.
    pub fn settled(&self) -> bool {
        self.scan_done
            && self
                .assets
                .iter()
                .all(|a| !a.queued && a.running.is_none() && (a.last.is_some() || a.empty))
    }

    /// Counts per row status.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for a in &self.assets {
            match a.status() {
                RowStatus::Ok => c.ok += 1,
                RowStatus::LowConfidence => c.low += 1,
                // Counted with the failures: the user has something to fix.
                RowStatus::Failed | RowStatus::NotWritten => c.failed += 1,
                RowStatus::Running(..) | RowStatus::Retrying => c.running += 1,
                RowStatus::Queued => c.queued += 1,
                RowStatus::Empty => c.empty += 1,
            }
        }
        c
    }

    /// Add a line to the event log. It replaces a key's message on the status line, so the
    /// line shows what happened last: "pinned Hips …; re-rigging" (or "no rig to play yet")
    /// used to stay there after the re-rig finished, hiding its result, until Esc. The edit
    /// session's and the coordinate line's messages belong to what is on screen and stay.
    pub fn push_log(&mut self, line: String) {
        if self.edit.is_none() && self.input.is_none() {
            self.message = None;
        }
        if self.log.len() >= LOG_LINES {
            self.log.pop_front();
        }
        self.log.push_back(line);
        self.log_total += 1;
    }

    pub(super) fn asset_mut(&mut self, path: &Path) -> Option<&mut Asset> {
        self.assets.iter_mut().find(|a| a.path == path)
    }

    /// Add a row for `path` if new; returns its index.
    pub(super) fn ensure(&mut self, path: &Path) -> usize {
        if let Some(i) = self.find(path) {
            return i;
        }
        self.assets.push(Asset::new(path, &self.root));
        if self.selected.is_none() {
            self.selected = Some(path.to_path_buf());
        }
        self.assets.len() - 1
    }

    /// Display name of a path (relative to the watched folder).
    pub fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}
