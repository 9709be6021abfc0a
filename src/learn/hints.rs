//! Labels from users' hints (Baran & Popović 2007 §3.3: where an embedding is bad, the fix gives a
//! good one). When a hinted rig is accepted — the rig's status is `ok` — the embedding the engine
//! makes without the hints (same template, same orientation, same graph) is labelled bad and the
//! hinted one good, both with basis values replayed on the same graph without the pins (a pin
//! zeroes the length and symmetry terms of its chain inside the search; the label must hold what
//! the unhinted penalty would see). If the two are the same embedding the hint only confirmed it:
//! no label.
//!
//! The watcher calls [`record`] after each finished rig; labels are appended to
//! [`super::labels::HINT_LABELS_FILE`] in its output folder.

use std::path::Path;

use super::basis::Scene;
use super::labels::{self, Label, LabelSource};
use super::LearnError;
use crate::embed::{self, OrientationMode};
use crate::pipeline::{Pipeline, RigOutcome, RigRequest};
use crate::progress::Progress;
use crate::rig::Status;

/// Whether a finished rig can give hint labels: hinted, `ok`, a template embedding with its
/// discretization. Cheap; [`hint_labels`] does the search.
pub fn is_candidate(req: &RigRequest, outcome: &RigOutcome) -> bool {
    let hinted = req.hints.as_ref().is_some_and(|(h, _)| !h.hints.is_empty());
    hinted
        && outcome.discretization.is_some()
        && outcome.rig.status == Status::Ok
        && outcome.rig.method == crate::rig::METHOD_EMBED
}

/// The two labels of an accepted hinted rig, or none (no hints, not `ok`, not a template
/// embedding, cancelled, or the hint changed nothing).
pub fn hint_labels(
    pipeline: &Pipeline,
    req: &RigRequest,
    outcome: &RigOutcome,
    progress: &dyn Progress,
) -> Vec<Label> {
    let Some(disc) = outcome
        .discretization
        .as_ref()
        .filter(|_| is_candidate(req, outcome))
    else {
        return Vec::new();
    };
    let emb = &outcome.embedding;
    let mut opts = pipeline.config.embed_options();
    opts.orientation = OrientationMode::Fixed(emb.orientation);
    let Ok(pre) = embed::embed(disc, &outcome.skeleton, &[], &opts, progress) else {
        return Vec::new();
    };
    let (bad, good): (Vec<u32>, Vec<u32>) = (
        pre.discrete.iter().map(|n| n.0).collect(),
        emb.discrete.iter().map(|n| n.0).collect(),
    );
    if bad == good || pre.forced {
        return Vec::new();
    }
    let scene = Scene::new(&disc.graph, &outcome.skeleton, emb.orientation);
    let character = format!(
        "{}#{:016x}",
        crate::naming::asset_name(&req.mesh_path),
        outcome.prepared.input.content_hash()
    );
    let label = |matched: Vec<u32>, good: bool| {
        Some(Label {
            character: character.clone(),
            source: LabelSource::Hint,
            template: outcome.skeleton.name.clone(),
            orientation: emb.orientation.label(),
            basis: scene.basis(&matched)?,
            matched,
            good,
            cd_j2j: None,
        })
    };
    match (label(bad, false), label(good, true)) {
        (Some(b), Some(g)) => vec![b, g],
        _ => Vec::new(),
    }
}

/// [`hint_labels`], appended to `out_dir/geppetto-labels.jsonl` (see [`labels::append`]).
/// Returns how many labels were appended.
pub fn record(
    pipeline: &Pipeline,
    req: &RigRequest,
    outcome: &RigOutcome,
    out_dir: &Path,
    progress: &dyn Progress,
) -> Result<usize, LearnError> {
    let new = hint_labels(pipeline, req, outcome, progress);
    if new.is_empty() {
        return Ok(0);
    }
    labels::append(&out_dir.join(labels::HINT_LABELS_FILE), &new)
}
