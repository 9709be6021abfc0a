//! The embedding stage of [`Pipeline::rig`]: each candidate template embedded and assessed on the
//! shared discretization, the best kept ([`crate::choose`]), the curve skeleton competing or
//! standing in when no template fits with confidence.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::choose::{self, Fit, Template, TemplateTrial};
use crate::curveskel::CurveMode;
use crate::discretize::Discretization;
use crate::embed;
use crate::embed::hints::ResolvedHint;
use crate::error::RigError;
use crate::mesh::PreparedMesh;
use crate::progress::Progress;
use crate::rig::Status;
use crate::skeleton::Skeleton;
use crate::util::ms_since;

use super::{Pipeline, RigRequest, SkinAhead};

/// The chosen fit and the record of every template tried.
pub(super) struct Chosen {
    pub(super) fit: Fit,
    pub(super) trials: Vec<TemplateTrial>,
    /// The curve-skeleton report when the curve method made the joints.
    pub(super) curve: Option<crate::rig::CurveReport>,
    /// Plain-language notes on the choice (rig.json `warnings`).
    pub(super) notes: Vec<String>,
}

impl Pipeline {
    /// Embed and assess each candidate template (one, or every shipped one under `auto`) on the
    /// shared discretization, keep the best (see [`choose::best`]); apply the "another template fits
    /// far better" check. Templates are tried one after another in a fixed order, so the choice does
    /// not depend on threads.
    ///
    /// The times go into `timings` (rig.json `timings_ms`): `choose` for the whole stage, and
    /// per template `fit_NAME` and `screen_NAME` ([`super::fitting::Fitted`]), `screen_others`,
    /// `curve_compete` and `authored` for the checks that ran.
    pub(super) fn choose(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
        ahead: Option<&SkinAhead>,
    ) -> Result<Chosen, RigError> {
        let t = Instant::now();
        let chosen = self.choose_timed(req, prepared, disc, progress, timings, ahead);
        timings.insert("choose".into(), ms_since(t));
        chosen
    }

    /// [`Self::choose`] without the stage's own time.
    fn choose_timed(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
        ahead: Option<&SkinAhead>,
    ) -> Result<Chosen, RigError> {
        if let Template::Curve(mode) = req.skeleton {
            let c = self.curve(req, prepared, disc, mode)?;
            return Ok(Chosen {
                trials: vec![choose::curve_trial(&c, true, String::new())],
                curve: Some(c.report.clone()),
                notes: Vec::new(),
                fit: c.into(),
            });
        }
        let opts = choose::options(&self.config.embed_options(), &req.skeleton, req.orientation);
        // A forced template's fit (search and refinement: one core for a fixed orientation) and
        // the screening of the other templates read only the shared discretization, so they run
        // side by side. The all-pairs paths both read are built first, on every core.
        let screen = |name: &str| {
            let t = Instant::now();
            let screened = self.screen_others(name, disc, &opts, progress);
            (screened, ms_since(t))
        };
        let (fitted, screened) = match &req.skeleton {
            Template::Fixed(s) => {
                disc.graph.paths();
                let (f, (o, ms)) = rayon::join(
                    || self.fit_candidates(req, prepared, disc, &opts, progress, None),
                    || screen(&s.name),
                );
                timings.insert("screen_others".into(), ms);
                (f, Some(o))
            }
            _ => (
                self.fit_candidates(req, prepared, disc, &opts, progress, ahead),
                None,
            ),
        };
        let (fits, first_err, fit_ms) = fitted?;
        timings.extend(fit_ms);
        let Some(best) = choose::best(&fits) else {
            return self.no_template_fits(req, prepared, disc, first_err);
        };
        let (fit, trials) = self.check_best(req, prepared, fits, best, &opts, screened);
        if matches!(req.skeleton, Template::Auto) && fit.confidence.status != Status::Ok {
            let t = Instant::now();
            let chosen = self.curve_competes(req, prepared, disc, fit, trials)?;
            timings.insert("curve_compete".into(), ms_since(t));
            let t = Instant::now();
            let chosen = self.authored_if_turned(req, prepared, disc, &opts, progress, chosen);
            timings.insert("authored".into(), ms_since(t));
            return chosen;
        }
        Ok(Chosen {
            fit,
            trials,
            curve: None,
            notes: Vec::new(),
        })
    }

    /// No template embeds: under `auto` the curve skeleton stands in if it can be built;
    /// otherwise the first error met.
    fn no_template_fits(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        first_err: Option<RigError>,
    ) -> Result<Chosen, RigError> {
        // Under `auto`, a shape no template embeds into may still have a curve skeleton.
        if matches!(req.skeleton, Template::Auto) {
            if let Ok(c) = self.curve(req, prepared, disc, CurveMode::Robust) {
                let note = "no template embeds into this shape; the curve skeleton built from \
                            the mesh's outline was used"
                    .to_string();
                return Ok(Chosen {
                    trials: vec![choose::curve_trial(&c, true, note.clone())],
                    curve: Some(c.report.clone()),
                    notes: vec![note],
                    fit: c.into(),
                });
            }
        }
        Err(first_err.unwrap_or(RigError::Cancelled))
    }

    /// The best fit (index `best` in `fits`) and the trial record, after the "another template
    /// fits far better" (against `screened`, the other templates' screening when the template
    /// was forced), "implausible up" and "head in the tail" checks.
    pub(super) fn check_best(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        mut fits: Vec<Fit>,
        best: usize,
        opts: &embed::EmbedOptions,
        screened: Option<Vec<TemplateTrial>>,
    ) -> (Fit, Vec<TemplateTrial>) {
        let mut others: Vec<(String, f64, bool)> = fits
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != best)
            .map(|(_, f)| (f.skeleton.name.clone(), f.per_chain(), f.embedding.forced))
            .collect();
        let mut trials: Vec<TemplateTrial> = fits
            .iter()
            .enumerate()
            .map(|(i, f)| f.trial(i == best))
            .collect();
        let mut fit = fits.swap_remove(best);
        if let (Template::Fixed(_), Some(screened)) = (&req.skeleton, screened) {
            others.extend(
                screened
                    .iter()
                    .map(|t| (t.template.clone(), t.penalty_per_chain, false)),
            );
            if let Some(reason) = choose::beaten_by_far(&fit, &others) {
                fit.embedding.warnings.push(reason);
            }
            trials.extend(screened);
        } else if let Some(reason) = choose::beaten_by_far(&fit, &others) {
            fit.confidence.lower(reason);
        }
        let after = [
            choose::implausible_up(&fit, opts.orientation),
            choose::head_in_tail(&fit, &prepared.positions, opts.orientation),
        ];
        for reason in after.into_iter().flatten() {
            fit.confidence.lower(reason);
        }
        // The record of the chosen trial shows its final status, after the checks above.
        if let Some(t) = trials.iter_mut().find(|t| t.chosen) {
            t.status = Some(fit.confidence.status);
        }
        (fit, trials)
    }

    /// `auto` with no trustworthy template: the curve skeleton competes (it wins only if it is
    /// `ok`); rig.json's trials and warnings say which won and why, in plain words.
    fn curve_competes(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        fit: Fit,
        mut trials: Vec<TemplateTrial>,
    ) -> Result<Chosen, RigError> {
        let c = match self.curve(req, prepared, disc, CurveMode::Robust) {
            Ok(c) => c,
            Err(e) if e.is_cancelled() => return Err(e),
            Err(e) => {
                trials.push(TemplateTrial {
                    template: crate::curveskel::METHOD_NAME.into(),
                    note: e.to_string(),
                    ..TemplateTrial::default()
                });
                return Ok(Chosen {
                    fit,
                    trials,
                    curve: None,
                    notes: Vec::new(),
                });
            }
        };
        if let Some(why) = choose::curve_wins(&fit, &c) {
            trials.iter_mut().for_each(|t| t.chosen = false);
            trials.push(choose::curve_trial(&c, true, why.clone()));
            return Ok(Chosen {
                curve: Some(c.report.clone()),
                fit: c.into(),
                trials,
                notes: vec![why],
            });
        }
        let reason = c.confidence.reasons.first().cloned().unwrap_or_default();
        trials.push(choose::curve_trial(
            &c,
            false,
            format!("the curve skeleton is not trustworthy either: {reason}"),
        ));
        Ok(Chosen {
            fit,
            trials,
            curve: None,
            notes: Vec::new(),
        })
    }

    /// The curve-skeleton method on the prepared mesh, with the request's hints (pins by joint
    /// name, branch ends added or deleted) mapped to the normalized frame.
    fn curve(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        mode: CurveMode,
    ) -> Result<crate::curveskel::CurveFit, RigError> {
        let norm = &prepared.normalization;
        let to_norm = |p: &[f64; 3]| norm.to_normalized(&crate::geom::P3::from(*p));
        let mut hints = crate::curveskel::CurveHints::default();
        if let Some((h, hp)) = &req.hints {
            h.check_positions(&prepared.input.aabb(), hp)?;
            hints.pins = h
                .hints
                .iter()
                .map(|j| (j.joint.clone(), to_norm(&j.position)))
                .collect();
            if let Some(c) = &h.curve {
                hints.add_ends = c.add_ends.iter().map(to_norm).collect();
                hints.remove_ends = c.remove_ends.iter().map(to_norm).collect();
            }
        }
        let opts = crate::curveskel::CurveOptions { mode, view: None };
        let inside = |p: &crate::geom::P3| {
            crate::discretize::Field::eval(&disc.field, p) < crate::confidence::OUTSIDE_TOLERANCE
        };
        let fit = crate::curveskel::build(prepared, &inside, &hints, &opts).map_err(|e| {
            RigError::Embed {
                path: req.mesh_path.clone(),
                source: embed::EmbedError::NoMatch {
                    skeleton: crate::curveskel::METHOD_NAME.into(),
                    reason: e.to_string(),
                },
            }
        })?;
        // A pin naming no joint of this skeleton is a typo or a template's joint: an error, not
        // a rig that quietly ignores the user's hint (under `auto` the templates' error is shown).
        if let Some((h, hp)) = &req.hints {
            h.check_joints(&fit.skeleton, hp)?;
        }
        Ok(fit)
    }

    /// Hints resolved against `skel` (none without a hints file).
    pub(super) fn hints_for(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        skel: &Skeleton,
    ) -> Result<Vec<ResolvedHint>, RigError> {
        let bbox = prepared.input.aabb();
        Ok(match &req.hints {
            Some((h, hp)) => h.resolve(skel, &prepared.normalization, &bbox, hp)?,
            None => Vec::new(),
        })
    }

    /// With a template the user forced: screen the other shipped templates (greedy dives only, in
    /// the same orientation mode; cheap) so that a far better fit can be reported. Only unforced
    /// screened fits count: their penalty is a real, complete embedding's.
    fn screen_others(
        &self,
        forced: &str,
        disc: &Discretization,
        opts: &embed::EmbedOptions,
        progress: &dyn Progress,
    ) -> Vec<TemplateTrial> {
        let cancelled = || progress.cancelled();
        choose::AUTO_TEMPLATES
            .iter()
            .filter(|n| !n.eq_ignore_ascii_case(forced))
            .filter_map(|n| crate::skeleton::load_template(n).ok())
            .filter_map(|s| {
                let (o, total, forced) = embed::screen_with(&disc.graph, &s, opts, &cancelled)?;
                (!forced).then(|| TemplateTrial {
                    template: s.name.clone(),
                    orientation: o.label(),
                    penalty: total,
                    penalty_per_chain: choose::per_chain(total, &s),
                    status: None,
                    chosen: false,
                    note: "screened".into(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::judge_fixture::Judge;
    use super::*;
    use crate::embed::Orientation;

    /// The demo quadruped (head raised at +Z, tail hanging at −Z) with the quadruped template
    /// embedded facing each way of +Y up, judged as the choice judges the chosen fit: head in
    /// the tail must be `low_confidence` and say so; the right facing must not be told.
    #[test]
    fn a_quadruped_with_its_head_in_the_tail_is_low_confidence() {
        let judge = Judge::new(crate::demo::quadruped(1).mesh, "animal.obj");
        let judged = |facing: &str| {
            judge
                .judged("quadruped", Orientation::parse(facing).unwrap())
                .0
        };
        let swapped = |f: &Fit| {
            f.confidence
                .reasons
                .iter()
                .any(|r| r.contains("head and tail may be swapped"))
        };
        let right = judged("+y,+z");
        assert!(!swapped(&right), "{:?}", right.confidence.reasons);
        let turned = judged("+y,-z");
        assert_eq!(turned.confidence.status, Status::LowConfidence);
        assert!(swapped(&turned), "{:?}", turned.confidence.reasons);
    }
}
