//! A retry among the orientations files are authored in, when the `auto` fit needed the model
//! turned (unseen characters, round 6).
//!
//! `--orientation auto` keeps the orientation with the lowest penalty over all 24, and a best fit
//! whose mesh up is neither +Y nor +Z is `low_confidence` ([`crate::choose::implausible_up`]: a
//! character standing on its head is almost never what an artist saved). That check says the
//! rig is wrong but not what is right. A creature with big ears and a tail (Yo Frankie's flying
//! squirrel, +Z up) fits the human template upside down with a lower penalty (0.143) than upright
//! (0.159), yet the upright fit passes every check and is the artist's frame.
//!
//! The rule, by the order that ranks templates ([`crate::choose::best`]: trustworthy first): when
//! the chosen template fit is `low_confidence` with the model turned — and the curve skeleton did
//! not win either — that template (only that one) is fitted again in each of the frames files are
//! authored in ([`crate::choose::AUTHORED_FRAMES`]: +Y up facing +Z, +Z up facing −Y; the frames
//! the multi-component method tries), a full search each. The better of those fits is kept only
//! if it is `ok` after the same checks; otherwise the first rig and its reasons stay. The other
//! template is not retried: the check said *this* template fits only turned, and a template the
//! `auto` search ranked worse can pass every check on a shape it does not describe (the corpus
//! turtle, whose human fit needed turning: the quadruped in the +Y-up frame passes every check
//! facing backwards, head joint in the tail). Restricting the
//! 24-orientation search to the authored up axes instead does not help: its lowest penalty among
//! them is again a fit that fails a check (Frankie: +Y up facing +Z, 0.156, a 4× head chain). No
//! tolerance: the prior is the one the implausible-up check already states, applied to choose
//! rather than only to warn.
//!
//! A format that fixes its frame narrows the prior to that frame: glTF is +Y up facing +Z by
//! specification (§3.4), and FBX is converted to that frame on load from the axes the file
//! declares. Only OBJ, OFF and PLY, which declare nothing, get both frames. (A +Y-up blocky
//! glTF biped, Minetest's maidroid, passes every check with the quadruped lying face down in the
//! +Z-up frame: a frame the file cannot be in.)

use std::path::Path;
use std::sync::Arc;

use super::{choosing::Chosen, Pipeline, RigRequest};
use crate::choose::{self, Frame, Template, AUTHORED_FRAMES};
use crate::discretize::Discretization;
use crate::embed::{EmbedOptions, OrientationMode};
use crate::error::RigError;
use crate::mesh::{MeshFormat, PreparedMesh};
use crate::progress::Progress;
use crate::rig::Status;

impl Pipeline {
    /// `chosen`, or — when it is a template fit that is `low_confidence` with the model turned
    /// under `--skeleton auto --orientation auto` and a fit among the authored orientations is
    /// `ok` — that fit (module docs). `opts` are the embedding options `chosen` was fitted with.
    pub(super) fn authored_if_turned(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        opts: &EmbedOptions,
        progress: &dyn Progress,
        chosen: Chosen,
    ) -> Result<Chosen, RigError> {
        let turned = chosen.curve.is_none()
            && chosen.fit.confidence.status != Status::Ok
            && matches!(req.skeleton, Template::Auto)
            && choose::implausible_up(&chosen.fit, opts.orientation).is_some();
        if !turned {
            return Ok(chosen);
        }
        // Only the template that needed the turn: whether *it* fits the way files are saved.
        let same = RigRequest {
            skeleton: Template::Fixed(Arc::clone(&chosen.fit.skeleton)),
            ..req.clone()
        };
        let mut fits = Vec::new();
        for o in choose::frame_orientations(authored_frames(&req.mesh_path)) {
            let mut framed = opts.clone();
            framed.orientation = OrientationMode::Fixed(o);
            fits.extend(
                self.fit_candidates(&same, prepared, disc, &framed, progress, None)?
                    .0,
            );
        }
        let Some(best) = choose::best(&fits) else {
            return Ok(chosen);
        };
        let (fit, retried) = self.check_best(req, prepared, fits, best, opts, None);
        if fit.confidence.status != Status::Ok {
            return Ok(chosen);
        }
        let first = &chosen.fit;
        let note = format!(
            "the best fit needed the model turned ({} template, {}); among the orientations files \
             are authored in (+Y or +Z up) the {} template fits with confidence ({}, penalty {:.3} \
             against {:.3}), so that fit was used",
            first.skeleton.name,
            first.embedding.orientation.label(),
            fit.skeleton.name,
            fit.embedding.orientation.label(),
            fit.embedding.penalty.total,
            first.embedding.penalty.total,
        );
        let mut trials = chosen.trials;
        trials.iter_mut().for_each(|t| t.chosen = false);
        trials.extend(retried);
        Ok(Chosen {
            fit,
            trials,
            curve: None,
            notes: vec![note],
        })
    }
}

/// The authored frames a file at `path` can be in (module docs): glTF's own for a glTF or FBX
/// input, both of [`AUTHORED_FRAMES`] otherwise.
fn authored_frames(path: &Path) -> &'static [Frame] {
    match MeshFormat::from_path(path) {
        Some(MeshFormat::Glb | MeshFormat::Gltf | MeshFormat::Fbx) => &AUTHORED_FRAMES[..1],
        _ => &AUTHORED_FRAMES,
    }
}

#[cfg(test)]
mod tests {
    use super::super::judge_fixture::Judge;
    use super::*;
    use crate::embed::Orientation;
    use crate::geom::P3;
    use crate::progress::NoProgress;

    /// An upright humanoid saved the Blender way (+Z up, facing −Y) whose human fit was taken
    /// upside down (−Z up, as the `auto` search took Yo Frankie's squirrel) and judged as the
    /// choice judges it (`low_confidence`, "turned"): the retry in the authored frames must give
    /// the upright fit, `ok`, and say why.
    #[test]
    fn a_turned_fit_is_retried_in_the_authored_frames() {
        let mut c = crate::demo::humanoid(1);
        for p in &mut c.mesh.positions {
            *p = P3::new(p.x, -p.z, p.y);
        }
        let judge = Judge::new(c.mesh, "figure.obj");
        let head_down = Orientation::from_up_forward((2, -1), (1, -1)).unwrap();
        let (fit, trials) = judge.judged("human", head_down);
        assert_eq!(fit.confidence.status, Status::LowConfidence);
        assert!(fit.confidence.reasons.iter().any(|r| r.contains("turned")));
        let first = Chosen {
            fit,
            trials,
            curve: None,
            notes: Vec::new(),
        };
        let out = judge
            .pipe
            .authored_if_turned(
                &judge.req,
                &judge.prepared,
                &judge.disc,
                &judge.opts,
                &NoProgress,
                first,
            )
            .unwrap();
        assert_eq!(
            out.fit.confidence.status,
            Status::Ok,
            "{:?}",
            out.fit.confidence.reasons
        );
        assert_eq!(out.fit.embedding.orientation.label(), "+Z up, -Y forward");
        assert!(out
            .notes
            .iter()
            .any(|n| n.contains("needed the model turned")));
        assert_eq!(out.trials.iter().filter(|t| t.chosen).count(), 1);
    }
}
