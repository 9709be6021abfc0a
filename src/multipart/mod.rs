//! The multi-component rigging method (Bharaj, Thormählen, Seidel & Theobalt 2012, "Automatically
//! rigging multi-component characters"): for models built from many separate rigid pieces.
//!
//! Stages, one module each: [`samples`] (components = the prepared mesh's shells, Hammersley
//! samples, oriented boxes; §2–3) → [`contacts`] (contact graph; §4) → [`cluster`] (high- and
//! low-resolution trees by edge collapse; §5) → [`tree`] (root at maximum betweenness, branches;
//! §6) → [`mapping`] (dynamic-programming branch matching in [`branch_match`], low-resolution
//! reduction, conflicts; §8) → [`joints`] (one position per template joint and a bone per
//! component; §7, §9).
//! Entry: [`rig`]. Path choice for `--method auto`: [`detect`].

pub mod branch_match;
pub mod cluster;
pub mod contacts;
pub mod figure;
pub mod joints;
pub mod mapping;
mod report;
pub mod samples;
#[cfg(test)]
mod tests;
pub mod tree;

pub use report::{detect, Detection, LimbMap, MultipartReport};

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use thiserror::Error;

use crate::embed::hints::ResolvedHint;
use crate::embed::Orientation;
use crate::geom::P3;
use crate::mesh::PreparedMesh;
use crate::skeleton::Skeleton;
use crate::util::ms_since;
use cluster::{Criteria, DegreeRule};

/// The default contact distance ε, a fraction of the bounding-box diagonal
/// ([`MultipartOptions::contact_fraction`]); the box-figure path ([`crate::boxfig`]) uses it too.
pub const CONTACT_FRACTION: f64 = 0.01;

/// Tunables; every gap of the paper we had to fill is a field here.
#[derive(Clone, Debug)]
pub struct MultipartOptions {
    /// Contact distance ε as a fraction of the bounding-box diagonal. The paper's 0.01 % (1e-4) is
    /// below any practical sample spacing (§4); we read "0.01" as the fraction 1 %, and sample
    /// densely enough that the spacing is about ε \[INTERPRETATION\].
    pub contact_fraction: f64,
    /// Sample spacing as a multiple of ε (the density follows: 1 / (spacing·ε)² per unit²).
    pub spacing_per_eps: f64,
    /// Minimum samples per component.
    pub min_samples: usize,
    /// Total sample budget (the density is lowered to fit).
    pub max_samples: usize,
    /// A.1 reading.
    pub degree_rule: DegreeRule,
    /// A.3 threshold for the low-resolution tree, fraction of the total area (paper: not given).
    pub low_area_fraction: f64,
    /// A.4 threshold for the low-resolution tree, fraction of the model height (paper: not given).
    pub low_length_fraction: f64,
    /// How the template frame sits in the normalized frame.
    pub orientation: Orientation,
}

impl Default for MultipartOptions {
    fn default() -> Self {
        Self {
            contact_fraction: CONTACT_FRACTION,
            spacing_per_eps: 1.0,
            min_samples: 32,
            max_samples: 200_000,
            degree_rule: DegreeRule::BothEndpoints,
            low_area_fraction: 0.02,
            low_length_fraction: 0.05,
            orientation: Orientation::IDENTITY,
        }
    }
}

/// Why the method could not run.
#[derive(Debug, Error)]
pub enum MultipartError {
    /// No component with area.
    #[error("the mesh has no component with surface area")]
    NoComponents,
    /// The template has no joints.
    #[error("the '{0}' template has no joints")]
    EmptyTemplate(String),
}

/// The method's result: a position per template joint and a bone per component.
#[derive(Clone, Debug)]
pub struct MultipartFit {
    /// One position per template joint, **normalized frame**, template order.
    pub joints: Vec<P3>,
    /// Owning joint (template index) per prepared-mesh shell; `None` for a shell without area.
    pub shell_bone: Vec<Option<usize>>,
    /// Owning joint per welded vertex, overriding its shell's (empty: none; the box-figure path
    /// binds welded boxes one by one).
    pub vertex_bone: Vec<Option<usize>>,
    /// Why the fit may be wrong (empty when it looks sound).
    pub reasons: Vec<String>,
    /// Plain-language notes that do not lower confidence.
    pub warnings: Vec<String>,
    /// What ran and what it found.
    pub report: MultipartReport,
}

/// Rig `mesh` with `template` by the multi-component method. `hints` pin joints (normalized frame).
pub fn rig(
    mesh: &PreparedMesh,
    template: &Skeleton,
    hints: &[ResolvedHint],
    opts: &MultipartOptions,
) -> Result<MultipartFit, MultipartError> {
    let prep = Prepared::new(mesh, opts)?;
    let mut fits = prep.fit(template, hints, &[opts.orientation])?;
    Ok(fits.remove(0))
}

/// One clustering (§5) and the milliseconds it took.
type Clustered = Arc<(report::Stages, f64)>;

/// The stages that do not depend on the template or its orientation (samples, contacts; §2–4):
/// computed once per mesh and shared by every template and orientation tried. The clustering
/// depends on the up height alone, so it is kept per height and shared by every template.
pub struct Prepared<'m> {
    mesh: &'m PreparedMesh,
    opts: MultipartOptions,
    /// Clusterings done so far: (up height, stages, ms), in the order first needed.
    clustered: Mutex<Vec<(f64, Clustered)>>,
    bb: crate::geom::Aabb,
    parts: Vec<samples::Component>,
    graph: contacts::ContactGraph,
    total_area: f64,
    times: Vec<(&'static str, f64)>,
}

impl<'m> Prepared<'m> {
    /// Sample the components and detect their contacts.
    pub fn new(mesh: &'m PreparedMesh, opts: &MultipartOptions) -> Result<Self, MultipartError> {
        let t = Instant::now();
        let bb = crate::geom::Aabb::of_points(&mesh.positions);
        let (parts, eps, total_area) = sample(mesh, &bb, opts)?;
        let mut times = vec![("samples", ms_since(t))];
        let t = Instant::now();
        let graph = contacts::detect(&parts, eps);
        times.push(("contacts", ms_since(t)));
        Ok(Self {
            mesh,
            opts: opts.clone(),
            clustered: Mutex::new(Vec::new()),
            bb,
            parts,
            graph,
            total_area,
            times,
        })
    }

    /// One fit of `template` per orientation, in the order given. The orientation moves the
    /// template's rest pose (hence the mapping) and, through the model height along the up axis,
    /// the low-resolution criteria (§5.6); the clustering runs once per distinct height.
    pub fn fit(
        &self,
        template: &Skeleton,
        hints: &[ResolvedHint],
        orientations: &[Orientation],
    ) -> Result<Vec<MultipartFit>, MultipartError> {
        if template.joints.is_empty() {
            return Err(MultipartError::EmptyTemplate(template.name.clone()));
        }
        let heights: Vec<f64> = orientations
            .iter()
            .map(|&o| up_height(&self.bb, o))
            .collect();
        let clustered = self.clusterings(&heights);
        Ok(orientations
            .iter()
            .zip(&heights)
            .zip(&clustered)
            .map(|((&o, &height), c)| self.map(template, hints, o, height, &c.0, c.1))
            .collect())
    }

    /// The clustering (§5) of each of `heights`, with its time: the ones not done yet run side
    /// by side (each a pure function of the parts and the height, so the thread count and the
    /// order templates ask in change nothing), then are kept for later templates.
    fn clusterings(&self, heights: &[f64]) -> Vec<Clustered> {
        let find = |done: &[(f64, Clustered)], h: f64| {
            done.iter()
                .find(|c| c.0.to_bits() == h.to_bits())
                .map(|c| c.1.clone())
        };
        let mut missing: Vec<f64> = Vec::new();
        {
            let done = self.clustered.lock().unwrap_or_else(|e| e.into_inner());
            for &h in heights {
                if find(&done, h).is_none() && !missing.iter().any(|m| m.to_bits() == h.to_bits()) {
                    missing.push(h);
                }
            }
        }
        let new: Vec<(f64, Clustered)> = missing
            .par_iter()
            .map(|&height| {
                let t = Instant::now();
                let mut stages = report::cluster_both(
                    &self.parts,
                    &self.graph,
                    &self.opts,
                    self.total_area,
                    height,
                );
                joints::set_pivots(&mut stages.high, &self.graph.contacts, &stages.high_owner);
                (height, Arc::new((stages, ms_since(t))))
            })
            .collect();
        let mut done = self.clustered.lock().unwrap_or_else(|e| e.into_inner());
        done.extend(new);
        heights.iter().filter_map(|&h| find(&done, h)).collect()
    }

    /// Map `template` (placed in orientation `o`) onto the clustered trees, place its joints and
    /// explain the result (§7–9).
    fn map(
        &self,
        template: &Skeleton,
        hints: &[ResolvedHint],
        o: Orientation,
        height: f64,
        stages: &report::Stages,
        cluster_ms: f64,
    ) -> MultipartFit {
        let t = Instant::now();
        let mut times = self.times.clone();
        times.push(("clustering", cluster_ms));
        let target = report::place_template(template, hints, &self.bb, o, height);
        let mapping = mapping::map(&stages.high, &stages.low_branches, &target);
        let (node_bone, joint_node) = joints::bind(&stages.high, &mapping, template);
        let owner = &stages.high_owner;
        let part_bone: Vec<usize> = (0..self.parts.len()).map(|c| node_bone[owner[c]]).collect();
        let placement = joints::Placement {
            tree: &stages.high,
            contacts: &self.graph.contacts,
            owner,
            parts: &self.parts,
            part_bone: &part_bone,
            target: &target,
        };
        let positions = joints::positions(&placement, template, &joint_node);
        times.push(("mapping", ms_since(t)));
        let shell_bone = shell_bones(self.mesh.shells.len(), &self.parts, &part_bone);
        let explained = report::explain(&report::Explain {
            template,
            parts: &self.parts,
            graph: &self.graph,
            stages,
            mapping: &mapping,
            target: &target,
            part_bone: &part_bone,
            times,
        });
        MultipartFit {
            joints: positions,
            shell_bone,
            vertex_bone: Vec::new(),
            reasons: explained.1,
            warnings: explained.2,
            report: explained.0,
        }
    }
}

/// The mesh's components with their surface samples; with the contact distance `eps` (a fraction
/// of the box diagonal) and the total surface area.
fn sample(
    mesh: &PreparedMesh,
    bb: &crate::geom::Aabb,
    opts: &MultipartOptions,
) -> Result<(Vec<samples::Component>, f64, f64), MultipartError> {
    let (eps, total_area) = (opts.contact_fraction * bb.extent().norm(), mesh_area(mesh));
    let per_area = sample_density(eps, total_area, opts);
    let parts = samples::components(mesh, per_area, opts.min_samples);
    if parts.is_empty() {
        return Err(MultipartError::NoComponents);
    }
    Ok((parts, eps, total_area))
}

/// Samples per unit area: `spacing_per_eps` contact distances apart, at most `max_samples` over
/// the whole surface.
fn sample_density(eps: f64, total_area: f64, opts: &MultipartOptions) -> f64 {
    let spacing = opts.spacing_per_eps * eps;
    (1.0 / (spacing * spacing)).min(opts.max_samples as f64 / total_area.max(1e-12))
}

/// The box's extent along the template's up axis in the mesh's orientation (at least 1e-9).
fn up_height(bb: &crate::geom::Aabb, orientation: Orientation) -> f64 {
    let up = orientation.unapply(&crate::geom::V3::y());
    (0..3)
        .map(|k| bb.extent()[k] * up[k].abs())
        .sum::<f64>()
        .max(1e-9)
}

/// The bone of each of `n` shells: the bone of the part made from it (`None`: no part).
fn shell_bones(n: usize, parts: &[samples::Component], part_bone: &[usize]) -> Vec<Option<usize>> {
    let mut shell_bone = vec![None; n];
    for (c, part) in parts.iter().enumerate() {
        shell_bone[part.shell] = Some(part_bone[c]);
    }
    shell_bone
}

fn mesh_area(mesh: &PreparedMesh) -> f64 {
    mesh.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| mesh.positions[v as usize]);
            0.5 * (b - a).cross(&(c - a)).norm()
        })
        .sum()
}

/// High- and low-resolution criteria (§5.6).
fn criteria(opts: &MultipartOptions, total_area: f64, height: f64) -> (Criteria, Criteria) {
    let high = Criteria {
        degree: opts.degree_rule,
        area_below: None,
        length_below: None,
    };
    let low = Criteria {
        area_below: Some(opts.low_area_fraction * total_area),
        length_below: Some(opts.low_length_fraction * height),
        ..high
    };
    (high, low)
}
