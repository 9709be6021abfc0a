//! The top-level rig function: it only chains stages (load → prepare → discretize → embed/refine →
//! confidence → skin) and caches what does not depend on hints or the skeleton.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::choose::{Fit, Template};
use crate::config::RigConfig;
use crate::discretize::Discretization;
use crate::embed::hints::Hints;
use crate::embed::{Embedding, OrientationMode, PENALTY_TERMS};
use crate::error::RigError;
use crate::mesh::{self, PreparedMesh};
use crate::progress::{Progress, Stage};
use crate::rig::{Rig, RigJoint, RigPenalty};
use crate::skeleton::Skeleton;
use crate::skin::{self, Skin};
use crate::util::ms_since;

mod ahead;
mod attach;
mod authored;
mod cache;
mod choosing;
mod edit;
mod finer;
mod fitting;
mod judge;
#[cfg(test)]
mod judge_fixture;
mod multi;
mod rechoose;
use ahead::SkinAhead;
pub use attach::{AttachRequest, Attached};
use cache::Cached;
use choosing::Chosen;
pub use edit::EditBase;
pub use multi::Method;

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
    /// Rig each mesh once and keep nothing ([`Pipeline::one_shot`]).
    one_shot: bool,
}

impl Pipeline {
    /// A pipeline with `config` and an empty cache.
    pub fn new(config: RigConfig) -> Self {
        Self {
            config,
            cache: Mutex::new(Vec::new()),
            one_shot: false,
        }
    }

    /// A pipeline that rigs each mesh once (`geppetto rig`: distinct files, then the process
    /// ends): it keeps no discretization for a re-run, so no mesh's content is hashed for the
    /// cache key, and each discretization is freed with its rig instead of staying in the
    /// cache until the batch ends. Same rigs as [`Pipeline::new`]: a cache hit only skips work
    /// whose result is the same.
    pub fn one_shot(config: RigConfig) -> Self {
        Self {
            one_shot: true,
            ..Self::new(config)
        }
    }

    /// Rig one mesh: the stages in order. Hint re-runs reuse the cached discretization.
    pub fn rig(&self, req: &RigRequest, progress: &dyn Progress) -> Result<RigOutcome, RigError> {
        self.rig_noting(req, progress, &mut Vec::new())
    }

    /// [`Self::rig`], putting in `seen` the files besides the mesh that the load read or looked
    /// for (a `.gltf`'s buffers, an `.obj`'s `.mtl`) and the edits sidecar the skin stage
    /// replays, also when a later stage fails: a watcher re-rigs the asset when one of them
    /// changes, e.g. a `.bin` whose first geometry was flat, or a hand-edited `NAME.edits.yaml`.
    pub fn rig_noting(
        &self,
        req: &RigRequest,
        progress: &dyn Progress,
        seen: &mut Vec<mesh::load::Companion>,
    ) -> Result<RigOutcome, RigError> {
        let t_total = Instant::now();
        let path = &req.mesh_path;
        let mut timings = BTreeMap::new();
        let (mesh, source, key) = self.load_noting(req, progress, &mut timings, seen)?;
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
        let (disc, reused, heat) = match cached {
            Some((_, d)) => (d, true, self.heat_cache(key)),
            None => {
                let (disc, heat) =
                    self.discretize_and_heat(req, key, &prepared, progress, &mut timings);
                (disc?, false, heat)
            }
        };

        let src = source.as_deref();
        check(progress, Stage::Embed)?;
        let ahead = (req.skin && matches!(req.skeleton, Template::Auto)).then(|| {
            let skin_opts = attach::skin_options(&self.config.skin, &prepared);
            SkinAhead::new(&prepared, Arc::clone(&disc), heat.as_deref(), skin_opts)
        });
        let chosen = self.choose(
            req,
            &prepared,
            &disc,
            progress,
            &mut timings,
            ahead.as_ref(),
        )?;
        let (disc, chosen) =
            self.finer_if_low(req, key, &prepared, (disc, chosen), progress, &mut timings)?;
        let (mut rig, fit) = rig_from_choice(req, &prepared, &disc, chosen, src, &mut timings);
        let t = Instant::now();
        judge::pieces(&prepared, &mut rig, &fit);
        timings.insert("judge_pieces".into(), ms_since(t));
        let skin = if req.skin {
            check(progress, Stage::Skin)?;
            let heat = (heat.as_deref(), ahead.as_ref());
            Some(self.skin_stage(path, &prepared, &disc, heat, &mut rig, &mut timings)?)
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
            embedding: fit.embedding,
            skin,
            reused_discretization: reused,
            source,
        })
    }

    /// The skin stage: heat-diffusion weights for `rig`'s joints (reusing `heat`'s system when
    /// given, or the skin made ahead for these joints, [`ahead`]), then the edit sidecar replayed
    /// onto rig and weights. A skin made ahead records its time as `skin` and `skin_ahead`.
    fn skin_stage(
        &self,
        path: &Path,
        prepared: &PreparedMesh,
        disc: &Discretization,
        (heat, ahead): (Option<&skin::SystemCache>, Option<&SkinAhead>),
        rig: &mut Rig,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<Skin, RigError> {
        let t = Instant::now();
        let made = match ahead.and_then(|a| a.take(disc, &rig.joints)) {
            Some((made, ms)) => {
                timings.insert("skin_ahead".into(), ms);
                timings.insert("skin".into(), ms);
                made
            }
            None => {
                let skin_opts = attach::skin_options(&self.config.skin, prepared);
                let made = skin::skin_cached(prepared, &disc.field, &rig.joints, &skin_opts, heat);
                timings.insert("skin".into(), ms_since(t));
                made
            }
        };
        let mut s = made.map_err(|source| RigError::Skin {
            path: path.to_path_buf(),
            source,
        })?;
        timings.extend(s.stats.timings().map(|(k, ms)| (k.to_string(), ms)));
        let field = &disc.field;
        edit::replay_sidecar(prepared, field, rig, &mut s, &self.config.skin, timings)?;
        rig.warnings.extend(s.warnings.iter().cloned());
        rig.skin = Some(s.weights.clone());
        judge::articulation(prepared, rig, &s);
        Ok(s)
    }
}

/// The rig (without skin) from the chosen fit: trials, notes, the curve report when the curve
/// method made the joints, the source's warnings and the discretization's stats; with the fit.
fn rig_from_choice(
    req: &RigRequest,
    prepared: &PreparedMesh,
    disc: &Discretization,
    chosen: Chosen,
    source: Option<&mesh::load::SourceDocument>,
    timings: &mut BTreeMap<String, f64>,
) -> (Rig, Fit) {
    for (name, ms) in &chosen.fit.embedding.timings_ms {
        timings.insert((*name).to_string(), *ms);
    }
    let Chosen {
        fit,
        trials,
        curve,
        notes,
    } = chosen;
    let mut rig = build_rig(req, prepared, &fit);
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
    if let Some(src) = source {
        rig.warnings.extend(src.warnings.iter().cloned());
    }
    rig.stats = discretization_stats(disc);
    (rig, fit)
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

/// Report entering `stage`, or stop if cancelled.
fn check(progress: &dyn Progress, stage: Stage) -> Result<(), RigError> {
    if progress.cancelled() {
        return Err(RigError::Cancelled);
    }
    progress.enter(stage);
    Ok(())
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

/// The rig's joints (mesh frame) of `fit`.
fn rig_joints(prepared: &PreparedMesh, fit: &Fit) -> Vec<RigJoint> {
    let norm = &prepared.normalization;
    fit.skeleton
        .joints
        .iter()
        .zip(&fit.embedding.joints)
        .map(|(j, p)| {
            let q = norm.to_mesh(p);
            RigJoint {
                name: j.name.clone(),
                parent: j.parent.map(|p| p.0),
                position: [q.x, q.y, q.z],
                end: j.end,
            }
        })
        .collect()
}

/// Assemble the rig record (mesh frame) from the stage outputs.
fn build_rig(req: &RigRequest, prepared: &PreparedMesh, fit: &Fit) -> Rig {
    let (emb, conf) = (&fit.embedding, &fit.confidence);
    let joints = rig_joints(prepared, fit);
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
