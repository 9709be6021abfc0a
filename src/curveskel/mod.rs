//! Template-free curve skeletons from 3D silhouettes (Pan, Yang, Xie, Willis & Zhang 2009):
//! for shapes no template fits (a hand, an octopus, a fish, a scorpion).
//!
//! Stages, one module each, in the paper's order (§1 of the paper's pipeline):
//! [`view`] primary projection direction (largest projected area, less overlap) →
//! [`raster`] + [`outline`] primary 3D silhouette: a raster of every triangle of every shell, its
//! outline loops (marching squares) with each point's depth (robust replacement of the paper's
//! vertex walk, which fails on many shells, holes and open meshes) →
//! [`axis`] constrained Delaunay triangulation (spade), terminal / sleeve / junction triangles, the
//! chordal axis through internal-edge midpoints →
//! [`prune`] spurious-branch pruning and junction merging (absent from the paper; size rules relative
//! to the local radius and the model; flat plates cut in robust mode, [`plates`]) →
//! [`refine`] decomposition into branches and the second silhouette per branch (Eq. 3), which
//! changes only depth →
//! [`joints`] key joints at branch ends and junctions, middle joints where the curve bends more
//! than 18° (§8.2) or its thickness steps down ([`constrict`]), a root (the tree centre), names
//! from shape ([`names`]: tentacles, legs, fingers, claws, tail) →
//! [`hidden`] chains for parts the outline hides (a tail curling over the back), [`mantle`] the
//! body tentacles radiate from, [`hub`] tentacles
//! that touch in the view re-hung from their hub →
//! [`diagnose`] what the method cannot see (limbs along the view, overlapping parts, lost tips).
//!
//! Everything works in the **normalized frame** (largest side 0.9), so every length rule is relative
//! to the model's size. The mesh is never modified. The output is a [`CurveFit`]: a generated
//! [`Skeleton`], an [`Embedding`]-compatible record and a [`Confidence`], so the rest of the engine
//! (skin, export, score, thumbnails) treats it like a template fit.

pub mod axis;
pub mod constrict;
pub mod diagnose;
pub mod hidden;
pub mod hub;
pub mod joints;
pub mod mantle;
pub mod names;
pub mod order;
pub mod outline;
pub mod place;
pub mod plates;
pub mod prune;
pub mod raster;
pub mod refine;
pub mod view;

use std::time::Instant;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::confidence::Confidence;
use crate::embed::{Embedding, Orientation, PenaltyBreakdown};
use crate::geom::{JointId, P3};
use crate::mesh::PreparedMesh;
pub use crate::rig::CurveReport;
use crate::skeleton::Skeleton;
use crate::util::ms_since;

/// Name of the generated skeleton (rig.json `skeleton`, `--skeleton curve`).
pub const METHOD_NAME: &str = crate::rig::METHOD_CURVE;

/// The paper's rules only, or the robust default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CurveMode {
    /// Robust default: holes kept (cycles cut), scale-relative pruning, junction merging,
    /// scale-aware simplification before the 18° test, long bones subdivided.
    #[default]
    Robust,
    /// The paper's rules: outer outline only (holes filled), Teddy's disk test as the only pruning
    /// (the paper cites Teddy for the chordal axis), no junction merging, no bone subdivision,
    /// four-nearest depth interpolation (§7.3) without smoothing.
    Faithful,
}

impl CurveMode {
    /// Parse `robust` or `faithful`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "robust" => Some(Self::Robust),
            "faithful" => Some(Self::Faithful),
            _ => None,
        }
    }

    /// `robust` or `faithful`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Robust => "robust",
            Self::Faithful => "faithful",
        }
    }
}

/// What the user asked for besides the mode: pins and branch ends from the hints sidecar,
/// **normalized frame**.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CurveHints {
    /// Pinned joints: name and target position.
    pub pins: Vec<(String, P3)>,
    /// Add a branch ending here (joined to the nearest skeleton node).
    pub add_ends: Vec<P3>,
    /// Delete the leaf branch whose end is nearest each point.
    pub remove_ends: Vec<P3>,
}

/// A curve-skeleton fit, shaped like a template fit.
#[derive(Clone, Debug)]
pub struct CurveFit {
    /// The generated skeleton (joint positions as rest, normalized frame).
    pub skeleton: Skeleton,
    /// Joint positions (normalized frame), identity orientation, zero penalty.
    pub embedding: Embedding,
    /// Confidence from the diagnostics.
    pub confidence: Confidence,
    /// The report.
    pub report: CurveReport,
}

/// Why no curve skeleton exists.
#[derive(Debug, Error)]
pub enum CurveError {
    /// Nothing to project.
    #[error("curve skeleton: the mesh has no triangles with area")]
    Empty,
    /// The outline gave no interior (a flat or degenerate projection).
    #[error("curve skeleton: the outline of the mesh has no interior in any view")]
    NoOutline,
    /// The triangulation failed.
    #[error("curve skeleton: triangulation failed: {0}")]
    Triangulation(String),
}

/// Options of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CurveOptions {
    /// Robust (default) or faithful.
    pub mode: CurveMode,
    /// Force the primary projection direction (normalized frame); `None` chooses it (§3).
    pub view: Option<[f64; 3]>,
}

/// Build a curve skeleton of `prepared` (the one entry of the method). `inside` answers whether a
/// point of the normalized frame is inside the mesh (the discretization's field), for diagnostics.
pub fn build(
    prepared: &PreparedMesh,
    inside: &dyn Fn(&P3) -> bool,
    hints: &CurveHints,
    opts: &CurveOptions,
) -> Result<CurveFit, CurveError> {
    let mut times = Vec::new();
    let t = Instant::now();
    let (frame, primary, loops) = silhouette(prepared, opts)?;
    times.push(("silhouette".to_string(), ms_since(t)));

    let t = Instant::now();
    let ax = axis::chordal_axis(&loops, &primary)?;
    if ax.nodes.is_empty() {
        return Err(CurveError::NoOutline);
    }
    let (tree, pruned, plates) = pruned_tree(&ax, &primary, hints, &frame, opts.mode);
    let mut branches = tree.branches();
    times.push(("curve_skeleton".to_string(), ms_since(t)));

    let t = Instant::now();
    let labels = refine::labels(prepared, &frame, &ax, &tree, &branches);
    let refined = refine::depth(
        prepared,
        &frame,
        &labels,
        &mut branches,
        &primary,
        opts.mode,
    );
    times.push(("refine".to_string(), ms_since(t)));

    let t = Instant::now();
    let (built, hidden_parts) = place_joints(
        prepared, &frame, &branches, &tree, &primary, hints, opts.mode,
    );
    times.push(("joints".to_string(), ms_since(t)));

    let mut diags = diagnose::run(&diagnose::Inputs {
        primary: &primary,
        branches: &branches,
        refined: &refined,
        pruned: &pruned,
        built: &built,
        frame: &frame,
        inside,
    });
    note_unboned_parts(&mut diags, hidden_parts, plates);
    Ok(assemble(
        built,
        frame,
        &loops,
        &ax,
        pruned.len(),
        times,
        diags,
        opts,
    ))
}

/// The primary view (§3), its silhouette raster with depth, and the outline's loops (§4).
fn silhouette(
    prepared: &PreparedMesh,
    opts: &CurveOptions,
) -> Result<(view::Frame, raster::Raster, outline::Loops), CurveError> {
    let frame = view::choose(prepared, opts.view)?;
    let primary = raster::Raster::primary(prepared, &frame);
    let loops = outline::loops(&primary, opts.mode)?;
    Ok((frame, primary, loops))
}

/// The chordal axis as a tree, pruned (robust mode: flat plates too, then junctions merged) and
/// edited by the hints' branch ends; with the pruned branches and the number of plates.
fn pruned_tree(
    ax: &axis::Axis,
    primary: &raster::Raster,
    hints: &CurveHints,
    frame: &view::Frame,
    mode: CurveMode,
) -> (prune::Tree, Vec<prune::Pruned>, usize) {
    let mut tree = prune::Tree::from_axis(ax, mode);
    let mut pruned = tree.prune(mode, primary.extent);
    let mut plates = 0;
    if mode == CurveMode::Robust {
        let p = tree.prune_plates(primary);
        plates = p.len();
        pruned.extend(p);
        pruned.extend(tree.prune(mode, primary.extent));
        tree.merge_junctions();
    }
    tree.apply_end_hints(hints, frame, ax);
    (tree, pruned, plates)
}

/// Key and middle joints on the branches (robust mode: tentacles re-hung from their hub, the
/// mantle chain and chains for hidden parts added), then the hints' pins; with the number of
/// hidden parts given a chain.
fn place_joints(
    prepared: &PreparedMesh,
    frame: &view::Frame,
    branches: &[prune::Branch],
    tree: &prune::Tree,
    primary: &raster::Raster,
    hints: &CurveHints,
    mode: CurveMode,
) -> (joints::Built, usize) {
    // The project's rest-pose convention: +Y of the mesh is up (names: legs reach the ground).
    let down = frame.to_frame(&P3::new(0.0, -1.0, 0.0)).coords;
    let mut built = joints::build(branches, tree, primary.extent, mode, down);
    let mut hidden_parts = 0;
    if mode == CurveMode::Robust {
        hub::rehang_tentacles(&mut built);
        let pts: Vec<P3> = prepared
            .positions
            .iter()
            .map(|q| frame.to_frame(q))
            .collect();
        mantle::add_chain(&mut built, &pts, &prepared.triangles, primary.extent, mode);
        hidden_parts =
            hidden::add_chains(&mut built, &pts, &prepared.triangles, primary.extent, mode);
    }
    joints::apply_pins(&mut built, hints, frame);
    (built, hidden_parts)
}

/// Warnings for parts that got no bones of their own or a chain from the surface's rings.
fn note_unboned_parts(diags: &mut diagnose::Diagnostics, hidden_parts: usize, plates: usize) {
    if hidden_parts > 0 {
        diags.warnings.push(format!(
            "{hidden_parts} part(s) hidden in the primary view (along the view or over another part) got a chain from the surface's rings"
        ));
    }
    if plates > 0 {
        diags.warnings.push(format!(
            "{plates} flat part(s) (fins, ears, membranes) got no bones of their own: they follow the branch they grow from"
        ));
    }
}

/// The fit from the built skeleton (normalized frame) and the run's report.
#[allow(clippy::too_many_arguments)]
fn assemble(
    built: joints::Built,
    frame: view::Frame,
    loops: &outline::Loops,
    ax: &axis::Axis,
    pruned: usize,
    times: Vec<(String, f64)>,
    diags: diagnose::Diagnostics,
    opts: &CurveOptions,
) -> CurveFit {
    let positions: Vec<P3> = built.joints.iter().map(|j| frame.to_norm(&j.pos)).collect();
    let skeleton = joints::skeleton(&built, &positions);
    let pinned: Vec<JointId> = built.pinned.iter().map(|&i| JointId(i)).collect();
    let embedding = Embedding {
        joints: positions,
        discrete: Vec::new(),
        orientation: Orientation::IDENTITY,
        penalty: PenaltyBreakdown::default(),
        budget_hit: false,
        nodes_expanded: 0,
        warnings: diags.warnings.clone(),
        timings_ms: Vec::new(),
        forced: false,
        bridged: Vec::new(),
        pinned,
    };
    let report = CurveReport {
        mode: opts.mode.label().into(),
        view: [frame.p.x, frame.p.y, frame.p.z],
        outline_points: loops.points.len(),
        outline_loops: loops.loops.len(),
        triangles: ax.class_counts,
        branches: built.branch_count,
        pruned_branches: pruned,
        key_joints: built.key_count,
        middle_joints: built.joints.len().saturating_sub(built.key_count),
        timings_ms: times,
        diagnostics: diags.all(),
        constants: constants(opts.mode),
    };
    CurveFit {
        skeleton,
        embedding,
        confidence: diags.confidence(),
        report,
    }
}

/// The constants in force, for the report (§15 check 12: the paper's two, then ours).
fn constants(mode: CurveMode) -> Vec<(String, f64)> {
    let mut c = vec![
        (
            "bend_degrees (paper §8.2)".to_string(),
            joints::BEND_DEGREES,
        ),
        (
            "depth_neighbours (paper §7.3)".to_string(),
            refine::NEIGHBOURS as f64,
        ),
        ("raster_pixels".to_string(), raster::PRIMARY_PIXELS as f64),
        ("outline_spacing_px".to_string(), outline::SPACING_PX),
        ("min_outline_area".to_string(), outline::MIN_LOOP_AREA),
        ("along_view_sine".to_string(), refine::ALONG_VIEW_SINE),
    ];
    if mode == CurveMode::Robust {
        c.extend([
            ("min_hole_area".to_string(), outline::MIN_HOLE_AREA),
            ("prune_ratio".to_string(), prune::PRUNE_RATIO),
            ("min_protrusion".to_string(), prune::MIN_PROTRUSION),
            ("junction_merge".to_string(), prune::JUNCTION_MERGE),
            ("simplify_radius".to_string(), joints::SIMPLIFY_RADIUS),
            ("max_bone_radii".to_string(), joints::MAX_BONE),
            ("step_ratio".to_string(), constrict::STEP_RATIO),
            ("min_split_bone".to_string(), joints::MIN_SPLIT_BONE),
            ("plate_ratio".to_string(), plates::PLATE_RATIO),
            ("layer_gap_radii".to_string(), refine::LAYER_GAP_RADII),
            ("unboned_radii".to_string(), hidden::UNBONED_RADII),
            ("min_part_radii".to_string(), hidden::MIN_PART_RADII),
        ]);
    }
    c
}
