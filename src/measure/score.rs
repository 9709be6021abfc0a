//! `geppetto score`: one predicted rig against one artist rig, as a report (table or JSON).
//!
//! **Extent** (the length every measure is divided by), first that applies: `--mesh M` (its
//! vertices' bounding box); PRED's rig.json `bbox`; the mesh inside PRED's or TRUTH's rigged glTF;
//! the mesh a truth file names (`obj`, resolved against the corpus folder); the mesh path recorded
//! in PRED's rig.json. The report says which was used.
//!
//! **Vertices** for the deformation error come from the same candidates (a rig.json `bbox` has
//! none), the first whose vertex count equals the number of TRUTH's skin rows. When PRED's skin
//! covers a different vertex count (a welded OBJ against an unwelded glTF), and a candidate mesh
//! has PRED's count, every TRUTH vertex takes the weights of the PRED vertex at the same position
//! (within 1e-6 · extent; [`transfer_by_position`]) and the measures are over TRUTH's vertices.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::joints::{self, JointMeasures};
use super::pose::{random_poses, Pose};
use super::sides::{self, SideAgreement};
use super::skinscore::{self, SkinMeasures};
use super::truth::{self, ScoredRig};
use super::MeasureError;
use crate::geom::{Aabb, P3};

/// Options of a score run.
#[derive(Clone, Debug)]
pub struct ScoreOptions {
    /// Mesh the rigs belong to (overrides every other extent/vertex source).
    pub mesh: Option<PathBuf>,
    /// Random poses for the deformation error.
    pub poses: usize,
    /// Seed of the poses.
    pub seed: u64,
    /// Largest rotation per joint, degrees (30 by the corpus conventions).
    pub max_degrees: f64,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        Self {
            mesh: None,
            poses: 20,
            seed: 1,
            max_degrees: 30.0,
        }
    }
}

/// Everything `score` reports. Lengths in percent of `extent`.
#[derive(Clone, Debug, Serialize)]
pub struct ScoreReport {
    /// PRED file.
    pub pred: String,
    /// TRUTH file.
    pub truth: String,
    /// Largest bounding-box side, mesh units.
    pub extent: f64,
    /// Where the extent came from.
    pub extent_source: String,
    /// Skeleton measures (% of extent).
    pub joints: JointMeasures,
    /// Skin measures, when PRED was made on TRUTH's skeleton and both have weights.
    pub skin: Option<SkinMeasures>,
    /// Whether the side-named joints sit on the same side as TRUTH's ([`sides`]): the Chamfer
    /// measures cannot see a mirrored rig or one facing backwards.
    pub sides: SideAgreement,
    /// Seed of the random poses.
    pub seed: u64,
    /// Largest random rotation per joint, degrees.
    pub max_degrees: f64,
    /// Why something was skipped, and other remarks.
    pub notes: Vec<String>,
}

/// Score `pred` against `truth` with a known extent, optional bind-pose vertices (one per skin
/// row) and explicit poses of TRUTH's skeleton. The library core of `score` (tests call it directly).
pub fn score_rigs(
    pred: &ScoredRig,
    truth: &ScoredRig,
    extent: f64,
    vertices: Option<&[P3]>,
    poses: &[Pose],
) -> Result<(JointMeasures, Option<SkinMeasures>, Vec<String>), MeasureError> {
    if !(extent > 0.0 && extent.is_finite()) {
        return Err(MeasureError::NoExtent(format!("extent {extent}")));
    }
    if pred.positions.is_empty() || truth.positions.is_empty() {
        return Err(MeasureError::Hierarchy("a rig has no joints".into()));
    }
    let jm = joints::measure(
        (&pred.positions, &pred.parents),
        (&truth.positions, &truth.parents),
        extent,
    );
    let mut notes = Vec::new();
    let skin = match skin_inputs(pred, truth, extent, vertices) {
        Err(note) => {
            notes.push(format!("skin measures skipped: {note}"));
            None
        }
        Ok((pw, tw, verts)) => Some(skinscore::measure(
            &pw,
            tw,
            (&truth.positions, &truth.parents),
            verts,
            poses,
            extent,
        )?),
    };
    Ok((jm, skin, notes))
}

type SkinInputs<'a> = (truth::Weights, &'a truth::Weights, &'a [P3]);

fn skin_inputs<'a>(
    pred: &ScoredRig,
    truth: &'a ScoredRig,
    extent: f64,
    vertices: Option<&'a [P3]>,
) -> Result<SkinInputs<'a>, String> {
    let mapping = skinscore::joint_mapping(pred, truth, extent)?;
    let Some(pw) = &pred.skin else {
        return Err("PRED has no skin weights".into());
    };
    let Some(tw) = &truth.skin else {
        return Err("TRUTH has no skin weights".into());
    };
    if pw.len() != tw.len() {
        return Err(format!(
            "PRED has weights for {} vertices, TRUTH for {}",
            pw.len(),
            tw.len()
        ));
    }
    let Some(verts) = vertices.filter(|v| v.len() == tw.len()) else {
        return Err(format!(
            "no mesh with {} vertices found (pass --mesh)",
            tw.len()
        ));
    };
    Ok((skinscore::remap(pw, &mapping), tw, verts))
}

/// Read both files, resolve the extent and vertices (module docs), pose TRUTH's skeleton with
/// seeded random poses, and score.
pub fn score_files(
    pred_path: &Path,
    truth_path: &Path,
    opts: &ScoreOptions,
) -> Result<ScoreReport, MeasureError> {
    let pred = truth::load(pred_path)?;
    let truth = truth::load(truth_path)?;
    let mut notes = Vec::new();
    let (extent, extent_source, meshes) = resolve_mesh(&pred, &truth, opts, &mut notes)?;
    let with_len = |n: Option<usize>| meshes.iter().find(|v| Some(v.len()) == n);
    let vertices = with_len(truth.skin.as_ref().map(Vec::len));
    let pred_vertices = with_len(pred.skin.as_ref().map(Vec::len));
    let mut pred = pred;
    if let (Some(tv), Some(pv), Some(pw)) = (vertices, pred_vertices, &pred.skin) {
        if tv.len() != pv.len() {
            match transfer_by_position(pv, pw, tv, 1e-6 * extent) {
                Ok(w) => {
                    notes.push(format!(
                        "PRED's {} vertices matched by position to TRUTH's {}; skin measures are over TRUTH's vertices",
                        pv.len(),
                        tv.len()
                    ));
                    pred.skin = Some(w);
                }
                Err(n) => notes.push(n),
            }
        }
    }
    let poses = random_poses(
        truth.positions.len(),
        opts.poses,
        opts.seed,
        opts.max_degrees,
    );
    let (joints, skin, more) =
        score_rigs(&pred, &truth, extent, vertices.map(Vec::as_slice), &poses)?;
    notes.extend(more);
    let sides = sides::agreement(
        (&pred.names, &pred.positions),
        (&truth.names, &truth.positions),
    );
    notes.extend(sides.note());
    Ok(ScoreReport {
        pred: pred_path.display().to_string(),
        truth: truth_path.display().to_string(),
        extent,
        extent_source,
        joints,
        skin,
        sides,
        seed: opts.seed,
        max_degrees: opts.max_degrees,
        notes,
    })
}

type Resolved = (f64, String, Vec<Vec<P3>>);

/// The extent (module docs' order) and every loadable candidate mesh's vertices (`--mesh` first).
fn resolve_mesh(
    pred: &ScoredRig,
    truth: &ScoredRig,
    opts: &ScoreOptions,
    notes: &mut Vec<String>,
) -> Result<Resolved, MeasureError> {
    let mut candidates: Vec<(String, Vec<P3>)> = Vec::new();
    if let Some(m) = &opts.mesh {
        let mesh = crate::mesh::load(m).map_err(|e| MeasureError::Input {
            path: m.display().to_string(),
            message: e.to_string(),
        })?;
        candidates.push((format!("--mesh {}", m.display()), mesh.positions));
    }
    let forced = !candidates.is_empty();
    for (who, r) in [("PRED", pred), ("TRUTH", truth)] {
        if let Some(m) = &r.mesh {
            candidates.push((format!("{who} glTF mesh"), m.positions.clone()));
        }
    }
    for (who, r) in [("TRUTH", truth), ("PRED", pred)] {
        let Some(p) = &r.mesh_path else { continue };
        let Some(found) = crate::rig::find_mesh(&r.source, p) else {
            continue;
        };
        match crate::mesh::load(&found) {
            Ok(m) => candidates.push((format!("{who}'s mesh {}", found.display()), m.positions)),
            Err(e) => notes.push(format!(
                "could not load {who}'s mesh {}: {e}",
                found.display()
            )),
        }
    }
    let extent_of = |(label, pos): &(String, Vec<P3>)| {
        let e = Aabb::of_points(pos).max_extent();
        (e > 0.0).then(|| (e, label.clone()))
    };
    let found = match (forced, pred.bbox) {
        (true, _) => candidates.first().and_then(extent_of),
        (false, Some(bb)) => Some((bb.max_extent(), "PRED rig.json bbox".to_string())),
        (false, None) => candidates.iter().find_map(extent_of),
    };
    let Some((extent, label)) = found else {
        return Err(MeasureError::NoExtent(
            "no --mesh, no rig.json bbox and no loadable mesh; pass --mesh".into(),
        ));
    };
    Ok((extent, label, candidates.into_iter().map(|c| c.1).collect()))
}

/// PRED's weights carried to TRUTH's vertices: each TRUTH vertex takes the weights of the PRED
/// vertex at the same position (within `tol`, mesh units). This lets an unwelded glTF (seams split
/// into duplicates) be compared with its welded OBJ. `Err` says why not.
pub fn transfer_by_position(
    pred_pos: &[P3],
    pred_w: &truth::Weights,
    truth_pos: &[P3],
    tol: f64,
) -> Result<truth::Weights, String> {
    let cell = tol.max(f64::MIN_POSITIVE) * 4.0;
    let key = |p: &P3| [p.x, p.y, p.z].map(|c| (c / cell).floor() as i64);
    let mut grid: std::collections::HashMap<[i64; 3], Vec<usize>> = Default::default();
    for (i, p) in pred_pos.iter().enumerate() {
        grid.entry(key(p)).or_default().push(i);
    }
    let mut out = Vec::with_capacity(truth_pos.len());
    for (v, p) in truth_pos.iter().enumerate() {
        let k = key(p);
        let mut best: Option<(f64, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(list) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    for &i in list {
                        let d = (pred_pos[i] - p).norm();
                        if d <= tol && best.is_none_or(|b| d < b.0) {
                            best = Some((d, i));
                        }
                    }
                }
            }
        }
        let Some((_, i)) = best else {
            return Err(format!(
                "skin measures skipped: TRUTH vertex {v} has no PRED vertex at its position"
            ));
        };
        out.push(pred_w.get(i).cloned().unwrap_or_default());
    }
    Ok(out)
}

/// The report as a readable table.
pub fn format_table(r: &ScoreReport) -> String {
    let j = &r.joints;
    let mut s = format!(
        "PRED  {} ({} joints, {} bone samples)\nTRUTH {} ({} joints, {} bone samples)\n\
         extent {:.6} (from {})\n\n  measure         value   unit\n",
        r.pred,
        j.pred_joints,
        j.pred_bone_samples,
        r.truth,
        j.truth_joints,
        j.truth_bone_samples,
        r.extent,
        r.extent_source
    );
    let mut row = |name: &str, v: String, unit: &str| {
        s.push_str(&format!("  {name:<12} {v:>9}   {unit}\n"));
    };
    row("CD-J2J", format!("{:.3}", j.cd_j2j), "% of extent");
    row("CD-J2B", format!("{:.3}", j.cd_j2b), "% of extent");
    row("CD-B2B", format!("{:.3}", j.cd_b2b), "% of extent");
    let sides = &r.sides;
    row(
        "sides",
        sides
            .fraction()
            .map_or("n/a".into(), |f| format!("{:.3}", f)),
        &format!(
            "{} of {} side-named joints nearest a joint of the same side",
            sides.agree, sides.compared
        ),
    );
    if let Some(k) = &r.skin {
        let opt = |v: Option<f64>| v.map_or("n/a".into(), |v| format!("{v:.4}"));
        row(
            "skin L1",
            format!("{:.4}", k.l1_mean),
            "mean per vertex (0..2)",
        );
        row("precision", opt(k.precision), "micro, weight >= 0.05");
        row("recall", opt(k.recall), "micro, weight >= 0.05");
        let poses = format!(
            "% of extent, {} poses, seed {}, <= {} deg",
            k.poses, r.seed, r.max_degrees
        );
        row("deform mean", format!("{:.3}", k.deform_mean_pct), &poses);
        row("deform p95", format!("{:.3}", k.deform_p95_pct), &poses);
    }
    for n in &r.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}
