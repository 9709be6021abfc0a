//! Background rigging: a fixed pool of worker threads, one slot per asset.
//!
//! * Coalescing (gitui's `AsyncSingleJob`, style anchor P9): submitting an asset that is already
//!   queued keeps one queued job; submitting one that is running queues a fresh job and cancels the
//!   running one, which stops at its next stage boundary ([`Progress::cancelled`]).
//! * The same asset never runs on two workers at once (both would write the same outputs).
//! * A panic inside a job becomes [`JobResult::Failed`]; the worker survives.
//! * Every event carries the job id, so a consumer can drop events of superseded jobs.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::run::{run_job, Ran};
use crate::choose::Template;
use crate::export::Format;
use crate::mesh::load::Companion;
use crate::mesh::Mesh;
use crate::pipeline::Pipeline;
use crate::progress::{Progress, Stage};
use crate::rig::Rig;

/// Prefix of worker thread names; the TUI's panic hook leaves the terminal alone for these.
pub const WORKER_THREAD_PREFIX: &str = "geppetto-worker";

/// Progress and results reported by the pool.
#[derive(Debug)]
pub enum JobEvent {
    /// A job started on a worker.
    Started {
        /// Mesh.
        path: PathBuf,
        /// Job id.
        id: u64,
    },
    /// A stage started.
    Stage {
        /// Mesh.
        path: PathBuf,
        /// Job id.
        id: u64,
        /// Stage.
        stage: Stage,
    },
    /// The rig starts again on a finer discretization ([`Progress::retry`]).
    Retry {
        /// Mesh.
        path: PathBuf,
        /// Job id.
        id: u64,
    },
    /// Fraction of the current stage done, in [0, 1] (throttled to whole percents).
    Fraction {
        /// Mesh.
        path: PathBuf,
        /// Job id.
        id: u64,
        /// Fraction.
        fraction: f32,
    },
    /// The job ended.
    Finished {
        /// Mesh.
        path: PathBuf,
        /// Job id.
        id: u64,
        /// Outcome.
        result: JobResult,
        /// The files besides the mesh that this job's load read or looked for (buffers, `.mtl`,
        /// textures), as the loader saw them; `None` when the job did not get as far as a load
        /// that says (cancelled, no skeleton, a failure after loading): the previous list holds.
        companions: Option<Vec<Companion>>,
    },
}

/// How a job ended.
#[derive(Debug)]
pub enum JobResult {
    /// A rig was produced (its status may still be low confidence).
    Done(Box<JobDone>),
    /// The rig failed: the error in plain words.
    Failed(String),
    /// Superseded by a newer save or hint edit.
    Cancelled,
}

/// A finished rig and what was written.
#[derive(Clone, Debug)]
pub struct JobDone {
    /// The rig (joints, penalty, warnings, repair report, timings, skin), mesh frame.
    pub rig: Rig,
    /// The input mesh (for thumbnails), mesh frame.
    pub mesh: Arc<Mesh>,
    /// True if the discretization came from the cache (a hint re-run started at the embedding).
    pub reused_discretization: bool,
    /// Files written (rig.json, glb, png, …).
    pub outputs: Vec<PathBuf>,
    /// Outputs that could not be written (the rig itself is fine).
    pub output_errors: Vec<String>,
    /// The thumbnail `OUT/NAME.png`, if written.
    pub thumbnail: Option<PathBuf>,
}

/// Picks (and loads) the skeleton template for a mesh, or says why it cannot.
pub type SkeletonFn = Box<dyn Fn(&Path) -> Result<Template, String> + Send + Sync>;

/// What a worker needs besides the mesh path.
pub struct JobContext {
    /// The shared engine (its discretization cache makes hint re-runs start at the embedding).
    pub pipeline: Pipeline,
    /// Skeleton template per mesh (already loaded, or the reason it could not be).
    pub skeleton_for: SkeletonFn,
    /// The watched folder: output folders mirror the meshes' folders relative to it.
    pub root: PathBuf,
    /// Output folder.
    pub out_dir: PathBuf,
    /// Output formats.
    pub formats: Vec<Format>,
    /// Write `NAME.png` thumbnails.
    pub thumbnails: bool,
}

type Sink = Box<dyn Fn(JobEvent) + Send + Sync>;

#[derive(Default)]
struct PoolState {
    queue: VecDeque<PathBuf>,
    running: HashMap<PathBuf, (u64, Arc<AtomicBool>)>,
    next_id: u64,
    shutdown: bool,
}

struct Shared {
    state: Mutex<PoolState>,
    wake: Condvar,
    ctx: JobContext,
    sink: Sink,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The worker pool. Dropping it cancels running jobs and joins the workers.
pub struct JobPool {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl JobPool {
    /// Start `workers` threads (at least one).
    pub fn new(workers: usize, ctx: JobContext, sink: Sink) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            state: Mutex::new(PoolState::default()),
            wake: Condvar::new(),
            ctx,
            sink,
        });
        let mut threads = Vec::new();
        let count = workers.max(1);
        for i in 0..count {
            let s = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("{WORKER_THREAD_PREFIX}-{i}"))
                .spawn(move || worker(&s))
                .map_err(|e| {
                    std::io::Error::new(
                        e.kind(),
                        format!("cannot start worker thread {} of {count}: {e}", i + 1),
                    )
                })?;
            threads.push(spawned);
        }
        Ok(Self { shared, threads })
    }

    /// Queue a rig of `path`, coalescing with a queued job and cancelling a running one.
    pub fn submit(&self, path: &Path) {
        let mut st = self.shared.lock();
        if let Some((_, cancel)) = st.running.get(path) {
            cancel.store(true, Ordering::Relaxed);
        }
        if !st.queue.iter().any(|p| p == path) {
            st.queue.push_back(path.to_path_buf());
        }
        drop(st);
        self.shared.wake.notify_all();
    }

    /// Drop a queued job and cancel a running one (the asset was deleted).
    pub fn cancel(&self, path: &Path) {
        let mut st = self.shared.lock();
        st.queue.retain(|p| p != path);
        if let Some((_, cancel)) = st.running.get(path) {
            cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Jobs queued and running.
    pub fn load(&self) -> (usize, usize) {
        let st = self.shared.lock();
        (st.queue.len(), st.running.len())
    }
}

impl Drop for JobPool {
    fn drop(&mut self) {
        {
            let mut st = self.shared.lock();
            st.shutdown = true;
            st.queue.clear();
            for (_, c) in st.running.values() {
                c.store(true, Ordering::Relaxed);
            }
        }
        self.shared.wake.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Take the first queued asset that is not already running.
fn next_job(shared: &Shared) -> Option<(PathBuf, u64, Arc<AtomicBool>)> {
    let mut st = shared.lock();
    loop {
        if st.shutdown {
            return None;
        }
        let pos = st.queue.iter().position(|p| !st.running.contains_key(p));
        if let Some(path) = pos.and_then(|i| st.queue.remove(i)) {
            st.next_id += 1;
            let id = st.next_id;
            let cancel = Arc::new(AtomicBool::new(false));
            st.running.insert(path.clone(), (id, cancel.clone()));
            return Some((path, id, cancel));
        }
        st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
    }
}

fn worker(shared: &Shared) {
    while let Some((path, id, cancel)) = next_job(shared) {
        (shared.sink)(JobEvent::Started {
            path: path.clone(),
            id,
        });
        let progress = JobProgress {
            sink: &shared.sink,
            path: &path,
            id,
            cancel: &cancel,
            last_percent: AtomicU32::new(u32::MAX),
        };
        let Ran {
            result,
            companions,
            label,
        } = catch_unwind(AssertUnwindSafe(|| run_job(&shared.ctx, &path, &progress)))
            .unwrap_or_else(|payload| {
                let text = format!("internal error (panic): {}", panic_text(&payload));
                Ran::ended(JobResult::Failed(text))
            });
        // Report before freeing the slot: the next job of this asset cannot start (and report
        // `Started`) before this `Finished`, so consumers see events in order.
        (shared.sink)(JobEvent::Finished {
            path: path.clone(),
            id,
            result,
            companions,
        });
        // The hint label needs one more (unhinted) search: it runs after the rig is shown, so a
        // hint re-run's thumbnail does not wait for training data.
        if let Some(label) = label {
            let _ = catch_unwind(AssertUnwindSafe(|| label.record(&shared.ctx, &progress)));
        }
        shared.lock().running.remove(&path);
        shared.wake.notify_all();
    }
}

/// The text of a panic payload.
pub fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

struct JobProgress<'a> {
    sink: &'a Sink,
    path: &'a Path,
    id: u64,
    cancel: &'a AtomicBool,
    last_percent: AtomicU32,
}

impl Progress for JobProgress<'_> {
    fn enter(&self, stage: Stage) {
        self.last_percent.store(u32::MAX, Ordering::Relaxed);
        (self.sink)(JobEvent::Stage {
            path: self.path.to_path_buf(),
            id: self.id,
            stage,
        });
    }

    fn retry(&self) {
        (self.sink)(JobEvent::Retry {
            path: self.path.to_path_buf(),
            id: self.id,
        });
    }

    fn fraction(&self, fraction: f32) {
        let pct = (fraction.clamp(0.0, 1.0) * 100.0) as u32;
        if self.last_percent.swap(pct, Ordering::Relaxed) != pct {
            (self.sink)(JobEvent::Fraction {
                path: self.path.to_path_buf(),
                id: self.id,
                fraction,
            });
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
#[path = "jobs_tests.rs"]
mod tests;
