//! Measuring rigs: `geppetto score` (the corpus scoring conventions, `../shared/corpus/README.md`)
//! and `geppetto bench` (whole-process corpus benchmark and scaling study).
//!
//! * [`truth`]: reads a predicted or artist rig (rig.json, corpus truth JSON, rigged glTF) into one
//!   [`truth::ScoredRig`] shape, mesh frame.
//! * [`joints`]: the correspondence-free skeleton measures CD-J2J, CD-J2B, CD-B2B.
//! * [`skinscore`]: skin measures on the artist skeleton (L1, precision/recall, deformation error).
//! * [`pose`]: seeded random poses, forward kinematics and linear blend skinning used by the
//!   deformation error.
//! * [`score`]: the `score` report (table and JSON).
//! * [`subdivide`]: midpoint subdivision (scaling study; reusable).
//! * [`mod@bench`]: the corpus benchmark, run as child processes of the current executable.
//!
//! OWNER: measure helper.

pub mod bench;
pub mod joints;
pub mod pose;
pub mod score;
pub mod sides;
pub mod skinscore;
pub mod subdivide;
pub mod truth;

use thiserror::Error;

/// Why a measurement could not be made. Messages name the file and the problem.
#[derive(Debug, Error)]
pub enum MeasureError {
    /// A rig file could not be read (the error names the file).
    #[error(transparent)]
    Read(#[from] crate::rig::RigReadError),
    /// A file could not be read or parsed.
    #[error("{path}: {message}")]
    Input {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The joint hierarchy is not a forest (a parent index out of range, or a cycle).
    #[error("joint hierarchy: {0}")]
    Hierarchy(String),
    /// The measures need a positive length scale.
    #[error("cannot determine the mesh extent: {0}")]
    NoExtent(String),
}

/// Median of `values` (mean of the two middle values for an even count); `None` when empty.
/// NaNs are ignored.
pub fn median(values: &[f64]) -> Option<f64> {
    percentile(values, 50.0)
}

/// The `p`-th percentile (0–100) of `values` by linear interpolation between order statistics at
/// rank `(n − 1)·p/100` (numpy's default "linear" method); `None` when empty. NaNs are ignored.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let rank = (v.len() - 1) as f64 * (p / 100.0).clamp(0.0, 1.0);
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    let (a, b) = (v.get(lo)?, v.get(hi)?);
    Some(a + (b - a) * (rank - lo as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_known_values() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        // numpy.percentile([1..=10], 95) = 9.55
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert!((percentile(&v, 95.0).unwrap_or(0.0) - 9.55).abs() < 1e-12);
    }
}
