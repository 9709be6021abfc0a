//! The re-choice of an embedding that failed a structural check ([`crate::rechoose`]), applied to
//! a template's fit before the fits are compared.

use std::path::Path;

use crate::choose::Fit;
use crate::error::RigError;
use crate::progress::Progress;
use crate::rechoose::{rechoose, Inputs};

/// Re-choose `fit`'s embedding when it fails a structural check: the replacement (when kept) and
/// the record go into `fit`; the time goes into the embedding's `rechoose` timing.
pub(super) fn apply(
    fit: &mut Fit,
    inp: &Inputs,
    path: &Path,
    progress: &dyn Progress,
) -> Result<(), RigError> {
    let outcome = rechoose(inp, &fit.embedding, &fit.confidence, progress).map_err(|source| {
        RigError::Embed {
            path: path.to_path_buf(),
            source,
        }
    })?;
    let Some(out) = outcome else {
        return Ok(());
    };
    if let Some((mut embedding, confidence)) = out.replacement {
        // The stage times stay the first search's; the re-search is the `rechoose` time.
        embedding.timings_ms = std::mem::take(&mut fit.embedding.timings_ms);
        fit.embedding = embedding;
        fit.confidence = confidence;
    }
    fit.embedding.timings_ms.push(("rechoose", out.ms));
    fit.rechoice = Some(out.record);
    Ok(())
}
