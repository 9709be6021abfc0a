//! Edit bench (`geppetto bench --edit MESH`): the local re-solve of a joint move against the global
//! solve of the same system (Bang et al. 2015 §7.1; facts §10.7), on the mesh midpoint-subdivided
//! to about 1×, 4× and 16× its vertex count ([`crate::measure::subdivide`]).
//!
//! Each size is rigged once in-process; then the joint is dragged in `runs` small steps (each a
//! local re-solve, like a UI drag: the first step builds the cached factorization pattern, the
//! later ones reuse it when the region repeats), the session is copied and solved globally with
//! the same joints and controls, and the largest weight difference is taken over every vertex and
//! joint. Speed-up = global ms / median local ms of the steps.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::super::{median, subdivide, MeasureError};
use crate::choose::Template;
use crate::config::RigConfig;
use crate::edit::{EditOp, EditOutcome, Session};
use crate::geom::{P3, V3};
use crate::pipeline::{Pipeline, RigRequest};
use crate::progress::NoProgress;
use crate::rig::RigJoint;
use crate::util::ms_since;

/// Each drag step moves the joint by this fraction of the rig's bounding-box diagonal (about
/// 1 cm on a 1.7 m character: a mouse-drag increment).
const STEP_OF_DIAGONAL: f64 = 0.005;

/// One mesh size.
#[derive(Clone, Debug, Serialize)]
pub struct EditPoint {
    /// Midpoint subdivision levels applied.
    pub levels: u32,
    /// Heat-system vertices (m).
    pub vertices: usize,
    /// The dragged joint.
    pub joint: String,
    /// Region size d of each step.
    pub region: Vec<usize>,
    /// Weight columns recomputed (largest over the steps).
    pub columns: usize,
    /// Total ms of each step.
    pub local_ms: Vec<f64>,
    /// Phases of the last step.
    pub last: EditOutcome,
    /// Global solve ms.
    pub global_ms: f64,
    /// Global ms / median local ms.
    pub speedup: f64,
    /// Largest |w_local − w_global| over every vertex and joint (final weights: clipped, pruned,
    /// renormalized).
    pub max_diff: f64,
    /// The same on the raw heat solutions (before clipping and pruning).
    pub raw_max_diff: f64,
}

/// The edit bench.
#[derive(Clone, Debug, Serialize)]
pub struct EditReport {
    /// Input mesh.
    pub mesh: String,
    /// Template used.
    pub skeleton: String,
    /// Zero threshold of the region search.
    pub eps: f64,
    /// One point per size.
    pub points: Vec<EditPoint>,
}

/// Run the edit bench on `mesh_path` rigged with `skeleton`, dragging `joint` (default: the first
/// joint named like a forearm or elbow, else the middle joint) in `steps` steps.
pub fn run(
    config: RigConfig,
    mesh_path: &Path,
    skeleton: &str,
    joint: Option<&str>,
    steps: usize,
) -> Result<EditReport, MeasureError> {
    let input = |path: &Path, message: String| MeasureError::Input {
        path: path.display().to_string(),
        message,
    };
    let mesh = crate::mesh::load(mesh_path).map_err(|e| input(mesh_path, e.to_string()))?;
    let template = Template::parse(skeleton).map_err(|e| input(mesh_path, e.to_string()))?;
    let tmp = tempfile::tempdir().map_err(|e| input(&std::env::temp_dir(), e.to_string()))?;
    let stem = crate::pipeline::asset_name(mesh_path);
    let eps = crate::edit::REGION_EPS.max(config.skin.prune);
    let pipeline = Pipeline::new(config);
    let mut points = Vec::new();
    for factor in [1.0, 4.0, 16.0] {
        let (m, levels) = subdivide::to_factor(&mesh, factor);
        let file = tmp.path().join(format!("{stem}_x{factor}.obj"));
        std::fs::write(&file, subdivide::to_obj(&m)).map_err(|e| input(&file, e.to_string()))?;
        eprintln!(
            "edit bench: {} vertices ({levels} levels)",
            m.positions.len()
        );
        let mut req = RigRequest::with_sidecar(&file, template.clone())
            .map_err(|e| input(&file, e.to_string()))?;
        req.hints = None;
        let out = pipeline
            .rig(&req, &NoProgress)
            .map_err(|e| input(&file, e.to_string()))?;
        let (Some(disc), Some(skin)) = (&out.discretization, &out.skin) else {
            return Err(input(&file, "the rig has no distance field or skin".into()));
        };
        let sdf = |p: &P3| disc.field.eval(p);
        let joints = out.rig.joints.clone();
        let opts = pipeline.config.skin.clone();
        let mut session = Session::new(&out.prepared, &sdf, joints, skin, opts)
            .map_err(|e| input(&file, e.to_string()))?;
        let k = pick_joint(&session.joints, joint).map_err(|e| input(&file, e))?;
        let mut point = drag(&mut session, k, steps).map_err(|e| input(&file, e))?;
        point.levels = levels;
        points.push(point);
    }
    Ok(EditReport {
        mesh: mesh_path.display().to_string(),
        skeleton: skeleton.to_string(),
        eps,
        points,
    })
}

/// The joint to drag: `name` if given, else the first forearm/elbow, else the middle joint.
fn pick_joint(joints: &[RigJoint], name: Option<&str>) -> Result<usize, String> {
    if let Some(n) = name {
        return joints
            .iter()
            .position(|j| j.name == n)
            .ok_or_else(|| format!("no joint named \"{n}\""));
    }
    let like = |j: &RigJoint| {
        let l = j.name.to_lowercase();
        l.contains("forearm") || l.contains("elbow")
    };
    let movable: Vec<usize> = (0..joints.len())
        .filter(|&i| joints[i].parent.is_some() && !joints[i].end)
        .collect();
    movable
        .iter()
        .copied()
        .find(|&i| like(&joints[i]))
        .or_else(|| movable.get(movable.len() / 2).copied())
        .ok_or_else(|| "the rig has no movable joint".into())
}

/// Drag joint `k` in `steps` steps across its bone, then solve globally and compare.
fn drag(s: &mut Session, k: usize, steps: usize) -> Result<EditPoint, String> {
    let dir = across(&s.joints, k);
    let diag = diagonal(&s.joints);
    let start = V3::from(s.joints[k].position);
    let name = s.joints[k].name.clone();
    let mut region = Vec::new();
    let mut local_ms = Vec::new();
    let mut last = EditOutcome::default();
    for step in 1..=steps.max(1) {
        let to = start + dir * (STEP_OF_DIAGONAL * diag * step as f64);
        let op = EditOp::MoveJoint {
            joint: name.clone(),
            to: [to.x, to.y, to.z],
            with_descendants: false,
        };
        let o = s.apply(&op).map_err(|e| e.to_string())?;
        region.push(o.region);
        local_ms.push(o.total_ms);
        last = o;
    }
    // The honest global solve, as `rig` solves: every vertex's heat term, the whole system
    // assembled, analyzed and factored from scratch (no cached analysis), every column solved.
    let mut g = s.clone();
    g.clear_cache();
    let t = Instant::now();
    g.global().map_err(|e| e.to_string())?;
    let global_ms = ms_since(t);
    let local = median(&local_ms).unwrap_or(f64::NAN);
    Ok(EditPoint {
        levels: 0,
        vertices: last.vertices,
        joint: name,
        columns: last.columns,
        region,
        local_ms,
        last,
        global_ms,
        speedup: global_ms / local.max(1e-9),
        max_diff: max_diff(s.welded_rows(), g.welded_rows()),
        raw_max_diff: max_diff(s.raw_rows(), g.raw_rows()),
    })
}

/// A unit direction perpendicular to the joint's incoming bone (its parent → joint), toward the
/// world axis least aligned with the bone: a drag that bends the limb.
fn across(joints: &[RigJoint], k: usize) -> V3 {
    let p = joints[k]
        .parent
        .map_or(V3::zeros(), |p| V3::from(joints[p].position));
    let bone = V3::from(joints[k].position) - p;
    let axis = (0..3)
        .min_by(|&a, &b| bone[a].abs().total_cmp(&bone[b].abs()))
        .unwrap_or(0);
    let mut e = V3::zeros();
    e[axis] = 1.0;
    let v = e - bone * (bone.dot(&e) / bone.norm_squared().max(1e-300));
    v.try_normalize(1e-12).unwrap_or(e)
}

/// Bounding-box diagonal of the joint positions (mesh units).
fn diagonal(joints: &[RigJoint]) -> f64 {
    let mut lo = P3::new(f64::MAX, f64::MAX, f64::MAX);
    let mut hi = P3::new(f64::MIN, f64::MIN, f64::MIN);
    for j in joints {
        let p = j.point();
        lo = lo.inf(&p);
        hi = hi.sup(&p);
    }
    (hi - lo).norm()
}

/// Largest |a − b| over every vertex and joint.
pub fn max_diff(a: &[Vec<(u32, f64)>], b: &[Vec<(u32, f64)>]) -> f64 {
    let w = |r: &[(u32, f64)], j: u32| r.iter().find(|e| e.0 == j).map_or(0.0, |e| e.1);
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            x.iter()
                .chain(y)
                .map(move |e| (w(x, e.0) - w(y, e.0)).abs())
        })
        .fold(0.0, f64::max)
}

fn phases(o: &EditOutcome) -> f64 {
    let t = &o.times;
    t.heat_ms + t.assemble_ms + t.factor_ms + t.solve_ms + t.post_ms
}

/// The table printed by `geppetto bench --edit`.
pub fn format(r: &EditReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "edit bench: {} ({}), eps {:e}, joint moves of {STEP_OF_DIAGONAL} × diagonal",
        r.mesh, r.skeleton, r.eps
    );
    let _ = writeln!(
        s,
        "{:>9} {:>14} {:>8} {:>7} {:>10} {:>10} {:>10} {:>8} {:>9} {:>9}",
        "vertices",
        "joint",
        "region",
        "columns",
        "first ms",
        "median ms",
        "global ms",
        "speed-up",
        "raw|dw|",
        "max|dw|"
    );
    for p in &r.points {
        let _ = writeln!(
            s,
            "{:>9} {:>14} {:>8} {:>7} {:>10.1} {:>10.1} {:>10.1} {:>7.1}x {:>9.1e} {:>9.1e}",
            p.vertices,
            p.joint,
            p.region.iter().max().copied().unwrap_or(0),
            p.columns,
            p.local_ms.first().copied().unwrap_or(f64::NAN),
            median(&p.local_ms).unwrap_or(f64::NAN),
            p.global_ms,
            p.speedup,
            p.raw_max_diff,
            p.max_diff
        );
        let t = &p.last;
        let _ = writeln!(
            s,
            "{:>9} last step: search {:.1}, heat {:.1}, assemble {:.1}, factor {:.1}, solve {:.1}, post {:.1}, other {:.1} ms; {} pass(es), {} factorizations reused (analysis) / {} (whole)",
            "",
            t.region_ms,
            t.times.heat_ms,
            t.times.assemble_ms,
            t.times.factor_ms,
            t.times.solve_ms,
            t.times.post_ms,
            t.total_ms - t.region_ms - phases(t),
            t.passes,
            t.times.symbolic_reused,
            t.times.numeric_reused
        );
    }
    s
}
