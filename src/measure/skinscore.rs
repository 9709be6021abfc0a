//! Skin measures on the artist's own skeleton (corpus README "Scoring conventions"):
//!
//! * **L1**: per vertex `Σ_j |w_pred(j) − w_truth(j)|` over the union of both influence lists
//!   (0 … 2), averaged over vertices.
//! * **Precision / recall** at weight ≥ 0.05, **micro-averaged** (pinned down here): with
//!   `P_v` / `T_v` the joints weighing ≥ 0.05 on vertex v in the prediction / the truth,
//!   precision = `Σ_v |P_v ∩ T_v| / Σ_v |P_v|`, recall = `Σ_v |P_v ∩ T_v| / Σ_v |T_v|` (pooled over
//!   all vertex–joint pairs; `None` when a denominator is 0).
//! * **Deformation error**: for each pose (see [`super::pose`]: the skin helper's FK/LBS), forward
//!   kinematics on the artist skeleton, linear blend skinning of the bind-pose vertices with both weight sets, and the
//!   distance between the two results per vertex. Mean and 95th percentile (linear interpolation,
//!   [`super::percentile`]) over all (pose, vertex) pairs, in **percent of the extent**.
//!
//! Weights are used as given (no renormalization); duplicate joints in one list are summed.

use std::collections::BTreeMap;

use serde::Serialize;

use super::pose::{topo_order, Pose};
use super::truth::{ScoredRig, Weights};
use super::{percentile, MeasureError};
use crate::geom::P3;
use crate::rig::{RigJoint, SkinTable};
use crate::skin::pose::{deform, joint_transforms};

/// Influence threshold for precision/recall.
pub const INFLUENCE_THRESHOLD: f64 = 0.05;

/// Relative tolerance (of the extent) for "same skeleton" joint positions.
pub const SAME_SKELETON_TOL: f64 = 1e-3;

/// The skin measures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkinMeasures {
    /// Vertices compared.
    pub vertices: usize,
    /// Mean per-vertex L1 distance of the weights (0 … 2).
    pub l1_mean: f64,
    /// Influence threshold used for precision/recall.
    pub threshold: f64,
    /// Micro-averaged precision of influencing joints.
    pub precision: Option<f64>,
    /// Micro-averaged recall of influencing joints.
    pub recall: Option<f64>,
    /// Poses used for the deformation error.
    pub poses: usize,
    /// Mean vertex distance between the two skinned results, % of extent.
    pub deform_mean_pct: f64,
    /// 95th percentile of that distance, % of extent.
    pub deform_p95_pct: f64,
}

/// For each predicted joint, the artist joint it is. Joints are matched by name when both rigs have
/// the same set of unique names, else by index; every matched pair must lie within
/// [`SAME_SKELETON_TOL`]·extent. `Err` explains (for the report) why the skeletons differ.
pub fn joint_mapping(
    pred: &ScoredRig,
    truth: &ScoredRig,
    extent: f64,
) -> Result<Vec<usize>, String> {
    let (np, nt) = (pred.positions.len(), truth.positions.len());
    if np != nt {
        return Err(format!(
            "PRED has {np} joints, TRUTH {nt}: not TRUTH's skeleton"
        ));
    }
    let by_name: BTreeMap<&str, usize> = truth
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let unique = by_name.len() == nt && pred.names.len() == np;
    let names_match = unique && pred.names.iter().all(|n| by_name.contains_key(n.as_str()));
    let mapping: Vec<usize> = if names_match {
        pred.names
            .iter()
            .map(|n| by_name.get(n.as_str()).copied().unwrap_or(0))
            .collect()
    } else {
        (0..np).collect()
    };
    for (i, &t) in mapping.iter().enumerate() {
        let (Some(a), Some(b)) = (pred.positions.get(i), truth.positions.get(t)) else {
            return Err("joint lists are inconsistent".into());
        };
        let d = (a - b).norm();
        if d > SAME_SKELETON_TOL * extent {
            return Err(format!(
                "PRED joint {i} ('{}') is {:.3}% of the extent from TRUTH joint {t}: not TRUTH's skeleton",
                pred.names.get(i).map_or("", String::as_str),
                100.0 * d / extent
            ));
        }
    }
    Ok(mapping)
}

/// Re-index `weights` through `mapping` (pred joint → truth joint), summing duplicates. Joints
/// outside the mapping are dropped.
pub fn remap(weights: &Weights, mapping: &[usize]) -> Weights {
    weights
        .iter()
        .map(|row| {
            let mut m: BTreeMap<usize, f64> = BTreeMap::new();
            for (j, w) in row {
                if let Some(t) = mapping.get(*j) {
                    *m.entry(*t).or_insert(0.0) += *w;
                }
            }
            m.into_iter().collect()
        })
        .collect()
}

/// `usize`-indexed weights as a [`SkinTable`] (joint indices beyond `u32` are dropped).
fn to_table(w: &Weights) -> SkinTable {
    w.iter()
        .map(|row| {
            row.iter()
                .filter_map(|(j, x)| u32::try_from(*j).ok().map(|j| (j, *x)))
                .collect()
        })
        .collect()
}

fn as_map(row: &[(usize, f64)]) -> BTreeMap<usize, f64> {
    let mut m = BTreeMap::new();
    for (j, w) in row {
        *m.entry(*j).or_insert(0.0) += *w;
    }
    m
}

/// All skin measures. `pred` and `truth` are both indexed by the artist's joints (see [`remap`]);
/// `bind`/`parents` are the artist skeleton, `positions` the bind-pose vertices (one per weight
/// row), all mesh frame; `extent` in mesh units.
pub fn measure(
    pred: &Weights,
    truth: &Weights,
    skeleton: (&[P3], &[Option<usize>]),
    positions: &[P3],
    poses: &[Pose],
    extent: f64,
) -> Result<SkinMeasures, MeasureError> {
    let n = positions.len();
    if pred.len() != n || truth.len() != n {
        return Err(MeasureError::Input {
            path: "skin".into(),
            message: format!(
                "{n} vertices but {} predicted and {} artist weight rows",
                pred.len(),
                truth.len()
            ),
        });
    }
    let (l1, hits, n_pred, n_truth) = agreement(pred, truth);
    let ratio = |a: usize, b: usize| (b > 0).then(|| a as f64 / b as f64);
    let dists = deformation_distances(pred, truth, skeleton, positions, poses)?;
    let pct = 100.0 / extent;
    let mean = if dists.is_empty() {
        0.0
    } else {
        dists.iter().sum::<f64>() / dists.len() as f64
    };
    Ok(SkinMeasures {
        vertices: n,
        l1_mean: if n == 0 { 0.0 } else { l1 / n as f64 },
        threshold: INFLUENCE_THRESHOLD,
        precision: ratio(hits, n_pred),
        recall: ratio(hits, n_truth),
        poses: poses.len(),
        deform_mean_pct: mean * pct,
        deform_p95_pct: percentile(&dists, 95.0).unwrap_or(0.0) * pct,
    })
}

/// Over every vertex and joint either side weighs: the summed absolute weight difference, and the
/// influences (weight ≥ [`INFLUENCE_THRESHOLD`]) both have, the prediction has, the truth has.
fn agreement(pred: &Weights, truth: &Weights) -> (f64, usize, usize, usize) {
    let (mut l1, mut hits, mut n_pred, mut n_truth) = (0.0, 0usize, 0usize, 0usize);
    for (p, t) in pred.iter().zip(truth) {
        let (p, t) = (as_map(p), as_map(t));
        let joints: std::collections::BTreeSet<usize> = p.keys().chain(t.keys()).copied().collect();
        for j in joints {
            let wp = p.get(&j).copied().unwrap_or(0.0);
            let wt = t.get(&j).copied().unwrap_or(0.0);
            l1 += (wp - wt).abs();
            let (ip, it) = (wp >= INFLUENCE_THRESHOLD, wt >= INFLUENCE_THRESHOLD);
            n_pred += usize::from(ip);
            n_truth += usize::from(it);
            hits += usize::from(ip && it);
        }
    }
    (l1, hits, n_pred, n_truth)
}

/// Per pose and vertex, the distance between the vertex deformed by `pred` and by `truth`
/// (linear blend skinning on the artist skeleton), mesh units.
fn deformation_distances(
    pred: &Weights,
    truth: &Weights,
    skeleton: (&[P3], &[Option<usize>]),
    positions: &[P3],
    poses: &[Pose],
) -> Result<Vec<f64>, MeasureError> {
    topo_order(skeleton.1)?;
    let joints: Vec<RigJoint> = skeleton
        .0
        .iter()
        .zip(skeleton.1)
        .enumerate()
        .map(|(i, (p, parent))| RigJoint {
            name: format!("j{i}"),
            parent: *parent,
            position: [p.x, p.y, p.z],
            end: false,
        })
        .collect();
    let (pred_t, truth_t) = (to_table(pred), to_table(truth));
    let mut dists = Vec::with_capacity(positions.len() * poses.len());
    for pose in poses {
        let g = joint_transforms(&joints, pose);
        let a = deform(positions, &pred_t, &g);
        let b = deform(positions, &truth_t, &g);
        dists.extend(a.iter().zip(&b).map(|(x, y)| (x - y).norm()));
    }
    Ok(dists)
}
