//! The candidate templates of [`Pipeline::rig`]'s embedding stage, embedded and assessed one after
//! another in a fixed order (so the choice does not depend on threads), with the quadruped's hock
//! re-try under `auto` (docs/algorithms.md, "The hind leg's hock").

use std::sync::Arc;

use crate::choose::{self, Fit, Template};
use crate::confidence;
use crate::discretize::Discretization;
use crate::embed::{self, Embedding};
use crate::error::RigError;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::skeleton::Skeleton;

use super::{Pipeline, RigRequest};

/// One rig request's fits gathered in order, with the first error met (a template whose hints do
/// not resolve under `auto`, or whose embedding failed).
struct Gather<'a> {
    pipeline: &'a Pipeline,
    req: &'a RigRequest,
    prepared: &'a PreparedMesh,
    disc: &'a Discretization,
    progress: &'a dyn Progress,
    fits: Vec<Fit>,
    first_err: Option<RigError>,
}

impl Pipeline {
    /// Every candidate template embedded and assessed in a fixed order, with the first error met.
    pub(super) fn fit_candidates(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        opts: &embed::EmbedOptions,
        progress: &dyn Progress,
    ) -> Result<(Vec<Fit>, Option<RigError>), RigError> {
        let mut g = Gather {
            pipeline: self,
            req,
            prepared,
            disc,
            progress,
            fits: Vec::new(),
            first_err: None,
        };
        for skel in req.skeleton.candidates()? {
            g.fit(opts, skel)?;
        }
        if matches!(req.skeleton, Template::Auto) {
            g.hock_retry(opts)?;
        }
        Ok((g.fits, g.first_err))
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
        self.fit(&fixed, horse)
    }

    /// Embed and assess one template into `fits` (or its error into `first_err`); hints naming
    /// another template's joints skip it under `auto`.
    fn fit(&mut self, opts: &embed::EmbedOptions, skel: Arc<Skeleton>) -> Result<(), RigError> {
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
        let embed_fn = |s: &Skeleton| embed::embed(disc, s, &hints, &opts, progress);
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
