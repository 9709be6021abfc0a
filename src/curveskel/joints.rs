//! From the curve skeleton to an animation skeleton (paper §8): key joints at branch ends and
//! junctions (§8.1), middle joints where the curve bends by more than 18° (§8.2), a root, names.
//!
//! The paper's "down sampling" has no scale; measured on adjacent chord midpoints the 18° test is
//! noise. Each branch is first simplified (Douglas–Peucker, tolerance [`SIMPLIFY_RADIUS`] × its
//! mean radius), then the bend test runs on what remains; middle joints closer than a local radius
//! merge. Robust mode also splits bones longer than [`MAX_BONE`] of the model (a tentacle or a
//! finger straight in the rest pose still needs to bend: the paper's acknowledged limitation §8.2,
//! kept in faithful mode). Bend joints then settle where their bones follow the curve best
//! ([`super::place`]). The root, the order and the names are [`super::order`]'s.

use super::constrict;
use super::prune::{Branch, Tree};
use super::view::Frame;
use super::{CurveHints, CurveMode};
use crate::geom::{JointId, P3, V3};
use crate::skeleton::{Joint, Skeleton};

/// Middle joint where the curve bends by more than this (paper §8.2).
pub const BEND_DEGREES: f64 = 18.0;
/// Douglas–Peucker tolerance, in mean radii of the branch.
pub const SIMPLIFY_RADIUS: f64 = 0.25;
/// Robust mode: longest bone, in mean radii of its branch (two diameters: a finger's phalanx, a
/// fish's spine segment and a tentacle's bend all measure about two widths; a rule relative to the
/// limb, not the model, so thin limbs get short bones and bend smoothly).
pub const MAX_BONE: f64 = 4.0;
/// …but never shorter than this fraction of the model's largest side (a spider's thin legs would
/// otherwise get dozens of bones too short to animate). Artists' rigs agree: in the nine artist
/// rigs we measured, the lower quartile of bone length is 4–18 % of the model's largest side
/// (8 % across rigs); 8 % bounds a branch of length L to about L / 8 % bones whatever its
/// thickness.
pub const MIN_SPLIT_BONE: f64 = 0.08;

/// One joint, frame coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct BJoint {
    /// Name.
    pub name: String,
    /// Parent (index), `None` for the root.
    pub parent: Option<usize>,
    /// Position, frame coordinates.
    pub pos: P3,
    /// Leaf tip: an end marker (owns no vertices).
    pub end: bool,
    /// Key joint (branch end or junction) rather than a middle joint.
    pub key: bool,
    /// Local radius of the limb at the joint (frame units).
    pub r: f64,
}

/// The animation skeleton.
#[derive(Clone, Debug, Default)]
pub struct Built {
    /// Joints, parent first.
    pub joints: Vec<BJoint>,
    /// Key joints.
    pub key_count: usize,
    /// Branches.
    pub branch_count: usize,
    /// Joints the user pinned.
    pub pinned: Vec<usize>,
    /// Separate outline parts parented across a gap.
    pub bridged_parts: usize,
}

/// Graph vertex before ordering.
#[derive(Clone, Debug)]
pub(super) struct GV {
    pub(super) pos: P3,
    pub(super) r: f64,
    pub(super) key: bool,
}

/// Build the joints from the branches.
/// `down` is the rest pose's down direction in frame coordinates (for the names).
pub fn build(branches: &[Branch], tree: &Tree, extent: f64, mode: CurveMode, down: V3) -> Built {
    let mut verts: Vec<GV> = Vec::new();
    let mut key_of = std::collections::BTreeMap::new();
    for i in (0..tree.nodes.len()).filter(|&i| tree.is_key(i)) {
        key_of.insert(i, verts.len());
        verts.push(GV {
            pos: tree.nodes[i].pos,
            r: tree.nodes[i].r,
            key: true,
        });
    }
    // Edges carry their branch index.
    let mut edges: Vec<(usize, usize, usize)> = Vec::new();
    for (b, br) in branches.iter().enumerate() {
        let (mids, smooth) = middle_joints(br, extent, mode);
        // A leaf's terminal triangle can sit off the limb's axis at a round tip: the end joint
        // takes the smoothed end instead.
        for (end, k) in [
            (br.nodes[0], 0),
            (br.nodes[br.nodes.len() - 1], smooth.len() - 1),
        ] {
            if tree.nodes[end].alive && tree.is_key(end) && is_leaf(tree, end) {
                verts[key_of[&end]].pos = smooth[k];
            }
        }
        let mut prev = key_of[&br.nodes[0]];
        for k in mids {
            verts.push(GV {
                pos: smooth[k],
                r: br.radius[k],
                key: false,
            });
            edges.push((prev, verts.len() - 1, b));
            prev = verts.len() - 1;
        }
        edges.push((prev, key_of[&br.nodes[br.nodes.len() - 1]], b));
    }
    super::order::order(&verts, &edges, branches.len(), down)
}

/// Indices (into the branch polyline) of the middle joints, in order, and the polyline smoothed over
/// about one local radius (chord midpoints zigzag as sleeve triangles alternate sides; a joint sits
/// on the smoothed curve, the branch's nodes stay the exact chord midpoints).
pub fn middle_joints(br: &Branch, extent: f64, mode: CurveMode) -> (Vec<usize>, Vec<P3>) {
    let n = br.pts.len();
    if n < 3 {
        return (Vec::new(), br.pts.clone());
    }
    let mean_r = br.radius.iter().sum::<f64>() / n as f64;
    let pts = smoothed(&br.pts, mean_r);
    let mut keep = vec![false; n];
    (keep[0], keep[n - 1]) = (true, true);
    douglas_peucker(&pts, 0, n - 1, SIMPLIFY_RADIUS * mean_r, &mut keep);
    let cand: Vec<usize> = (0..n).filter(|&k| keep[k]).collect();
    let mut mids = Vec::new();
    for w in cand.windows(3) {
        let (a, b, c) = (pts[w[0]], pts[w[1]], pts[w[2]]);
        let (d1, d2) = ((b - a).normalize(), (c - b).normalize());
        if d1.dot(&d2).clamp(-1.0, 1.0).acos().to_degrees() > BEND_DEGREES {
            // A bone shorter than its limb's diameter cannot bend visibly: such a bend joint merges.
            let last = mids.last().copied().unwrap_or(0);
            let min_bone = (2.0 * br.radius[w[1]]).max(MIN_SPLIT_BONE * extent);
            // Both ends: a branch may start or end at a leaf tip (a head, a tail base).
            let end_gap = min_bone.max(2.0 * mean_r);
            let near_end =
                (pts[w[1]] - pts[n - 1]).norm() < end_gap || (pts[w[1]] - pts[0]).norm() < end_gap;
            if (pts[w[1]] - pts[last]).norm() >= min_bone && !near_end {
                mids.push(w[1]);
            }
        }
    }
    if mode == CurveMode::Robust {
        let min_bone = MIN_SPLIT_BONE * extent;
        let bends = mids.clone();
        let all = with_steps(&pts, &br.radius, mids, extent);
        let steps: Vec<usize> = all.into_iter().filter(|k| !bends.contains(k)).collect();
        let gap = min_bone.max(2.0 * mean_r);
        mids = super::place::settle(&pts, &bends, &steps, gap);
        mids = subdivide(&pts, &br.radius, mids, min_bone);
    }
    (mids, pts)
}

fn is_leaf(tree: &Tree, i: usize) -> bool {
    tree.adj[i].len() == 1
}

/// Moving average over about one `radius` of arc on each side; near the ends the window is
/// one-sided (so an off-axis tip is pulled onto the axis, about half a radius inward).
fn smoothed(p: &[P3], radius: f64) -> Vec<P3> {
    let n = p.len();
    let arc: f64 = p.windows(2).map(|w| (w[1] - w[0]).norm()).sum();
    let spacing = arc / (n - 1) as f64;
    let h = ((radius / spacing.max(1e-12)).round() as usize).clamp(1, n / 4 + 1);
    (0..n)
        .map(|k| {
            let (lo, hi) = (k.saturating_sub(h), (k + h).min(n - 1));
            let win = &p[lo..=hi];
            P3::from(
                win.iter()
                    .fold(crate::geom::V3::zeros(), |a, q| a + q.coords)
                    / win.len() as f64,
            )
        })
        .collect()
}

fn douglas_peucker(p: &[P3], a: usize, b: usize, tol: f64, keep: &mut [bool]) {
    if b <= a + 1 {
        return;
    }
    let (pa, pb) = (p[a], p[b]);
    let ab = pb - pa;
    let dist = |q: &P3| {
        let t = if ab.norm_squared() > 0.0 {
            ((q - pa).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (q - (pa + ab * t)).norm()
    };
    let (k, d) = (a + 1..b)
        .map(|k| (k, dist(&p[k])))
        .fold((a, -1.0), |m, x| if x.1 > m.1 { x } else { m });
    if d > tol {
        keep[k] = true;
        douglas_peucker(p, a, k, tol, keep);
        douglas_peucker(p, k, b, tol, keep);
    }
}

/// Add the thickness steps ([`constrict`]) to the bend joints: a step closer than a bone to a bend
/// joint or to another step is dropped (the bend joint already sits at the part boundary).
fn with_steps(pts: &[P3], radius: &[f64], mids: Vec<usize>, extent: f64) -> Vec<usize> {
    let min_bone = MIN_SPLIT_BONE * extent;
    let mut all = mids;
    let min_radius = super::prune::MIN_PROTRUSION * extent;
    for k in constrict::steps(pts, radius, min_bone, min_radius) {
        // From a bend joint: a bone at least the limb's diameter (as between bend joints); from
        // an end, `steps` already kept the shortest bone.
        let far_from = |j: usize| (pts[k] - pts[j]).norm() >= (2.0 * radius[k]).max(min_bone);
        if all.iter().all(|&m| far_from(m)) {
            all.push(k);
        }
    }
    all.sort_unstable();
    all
}

/// Split every bone longer than [`MAX_BONE`] mean radii of its own stretch of the branch (never
/// below `min_len`) into equal arc-length pieces: a thick body gets long bones, its thin tail short
/// ones (bones relative to the part they are in, not to the whole branch's mean).
fn subdivide(pts: &[P3], radius: &[f64], mids: Vec<usize>, min_len: f64) -> Vec<usize> {
    let n = pts.len();
    let arc = constrict::arc_lengths(pts);
    let mut stops = vec![0];
    stops.extend(mids);
    stops.push(n - 1);
    let mut out = Vec::new();
    for w in stops.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mean_r = radius[a..=b].iter().sum::<f64>() / (b - a + 1) as f64;
        let max_len = (MAX_BONE * mean_r).max(min_len);
        let pieces = ((pts[b] - pts[a]).norm() / max_len).ceil().max(1.0) as usize;
        for i in 1..pieces {
            let target = arc[a] + (arc[b] - arc[a]) * i as f64 / pieces as f64;
            let k = (a..=b)
                .min_by(|&x, &y| (arc[x] - target).abs().total_cmp(&(arc[y] - target).abs()))
                .unwrap_or(a);
            if k > a && k < b && out.last() != Some(&k) {
                out.push(k);
            }
        }
        if b != n - 1 {
            out.push(b);
        }
    }
    out
}

/// Pins from the hints: each named joint moves to its target.
pub fn apply_pins(built: &mut Built, hints: &CurveHints, frame: &Frame) {
    for (name, q) in &hints.pins {
        if let Some(i) = built.joints.iter().position(|j| &j.name == name) {
            built.joints[i].pos = frame.to_frame(q);
            built.pinned.push(i);
        }
    }
}

/// The generated [`Skeleton`] (rest = the joints' normalized-frame positions).
pub fn skeleton(built: &Built, positions: &[P3]) -> Skeleton {
    Skeleton {
        name: super::METHOD_NAME.to_string(),
        joints: built
            .joints
            .iter()
            .zip(positions)
            .map(|(j, p)| Joint {
                name: j.name.clone(),
                parent: j.parent.map(JointId),
                rest: *p,
                symmetric: None,
                foot: false,
                fat: false,
                end: j.end,
                optional: false,
            })
            .collect(),
    }
}
