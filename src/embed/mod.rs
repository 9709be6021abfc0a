//! Skeleton embedding (Baran & Popović 2007 §4): reduced skeleton, candidate sets, the 9 discrete
//! penalty terms, best-first search with a lower bound and a budget, path splitting, continuous
//! refinement. Works in the normalized frame, rotated by the chosen [`Orientation`].
//!
//! Stages, one module each: [`reduced`] (reduced, re-rooted skeleton) → [`paths`] (all-pairs shortest
//! paths) → [`candidates`] → [`penalty`] + [`search`] (per orientation, [`orient`]; `Auto` screens the 24 then searches the best few, within one budget)
//! → [`split`] → [`refine`] → end-joint extension.

pub mod candidates;
pub mod mirror;
pub mod nearest;
pub mod orient;
/// All-pairs shortest paths live with the graph (cached per mesh); re-exported for the search.
pub use crate::discretize::paths;
pub mod penalty;
pub mod pins;
pub mod reduced;
pub mod refine;
mod run;

pub use orient::Screened;
pub use run::embed_with as run_with;
pub use run::place;
pub use run::screen_with;
pub mod hints;
pub mod search;
pub mod split;
#[cfg(any(test, feature = "test-support"))]
pub mod synthetic;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::discretize::Discretization;
use crate::geom::{JointId, NodeId, P3};

#[cfg(test)]
mod orientation_tests {
    use super::*;
    use crate::geom::V3;

    #[test]
    fn twenty_four_proper_rotations() {
        let all = Orientation::all();
        assert_eq!(all.len(), 24);
        assert!(all.contains(&Orientation::IDENTITY));
        for o in &all {
            let v = V3::new(0.3, -1.2, 2.5);
            assert!((o.unapply(&o.apply(&v)) - v).norm() < 1e-12);
            // proper rotation: x × y = z after mapping
            let (x, y, z) = (o.apply(&V3::x()), o.apply(&V3::y()), o.apply(&V3::z()));
            assert!((x.cross(&y) - z).norm() < 1e-12, "{o:?}");
        }
        assert_eq!(Orientation::parse("+y,+z"), Some(Orientation::IDENTITY));
        assert_eq!(Orientation::parse("+z,+z"), None);
        let zup = Orientation::parse("+z,-y").unwrap();
        assert_eq!(zup.apply(&V3::z()), V3::y());
        assert_eq!(zup.label(), "+Z up, -Y forward");
    }

    #[test]
    fn labels_read_back() {
        for o in Orientation::all() {
            assert_eq!(
                Orientation::from_label(&o.label()),
                Some(o),
                "{}",
                o.label()
            );
        }
        let swapped = Orientation::from_label("-Y forward, +Z up");
        assert_eq!(swapped, Orientation::parse("+z,-y"));
        for bad in [
            "as given",
            "+Z up",
            "+Z up, +Z forward",
            "Z up, -Y forward",
            "+Q up, +Y forward",
        ] {
            assert_eq!(Orientation::from_label(bad), None, "{bad}");
        }
    }
}
use crate::embed::hints::ResolvedHint;
use crate::skeleton::Skeleton;

/// Names of the 9 discrete penalty terms, in Γ order (docs/algorithms.md#penalty-terms).
pub const PENALTY_TERMS: [&str; 9] = [
    "length",
    "global_direction",
    "asymmetry",
    "shared_path",
    "foot",
    "zero_length",
    "direction",
    "mid_limb_end",
    "disjoint",
];

/// An axis-aligned rotation taking the mesh's normalized frame to the template frame (+Y up, facing +Z).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Orientation {
    /// Signed-permutation matrix rows: `rows[i] = (axis, sign)` means template axis i = sign · mesh axis.
    pub rows: [(u8, i8); 3],
}

impl Orientation {
    /// The identity: the mesh is already +Y up, facing +Z.
    pub const IDENTITY: Self = Self {
        rows: [(0, 1), (1, 1), (2, 1)],
    };

    /// The orientation whose template up (+Y) and forward (+Z) are the given mesh axes
    /// (`(axis 0..3, sign ±1)`); `None` if they are not perpendicular.
    pub fn from_up_forward(up: (u8, i8), forward: (u8, i8)) -> Option<Self> {
        if up.0 == forward.0 || up.0 > 2 || forward.0 > 2 {
            return None;
        }
        let unit = |(a, s): (u8, i8)| {
            let mut v = [0i8; 3];
            v[a as usize] = s.signum();
            v
        };
        let (u, f) = (unit(up), unit(forward));
        // Template X = Y × Z keeps the frame right-handed.
        let x = [
            u[1] * f[2] - u[2] * f[1],
            u[2] * f[0] - u[0] * f[2],
            u[0] * f[1] - u[1] * f[0],
        ];
        let xa = x.iter().position(|c| *c != 0)?;
        Some(Self {
            rows: [
                (xa as u8, x[xa]),
                (up.0, up.1.signum()),
                (forward.0, forward.1.signum()),
            ],
        })
    }

    /// Parse `+y,+z` style text: the mesh axes that point up and forward.
    pub fn parse(text: &str) -> Option<Self> {
        let axis = |t: &str| -> Option<(u8, i8)> {
            let t = t.trim().to_ascii_lowercase();
            let (sign, name) = match t.as_bytes().first()? {
                b'-' => (-1, &t[1..]),
                b'+' => (1, &t[1..]),
                _ => (1, &t[..]),
            };
            let a = match name {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                _ => return None,
            };
            Some((a, sign))
        };
        let (up, fwd) = text.split_once(',')?;
        Self::from_up_forward(axis(up)?, axis(fwd)?)
    }

    /// Read a [`label`](Self::label) back (`+Z up, -Y forward`; the two parts in either order);
    /// `None` for any other text (`as given`, a typo) or axes that are not perpendicular.
    pub fn from_label(label: &str) -> Option<Self> {
        let (mut up, mut forward) = (None, None);
        for part in label.split(',') {
            let mut words = part.split_whitespace();
            let (axis, role) = (words.next()?, words.next()?);
            if words.next().is_some() || !axis.starts_with(['+', '-']) {
                return None;
            }
            let slot = match role {
                "up" => &mut up,
                "forward" => &mut forward,
                _ => return None,
            };
            *slot = Some(axis);
        }
        Self::parse(&format!("{},{}", up?, forward?))
    }

    /// All 24 axis-aligned proper rotations.
    pub fn all() -> Vec<Self> {
        let mut out = Vec::with_capacity(24);
        for ua in 0..3u8 {
            for us in [1i8, -1] {
                for fa in 0..3u8 {
                    for fs in [1i8, -1] {
                        if let Some(o) = Self::from_up_forward((ua, us), (fa, fs)) {
                            out.push(o);
                        }
                    }
                }
            }
        }
        out
    }

    /// Map a vector from the (normalized) mesh frame to the template frame.
    pub fn apply(&self, v: &crate::geom::V3) -> crate::geom::V3 {
        crate::geom::V3::from_fn(|i, _| f64::from(self.rows[i].1) * v[self.rows[i].0 as usize])
    }

    /// Map a vector from the template frame back to the (normalized) mesh frame.
    pub fn unapply(&self, v: &crate::geom::V3) -> crate::geom::V3 {
        let mut out = crate::geom::V3::zeros();
        for i in 0..3 {
            out[self.rows[i].0 as usize] = f64::from(self.rows[i].1) * v[i];
        }
        out
    }

    /// A short label like `+Y up, +Z forward` for rig.json and the UI.
    pub fn label(&self) -> String {
        let axis = |(a, s): (u8, i8)| {
            format!(
                "{}{}",
                if s > 0 { '+' } else { '-' },
                ['X', 'Y', 'Z'][a as usize]
            )
        };
        // Template Y (up) and Z (forward) expressed in mesh axes.
        format!("{} up, {} forward", axis(self.rows[1]), axis(self.rows[2]))
    }
}

impl OrientationMode {
    /// Parse the CLI form: `default`, `auto`, or `+y,+z` (mesh axes pointing up and forward).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "default" => Some(Self::Default),
            "auto" => Some(Self::Auto),
            other => Orientation::parse(other).map(Self::Fixed),
        }
    }
}

/// How to choose the orientation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrientationMode {
    /// +Y up, facing +Z, as the original.
    #[default]
    Default,
    /// Try all 24 axis-aligned orientations, keep the lowest penalty.
    Auto,
    /// A given orientation.
    Fixed(Orientation),
}

/// Weighted penalty breakdown of the discrete embedding.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PenaltyBreakdown {
    /// Sum of weighted terms.
    pub total: f64,
    /// Weighted value per term, in [`PENALTY_TERMS`] order.
    pub terms: [f64; 9],
}

/// Search and refinement tunables; defaults are the original's Γ and constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EmbedOptions {
    /// Γ, in [`PENALTY_TERMS`] order.
    pub weights: [f64; 9],
    /// Maximum search nodes expanded before settling for the best complete embedding found (bounds
    /// memory; in total: `Auto` splits it across orientations).
    pub max_nodes: usize,
    /// The deterministic search budget, in penalty evaluations per reduced joint per graph vertex (so
    /// it grows with the template and the graph; in total: `Auto` splits it across orientations).
    pub work_per_joint_vertex: u64,
    /// Last-resort wall-clock cap per search in milliseconds, far above what the work budget takes;
    /// results are only timing-dependent if it fires (a warning says so).
    pub safety_millis: u64,
    /// Orientation choice.
    pub orientation: OrientationMode,
    /// Under `Auto` orientation: only look for a match whose penalty is below this (the original's
    /// 1 by default; lower when another template already fits that well, see `crate::choose`).
    pub cutoff: f64,
}

impl EmbedOptions {
    /// The search budget in penalty evaluations for a template of `joints` reduced joints on a graph
    /// of `vertices` spheres.
    pub fn max_work(&self, joints: usize, vertices: usize) -> u64 {
        self.work_per_joint_vertex
            .saturating_mul(joints.max(1) as u64)
            .saturating_mul(vertices.max(1) as u64)
    }
}

impl Default for EmbedOptions {
    fn default() -> Self {
        Self {
            weights: [
                0.027, 0.023, 0.007, 0.046, 0.014, 0.012, 0.072, 0.005, 0.033,
            ],
            max_nodes: 200_000,
            work_per_joint_vertex: 3_000,
            safety_millis: 60_000,
            orientation: OrientationMode::Default,
            cutoff: 1.0,
        }
    }
}

/// The embedded skeleton.
#[derive(Clone, Debug)]
pub struct Embedding {
    /// One position per template joint (full skeleton), **normalized frame** (not rotated).
    pub joints: Vec<P3>,
    /// Graph vertex per reduced joint (for the UI and diagnostics).
    pub discrete: Vec<NodeId>,
    /// The orientation used.
    pub orientation: Orientation,
    /// Weighted penalty terms of the discrete embedding.
    pub penalty: PenaltyBreakdown,
    /// True if the search stopped on its budget (the best complete embedding found is returned).
    pub budget_hit: bool,
    /// Search nodes expanded (summed over orientations tried).
    pub nodes_expanded: usize,
    /// Plain-language warnings from the search.
    pub warnings: Vec<String>,
    /// Milliseconds per stage: `embed`, `refine`.
    pub timings_ms: Vec<(&'static str, f64)>,
    /// No embedding passed the penalty cutoff: this is the least bad forced fit.
    pub forced: bool,
    /// Reduced joints (full-skeleton ids) whose chain's graph path crosses a bridge edge, i.e. leaves
    /// the volume to jump between separate parts of the mesh.
    pub bridged: Vec<JointId>,
    /// Joints the user pinned with hints: confidence treats them as evidence.
    pub pinned: Vec<JointId>,
}

/// Why no embedding exists.
#[derive(Debug, Error)]
pub enum EmbedError {
    /// The search space was exhausted without a complete embedding under the veto rules.
    #[error("no embedding of the '{skeleton}' skeleton fits this shape: {reason}")]
    NoMatch {
        /// Skeleton name.
        skeleton: String,
        /// Why (e.g. which joint had no candidates).
        reason: String,
    },
    /// Cancelled.
    #[error("cancelled")]
    Cancelled,
}

/// Embed `skeleton` into the discretized shape, honouring `hints` (normalized frame).
pub fn embed(
    disc: &Discretization,
    skeleton: &Skeleton,
    hints: &[ResolvedHint],
    opts: &EmbedOptions,
    progress: &dyn crate::progress::Progress,
) -> Result<Embedding, EmbedError> {
    embed_screened(disc, skeleton, hints, opts, None, progress)
}

/// [`embed`], with the orientation screening taken from `screened` ([`screen_ahead`] with the
/// same inputs, the cutoff aside) when given: the same embedding, whatever ran the screening
/// and when.
pub fn embed_screened(
    disc: &Discretization,
    skeleton: &Skeleton,
    hints: &[ResolvedHint],
    opts: &EmbedOptions,
    screened: Option<Screened>,
    progress: &dyn crate::progress::Progress,
) -> Result<Embedding, EmbedError> {
    let cancelled = || progress.cancelled();
    let shape = run::Shape {
        graph: &disc.graph,
        field: &disc.field,
        medial: &disc.medial.samples,
    };
    run::embed_screened_with(&shape, skeleton, hints, opts, screened, &cancelled)
}

/// The orientation screening of [`embed`] under [`OrientationMode::Auto`], run ahead (e.g.
/// beside another template's search; `None` when the options search one orientation).
pub fn screen_ahead(
    disc: &Discretization,
    skeleton: &Skeleton,
    hints: &[ResolvedHint],
    opts: &EmbedOptions,
    progress: &dyn crate::progress::Progress,
) -> Option<Screened> {
    let cancelled = || progress.cancelled();
    run::screen_ahead(&disc.graph, skeleton, hints, opts, &cancelled)
}
