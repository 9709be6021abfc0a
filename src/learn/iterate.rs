//! The paper's training loop (Baran & Popović 2007 §3.3): learn Γ, embed the training characters
//! again with it, label the embeddings never seen before, learn again, until no search finds a new
//! embedding (or [`MAX_ROUNDS`]). Each character is discretized once; every round only re-runs the
//! searches, and learning itself reads stored basis values.
//!
//! Which Γ search each round: the Γ learned on every label, and for each character the Γ learned
//! without it (the Γ its leave-one-out evaluation rigs with). The second kind matters because that
//! is exactly the embedding leave-one-out scores: if it is bad, labelling it teaches the other
//! folds not to prefer it. A left-out character's own new labels never enter its own fold.

use rayon::prelude::*;

use super::collect::{relabel, Character, Prepared};
use super::labels::Label;
use super::optimize::Search;
use super::{learn, LearnError};
use crate::config::RigConfig;
use crate::embed::search::Mode;

/// Rounds at most (the paper stopped when Γ stopped changing; on the corpus the loop ends in a few).
pub const MAX_ROUNDS: usize = 6;

/// What one round did.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// 1-based.
    pub round: usize,
    /// Labels added (embeddings not labelled before).
    pub added: usize,
    /// Of those, good ones.
    pub added_good: usize,
    /// Smallest per-character margin of the Γ learned at the start of the round.
    pub min_margin: f64,
}

/// Γ to search with this round: learned on all labels, then one per character without it.
fn round_gammas(
    characters: &[Prepared],
    labels: &[Label],
    shipped: [f64; 9],
    search: &Search,
) -> Result<(Vec<[f64; 9]>, f64), LearnError> {
    let all = learn(labels, shipped, search)?;
    let mut out = vec![all.gamma];
    for p in characters {
        let name = &p.character.name;
        let train: Vec<Label> = labels
            .iter()
            .filter(|l| &l.character != name)
            .cloned()
            .collect();
        if let Ok(l) = learn(&train, shipped, search) {
            out.push(l.gamma);
        }
    }
    Ok((out, all.min_margin()))
}

/// New labels of one character: the full search and the greedy dive under each Γ, keeping
/// complete embeddings not in `labels` yet.
fn new_labels(
    p: &Prepared,
    gammas: &[[f64; 9]],
    labels: &[Label],
    config: &RigConfig,
) -> Vec<Label> {
    let scene = p.scene();
    let opts = config.embed_options();
    let work = opts.max_work(scene.red.len(), scene.graph.len());
    let found: Vec<Vec<u32>> = gammas
        .par_iter()
        .flat_map_iter(|g| {
            [Mode::Full, Mode::Screen]
                .into_iter()
                .filter_map(|mode| scene.search(*g, opts.max_nodes, work, mode))
                .filter(|f| !f.forced)
                .map(|f| f.matched)
        })
        .collect();
    let name = &p.character.name;
    let mut fresh: Vec<Vec<u32>> = Vec::new();
    for m in found {
        let seen = labels
            .iter()
            .any(|l| &l.character == name && l.matched == m);
        if !seen && !fresh.contains(&m) {
            fresh.push(m);
        }
    }
    fresh
        .into_iter()
        .filter_map(|m| p.label(&scene, m))
        .collect()
}

/// Run the loop on `characters`, adding to `labels` (re-labelled by the same rule as labels are
/// added). Returns one record per round; the last one added nothing unless [`MAX_ROUNDS`] ran out.
pub fn iterate(
    characters: &[Character],
    labels: &mut Vec<Label>,
    config: &RigConfig,
    search: &Search,
    mut progress: impl FnMut(&Round),
) -> Result<Vec<Round>, LearnError> {
    let prepared: Vec<Prepared> = characters
        .iter()
        .filter(|c| labels.iter().any(|l| l.character == c.name))
        .map(|c| Prepared::new(c, config))
        .collect::<Result<_, _>>()?;
    let shipped = config.penalties.as_array();
    let mut rounds = Vec::new();
    for round in 1..=MAX_ROUNDS {
        let (gammas, min_margin) = round_gammas(&prepared, labels, shipped, search)?;
        let mut added = Vec::new();
        for p in &prepared {
            added.extend(new_labels(p, &gammas, labels, config));
        }
        let n = added.len();
        labels.extend(added);
        for p in &prepared {
            relabel(labels, &p.character.name);
        }
        let added_good = labels[labels.len() - n..].iter().filter(|l| l.good).count();
        let r = Round {
            round,
            added: n,
            added_good,
            min_margin,
        };
        progress(&r);
        rounds.push(r);
        if n == 0 {
            break;
        }
    }
    Ok(rounds)
}
