//! Learning Γ, the weights of the 9 discrete penalty terms, by maximum margin (Baran & Popović
//! 2007 §3.3; docs/algorithms.md#learning-gamma).
//!
//! * [`labels`]: labelled embeddings (9 basis values + good/bad) in JSON-lines files;
//! * [`collect`]: labels from artist rigs (corpus meshes with a truth file);
//! * [`hints`]: labels from users' hints (the watcher appends them to its output folder);
//! * [`optimize`]: the per-character margin and Nelder–Mead in a shrinking cube;
//! * [`iterate`]: the paper's loop: search under the learned Γ, label new embeddings, re-learn;
//! * [`loo`]: leave-one-character-out evaluation with real re-runs of the search.
//!
//! [`learn`] is the entry: labels in, a [`Learned`] Γ and per-character margins out. It never
//! re-runs the discretization: it reads stored basis values only.

pub mod basis;
pub mod collect;
pub mod hints;
pub mod iterate;
pub mod labels;
pub mod loo;
pub mod optimize;

use std::path::PathBuf;

use thiserror::Error;

use crate::config::{PenaltyWeights, RigConfig, DEFAULT_RIG_YAML};
use labels::Label;
use optimize::{CharacterSet, Search};

/// Why learning could not run. Messages name the file and the problem.
#[derive(Debug, Error)]
pub enum LearnError {
    /// A labels file (or another input) could not be read or parsed.
    #[error("{}: {message}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No character has both a good and a bad embedding: nothing to learn from.
    #[error("no character has both a good and a bad labelled embedding ({labels} labels read)")]
    NothingToLearn {
        /// Labels read.
        labels: usize,
    },
    /// Reading a corpus file or an artist rig failed.
    #[error(transparent)]
    Measure(#[from] crate::measure::MeasureError),
    /// Rigging (discretization, embedding) failed.
    #[error("{0}")]
    Rig(String),
}

/// One character's margins.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacterMargin {
    /// Character name.
    pub name: String,
    /// Good and bad labelled embeddings.
    pub good: usize,
    /// Bad ones.
    pub bad: usize,
    /// Margin under the learned unit Γ.
    pub learned: f64,
    /// Margin under the shipped Γ (normalized to unit length), for comparison.
    pub shipped: f64,
}

/// What [`learn`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Learned {
    /// The learned Γ, unit length (‖Γ‖₂ = 1), in `embed::PENALTY_TERMS` order.
    pub unit: [f64; 9],
    /// The same direction scaled to the shipped Γ's norm: the search's cutoff (1) and per-term
    /// veto are absolute, so the scale is kept and only the direction is learned.
    pub gamma: [f64; 9],
    /// Per character with both kinds of labels, in first-seen order.
    pub characters: Vec<CharacterMargin>,
    /// Characters skipped for lacking a good or a bad embedding.
    pub skipped: Vec<String>,
}

impl Learned {
    /// The smallest learned margin.
    pub fn min_margin(&self) -> f64 {
        self.characters
            .iter()
            .map(|c| c.learned)
            .fold(f64::INFINITY, f64::min)
    }
}

/// Group labels into per-character sets (first-seen order); returns the sets with both kinds and
/// the names of the others.
pub fn character_sets(labels: &[Label]) -> (Vec<CharacterSet>, Vec<String>) {
    let mut sets: Vec<CharacterSet> = Vec::new();
    for l in labels {
        let i = match sets.iter().position(|s| s.name == l.character) {
            Some(i) => i,
            None => {
                sets.push(CharacterSet {
                    name: l.character.clone(),
                    ..CharacterSet::default()
                });
                sets.len() - 1
            }
        };
        let list = if l.good {
            &mut sets[i].good
        } else {
            &mut sets[i].bad
        };
        list.push(l.basis);
    }
    let (both, skipped): (Vec<_>, Vec<_>) = sets
        .into_iter()
        .partition(|s| !s.good.is_empty() && !s.bad.is_empty());
    (both, skipped.into_iter().map(|s| s.name).collect())
}

/// Learn Γ from `labels` (the entry function). `shipped` is the Γ in use (its norm sets the
/// learned Γ's scale; its margins are reported beside the learned ones).
pub fn learn(labels: &[Label], shipped: [f64; 9], search: &Search) -> Result<Learned, LearnError> {
    let (sets, skipped) = character_sets(labels);
    if sets.is_empty() {
        return Err(LearnError::NothingToLearn {
            labels: labels.len(),
        });
    }
    let (unit, _) = optimize::maximize(&sets, search);
    let shipped_unit = optimize::unit_gamma(&shipped);
    let norm = shipped.iter().map(|v| v * v).sum::<f64>().sqrt();
    let characters = sets
        .iter()
        .map(|s| CharacterMargin {
            name: s.name.clone(),
            good: s.good.len(),
            bad: s.bad.len(),
            learned: s.margin(&unit).unwrap_or(f64::NAN),
            shipped: s.margin(&shipped_unit).unwrap_or(f64::NAN),
        })
        .collect();
    Ok(Learned {
        unit,
        gamma: unit.map(|v| v * norm),
        characters,
        skipped,
    })
}

/// Γ as the config's named weights.
pub fn weights(gamma: &[f64; 9]) -> PenaltyWeights {
    let g = gamma;
    PenaltyWeights {
        length: g[0],
        global_direction: g[1],
        asymmetry: g[2],
        shared_path: g[3],
        foot: g[4],
        zero_length: g[5],
        direction: g[6],
        mid_limb_end: g[7],
        disjoint: g[8],
    }
}

/// `base` with its Γ replaced.
pub fn with_gamma(base: &RigConfig, gamma: &[f64; 9]) -> RigConfig {
    RigConfig {
        penalties: weights(gamma),
        ..base.clone()
    }
}

/// A `config/rig.yaml`-shaped text: the built-in file with the `penalties:` values replaced by
/// `gamma` (comments kept) and `header` lines prepended as comments. Usable with `--config`.
pub fn rig_yaml(gamma: &[f64; 9], header: &[String]) -> String {
    let mut out: String = header.iter().map(|h| format!("# {h}\n")).collect();
    let mut in_penalties = false;
    for line in DEFAULT_RIG_YAML.lines() {
        if !line.starts_with(' ') && !line.starts_with('#') {
            in_penalties = line.starts_with("penalties:");
        }
        let name = line.trim_start().split(':').next().unwrap_or("");
        let idx = crate::embed::PENALTY_TERMS.iter().position(|t| *t == name);
        match (in_penalties, idx) {
            (true, Some(k)) => {
                let comment = line.split_once('#').map(|(_, c)| c).unwrap_or("");
                let value = format!("  {name}: {:.6}", gamma[k]);
                out.push_str(&format!("{value:<28} #{comment}\n"));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    // The built-in file says its Γ is the original code's; this one is not.
    out.replace(
        "the values are the\n# original code's, see docs/algorithms.md#penalty-terms).",
        "these values were\n# learned, see the header above and docs/algorithms.md#learning-gamma).",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn rig_yaml_round_trips_gamma() {
        let g = [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09];
        let text = rig_yaml(&g, &["learned".into()]);
        let c = RigConfig::parse(&text, Path::new("learned.yaml")).unwrap();
        assert_eq!(c.penalties.as_array(), g);
        assert_eq!(with_gamma(&RigConfig::default(), &g), c);
        assert!(text.starts_with("# learned\n"));
    }
}
