//! The rig-editing job of the watch UI ([`super::edit`]): one worker thread owns the editing
//! session ([`crate::edit::Session`]) of the asset being edited and runs its commands in order —
//! open (load, prepare, distance field, skin: a cancellable pipeline run), apply an edit (a local
//! re-solve), undo (restore the snapshot taken before the edit), save (global refresh, sidecar,
//! outputs) — replying one [`EditEvent`] per command. The UI thread never solves.
//!
//! Results depend on the command sequence alone: commands run one at a time in the order sent.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::app::Msg;
pub use super::editor_msg::{EditCmd, EditCmdBody, EditEvent, Saved};
use crate::config::RigConfig;
use crate::edit::sidecar::{self, EditLog};
use crate::edit::{EditOp, Session};
use crate::export::{write_rig_to, Format, GlbSource};
use crate::geom::P3;
use crate::mesh::Mesh;
use crate::naming::output_base;
use crate::pipeline::EditBase;
use crate::pipeline::{AttachRequest, Pipeline};
use crate::progress::Progress;
use crate::rig::Rig;
use crate::watch::jobs::WORKER_THREAD_PREFIX;

/// Edits kept for undo. A snapshot is a copy of the session's weights and factors-free system
/// (a few megabytes on a 30k-vertex mesh); older edits stay applied but can no longer be undone.
pub const UNDO_DEPTH: usize = 64;

/// Where saved outputs go (the watcher's rule) and in which formats.
#[derive(Clone, Debug)]
pub struct SaveTarget {
    /// Watched folder.
    pub root: PathBuf,
    /// Output folder.
    pub out_dir: PathBuf,
    /// Output formats (a thumbnail is always written, as the watcher does).
    pub formats: Vec<Format>,
}

/// The worker thread. Dropping it closes the channel and joins the thread.
pub struct EditWorker {
    tx: Option<Sender<EditCmd>>,
    live: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl EditWorker {
    /// Start the thread; replies go to `out` as [`Msg::Edit`].
    pub fn start(config: RigConfig, target: SaveTarget, out: Sender<Msg>) -> std::io::Result<Self> {
        let (tx, rx) = std::sync::mpsc::channel::<EditCmd>();
        let live = Arc::new(AtomicU64::new(0));
        let ctx = Ctx {
            pipeline: Pipeline::new(config),
            target,
            live: live.clone(),
            out,
        };
        let thread = std::thread::Builder::new()
            .name(format!("{WORKER_THREAD_PREFIX}-edit"))
            .spawn(move || ctx.run(&rx))?;
        Ok(Self {
            tx: Some(tx),
            live,
            thread: Some(thread),
        })
    }

    /// Queue a command. Opening or closing a session cancels an open still in progress.
    pub fn send(&self, cmd: EditCmd) {
        match cmd.body {
            EditCmdBody::Open { .. } => self.live.store(cmd.session, Ordering::Relaxed),
            EditCmdBody::Close => self.live.store(0, Ordering::Relaxed),
            _ => {}
        }
        if let Some(tx) = &self.tx {
            let _ = tx.send(cmd);
        }
    }
}

impl Drop for EditWorker {
    fn drop(&mut self) {
        self.live.store(0, Ordering::Relaxed);
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Ctx {
    pipeline: Pipeline,
    target: SaveTarget,
    live: Arc<AtomicU64>,
    out: Sender<Msg>,
}

/// Cancels the open of session `id` once another session is live.
struct OpenProgress<'a> {
    live: &'a AtomicU64,
    id: u64,
}

impl Progress for OpenProgress<'_> {
    fn cancelled(&self) -> bool {
        self.live.load(Ordering::Relaxed) != self.id
    }
}

impl Ctx {
    fn send(&self, ev: EditEvent) -> bool {
        self.out.send(Msg::Edit(Box::new(ev))).is_ok()
    }

    /// Wait for `Open` commands; run each session until it closes or another opens.
    fn run(&self, rx: &Receiver<EditCmd>) {
        let mut next = rx.recv().ok();
        while let Some(cmd) = next.take() {
            next = match cmd.body {
                EditCmdBody::Open { mesh, rig } => {
                    let run = || self.session(cmd.session, &mesh, &rig, rx);
                    match catch_unwind(AssertUnwindSafe(run)) {
                        Ok(follow) => follow,
                        Err(_) => {
                            let error = "the edit session crashed".to_string();
                            let session = cmd.session;
                            self.send(EditEvent::OpenFailed { session, error });
                            rx.recv().ok()
                        }
                    }
                }
                _ => rx.recv().ok(), // a command of a session that is gone
            };
        }
    }

    /// One session: returns the command that ended it (another `Open`), or `None` at shutdown.
    fn session(
        &self,
        id: u64,
        mesh: &Path,
        rig: &Arc<Rig>,
        rx: &Receiver<EditCmd>,
    ) -> Option<EditCmd> {
        let t = std::time::Instant::now();
        let (base, log) = match self.open(id, mesh, rig) {
            Ok(b) => b,
            Err(error) => {
                if self.live.load(Ordering::Relaxed) == id {
                    self.send(EditEvent::OpenFailed { session: id, error });
                }
                return self.skip_session(rx);
            }
        };
        let sdf = |p: &P3| base.field.eval(p);
        let session = match self.new_session(&base, &sdf, rig, &log) {
            Ok(s) => s,
            Err(error) => {
                self.send(EditEvent::OpenFailed { session: id, error });
                return self.skip_session(rx);
            }
        };
        let mut live = Live {
            id,
            mesh,
            base: &base,
            log,
            template: Arc::new(Rig {
                skin: None,
                ..(**rig).clone()
            }),
            session,
            undo: Vec::new(),
        };
        self.send(EditEvent::Ready {
            session: id,
            rig: live.shown(),
            controls: live.session.controls.clone(),
            ms: crate::util::ms_since(t),
        });
        self.serve(&mut live, rx)
    }

    /// The editing session over `base` (`sdf`: its field) with `rig`'s joints and the sidecar's
    /// weight settings.
    fn new_session<'a>(
        &self,
        base: &'a EditBase,
        sdf: &'a (dyn Fn(&P3) -> f64 + Sync),
        rig: &Rig,
        log: &EditLog,
    ) -> Result<Session<'a>, String> {
        let opts = self.pipeline.config.skin.clone();
        Session::new(&base.prepared, sdf, rig.joints.clone(), &base.skin, opts)
            .and_then(|mut s| {
                // The sidecar's weight settings apply to the rig as it is now (its skeleton
                // edits are already in the rig's joints).
                sidecar::replay(&mut s, &controls_of(log))?;
                Ok(s)
            })
            .map_err(|e| e.to_string())
    }

    /// Run the open session's commands in order until it closes (returns the next command) or
    /// another session opens (returns its `Open`); `None` at shutdown.
    fn serve(&self, live: &mut Live, rx: &Receiver<EditCmd>) -> Option<EditCmd> {
        loop {
            let cmd = rx.recv().ok()?;
            if matches!(cmd.body, EditCmdBody::Open { .. }) {
                return Some(cmd);
            }
            if cmd.session != live.id {
                continue;
            }
            let ev = match cmd.body {
                EditCmdBody::Close => return rx.recv().ok(),
                body => live.handle(self, body),
            };
            if !self.send(ev) {
                return None;
            }
        }
    }

    /// Drop the commands of a session that failed to open, until another opens.
    fn skip_session(&self, rx: &Receiver<EditCmd>) -> Option<EditCmd> {
        loop {
            let cmd = rx.recv().ok()?;
            if matches!(cmd.body, EditCmdBody::Open { .. }) {
                return Some(cmd);
            }
        }
    }

    /// Load, prepare, field and skin the rig's joints (cancellable), and read the sidecar.
    fn open(&self, id: u64, mesh: &Path, rig: &Rig) -> Result<(EditBase, EditLog), String> {
        let log = EditLog::load_for(mesh)
            .map_err(|e| e.to_string())?
            .unwrap_or(EditLog {
                version: sidecar::VERSION,
                edits: Vec::new(),
            });
        let req = AttachRequest {
            mesh_path: mesh.to_path_buf(),
            joints: rig.joints.clone(),
            source: mesh.to_path_buf(),
            notes: Vec::new(),
            orientation: None,
        };
        let progress = OpenProgress {
            live: &self.live,
            id,
        };
        let base = self
            .pipeline
            .edit_base(&req, &progress)
            .map_err(|e| e.to_string())?;
        Ok((base, log))
    }

    /// Global refresh (what a replay of the sidecar produces, facts §11.5), then the sidecar and
    /// the outputs, each written atomically.
    fn save(&self, live: &Live, ops: &[EditOp]) -> Result<Saved, String> {
        let (session, template, base, mesh) =
            (&live.session, &*live.template, live.base, live.mesh);
        let mut refreshed = session.clone();
        refreshed.global().map_err(|e| e.to_string())?;
        let rig = edited(template, &refreshed);
        let mut all = live.log.clone();
        all.push_compacted(ops);
        let path = sidecar::sidecar_path(mesh);
        all.save(&path).map_err(|e| e.to_string())?;
        let out = output_base(mesh, &self.target.root, &self.target.out_dir);
        let mut formats = self.target.formats.clone();
        if !formats.contains(&Format::Png) {
            formats.push(Format::Png);
        }
        let glb = GlbSource {
            source: base.source.as_deref(),
            keep_animations: false,
        };
        let input: &Mesh = &base.prepared.input;
        let outputs = write_rig_to(&rig, input, glb, &out, &formats).map_err(|e| e.to_string())?;
        Ok(Saved {
            sidecar_stat: crate::mesh::load::FileStat::of(&path),
            sidecar: path,
            edits: all.edits.len(),
            outputs,
            rig: Arc::new(rig),
        })
    }
}

/// An open session: the mesh data it borrows, the sidecar read at open, and the undo snapshots.
struct Live<'a> {
    id: u64,
    mesh: &'a Path,
    base: &'a EditBase,
    log: EditLog,
    /// The rig without skin; each reply is this with the session's joints and weights.
    template: Arc<Rig>,
    session: Session<'a>,
    /// The session before each edit still undoable, with the edit's number.
    undo: Vec<(u64, Session<'a>)>,
}

impl Live<'_> {
    fn shown(&self) -> Arc<Rig> {
        Arc::new(edited(&self.template, &self.session))
    }

    /// Run one command (not open or close) and build its reply.
    fn handle(&mut self, ctx: &Ctx, body: EditCmdBody) -> EditEvent {
        let session = self.id;
        match body {
            EditCmdBody::Apply { seq, op } => {
                let before = self.session.clone();
                match self.session.apply(&op) {
                    Ok(outcome) => {
                        self.undo.push((seq, before));
                        if self.undo.len() > UNDO_DEPTH {
                            self.undo.remove(0);
                        }
                        let rig = self.shown();
                        EditEvent::Applied {
                            session,
                            seq,
                            rig,
                            outcome,
                        }
                    }
                    Err(e) => {
                        self.session = before;
                        let error = e.to_string();
                        EditEvent::Refused {
                            session,
                            seq,
                            error,
                        }
                    }
                }
            }
            EditCmdBody::Undo { seq } => {
                let hit = self.undo.last().is_some_and(|(s, _)| *s == seq);
                if let Some((_, before)) = self.undo.pop().filter(|_| hit) {
                    self.session = before;
                }
                let seq = hit.then_some(seq);
                let rig = self.shown();
                EditEvent::Undone { session, seq, rig }
            }
            EditCmdBody::Save { ops } => {
                let result = ctx.save(self, &ops);
                EditEvent::Saved { session, result }
            }
            EditCmdBody::Open { .. } | EditCmdBody::Close => EditEvent::Refused {
                session,
                seq: 0,
                error: "not a session command".into(),
            },
        }
    }
}

/// The sidecar's weight settings (range handles, magnitudes, smoothness), in order.
fn controls_of(log: &EditLog) -> Vec<EditOp> {
    log.edits
        .iter()
        .filter(|op| {
            matches!(
                op,
                EditOp::Handle { .. } | EditOp::Magnitude { .. } | EditOp::Smoothness { .. }
            )
        })
        .cloned()
        .collect()
}

/// `template` (a rig without skin) with the session's joints and weights.
fn edited(template: &Rig, s: &Session) -> Rig {
    let mut r = template.clone();
    r.joints = s.joints.clone();
    r.skin = Some(s.skin_table());
    r
}
