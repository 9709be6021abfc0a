//! The rig: what `geppetto rig` produces and `rig.json` holds.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod curve;
mod json;
pub mod read;

pub use curve::CurveReport;

use crate::mesh::RepairReport;
pub use crate::multipart::MultipartReport;
pub use crate::skeleton::rigged::{RigJoint, SkinTable};
pub use read::RigReadError;

/// Whether a rig can be trusted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The embedding looks sound.
    #[default]
    Ok,
    /// A rig was produced, but something looks wrong; `confidence_reasons` says what.
    LowConfidence,
}

/// Weighted discrete penalty of the embedding.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RigPenalty {
    /// Sum of weighted terms.
    pub total: f64,
    /// Weighted value per term name.
    pub terms: BTreeMap<String, f64>,
}

/// A complete rig, as written to `OUT/NAME.rig.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rig {
    /// The curve-skeleton method's report (branches, joints, stage times, diagnostics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<CurveReport>,
    /// The mesh file the rig was made from (as given on the command line or found by the watcher).
    pub mesh: String,
    /// Skeleton template name.
    pub skeleton: String,
    /// `ok` or `low_confidence`.
    pub status: Status,
    /// Why the status is `low_confidence` (empty when `ok`).
    #[serde(default)]
    pub confidence_reasons: Vec<String>,
    /// Orientation used, e.g. `+Y up, +Z forward`.
    pub orientation: String,
    /// Joints, parent-first, mesh frame.
    pub joints: Vec<RigJoint>,
    /// Weighted penalty of the discrete embedding.
    pub penalty: RigPenalty,
    /// Plain-language warnings (search budget hit, shells bound rigidly, …).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Hints that constrained the embedding (mesh frame).
    #[serde(default)]
    pub hints: Vec<crate::embed::hints::JointHint>,
    /// What mesh preparation found and did.
    pub repair: RepairReport,
    /// Milliseconds per stage (`load`, `prepare`, `field`, …, `total`); absent from a rig.json
    /// written with `rig --no-timings` (then the file depends on the inputs only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub timings_ms: BTreeMap<String, f64>,
    /// Mesh bounding box `[min, max]`, mesh frame (scores are relative to its largest side).
    pub bbox: [[f64; 3]; 2],
    /// Input vertex count (length of `skin`).
    pub vertex_count: usize,
    /// Skin weights per input vertex, when computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skin: Option<SkinTable>,
    /// Templates tried and how each fitted (`--skeleton auto`: the choice and the runners-up; a
    /// forced template: the others, screened).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub templates: Vec<TemplateTrial>,
    /// Engine statistics for benchmarks (`graph_vertices`, `graph_edges`, `medial_samples`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stats: BTreeMap<String, f64>,
    /// Which method made the joints: [`METHOD_EMBED`] (template embedding), [`METHOD_MULTIPART`]
    /// or [`METHOD_CURVE`] (curve skeleton from 3D silhouettes).
    #[serde(default = "default_method")]
    pub method: String,
    /// What the multi-component method found (components, contact graph, trees, limb mapping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipart: Option<MultipartReport>,
    /// The embedding re-chosen after a structural check failed (`crate::rechoose`), or why the
    /// first choice was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rechoice: Option<Rechoice>,
}

/// A re-choice of the embedding after a structural check failed (`crate::rechoose`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rechoice {
    /// The re-chosen embedding replaced the first choice.
    pub kept: bool,
    /// Plain words: "re-chosen because …", or "not re-chosen: …".
    pub reason: String,
    /// The structural checks the first choice failed.
    pub failed_checks: Vec<String>,
    /// End joints of the limb chains moved into limbs of the shape that held no joint.
    #[serde(default)]
    pub chains: Vec<String>,
    /// Discrete penalty of the first choice.
    pub original_penalty: f64,
    /// Discrete penalty of the re-chosen embedding (the moved chains' length and symmetry terms
    /// waived, as for a user's pin), when the re-search found one.
    #[serde(default)]
    pub penalty: Option<f64>,
    /// The first choice's confidence reasons.
    #[serde(default)]
    pub original_reasons: Vec<String>,
}

/// `method` of a rig made by template embedding (Baran & Popović 2007).
pub const METHOD_EMBED: &str = "embed";
/// `method` of a rig made by the multi-component method (Bharaj et al. 2012).
pub const METHOD_MULTIPART: &str = "multipart";
/// `method` (and skeleton name) of a rig made by the curve-skeleton method (Pan et al. 2009).
pub const METHOD_CURVE: &str = "curve";

/// rig.json files written before the method field are template embeddings.
fn default_method() -> String {
    METHOD_EMBED.into()
}

impl Rig {
    /// Whether `penalty` means anything: the nine terms belong to the template embedding; the
    /// multi-component and curve-skeleton methods have none, so the CLI and the TUI show "-"
    /// instead of a penalty of 0 that reads as a perfect fit.
    pub fn has_penalty(&self) -> bool {
        self.method != METHOD_MULTIPART && self.method != METHOD_CURVE
    }

    /// Serialize as rig.json text: pretty, with the skin one line per vertex (`rig/json.rs`).
    pub fn to_json(&self) -> String {
        String::from_utf8(self.to_json_bytes()).unwrap_or_default()
    }

    /// [`Rig::to_json`] as bytes, ready to write.
    pub fn to_json_bytes(&self) -> Vec<u8> {
        json::to_vec(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}").into_bytes())
    }

    /// Stream [`Rig::to_json`]'s text into `w` (large rigs are never held as one string).
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        json::to_writer(w, self).map_err(std::io::Error::other)
    }

    /// Read a `rig.json` (any rig file, skeleton only: [`read::read`]).
    pub fn load(path: &Path) -> Result<Self, RigReadError> {
        let text = std::fs::read_to_string(path).map_err(|cause| RigReadError::Io {
            path: path.to_path_buf(),
            cause,
        })?;
        serde_json::from_str(&text).map_err(|e| RigReadError::Invalid {
            path: path.to_path_buf(),
            message: format!("not a rig.json: {e}"),
        })
    }

    /// Largest side of the mesh bounding box (mesh units).
    pub fn max_extent(&self) -> f64 {
        (0..3)
            .map(|i| self.bbox[1][i] - self.bbox[0][i])
            .fold(0.0, f64::max)
    }
}

/// The mesh file a rig read from `rig_file` was made from, found from its recorded path
/// `recorded`: as is when absolute or present from the current folder, else under the rig
/// file's folder or the nearest of its parent folders that has it. `geppetto rig hero.obj`
/// records `hero.obj` as given (relative to the folder it ran in, so that shards agree) and
/// writes `rigged/hero.rig.json`: that folder is a parent of the rig's, which `edit`, `pose`,
/// `animate` and `score` run elsewhere must still find. `None` when no candidate is a file.
pub fn find_mesh(rig_file: &Path, recorded: &Path) -> Option<std::path::PathBuf> {
    if recorded.is_absolute() || recorded.is_file() {
        return recorded.is_file().then(|| recorded.to_path_buf());
    }
    let rig_dir = std::path::absolute(rig_file).ok()?.parent()?.to_path_buf();
    rig_dir
        .ancestors()
        .map(|d| d.join(recorded))
        .find(|p| p.is_file())
}

/// One template tried, as rig.json records it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TemplateTrial {
    /// Template name.
    pub template: String,
    /// Orientation of its best fit (empty if it did not embed).
    pub orientation: String,
    /// Its discrete penalty (total).
    pub penalty: f64,
    /// Penalty per reduced-skeleton chain (what templates are compared by).
    pub penalty_per_chain: f64,
    /// Its confidence, or `None` when only screened or when it did not embed.
    pub status: Option<Status>,
    /// This is the template of the rig.
    pub chosen: bool,
    /// Why it did not embed, or `screened` when only screened.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a template embedding has a penalty; a curve or multi-component rig's 0 is no score.
    #[test]
    fn only_an_embedding_has_a_penalty() {
        let with = |method: &str| Rig {
            method: method.into(),
            ..Rig::default()
        };
        assert!(with(METHOD_EMBED).has_penalty());
        assert!(!with(METHOD_MULTIPART).has_penalty());
        assert!(!with(METHOD_CURVE).has_penalty());
    }

    /// `rig hero.obj` in `p/` records `hero.obj` and writes `p/rigged/a/hero.rig.json`: the mesh
    /// is found from anywhere, nearest folder first; a path found nowhere is `None`.
    #[test]
    fn find_mesh_looks_beside_the_rig_and_up_its_folders() {
        let d = tempfile::tempdir().unwrap();
        let p = std::path::absolute(d.path()).unwrap();
        let rig_file = p.join("rigged/a/hero.rig.json");
        std::fs::create_dir_all(rig_file.parent().unwrap()).unwrap();
        std::fs::write(p.join("hero.obj"), b"v 0 0 0").unwrap();
        assert_eq!(
            find_mesh(&rig_file, Path::new("hero.obj")),
            Some(p.join("hero.obj"))
        );
        std::fs::write(p.join("rigged/hero.obj"), b"v 0 0 0").unwrap();
        assert_eq!(
            find_mesh(&rig_file, Path::new("hero.obj")),
            Some(p.join("rigged/hero.obj")),
            "the nearest folder wins"
        );
        assert_eq!(find_mesh(&rig_file, Path::new("nothere.obj")), None);
        assert_eq!(find_mesh(&rig_file, &p.join("gone.obj")), None);
        assert_eq!(
            find_mesh(&rig_file, &p.join("hero.obj")),
            Some(p.join("hero.obj"))
        );
    }
}
