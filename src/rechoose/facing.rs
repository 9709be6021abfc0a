//! Re-choosing the facing of a biped whose feet point backwards ([`crate::confidence::feet`]).
//!
//! Under `--orientation auto` the search picks the facing; a near-symmetric body costs about the
//! same facing either way, and the pick can be the wrong one (the held-out `nobody` and `sofia`,
//! reported `ok` with their ankles high and toe chains pointing down). The evidence says which
//! way to turn: a half turn about the same up axis. The rules follow the module's others:
//!
//! * **Trigger**: the feet point backwards and the search chose the orientation (`Auto`); an
//!   orientation the user fixed is theirs, and the reason stays.
//! * **Re-search**: the full search (Baran & Popović 2007 §4) in the turned orientation alone,
//!   with the user's hints.
//! * **Acceptance**: as for the structural re-choice (`rechoose::rejection`): the turned fit fails
//!   no trigger check, has fewer confidence reasons than the first (so its feet point forward
//!   and nothing new is wrong), and its penalty is at most [`super::PENALTY_FACTOR`] times the
//!   first's. Otherwise the first fit stays, `low_confidence` with its reason.

use std::time::Instant;

use super::{judge, Action, Inputs, Outcome};
use crate::confidence::{feet, Confidence};
use crate::embed::{self, EmbedError, Embedding, OrientationMode};
use crate::progress::Progress;
use crate::rig::Rechoice;
use crate::util::ms_since;

/// The facing re-choice of `emb` (confidence `conf`), or `None` when it does not apply (module
/// docs: the feet do not point backwards, or the user fixed the orientation).
pub fn rechoose(
    inp: &Inputs,
    emb: &Embedding,
    conf: &Confidence,
    progress: &dyn Progress,
) -> Result<Option<Outcome>, EmbedError> {
    if inp.opts.orientation != OrientationMode::Auto {
        return Ok(None);
    }
    let t0 = Instant::now();
    let Some(why) = feet::backwards(&inp.mesh.positions, inp.skel, emb) else {
        return Ok(None);
    };
    let turned = feet::turned(&emb.orientation);
    let mut record = Rechoice {
        failed_checks: vec![why],
        original_penalty: emb.penalty.total,
        original_reasons: conf.reasons.clone(),
        ..Rechoice::default()
    };
    let mut opts = inp.opts.clone();
    opts.orientation = OrientationMode::Fixed(turned);
    opts.cutoff = 1.0;
    let found = match embed::embed(inp.disc, inp.skel, inp.hints, &opts, progress) {
        Ok(e) => Some(e),
        Err(EmbedError::Cancelled) => return Err(EmbedError::Cancelled),
        Err(EmbedError::NoMatch { .. }) => None,
    };
    let to = turned.label();
    let action = Action {
        trying: format!("turning round to {to}"),
        done: format!("turned round to {to}"),
    };
    let replacement = judge(inp, emb, conf, found, &action, &mut record);
    Ok(Some(Outcome {
        replacement,
        record,
        ms: ms_since(t0),
    }))
}
