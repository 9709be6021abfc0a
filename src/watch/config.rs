//! Watch settings: `config/default.yaml` (compiled in), an optional `--config FILE`, then CLI flags.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::glob::Glob;
use crate::config::ConfigError;
use crate::export::Format;
use crate::motion::procedural::Clip;
use crate::motion::MotionSource;

/// The built-in `config/default.yaml`.
pub const DEFAULT_WATCH_YAML: &str = include_str!("../../config/default.yaml");

/// One per-file skeleton override.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkeletonRule {
    /// Glob on the path relative to the watched folder.
    pub glob: String,
    /// Template name or YAML path.
    pub skeleton: String,
}

/// The `motion:` section: what the watch UI plays on a rig.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionConfig {
    /// `auto`, a built-in clip name, or a `.bvh` path (relative to the watched folder).
    pub clip: String,
}

impl Default for MotionConfig {
    fn default() -> Self {
        Self {
            clip: AUTO_CLIP.into(),
        }
    }
}

/// The clip setting that picks the built-in cycle suited to the rig's template.
pub const AUTO_CLIP: &str = "auto";

/// The watch configuration file, as written. A setting left out keeps the built-in value, so a
/// file holding only what the user changes (`workers: 2`) is valid; it was refused with
/// "missing field `globs`", unlike `config/rig.yaml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WatchConfig {
    /// Mesh globs, relative to the watched folder.
    pub globs: Vec<String>,
    /// Output folder (relative to the watched folder unless absolute).
    pub output: PathBuf,
    /// Output formats.
    pub formats: Vec<Format>,
    /// Worker threads; 0 = cores − 1 (at least 1).
    pub workers: usize,
    /// Image protocol: auto, kitty, sixel, iterm2, halfblocks.
    pub protocol: String,
    /// Default skeleton template.
    pub skeleton: String,
    /// Per-file skeleton overrides, first match wins.
    pub skeleton_rules: Vec<SkeletonRule>,
    /// Stability interval before a changed file is rigged, milliseconds.
    pub settle_ms: u64,
    /// OS-event debounce window, milliseconds.
    pub debounce_ms: u64,
    /// Poll interval for `--poll`, milliseconds.
    pub poll_ms: u64,
    /// The clip the UI plays (a missing section means `auto`).
    pub motion: MotionConfig,
}

impl Default for WatchConfig {
    /// The values `config/default.yaml` writes out (a unit test holds them equal); what a
    /// setting left out of a file keeps.
    fn default() -> Self {
        let globs = ["obj", "glb", "gltf", "fbx", "off", "ply"];
        Self {
            globs: globs.iter().map(|e| format!("**/*.{e}")).collect(),
            output: PathBuf::from("rigged"),
            formats: vec![Format::Json, Format::Glb],
            workers: 0,
            protocol: "auto".into(),
            skeleton: "auto".into(),
            skeleton_rules: Vec::new(),
            settle_ms: 500,
            debounce_ms: 200,
            poll_ms: 1000,
            motion: MotionConfig::default(),
        }
    }
}

impl WatchConfig {
    /// Parse YAML; errors carry the path, line and column.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        crate::config::parse_yaml(text, path)
    }

    /// Read a config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        crate::config::load_yaml(path)
    }

    /// Worker count: the configured value, or cores − 1 (at least 1) when 0 ([`worker_count`]).
    pub fn worker_count(&self) -> usize {
        worker_count(self.workers)
    }
}

/// The worker threads a `workers` setting asks for on this machine ([`workers_on`]); the file's
/// `workers:` and `--workers` both go through here, so 0 means the same in both.
pub fn worker_count(workers: usize) -> usize {
    workers_on(
        workers,
        std::thread::available_parallelism().map_or(2, |n| n.get()),
    )
}

/// The worker threads `workers` asks for on `cores` cores: itself, or for 0 one per core but one
/// (at least one), which leaves a core to the UI and the editor the artist is saving from.
pub fn workers_on(workers: usize, cores: usize) -> usize {
    if workers > 0 {
        return workers;
    }
    cores.saturating_sub(1).max(1)
}

/// Most worker threads the watcher starts: each rig holds a mesh's distance field and solver, so
/// more workers than this only exhaust memory and threads.
pub const MAX_WORKERS: usize = 256;

/// Everything the watcher needs, resolved against the watched folder.
#[derive(Clone, Debug)]
pub struct WatchSettings {
    /// The watched folder (absolute).
    pub root: PathBuf,
    /// The output folder (absolute).
    pub out_dir: PathBuf,
    /// Compiled mesh globs.
    pub globs: Vec<Glob>,
    /// Compiled skeleton rules: (glob, template).
    pub skeleton_rules: Vec<(Glob, String)>,
    /// Default template.
    pub skeleton: String,
    /// Output formats.
    pub formats: Vec<Format>,
    /// Worker threads.
    pub workers: usize,
    /// Image protocol name.
    pub protocol: String,
    /// Stability interval.
    pub settle: Duration,
    /// Debounce window.
    pub debounce: Duration,
    /// Use the polling watcher.
    pub poll: Option<Duration>,
    /// The motion the UI plays on a rig (`motion.clip`).
    pub motion: MotionSource,
}

impl WatchSettings {
    /// Resolve `config` for the folder `root`. The output folder is made absolute relative to `root`.
    pub fn resolve(config: &WatchConfig, root: &Path) -> Result<Self, ConfigError> {
        let folder = |cause| ConfigError::Folder {
            path: root.to_path_buf(),
            cause,
        };
        let root = std::fs::canonicalize(root).map_err(folder)?;
        if !root.is_dir() {
            // `watch hero.obj` watched nothing ("0 meshes") and waited forever.
            return Err(folder(std::io::Error::other(
                "a file, not a folder (`geppetto rig FILE` rigs one mesh)",
            )));
        }
        if config.globs.is_empty() {
            // `globs: []` matched nothing: the watcher rigged no file and `--once` said "0 ok".
            return Err(ConfigError::Invalid {
                setting: "globs".into(),
                message: "no mesh patterns, so no file would ever be rigged (list at least one; \
                          the built-in config/default.yaml has \"**/*.obj\", \"**/*.glb\", …)"
                    .into(),
            });
        }
        let out_dir = if config.output.is_absolute() {
            config.output.clone()
        } else {
            root.join(&config.output)
        };
        let mut skeleton_rules = Vec::new();
        for (i, r) in config.skeleton_rules.iter().enumerate() {
            let setting = format!("skeleton_rules[{i}].skeleton");
            skeleton_rules.push((Glob::new(&r.glob), template(&r.skeleton, &root, &setting)?));
        }
        Ok(Self {
            out_dir,
            globs: config.globs.iter().map(|g| Glob::new(g)).collect(),
            skeleton_rules,
            skeleton: template(&config.skeleton, &root, "skeleton")?,
            formats: config.formats.clone(),
            workers: config.worker_count(),
            protocol: config.protocol.clone(),
            settle: Duration::from_millis(config.settle_ms),
            debounce: Duration::from_millis(config.debounce_ms),
            poll: None,
            motion: motion_source(&config.motion.clip, &root)?,
            root,
        })
    }

    /// Refuse a worker count no machine runs: `workers: 100000` failed with a bare "Resource
    /// temporarily unavailable (os error 11)" from the thread spawner.
    pub fn check_workers(&self) -> Result<(), ConfigError> {
        if self.workers <= MAX_WORKERS {
            return Ok(());
        }
        Err(ConfigError::Invalid {
            setting: "workers (--workers)".into(),
            message: format!(
                "{} worker threads: at most {MAX_WORKERS} (0: one per core but one)",
                self.workers
            ),
        })
    }

    /// Refuse an output folder that is the watched folder or holds it: the watcher skips
    /// everything inside its output folder (its own GLBs are meshes too), so `watch DIR --out
    /// DIR` found "0 meshes", rigged nothing and exited 0.
    pub fn check_output(&self) -> Result<(), ConfigError> {
        let out = crate::naming::absolute_lexical(&self.out_dir);
        if !self.root.starts_with(&out) {
            return Ok(());
        }
        Err(ConfigError::Invalid {
            setting: "output (--out)".into(),
            message: format!(
                "the output folder {} is or holds the watched folder {}, and the watcher skips \
                 everything in its output folder, so no mesh would be rigged; choose a folder \
                 inside the watched one (the default: rigged) or beside it",
                out.display(),
                self.root.display()
            ),
        })
    }

    /// The skeleton template for `mesh` (absolute path under the root).
    pub fn skeleton_for(&self, mesh: &Path) -> &str {
        rule_for(&self.root, &self.skeleton_rules, &self.skeleton, mesh)
    }

    /// The template rules alone, for the UI (its `t` key cycles on from the template in force).
    pub fn template_rules(&self) -> TemplateRules {
        TemplateRules {
            root: self.root.clone(),
            rules: self.skeleton_rules.clone(),
            default: self.skeleton.clone(),
        }
    }
}

/// The template the watcher's settings give each mesh that names none in its sidecar.
#[derive(Clone, Debug)]
pub struct TemplateRules {
    root: PathBuf,
    rules: Vec<(Glob, String)>,
    default: String,
}

impl Default for TemplateRules {
    /// No rules; `auto` for every mesh (the built-in setting).
    fn default() -> Self {
        Self {
            root: PathBuf::new(),
            rules: Vec::new(),
            default: "auto".into(),
        }
    }
}

impl TemplateRules {
    /// The template of `mesh` (absolute): the first rule whose glob matches it, else the default.
    pub fn for_mesh(&self, mesh: &Path) -> &str {
        rule_for(&self.root, &self.rules, &self.default, mesh)
    }
}

/// The first of `rules` whose glob matches `mesh` relative to `root`, else `default`.
fn rule_for<'a>(
    root: &Path,
    rules: &'a [(Glob, String)],
    default: &'a str,
    mesh: &Path,
) -> &'a str {
    let rel = mesh.strip_prefix(root).unwrap_or(mesh);
    rules
        .iter()
        .find(|(g, _)| g.matches(rel))
        .map_or(default, |(_, s)| s.as_str())
}

/// A `skeleton` setting of the file, checked when the watcher starts: a relative `.yaml` path
/// is taken relative to the watched folder `root` (as the file's other paths), not the working
/// folder the watcher was started from, where it was looked up; a name no template has is
/// refused naming the setting (every asset failed with "unknown skeleton", naming no setting).
pub fn template(name: &str, root: &Path, setting: &str) -> Result<String, ConfigError> {
    let trimmed = name.trim();
    let lower = trimmed.to_ascii_lowercase();
    let file = Path::new(trimmed);
    let is_yaml = lower.ends_with(".yaml") || lower.ends_with(".yml");
    let resolved = if is_yaml && file.is_relative() {
        root.join(file).display().to_string()
    } else {
        name.to_owned()
    };
    match crate::choose::Template::parse(&resolved) {
        Ok(_) => Ok(resolved),
        Err(e) => Err(ConfigError::Invalid {
            setting: setting.into(),
            message: e.to_string(),
        }),
    }
}

/// Resolve a `motion.clip` value: `auto` (the walk, which a quadruped rig plays as the trot), a
/// built-in clip name, or a `.bvh` file relative to `root` that must exist and parse, so a typo
/// is reported when the watcher starts rather than on the first key press.
pub fn motion_source(clip: &str, root: &Path) -> Result<MotionSource, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        setting: "motion.clip".into(),
        message,
    };
    let name = clip.trim();
    if name.eq_ignore_ascii_case(AUTO_CLIP) {
        return Ok(MotionSource::Clip(Clip::Walk));
    }
    if let Ok(c) = <Clip as clap::ValueEnum>::from_str(name, true) {
        return Ok(MotionSource::Clip(c));
    }
    if !name.to_ascii_lowercase().ends_with(".bvh") {
        return Err(invalid(format!(
            "`{name}` is neither a built-in clip (auto, walk, wave, squat, trot) nor a .bvh file"
        )));
    }
    let path = root.join(name);
    crate::motion::bvh::read(&path).map_err(|e| invalid(e.to_string()))?;
    Ok(MotionSource::Bvh(path))
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
