//! The per-orientation search. `Default`/`Fixed` search one orientation with the whole budget.
//! `Auto` is bounded by the **same one budget** (`EmbedOptions::max_millis`, `max_nodes`) in total:
//! a cheap screening pass runs all 24 axis-aligned orientations in parallel with a small share each
//! (the greedy dive already finds a complete embedding, whose penalty separates upright from lying
//! orientations by a wide margin), then only the few best get the full best-first search with the rest.

use std::time::Duration;

use rayon::prelude::*;

use super::paths::Paths;
use super::penalty::Ctx;
use super::reduced::Reduced;
use super::search::{search, Found, Limits};
use super::{EmbedOptions, Orientation, OrientationMode};
use crate::discretize::SphereGraph;

/// Share of the budget spent screening all 24 orientations under `Auto`.
const SCREEN_SHARE: f64 = 0.35;
/// Orientations that get the full search after screening.
const FINALISTS: usize = 3;

/// One orientation's result; `final_pass` is false for a screening-only result (its budget hit
/// means nothing: screening is cut short on purpose).
pub struct Tried {
    /// The orientation.
    pub orientation: Orientation,
    /// Its best complete embedding, if any.
    pub found: Option<Found>,
    /// Searched with a full (not screening) budget.
    pub final_pass: bool,
}

/// Shared, orientation-independent search inputs.
pub struct Inputs<'a> {
    /// The sphere graph (normalized frame).
    pub graph: &'a SphereGraph,
    /// Reduced skeleton.
    pub red: &'a Reduced,
    /// All-pairs paths.
    pub paths: &'a Paths,
    /// Candidate vertices per reduced joint.
    pub cand: &'a [Vec<u32>],
    /// Hints inside chains, which the chains' paths must pass.
    pub pins: &'a [super::pins::ChainHint],
    /// Options (weights, budget, orientation mode).
    pub opts: &'a EmbedOptions,
    /// Polled by the search.
    pub cancelled: &'a (dyn Fn() -> bool + Sync),
}

impl Inputs<'_> {
    /// Run the search for every orientation the options ask for.
    pub fn run(&self) -> Vec<Tried> {
        let full = |o: Orientation| Tried {
            orientation: o,
            found: self.search_one(&o, self.opts.max_nodes, self.opts.max_millis as f64, false),
            final_pass: true,
        };
        match self.opts.orientation {
            OrientationMode::Default => vec![full(Orientation::IDENTITY)],
            OrientationMode::Fixed(o) => vec![full(o)],
            OrientationMode::Auto => self.auto(),
        }
    }

    /// Screening over all 24, then the full search on the best [`FINALISTS`]; the wall time stays
    /// within about one `max_millis` (each parallel round gets its share of the budget).
    fn auto(&self) -> Vec<Tried> {
        let all = Orientation::all();
        let threads = rayon::current_num_threads().max(1);
        let rounds = |n: usize| n.div_ceil(threads).max(1) as f64;
        let ms = self.opts.max_millis as f64;
        let screen_ms = ms * SCREEN_SHARE / rounds(all.len());
        let screen_nodes = (self.opts.max_nodes / all.len()).max(64);
        let mut tried: Vec<Tried> = all
            .par_iter()
            .map(|o| Tried {
                orientation: *o,
                found: self.search_one(o, screen_nodes, screen_ms, true),
                final_pass: false,
            })
            .collect();
        tried.sort_by(|a, b| rank(a).total_cmp(&rank(b)));
        let n = FINALISTS.min(tried.len());
        let final_ms = ms * (1.0 - SCREEN_SHARE) / rounds(n);
        let final_nodes = self.opts.max_nodes / n.max(1);
        let finals: Vec<Tried> = tried[..n]
            .par_iter()
            .map(|t| Tried {
                orientation: t.orientation,
                found: self.search_one(&t.orientation, final_nodes, final_ms, false),
                final_pass: true,
            })
            .collect();
        // A finalist's full search replaces its screening result; the others stay as screened.
        for (slot, f) in tried.iter_mut().zip(finals) {
            if f.found.is_some() {
                *slot = f;
            }
        }
        tried
    }

    /// One orientation's search with the given budget (`screening`: no unbounded forced fit).
    fn search_one(
        &self,
        o: &Orientation,
        max_nodes: usize,
        max_ms: f64,
        screening: bool,
    ) -> Option<Found> {
        let ctx = Ctx::from_graph(
            self.red,
            self.paths,
            self.graph,
            o,
            self.opts.weights,
            self.cand.to_vec(),
        )
        .with_pins(self.pins, o);
        let limits = Limits {
            max_nodes: max_nodes.max(1),
            max_time: Duration::from_secs_f64(max_ms.max(1.0) / 1e3),
            cancelled: self.cancelled,
            screening,
        };
        search(&ctx, &limits)
    }
}

/// Sort key: forced fits last, then by penalty; no embedding at all is worst.
pub fn rank(t: &Tried) -> f64 {
    t.found.as_ref().map_or(
        f64::INFINITY,
        |f| if f.forced { 1e6 } else { 0.0 } + f.total,
    )
}
