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

/// The watch configuration file, as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    #[serde(default)]
    pub skeleton_rules: Vec<SkeletonRule>,
    /// Stability interval before a changed file is rigged, milliseconds.
    pub settle_ms: u64,
    /// OS-event debounce window, milliseconds.
    pub debounce_ms: u64,
    /// Poll interval for `--poll`, milliseconds.
    pub poll_ms: u64,
    /// The clip the UI plays (a missing section means `auto`).
    #[serde(default)]
    pub motion: MotionConfig,
}

impl Default for WatchConfig {
    fn default() -> Self {
        Self::parse(
            DEFAULT_WATCH_YAML,
            Path::new("config/default.yaml (built in)"),
        )
        .expect("the built-in config/default.yaml parses (checked by a unit test)")
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

    /// Worker count: the configured value, or cores − 1 (at least 1) when 0.
    pub fn worker_count(&self) -> usize {
        if self.workers > 0 {
            return self.workers;
        }
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        cores.saturating_sub(1).max(1)
    }
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
        Ok(Self {
            out_dir,
            globs: config.globs.iter().map(|g| Glob::new(g)).collect(),
            skeleton_rules: config
                .skeleton_rules
                .iter()
                .map(|r| (Glob::new(&r.glob), r.skeleton.clone()))
                .collect(),
            skeleton: config.skeleton.clone(),
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
                "{} worker threads: at most {MAX_WORKERS} (0 in the file: one per core but one)",
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
        let rel = mesh.strip_prefix(&self.root).unwrap_or(mesh);
        self.skeleton_rules
            .iter()
            .find(|(g, _)| g.matches(rel))
            .map_or(self.skeleton.as_str(), |(_, s)| s.as_str())
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
mod tests {
    use super::*;

    #[test]
    fn builtin_config_parses() {
        let c = WatchConfig::default();
        assert_eq!(c.globs.len(), 6);
        assert!(
            c.globs.iter().any(|g| g == "**/*.fbx"),
            "FBX is watched by default"
        );
        assert_eq!(c.output, PathBuf::from("rigged"));
        assert!(c.worker_count() >= 1);
    }

    #[test]
    fn unknown_key_is_an_error_naming_the_file() {
        let e = WatchConfig::parse("globz: []\n", Path::new("w.yaml")).unwrap_err();
        assert!(e.to_string().contains("w.yaml"), "{e}");
    }

    #[test]
    fn skeleton_rules_pick_per_file_templates() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = WatchConfig::default();
        // The default is `auto`, whatever the file is called.
        let s = WatchSettings::resolve(&c, dir.path()).unwrap();
        assert_eq!(s.skeleton_for(&s.root.join("a/dog.obj")), "auto");
        c.skeleton_rules = vec![SkeletonRule {
            glob: "**/*quadruped*".into(),
            skeleton: "quadruped".into(),
        }];
        c.skeleton = "human".into();
        let s = WatchSettings::resolve(&c, dir.path()).unwrap();
        assert_eq!(s.skeleton_for(&s.root.join("a/quadruped.obj")), "quadruped");
        assert_eq!(s.skeleton_for(&s.root.join("humanoid.obj")), "human");
        assert_eq!(s.out_dir, s.root.join("rigged"));
    }

    #[test]
    fn motion_clip_setting_resolves_or_names_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            motion_source("auto", root).unwrap(),
            MotionSource::Clip(Clip::Walk)
        );
        assert_eq!(
            motion_source("Squat", root).unwrap(),
            MotionSource::Clip(Clip::Squat)
        );
        let e = motion_source("jog", root).unwrap_err().to_string();
        assert!(e.contains("motion.clip") && e.contains("`jog`"), "{e}");
        let e = motion_source("clips/none.bvh", root)
            .unwrap_err()
            .to_string();
        assert!(e.contains("motion.clip") && e.contains("none.bvh"), "{e}");
        std::fs::write(root.join("bad.bvh"), "HIERARCHY\nROOT\n").unwrap();
        let e = motion_source("bad.bvh", root).unwrap_err().to_string();
        assert!(e.contains("bad.bvh"), "{e}");
        // The section is checked like the rest of the file: an unknown key names itself.
        let yaml = DEFAULT_WATCH_YAML.replace("clip: auto", "clip: wave\n  speed: 2");
        let e = WatchConfig::parse(&yaml, Path::new("w.yaml")).unwrap_err();
        assert!(e.to_string().contains("speed"), "{e}");
        let yaml = DEFAULT_WATCH_YAML.replace("clip: auto", "clip: wave");
        let c = WatchConfig::parse(&yaml, Path::new("w.yaml")).unwrap();
        assert_eq!(c.motion.clip, "wave");
        assert_eq!(WatchConfig::default().motion.clip, AUTO_CLIP);
    }

    /// `watch DIR --out DIR` (or a folder above DIR) is refused naming both folders; the
    /// default, a sibling and an absolute folder elsewhere are fine.
    #[test]
    fn an_output_folder_holding_the_watched_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("assets");
        std::fs::create_dir(&root).unwrap();
        let mut s = WatchSettings::resolve(&WatchConfig::default(), &root).unwrap();
        assert!(s.check_output().is_ok(), "the default DIR/rigged");
        for bad in [
            s.root.clone(),
            s.root.join("."),
            s.root.join(".."),
            s.root.join("x/../.."),
        ] {
            s.out_dir = bad.clone();
            let e = s.check_output().expect_err(&bad.display().to_string());
            assert!(e.to_string().contains("--out"), "{e}");
        }
        for good in [s.root.join("../rigged"), s.root.join("x/y")] {
            s.out_dir = good;
            assert!(s.check_output().is_ok());
        }
    }

    /// `globs: []` is refused naming the setting (it rigged nothing, and `--once` said "0 ok").
    #[test]
    fn empty_globs_are_refused_naming_the_setting() {
        let dir = tempfile::tempdir().unwrap();
        let none = WatchConfig {
            globs: Vec::new(),
            ..WatchConfig::default()
        };
        let e = WatchSettings::resolve(&none, dir.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("globs") && e.contains("no mesh patterns"), "{e}");
    }

    /// A worker count past [`MAX_WORKERS`] is refused naming the setting (the thread spawner's
    /// "Resource temporarily unavailable" named nothing).
    #[test]
    fn too_many_workers_are_refused_naming_the_setting() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = WatchSettings::resolve(&WatchConfig::default(), dir.path()).unwrap();
        assert!(s.check_workers().is_ok(), "the default");
        s.workers = 100_000;
        let e = s.check_workers().unwrap_err().to_string();
        assert!(
            e.contains("`workers (--workers)`") && e.contains("100000"),
            "{e}"
        );
    }

    /// `watch hero.obj` is refused: a file is not a folder to watch.
    #[test]
    fn a_file_is_not_a_folder_to_watch() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hero.obj");
        std::fs::write(&file, "v 0 0 0\n").unwrap();
        let e = WatchSettings::resolve(&WatchConfig::default(), &file).unwrap_err();
        let e = e.to_string();
        assert!(e.contains("hero.obj") && e.contains("not a folder"), "{e}");
    }
}
