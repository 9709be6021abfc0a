//! The runtime: starts the watcher, the job pool and the thumbnail thread, and performs the
//! [`Effect`]s that `update` returns. Everything it starts reports back as [`Msg`]s on one channel.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use image::{DynamicImage, RgbaImage};
use ratatui::layout::Size;
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::halfblocks::Halfblocks;
use ratatui_image::protocol::Protocol;
use ratatui_image::Resize;

use super::app::{Effect, Msg, ThumbReady, ThumbRequest};
use super::editor::{EditWorker, SaveTarget};
use super::player::PlayWorker;
use crate::choose::Template;
use crate::config::RigConfig;
use crate::pipeline::Pipeline;
use crate::watch::jobs::SkeletonFn;
use crate::watch::jobs::WORKER_THREAD_PREFIX;
use crate::watch::notifier::{self, WatchHandle};
use crate::watch::{JobContext, JobPool, WatchSettings};

/// The running background machinery.
pub struct Runtime {
    tx: Sender<Msg>,
    pool: JobPool,
    raster: Option<RasterWorker>,
    player: Option<PlayWorker>,
    editor: Option<EditWorker>,
    _watch: WatchHandle,
}

impl Runtime {
    /// Start everything for `settings`. With a `picker`, thumbnails are rendered for the screen.
    pub fn start(
        settings: &WatchSettings,
        config: RigConfig,
        picker: Option<Picker>,
        tx: Sender<Msg>,
    ) -> anyhow::Result<Self> {
        let target = SaveTarget {
            root: settings.root.clone(),
            out_dir: settings.out_dir.clone(),
            formats: settings.formats.clone(),
        };
        let editor = picker
            .as_ref()
            .map(|_| EditWorker::start(config.clone(), target, tx.clone()))
            .transpose()?;
        let ctx = JobContext {
            pipeline: Pipeline::new(config),
            skeleton_for: skeleton_loader(settings.clone()),
            root: settings.root.clone(),
            out_dir: settings.out_dir.clone(),
            formats: settings.formats.clone(),
            thumbnails: true,
        };
        let jtx = Mutex::new(tx.clone());
        let pool = JobPool::new(
            settings.workers,
            ctx,
            Box::new(move |e| {
                let _ = jtx
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .send(Msg::Job(e));
            }),
        )?;
        let player = picker
            .clone()
            .map(|p| PlayWorker::start(p, settings.motion.clone(), tx.clone()))
            .transpose()?;
        let raster = picker
            .map(|p| RasterWorker::start(p, tx.clone()))
            .transpose()?;
        let wtx = tx.clone();
        let watch = notifier::spawn(
            settings.clone(),
            Box::new(move |c| {
                let _ = wtx.send(Msg::Fs(c));
            }),
        )?;
        Ok(Self {
            tx,
            pool,
            raster,
            player,
            editor,
            _watch: watch,
        })
    }

    /// Perform effects in order. Never blocks on a rig or a render.
    pub fn execute(&self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Rig(p) => self.pool.submit(&p),
                Effect::Cancel(p) => self.pool.cancel(&p),
                Effect::SaveHints { mesh, hints } => {
                    let path = crate::embed::hints::sidecar_path(&mesh);
                    let result = hints.save(&path).map_err(|e| e.to_string());
                    let _ = self.tx.send(Msg::HintsSaved { mesh, result });
                }
                Effect::Thumbnail(req) => {
                    if let Some(r) = &self.raster {
                        r.request(req);
                    }
                }
                Effect::Play(req) => {
                    if let Some(p) = &self.player {
                        p.request(req);
                    }
                }
                Effect::PlayStop => {
                    if let Some(p) = &self.player {
                        p.stop();
                    }
                }
                Effect::Edit(cmd) => {
                    if let Some(e) = &self.editor {
                        e.send(*cmd);
                    }
                }
                Effect::Quit => {}
            }
        }
    }
}

/// The template for `mesh`: its sidecar's `skeleton:` if it names one, else the watch settings'
/// rules and default. An unreadable sidecar falls back to the settings (the rig then reports the
/// sidecar's problem itself).
pub fn template_for(settings: &WatchSettings, mesh: &std::path::Path) -> String {
    sidecar_template(mesh).map_or_else(|| settings.skeleton_for(mesh).to_string(), |(n, _)| n)
}

/// The sidecar's template name ([`crate::embed::hints::Hints::template_name`]) and the sidecar.
fn sidecar_template(mesh: &std::path::Path) -> Option<(String, std::path::PathBuf)> {
    let path = crate::embed::hints::sidecar_path(mesh);
    let hints = crate::embed::hints::Hints::load_sidecar(mesh)
        .ok()
        .flatten()?;
    hints.template_name(&path).map(|n| (n, path))
}

/// Load each template once; a template that fails to load fails every job that needs it, with the
/// loader's message (naming the hints file when the name came from one).
fn skeleton_loader(settings: WatchSettings) -> SkeletonFn {
    let cache: Mutex<HashMap<String, Result<Template, String>>> = Mutex::new(HashMap::new());
    Box::new(move |mesh| {
        let sidecar = sidecar_template(mesh);
        let name = sidecar.as_ref().map_or_else(
            || settings.skeleton_for(mesh).to_string(),
            |(n, _)| n.clone(),
        );
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        c.entry(name.clone())
            .or_insert_with(|| {
                Template::parse(&name).map_err(|e| match &sidecar {
                    Some((_, path)) => format!("{}: skeleton: {e}", path.display()),
                    None => e.to_string(),
                })
            })
            .clone()
    })
}

/// Parse a protocol name (`auto` → `None`).
pub fn protocol_type(name: &str) -> anyhow::Result<Option<ProtocolType>> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "auto" | "" => None,
        "kitty" => Some(ProtocolType::Kitty),
        "sixel" => Some(ProtocolType::Sixel),
        "iterm2" | "iterm" => Some(ProtocolType::Iterm2),
        "halfblocks" | "half-blocks" | "blocks" => Some(ProtocolType::Halfblocks),
        other => anyhow::bail!(
            "unknown image protocol '{other}' (auto, kitty, sixel, iterm2, halfblocks)"
        ),
    })
}

/// Image pixels per terminal cell for `picker`: half-blocks draw 1×2 pixels per cell.
pub fn cell_pixels(picker: &Picker) -> (u16, u16) {
    match picker.protocol_type() {
        ProtocolType::Halfblocks => (1, 2),
        _ => {
            let fs = picker.font_size();
            (fs.width.max(1), fs.height.max(1))
        }
    }
}

/// Encode `img` (already sized to `cells` × [`cell_pixels`]) for the terminal.
pub fn encode(picker: &Picker, img: RgbaImage, cells: (u16, u16)) -> anyhow::Result<Protocol> {
    let size = Size::new(cells.0, cells.1);
    let img = DynamicImage::ImageRgba8(img);
    Ok(match picker.protocol_type() {
        ProtocolType::Halfblocks => Protocol::Halfblocks(Halfblocks::new(img, size)?),
        _ => picker.new_protocol(img, size, Resize::Fit(None))?,
    })
}

/// Render one request into a ready thumbnail.
pub fn render_request(picker: &Picker, req: &ThumbRequest) -> anyhow::Result<ThumbReady> {
    let (img, map) = crate::raster::render_rig(&req.mesh, &req.rig, &req.key.view);
    let protocol = encode(picker, img, req.key.cells)?;
    Ok(ThumbReady {
        key: req.key.clone(),
        protocol,
        map,
    })
}

/// The pending request (latest wins) and the stop flag, with the condvar that signals them.
type Slot = Arc<(Mutex<(Option<Box<ThumbRequest>>, bool)>, Condvar)>;

/// One thread rendering thumbnails, latest request wins (older pending requests are dropped).
struct RasterWorker {
    slot: Slot,
    thread: Option<JoinHandle<()>>,
}

impl RasterWorker {
    fn start(picker: Picker, tx: Sender<Msg>) -> std::io::Result<Self> {
        let slot = Arc::new((
            Mutex::new((None::<Box<ThumbRequest>>, false)),
            Condvar::new(),
        ));
        let s = slot.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{WORKER_THREAD_PREFIX}-raster"))
            .spawn(move || loop {
                let req = {
                    let (m, cv) = &*s;
                    let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
                    while g.0.is_none() && !g.1 {
                        g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
                    }
                    if g.1 {
                        return;
                    }
                    g.0.take()
                };
                let Some(req) = req else { continue };
                let out = catch_unwind(AssertUnwindSafe(|| render_request(&picker, &req)));
                if let Ok(Ok(ready)) = out {
                    if tx.send(Msg::Thumb(Box::new(ready))).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Self {
            slot,
            thread: Some(thread),
        })
    }

    fn request(&self, req: Box<ThumbRequest>) {
        let (m, cv) = &*self.slot;
        m.lock().unwrap_or_else(|e| e.into_inner()).0 = Some(req);
        cv.notify_one();
    }
}

impl Drop for RasterWorker {
    fn drop(&mut self) {
        let (m, cv) = &*self.slot;
        m.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        cv.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
