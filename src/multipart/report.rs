//! The glue of the method: both clusterings, the template placed beside the mesh (§18.1 of our
//! design: same frame, same height, feet on the same floor), what rig.json reports, the confidence
//! reasons, and the path choice for `--method auto`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::cluster::{self, Graph, Node};
use super::contacts::ContactGraph;
use super::mapping::{Mapping, Target};
use super::samples::Component;
use super::tree::{self, Tree};
use super::MultipartOptions;
use crate::embed::hints::ResolvedHint;
use crate::embed::Orientation;
use crate::geom::{Aabb, P3, V3};
use crate::mesh::PreparedMesh;
use crate::skeleton::Skeleton;

/// One kept branch of the part tree and the template limb it drives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LimbMap {
    /// The template limb (its end joint's name).
    pub limb: String,
    /// Components on the branch (its leaf cluster's pieces first).
    pub parts: usize,
    /// Branch cost Q (lower is better).
    pub cost: f64,
    /// False for an extra limb (many-to-one): bound rigidly with the body, see `extra`.
    pub primary: bool,
}

/// What the multi-component method ran and found (rig.json `multipart`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultipartReport {
    /// Components (rigid pieces).
    pub components: usize,
    /// Contact-graph edges (including forced links).
    pub contact_edges: usize,
    /// Edges added to connect the graph (no real contact within ε).
    pub forced_links: usize,
    /// Components not connected by real contacts to the largest piece (shell indices).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub floating_shells: Vec<usize>,
    /// Pairs that reached the sample-distance test, and oriented-box tests.
    pub narrow_pairs: usize,
    /// Oriented-box tests run.
    pub box_tests: usize,
    /// High-resolution tree: nodes and branches.
    pub high_tree: [usize; 2],
    /// Low-resolution tree: nodes and branches.
    pub low_tree: [usize; 2],
    /// Kept branches and their template limbs.
    pub limbs: Vec<LimbMap>,
    /// Template limbs no branch mapped to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmapped_limbs: Vec<String>,
    /// High-resolution nodes without a joint of their own (they ride with an ancestor).
    pub unmapped_nodes: usize,
    /// Components per bone (joint name → count).
    pub parts_per_bone: BTreeMap<String, usize>,
    /// Milliseconds per stage: samples, contacts, clustering, mapping. Not serialized: the
    /// pipeline copies them into rig.json's `timings_ms` (as `multipart_*`), the one place for
    /// times, so the rest of rig.json depends on the input only.
    #[serde(skip)]
    pub times_ms: BTreeMap<String, f64>,
}

/// Both clusterings and their trees.
pub struct Stages {
    /// High-resolution tree.
    pub high: Tree,
    /// High-resolution node per component.
    pub high_owner: Vec<usize>,
    /// Low-resolution tree.
    pub low: Tree,
    /// Low-resolution branches as sorted component sets.
    pub low_branches: Vec<Vec<usize>>,
}

/// Cluster the contact graph twice and root both trees at the node of highest betweenness.
pub fn cluster_both(
    parts: &[Component],
    graph: &ContactGraph,
    opts: &MultipartOptions,
    total_area: f64,
    height: f64,
) -> Stages {
    let nodes = parts
        .iter()
        .enumerate()
        .map(|(i, c)| Node {
            centre: c.centre,
            area: c.area,
            members: vec![i],
            merged_q: None,
        })
        .collect();
    let g = Graph::new(nodes, graph.contacts.iter().map(|c| (c.a, c.b)));
    let adj: Vec<Vec<usize>> = g.adj.iter().map(|s| s.iter().copied().collect()).collect();
    let areas: Vec<f64> = parts.iter().map(|c| c.area).collect();
    let root = tree::root_component(&adj, &areas);
    let (hc, lc) = super::criteria(opts, total_area, height);
    let high_c = cluster::cluster(&g, &hc);
    let low_c = cluster::cluster(&g, &lc);
    let high = tree::rooted(&high_c, root);
    let low = tree::rooted(&low_c, root);
    let mut high_owner = vec![0; parts.len()];
    for (n, members) in high.members.iter().enumerate() {
        for &c in members {
            high_owner[c] = n;
        }
    }
    // The root's pieces are common to every branch, so they would send every high-resolution
    // branch to whichever low-resolution branch is longest; §8.6 compares the limbs, so the shared
    // root is left out of the count [INTERPRETATION].
    let low_branches = low
        .branches()
        .iter()
        .map(|b| {
            let mut s: Vec<usize> = b[1..]
                .iter()
                .flat_map(|&n| low.members[n].iter().copied())
                .collect();
            s.sort_unstable();
            s
        })
        .collect();
    Stages {
        high,
        high_owner,
        low,
        low_branches,
    }
}

/// The template in the normalized frame, scaled to the mesh's height along up, its lowest joint on
/// the mesh's floor and its box centred on the mesh's across (the paper's "default height").
pub fn place_template(
    t: &Skeleton,
    hints: &[ResolvedHint],
    bb: &Aabb,
    o: Orientation,
    height: f64,
) -> Target {
    let up = o.unapply(&V3::y());
    let rest: Vec<P3> = t
        .joints
        .iter()
        .map(|j| P3::from(o.unapply(&j.rest.coords)))
        .collect();
    let tb = Aabb::of_points(&rest);
    let t_height = (tb.extent().dot(&up)).abs().max(1e-9);
    let s = height / t_height;
    let (tc, mc) = (tb.center().coords * s, bb.center().coords);
    let floor = |b: &Aabb, k: f64| {
        if up.sum() > 0.0 {
            b.min.coords.dot(&up) * k
        } else {
            b.max.coords.dot(&up) * k
        }
    };
    let across = |v: V3| v - up * v.dot(&up);
    let shift = across(mc - tc) + up * (floor(bb, 1.0) - floor(&tb, s));
    let mut pin = vec![None; t.joints.len()];
    for h in hints {
        pin[h.joint.0] = Some(h.position);
    }
    Target {
        position: rest
            .iter()
            .map(|p| P3::from(p.coords * s + shift))
            .collect(),
        parent: t.joints.iter().map(|j| j.parent.map(|p| p.0)).collect(),
        pin,
        height,
    }
}

/// Inputs of [`explain`].
pub struct Explain<'a> {
    pub(super) template: &'a Skeleton,
    pub(super) parts: &'a [Component],
    pub(super) graph: &'a ContactGraph,
    pub(super) stages: &'a Stages,
    pub(super) mapping: &'a Mapping,
    pub(super) target: &'a Target,
    pub(super) part_bone: &'a [usize],
    pub(super) times: Vec<(&'static str, f64)>,
}

/// Floating pieces holding more than this fraction of the area make the fit low-confidence (a few
/// floating eyes or rivets are normal; a floating limb is not).
pub const FLOATING_AREA_LOW: f64 = 0.05;
/// An extra limb whose direction from the root differs from its template limb's primary branch by
/// more than this angle (degrees) has no plausible reason to follow it.
pub const EXTRA_LIMB_MAX_ANGLE: f64 = 60.0;

/// The report, the confidence reasons and the warnings.
pub fn explain(e: &Explain) -> (MultipartReport, Vec<String>, Vec<String>) {
    let names = |j: usize| e.template.joints[j].name.clone();
    let abs = e.target.branches();
    let high = &e.stages.high;
    let limbs: Vec<LimbMap> = e
        .mapping
        .kept
        .iter()
        .map(|k| LimbMap {
            limb: limb_name(e, &abs, k.column),
            parts: branch_parts(high, k.leaf),
            cost: k.q,
            primary: k.primary,
        })
        .collect();
    let unmapped_limbs: Vec<String> = (0..abs.len())
        .filter(|&c| !e.mapping.kept.iter().any(|k| k.column == c))
        .map(|c| limb_name(e, &abs, c))
        .collect();
    let mut reasons = Vec::new();
    let mut warnings = Vec::new();
    for l in &unmapped_limbs {
        reasons.push(format!("template limb ending at {l} found no branch of the part tree; its joints follow the template's proportions"));
    }
    extra_limb_notes(e, &abs, &mut reasons, &mut warnings);
    let floating_shells = floating_note(e, &mut reasons, &mut warnings);
    let mut parts_per_bone = BTreeMap::new();
    for &b in e.part_bone {
        *parts_per_bone.entry(names(b)).or_insert(0) += 1;
    }
    let report = MultipartReport {
        components: e.parts.len(),
        contact_edges: e.graph.contacts.len(),
        forced_links: e.graph.contacts.iter().filter(|c| c.forced).count(),
        floating_shells,
        narrow_pairs: e.graph.narrow_pairs,
        box_tests: e.graph.box_tests,
        high_tree: [high.len(), high.branches().len()],
        low_tree: [e.stages.low.len(), e.stages.low_branches.len()],
        limbs,
        unmapped_limbs,
        unmapped_nodes: e.mapping.node_joint.iter().filter(|j| j.is_none()).count(),
        parts_per_bone,
        times_ms: e
            .times
            .iter()
            .map(|(k, v)| ((*k).to_string(), *v))
            .collect(),
    };
    (report, reasons, warnings)
}

/// Name of the last joint of template limb `column` (`abs`: the template's branches).
fn limb_name(e: &Explain, abs: &[Vec<usize>], column: usize) -> String {
    e.template.joints[*abs[column].last().unwrap_or(&0)]
        .name
        .clone()
}

/// Number of parts on the path from the root of `high` to `leaf`.
fn branch_parts(high: &Tree, leaf: usize) -> usize {
    high.path_to(leaf)
        .iter()
        .map(|&n| high.members[n].len())
        .sum()
}

/// Extra (non-primary) limbs: a reason when one points far from its template limb's primary
/// branch, else a warning that it is bound rigidly with the body.
fn extra_limb_notes(
    e: &Explain,
    abs: &[Vec<usize>],
    reasons: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    let high = &e.stages.high;
    for k in e.mapping.kept.iter().filter(|k| !k.primary) {
        let primary = e
            .mapping
            .kept
            .iter()
            .find(|p| p.primary && p.column == k.column);
        let dir = |leaf: usize| (high.centre[leaf] - high.centre[0]).normalize();
        let angle = primary.map_or(180.0, |p| {
            dir(p.leaf)
                .dot(&dir(k.leaf))
                .clamp(-1.0, 1.0)
                .acos()
                .to_degrees()
        });
        let limb = limb_name(e, abs, k.column);
        if angle > EXTRA_LIMB_MAX_ANGLE {
            let parts = crate::util::count(branch_parts(high, k.leaf), "part", "parts");
            reasons.push(format!("a branch of {parts} maps to the same limb as another ({limb}) but points {angle:.0}° away from it"));
        } else {
            warnings.push(format!(
                "extra limb of {} (like {limb}) is bound rigidly with the body",
                crate::util::count(branch_parts(high, k.leaf), "part", "parts")
            ));
        }
    }
}

/// The floating shells (touching nothing), noted as a reason when they hold more than
/// [`FLOATING_AREA_LOW`] of the area, else as a warning.
fn floating_note(e: &Explain, reasons: &mut Vec<String>, warnings: &mut Vec<String>) -> Vec<usize> {
    let total: f64 = e.parts.iter().map(|c| c.area).sum();
    let floating_area: f64 = e.graph.floating.iter().map(|&c| e.parts[c].area).sum();
    let floating_shells: Vec<usize> = e.graph.floating.iter().map(|&c| e.parts[c].shell).collect();
    if !floating_shells.is_empty() {
        let msg = format!(
            "the contact graph is disconnected: {} ({:.1}% of the area; shells {}) with no contact within ε, each linked to its nearest part",
            crate::util::count(floating_shells.len(), "part", "parts"),
            100.0 * floating_area / total.max(1e-300),
            list(&floating_shells)
        );
        if floating_area > FLOATING_AREA_LOW * total {
            reasons.push(msg);
        } else {
            warnings.push(msg);
        }
    }
    floating_shells
}

/// At most 12 numbers, then "…".
fn list(v: &[usize]) -> String {
    let mut s: Vec<String> = v.iter().take(12).map(|x| x.to_string()).collect();
    if v.len() > 12 {
        s.push("…".into());
    }
    s.join(", ")
}

/// The shape statistics the path choice reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    /// Shells with area.
    pub shells: usize,
    /// Largest closed-shell volume ÷ summed closed-shell volume (`None` without closed shells).
    pub volume_dominance: Option<f64>,
    /// Largest shell area ÷ total area.
    pub area_dominance: f64,
    /// True if `--method auto` should take the multi-component path.
    pub multipart: bool,
}

/// At least this many shells before the multi-component path is considered: a body plus a few
/// props (eyes, teeth, a weapon, a dress) stays on the embedding. Corpus: the bodies with props
/// have 2–10 shells; the two part-built characters 18 and 403.
pub const MIN_SHELLS: usize = 12;
/// A closed shell holding at least this fraction of the closed volume is a body that the other
/// shells decorate (eyes, buttons; the dominant-shell rule of our design notes).
pub const MAX_VOLUME_DOMINANCE: f64 = 0.85;
/// No shell may hold this fraction of the area or more. Corpus: part-built characters 0.03 and
/// 0.31; bodies with many props (fins, armour) 0.75 and more.
pub const MAX_AREA_DOMINANCE: f64 = 0.5;

/// Many shells and none dominant (our §18.4-style rule, calibrated on the corpus: see
/// docs/algorithms.md#multi-component-method).
pub fn detect(mesh: &PreparedMesh) -> Detection {
    let areas: Vec<f64> = mesh
        .shells
        .iter()
        .map(|s| {
            s.triangles
                .iter()
                .map(|&t| {
                    let [a, b, c] = mesh.triangles[t as usize].map(|v| mesh.positions[v as usize]);
                    0.5 * (b - a).cross(&(c - a)).norm()
                })
                .sum()
        })
        .collect();
    let shells = areas.iter().filter(|a| **a > 0.0).count();
    let total_area: f64 = areas.iter().sum();
    let area_dominance = areas.iter().copied().fold(0.0, f64::max) / total_area.max(1e-300);
    let vols: Vec<f64> = mesh
        .shells
        .iter()
        .map(|s| if s.closed { s.volume.abs() } else { 0.0 })
        .collect();
    let total_vol: f64 = vols.iter().sum();
    let volume_dominance =
        (total_vol > 0.0).then(|| vols.iter().copied().fold(0.0, f64::max) / total_vol);
    let none_dominant = volume_dominance.is_none_or(|d| d < MAX_VOLUME_DOMINANCE)
        && area_dominance < MAX_AREA_DOMINANCE;
    Detection {
        shells,
        volume_dominance,
        area_dominance,
        multipart: shells >= MIN_SHELLS && none_dominant,
    }
}
