//! Correspondence-free skeleton measures (corpus README "Scoring conventions"), all lengths in
//! **percent of the mesh's largest bounding-box extent**:
//!
//! * CD-J2J = ½ (mean over predicted joints of the distance to the nearest artist joint
//!   + mean over artist joints of the distance to the nearest predicted joint).
//! * CD-J2B = ½ (mean over predicted joints of the distance to the nearest artist *bone sample*
//!   + mean over artist joints of the distance to the nearest predicted bone sample).
//! * CD-B2B = ½ (mean over predicted bone samples of the distance to the nearest artist bone sample
//!   + the same the other way): the symmetric Chamfer distance, halved like the two above.
//!
//! Bone samples (pinned down here): for every joint with a parent, the segment parent → child is
//! cut into `n = max(1, ceil(len / step − 1e-9))` equal pieces, `step = 0.005 · extent`, and its
//! `n + 1` points (both ends included) are appended; a joint shared by several bones therefore
//! appears once per bone. The 1e-9 slack makes a bone exactly k steps long get k pieces despite
//! rounding. A rig with no bone at all (a single joint, or only point handles) uses its joint
//! positions as its samples. Distances are Euclidean, nearest neighbours found exhaustively.

use serde::Serialize;

use crate::geom::P3;

/// The three skeleton measures, percent of extent, plus the set sizes they were computed on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JointMeasures {
    /// CD-J2J, % of extent.
    pub cd_j2j: f64,
    /// CD-J2B, % of extent.
    pub cd_j2b: f64,
    /// CD-B2B, % of extent.
    pub cd_b2b: f64,
    /// Predicted joints.
    pub pred_joints: usize,
    /// Artist joints.
    pub truth_joints: usize,
    /// Predicted bone samples.
    pub pred_bone_samples: usize,
    /// Artist bone samples.
    pub truth_bone_samples: usize,
}

/// Bone samples of a skeleton (module docs). `positions` and `parents` are per joint, mesh frame;
/// `extent` is the mesh's largest bounding-box side (mesh units, > 0). Parents out of range are
/// skipped.
pub fn bone_samples(positions: &[P3], parents: &[Option<usize>], extent: f64) -> Vec<P3> {
    let step = 0.005 * extent;
    let mut out = Vec::new();
    for (child, parent) in positions.iter().zip(parents) {
        let Some(p) = parent.and_then(|p| positions.get(p)) else {
            continue;
        };
        let d = child - p;
        let len = (d.x * d.x + d.y * d.y + d.z * d.z).sqrt();
        let n = ((len / step - 1e-9).ceil() as usize).max(1);
        for k in 0..=n {
            out.push(p + d * (k as f64 / n as f64));
        }
    }
    if out.is_empty() {
        out.extend_from_slice(positions);
    }
    out
}

/// Mean over `from` of the distance to the nearest point of `to` (0 when `from` is empty,
/// infinite when only `to` is).
pub fn mean_nearest(from: &[P3], to: &[P3]) -> f64 {
    if from.is_empty() {
        return 0.0;
    }
    let sum: f64 = from
        .iter()
        .map(|a| {
            to.iter()
                .map(|b| (a - b).norm_squared())
                .fold(f64::INFINITY, f64::min)
                .sqrt()
        })
        .sum();
    sum / from.len() as f64
}

/// All three measures for a predicted and an artist skeleton (both mesh frame, same mesh).
pub fn measure(
    pred: (&[P3], &[Option<usize>]),
    truth: (&[P3], &[Option<usize>]),
    extent: f64,
) -> JointMeasures {
    let pct = 100.0 / extent;
    let pb = bone_samples(pred.0, pred.1, extent);
    let tb = bone_samples(truth.0, truth.1, extent);
    let half = |a: f64, b: f64| 0.5 * (a + b) * pct;
    JointMeasures {
        cd_j2j: half(mean_nearest(pred.0, truth.0), mean_nearest(truth.0, pred.0)),
        cd_j2b: half(mean_nearest(pred.0, &tb), mean_nearest(truth.0, &pb)),
        cd_b2b: half(mean_nearest(&pb, &tb), mean_nearest(&tb, &pb)),
        pred_joints: pred.0.len(),
        truth_joints: truth.0.len(),
        pred_bone_samples: pb.len(),
        truth_bone_samples: tb.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_every_half_percent_with_ends() {
        // Extent 100 → step 0.5; a bone of length 2 gives 4 pieces, 5 points.
        let pos = [P3::origin(), P3::new(2.0, 0.0, 0.0)];
        let s = bone_samples(&pos, &[None, Some(0)], 100.0);
        assert_eq!(s.len(), 5);
        assert!((s[1].x - 0.5).abs() < 1e-12 && (s[4].x - 2.0).abs() < 1e-12);
        // A lone joint samples itself.
        assert_eq!(bone_samples(&pos[..1], &[None], 100.0).len(), 1);
    }

    #[test]
    fn rig_against_itself_is_zero() {
        let pos = [P3::origin(), P3::new(0.0, 3.0, 0.0), P3::new(1.0, 4.0, 0.0)];
        let par = [None, Some(0), Some(1)];
        let m = measure((&pos, &par), (&pos, &par), 10.0);
        assert_eq!((m.cd_j2j, m.cd_j2b, m.cd_b2b), (0.0, 0.0, 0.0));
    }
}
