//! Template choice (`--skeleton auto`, the default): embed every shipped template into one shared
//! discretization (the sphere graph and its all-pairs paths are computed once per mesh and cached
//! in the graph), assess each, and keep the most trustworthy fit. With a template the user forced,
//! the others are only screened, to say when one of them fits far better.
//!
//! Penalties are compared **per chain**: the discrete penalty (Baran & Popović 2007 §4) is a sum of
//! terms over the reduced skeleton's chains (bones between branch points and ends), so a template
//! with more chains accumulates more penalty for an equally good fit. Dividing by the chain count
//! makes the human (6 chains) and the quadruped (7, with the tail) comparable.

use std::path::Path;
use std::sync::Arc;

use crate::confidence::{self, Confidence};
use crate::curveskel::{self, CurveFit, CurveMode};
use crate::embed::hints::{Hints, HintsError};
use crate::embed::reduced::Reduced;
use crate::embed::{EmbedError, EmbedOptions, Embedding, OrientationMode};
use crate::rig::Status;
use crate::skeleton::{load_template, Skeleton, SkeletonError};

/// Templates `auto` tries, in this order (ties keep it). The horse and the centaur are left out of
/// the screening: each template tried costs a full orientation screening, and a centaur template
/// fits bipeds and quadrupeds partly, which makes it a confusing winner. The horse comes back only
/// as [`HOCK_TEMPLATE`], after a quadruped win.
pub const AUTO_TEMPLATES: [&str; 2] = ["human", "quadruped"];

/// The template an `auto` quadruped win is re-tried with, in the quadruped's orientation: the same
/// body with the hock in the hind legs (see `pipeline::choosing`).
pub const HOCK_TEMPLATE: &str = "horse";

/// A template "fits far better" than another when its per-chain penalty is below the other's
/// divided by this factor…
pub const FAR_BETTER_FACTOR: f64 = 3.0;
/// …and lower by at least this much per chain (a fit of 0.002 vs 0.007 per chain is two good fits,
/// not a wrong template; 0.02 per chain is about the corpus median of a good fit).
pub const FAR_BETTER_MIN_GAP: f64 = 0.02;

/// Which template to embed.
#[derive(Clone, Debug)]
pub enum Template {
    /// Try the shipped templates ([`AUTO_TEMPLATES`]) and keep the best.
    Auto,
    /// This template.
    Fixed(Arc<Skeleton>),
    /// No template: a curve skeleton from the mesh's 3D silhouettes ([`crate::curveskel`]).
    Curve(CurveMode),
}

impl Template {
    /// `auto`, a built-in template name, or a template YAML file.
    pub fn parse(name: &str) -> Result<Self, SkeletonError> {
        let key = name.trim().to_ascii_lowercase();
        if key == "auto" {
            Ok(Self::Auto)
        } else if key == curveskel::METHOD_NAME {
            Ok(Self::Curve(CurveMode::Robust))
        } else if let Some(mode) = key.strip_prefix("curve-").and_then(CurveMode::parse) {
            Ok(Self::Curve(mode))
        } else {
            load_template(name).map(|s| Self::Fixed(Arc::new(s)))
        }
    }

    /// The template a hints file at `path` asks for (`skeleton:`, [`Hints::template_name`]), if
    /// any; an error names the hints file.
    pub fn from_hints(hints: &Hints, path: &Path) -> Result<Option<Self>, HintsError> {
        let Some(name) = hints.template_name(path) else {
            return Ok(None);
        };
        Self::parse(&name)
            .map(Some)
            .map_err(|source| HintsError::Template {
                path: path.to_path_buf(),
                source,
            })
    }

    /// `auto` or the template's name.
    pub fn name(&self) -> &str {
        match self {
            Self::Auto => "auto",
            Self::Fixed(s) => &s.name,
            Self::Curve(_) => curveskel::METHOD_NAME,
        }
    }

    /// The templates to embed: the fixed one, or every shipped one.
    pub fn candidates(&self) -> Result<Vec<Arc<Skeleton>>, SkeletonError> {
        match self {
            Self::Fixed(s) => Ok(vec![s.clone()]),
            Self::Curve(_) => Ok(Vec::new()),
            Self::Auto => AUTO_TEMPLATES
                .iter()
                .map(|n| load_template(n).map(Arc::new))
                .collect(),
        }
    }

    /// The orientation search to use: `auto` templates also search orientations unless the
    /// request names a fixed one (a template that fits lying down is no evidence of anything).
    pub fn orientation(&self, requested: OrientationMode) -> OrientationMode {
        match (self, requested) {
            (Self::Auto, OrientationMode::Default) => OrientationMode::Auto,
            (_, m) => m,
        }
    }
}

impl From<Arc<Skeleton>> for Template {
    fn from(s: Arc<Skeleton>) -> Self {
        Self::Fixed(s)
    }
}

pub use crate::rig::TemplateTrial;

/// A fully embedded and assessed template.
pub struct Fit {
    /// The template.
    pub skeleton: Arc<Skeleton>,
    /// Its embedding.
    pub embedding: Embedding,
    /// Its confidence.
    pub confidence: Confidence,
    /// The embedding re-chosen after a structural check failed, or why not (`crate::rechoose`).
    pub rechoice: Option<crate::rig::Rechoice>,
}

impl Fit {
    /// Penalty per chain, see the module comment.
    pub fn per_chain(&self) -> f64 {
        per_chain(self.embedding.penalty.total, &self.skeleton)
    }

    /// rig.json's record of this fit.
    pub fn trial(&self, chosen: bool) -> TemplateTrial {
        TemplateTrial {
            template: self.skeleton.name.clone(),
            orientation: self.embedding.orientation.label(),
            penalty: self.embedding.penalty.total,
            penalty_per_chain: self.per_chain(),
            status: Some(self.confidence.status),
            chosen,
            note: String::new(),
        }
    }

    /// Order: trustworthy first, then real (not forced) fits, then the lower per-chain penalty.
    fn key(&self) -> (bool, bool, f64) {
        (
            self.confidence.status != Status::Ok,
            self.embedding.forced,
            self.per_chain(),
        )
    }
}

impl From<CurveFit> for Fit {
    fn from(c: CurveFit) -> Self {
        Fit {
            skeleton: Arc::new(c.skeleton),
            embedding: c.embedding,
            confidence: c.confidence,
            rechoice: None,
        }
    }
}

/// rig.json's record of a curve-skeleton attempt (`note` says why it won or lost).
pub fn curve_trial(c: &CurveFit, chosen: bool, note: String) -> TemplateTrial {
    TemplateTrial {
        template: curveskel::METHOD_NAME.into(),
        orientation: String::new(),
        penalty: 0.0,
        penalty_per_chain: 0.0,
        status: Some(c.confidence.status),
        chosen,
        note,
    }
}

/// Under `auto`, whether the curve skeleton replaces the best template fit, and why in plain words:
/// only when no template fits with confidence and the curve skeleton does.
pub fn curve_wins(best: &Fit, curve: &CurveFit) -> Option<String> {
    (best.confidence.status != Status::Ok && curve.confidence.status == Status::Ok).then(|| {
        format!(
            "no template fits with confidence (best: {}, {}); the curve skeleton built from the \
             mesh's outline ({} branches) fits, so it was used",
            best.skeleton.name,
            best.confidence
                .reasons
                .first()
                .map_or("low confidence", String::as_str),
            curve.report.branches
        )
    })
}

/// Number of chains of `skel`'s reduced skeleton (at least 1).
pub fn chains(skel: &Skeleton) -> usize {
    Reduced::new(skel).len().saturating_sub(1).max(1)
}

/// `total` divided by the number of chains of `skel`'s reduced skeleton.
pub fn per_chain(total: f64, skel: &Skeleton) -> f64 {
    total / chains(skel) as f64
}

/// The lowest per-chain penalty among the `ok` fits, if any.
pub fn best_ok_per_chain(fits: &[Fit]) -> Option<f64> {
    fits.iter()
        .filter(|f| f.confidence.status == Status::Ok && !f.embedding.forced)
        .map(Fit::per_chain)
        .min_by(f64::total_cmp)
}

/// Index of the best fit (see `Fit::key`); ties keep the first.
pub fn best(fits: &[Fit]) -> Option<usize> {
    let mut order: Vec<usize> = (0..fits.len()).collect();
    order.sort_by(|&a, &b| {
        let (ka, kb) = (fits[a].key(), fits[b].key());
        ka.0.cmp(&kb.0)
            .then(ka.1.cmp(&kb.1))
            .then(ka.2.total_cmp(&kb.2))
    });
    order.first().copied()
}

/// Embed `skel` and assess it (`embed_fn` runs the embedding stage on the shared discretization).
pub fn fit(
    skel: Arc<Skeleton>,
    embed_fn: &dyn Fn(&Skeleton) -> Result<Embedding, EmbedError>,
    assess_fn: &dyn Fn(&Skeleton, &Embedding) -> Confidence,
) -> Result<Fit, EmbedError> {
    let embedding = embed_fn(&skel)?;
    let confidence = assess_fn(&skel, &embedding);
    Ok(Fit {
        skeleton: skel,
        embedding,
        confidence,
        rechoice: None,
    })
}

/// The §5 check on the chosen fit: another template (`others`: name, per-chain penalty, forced)
/// fitting far better makes the choice untrustworthy. Returns the reason, if any.
pub fn beaten_by_far(chosen: &Fit, others: &[(String, f64, bool)]) -> Option<String> {
    let mine = chosen.per_chain();
    others
        .iter()
        .filter(|(_, p, forced)| !*forced && far_better(*p, mine))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(name, p, _)| confidence::template_fits_far_better(name, *p, mine))
}

/// Mesh up axes that files are authored with: +Y (glTF, Maya, Unity, most exporters) and +Z
/// (Blender, 3ds Max). `(axis 0..3, sign)`, as [`crate::embed::Orientation::rows`].
pub const AUTHORED_UP: [(u8, i8); 2] = [(1, 1), (2, 1)];

/// The frames files are authored in, as `(up, forward)` mesh axes: +Y up facing +Z (glTF, Maya,
/// Unity, most exporters) and +Z up facing −Y (Blender, 3ds Max); their up axes are
/// [`AUTHORED_UP`]. The multi-component method tries only these, and an `auto` fit that needed
/// the model turned is retried in them (`pipeline::authored`).
pub const AUTHORED_FRAMES: [Frame; 2] = [((1, 1), (2, 1)), ((2, 1), (1, -1))];

/// An `(up, forward)` pair of mesh axes, each `(axis 0..3, sign)`.
pub type Frame = ((u8, i8), (u8, i8));

/// The orientations of `frames`, in order (a frame whose axes do not make one is left out).
pub fn frame_orientations(frames: &[Frame]) -> Vec<crate::embed::Orientation> {
    frames
        .iter()
        .filter_map(|&(up, forward)| crate::embed::Orientation::from_up_forward(up, forward))
        .collect()
}

/// The orientation check of `--orientation auto`: a best fit that needs the model upside down
/// or on its side (mesh up neither +Y nor +Z) is not evidence of the template's creature. A
/// character standing on its head is almost never what an artist saved; a radially symmetric
/// shape (an octopus, a hand) fits a template in many orientations and the search settles on
/// one of them. Returns the reason, if any. Not applied when the user fixes the orientation.
pub fn implausible_up(chosen: &Fit, mode: OrientationMode) -> Option<String> {
    if !matches!(mode, OrientationMode::Auto) {
        return None;
    }
    let o = chosen.embedding.orientation;
    let up = o.rows[1];
    (!AUTHORED_UP.contains(&up)).then(|| {
        format!(
            "the {} template fits only with the model turned ({}); files are authored +Y or +Z \
             up, so the shape is probably not this template's creature (pin a joint, or pick \
             the template and --orientation yourself)",
            chosen.skeleton.name,
            o.label()
        )
    })
}

/// The head-and-tail check ([`confidence::ends`]) of the chosen fit, over the mesh `positions`
/// (normalized frame): judged on the chosen fit only (the cue is the mesh's silhouette along the
/// facing, not the embedding), and only when the facing was searched (`Auto`) or defaulted, not
/// given by the user. Returns the reason, if any.
pub fn head_in_tail(
    chosen: &Fit,
    positions: &[crate::geom::P3],
    mode: OrientationMode,
) -> Option<String> {
    if matches!(mode, OrientationMode::Fixed(_)) {
        return None;
    }
    confidence::ends::head_in_tail(positions, &chosen.skeleton, &chosen.embedding)
}

/// `a` (per chain) is far better than `b`.
pub fn far_better(a: f64, b: f64) -> bool {
    a * FAR_BETTER_FACTOR < b && b - a >= FAR_BETTER_MIN_GAP
}

/// The embedding options of one trial (orientation chosen by [`Template::orientation`]).
pub fn options(
    base: &EmbedOptions,
    template: &Template,
    requested: OrientationMode,
) -> EmbedOptions {
    let mut o = base.clone();
    o.orientation = template.orientation(requested);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_parses_and_names_load() {
        assert!(matches!(Template::parse("AUTO"), Ok(Template::Auto)));
        let t = Template::parse("quadruped").unwrap();
        assert_eq!(t.name(), "quadruped");
        assert_eq!(
            Template::Auto.candidates().unwrap().len(),
            AUTO_TEMPLATES.len()
        );
        assert!(Template::parse("no-such-template").is_err());
    }

    #[test]
    fn far_better_needs_both_ratio_and_gap() {
        assert!(far_better(0.01, 0.06));
        assert!(!far_better(0.002, 0.007), "two good fits");
        assert!(!far_better(0.05, 0.1), "only twice as good");
    }

    #[test]
    fn per_chain_divides_by_chains() {
        let h = load_template("human").unwrap();
        let chains = Reduced::new(&h).len() - 1;
        assert!(chains >= 5);
        assert!((per_chain(0.6, &h) - 0.6 / chains as f64).abs() < 1e-12);
    }
}
