//! The embedding driver: candidates, the per-orientation search (parallel for `Auto`), split,
//! refinement, end extension. Everything a test needs can be passed in directly (graph, field, medial
//! samples), so synthetic shapes exercise the whole stage.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::candidates::candidates;
use super::nearest::PointIndex;
use super::paths::Paths;
use super::penalty::Ctx;
use super::reduced::Reduced;
use super::refine::{Bone, Field, Problem};
use super::search::{search, Found, Limits};
use super::split::{split, Ends};
use super::{EmbedError, EmbedOptions, Embedding, Orientation, OrientationMode, PenaltyBreakdown};
use crate::discretize::{Sphere, SphereGraph};
use crate::geom::{JointId, NodeId, P3, V3};
use crate::rig::hints::ResolvedHint;
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
    let t0 = Instant::now();
    let no_match = |reason: String| EmbedError::NoMatch {
        skeleton: skel.name.clone(),
        reason,
    };
    if graph.is_empty() {
        return Err(no_match(
            "the shape has no interior spheres to embed into".into(),
        ));
    }
    let red = Reduced::new(skel);
    let paths = Paths::new(graph);
    let (cand, mut warnings) = candidates(graph, skel, &red, hints);
    let results = search_orientations(graph, &red, &paths, &cand, opts, cancelled);
    if cancelled() {
        return Err(EmbedError::Cancelled);
    }
    let nodes: usize = results
        .iter()
        .filter_map(|r| r.1.as_ref())
        .map(|f| f.nodes)
        .sum();
    let budget_any = results
        .iter()
        .filter_map(|r| r.1.as_ref())
        .any(|f| f.budget_hit);
    let best = results
        .into_iter()
        .filter_map(|(o, f)| f.map(|f| (o, f)))
        .min_by(|a, b| {
            (a.1.forced, a.1.total)
                .partial_cmp(&(b.1.forced, b.1.total))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    let Some((orientation, found)) = best else {
        return Err(no_match(
            "some joint has no reachable candidate sphere (the shape is too small or in separate pieces)".into(),
        ));
    };
    search_warnings(&found, budget_any, opts, &mut warnings);
    let bridged = bridged_chains(&red, &paths, &found.matched);
    for j in &bridged {
        warnings.push(format!(
            "the bones leading to {} jump between separate parts of the mesh",
            skel.joints[j.0].name
        ));
    }
    let embed_ms = ms_since(t0);
    let t1 = Instant::now();
    let place = Placement {
        graph,
        paths: &paths,
        red: &red,
        skel,
        field,
        medial,
        hints,
    };
    let joints = place.run(&orientation, &found.matched);
    Ok(Embedding {
        joints,
        discrete: found.matched.iter().map(|v| NodeId(*v)).collect(),
        orientation,
        penalty: PenaltyBreakdown {
            total: found.total,
            terms: found.terms,
        },
        budget_hit: found.budget_hit,
        nodes_expanded: nodes,
        warnings,
        timings_ms: vec![("embed", embed_ms), ("refine", ms_since(t1))],
        forced: found.forced,
        bridged,
    })
}

/// Run the search for every orientation the options ask for (in parallel for `Auto`).
fn search_orientations(
    graph: &SphereGraph,
    red: &Reduced,
    paths: &Paths,
    cand: &[Vec<u32>],
    opts: &EmbedOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Vec<(Orientation, Option<Found>)> {
    let orientations = match opts.orientation {
        OrientationMode::Default => vec![Orientation::IDENTITY],
        OrientationMode::Fixed(o) => vec![o],
        OrientationMode::Auto => Orientation::all(),
    };
    let limits = Limits {
        max_nodes: opts.max_nodes,
        max_time: Duration::from_millis(opts.max_millis),
        cancelled,
    };
    let nbrs: Vec<Vec<u32>> = (0..graph.len())
        .map(|i| {
            graph
                .edges
                .get(i)
                .map_or(Vec::new(), |l| l.iter().map(|(n, _)| n.0).collect())
        })
        .collect();
    let rad: Vec<f64> = graph.spheres.iter().map(|s| s.radius).collect();
    let run = |o: &Orientation| {
        // FootPF's "y" is the template's up: rotate the graph, not the template.
        let half = V3::new(0.5, 0.5, 0.5);
        let pos = graph
            .spheres
            .iter()
            .map(|s| o.apply(&(s.center.coords - half)))
            .collect();
        let ctx = Ctx::new(
            red,
            paths,
            pos,
            rad.clone(),
            nbrs.clone(),
            opts.weights,
            cand.to_vec(),
        );
        (*o, search(&ctx, &limits))
    };
    orientations.par_iter().map(run).collect()
}

fn search_warnings(
    found: &Found,
    budget_any: bool,
    opts: &EmbedOptions,
    warnings: &mut Vec<String>,
) {
    if found.budget_hit {
        warnings.push(format!(
            "search budget hit ({} nodes, {} ms limit): the best complete embedding found is used, optimality not proven",
            found.nodes, opts.max_millis
        ));
    } else if budget_any && opts.orientation == OrientationMode::Auto {
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
        };
        problem.refine(&mut joints, REFINE_ITERATIONS);
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
