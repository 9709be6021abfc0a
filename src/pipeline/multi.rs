//! The multi-component path of [`Pipeline::rig`]: the method choice, the multipart fit made into a
//! [`Fit`] (so the rig record, export, thumbnails and scoring are shared with the embedding path),
//! and rigid skin.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use super::{build_rig, check, Pipeline, RigOutcome, RigRequest};
use crate::choose::{self, Fit, Template, AUTHORED_FRAMES};
use crate::confidence::{feet, Confidence};
use crate::embed::hints::ResolvedHint;
use crate::embed::{Embedding, Orientation, OrientationMode};
use crate::error::RigError;
use crate::geom::JointId;
use crate::mesh::{self, PreparedMesh};
use crate::multipart::{self, MultipartFit, MultipartOptions};
use crate::progress::{Progress, Stage};
use crate::rig::{Status, TemplateTrial, METHOD_MULTIPART};
use crate::skeleton::Skeleton;
use crate::util::ms_since;

/// Which method makes the joints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// By shape: the multi-component method for many parts with none dominant
    /// ([`multipart::detect`]), else the template embedding.
    #[default]
    Auto,
    /// Template embedding (Baran & Popović 2007).
    Embed,
    /// Multi-component method (Bharaj et al. 2012).
    Multi,
}

impl Method {
    /// `auto`, `embed` or `multi`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "embed" => Some(Self::Embed),
            "multi" | "multipart" => Some(Self::Multi),
            _ => None,
        }
    }
}

/// True if `method` sends `prepared` down the multi-component path.
pub(super) fn use_multipart(method: Method, prepared: &PreparedMesh) -> bool {
    match method {
        Method::Embed => false,
        Method::Multi => true,
        Method::Auto => {
            multipart::detect(prepared).multipart || crate::boxfig::detect(prepared).is_some()
        }
    }
}

/// A multipart fit of `skel` with its template, as the embedding path's [`Fit`].
fn as_fit(
    skel: Arc<Skeleton>,
    f: &MultipartFit,
    orientation: Orientation,
    pinned: Vec<crate::geom::JointId>,
    ms: f64,
) -> Fit {
    let embedding = Embedding {
        joints: f.joints.clone(),
        discrete: Vec::new(),
        orientation,
        penalty: Default::default(),
        budget_hit: false,
        nodes_expanded: 0,
        warnings: f.warnings.clone(),
        timings_ms: vec![("multipart", ms)],
        forced: false,
        bridged: Vec::new(),
        pinned,
    };
    let status = if f.reasons.is_empty() {
        Status::Ok
    } else {
        Status::LowConfidence
    };
    Fit {
        skeleton: skel,
        embedding,
        confidence: Confidence {
            status,
            reasons: f.reasons.clone(),
        },
        rechoice: None,
    }
}

/// Mean Q of the primary limbs: how well a template's limbs matched the part tree.
fn mean_primary_cost(f: &MultipartFit) -> f64 {
    let q: Vec<f64> = f
        .report
        .limbs
        .iter()
        .filter(|l| l.primary)
        .map(|l| l.cost)
        .collect();
    if q.is_empty() {
        f64::INFINITY
    } else {
        q.iter().sum::<f64>() / q.len() as f64
    }
}

impl Pipeline {
    /// Rig with the multi-component method: each candidate template mapped onto the part tree;
    /// under `auto` the one with fewer confidence reasons, then the lower mean limb cost, wins.
    pub(super) fn rig_multipart(
        &self,
        req: &RigRequest,
        prepared: Arc<PreparedMesh>,
        source: Option<Arc<mesh::load::SourceDocument>>,
        mut timings: BTreeMap<String, f64>,
        t_total: Instant,
        progress: &dyn Progress,
    ) -> Result<RigOutcome, RigError> {
        check(progress, Stage::Embed)?;
        let mut fits = match crate::boxfig::detect(&prepared) {
            Some(tree) => self.box_fits(req, &prepared, &tree)?,
            None => self.multipart_fits(req, &prepared)?,
        };
        let best = best_multipart(&fits).ok_or(RigError::Cancelled)?;
        let trials = multipart_trials(&fits, best);
        let (fit, mut mf) = fits.swap_remove(best);
        // Times live in rig.json's `timings_ms` only (the report's copy is not serialized).
        for (name, ms) in std::mem::take(&mut mf.report.times_ms) {
            timings.insert(format!("multipart_{name}"), ms);
        }
        let mut rig = build_rig(req, &prepared, &fit);
        rig.method = METHOD_MULTIPART.into();
        rig.multipart = Some(mf.report.clone());
        rig.templates = if trials.len() > 1 { trials } else { Vec::new() };
        if let Some(src) = &source {
            rig.warnings.extend(src.warnings.iter().cloned());
        }
        let mut skin = req
            .skin
            .then(|| rigid_skin(&prepared, &fit, &mut rig, &mf, &mut timings));
        if let Some(s) = skin.as_mut() {
            self.replay_edits(&prepared, &mut rig, s, &mut timings)?;
        }
        timings.insert("total".into(), ms_since(t_total));
        rig.timings_ms = timings;
        Ok(RigOutcome {
            rig,
            prepared,
            discretization: None,
            skeleton: fit.skeleton,
            embedding: fit.embedding,
            skin,
            reused_discretization: false,
            source,
        })
    }

    /// Each candidate template mapped onto the part tree ([`multipart::Prepared::fit`]), as a
    /// [`Fit`] with its multipart fit, by [`Pipeline::best_per_template`].
    fn multipart_fits(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
    ) -> Result<Vec<(Fit, MultipartFit)>, RigError> {
        let opts = MultipartOptions::default();
        let failed = |e| RigError::Multipart {
            path: req.mesh_path.clone(),
            source: e,
        };
        let prep = multipart::Prepared::new(prepared, &opts).map_err(failed)?;
        self.best_per_template(req, prepared, |skel, hints, frames| {
            prep.fit(skel, hints, frames).map_err(failed)
        })
    }

    /// Each candidate template laid on a box figure's part tree ([`crate::boxfig`]), by
    /// [`Pipeline::best_per_template`]. Pinned joints (hints) are put where the user pinned them;
    /// the rest stay on the boxes. Boxes symmetric front to back map the same either way round
    /// (mirror images tie exactly, so the mesh's own frame is kept); the feet tell the facing.
    fn box_fits(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        tree: &crate::boxfig::PartTree,
    ) -> Result<Vec<(Fit, MultipartFit)>, RigError> {
        self.best_per_template(req, prepared, |skel, hints, frames| {
            Ok(frames
                .iter()
                .map(|&o| {
                    let mut f = crate::boxfig::fit(prepared, tree, skel, o);
                    for h in hints {
                        f.joints[h.joint.0] = h.position;
                    }
                    box_as_multipart(&f, tree)
                })
                .collect())
        })
    }

    /// Each candidate template mapped by `map` (one fit per frame) in a fixed order (under `auto`,
    /// templates whose hints do not resolve are skipped), keeping its best by [`cmp_key`]. Under an
    /// `auto` orientation every template is mapped in each authored frame
    /// ([`multipart_orientations`], the mesh's own +Y up first): the part tree does not say which
    /// way is up, and a Z-up mesh mapped as Y-up lays the template across it. A frame whose feet
    /// point backwards ([`FeetCheck`]) has its half turn mapped too.
    fn best_per_template(
        &self,
        req: &RigRequest,
        prepared: &PreparedMesh,
        map: impl Fn(&Skeleton, &[ResolvedHint], &[Orientation]) -> Result<Vec<MultipartFit>, RigError>,
    ) -> Result<Vec<(Fit, MultipartFit)>, RigError> {
        let mode = req.skeleton.orientation(req.orientation);
        let orientations = multipart_orientations(mode);
        let mut fits = Vec::new();
        for skel in req.skeleton.candidates()? {
            let hints = match self.hints_for(req, prepared, &skel) {
                Ok(h) => h,
                Err(_) if matches!(req.skeleton, Template::Auto) => continue,
                Err(e) => return Err(e),
            };
            let t = Instant::now();
            let pinned: Vec<JointId> = hints.iter().map(|h| h.joint).collect();
            let mut frames = orientations.clone();
            let mut tried = map(&skel, &hints, &frames)?;
            let feet = FeetCheck {
                positions: &prepared.positions,
                skel: &skel,
                pinned: &pinned,
            };
            let backwards = feet.judge(&mut tried, &frames);
            if mode == OrientationMode::Auto {
                for turned in half_turns(&frames, &backwards) {
                    let mut more = map(&skel, &hints, &[turned])?;
                    feet.judge(&mut more, &[turned]);
                    tried.append(&mut more);
                    frames.push(turned);
                }
            }
            let best = (0..tried.len())
                .min_by(|&a, &b| cmp_key(&tried[a], &tried[b]).then(a.cmp(&b)))
                .ok_or(RigError::Cancelled)?;
            let f = tried.swap_remove(best);
            let fit = as_fit(skel, &f, frames[best], pinned, ms_since(t));
            fits.push((fit, f));
        }
        Ok(fits)
    }
}

impl Pipeline {
    /// The edits sidecar replayed onto a multi-component rig, as the skin stage does for an
    /// embedded one. The local re-solves need a distance field, which this path does not build,
    /// so it is built only when the mesh has a sidecar.
    fn replay_edits(
        &self,
        prepared: &PreparedMesh,
        rig: &mut crate::rig::Rig,
        skin: &mut crate::skin::Skin,
        timings: &mut BTreeMap<String, f64>,
    ) -> Result<(), RigError> {
        let mesh_path = std::path::Path::new(&rig.mesh);
        if !crate::edit::sidecar::sidecar_path(mesh_path).is_file() {
            return Ok(());
        }
        let field = crate::discretize::field::build(prepared, &self.config.discretize);
        super::edit::replay_sidecar(prepared, &field, rig, skin, &self.config.skin, timings)
    }
}

/// A box-figure fit in the multi-component path's record.
fn box_as_multipart(b: &crate::boxfig::BoxFit, tree: &crate::boxfig::PartTree) -> MultipartFit {
    let limbs = b
        .limb_costs
        .iter()
        .filter_map(|(name, c)| {
            c.map(|cost| multipart::LimbMap {
                limb: name.clone(),
                parts: 1,
                cost,
                primary: true,
            })
        })
        .collect();
    let unmapped_limbs = b
        .limb_costs
        .iter()
        .filter(|(_, c)| c.is_none())
        .map(|(n, _)| n.clone())
        .collect();
    let report = multipart::MultipartReport {
        components: tree.pieces.len(),
        high_tree: [b.groups, tree.branches().len()],
        limbs,
        unmapped_limbs,
        ..Default::default()
    };
    MultipartFit {
        joints: b.joints.clone(),
        shell_bone: b.shell_bone.clone(),
        vertex_bone: b.vertex_bone.clone(),
        reasons: b.reasons.clone(),
        warnings: vec![format!(
            "built from {} closed convex pieces (boxes): joints laid along them",
            tree.pieces.len()
        )],
        report,
    }
}

/// The feet check ([`feet::backwards_at`]) on multipart fits. A part tree mapped mirrored front to
/// back costs about the same as the right mapping ([`multipart_orientations`]: 0.4 % on
/// BrainStem), so the feet, which reach forward from the ankle, are the evidence, as on the
/// embedding path ([`crate::rechoose`]'s facing re-choice).
struct FeetCheck<'a> {
    /// The prepared mesh's vertices, **normalized frame**.
    positions: &'a [crate::geom::P3],
    skel: &'a Skeleton,
    /// The user's pinned joints: a pinned foot is the user's call.
    pinned: &'a [JointId],
}

impl FeetCheck<'_> {
    /// Adds the "feet point backwards" reason to each fit (mapped in the matching `frames`) whose
    /// feet do; says which did.
    fn judge(&self, fits: &mut [MultipartFit], frames: &[Orientation]) -> Vec<bool> {
        fits.iter_mut()
            .zip(frames)
            .map(|(f, o)| {
                let why = feet::backwards_at(self.positions, self.skel, &f.joints, o, self.pinned);
                let found = why.is_some();
                f.reasons.extend(why);
                found
            })
            .collect()
    }
}

/// The half turns about the same up axis of the `frames` whose fits' feet point `backwards`,
/// each once and not already among `frames`: what an `auto` orientation maps next. The turned
/// fit then competes by [`cmp_key`] (fewer reasons first), so it wins only when its feet point
/// forward and nothing else got worse in number.
fn half_turns(frames: &[Orientation], backwards: &[bool]) -> Vec<Orientation> {
    let mut out: Vec<Orientation> = Vec::new();
    for (o, _) in frames.iter().zip(backwards).filter(|(_, &b)| b) {
        let t = feet::turned(o);
        if !frames.contains(&t) && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The orientations the multi-component method tries: the fixed one, else (`auto`) the authored
/// frames ([`AUTHORED_FRAMES`]), the mesh's own (+Y up) first so that ties keep it. Not all 24: the
/// part tree of a T-posed figure looks much the same turned a quarter in its frontal plane (arm
/// span ≈ height) or mirrored front to back, so the limb cost cannot tell those apart (measured:
/// BrainStem's cost differs by 4 % between +Y and +X up, 0.4 % between facing +Z and −Z), while a
/// Z-up figure mapped as Y-up costs ten times more.
fn multipart_orientations(mode: OrientationMode) -> Vec<Orientation> {
    match mode {
        OrientationMode::Fixed(o) => vec![o],
        OrientationMode::Default => vec![Orientation::IDENTITY],
        OrientationMode::Auto => choose::frame_orientations(&AUTHORED_FRAMES),
    }
}

/// Order of two multipart fits: fewer confidence reasons, then lower mean primary-limb cost.
fn cmp_key(a: &MultipartFit, b: &MultipartFit) -> std::cmp::Ordering {
    a.reasons
        .len()
        .cmp(&b.reasons.len())
        .then(mean_primary_cost(a).total_cmp(&mean_primary_cost(b)))
}

/// Index of the winning fit: fewer confidence reasons, then lower mean primary-limb cost, then
/// the earlier candidate.
fn best_multipart(fits: &[(Fit, MultipartFit)]) -> Option<usize> {
    (0..fits.len()).min_by(|&a, &b| cmp_key(&fits[a].1, &fits[b].1).then(a.cmp(&b)))
}

/// The trial record of every template mapped, scored by its mean limb cost.
fn multipart_trials(fits: &[(Fit, MultipartFit)], best: usize) -> Vec<TemplateTrial> {
    fits.iter()
        .enumerate()
        .map(|(i, (fit, f))| TemplateTrial {
            penalty: mean_primary_cost(f),
            penalty_per_chain: mean_primary_cost(f),
            note: "multipart: mean limb cost".into(),
            ..fit.trial(i == best)
        })
        .collect()
}

/// Rigid skin: each shell bound to its mapped joint (others follow the root); stored on `rig`.
fn rigid_skin(
    prepared: &PreparedMesh,
    fit: &Fit,
    rig: &mut crate::rig::Rig,
    mf: &MultipartFit,
    timings: &mut BTreeMap<String, f64>,
) -> crate::skin::Skin {
    let t = Instant::now();
    let root = fit
        .skeleton
        .joints
        .iter()
        .position(|j| j.parent.is_none())
        .unwrap_or(0);
    let mut s = crate::skin::rigid(prepared, &rig.joints, &mf.shell_bone, root);
    // Welded boxes (box figures): each vertex follows its own box's joint.
    for (w, row) in prepared.weld.iter().zip(s.weights.iter_mut()) {
        if let Some(Some(j)) = mf.vertex_bone.get(*w as usize) {
            *row = vec![(*j as u32, 1.0)];
        }
    }
    timings.insert("skin".into(), ms_since(t));
    rig.skin = Some(s.weights.clone());
    s
}
