//! Rigid parts among heat-diffused shells (docs/algorithms.md#skin-rigid-parts).
//!
//! Real assets are often built from separate shells: a robot's limb segments, armour plates, a
//! helmet, a held axe, a spider's leg pieces. An artist binds each such piece to one bone, as the
//! multi-component method does for whole characters (Bharaj et al. 2012 §7, [`super::rigid`]);
//! heat diffusion instead blends each piece between the bones near it, so a rigid piece bends,
//! shears and smears its influence over joints the artist never gave it.
//!
//! The rule, per shell that went through the heat solve: its **share** of joint j is the
//! area-weighted mean of its vertices' weights for j. When one joint's share reaches
//! [`RIGID_SHARE`] the shell already moves almost entirely with that joint, so it contains no
//! joint that bends it: it is bound to that joint with weight 1. A shell spanning a bending joint
//! (a sleeve over an elbow, a leg shell over a knee, a body over its spine) splits its weight
//! between the bones on both sides and keeps its diffused weights. The rule needs no notion of a
//! "main" body and no size threshold: a one-shell character's body spans many joints.
//! Props that see no bone at all are rigid already: they follow the body part they touch
//! ([`super::props`]).
//!
//! A second rule needs no share: a **closed convex shell with no bending joint inside** is a
//! rigid part whatever the blend says (figures built from boxes or capsules, one per body part:
//! Minetest-style game characters, a robot's limb segment). Convex geometry has no modelled
//! articulation, and when no joint with bones on both sides lies strictly inside the shell the
//! skeleton does not bend it either, so any blend across it only comes from bones *near* it
//! (heat crossing welded corners, a leaf joint's virtual segment leaving the part sideways).
//! The artist binds such a piece to one bone (Bharaj et al. 2012 §7); here it follows the joint
//! that lies inside it, else the one carrying most of it. A shell that is not convex (a body), or that holds a bending joint (a
//! capsule arm with its elbow inside), keeps the share rule.

use std::collections::{BTreeMap, HashMap};

use crate::discretize::winding::solid_angle;
use crate::geom::{Aabb, P3, V3};

/// Share of one joint (area-weighted mean weight over the shell) from which a shell is a rigid
/// part. At 0.9 the other joints together move at most a tenth of the shell: the blend is then a
/// small correction the artist's rigid binding does without, while a shell over a bending joint
/// keeps at least a third of its weight on the far side in practice. The corpus check
/// (leave-one-out over the artist rigs) is in the commit notes of this rule.
pub const RIGID_SHARE: f64 = 0.9;

/// The joint carrying `share ≥ threshold` of the shell `verts` (welded indices into `rows` and
/// `area`), with its share; `None` if no joint does or the shell has no area.
pub fn dominant_joint(
    verts: &[u32],
    rows: &[Vec<(u32, f64)>],
    area: &[f64],
    threshold: f64,
) -> Option<(u32, f64)> {
    let (j, s) = shares(verts, rows, area)
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    (s >= threshold).then_some((j, s))
}

/// The area-weighted mean weight of joint `j` over the shell `verts` (0 without area).
pub fn joint_share(verts: &[u32], rows: &[Vec<(u32, f64)>], area: &[f64], j: u32) -> f64 {
    shares(verts, rows, area).get(&j).copied().unwrap_or(0.0)
}

/// Every joint's area-weighted mean weight over the shell `verts` (empty without area).
fn shares(verts: &[u32], rows: &[Vec<(u32, f64)>], area: &[f64]) -> BTreeMap<u32, f64> {
    let mut per_joint: BTreeMap<u32, f64> = BTreeMap::new();
    let mut total = 0.0;
    for &v in verts {
        let (Some(row), Some(&a)) = (rows.get(v as usize), area.get(v as usize)) else {
            continue;
        };
        total += a;
        for &(j, w) in row {
            *per_joint.entry(j).or_insert(0.0) += a * w;
        }
    }
    if total <= 0.0 {
        return BTreeMap::new();
    }
    per_joint.values_mut().for_each(|s| *s /= total);
    per_joint
}

/// Relative tolerance of the convexity and inside tests, as a fraction of the shell's box
/// diagonal: the rounding of exported coordinates (files round to 1e-4–1e-6 of the model's size),
/// far below any bend a modeller makes, and a joint this close to a face is on it.
pub const CONVEX_TOLERANCE: f64 = 1e-3;

/// A joint as the bending test sees it: position (normalized frame), whether it has a parent
/// bone and a child bone.
#[derive(Clone, Copy, Debug)]
pub struct JointSides {
    /// Position, normalized frame.
    pub at: P3,
    /// A bone from a parent ends here.
    pub parent: bool,
    /// A bone to a child starts here.
    pub child: bool,
}

/// The joints of a rig (positions already in the normalized frame) with their bone sides.
pub fn joint_sides(points: &[P3], parents: &[Option<usize>]) -> Vec<JointSides> {
    let mut child = vec![false; points.len()];
    for p in parents.iter().flatten() {
        if let Some(c) = child.get_mut(*p) {
            *c = true;
        }
    }
    points
        .iter()
        .zip(parents)
        .zip(child)
        .map(|((&at, p), child)| JointSides {
            at,
            parent: p.is_some(),
            child,
        })
        .collect()
}

/// A closed convex shell with no bending joint inside ([`convex_part`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvexPart {
    /// The joint lying deepest strictly inside the shell, if any (only leaves and roots can: a
    /// joint with bones on both sides inside would bend it). A leaf inside a convex piece is the
    /// piece's own joint (an eye in its eyeball, a box limb's joint in its box), whatever share
    /// the diffused weights gave the bones passing near it.
    pub inside: Option<u32>,
}

/// The closed shell `tris` (welded indices into `positions`, outward) as a rigid part, if it is
/// convex and no joint with a parent and a child bone lies strictly inside it (see the module
/// notes). Convexity is checked at every edge (the far vertex of each neighbouring triangle on
/// or behind the triangle's plane): a closed surface convex at every edge is convex.
pub fn convex_part(
    tris: &[[u32; 3]],
    positions: &[P3],
    joints: &[JointSides],
) -> Option<ConvexPart> {
    let (planes, pts, tol) = faces(tris, positions)?;
    // A convex body holds the mean of its corners: a face with that mean in front of it rejects
    // most bodies at once, before the edge map is built.
    let mean = pts.iter().fold(V3::zeros(), |s, p| s + p.coords) / pts.len().max(1) as f64;
    let mean = P3::from(mean);
    if planes.iter().any(|pl| pl.height(&mean) > tol)
        || !convex_edges(tris, positions, &planes, tol)
    {
        return None;
    }
    // Depth of each joint strictly inside (beyond the tolerance from every face).
    let depth = |at: &P3| {
        let d = planes
            .iter()
            .map(|pl| -pl.height(at))
            .fold(f64::INFINITY, f64::min);
        (d > tol).then_some(d)
    };
    let inside: Vec<(u32, f64)> = joints
        .iter()
        .enumerate()
        .filter_map(|(j, s)| depth(&s.at).map(|d| (j as u32, d)))
        .collect();
    if inside.iter().any(|&(j, _)| {
        let s = joints[j as usize];
        s.parent && s.child
    }) {
        return None;
    }
    let inside = inside
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(j, _)| j);
    Some(ConvexPart { inside })
}

/// True if the shell `tris` (welded indices into `positions`) is **articulated**: it is not convex
/// ([`is_convex`]) and a bending joint (a parent bone and a child bone) lies inside it, by the
/// generalized winding number of its triangles (Jacobson et al. 2013: ≥ ½ inside, robust to the
/// holes and seams of game meshes). On a character built from parts every shell otherwise follows
/// one joint (Bharaj et al. 2012 §7), which is right for a piece *between* joints; a modelled body
/// part the given skeleton bends inside (a one-piece torso over the spine joint, a sleeve over its
/// elbow) is what the share rule's module notes keep diffusing. A convex piece has no modelled
/// articulation and stays rigid whatever lies inside it (a box figure's torso).
pub fn articulated(tris: &[[u32; 3]], positions: &[P3], joints: &[JointSides]) -> bool {
    let inside = |at: &P3| winding_number(tris, positions, at).abs() >= 0.5;
    let holds = joints.iter().any(|s| s.parent && s.child && inside(&s.at));
    holds && !is_convex(tris, positions)
}

/// True if the closed shell `tris` is convex ([`convex_part`]'s test, tolerance included).
pub fn is_convex(tris: &[[u32; 3]], positions: &[P3]) -> bool {
    faces(tris, positions)
        .is_some_and(|(planes, _, tol)| convex_edges(tris, positions, &planes, tol))
}

/// The face planes of the shell `tris`, its corners, and the convexity tolerance relative to
/// its size; `None` for an empty shell or an index out of range.
fn faces(tris: &[[u32; 3]], positions: &[P3]) -> Option<(Vec<Plane>, Vec<P3>, f64)> {
    let planes = planes(tris, positions)?;
    let pts: Vec<P3> = tris
        .iter()
        .flatten()
        .filter_map(|&v| positions.get(v as usize).copied())
        .collect();
    let tol = CONVEX_TOLERANCE * Aabb::of_points(&pts).extent().norm();
    Some((planes, pts, tol))
}

/// Generalized winding number of `p` with respect to the triangles `tris`: the sum of their
/// signed solid angles over 4π (Van Oosterom & Strackee 1983); 1 inside a closed outward shell,
/// 0 outside, fractional near holes.
pub fn winding_number(tris: &[[u32; 3]], positions: &[P3], p: &P3) -> f64 {
    let sum: f64 = tris
        .iter()
        .filter_map(|t| {
            let [a, b, c] = t.map(|k| positions.get(k as usize).map(|q| q.coords));
            Some(solid_angle(&p.coords, &[a?, b?, c?]))
        })
        .sum();
    sum / (4.0 * std::f64::consts::PI)
}

/// True if at every edge of `tris` the far vertex of each neighbouring triangle lies at most
/// `tol` above the other's plane (and every edge has exactly two triangles).
fn convex_edges(tris: &[[u32; 3]], positions: &[P3], planes: &[Plane], tol: f64) -> bool {
    let mut edges: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edges.entry((a.min(b), a.max(b))).or_default().push(t);
        }
    }
    let far = |t: usize, e: (u32, u32)| tris[t].into_iter().find(|&v| v != e.0 && v != e.1);
    edges.iter().all(|(&e, ts)| {
        let [s, t] = ts[..] else {
            return false;
        };
        [(s, t), (t, s)].iter().all(|&(a, b)| {
            far(b, e)
                .and_then(|v| positions.get(v as usize))
                .is_none_or(|p| planes[a].height(p) <= tol)
        })
    })
}

/// A triangle's plane: unit outward normal and a point; degenerate triangles face nowhere.
struct Plane {
    n: V3,
    at: P3,
}

impl Plane {
    /// Signed height of `p` above the plane (outside positive); 0 for a degenerate triangle.
    fn height(&self, p: &P3) -> f64 {
        self.n.dot(&(p - self.at))
    }
}

/// The plane of every triangle; `None` if an index is out of range or there are no triangles.
fn planes(tris: &[[u32; 3]], positions: &[P3]) -> Option<Vec<Plane>> {
    if tris.is_empty() {
        return None;
    }
    tris.iter()
        .map(|t| {
            let [a, b, c] = [0, 1, 2].map(|k| positions.get(t[k] as usize).copied());
            let (a, b, c) = (a?, b?, c?);
            let n = (b - a).cross(&(c - a));
            let len = n.norm();
            let n = if len > f64::MIN_POSITIVE {
                n / len
            } else {
                n * 0.0
            };
            Some(Plane { n, at: a })
        })
        .collect()
}

/// A third of the area of every triangle around each vertex (the barycentric vertex area), by
/// welded vertex.
pub fn vertex_areas(positions: &[P3], triangles: &[[u32; 3]]) -> Vec<f64> {
    let mut area = vec![0.0; positions.len()];
    for t in triangles {
        let get = |k: usize| positions.get(t[k] as usize);
        let (Some(a), Some(b), Some(c)) = (get(0), get(1), get(2)) else {
            continue;
        };
        let third = (b - a).cross(&(c - a)).norm() / 6.0;
        for &v in t {
            area[v as usize] += third;
        }
    }
    area
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominance_by_area_weighted_share() {
        // Four vertices of equal area: three follow joint 1 alone, one is split 1/2.
        let rows = vec![
            vec![(1, 1.0)],
            vec![(1, 1.0)],
            vec![(1, 1.0)],
            vec![(1, 0.5), (2, 0.5)],
        ];
        let area = vec![1.0; 4];
        let verts = [0, 1, 2, 3];
        let (j, s) = dominant_joint(&verts, &rows, &area, 0.8).expect("dominant");
        assert_eq!(j, 1);
        assert!((s - 0.875).abs() < 1e-12);
        assert!(dominant_joint(&verts, &rows, &area, 0.9).is_none());
        // The split vertex's area decides.
        let area = vec![1.0, 1.0, 1.0, 9.0];
        assert!(dominant_joint(&verts, &rows, &area, 0.7).is_none());
    }

    /// A unit box (8 corners, 12 outward triangles) scaled by `sx` along x.
    fn cuboid(sx: f64) -> (Vec<P3>, Vec<[u32; 3]>) {
        crate::geom::box_mesh(P3::origin(), P3::new(sx, 1.0, 1.0))
    }

    fn side(at: [f64; 3], parent: bool, child: bool) -> JointSides {
        JointSides {
            at: P3::from(at),
            parent,
            child,
        }
    }

    #[test]
    fn a_box_is_a_part_unless_a_bending_joint_is_inside() {
        let (pts, tris) = cuboid(2.0);
        // A leaf inside and a root on a face: the leaf is the part's joint.
        let joints = [
            side([1.0, 0.0, 0.5], false, true),
            side([1.5, 0.5, 0.5], true, false),
        ];
        let part = convex_part(&tris, &pts, &joints).expect("a box is convex");
        assert_eq!(part.inside, Some(1));
        // Nothing inside: no joint of its own.
        let part = convex_part(&tris, &pts, &joints[..1]).expect("convex");
        assert_eq!(part.inside, None);
        // A joint with bones on both sides inside bends it.
        let bent = [side([1.0, 0.5, 0.5], true, true)];
        assert!(convex_part(&tris, &pts, &bent).is_none());
    }

    #[test]
    fn winding_number_is_one_inside_a_closed_shell_and_zero_outside() {
        let (pts, tris) = cuboid(2.0);
        let w = |p: [f64; 3]| winding_number(&tris, &pts, &P3::from(p));
        assert!((w([1.0, 0.5, 0.5]) - 1.0).abs() < 1e-9);
        assert!(w([3.0, 0.5, 0.5]).abs() < 1e-9);
    }

    /// A closed shell that is not convex (a box with a corner pushed in, as a body part's shape
    /// folds) with a bending joint inside: a modelled body part the skeleton bends, not a rigid
    /// piece.
    #[test]
    fn a_bent_shell_with_a_bending_joint_inside_is_articulated() {
        let (mut pts, tris) = cuboid(1.0);
        pts[7] = P3::new(0.6, 0.6, 0.6);
        assert!((winding_number(&tris, &pts, &P3::new(0.3, 0.3, 0.3)) - 1.0).abs() < 1e-9);
        let knee = [side([0.3, 0.3, 0.3], true, true)];
        assert!(articulated(&tris, &pts, &knee));
        // A leaf or a root inside bends nothing.
        let leaf = [side([0.3, 0.3, 0.3], true, false)];
        assert!(!articulated(&tris, &pts, &leaf));
        // The joint outside the shell: nothing bends it.
        let away = [side([5.0, 0.5, 0.5], true, true)];
        assert!(!articulated(&tris, &pts, &away));
        // A convex box stays a rigid piece even with a bending joint inside (a box figure).
        let (pts, tris) = cuboid(2.0);
        assert!(!articulated(
            &tris,
            &pts,
            &[side([1.0, 0.5, 0.5], true, true)]
        ));
    }

    #[test]
    fn a_dented_box_is_not_convex() {
        let (mut pts, tris) = cuboid(1.0);
        // Push the top corner (1, 1, 1) into the box: the faces around it fold inward.
        pts[7] = P3::new(0.6, 0.6, 0.6);
        assert!(convex_part(&tris, &pts, &[]).is_none());
        let (pts, tris) = cuboid(1.0);
        assert!(convex_part(&tris, &pts, &[]).is_some());
    }
}
