//! The embedding driver: candidates, the per-orientation search (parallel for `Auto`), split,
//! refinement, end extension. Everything a test needs can be passed in directly (graph, field, medial
//! samples), so synthetic shapes exercise the whole stage.

use std::collections::HashMap;
use std::time::Instant;

use super::candidates::candidates;
use super::mirror;
use super::nearest::PointIndex;
use super::orient::{rank, Inputs, Screened, Tried};
use super::paths::Paths;
use super::pins::chain_hints;
use super::reduced::Reduced;
use super::refine::{Bone, Problem, SurfaceCache};
use super::search::Found;
use super::split::{split, Ends};
use super::{EmbedError, EmbedOptions, Embedding, Orientation, OrientationMode, PenaltyBreakdown};
use crate::discretize::Field;
use crate::discretize::{Sphere, SphereGraph};
use crate::embed::hints::ResolvedHint;
use crate::geom::{JointId, NodeId, P3, V3};
use crate::skeleton::Skeleton;
use crate::util::ms_since;

/// Outer refinement iterations (the original's 10).
const REFINE_ITERATIONS: usize = 10;

/// [`super::embed`] on explicit inputs (normalized frame).
pub fn embed_with(
    graph: &SphereGraph,
    field: &dyn Field,
    medial: &[Sphere],
    skel: &Skeleton,
    hints: &[ResolvedHint],
    opts: &EmbedOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Embedding, EmbedError> {
    let shape = Shape {
        graph,
        field,
        medial,
    };
    embed_screened_with(&shape, skel, hints, opts, None, cancelled)
}

/// What an embedding reads of the discretized shape (normalized frame).
pub struct Shape<'a> {
    /// The sphere graph.
    pub graph: &'a SphereGraph,
    /// The distance field.
    pub field: &'a dyn Field,
    /// The medial samples.
    pub medial: &'a [Sphere],
}

/// The screening pass of `skel`'s search under [`OrientationMode::Auto`] ([`Screened`]), run
/// ahead of [`embed_screened_with`] with the same inputs (the cutoff aside); `None` when the
/// options search one orientation or the graph is empty (the search then does it all).
pub fn screen_ahead(
    graph: &SphereGraph,
    skel: &Skeleton,
    hints: &[ResolvedHint],
    opts: &EmbedOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<Screened> {
    if graph.is_empty() || opts.orientation != OrientationMode::Auto {
        return None;
    }
    let red = Reduced::new(skel);
    let (cand, _) = candidates(graph, skel, &red, hints);
    let pins = chain_hints(skel, &red, hints);
    let screened = Inputs {
        graph,
        red: &red,
        paths: graph.paths(),
        cand: &cand,
        pins: &pins,
        opts,
        cancelled,
    }
    .screen_auto();
    Some(screened)
}

/// [`embed_with`], with the screening pass taken from `screened` ([`screen_ahead`] on the same
/// inputs) when given.
pub fn embed_screened_with(
    shape: &Shape,
    skel: &Skeleton,
    hints: &[ResolvedHint],
    opts: &EmbedOptions,
    screened: Option<Screened>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<Embedding, EmbedError> {
    let Shape {
        graph,
        field,
        medial,
    } = *shape;
    let t0 = Instant::now();
    if graph.is_empty() {
        return Err(no_match(skel, NO_SPHERES));
    }
    let red = Reduced::new(skel);
    let paths = graph.paths();
    let (cand, mut warnings) = candidates(graph, skel, &red, hints);
    let pins = chain_hints(skel, &red, hints);
    let tried = Inputs {
        graph,
        red: &red,
        paths,
        cand: &cand,
        pins: &pins,
        opts,
        cancelled,
    }
    .run_screened(screened);
    if cancelled() {
        return Err(EmbedError::Cancelled);
    }
    let Some(pick) = Pick::best(tried) else {
        return Err(no_match(skel, NO_CANDIDATE));
    };
    search_warnings(&pick, opts, &mut warnings);
    let bridged = bridged_chains(&red, paths, &pick.found.matched);
    warnings.extend(bridged.iter().map(|j| bridge_warning(skel, j)));
    let embed_ms = ms_since(t0);
    let t1 = Instant::now();
    let place = Placement {
        graph,
        paths,
        red: &red,
        skel,
        field,
        medial,
        hints,
    };
    let joints = place.run(&pick.orientation, &pick.found.matched);
    let timings = vec![("embed", embed_ms), ("refine", ms_since(t1))];
    let mut emb = pick.into_embedding(joints, warnings, timings, bridged);
    emb.pinned = hints.iter().map(|h| h.joint).collect();
    Ok(emb)
}

/// Why [`embed_with`] finds no match on a shape without interior spheres.
const NO_SPHERES: &str = "the shape has no interior spheres to embed into";

/// Why [`embed_with`] finds no match when the search reaches no complete one.
const NO_CANDIDATE: &str =
    "some joint has no reachable candidate sphere (the shape is too small or in separate pieces)";

/// The warning for joint `j`, whose chain's bones jump across a bridge between separate parts.
fn bridge_warning(skel: &Skeleton, j: &JointId) -> String {
    format!(
        "the bones leading to {} jump between separate parts of the mesh",
        skel.joints[j.0].name
    )
}

/// The error of `skel` not fitting the shape, for `reason`.
fn no_match(skel: &Skeleton, reason: &str) -> EmbedError {
    EmbedError::NoMatch {
        skeleton: skel.name.clone(),
        reason: reason.into(),
    }
}

/// Screening only, on explicit inputs: the best greedy-dive fit over the orientations of `opts`, as
/// `(orientation, penalty, forced)`. An upper bound on what the full search would find there.
pub fn screen_with(
    graph: &SphereGraph,
    skel: &Skeleton,
    opts: &EmbedOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Option<(Orientation, f64, bool)> {
    if graph.is_empty() {
        return None;
    }
    let red = Reduced::new(skel);
    let (cand, _) = candidates(graph, skel, &red, &[]);
    let tried = Inputs {
        graph,
        red: &red,
        paths: graph.paths(),
        cand: &cand,
        pins: &[],
        opts,
        cancelled,
    }
    .screen();
    let best = tried
        .into_iter()
        .filter(|t| t.found.is_some())
        .min_by(|a, b| rank(a).total_cmp(&rank(b)))?;
    let f = best.found?;
    Some((best.orientation, f.total, f.forced))
}

/// Full-skeleton joint positions (normalized frame) of a discrete match `matched` (graph vertex per
/// reduced joint, search order) seen through `orientation`: the same split, end extension and
/// refinement as [`embed_with`], without hints. Lets a caller measure embeddings other than the
/// search's pick (`crate::learn` labels the runners-up by their final joints).
pub fn place(
    graph: &SphereGraph,
    field: &dyn Field,
    medial: &[Sphere],
    skel: &Skeleton,
    orientation: &Orientation,
    matched: &[u32],
) -> Vec<P3> {
    let red = Reduced::new(skel);
    let place = Placement {
        graph,
        paths: graph.paths(),
        red: &red,
        skel,
        field,
        medial,
        hints: &[],
    };
    place.run(orientation, matched)
}

/// The chosen orientation and its discrete match.
struct Pick {
    orientation: Orientation,
    found: Found,
    /// Nodes expanded over every orientation and pass.
    nodes: usize,
    /// Some fully searched orientation other than the pick stopped on its budget.
    budget_other: bool,
}

impl Pick {
    /// The final [`Embedding`] around this match.
    fn into_embedding(
        self,
        joints: Vec<P3>,
        warnings: Vec<String>,
        timings_ms: Vec<(&'static str, f64)>,
        bridged: Vec<JointId>,
    ) -> Embedding {
        let found = self.found;
        Embedding {
            joints,
            discrete: found.matched.iter().map(|v| NodeId(*v)).collect(),
            orientation: self.orientation,
            penalty: PenaltyBreakdown {
                total: found.total,
                terms: found.terms,
            },
            budget_hit: found.budget_hit,
            nodes_expanded: self.nodes,
            warnings,
            timings_ms,
            forced: found.forced,
            bridged,
            pinned: Vec::new(),
        }
    }

    /// Lowest penalty (unforced first) over the orientations tried.
    fn best(tried: Vec<Tried>) -> Option<Self> {
        let found = || tried.iter().filter_map(|t| t.found.as_ref());
        let nodes = found().map(|f| f.nodes).sum();
        let time_cap_any = found().any(|f| f.time_cap_hit);
        let budget_any = tried
            .iter()
            .any(|t| t.final_pass && t.found.as_ref().is_some_and(|f| f.budget_hit));
        let best = tried
            .into_iter()
            .filter(|t| t.found.is_some())
            .min_by(|a, b| rank(a).total_cmp(&rank(b)))?;
        let mut found = best.found?;
        // A screening-only result was cut short on purpose: its optimality is not proven.
        found.budget_hit |= !best.final_pass;
        // The safety cap on any orientation may have changed which one won.
        found.time_cap_hit |= time_cap_any;
        Some(Self {
            orientation: best.orientation,
            budget_other: budget_any && !found.budget_hit,
            found,
            nodes,
        })
    }
}

fn search_warnings(pick: &Pick, opts: &EmbedOptions, warnings: &mut Vec<String>) {
    let found = &pick.found;
    if found.time_cap_hit {
        warnings.push(format!(
            "the search stopped at its {:.0} s safety time limit (the machine may be very busy): this rig may differ from run to run",
            opts.safety_millis as f64 / 1e3
        ));
    }
    if found.budget_hit {
        warnings.push(format!(
            "search budget hit ({} nodes, {} penalty evaluations): the best complete embedding found is used, optimality not proven",
            found.nodes, found.work
        ));
    } else if pick.budget_other && opts.orientation == OrientationMode::Auto {
        warnings.push("the search budget was hit for some orientations tried".into());
    }
    if found.forced {
        warnings.push(
            "no embedding passed the penalty cutoff; this is the least bad forced fit".into(),
        );
    }
}

/// Split + end extension + refinement of a discrete match.
struct Placement<'a> {
    graph: &'a SphereGraph,
    paths: &'a Paths,
    red: &'a Reduced,
    skel: &'a Skeleton,
    field: &'a dyn Field,
    medial: &'a [Sphere],
    hints: &'a [ResolvedHint],
}

impl Placement<'_> {
    /// Full-skeleton joint positions, normalized frame.
    fn run(&self, orientation: &Orientation, matched: &[u32]) -> Vec<P3> {
        let pins: HashMap<usize, P3> = self.hints.iter().map(|h| (h.joint.0, h.position)).collect();
        let bone_list = bones(self.skel, self.red, orientation);
        let mut template_dir = vec![V3::zeros(); self.skel.joints.len()];
        for b in &bone_list {
            template_dir[b.child] = b.vec;
        }
        let ends = Ends {
            skel: self.skel,
            field: self.field,
            template_dir: &template_dir,
        };
        let (mut joints, extended) = split(self.graph, self.paths, self.red, &ends, matched, &pins);
        let index = PointIndex::new(self.medial);
        let mut fixed: Vec<(usize, P3, f64)> = self
            .hints
            .iter()
            .map(|h| (h.joint.0, h.position, h.radius))
            .collect();
        // Extended ends sit at the extremity on purpose; the surface term would pull them back in.
        fixed.extend(extended.iter().map(|j| (*j, joints[*j], 0.0)));
        let problem = Problem {
            bones: bone_list,
            field: self.field,
            medial: &index,
            pins: fixed,
            cache: SurfaceCache::default(),
        };
        problem.refine(&mut joints, REFINE_ITERATIONS);
        // A mirror-symmetric shape: the two placements of a mirrored pair are two estimates of
        // one joint (`mirror` says why the embedding's own are not symmetric). Pins stay.
        let axis = mirror::lateral_axis(orientation);
        if mirror::is_symmetric(self.field, self.medial, axis) {
            let mut keep: Vec<usize> = pins.keys().copied().collect();
            keep.sort_unstable();
            mirror::symmetrize(&mut joints, self.skel, self.field, axis, &keep);
        }
        joints
    }
}

/// Template bones for refinement, scaled like the search's and rotated into the normalized frame.
fn bones(skel: &Skeleton, red: &Reduced, o: &Orientation) -> Vec<Bone> {
    let mut of_child = vec![usize::MAX; skel.joints.len()];
    let mut out: Vec<Bone> = Vec::new();
    for (i, j) in skel.joints.iter().enumerate() {
        let Some(p) = j.parent else { continue };
        of_child[i] = out.len();
        let v = (j.rest - skel.joints[p.0].rest) * red.scale;
        let sym = j
            .symmetric
            .filter(|s| s.0 < i)
            .and_then(|s| of_child.get(s.0).copied())
            .filter(|b| *b != usize::MAX);
        out.push(Bone {
            child: i,
            parent: p.0,
            vec: o.unapply(&v),
            sym,
        });
    }
    out
}

/// Reduced joints whose chain's shortest path uses a bridge edge.
fn bridged_chains(red: &Reduced, paths: &Paths, matched: &[u32]) -> Vec<JointId> {
    red.joints
        .iter()
        .enumerate()
        .filter_map(|(k, rj)| {
            let p = rj.parent?;
            let (a, b) = (*matched.get(k)?, *matched.get(p)?);
            (paths.bridges_on(a, b) > 0).then_some(rj.full)
        })
        .collect()
}
