//! The per-orientation search. `Default`/`Fixed` search one orientation with the whole budget.
//! `Auto` is bounded by the **same one budget** (`EmbedOptions::max_work`, `max_nodes`) in total:
//! a cheap screening pass runs all 24 axis-aligned orientations in parallel with a small share each
//! (the greedy dive already finds a complete embedding, whose penalty separates upright from lying
//! orientations by a wide margin), then only the few best get the full best-first search with the rest.

use std::time::Duration;

use rayon::prelude::*;

use super::paths::Paths;
use super::penalty::Ctx;
use super::reduced::Reduced;
use super::search::{search, Found, Limits, Mode};
use super::{EmbedOptions, Orientation, OrientationMode};
use crate::discretize::SphereGraph;

/// Share of the budget for the full search of the best-screened orientation; the other finalists
/// share the rest (screening is bounded by expansions, see [`super::search::screen_expansions`]).
const MAIN_SHARE: f64 = 0.7;
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

/// The screening pass of an `Auto` search ([`Inputs::screen_auto`]), to hand to the search
/// ([`Inputs::run_screened`]) when it was run ahead, beside other work.
pub struct Screened(Vec<Tried>);

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
    /// The whole search budget `(nodes, penalty evaluations)` for this template and graph.
    fn budget(&self) -> (usize, u64) {
        let work = self.opts.max_work(self.red.len(), self.graph.len());
        (self.opts.max_nodes, work)
    }

    /// The main search's cutoff and mode: with [`EmbedOptions::cutoff`] below the original's 1, only
    /// a match that beats it is wanted (another template already fits that well).
    fn main_mode(&self) -> (f64, Mode) {
        if self.opts.cutoff < 1.0 {
            (self.opts.cutoff, Mode::Beat)
        } else {
            (1.0, Mode::Full)
        }
    }

    /// Run the search for every orientation the options ask for.
    pub fn run(&self) -> Vec<Tried> {
        self.run_screened(None)
    }

    /// [`Self::run`], with the screening pass of `Auto` taken from `screened` when given (it must
    /// come from [`Self::screen_auto`] on the same inputs: the cutoff aside, which screening does
    /// not read, these are the same results).
    pub fn run_screened(&self, screened: Option<Screened>) -> Vec<Tried> {
        let (nodes, work) = self.budget();
        let full = |o: Orientation| Tried {
            orientation: o,
            found: self.search_one(&o, nodes, work, 1.0, Mode::Full),
            final_pass: true,
        };
        match self.opts.orientation {
            OrientationMode::Default => vec![full(Orientation::IDENTITY)],
            OrientationMode::Fixed(o) => vec![full(o)],
            OrientationMode::Auto => {
                let Screened(tried) = screened.unwrap_or_else(|| self.screen_auto());
                self.finish_auto(tried)
            }
        }
    }

    /// Screening only (greedy dives, see [`Mode::Screen`]) of the orientations the options ask for:
    /// a cheap upper bound on each orientation's best penalty.
    pub fn screen(&self) -> Vec<Tried> {
        let (nodes, work) = self.budget();
        let list = match self.opts.orientation {
            OrientationMode::Default => vec![Orientation::IDENTITY],
            OrientationMode::Fixed(o) => vec![o],
            OrientationMode::Auto => Orientation::all(),
        };
        list.par_iter()
            .map(|o| Tried {
                orientation: *o,
                found: self.search_one(o, nodes, work, 1.0, Mode::Screen),
                final_pass: false,
            })
            .collect()
    }

    /// The screening pass of `Auto`: a greedy dive in each of the 24 orientations, in parallel,
    /// collected in orientation order. It reads neither the cutoff nor anything a search of
    /// another template finds, so a caller may run it beside that search ([`Screened`]).
    pub fn screen_auto(&self) -> Screened {
        let (nodes, work) = self.budget();
        Screened(
            Orientation::all()
                .par_iter()
                .map(|o| Tried {
                    orientation: *o,
                    found: self.search_one(o, nodes, work, 1.0, Mode::Screen),
                    final_pass: false,
                })
                .collect(),
        )
    }

    /// After the screening of all 24 ([`Self::screen_auto`]), the full search on the best
    /// [`FINALISTS`], all within one budget. Every orientation's share is fixed in advance (not
    /// first come, first served), and results are collected in orientation order, so the outcome
    /// does not depend on the thread count.
    fn finish_auto(&self, mut tried: Vec<Tried>) -> Vec<Tried> {
        let (nodes, work) = self.budget();
        // Stable sort: ties keep the fixed order of `Orientation::all`.
        tried.sort_by(|a, b| rank(a).total_cmp(&rank(b)));
        let n = FINALISTS.min(tried.len());
        if n == 0 {
            return tried;
        }
        // The best-screened orientation gets the main search; the runners-up only need to show
        // whether they beat it, so its penalty is their cutoff (branch and bound across
        // orientations) and they are searched after it, never concurrently with it.
        let main_work = (work as f64 * MAIN_SHARE) as u64;
        let rest_work = (work as f64 * (1.0 - MAIN_SHARE)) as u64 / n as u64;
        let (cut, mode) = self.main_mode();
        let first = self.search_one(&tried[0].orientation, nodes / 2, main_work, cut, mode);
        let cutoff = first
            .as_ref()
            .filter(|f| !f.forced)
            .map_or(cut, |f| f.total.min(cut));
        let rest: Vec<Option<Found>> = tried[1..n]
            .par_iter()
            .map(|t| self.search_one(&t.orientation, nodes / 2 / n, rest_work, cutoff, Mode::Beat))
            .collect();
        let finals: Vec<Tried> = std::iter::once(first)
            .chain(rest)
            .zip(&tried)
            .map(|(found, t)| Tried {
                orientation: t.orientation,
                found,
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
        max_work: u64,
        cutoff: f64,
        mode: Mode,
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
            max_work: max_work.max(1),
            safety_time: Duration::from_millis(self.opts.safety_millis),
            cancelled: self.cancelled,
            mode,
            cutoff,
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
