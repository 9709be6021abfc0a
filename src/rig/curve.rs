//! The curve-skeleton method's report in rig.json (`curve`), written by `crate::curveskel`.

use serde::{Deserialize, Serialize};

/// The method's report (rig.json `curve`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CurveReport {
    /// `robust` or `faithful`.
    pub mode: String,
    /// Primary projection direction, normalized frame (the mesh frame's axes are the same).
    pub view: [f64; 3],
    /// Outline points (the paper's m) and loops kept.
    pub outline_points: usize,
    /// Outline loops (outer + holes) kept.
    pub outline_loops: usize,
    /// CDT triangles by class: terminal, sleeve, junction.
    pub triangles: [usize; 3],
    /// Branches after pruning and merging.
    pub branches: usize,
    /// Leaf branches pruned as outline noise.
    pub pruned_branches: usize,
    /// Key joints (branch ends and junctions).
    pub key_joints: usize,
    /// Middle joints (18° rule and bone subdivision).
    pub middle_joints: usize,
    /// Milliseconds per stage (`silhouette`, `curve_skeleton`, `refine`, `joints`; Table I's names).
    /// Not serialized: the pipeline copies them into rig.json's `timings_ms` (as `curve_*`), the
    /// one place for times, so the rest of rig.json depends on the input only.
    #[serde(skip)]
    pub timings_ms: Vec<(String, f64)>,
    /// Plain-language diagnostics (also confidence reasons when they make the rig untrustworthy).
    pub diagnostics: Vec<String>,
    /// The constants the method used, by name (the paper has 18° and 4 neighbours; the rest are ours).
    pub constants: Vec<(String, f64)>,
}
