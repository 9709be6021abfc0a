//! The candidate templates of [`Pipeline::rig`]'s embedding stage, embedded and assessed in a fixed
//! order (so the choice does not depend on threads), with the quadruped's hock re-try under `auto`
//! (docs/algorithms.md, "The hind leg's hock").
//!
//! Under `auto` the templates after the first have their orientation screening (24 greedy dives,
//! [`embed::screen_ahead`]) run beside the first template's whole fit: the screening reads neither
//! the branch-and-bound cutoff the first fit sets nor anything else it finds, so each template's
//! fit is the one the serial order gives, while the first fit's one-core parts (its main search,
//! refinement, assessment, re-choice) no longer leave the second core idle.

use std::sync::Arc;
use std::time::Instant;

use crate::choose::{self, Fit, Template};
use crate::confidence;
use crate::discretize::Discretization;
use crate::embed::{self, Embedding, Screened};
use crate::error::RigError;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::skeleton::Skeleton;
use crate::util::ms_since;

use super::{Pipeline, RigRequest, SkinAhead};

/// The fitted candidates: the fits in order, the first error met (a template whose hints do not
/// resolve under `auto`, or whose embedding failed), and the times (rig.json `timings_ms`): per
/// template `fit_NAME` (its search, refinement, assessment and re-choice) and, when run ahead,
/// `screen_NAME` (its orientation screening).
pub(super) type Fitted = (Vec<Fit>, Option<RigError>, Vec<(String, f64)>);

/// One rig request's fits gathered in order, with the first error met.
struct Gather<'a> {
    pipeline: &'a Pipeline,
    req: &'a RigRequest,
    prepared: &'a PreparedMesh,
    disc: &'a Discretization,
    progress: &'a dyn Progress,
    fits: Vec<Fit>,
    first_err: Option<RigError>,
    timings: Vec<(String, f64)>,
}

impl Pipeline {
    /// Every candidate template embedded and assessed in a fixed order, with the first error met
    /// and the times ([`Fitted`]).
    pub(super) fn fit_candidates(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        opts: &embed::EmbedOptions,
        progress: &dyn Progress,
        ahead: Option<&SkinAhead>,
    ) -> Result<Fitted, RigError> {
        let mut g = Gather {
            pipeline: self,
            req,
            prepared,
            disc,
            progress,
            fits: Vec::new(),
            first_err: None,
            timings: Vec::new(),
        };
        let candidates = req.skeleton.candidates()?;
        let Some((first, later)) = candidates.split_first() else {
            return Ok((g.fits, g.first_err, g.timings));
        };
        // The later templates' screening beside the first template's fit (module docs).
        let screen_later = || {
            later
                .iter()
                .map(|s| self.screen_ahead(req, prepared, disc, opts, s, progress))
                .collect::<Vec<_>>()
        };
        let (done, screened) = if later.is_empty() {
            (g.fit(opts, Arc::clone(first), None), Vec::new())
        } else {
            let g = &mut g;
            rayon::join(|| g.fit(opts, Arc::clone(first), None), screen_later)
        };
        done?;
        let fit_later = |g: &mut Gather| -> Result<(), RigError> {
            for (skel, (screen, ms)) in later.iter().zip(screened) {
                if let Some(ms) = ms {
                    g.timings.push((format!("screen_{}", skel.name), ms));
                }
                g.fit(opts, Arc::clone(skel), screen)?;
            }
            Ok(())
        };
        // The first fit's skin beside the later fits ([`super::ahead`]).
        let skin_joints = ahead
            .filter(|_| !later.is_empty())
            .zip(g.fits.first())
            .and_then(|(a, f)| Some((a, a.joints_for(f)?)));
        match skin_joints {
            Some((a, joints)) => rayon::join(|| fit_later(&mut g), || a.run(joints)).0?,
            None => fit_later(&mut g)?,
        }
        if matches!(req.skeleton, Template::Auto) {
            g.hock_retry(opts)?;
        }
        Ok((g.fits, g.first_err, g.timings))
    }

    /// `skel`'s orientation screening run ahead ([`embed::screen_ahead`]) with the hints its fit
    /// will use, and its time; none when its hints do not resolve (its fit then fails the same
    /// way) or the options search one orientation.
    fn screen_ahead(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        opts: &embed::EmbedOptions,
        skel: &Skeleton,
        progress: &dyn Progress,
    ) -> (Option<Screened>, Option<f64>) {
        let t = Instant::now();
        let Ok(hints) = self.hints_for(req, prepared, skel) else {
            return (None, None);
        };
        let screened = embed::screen_ahead(disc, skel, &hints, opts, progress);
        let ms = screened.as_ref().map(|_| ms_since(t));
        (screened, ms)
    }
}

impl Gather<'_> {
    /// The quadruped's hind leg has one joint below the knee; the horse's (Pinocchio's
    /// HorseSkeleton) has the hock as well, as a dog's, a cat's or a horse's does. A quadruped win
    /// is re-tried with the horse in the quadruped's own orientation (one more search, no
    /// orientation screening), and [`choose::best`] (the lower per-chain penalty) keeps one leg.
    fn hock_retry(&mut self, opts: &embed::EmbedOptions) -> Result<(), RigError> {
        let fits = &self.fits;
        let quad = choose::best(fits).filter(|&i| fits[i].skeleton.name == "quadruped");
        let Some(i) = quad else {
            return Ok(());
        };
        let mut fixed = opts.clone();
        fixed.orientation = embed::OrientationMode::Fixed(fits[i].embedding.orientation);
        let horse = Arc::new(crate::skeleton::load_template(choose::HOCK_TEMPLATE)?);
        self.fit(&fixed, horse, None)
    }

    /// Embed and assess one template into `fits` (or its error into `first_err`), its
    /// orientation screening taken from `screened` when it ran ahead; hints naming another
    /// template's joints skip it under `auto`. The time is `fit_NAME`.
    fn fit(
        &mut self,
        opts: &embed::EmbedOptions,
        skel: Arc<Skeleton>,
        screened: Option<Screened>,
    ) -> Result<(), RigError> {
        let t = Instant::now();
        let name = format!("fit_{}", skel.name);
        let out = self.fit_timed(opts, skel, screened);
        self.timings.push((name, ms_since(t)));
        out
    }

    /// [`Self::fit`] without its time.
    fn fit_timed(
        &mut self,
        opts: &embed::EmbedOptions,
        skel: Arc<Skeleton>,
        screened: Option<Screened>,
    ) -> Result<(), RigError> {
        let (req, prepared, disc, progress) = (self.req, self.prepared, self.disc, self.progress);
        let path = &req.mesh_path;
        let hints = match self.pipeline.hints_for(req, prepared, &skel) {
            Ok(h) => h,
            // Under `auto`, hints name one template's joints; the others are skipped.
            Err(e) if matches!(req.skeleton, Template::Auto) => {
                self.first_err.get_or_insert(e);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        // Branch and bound across templates: once one is `ok`, another can only win by being
        // `ok` with a lower per-chain penalty, so its search may stop at that penalty.
        let mut opts = opts.clone();
        if let Some(pc) = choose::best_ok_per_chain(&self.fits) {
            opts.cutoff = (pc * choose::chains(&skel) as f64).min(1.0);
        }
        let screened = std::cell::Cell::new(screened);
        let embed_fn =
            |s: &Skeleton| embed::embed_screened(disc, s, &hints, &opts, screened.take(), progress);
        let assess_fn = |s: &Skeleton, e: &Embedding| confidence::assess(prepared, disc, s, e);
        match choose::fit(skel, &embed_fn, &assess_fn) {
            Ok(mut f) => {
                // The re-choice replaces `f`'s embedding, so it reads the template from its
                // own handle on it.
                let template = Arc::clone(&f.skeleton);
                let inp = crate::rechoose::Inputs {
                    mesh: prepared,
                    disc,
                    skel: &template,
                    hints: &hints,
                    opts: &opts,
                };
                super::rechoose::apply(&mut f, &inp, path, progress)?;
                self.fits.push(f);
            }
            Err(source) => {
                let e = RigError::Embed {
                    path: path.clone(),
                    source,
                };
                if e.is_cancelled() {
                    return Err(e);
                }
                self.first_err.get_or_insert(e);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::judge_fixture::Judge;
    use super::*;
    use crate::config::RigConfig;
    use crate::progress::NoProgress;
    use crate::skeleton::load_template;

    /// The quadruped's orientation screening run ahead, with the options before any
    /// branch-and-bound cutoff (as `auto` runs it beside the human's fit), gives the embedding
    /// the serial search gives under each cutoff: the screening must not read the cutoff.
    #[test]
    fn screening_ahead_gives_the_serial_embedding() {
        let judge = Judge::new(crate::demo::quadruped(1).mesh, "animal.obj");
        let quad = load_template("quadruped").unwrap();
        assert_eq!(judge.opts.orientation, embed::OrientationMode::Auto);
        for cutoff in [1.0, 0.02, 0.002] {
            let mut opts = judge.opts.clone();
            opts.cutoff = cutoff;
            let serial = embed::embed(&judge.disc, &quad, &[], &opts, &NoProgress).unwrap();
            let ahead = embed::screen_ahead(&judge.disc, &quad, &[], &judge.opts, &NoProgress);
            assert!(ahead.is_some());
            let split =
                embed::embed_screened(&judge.disc, &quad, &[], &opts, ahead, &NoProgress).unwrap();
            let key = |e: &Embedding| {
                (
                    e.orientation.label(),
                    e.penalty.total.to_bits(),
                    e.discrete.clone(),
                    e.joints.clone(),
                    e.warnings.clone(),
                    (e.forced, e.budget_hit),
                )
            };
            assert_eq!(key(&serial), key(&split), "cutoff {cutoff}");
        }
    }

    /// Under `auto` every template's fit and the screening run ahead are timed (rig.json
    /// `timings_ms`), so the choice's cost is not hidden outside the named stages.
    #[test]
    fn auto_times_each_template_fit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("figure.obj");
        crate::mesh::write::write_obj(&crate::demo::humanoid(1).mesh, &path).unwrap();
        let mut req = RigRequest::with_sidecar(&path, Template::Auto).unwrap();
        req.skin = false;
        let out = Pipeline::new(RigConfig::default())
            .rig(&req, &NoProgress)
            .unwrap();
        let t = &out.rig.timings_ms;
        for name in [
            "choose",
            "fit_human",
            "fit_quadruped",
            "screen_quadruped",
            "judge_pieces",
        ] {
            assert!(t.contains_key(name), "no {name} in {t:?}");
        }
        assert!(
            t["choose"] >= t["fit_human"].max(t["fit_quadruped"]),
            "{t:?}"
        );
    }
}
