//! One job of the pool ([`super::jobs`]): the rig, its outputs and thumbnail, the companion
//! files its load saw, and the hint label to record once the result is reported.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::jobs::{JobContext, JobDone, JobResult};
use crate::error::RigError;
use crate::export::{write_rig_to, Format, GlbSource};
use crate::learn;
use crate::mesh::load::Companion;
use crate::naming::output_base;
use crate::pipeline::{RigOutcome, RigRequest};
use crate::progress::{Progress, Stage};

/// An accepted hinted rig, kept to record its training label for Γ (`crate::learn::hints`) after
/// the rig has been reported.
pub(super) struct HintLabel {
    req: RigRequest,
    outcome: RigOutcome,
}

impl HintLabel {
    /// Appends the labels to the output folder. A failure never fails the rig (it is already
    /// shown); the label file is training data the user did not ask for, so a write error there
    /// (the output folder itself failing) is left to the next rig's outputs to report.
    pub(super) fn record(&self, ctx: &JobContext, progress: &dyn Progress) {
        let _ = learn::hints::record(
            &ctx.pipeline,
            &self.req,
            &self.outcome,
            &ctx.out_dir,
            progress,
        );
    }
}

/// What a job produced: its result, the companions its load saw, and the hint label to record
/// once the result is reported.
pub(super) struct Ran {
    pub(super) result: JobResult,
    pub(super) companions: Option<Vec<Companion>>,
    pub(super) label: Option<HintLabel>,
}

impl Ran {
    /// A job that ended without a load that says what it read.
    pub(super) fn ended(result: JobResult) -> Self {
        Self {
            result,
            companions: None,
            label: None,
        }
    }

    /// A failed rig and the companion files its load read or looked at (a missing `.bin`, or
    /// one whose geometry a later stage refused): a change to one of them re-rigs the asset.
    fn failed(e: &RigError, seen: Vec<Companion>) -> Self {
        Self {
            companions: Some(seen),
            ..Self::ended(JobResult::Failed(e.to_string()))
        }
    }
}

/// One rig: pipeline, outputs, thumbnail; and the hint label to record once it is reported.
pub(super) fn run_job(ctx: &JobContext, path: &Path, progress: &dyn Progress) -> Ran {
    let skeleton = match (ctx.skeleton_for)(path) {
        Ok(s) => s,
        Err(e) => return Ran::ended(JobResult::Failed(e)),
    };
    let req = match RigRequest::with_sidecar(path, skeleton) {
        Ok(r) => r,
        Err(e) => return Ran::ended(JobResult::Failed(e.to_string())),
    };
    let mut seen = Vec::new();
    let outcome = match ctx.pipeline.rig_noting(&req, progress, &mut seen) {
        Ok(o) => o,
        Err(e) if e.is_cancelled() => return Ran::ended(JobResult::Cancelled),
        Err(e) => return Ran::failed(&e, seen),
    };
    if progress.cancelled() {
        return Ran::ended(JobResult::Cancelled);
    }
    let companions = Some(seen);
    progress.enter(Stage::Export);
    let (outputs, output_errors) = write_outputs(ctx, path, &outcome);
    let thumbnail = outputs
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "png"))
        .cloned();
    let mesh = Arc::new(outcome.prepared.input.clone());
    let reused_discretization = outcome.reused_discretization;
    let (rig, label) = if learn::hints::is_candidate(&req, &outcome) {
        (outcome.rig.clone(), Some(HintLabel { req, outcome }))
    } else {
        (outcome.rig, None)
    };
    let done = JobDone {
        mesh,
        reused_discretization,
        rig,
        outputs,
        output_errors,
        thumbnail,
    };
    Ran {
        result: JobResult::Done(Box::new(done)),
        companions,
        label,
    }
}

/// Write the outputs of `outcome`: the files written and the errors of those that were not.
fn write_outputs(
    ctx: &JobContext,
    path: &Path,
    outcome: &RigOutcome,
) -> (Vec<PathBuf>, Vec<String>) {
    let mut outputs = Vec::new();
    let mut output_errors = Vec::new();
    let base = output_base(path, &ctx.root, &ctx.out_dir);
    let mut formats = ctx.formats.clone();
    if ctx.thumbnails && !formats.contains(&Format::Png) {
        formats.push(Format::Png);
    }
    // One format at a time, so a missing exporter does not hide the others.
    for format in &formats {
        let mesh = &outcome.prepared.input;
        let glb = GlbSource::of(outcome);
        match write_rig_to(&outcome.rig, mesh, glb, &base, std::slice::from_ref(format)) {
            Ok(paths) => outputs.extend(paths),
            Err(e) => output_errors.push(e.to_string()),
        }
    }
    (outputs, output_errors)
}
