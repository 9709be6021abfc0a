//! Engine configuration (`config/rig.yaml`, compiled in as the default; `--config FILE` overrides).

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::discretize::DiscretizeOptions;
use crate::embed::EmbedOptions;
use crate::skin::SkinOptions;

/// The built-in `config/rig.yaml`.
pub const DEFAULT_RIG_YAML: &str = include_str!("../config/rig.yaml");

/// Γ by term name (see [`crate::embed::PENALTY_TERMS`]). A term left out of the file keeps the
/// built-in value, as in the other sections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PenaltyWeights {
    /// Chain length.
    pub length: f64,
    /// Global direction.
    pub global_direction: f64,
    /// Asymmetry.
    pub asymmetry: f64,
    /// Shared paths.
    pub shared_path: f64,
    /// Feet off the ground.
    pub foot: f64,
    /// Zero-length chain.
    pub zero_length: f64,
    /// Local direction.
    pub direction: f64,
    /// Extremity ending mid-limb.
    pub mid_limb_end: f64,
    /// Paths that should be disjoint.
    pub disjoint: f64,
}

impl Default for PenaltyWeights {
    /// The original's Γ ([`EmbedOptions::default`], which `config/rig.yaml` repeats).
    fn default() -> Self {
        let [length, global_direction, asymmetry, shared_path, foot, zero_length, direction, mid_limb_end, disjoint] =
            EmbedOptions::default().weights;
        Self {
            length,
            global_direction,
            asymmetry,
            shared_path,
            foot,
            zero_length,
            direction,
            mid_limb_end,
            disjoint,
        }
    }
}

impl PenaltyWeights {
    /// In `PENALTY_TERMS` order.
    pub fn as_array(&self) -> [f64; 9] {
        [
            self.length,
            self.global_direction,
            self.asymmetry,
            self.shared_path,
            self.foot,
            self.zero_length,
            self.direction,
            self.mid_limb_end,
            self.disjoint,
        ]
    }
}

/// Search budget (a setting left out keeps the built-in value).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchBudget {
    /// Expanded nodes.
    pub max_nodes: usize,
    /// Penalty evaluations per reduced joint per graph vertex: the deterministic budget.
    pub work_per_joint_vertex: u64,
    /// Last-resort wall-clock cap per search, milliseconds.
    pub safety_millis: u64,
}

impl Default for SearchBudget {
    fn default() -> Self {
        let e = EmbedOptions::default();
        Self {
            max_nodes: e.max_nodes,
            work_per_joint_vertex: e.work_per_joint_vertex,
            safety_millis: e.safety_millis,
        }
    }
}

/// The whole engine configuration file. A section or setting left out keeps the built-in value,
/// so a file holding only the one setting a user changes is a valid `--config` (it was refused
/// with "missing field `penalties`").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RigConfig {
    /// Discretization tunables.
    #[serde(default)]
    pub discretize: DiscretizeOptions,
    /// Γ.
    #[serde(default)]
    pub penalties: PenaltyWeights,
    /// Search budget.
    #[serde(default)]
    pub search: SearchBudget,
    /// Skin tunables.
    #[serde(default)]
    pub skin: SkinOptions,
}

impl Default for RigConfig {
    fn default() -> Self {
        Self::parse(DEFAULT_RIG_YAML, Path::new("config/rig.yaml (built in)"))
            .expect("the built-in config/rig.yaml parses (checked by a unit test)")
    }
}

impl RigConfig {
    /// Parse YAML and check every value's range ([`RigConfig::check`]); errors carry the path,
    /// and the line and column or the setting.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let config: Self = parse_yaml(text, path)?;
        config.check(path)?;
        Ok(config)
    }

    /// Read a config file ([`RigConfig::parse`]).
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = read_text(path)?;
        Self::parse(&text, path)
    }

    /// Embedding options (orientation mode left at its default; the caller sets it).
    pub fn embed_options(&self) -> EmbedOptions {
        EmbedOptions {
            weights: self.penalties.as_array(),
            max_nodes: self.search.max_nodes,
            work_per_joint_vertex: self.search.work_per_joint_vertex,
            safety_millis: self.search.safety_millis,
            ..EmbedOptions::default()
        }
    }
}

/// Why a settings file (engine or watcher) could not be used. Every variant names the file.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: cannot read: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause (in the message, not a separate error source, so it is printed once).
        cause: std::io::Error,
    },
    /// The file is not valid YAML for these settings (the message has the line and column).
    #[error("{}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        message: String,
    },
    /// A setting has a value it cannot take.
    #[error("setting `{setting}`: {message}")]
    Invalid {
        /// The setting, as written in the YAML (e.g. `motion.clip`).
        setting: String,
        /// What is wrong and what it can be.
        message: String,
    },
    /// A setting of the file has a value outside its range (a zero heat constant, a negative
    /// penalty weight, NaN…), which would otherwise give a rig silently wrong.
    #[error("{}: setting `{setting}` is {value}; {rule}", path.display())]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// The setting, as written in the YAML (`skin.heat`).
        setting: String,
        /// The value found.
        value: String,
        /// What it must be.
        rule: String,
    },
    /// The folder to watch cannot be opened.
    #[error("{}: cannot watch: {cause}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Cause (in the message, printed once).
        cause: std::io::Error,
    },
}

/// The one loader for settings YAML: parse `text` (read from `path`, named in errors).
pub fn parse_yaml<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T, ConfigError> {
    serde_saphyr::from_str::<T>(text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: crate::util::yaml_message(&e),
    })
}

/// Read and parse a settings YAML file ([`parse_yaml`]).
pub fn load_yaml<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    parse_yaml(&read_text(path)?, path)
}

fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|cause| ConfigError::Io {
        path: path.to_path_buf(),
        cause,
    })
}

mod check;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_config_parses_to_original_gamma() {
        let c = RigConfig::parse(DEFAULT_RIG_YAML, Path::new("rig.yaml")).unwrap();
        assert_eq!(c.embed_options().weights, EmbedOptions::default().weights);
        assert_eq!(crate::embed::PENALTY_TERMS.len(), 9);
    }

    #[test]
    fn bad_config_names_line() {
        let e =
            RigConfig::parse("discretize:\n  tolerance: [1,\n", Path::new("x.yaml")).unwrap_err();
        assert!(e.to_string().contains("x.yaml"), "{e}");
        let text = e.to_string();
        assert!(!text.contains('\n') && !text.contains("<input>"), "{text}");
        assert!(
            text.starts_with("x.yaml: ") && text.contains("line 2"),
            "{text}"
        );
    }
}
