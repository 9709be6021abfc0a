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

use std::collections::BTreeMap;

use crate::geom::P3;

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
        return None;
    }
    let (j, s) = per_joint
        .into_iter()
        .map(|(j, s)| (j, s / total))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    (s >= threshold).then_some((j, s))
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
}
