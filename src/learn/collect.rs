//! Labelled embeddings from artist rigs (`geppetto learn --collect`): for each corpus mesh with an
//! artist rig and a fitting template, many complete embeddings the search reaches, each with its
//! basis values, labelled by CD-J2J against the artist rig.
//!
//! Which embeddings: the paper's loop embeds with Γ, adjusts Γ where the result is bad, and labels
//! every new embedding (Baran & Popović 2007 §3.3). We do the same without a human in the loop: the
//! search (full, and its greedy screening dive) under the shipped Γ, under Γ with each term made
//! [`TERM_FACTOR`] times weaker or stronger, and under [`RANDOM_GAMMAS`] random Γ of the shipped Γ's
//! norm. Each is an embedding some Γ prefers, i.e. exactly the competitors a learned Γ must rank.
//! Runners-up come from pinning each reduced joint to a few spread-out candidates in turn
//! ([`PINNED_PER_JOINT`]) and searching the rest.
//!
//! **Label rule**: good when CD-J2J ≤ the character's best CD-J2J among its embeddings +
//! [`GOOD_SLACK_PCT`]. Relative to the best reachable embedding because artist skeletons differ
//! from the templates (extra joints, props, tails): even a perfect embedding has CD-J2J 3–6 % on the
//! corpus, so an absolute threshold would call every embedding of some characters bad. The slack is
//! the gap that separates "a limb in the wrong place" from "the same limbs, joints slid along them"
//! (docs/algorithms.md#learning-gamma has the measured spread).

use std::path::Path;

use rayon::prelude::*;

use super::basis::Scene;
use super::labels::{Label, LabelSource};
use super::LearnError;
use crate::config::RigConfig;
use crate::embed::search::Mode;
use crate::embed::{place, Orientation};
use crate::geom::P3;
use crate::measure::bench::manifest;
use crate::measure::{joints, truth};
use crate::pipeline::Pipeline;
use crate::progress::NoProgress;
use crate::skin::pose::SplitMix64;

/// A term's weight is divided and multiplied by this for the one-term perturbations of Γ.
pub const TERM_FACTOR: f64 = 5.0;
/// Random Γ (uniform in the cube, rescaled to the shipped Γ's norm) per character.
pub const RANDOM_GAMMAS: usize = 24;
/// Runners-up: each reduced joint pinned in turn to this many of its candidates, spread over the
/// shape, and the rest searched under the shipped Γ (the paper's hint mechanism): the best
/// embedding with, say, a hand in a foot, which a learned Γ must rank below the good ones.
pub const PINNED_PER_JOINT: usize = 6;
/// Perturbed-Γ searches get the shipped budget divided by this (a budget hit still returns a
/// complete embedding the search reached, which is all a label needs).
pub const PERTURBED_BUDGET_DIVISOR: u64 = 4;
/// Label slack, percent of the largest extent (module docs).
pub const GOOD_SLACK_PCT: f64 = 1.0;

/// One corpus character to label.
#[derive(Clone, Debug)]
pub struct Character {
    /// Name (the corpus mesh name).
    pub name: String,
    /// Template to embed.
    pub template: String,
    /// The mesh file.
    pub mesh: std::path::PathBuf,
    /// The artist rig.
    pub truth: std::path::PathBuf,
}

/// The corpus characters with an artist skeleton and a template that fits: manifest category
/// `biped` (human) or `quadruped` (quadruped), `has_truth` = `yes`. Others (fish, hand, robot made
/// of parts) have no template of their creature, so "good" would mean nothing.
pub fn corpus_characters(corpus: &Path) -> Result<Vec<Character>, LearnError> {
    let entries = manifest::read(corpus)?;
    Ok(entries
        .into_iter()
        .filter(|e| e.has_truth == "yes" && matches!(e.category.as_str(), "biped" | "quadruped"))
        .filter_map(|e| {
            Some(Character {
                truth: manifest::truth_path(corpus, &e.name)?,
                mesh: manifest::mesh_path(corpus, &e.name),
                template: e.skeleton,
                name: e.name,
            })
        })
        .collect())
}

/// The Γ list searched for one character: `base`, the one-term perturbations, random ones.
pub fn gammas(base: [f64; 9], seed: u64) -> Vec<[f64; 9]> {
    let mut out = vec![base];
    for k in 0..9 {
        for f in [1.0 / TERM_FACTOR, TERM_FACTOR] {
            let mut g = base;
            g[k] *= f;
            out.push(g);
        }
    }
    let norm = base.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut rng = SplitMix64::new(seed);
    for _ in 0..RANDOM_GAMMAS {
        let x: [f64; 9] = std::array::from_fn(|_| rng.next_f64());
        out.push(super::optimize::unit_gamma(&x).map(|v| v * norm));
    }
    out
}

/// One character made ready for labelling: its discretization (computed once), template and
/// artist rig. [`Prepared::label`] scores an embedding from stored data only.
pub struct Prepared {
    /// The character.
    pub character: Character,
    prepared: std::sync::Arc<crate::mesh::PreparedMesh>,
    disc: std::sync::Arc<crate::discretize::Discretization>,
    skel: crate::skeleton::Skeleton,
    artist: truth::ScoredRig,
}

impl Prepared {
    /// Discretize `c`'s mesh and load its template and artist rig.
    pub fn new(c: &Character, config: &RigConfig) -> Result<Self, LearnError> {
        let pipeline = Pipeline::new(config.clone());
        let mut timings = Default::default();
        let (prepared, disc, _, _) = pipeline
            .discretized(&c.mesh, &NoProgress, &mut timings)
            .map_err(|e| LearnError::Rig(e.to_string()))?;
        let skel = crate::skeleton::load_template(&c.template)
            .map_err(|e| LearnError::Rig(e.to_string()))?;
        Ok(Self {
            character: c.clone(),
            artist: truth::load(&c.truth)?,
            prepared,
            disc,
            skel,
        })
    }

    /// The search scene (default orientation: +Y up, facing +Z, as the corpus rigs are).
    pub fn scene(&self) -> Scene<'_> {
        Scene::new(&self.disc.graph, &self.skel, Orientation::IDENTITY)
    }

    /// Basis values and CD-J2J (% of the largest extent) against the artist rig of the complete
    /// embedding `m`; `None` when it is not complete or hits a hard veto.
    pub fn score(&self, scene: &Scene, m: &[u32]) -> Option<([f64; 9], f64)> {
        let b = scene.basis(m)?;
        let d = &self.disc;
        let at = place(
            &d.graph,
            &d.field,
            &d.medial.samples,
            &self.skel,
            &scene.orientation,
            m,
        );
        let norm = &self.prepared.normalization;
        let pred: Vec<P3> = at.iter().map(|p| norm.to_mesh(p)).collect();
        let parents: Vec<Option<usize>> = self
            .skel
            .joints
            .iter()
            .map(|j| j.parent.map(|p| p.0))
            .collect();
        let artist = (&self.artist.positions[..], &self.artist.parents[..]);
        let extent = self.prepared.input.aabb().max_extent();
        Some((b, joints::measure((&pred, &parents), artist, extent).cd_j2j))
    }

    /// An artist label of `m` (its goodness is set by [`relabel`]).
    pub fn label(&self, scene: &Scene, matched: Vec<u32>) -> Option<Label> {
        let (basis, cd) = self.score(scene, &matched)?;
        Some(Label {
            character: self.character.name.clone(),
            source: LabelSource::Artist,
            template: self.skel.name.clone(),
            orientation: scene.orientation.label(),
            matched,
            basis,
            good: false,
            cd_j2j: Some(cd),
        })
    }
}

/// Apply the label rule (module docs) to the artist labels of `character` in `labels`: good when
/// CD-J2J is within [`GOOD_SLACK_PCT`] of the best among them. Re-run whenever labels are added,
/// since a new embedding may be the new best.
pub fn relabel(labels: &mut [Label], character: &str) {
    let mine = |l: &Label| l.character == character && l.source == LabelSource::Artist;
    let best = labels
        .iter()
        .filter(|l| mine(l))
        .filter_map(|l| l.cd_j2j)
        .fold(f64::INFINITY, f64::min);
    for l in labels.iter_mut().filter(|l| mine(l)) {
        if let Some(cd) = l.cd_j2j {
            l.good = cd <= best + GOOD_SLACK_PCT;
        }
    }
}

/// Labelled embeddings of one character (deterministic: searches are budgeted in work and results
/// collected in a fixed order).
pub fn collect(c: &Character, config: &RigConfig, seed: u64) -> Result<Vec<Label>, LearnError> {
    let p = Prepared::new(c, config)?;
    let scene = p.scene();
    let mut out: Vec<Label> = reached(&scene, config, seed)
        .into_par_iter()
        .filter_map(|m| p.label(&scene, m))
        .collect();
    relabel(&mut out, &c.name);
    Ok(out)
}

/// The distinct complete embeddings (not forced fits) the searches of the module docs reach, in
/// a fixed order: per Γ of [`gammas`] the full search then the greedy dive, then the pinned
/// runners-up joint by joint.
fn reached(scene: &Scene, config: &RigConfig, seed: u64) -> Vec<Vec<u32>> {
    let opts = config.embed_options();
    let work = opts.max_work(scene.red.len(), scene.graph.len());
    let small = work / PERTURBED_BUDGET_DIVISOR;
    let found: Vec<Vec<u32>> = gammas(opts.weights, seed)
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, g)| {
            let w = if i == 0 { work } else { small };
            let full = scene.search(*g, opts.max_nodes, w, Mode::Full);
            let dive = scene.search(*g, opts.max_nodes, w, Mode::Screen);
            [full, dive]
                .into_iter()
                .flatten()
                .filter(|f| !f.forced)
                .map(|f| f.matched)
        })
        .collect();
    let pins: Vec<(usize, u32)> = (1..scene.red.len())
        .flat_map(|j| {
            let spread = scene.spread_candidates(j, PINNED_PER_JOINT);
            spread.into_iter().map(move |v| (j, v))
        })
        .collect();
    let pinned: Vec<Vec<u32>> = pins
        .par_iter()
        .filter_map(|jv| {
            let f = scene.search_pinned(opts.weights, *jv, opts.max_nodes, small)?;
            (!f.forced).then_some(f.matched)
        })
        .collect();
    let mut unique: Vec<Vec<u32>> = Vec::new();
    for m in found.into_iter().chain(pinned) {
        if !unique.contains(&m) {
            unique.push(m);
        }
    }
    unique
}
