//! The top-level rig function: it only chains stages (load → prepare → discretize → embed/refine →
//! confidence → skin) and caches what does not depend on hints or the skeleton.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::choose::{self, Fit, Template, TemplateTrial};
use crate::confidence;
use crate::config::RigConfig;
use crate::curveskel::CurveMode;
use crate::discretize::{self, Discretization};
use crate::embed::hints::Hints;
use crate::embed::hints::ResolvedHint;
use crate::embed::{self, Embedding, OrientationMode, PENALTY_TERMS};
use crate::error::RigError;
use crate::mesh::{self, PreparedMesh};
use crate::progress::{Progress, Stage};
use crate::rig::Status;
use crate::rig::{Rig, RigJoint, RigPenalty};
use crate::skeleton::Skeleton;
use crate::skin::{self, Skin};
use crate::util::ms_since;

mod attach;
mod edit;
mod multi;
mod rechoose;
pub use attach::{AttachRequest, Attached};
pub use edit::EditBase;
pub use multi::Method;

/// How many meshes' discretizations the cache keeps.
const CACHE_CAPACITY: usize = 16;

/// What to rig and how.
#[derive(Clone, Debug)]
pub struct RigRequest {
    /// The mesh file.
    pub mesh_path: PathBuf,
    /// The template to embed, or `auto` (see [`crate::choose`]).
    pub skeleton: Template,
    /// Hints and the file they came from (for error messages), if any.
    pub hints: Option<(Hints, PathBuf)>,
    /// Orientation choice.
    pub orientation: OrientationMode,
    /// Compute skin weights too.
    pub skin: bool,
    /// Template embedding, the multi-component method, or the choice by shape (`auto`).
    pub method: Method,
}

impl RigRequest {
    /// A request with the sidecar hints (`NAME.hints.yaml`) if present, default orientation, skin on.
    pub fn with_sidecar(mesh_path: &Path, skeleton: impl Into<Template>) -> Result<Self, RigError> {
        let hints = Hints::load_sidecar(mesh_path)?
            .map(|h| (h, crate::embed::hints::sidecar_path(mesh_path)));
        Ok(Self {
            mesh_path: mesh_path.to_path_buf(),
            skeleton: skeleton.into(),
            hints,
            orientation: OrientationMode::Default,
            skin: true,
            method: Method::Auto,
        })
    }
}

/// Everything a rig run produced, for writers and the UI.
#[derive(Clone, Debug)]
pub struct RigOutcome {
    /// The rig (what `rig.json` holds).
    pub rig: Rig,
    /// The prepared mesh (input mesh inside).
    pub prepared: Arc<PreparedMesh>,
    /// The discretization (cached across hint re-runs); `None` on the multi-component path, which
    /// needs none.
    pub discretization: Option<Arc<Discretization>>,
    /// The template of the rig (the chosen one under `auto`).
    pub skeleton: Arc<Skeleton>,
    /// The embedding, normalized frame.
    pub embedding: Embedding,
    /// Skin weights and shell report, if requested.
    pub skin: Option<Skin>,
    /// True if the discretization came from the cache (a hint re-run).
    pub reused_discretization: bool,
    /// The input file's document (materials, textures, structure) the GLB is written into.
    pub source: Option<Arc<mesh::load::SourceDocument>>,
}

type Cached = (u64, Arc<PreparedMesh>, Arc<Discretization>);

/// What [`Pipeline::discretized`] returns: the prepared mesh, its discretization, whether both
/// came from the cache, and the input's document (always read fresh: textures may change alone).
pub type Discretized = (
    Arc<PreparedMesh>,
    Arc<Discretization>,
    bool,
    Option<Arc<mesh::load::SourceDocument>>,
);

/// The engine with its configuration and a cache of discretizations keyed by mesh content.
/// Shareable across threads.
#[derive(Debug, Default)]
pub struct Pipeline {
    /// Engine settings.
    pub config: RigConfig,
    cache: Mutex<Vec<Cached>>,
}

impl Pipeline {
    /// A pipeline with `config` and an empty cache.
    pub fn new(config: RigConfig) -> Self {
        Self {
            config,
            cache: Mutex::new(Vec::new()),
        }
    }

    fn cache_get(&self, key: u64) -> Option<(Arc<PreparedMesh>, Arc<Discretization>)> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let pos = cache.iter().position(|c| c.0 == key)?;
        let entry = cache.remove(pos);
        let found = (entry.1.clone(), entry.2.clone());
        cache.push(entry); // most recently used last
        Some(found)
    }

    fn cache_put(&self, key: u64, prepared: Arc<PreparedMesh>, disc: Arc<Discretization>) {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|c| c.0 != key);
        if cache.len() >= CACHE_CAPACITY {
            cache.remove(0);
        }
        cache.push((key, prepared, disc));
    }

    /// Load, prepare and discretize `path`, or take both from the cache. Returns the timings of the
    /// stages actually run and whether the cache was used.
    pub fn discretized(
        &self,
        path: &Path,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<Discretized, RigError> {
        let (mesh, source, key) = self.load(path, progress, timings)?;
        if let Some((prepared, disc)) = self.cache_get(key) {
            return Ok((prepared, disc, true, source));
        }
        let prepared = Arc::new(prepare(path, mesh, progress, timings)?);
        let disc = self.discretize_stage(path, key, &prepared, progress, timings)?;
        Ok((prepared, disc, false, source))
    }

    /// Discretize `prepared` (key: its cache key) and cache both.
    fn discretize_stage(
        &self,
        path: &Path,
        key: u64,
        prepared: &Arc<PreparedMesh>,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<Arc<Discretization>, RigError> {
        let disc = discretize::discretize(prepared, &self.config.discretize, progress).map_err(
            |source| RigError::Discretize {
                path: path.to_path_buf(),
                source,
            },
        )?;
        for (name, ms) in &disc.timings_ms {
            timings.insert((*name).to_string(), *ms);
        }
        let disc = Arc::new(disc);
        self.cache_put(key, prepared.clone(), disc.clone());
        Ok(disc)
    }

    /// Load `path` (the load stage): the mesh, the file's own document (glTF, textured OBJ, FBX) and the cache key (mesh content and discretization options).
    fn load(
        &self,
        path: &Path,
        progress: &dyn Progress,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<(mesh::Mesh, Option<Arc<mesh::load::SourceDocument>>, u64), RigError> {
        let loaded = run_stage(progress, Stage::Load, timings, || {
            mesh::load::load_with_source(path).map_err(|source| RigError::Load {
                path: path.to_path_buf(),
                source,
            })
        })?;
        let (mesh, source) = (loaded.mesh, loaded.source.map(Arc::new));
        let key = mesh.content_hash() ^ options_hash(&self.config);
        Ok((mesh, source, key))
    }

    /// Rig one mesh: the stages in order. Hint re-runs reuse the cached discretization.
    pub fn rig(&self, req: &RigRequest, progress: &dyn Progress) -> Result<RigOutcome, RigError> {
        let t_total = Instant::now();
        let path = &req.mesh_path;
        let mut timings = BTreeMap::new();
        let (mesh, source, key) = self.load(path, progress, &mut timings)?;
        let cached = self.cache_get(key);
        let prepared = match &cached {
            Some((p, _)) => p.clone(),
            None => Arc::new(prepare(path, mesh, progress, &mut timings)?),
        };
        // An explicit `--skeleton curve` asks for the shape's own skeleton: it reads the outline of
        // every part together, so it never takes the multi-component path (which maps templates).
        let curve_asked = matches!(req.skeleton, Template::Curve(_));
        if !curve_asked && multi::use_multipart(req.method, &prepared) {
            return self.rig_multipart(req, prepared, source, timings, t_total, progress);
        }
        let (disc, reused) = match cached {
            Some((_, d)) => (d, true),
            None => (
                self.discretize_stage(path, key, &prepared, progress, &mut timings)?,
                false,
            ),
        };

        check(progress, Stage::Embed)?;
        let chosen = self.choose(req, &prepared, &disc, progress)?;
        for (name, ms) in &chosen.fit.embedding.timings_ms {
            timings.insert((*name).to_string(), *ms);
        }
        let Chosen {
            fit,
            trials,
            curve,
            notes,
        } = chosen;
        let mut rig = build_rig(req, &prepared, &fit);
        rig.templates = trials;
        rig.warnings.extend(notes);
        if let Some(mut report) = curve {
            rig.method = crate::curveskel::METHOD_NAME.into();
            // Times live in rig.json's `timings_ms` only (the report's copy is not serialized).
            for (name, ms) in std::mem::take(&mut report.timings_ms) {
                timings.insert(format!("curve_{name}"), ms);
            }
            rig.curve = Some(report);
        }
        if let Some(src) = &source {
            rig.warnings.extend(src.warnings.iter().cloned());
        }
        rig.stats = discretization_stats(&disc);
        let embedding = fit.embedding;

        let skin = if req.skin {
            check(progress, Stage::Skin)?;
            let t = Instant::now();
            let skin_opts = attach::skin_options(&self.config.skin, &prepared);
            let mut s =
                skin::skin(&prepared, &disc.field, &rig.joints, &skin_opts).map_err(|source| {
                    RigError::Skin {
                        path: path.clone(),
                        source,
                    }
                })?;
            timings.insert("skin".into(), ms_since(t));
            timings.extend(s.stats.timings().map(|(k, ms)| (k.to_string(), ms)));
            let field = &disc.field;
            edit::replay_sidecar(
                &prepared,
                field,
                &mut rig,
                &mut s,
                &self.config.skin,
                &mut timings,
            );
            rig.warnings.extend(s.warnings.iter().cloned());
            rig.skin = Some(s.weights.clone());
            Some(s)
        } else {
            None
        };
        timings.insert("total".into(), ms_since(t_total));
        rig.timings_ms = timings;
        Ok(RigOutcome {
            rig,
            prepared,
            discretization: Some(disc),
            skeleton: fit.skeleton,
            embedding,
            skin,
            reused_discretization: reused,
            source,
        })
    }
}

/// The prepare stage (weld, shells, repairs, normalization) of `mesh`, read from `path`.
fn prepare(
    path: &Path,
    mesh: mesh::Mesh,
    progress: &dyn Progress,
    timings: &mut BTreeMap<String, f64>,
) -> Result<PreparedMesh, RigError> {
    run_stage(progress, Stage::Prepare, timings, || {
        mesh::prepare(mesh).map_err(|source| RigError::Prepare {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// Enter `stage` (or stop if cancelled), run it, and record its time under the stage's name.
fn run_stage<T>(
    progress: &dyn Progress,
    stage: Stage,
    timings: &mut BTreeMap<String, f64>,
    run: impl FnOnce() -> Result<T, RigError>,
) -> Result<T, RigError> {
    check(progress, stage)?;
    let t = Instant::now();
    let out = run()?;
    timings.insert(stage.name().into(), ms_since(t));
    Ok(out)
}

/// The chosen fit and the record of every template tried.
struct Chosen {
    fit: Fit,
    trials: Vec<TemplateTrial>,
    /// The curve-skeleton report when the curve method made the joints.
    curve: Option<crate::rig::CurveReport>,
    /// Plain-language notes on the choice (rig.json `warnings`).
    notes: Vec<String>,
}

impl Pipeline {
    /// Embed and assess each candidate template (one, or every shipped one under `auto`) on the
    /// shared discretization, keep the best (see [`choose::best`]); apply the "another template fits
    /// far better" check. Templates are tried one after another in a fixed order, so the choice does
    /// not depend on threads.
    fn choose(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        disc: &Discretization,
        progress: &dyn Progress,
    ) -> Result<Chosen, RigError> {
        let path = &req.mesh_path;
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
        let mut fits = Vec::new();
        let mut first_err: Option<RigError> = None;
        for skel in req.skeleton.candidates()? {
            let hints = match self.hints_for(req, prepared, &skel) {
                Ok(h) => h,
                // Under `auto`, hints name one template's joints; the others are skipped.
                Err(e) if matches!(req.skeleton, Template::Auto) => {
                    first_err.get_or_insert(e);
                    continue;
                }
                Err(e) => return Err(e),
            };
            // Branch and bound across templates: once one is `ok`, another can only win by being
            // `ok` with a lower per-chain penalty, so its search may stop at that penalty.
            let mut opts = opts.clone();
            if let Some(pc) = choose::best_ok_per_chain(&fits) {
                opts.cutoff = (pc * choose::chains(&skel) as f64).min(1.0);
            }
            let embed_fn = |s: &Skeleton| embed::embed(disc, s, &hints, &opts, progress);
            let assess_fn = |s: &Skeleton, e: &Embedding| confidence::assess(prepared, disc, s, e);
            match choose::fit(skel, &embed_fn, &assess_fn) {
                Ok(mut f) => {
                    let inp = crate::rechoose::Inputs {
                        mesh: prepared,
                        disc,
                        skel: &f.skeleton.clone(),
                        hints: &hints,
                        opts: &opts,
                    };
                    rechoose::apply(&mut f, &inp, path, progress)?;
                    fits.push(f);
                }
                Err(source) => {
                    let e = RigError::Embed {
                        path: path.clone(),
                        source,
                    };
                    if e.is_cancelled() {
                        return Err(e);
                    }
                    first_err.get_or_insert(e);
                }
            }
        }
        let Some(best) = choose::best(&fits) else {
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
            return Err(first_err.unwrap_or(RigError::Cancelled));
        };
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
        if let Template::Fixed(_) = req.skeleton {
            let screened = self.screen_others(&fit, disc, &opts, progress);
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
            fit.confidence.status = crate::rig::Status::LowConfidence;
            fit.confidence.reasons.push(reason);
        }
        if let Some(reason) = choose::implausible_up(&fit, opts.orientation) {
            fit.confidence.status = crate::rig::Status::LowConfidence;
            fit.confidence.reasons.push(reason);
        }
        // The record of the chosen trial shows its final status, after the checks above.
        if let Some(t) = trials.iter_mut().find(|t| t.chosen) {
            t.status = Some(fit.confidence.status);
        }
        if matches!(req.skeleton, Template::Auto) && fit.confidence.status != Status::Ok {
            return self.curve_competes(req, prepared, disc, fit, trials);
        }
        Ok(Chosen {
            fit,
            trials,
            curve: None,
            notes: Vec::new(),
        })
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
        if let Some((h, _)) = &req.hints {
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
        crate::curveskel::build(prepared, &inside, &hints, &opts).map_err(|e| RigError::Embed {
            path: req.mesh_path.clone(),
            source: embed::EmbedError::NoMatch {
                skeleton: crate::curveskel::METHOD_NAME.into(),
                reason: e.to_string(),
            },
        })
    }

    /// Hints resolved against `skel` (none without a hints file).
    fn hints_for(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        skel: &Skeleton,
    ) -> Result<Vec<ResolvedHint>, RigError> {
        let extent = prepared.input.aabb().max_extent();
        Ok(match &req.hints {
            Some((h, hp)) => h.resolve(skel, &prepared.normalization, extent, hp)?,
            None => Vec::new(),
        })
    }

    /// With a template the user forced: screen the other shipped templates (greedy dives only, in
    /// the same orientation mode; cheap) so that a far better fit can be reported. Only unforced
    /// screened fits count: their penalty is a real, complete embedding's.
    fn screen_others(
        &self,
        fit: &Fit,
        disc: &Discretization,
        opts: &embed::EmbedOptions,
        progress: &dyn Progress,
    ) -> Vec<TemplateTrial> {
        let cancelled = || progress.cancelled();
        choose::AUTO_TEMPLATES
            .iter()
            .filter(|n| !n.eq_ignore_ascii_case(&fit.skeleton.name))
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

/// Report entering `stage`, or stop if cancelled.
fn check(progress: &dyn Progress, stage: Stage) -> Result<(), RigError> {
    if progress.cancelled() {
        return Err(RigError::Cancelled);
    }
    progress.enter(stage);
    Ok(())
}

/// Discretization depends on these options too, so they are part of the cache key.
fn options_hash(config: &RigConfig) -> u64 {
    let d = &config.discretize;
    d.tolerance.to_bits().rotate_left(7)
        ^ u64::from(d.max_depth).rotate_left(29)
        ^ (d.max_spheres as u64).rotate_left(43)
}

/// Sizes of the discretization, for `geppetto bench` (rig.json `stats`).
fn discretization_stats(disc: &Discretization) -> BTreeMap<String, f64> {
    let edges: usize = disc.graph.edges.iter().map(Vec::len).sum::<usize>() / 2;
    BTreeMap::from([
        (
            "graph_vertices".to_string(),
            disc.graph.spheres.len() as f64,
        ),
        ("graph_edges".to_string(), edges as f64),
        (
            "medial_samples".to_string(),
            disc.medial.samples.len() as f64,
        ),
    ])
}

/// Assemble the rig record (mesh frame) from the stage outputs.
fn build_rig(req: &RigRequest, prepared: &PreparedMesh, fit: &Fit) -> Rig {
    let (emb, conf) = (&fit.embedding, &fit.confidence);
    let norm = &prepared.normalization;
    let joints = fit
        .skeleton
        .joints
        .iter()
        .zip(&emb.joints)
        .map(|(j, p)| {
            let q = norm.to_mesh(p);
            RigJoint {
                name: j.name.clone(),
                parent: j.parent.map(|p| p.0),
                position: [q.x, q.y, q.z],
                end: j.end,
            }
        })
        .collect();
    let terms = PENALTY_TERMS
        .iter()
        .zip(emb.penalty.terms)
        .map(|(n, v)| ((*n).to_string(), v))
        .collect();
    let bb = prepared.input.aabb();
    let mut warnings = emb.warnings.clone();
    warnings.extend(fit.rechoice.iter().map(|r| r.reason.clone()));
    warnings.extend(conf.reasons.iter().map(|r| format!("low confidence: {r}")));
    Rig {
        curve: None,
        mesh: req.mesh_path.display().to_string(),
        skeleton: fit.skeleton.name.clone(),
        status: conf.status,
        confidence_reasons: conf.reasons.clone(),
        orientation: emb.orientation.label(),
        joints,
        penalty: RigPenalty {
            total: emb.penalty.total,
            terms,
        },
        warnings,
        hints: req
            .hints
            .as_ref()
            .map(|(h, _)| h.hints.clone())
            .unwrap_or_default(),
        repair: prepared.report.clone(),
        timings_ms: BTreeMap::new(),
        bbox: [
            [bb.min.x, bb.min.y, bb.min.z],
            [bb.max.x, bb.max.y, bb.max.z],
        ],
        vertex_count: prepared.input.positions.len(),
        skin: None,
        stats: BTreeMap::new(),
        templates: Vec::new(),
        method: crate::rig::METHOD_EMBED.into(),
        multipart: None,
        rechoice: fit.rechoice.clone(),
    }
}

/// The name of a mesh's output files and sidecar; the rule lives in [`crate::naming`].
pub use crate::naming::asset_name;
