//! Re-choosing the embedding when a structural check fails (issue 12, joints). Flagging a wrong
//! rig `low_confidence` is honest, but the rig stays wrong; when the reason is structural, the
//! evidence also says where the limb is, so the search is run once more with that evidence.
//!
//! The rules, each with its reason (docs/algorithms.md#re-choosing-the-embedding):
//!
//! 1. **Trigger**: one of the structural checks of [`crate::confidence`] failed: a limb chain runs
//!    through a thin, flat plate (an ear); a limb of the shape holds no joint because a chain
//!    stopped short of it or ran into another part beside it (a shoulder pad); or the whole fit is
//!    poor (penalty above [`MAX_PENALTY`], or forced). Other reasons (budget, outside joints, a
//!    blob without limbs) say nothing about where a limb is, and an `ok` rig is never touched, so an
//!    `ok` rig pays nothing.
//! 2. **Evidence**: the shape's limb-like protrusions that no bone reaches, each given to the limb
//!    chain it belongs to by direction and side ([`protrusions`]). None: the first choice stays.
//! 3. **Re-search**: the discrete search (Baran & Popović 2007 §3.4) in the first choice's
//!    orientation, with each such chain's end required to sit in its protrusion's tip, the way a
//!    user's pin on the chain's end works (§5: a hint restricts the joint's candidates and the
//!    chain's length and symmetry are then the shape's, not the template's). This is what lets a
//!    cartoon's short arm be an arm: the template's length veto (a chain under half its template
//!    length) had sent the arm chain into the longer ear or down a leg. The offending placements
//!    are thus forbidden: the end may no longer sit in the plate, nor stop at the shoulder, while
//!    an unclaimed limb exists.
//!
//!    A biped whose feet point backwards ([`crate::confidence::feet`]) is first searched again
//!    turned round about its up axis ([`facing`]), under the same acceptance rule.
//! 4. **Acceptance**: the re-chosen embedding is kept only if it fails none of the trigger checks,
//!    has fewer confidence reasons than the first choice, and its penalty is at most
//!    [`PENALTY_FACTOR`] times the first choice's. Otherwise the first choice is kept, and the
//!    record says why the alternative was rejected.
//!
//! The moved chains are not recorded as pinned: confidence judges them like any other chain.

pub mod facing;
pub mod protrusions;

use std::time::Instant;

use crate::confidence::{self, parts, shape, Confidence, MAX_PENALTY};
use crate::discretize::Discretization;
use crate::embed::hints::ResolvedHint;
use crate::embed::reduced::Reduced;
use crate::embed::{self, EmbedError, EmbedOptions, Embedding, OrientationMode};
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::rig::{Rechoice, Status};
use crate::skeleton::Skeleton;
use crate::util::ms_since;

/// The re-chosen embedding's penalty may be at most this factor of the first choice's. The same
/// factor by which another template must win to "fit far better" (`crate::choose`): within it,
/// the two fits are comparable, and the re-chosen one passes checks the first one failed.
pub const PENALTY_FACTOR: f64 = 3.0;

/// What the first choice is judged with.
pub struct Inputs<'a> {
    /// The prepared mesh.
    pub mesh: &'a PreparedMesh,
    /// Its discretization (the search's graph and field).
    pub disc: &'a Discretization,
    /// The template.
    pub skel: &'a Skeleton,
    /// The user's hints (normalized frame).
    pub hints: &'a [ResolvedHint],
    /// The embedding options of the first choice.
    pub opts: &'a EmbedOptions,
}

/// A re-choice: the replacement (when kept) and the record for rig.json.
pub struct Outcome {
    /// The re-chosen embedding and its confidence, when they replace the first choice.
    pub replacement: Option<(Embedding, Confidence)>,
    /// What was tried and why it was kept or rejected, in plain words.
    pub record: Rechoice,
    /// Milliseconds the re-choice took (rig.json `timings_ms.rechoose`).
    pub ms: f64,
}

/// The trigger checks (module docs, rule 1) that `emb` fails, in plain words.
pub fn failed_checks(disc: &Discretization, skel: &Skeleton, emb: &Embedding) -> Vec<String> {
    if emb.joints.len() != skel.joints.len() {
        return Vec::new();
    }
    let red = Reduced::new(skel);
    let mut out: Vec<String> =
        shape::plate_limbs(&disc.field, skel, &red, &emb.joints, &emb.pinned)
            .into_iter()
            .map(|name| format!("the chain to {name} ran through a thin, flat plate"))
            .collect();
    let (g, q, o) = (&disc.graph, &emb.joints, &emb.orientation);
    for p in parts::empty_parts(g, skel, q, &emb.discrete, o, &emb.pinned) {
        let how = if p.passed_by {
            "ran into another part beside"
        } else {
            "stopped short of"
        };
        out.push(format!(
            "the chain to {} {how} the limb reaching to the {}",
            p.chain, p.direction
        ));
    }
    if emb.forced || emb.penalty.total > MAX_PENALTY {
        out.push(format!(
            "the skeleton fitted the shape poorly (penalty {:.3})",
            emb.penalty.total
        ));
    }
    out
}

/// Re-choose the embedding `emb` (confidence `conf`) when a trigger check fails (module docs).
/// `Ok(None)`: nothing triggered. Only cancellation is an error: a re-search that finds nothing
/// keeps the first choice.
pub fn rechoose(
    inp: &Inputs,
    emb: &Embedding,
    conf: &Confidence,
    progress: &dyn Progress,
) -> Result<Option<Outcome>, EmbedError> {
    if conf.status == Status::Ok {
        return Ok(None);
    }
    let t0 = Instant::now();
    let failed = failed_checks(inp.disc, inp.skel, emb);
    // A biped facing the wrong way is turned round first ([`facing`]); when that is not kept,
    // the structural re-choice below still gets its chance.
    let turned = facing::rechoose(inp, emb, conf, progress)?;
    if failed.is_empty() || turned.as_ref().is_some_and(|t| t.replacement.is_some()) {
        return Ok(turned);
    }
    let targets = protrusions::unclaimed(&inp.disc.graph, inp.skel, emb);
    let mut record = Rechoice {
        failed_checks: failed,
        chains: targets
            .iter()
            .map(|t| inp.skel.joints[t.end.0].name.clone())
            .collect(),
        original_penalty: emb.penalty.total,
        original_reasons: conf.reasons.clone(),
        ..Rechoice::default()
    };
    if targets.is_empty() {
        record.reason =
            "not re-chosen: the shape has no limb without joints to move a chain into".into();
        return Ok(Some(Outcome {
            replacement: None,
            record,
            ms: ms_since(t0),
        }));
    }
    let found = research(inp, emb, &targets, progress)?;
    let where_to = describe(&targets, inp.skel);
    let action = Action {
        trying: format!("moving {where_to}"),
        done: format!("moved {where_to}"),
    };
    let replacement = judge(inp, emb, conf, found, &action, &mut record);
    Ok(Some(Outcome {
        replacement,
        record,
        ms: ms_since(t0),
    }))
}

/// What a re-choice did, in the words of its reasons: `trying` ("moving the chain to …") and
/// `done` ("moved the chain to …").
struct Action {
    trying: String,
    done: String,
}

/// The re-searched embedding `found` with its confidence if it is accepted (module docs, rule 4),
/// recording its penalty and the plain reason for the decision either way in `record`.
fn judge(
    inp: &Inputs,
    emb: &Embedding,
    conf: &Confidence,
    found: Option<Embedding>,
    action: &Action,
    record: &mut Rechoice,
) -> Option<(Embedding, Confidence)> {
    let Action { trying, done } = action;
    let replacement = found.and_then(|new| {
        let new_conf = confidence::assess(inp.mesh, inp.disc, inp.skel, &new);
        record.penalty = Some(new.penalty.total);
        match rejection(inp, emb, conf, &new, &new_conf) {
            Some(why) => {
                record.reason = format!("not re-chosen: {trying} was tried, but {why}");
                None
            }
            None => Some((new, new_conf)),
        }
    });
    if replacement.is_some() {
        record.kept = true;
        record.reason = format!(
            "re-chosen because {}; {done} (penalty {:.3}, first choice {:.3})",
            record.failed_checks.join("; "),
            record.penalty.unwrap_or_default(),
            record.original_penalty
        );
    } else if record.reason.is_empty() {
        record.reason = format!("not re-chosen: {trying} found no embedding");
    }
    replacement
}

/// Rule 3 of the module docs: the search in `emb`'s orientation with each target chain's end
/// pinned to its tip, over the user's own hints. `None` when nothing embeds.
fn research(
    inp: &Inputs,
    emb: &Embedding,
    targets: &[protrusions::Target],
    progress: &dyn Progress,
) -> Result<Option<Embedding>, EmbedError> {
    let mut hints = inp.hints.to_vec();
    hints.extend(targets.iter().map(|t| ResolvedHint {
        joint: t.end,
        position: t.tip,
        radius: t.radius,
    }));
    let mut opts = inp.opts.clone();
    opts.orientation = OrientationMode::Fixed(emb.orientation);
    opts.cutoff = 1.0;
    match embed::embed(inp.disc, inp.skel, &hints, &opts, progress) {
        Ok(mut e) => {
            // The moved chains are judged like any other: only the user's pins are evidence.
            e.pinned = inp.hints.iter().map(|h| h.joint).collect();
            Ok(Some(e))
        }
        Err(EmbedError::Cancelled) => Err(EmbedError::Cancelled),
        Err(EmbedError::NoMatch { .. }) => Ok(None),
    }
}

/// "the chain to LeftHand_End into the limb without joints reaching to the upper left, …".
fn describe(targets: &[protrusions::Target], skel: &Skeleton) -> String {
    targets
        .iter()
        .map(|t| {
            format!(
                "the chain to {} into the limb without joints reaching to the {}",
                skel.joints[t.end.0].name,
                parts::direction_words(&t.direction)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why the re-chosen `new` may not replace `old` (module docs, rule 4), or `None`.
fn rejection(
    inp: &Inputs,
    old: &Embedding,
    old_conf: &Confidence,
    new: &Embedding,
    new_conf: &Confidence,
) -> Option<String> {
    let still = failed_checks(inp.disc, inp.skel, new);
    if !still.is_empty() {
        return Some(format!("the result still fails: {}", still.join("; ")));
    }
    if new_conf.reasons.len() >= old_conf.reasons.len() {
        return Some(format!(
            "the result is no more trustworthy ({})",
            new_conf.reasons.join("; ")
        ));
    }
    let (a, b) = (old.penalty.total, new.penalty.total);
    (b > PENALTY_FACTOR * a).then(|| {
        format!("its penalty {b:.3} is more than {PENALTY_FACTOR} times the first choice's {a:.3}")
    })
}
