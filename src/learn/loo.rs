//! Leave-one-character-out evaluation (`geppetto learn --leave-one-out`): for each corpus character
//! with labels, learn Γ on the other characters' labels only, then rig the left-out mesh with that
//! Γ — a real run of the pipeline's search, since Γ also drives the veto and the pruning — and with
//! the shipped Γ, and compare CD-J2J against the artist rig. This is the test of whether a learned Γ
//! generalizes to a character it has never seen.

use std::sync::Arc;

use super::collect::Character;
use super::labels::Label;
use super::optimize::Search;
use super::{learn, with_gamma, LearnError};
use crate::config::RigConfig;
use crate::embed::OrientationMode;
use crate::measure::truth::{self, ScoredRig};
use crate::measure::{joints, median};
use crate::pipeline::{Method, Pipeline, RigRequest};
use crate::progress::NoProgress;
use crate::rig::read::RigFile;
use crate::rig::Status;

/// One left-out character.
#[derive(Clone, Debug)]
pub struct LooRow {
    /// Character.
    pub name: String,
    /// Γ learned without it.
    pub gamma: [f64; 9],
    /// Smallest training margin of that Γ.
    pub train_margin: f64,
    /// CD-J2J (% of extent) with the shipped Γ, and its status.
    pub shipped: (f64, Status),
    /// CD-J2J with the Γ learned without this character, and its status.
    pub learned: (f64, Status),
}

/// The table and its summary.
#[derive(Clone, Debug)]
pub struct LooReport {
    /// One row per character.
    pub rows: Vec<LooRow>,
}

impl LooReport {
    /// `(median, worst)` CD-J2J of the shipped and of the learned Γ.
    pub fn summary(&self) -> ((f64, f64), (f64, f64)) {
        let col = |f: fn(&LooRow) -> f64| {
            let v: Vec<f64> = self.rows.iter().map(f).collect();
            let worst = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (median(&v).unwrap_or(f64::NAN), worst)
        };
        (col(|r| r.shipped.0), col(|r| r.learned.0))
    }

    /// The learned Γ wins: lower median and lower (or equal) worst CD-J2J.
    pub fn learned_wins(&self) -> bool {
        let ((ms, ws), (ml, wl)) = self.summary();
        ml < ms && wl <= ws
    }

    /// A markdown table.
    pub fn table(&self) -> String {
        let mut s = String::from(
            "| left out | shipped Γ CD-J2J % | learned Γ CD-J2J % | train margin |\n|---|---|---|---|\n",
        );
        for r in &self.rows {
            s.push_str(&format!(
                "| {} | {:.2} ({}) | {:.2} ({}) | {:.4} |\n",
                r.name,
                r.shipped.0,
                word(r.shipped.1),
                r.learned.0,
                word(r.learned.1),
                r.train_margin
            ));
        }
        let ((ms, ws), (ml, wl)) = self.summary();
        s.push_str(&format!(
            "| **median / worst** | {ms:.2} / {ws:.2} | {ml:.2} / {wl:.2} | |\n"
        ));
        s
    }
}

/// The status as rig.json writes it.
fn word(s: Status) -> &'static str {
    match s {
        Status::Ok => "ok",
        Status::LowConfidence => "low_confidence",
    }
}

/// Rig `c` with `config` (template embedding, default orientation, no skin) and score it.
pub fn rig_and_score(c: &Character, config: &RigConfig) -> Result<(f64, Status), LearnError> {
    let skel =
        crate::skeleton::load_template(&c.template).map_err(|e| LearnError::Rig(e.to_string()))?;
    let req = RigRequest {
        mesh_path: c.mesh.clone(),
        skeleton: Arc::new(skel).into(),
        hints: None,
        orientation: OrientationMode::Default,
        skin: false,
        method: Method::Embed,
    };
    let out = Pipeline::new(config.clone())
        .rig(&req, &NoProgress)
        .map_err(|e| LearnError::Rig(e.to_string()))?;
    let artist = truth::load(&c.truth)?;
    let pred = ScoredRig::from(RigFile::from_rig(&c.mesh, &out.rig));
    let extent = out.prepared.input.aabb().max_extent();
    let m = joints::measure(
        (&pred.positions, &pred.parents),
        (&artist.positions, &artist.parents),
        extent,
    );
    Ok((m.cd_j2j, out.rig.status))
}

/// Leave-one-out over `characters` that have labels; `base` is the shipped configuration.
pub fn leave_one_out(
    characters: &[Character],
    labels: &[Label],
    base: &RigConfig,
    search: &Search,
) -> Result<LooReport, LearnError> {
    let shipped = base.penalties.as_array();
    let mut rows = Vec::new();
    for c in characters {
        if !labels.iter().any(|l| l.character == c.name) {
            continue;
        }
        let train: Vec<Label> = labels
            .iter()
            .filter(|l| l.character != c.name)
            .cloned()
            .collect();
        let learned = learn(&train, shipped, search)?;
        rows.push(LooRow {
            name: c.name.clone(),
            gamma: learned.gamma,
            train_margin: learned.min_margin(),
            shipped: rig_and_score(c, base)?,
            learned: rig_and_score(c, &with_gamma(base, &learned.gamma))?,
        });
    }
    Ok(LooReport { rows })
}
