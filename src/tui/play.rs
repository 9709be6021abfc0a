//! Motion in the thumbnail pane (issue 13 §3): one key plays the selected asset's clip, deformed
//! with the rig's own skin weights, and pauses it. This module is the state and its update logic
//! only (no I/O, no waiting): frames are rendered and encoded off the UI thread by
//! [`super::player`], arrive as [`PlayEvent`]s in order, and playback advances on the app's
//! clock ([`Msg::Tick`](super::app::Msg::Tick)), so tests drive it with an injected clock.
//!
//! Playback stops (and the render job is cancelled) when the selection moves to another asset,
//! when the asset's rig is replaced (a re-rig finished) or disappears, and when a joint edit
//! starts (the edit needs the still thumbnail to click on).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui_image::protocol::Protocol;

use super::app::{App, Effect};
use crate::mesh::Mesh;
use crate::rig::Rig;

/// The key that plays and pauses (shown in the help bar).
pub const PLAY_KEY: char = ' ';

/// What a set of frames was rendered for; events for another key are stale and dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayKey {
    /// The mesh.
    pub mesh: PathBuf,
    /// Rig run number of the asset.
    pub run: u32,
    /// Pane size in terminal cells.
    pub cells: (u16, u16),
    /// Image pixels per cell.
    pub cell_px: (u16, u16),
    /// Revision of the edited rig played (0: the asset's own rig), see [`super::edit`].
    pub edit: u32,
}

/// A clip to render for the pane (the runtime adds the configured motion source).
#[derive(Debug)]
pub struct PlayRequest {
    /// What to render.
    pub key: PlayKey,
    /// The mesh, mesh frame (input vertices, the skin's rows).
    pub mesh: Arc<Mesh>,
    /// The rig (joints and skin weights).
    pub rig: Arc<Rig>,
}

/// What the render job reports, in this order: `Started`, then `Frame`s by increasing index, or
/// `Failed`.
pub enum PlayEvent {
    /// The clip is retargeted and posed; frames follow.
    Started {
        /// The request.
        key: PlayKey,
        /// Clip name (e.g. `walk`, `trot`, a BVH file stem).
        clip: String,
        /// Frames the clip has at the pane's rate.
        total: usize,
        /// Time between shown frames.
        frame_time: Duration,
    },
    /// One frame, encoded for the terminal.
    Frame {
        /// The request.
        key: PlayKey,
        /// Frame index (0-based, in order).
        index: usize,
        /// The encoded frame.
        protocol: Protocol,
    },
    /// The clip cannot be played on this rig (the message says why).
    Failed {
        /// The request.
        key: PlayKey,
        /// What went wrong, in plain words.
        error: String,
    },
}

/// Playback of one asset's clip.
pub struct Playback {
    /// What is being rendered.
    pub key: PlayKey,
    /// Clip name, once the job reported it.
    pub clip: Option<String>,
    /// Frames rendered so far, in order.
    pub frames: Vec<Protocol>,
    /// Frame count of the clip, once known.
    pub total: usize,
    /// Time between frames.
    pub frame_time: Duration,
    /// Index of the frame on screen.
    pub shown: usize,
    /// Playing (else paused).
    pub playing: bool,
    /// When the next frame is due (app clock), while playing.
    pub due: Instant,
}

impl Playback {
    /// The frame on screen, if any has arrived.
    pub fn frame(&self) -> Option<&Protocol> {
        self.frames
            .get(self.shown.min(self.frames.len().checked_sub(1)?))
    }
}

/// The pane key of the selected asset as the screen is now, with its rig and mesh.
fn current_request(app: &App) -> Option<PlayRequest> {
    let a = app.current()?;
    let info = a.rig()?;
    let area = super::layout::of(app).thumb;
    // In edit mode the edited rig plays: the posed preview of the edits.
    let edit = super::edit::current(app);
    Some(PlayRequest {
        key: PlayKey {
            mesh: a.path.clone(),
            run: a.runs,
            cells: (area.width, area.height),
            cell_px: app.cell_px,
            edit: edit.map_or(0, |e| e.rev + 1),
        },
        mesh: info.mesh.clone(),
        rig: edit.map_or(&info.rig, |e| &e.rig).clone(),
    })
}

/// The play key: start the selected asset's clip, or pause / resume it.
pub fn toggle(app: &mut App) -> Vec<Effect> {
    let now = app.now;
    if let Some(p) = &mut app.play {
        p.playing = !p.playing;
        p.due = now + p.frame_time;
        return Vec::new();
    }
    let Some(req) = current_request(app) else {
        app.message = Some("no rig to play yet".into());
        return Vec::new();
    };
    if req.rig.skin.is_none() {
        app.message = Some("this rig has no skin weights to play a clip with".into());
        return Vec::new();
    }
    app.draft = None;
    app.play = Some(Playback {
        key: req.key.clone(),
        clip: None,
        frames: Vec::new(),
        total: 0,
        frame_time: Duration::from_millis(100),
        shown: 0,
        playing: true,
        due: now,
    });
    vec![Effect::Play(Box::new(req))]
}

/// A report from the render job.
pub fn on_event(app: &mut App, ev: PlayEvent) {
    let now = app.now;
    let Some(p) = app.play.as_mut() else {
        return;
    };
    match ev {
        PlayEvent::Started {
            key,
            clip,
            total,
            frame_time,
        } if key == p.key => {
            p.clip = Some(clip);
            p.total = total;
            p.frame_time = frame_time;
        }
        PlayEvent::Frame {
            key,
            index,
            protocol,
        } if key == p.key && index == p.frames.len() => {
            p.frames.push(protocol);
            if p.frames.len() == 1 {
                // The first frame shows at once; the clock starts from it.
                p.due = now + p.frame_time;
            }
        }
        PlayEvent::Failed { key, error } if key == p.key => {
            app.play = None;
            app.message = Some(format!("cannot play: {error}"));
        }
        _ => {} // a stale job's report
    }
}

/// Time passed: show the next frame when it is due and rendered. A frame not rendered yet holds
/// the current one (the first pass plays at the render speed); a late tick does not skip frames
/// or replay a burst (the next frame is due one frame time after it is shown).
pub fn on_tick(app: &mut App) {
    let now = app.now;
    let Some(p) = app.play.as_mut() else {
        return;
    };
    if !p.playing || p.frames.is_empty() || p.total == 0 || now < p.due {
        return;
    }
    let next = (p.shown + 1) % p.total;
    if next < p.frames.len() {
        p.shown = next;
        p.due += p.frame_time;
        if p.due <= now {
            p.due = now + p.frame_time;
        }
    }
}

/// When the UI loop must tick next for playback: `None` when nothing plays, or while the next
/// frame is not rendered yet (its arrival wakes the loop; a past deadline would spin it).
pub fn deadline(app: &App) -> Option<Instant> {
    app.play
        .as_ref()
        .filter(|p| p.playing && p.total > 0 && (p.shown + 1) % p.total < p.frames.len())
        .map(|p| p.due)
}

/// After every message: stop playback whose asset is no longer selected, re-rigged or being
/// edited, and re-render for a new pane size (keeping the position and the paused state).
pub fn sync(app: &mut App) -> Option<Effect> {
    let p = app.play.as_ref()?;
    let Some(req) = current_request(app).filter(|r| r.key.mesh == p.key.mesh) else {
        app.play = None;
        return Some(Effect::PlayStop);
    };
    if req.key.run != p.key.run || app.draft.is_some() {
        app.play = None;
        return Some(Effect::PlayStop);
    }
    if req.key == p.key {
        return None;
    }
    let p = app.play.as_mut()?;
    p.key = req.key.clone();
    p.frames.clear();
    Some(Effect::Play(Box::new(req)))
}

/// The thumbnail pane's title while a clip is loaded: clip, frame and state.
pub fn title(app: &App) -> Option<String> {
    let p = app.play.as_ref()?;
    let clip = p.clip.as_deref().unwrap_or("clip");
    Some(if p.frames.is_empty() {
        format!(" preparing {clip}… ")
    } else {
        let (mark, what) = if p.playing {
            ("▶", "pause")
        } else {
            ("⏸", "resume")
        };
        let loading = if p.frames.len() < p.total {
            format!(" · rendering {}/{}", p.frames.len(), p.total)
        } else {
            String::new()
        };
        format!(
            " {mark} {clip} {}/{}{loading} │ Space {what} ",
            p.shown + 1,
            p.total
        )
    })
}

/// The frame to draw in the thumbnail pane, when a clip is showing.
pub fn frame(app: &App) -> Option<&Protocol> {
    app.play.as_ref()?.frame()
}

#[cfg(test)]
#[path = "play_tests.rs"]
pub(super) mod tests;
