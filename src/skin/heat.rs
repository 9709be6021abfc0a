//! Heat sources: for every vertex, the nearest **visible** bone(s) and H = c/d²
//! (Baran & Popović 2007 §4; docs/algorithms.md#skin-heat-diffusion).
//!
//! Visibility is only "the segment from the vertex to its closest point on the bone stays inside
//! the surface" (signed distance ≤ a small tolerance along it). The original also requires the
//! direction to lie within 60° of the vertex normal; that cone test makes weights depend on face
//! winding (flipping all faces changed the dominant bone on 83% of sveta's vertices), so it is
//! left out of visibility; its continuous form below uses normals that do not depend on it.
//!
//! Unlike the original, which gives H = 0 when the *nearest* bone is hidden, a vertex takes its
//! heat from the nearest bone it can see (Blender's variant): armpit and crotch vertices then get
//! heat from the torso instead of none.
//!
//! **Oriented distance** (docs/algorithms.md#skin-oriented-distance). The original's cone test has
//! a continuous form in Blender's heat weighting (`heat_source_distance`, `meshlaplacian.cc`): the
//! distance to a bone is divided by `½(cos θ + 1.001)`, θ the angle between the vertex normal and
//! the direction from the bone's closest point to the vertex. A bone the surface faces squarely
//! keeps its distance, one seen edge-on counts twice as far, one behind the surface is out of
//! reach; the nearest bone and H = c/d² both use it. Where the surface turns (the torso next to a
//! limb's root, the lower head above the neck) H is smaller and the blend wider, as artists paint
//! it. The normals are the welded mesh's, each shell's turned so that its signed volume about its
//! centroid is positive (`weights::surface_normals`): flipping the input's faces negates that
//! volume exactly and changes no weight (the original's test does: pinocchio-facts §10).

use rayon::prelude::*;

use super::bones::Bone;
use crate::geom::{P3, V3};

/// How far outside the surface (normalized units) a visibility segment may stray: a little more
/// than the distance field's octree tolerance τ = 0.003 (docs/algorithms.md#distance-field), since vertices sit on
/// the surface where the interpolated field is only accurate to about τ.
pub const VISIBILITY_TOLERANCE: f64 = 0.004;

/// Bones closer than `(1 + TIE) · d` count as equidistant and all receive heat (the original's
/// 1.00001 factor: at a joint's position, the bones meeting there tie).
pub const TIE: f64 = 1e-5;

/// Distances below this (normalized units) are clamped before H = c/d² (the original adds 1e-8).
pub const MIN_HEAT_DISTANCE: f64 = 1e-6;

/// Blender's offset in `½(cos θ + 1.001)` ([`oriented_distance`]): a bone straight behind the
/// surface counts 2000 times as far, not infinitely.
const FACING_OFFSET: f64 = 1.001;

/// Heat source of one vertex: distance to its nearest visible bone and the joints owning every
/// visible bone at (nearly) that distance, without repeats.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    /// Distance to the nearest visible bone, normalized units ([`oriented_distance`] when the
    /// vertex has a normal).
    pub distance: f64,
    /// Owning joints of the tied nearest visible bones.
    pub joints: Vec<u32>,
}

/// True if the segment `from → to` stays within `VISIBILITY_TOLERANCE` of the inside. Sphere
/// tracing: where the field says the surface is at least |f| away, stride |f| (never less than
/// 1/100 of the segment, as the original's 100 samples). Succeeds early once the inside balls
/// around the current sample and around `to` (radii −f) cover the rest of the segment — the
/// original's `field(cur) + field(end) + remaining ≤ tol` test (Pinocchio source, `attachment.cpp`). Bone points
/// usually sit about as deep as the vertex is far, so most tests end at the first sample.
pub fn visible(from: &P3, to: &P3, sdf: &dyn Fn(&P3) -> f64) -> bool {
    let d = to - from;
    let len = d.norm();
    if len <= 1e-12 {
        return true;
    }
    let u = d / len;
    let min_step = len / 100.0;
    let f_end = sdf(to);
    if f_end > VISIBILITY_TOLERANCE {
        return false;
    }
    let mut t = min_step;
    while t < len {
        let f = sdf(&(from + u * t));
        if f > VISIBILITY_TOLERANCE {
            return false;
        }
        if f + f_end + (len - t) <= VISIBILITY_TOLERANCE {
            return true;
        }
        t += min_step.max(-0.9 * f);
    }
    true
}

/// The distance from `p` to `bone` divided by `½(cos θ + 1.001)`, θ between `normal` and the
/// direction from the bone's closest point to `p` (module docs); the plain distance when there is
/// no normal or `p` lies on the bone.
pub fn oriented_distance(p: &P3, bone: &Bone, normal: Option<&V3>) -> f64 {
    let offset = p - bone.closest_point(p);
    let d = offset.norm();
    match normal {
        Some(n) if d > 0.0 && n.norm() > 0.0 => {
            let cos = offset.dot(n) / (d * n.norm());
            d / (0.5 * (cos + FACING_OFFSET))
        }
        _ => d,
    }
}

/// Outward normals of the welded vertices: the sum of their triangles' area vectors (unnormalized;
/// the shells of a prepared mesh face outward). Zero for a vertex no triangle uses.
pub fn vertex_normals(positions: &[P3], triangles: &[[u32; 3]]) -> Vec<V3> {
    let mut n = vec![V3::zeros(); positions.len()];
    for t in triangles {
        let [Some(a), Some(b), Some(c)] = t.map(|i| positions.get(i as usize)) else {
            continue;
        };
        let area = (b - a).cross(&(c - a));
        for &i in t {
            n[i as usize] += area;
        }
    }
    n
}

/// The heat source of every point in `points` (normalized frame), or `None` if it sees no bone.
/// `normals` (parallel to `points`, any length, outward) makes distances
/// [`oriented_distance`]s; `None` keeps them plain. Bones are tried nearest first; only as many
/// visibility tests as needed are run.
pub fn sources(
    points: &[P3],
    normals: Option<&[V3]>,
    bones: &[Bone],
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
) -> Vec<Option<Source>> {
    // One bone ranking buffer per rayon task, reused from vertex to vertex (it was a fresh
    // allocation per vertex): the same list, filled and sorted the same way.
    points
        .par_iter()
        .enumerate()
        .with_min_len(256)
        .map_init(Vec::new, |order, (i, p)| {
            source_ranked(p, normals.and_then(|n| n.get(i)), bones, sdf, order)
        })
        .collect()
}

#[cfg(test)]
fn source(p: &P3, normal: Option<&V3>, bones: &[Bone], sdf: &dyn Fn(&P3) -> f64) -> Option<Source> {
    source_ranked(p, normal, bones, sdf, &mut Vec::new())
}

/// The heat source of `p`, ranking the bones in `order` (cleared first; its allocation is kept).
fn source_ranked(
    p: &P3,
    normal: Option<&V3>,
    bones: &[Bone],
    sdf: &dyn Fn(&P3) -> f64,
    order: &mut Vec<(f64, usize)>,
) -> Option<Source> {
    order.clear();
    order.extend(
        bones
            .iter()
            .enumerate()
            .map(|(b, bone)| (oriented_distance(p, bone, normal), b)),
    );
    order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
    let mut found: Option<Source> = None;
    for &(d, b) in order.iter() {
        if let Some(s) = &found {
            if d > s.distance * (1.0 + TIE) + 1e-12 {
                break;
            }
        }
        let bone = &bones[b];
        if !d.is_finite() || !visible(p, &bone.closest_point(p), sdf) {
            continue;
        }
        match &mut found {
            None => {
                found = Some(Source {
                    distance: d,
                    joints: vec![bone.joint],
                })
            }
            Some(s) if !s.joints.contains(&bone.joint) => s.joints.push(bone.joint),
            Some(_) => {}
        }
    }
    found
}

/// Most vertices an orphan joint adopts, and how much farther than the best candidate (as a
/// ratio of distances) an adopted vertex may be.
const ADOPT_MAX: usize = 64;
const ADOPT_SLACK: f64 = 1.25;

/// Give every bone-owning joint that no vertex takes heat from (its bones are never the nearest
/// visible one, e.g. short spine bones on a low-poly torso) the vertices that are relatively
/// closest to its bones: those minimizing `d_bone / d_source` among the vertices listed in
/// `candidates` that can see the bone, within `ADOPT_SLACK` of the best, at most `ADOPT_MAX`.
/// The joint is added to their source as a tie, so after renormalization it shares them. Without
/// this the heat equation gives such a joint exactly zero weight (its right-hand side is zero),
/// and rotating it would move nothing. A joint whose bones no candidate can see at all (a leaf
/// just outside the skin, whose virtual segment is empty: a mouth corner on the cheek, a finger
/// tip past a thin finger) adopts the same way without the sight test: on every artist skeleton
/// measured, such a joint carries the artist's weight (bench/results.md "Skin weights, round
/// 9"). Returns the joints that adopted vertices.
pub fn adopt_orphans(
    points: &[P3],
    bones: &[Bone],
    sources: &mut [Option<Source>],
    candidates: &[u32],
    owned: &[bool],
    sdf: &dyn Fn(&P3) -> f64,
) -> Vec<u32> {
    let orphans: Vec<u32> = bones
        .iter()
        .map(|b| b.joint)
        .filter(|&j| !owned.get(j as usize).copied().unwrap_or(true))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    orphans
        .into_iter()
        .filter(|&joint| {
            let mine: Vec<&Bone> = bones.iter().filter(|b| b.joint == joint).collect();
            // Ranked once: a pass that takes nothing changes no source, so the blind retry
            // would rank the same list.
            let ranked = rank(points, &mine, sources, candidates);
            adopt(points, &mine, joint, sources, &ranked, Some(sdf)) > 0
                || adopt(points, &mine, joint, sources, &ranked, None) > 0
        })
        .collect()
}

/// The `candidates` with a source, as (distance to the nearest of the orphan's bones `mine` over
/// the distance to the source, vertex, that bone's index in `mine`), relatively nearest first.
fn rank(
    points: &[P3],
    mine: &[&Bone],
    sources: &[Option<Source>],
    candidates: &[u32],
) -> Vec<(f64, u32, usize)> {
    let mut ranked: Vec<(f64, u32, usize)> = candidates
        .iter()
        .filter_map(|&v| {
            let src = sources.get(v as usize)?.as_ref()?;
            let p = points.get(v as usize)?;
            let (b, d) = mine
                .iter()
                .enumerate()
                .map(|(k, b)| (k, b.distance(p)))
                .min_by(|x, y| x.1.total_cmp(&y.1))?;
            Some((d / src.distance.max(1e-12), v, b))
        })
        .collect();
    ranked.sort_by(|x, y| x.0.total_cmp(&y.0));
    ranked
}

/// One orphan `joint` (bones `mine`) adopts the `ranked` candidates ([`rank`]) relatively nearest
/// its bones, those that see the bone when `sight` gives the field ([`adopt_orphans`]); returns
/// how many.
fn adopt(
    points: &[P3],
    mine: &[&Bone],
    joint: u32,
    sources: &mut [Option<Source>],
    ranked: &[(f64, u32, usize)],
    sight: Option<&dyn Fn(&P3) -> f64>,
) -> usize {
    let mut best = None;
    let mut taken = 0;
    for &(ratio, v, b) in ranked {
        if best.is_some_and(|r: f64| ratio > r * ADOPT_SLACK) || taken >= ADOPT_MAX {
            break;
        }
        let p = &points[v as usize];
        if sight.is_some_and(|sdf| !visible(p, &mine[b].closest_point(p), sdf)) {
            continue;
        }
        best.get_or_insert(ratio);
        if let Some(Some(s)) = sources.get_mut(v as usize) {
            s.joints.push(joint);
            taken += 1;
        }
    }
    taken
}

/// Index of the bone nearest to `p` (ignoring visibility), `None` only for no bones.
pub fn nearest_bone(p: &P3, bones: &[Bone]) -> Option<(usize, f64)> {
    bones
        .iter()
        .enumerate()
        .map(|(b, bone)| (b, bone.distance(p)))
        .min_by(|x, y| x.1.total_cmp(&y.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oriented_distance_counts_bones_the_surface_does_not_face_as_farther() {
        let bone = Bone {
            a: P3::new(0.0, -1.0, 0.0),
            b: P3::new(0.0, 1.0, 0.0),
            joint: 0,
        };
        let p = P3::new(0.5, 0.0, 0.0);
        let d = |n: V3| oriented_distance(&p, &bone, Some(&n));
        assert_eq!(oriented_distance(&p, &bone, None), 0.5);
        assert!(
            (d(V3::new(2.0, 0.0, 0.0)) - 0.5 / 1.0005).abs() < 1e-12,
            "faced squarely"
        );
        assert!(
            (d(V3::new(0.0, 1.0, 0.0)) - 0.5 / 0.5005).abs() < 1e-12,
            "edge-on: about 2×"
        );
        assert!(
            d(V3::new(-1.0, 0.0, 0.0)) > 900.0,
            "behind the surface: out of reach"
        );
    }

    #[test]
    fn a_vertex_takes_heat_from_the_bone_its_surface_faces() {
        // Inside everywhere: only the orientation decides. The point is 0.30 from bone 0 (to its
        // side, seen edge-on by a normal along +y) and 0.35 from bone 1 (straight below it).
        let sdf = |_: &P3| -1.0;
        let bones = [
            Bone {
                a: P3::new(-0.3, -1.0, 0.0),
                b: P3::new(-0.3, 1.0, 0.0),
                joint: 0,
            },
            Bone {
                a: P3::new(-1.0, -0.35, 0.0),
                b: P3::new(1.0, -0.35, 0.0),
                joint: 1,
            },
        ];
        let p = [P3::origin()];
        let plain = sources(&p, None, &bones, &sdf);
        assert_eq!(plain[0].as_ref().map(|s| s.joints.clone()), Some(vec![0]));
        let up = [V3::new(0.0, 1.0, 0.0)];
        let oriented = sources(&p, Some(&up), &bones, &sdf);
        let s = oriented[0].as_ref().expect("a source");
        assert_eq!(s.joints, vec![1]);
        assert!((s.distance - 0.35 / 1.0005).abs() < 1e-12);
    }

    #[test]
    fn visibility_blocked_by_outside() {
        // Two balls of radius 0.2 at x = ±0.5: the gap between them is outside.
        let sdf = |p: &P3| {
            let a = (p - P3::new(-0.5, 0.0, 0.0)).norm() - 0.2;
            let b = (p - P3::new(0.5, 0.0, 0.0)).norm() - 0.2;
            a.min(b)
        };
        let v = P3::new(-0.3, 0.0, 0.0); // on the left ball's surface
        assert!(visible(&v, &P3::new(-0.5, 0.0, 0.0), &sdf));
        assert!(!visible(&v, &P3::new(0.5, 0.0, 0.0), &sdf));
        let bones = [
            Bone {
                a: P3::new(0.0, -0.1, 0.0),
                b: P3::new(0.0, 0.1, 0.0),
                joint: 1,
            },
            Bone {
                a: P3::new(-0.65, -0.1, 0.0),
                b: P3::new(-0.65, 0.1, 0.0),
                joint: 0,
            },
        ];
        // The bone in the gap is nearer to this point of the left ball, but hidden.
        let q = P3::new(-0.3, 0.0, 0.0);
        let s = source(&q, None, &bones, &sdf).expect("left bone visible");
        assert_eq!(s.joints, vec![0]);
        assert!((s.distance - 0.35).abs() < 1e-12);
    }
}
