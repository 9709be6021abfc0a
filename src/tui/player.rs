//! The clip render job of the thumbnail pane ([`super::play`]): retarget or generate the motion
//! on the rig, pose every frame with linear blend skinning and the rig's own weights
//! ([`crate::motion::preview`]), draw each with our rasterizer and encode it for the terminal,
//! sending frames one by one so playback starts after the first. One worker thread runs one job
//! at a time; a new request or a stop cancels the running job at its next frame.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use ratatui_image::picker::Picker;

use super::app::Msg;
use super::play::{PlayEvent, PlayRequest};
use crate::motion::preview::{framing, pose_frame, preview_frames_at, render_posed};
use crate::motion::{motion_for, CharacterFrame, MotionSource};
use crate::raster::ThumbnailView;
use crate::watch::jobs::WORKER_THREAD_PREFIX;

/// Highest frame rate of the pane. Half-block frames are redrawn as text: about 40 bytes per
/// changed cell, tens of kilobytes per frame for a character in a 70×45-cell pane; 15 frames per
/// second keeps that under a megabyte per second over SSH while staying above the 10 fps at
/// which a walk reads as motion.
pub const TERMINAL_FPS: f64 = 15.0;

/// Render `req`'s clip (`source` on its rig) and report through `send` (which returns false when
/// nobody listens any more). `cancelled` is checked between frames.
pub fn render_clip(
    picker: &Picker,
    source: &MotionSource,
    req: &PlayRequest,
    cancelled: &dyn Fn() -> bool,
    send: &mut dyn FnMut(PlayEvent) -> bool,
) {
    if let Err(error) = frames(picker, source, req, cancelled, send) {
        send(PlayEvent::Failed {
            key: req.key.clone(),
            error,
        });
    }
}

fn frames(
    picker: &Picker,
    source: &MotionSource,
    req: &PlayRequest,
    cancelled: &dyn Fn() -> bool,
    send: &mut dyn FnMut(PlayEvent) -> bool,
) -> Result<(), String> {
    let rig = &req.rig;
    let skin = rig
        .skin
        .as_ref()
        .ok_or_else(|| "the rig has no skin weights".to_string())?;
    if skin.len() != req.mesh.positions.len() {
        return Err(format!(
            "the mesh has {} vertices but the rig's skin has {} rows",
            req.mesh.positions.len(),
            skin.len()
        ));
    }
    let motion = motion_for(rig, source).map_err(|e| e.to_string())?;
    let frame = CharacterFrame::from_label(&rig.orientation).map_err(|e| e.to_string())?;
    let (picked, dt) = preview_frames_at(&motion, TERMINAL_FPS);
    let pose = |&f: &usize| {
        (!cancelled()).then(|| pose_frame(&req.mesh, &rig.joints, skin, &motion, f, &frame, true))
    };
    let Some(posed) = picked.iter().map(pose).collect::<Option<Vec<_>>>() else {
        return Ok(()); // cancelled
    };
    let (cells, px) = (req.key.cells, req.key.cell_px);
    let view = ThumbnailView {
        width: u32::from(cells.0) * u32::from(px.0),
        height: u32::from(cells.1) * u32::from(px.1),
        ..ThumbnailView::default()
    };
    let map = framing(&posed, &view);
    let started = send(PlayEvent::Started {
        key: req.key.clone(),
        clip: motion.name.clone(),
        total: posed.len(),
        frame_time: Duration::from_secs_f64(dt),
    });
    for (index, p) in posed.iter().enumerate() {
        if !started || cancelled() {
            return Ok(());
        }
        let img = render_posed(&req.mesh, p, &view, &map);
        let protocol = super::runtime::encode(picker, img, cells).map_err(|e| e.to_string())?;
        if !send(PlayEvent::Frame {
            key: req.key.clone(),
            index,
            protocol,
        }) {
            return Ok(());
        }
    }
    Ok(())
}

/// The pending request with its cancel token, and the shutdown flag.
type Pending = Option<(Box<PlayRequest>, Arc<AtomicBool>)>;
type Slot = Arc<(Mutex<(Pending, bool)>, Condvar)>;

/// One thread rendering clips; the latest request wins and cancels the one before.
pub struct PlayWorker {
    slot: Slot,
    current: Mutex<Option<Arc<AtomicBool>>>,
    thread: Option<JoinHandle<()>>,
}

impl PlayWorker {
    /// Start the thread; frames go to `tx` as [`Msg::Play`].
    pub fn start(picker: Picker, source: MotionSource, tx: Sender<Msg>) -> std::io::Result<Self> {
        let slot: Slot = Arc::new((Mutex::new((None, false)), Condvar::new()));
        let s = slot.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{WORKER_THREAD_PREFIX}-play"))
            .spawn(move || {
                while let Some((req, token)) = next(&s) {
                    let cancelled = || token.load(Ordering::Relaxed);
                    let mut send = |ev| tx.send(Msg::Play(Box::new(ev))).is_ok();
                    let run = || render_clip(&picker, &source, &req, &cancelled, &mut send);
                    if catch_unwind(AssertUnwindSafe(run)).is_err() {
                        let _ = tx.send(Msg::Play(Box::new(PlayEvent::Failed {
                            key: req.key.clone(),
                            error: "the clip renderer crashed".into(),
                        })));
                    }
                }
            })?;
        Ok(Self {
            slot,
            current: Mutex::new(None),
            thread: Some(thread),
        })
    }

    /// Render `req`, cancelling any job before it.
    pub fn request(&self, req: Box<PlayRequest>) {
        let token = Arc::new(AtomicBool::new(false));
        self.swap_token(Some(token.clone()));
        let (m, cv) = &*self.slot;
        m.lock().unwrap_or_else(|e| e.into_inner()).0 = Some((req, token));
        cv.notify_one();
    }

    /// Cancel the running job and drop a pending one.
    pub fn stop(&self) {
        self.swap_token(None);
        self.slot.0.lock().unwrap_or_else(|e| e.into_inner()).0 = None;
    }

    fn swap_token(&self, token: Option<Arc<AtomicBool>>) {
        let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = std::mem::replace(&mut *cur, token) {
            old.store(true, Ordering::Relaxed);
        }
    }
}

/// Wait for the next request (`None`: shut down).
fn next(slot: &Slot) -> Pending {
    let (m, cv) = &**slot;
    let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if g.1 {
            return None;
        }
        if let Some(p) = g.0.take() {
            return Some(p);
        }
        g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

impl Drop for PlayWorker {
    fn drop(&mut self) {
        self.swap_token(None);
        let (m, cv) = &*self.slot;
        m.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        cv.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
