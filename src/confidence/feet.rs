//! Feet that point backwards: a biped embedded facing the wrong way (issue 12, joints).
//!
//! A human's body is nearly the same seen from the front and from the back, so the limb cost of
//! the search (Baran & Popović 2007 §4) hardly tells the two facings of one up axis apart: the
//! held-out `nobody` costs 0.0297 facing backwards and 0.0298 facing forwards. The feet do tell
//! them apart: a sole reaches far ahead of the ankle (the toes) and little behind it (the heel).
//! Embedded backwards, the toe chains point down into the heels, the ankles sit high, and the
//! mesh below each ankle reaches farther *behind* it than ahead.
//!
//! The measure, per foot of the template whose foot lies flat ([`flat_feet`]): the mesh vertices
//! whose nearest bone is one of that foot's (the shin and the bones below the ankle) and that lie
//! no higher than the ankle; how far they reach ahead of the ankle and behind it, along the
//! embedding's forward direction. The feet point backwards when **every** measured foot reaches
//! farther behind than ahead. No tolerance: the comparison is between the mesh's own two reaches.
//!
//! A second check on the same feet ([`toeless`]): a toe end that does not lie ahead of its
//! ankle at all. Sole vertices and the sphere graph disagree there: a sole thinner than 4τ holds
//! no sphere, so the toe chain cannot enter it (the held-out `sofia`, turned round: one toe end
//! 0.003 behind its ankle, 15 cm up the shin), while every corpus rig's toe end lies ahead of its
//! ankle by a third or more of the sole's reach. Such a rig is `low_confidence`, and under
//! `--skeleton auto` the finer discretization ([`crate::pipeline`]'s retry) reaches the sole.
//!
//! Only templates with a flat foot are judged. A quadruped's paw or hoof is short and nearly
//! vertical in the template (the quadruped's toe end lies 0.06 ahead of and 0.05 below its
//! ankle, the horse's 0.04 ahead and 0.05 below), and real ones are not reliably longer in front
//! (a hoof of the corpus toy cow `spot` measured 0.16 ahead against 0.31 behind, on a rig later
//! found to face backwards: the measure was not repeated on a right one). Turning a
//! quadruped round swaps its head and tail, which the limb cost usually tells apart: over the
//! corpus's nine quadrupeds and the held-out panda, each turned to face all four ways about its
//! up axis (40 fits), the right facing costs less in 35, often by a wide margin (camel 0.013
//! against 0.034, monster 0.125 against 0.514), but the fox facing −X costs *less* head-in-tail
//! (0.195 against 0.233: its bushy tail passes for a head) and so does `spot` in all four turns
//! (0.130–0.164 against 0.137–0.197). A quadruped's head-and-tail facing is therefore not proven by
//! the cost; the silhouette tells them apart ([`super::ends`]: a head stands above a tail).

use crate::embed::{Embedding, Orientation};
use crate::geom::{JointId, P3, V3};
use crate::skeleton::Skeleton;

/// A template foot lies flat when its toe end reaches forward of the ankle at least this many
/// times as far as it drops below it: a sole (the human's 0.20 ahead, 0.05 down: 4×), not a paw
/// or a hoof (the quadruped's 1.2×, the horse's 0.8×).
pub const FLAT_FOOT: f64 = 2.0;

/// One flat template foot: the ankle and the joints below it, down to the toe end.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatFoot {
    /// The ankle: the lowest joint of the leg reached by a mostly vertical bone.
    pub ankle: JointId,
    /// The joints below the ankle, toward the toe end (the end last).
    pub below: Vec<JointId>,
}

/// How far one foot's sole reaches ahead of and behind its ankle (normalized units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// Farthest reach ahead of the ankle, along the embedding's forward direction.
    pub ahead: f64,
    /// Farthest reach behind it.
    pub behind: f64,
}

/// The template's flat feet (module docs): from each `foot` end joint, up the run of bones that
/// are more horizontal than vertical (template frame: +Y up, facing +Z) to the ankle; kept when the
/// end lies ahead of the ankle by at least [`FLAT_FOOT`] times its drop.
pub fn flat_feet(skel: &Skeleton) -> Vec<FlatFoot> {
    let mut out = Vec::new();
    for (i, j) in skel.joints.iter().enumerate().filter(|(_, j)| j.foot) {
        let mut below = vec![JointId(i)];
        let mut ankle = i;
        while let Some(p) = skel.joints[ankle].parent {
            let d = skel.joints[ankle].rest - skel.joints[p.0].rest;
            if d.y.abs() >= d.x.hypot(d.z) {
                break;
            }
            ankle = p.0;
            below.push(p);
        }
        below.pop();
        below.reverse();
        let d = j.rest - skel.joints[ankle].rest;
        if !below.is_empty() && d.z >= FLAT_FOOT * (-d.y).max(0.0) && d.z > 0.0 {
            out.push(FlatFoot {
                ankle: JointId(ankle),
                below,
            });
        }
    }
    out
}

/// Distance from `p` to the segment `a`–`b`.
fn segment_distance(p: &P3, a: &P3, b: &P3) -> f64 {
    let d = b - a;
    let t = ((p - a).dot(&d) / d.norm_squared().max(1e-300)).clamp(0.0, 1.0);
    (p - (a + d * t)).norm()
}

/// Each flat foot's reach (module docs) for joints `q` seen through `o`, over mesh `positions`
/// (normalized frame); `None` for a foot no vertex belongs to.
pub fn reaches(positions: &[P3], skel: &Skeleton, q: &[P3], o: &Orientation) -> Vec<Option<Reach>> {
    let feet = flat_feet(skel);
    let bones: Vec<(usize, usize)> = skel
        .joints
        .iter()
        .enumerate()
        .filter_map(|(c, j)| j.parent.map(|p| (p.0, c)))
        .collect();
    if feet.is_empty() || bones.is_empty() || q.len() != skel.joints.len() {
        return Vec::new();
    }
    let (up, fwd) = (o.unapply(&V3::y()), o.unapply(&V3::z()));
    let mut reach: Vec<Option<Reach>> = vec![None; feet.len()];
    for p in positions {
        // A vertex above every foot's ankle is measured by none of them: whichever bone is
        // nearest, the height test below skips it. The same comparison as there, so the same
        // vertices are measured; most of a biped lies above its ankles, and the nearest-bone
        // search over every bone was nearly all of this function's time (14.9 M instructions of
        // sveta's 1 047 M).
        if feet.iter().all(|f| (p - q[f.ankle.0]).dot(&up) > 0.0) {
            continue;
        }
        let nearest = bones
            .iter()
            .map(|(a, b)| (segment_distance(p, &q[*a], &q[*b]), *b))
            .min_by(|x, y| x.0.total_cmp(&y.0))
            .map(|(_, child)| child);
        let Some(child) = nearest else { continue };
        // The shin's bone ends at the ankle; the others at the joints below it.
        let Some(k) = feet
            .iter()
            .position(|f| f.ankle.0 == child || f.below.contains(&JointId(child)))
        else {
            continue;
        };
        let v = p - q[feet[k].ankle.0];
        if v.dot(&up) > 0.0 {
            continue;
        }
        let x = v.dot(&fwd);
        let r = reach[k].get_or_insert(Reach {
            ahead: f64::NEG_INFINITY,
            behind: f64::NEG_INFINITY,
        });
        r.ahead = r.ahead.max(x);
        r.behind = r.behind.max(-x);
    }
    reach
}

/// The reason when the feet point backwards (module docs), or `None`. Feet on a chain holding a
/// user's pin are the user's call and are not measured.
pub fn backwards(positions: &[P3], skel: &Skeleton, emb: &Embedding) -> Option<String> {
    backwards_at(positions, skel, &emb.joints, &emb.orientation, &emb.pinned)
}

/// [`backwards`] for joints `q` (normalized frame) seen through `o`, with the user's `pinned`
/// joints: the form the multi-component path, which has no [`Embedding`] yet, calls.
pub fn backwards_at(
    positions: &[P3],
    skel: &Skeleton,
    q: &[P3],
    o: &Orientation,
    pinned: &[JointId],
) -> Option<String> {
    let feet = flat_feet(skel);
    let pinned = |f: &FlatFoot| pinned_foot(skel, f, pinned);
    let measured: Vec<Reach> = reaches(positions, skel, q, o)
        .into_iter()
        .zip(&feet)
        .filter(|(_, f)| !pinned(f))
        .filter_map(|(r, _)| r)
        .collect();
    if measured.is_empty() || measured.iter().any(|r| r.behind <= r.ahead) {
        return None;
    }
    let pct = |x: f64| 100.0 * x / crate::mesh::normalize::NORMALIZED_SIDE;
    let behind = measured.iter().map(|r| r.behind).fold(0.0, f64::max);
    let ahead = measured
        .iter()
        .map(|r| r.ahead)
        .fold(f64::NEG_INFINITY, f64::max);
    Some(format!(
        "the feet point backwards: below the ankles the mesh reaches {:.1}% of the model's size \
         behind them and only {:.1}% ahead, so the character probably faces the other way \
         ({} rather than {})",
        pct(behind),
        pct(ahead),
        turned(o).label(),
        o.label()
    ))
}

/// Flat feet (of the template) whose embedded toe end does not lie ahead of the embedded ankle
/// along the embedding's forward direction: the foot holds no toe joint. The template's flat foot
/// is defined by its end lying ahead of its ankle, so no tolerance is needed; it happens where a
/// sole is thinner than the sphere graph reaches (4τ): the toe chain cannot enter it and ends in
/// the shin. Returns the toe ends' names; feet on a chain holding a user's pin are not judged.
pub fn toeless(skel: &Skeleton, emb: &Embedding) -> Vec<String> {
    if emb.joints.len() != skel.joints.len() {
        return Vec::new();
    }
    let fwd = emb.orientation.unapply(&V3::z());
    flat_feet(skel)
        .into_iter()
        .filter(|f| !pinned_foot(skel, f, &emb.pinned))
        .filter_map(|f| {
            let end = *f.below.last()?;
            let reach = (emb.joints[end.0] - emb.joints[f.ankle.0]).dot(&fwd);
            (reach <= 0.0).then(|| skel.joints[end.0].name.clone())
        })
        .collect()
}

/// A foot whose leg chain (the toe end and every joint above it) holds a user's pin.
fn pinned_foot(skel: &Skeleton, f: &FlatFoot, pinned: &[JointId]) -> bool {
    let mut j = Some(f.below.last().copied().unwrap_or(f.ankle));
    while let Some(id) = j {
        if pinned.contains(&id) {
            return true;
        }
        j = skel.joints[id.0].parent;
    }
    false
}

/// The same up axis, facing the opposite way (a half turn about up).
pub fn turned(o: &Orientation) -> Orientation {
    let (up, fwd) = (o.rows[1], o.rows[2]);
    Orientation::from_up_forward(up, (fwd.0, -fwd.1)).unwrap_or(*o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::load_template;

    #[test]
    fn only_the_human_foot_lies_flat() {
        let h = load_template("human").unwrap();
        let feet = flat_feet(&h);
        assert_eq!(feet.len(), 2);
        for f in &feet {
            assert!(h.joints[f.ankle.0].name.ends_with("Foot"));
            assert_eq!(f.below.len(), 2);
        }
        for name in ["quadruped", "horse"] {
            assert!(
                flat_feet(&load_template(name).unwrap()).is_empty(),
                "{name}"
            );
        }
    }

    /// [`reaches`] as written before vertices above every ankle were skipped up front.
    fn reaches_searching_every_vertex(
        positions: &[P3],
        skel: &Skeleton,
        q: &[P3],
        o: &Orientation,
    ) -> Vec<Option<Reach>> {
        let feet = flat_feet(skel);
        let bones: Vec<(usize, usize)> = skel
            .joints
            .iter()
            .enumerate()
            .filter_map(|(c, j)| j.parent.map(|p| (p.0, c)))
            .collect();
        let (up, fwd) = (o.unapply(&V3::y()), o.unapply(&V3::z()));
        let mut reach: Vec<Option<Reach>> = vec![None; feet.len()];
        for p in positions {
            let nearest = bones
                .iter()
                .map(|(a, b)| (segment_distance(p, &q[*a], &q[*b]), *b))
                .min_by(|x, y| x.0.total_cmp(&y.0))
                .map(|(_, child)| child);
            let Some(child) = nearest else { continue };
            let Some(k) = feet
                .iter()
                .position(|f| f.ankle.0 == child || f.below.contains(&JointId(child)))
            else {
                continue;
            };
            let v = p - q[feet[k].ankle.0];
            if v.dot(&up) > 0.0 {
                continue;
            }
            let x = v.dot(&fwd);
            let r = reach[k].get_or_insert(Reach {
                ahead: f64::NEG_INFINITY,
                behind: f64::NEG_INFINITY,
            });
            r.ahead = r.ahead.max(x);
            r.behind = r.behind.max(-x);
        }
        reach
    }

    #[test]
    fn skipping_vertices_above_the_ankles_changes_no_reach() {
        let h = load_template("human").unwrap();
        let q: Vec<P3> = h.joints.iter().map(|j| j.rest).collect();
        let (lo, hi) = q
            .iter()
            .fold((q[0], q[0]), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
        // A lattice over the template's box and a margin, some points exactly at ankle height.
        let n = 24;
        let at = |i: usize, a: usize| lo[a] - 0.1 + (hi[a] - lo[a] + 0.2) * i as f64 / n as f64;
        let mut positions: Vec<P3> = (0..=n)
            .flat_map(|i| (0..=n).flat_map(move |j| (0..=n).map(move |k| (i, j, k))))
            .map(|(i, j, k)| P3::new(at(i, 0), at(j, 1), at(k, 2)))
            .collect();
        for f in flat_feet(&h) {
            let a = q[f.ankle.0];
            positions.extend((0..9).map(|i| P3::new(a.x + 0.01 * i as f64, a.y, a.z - 0.04)));
        }
        for o in ["+y,+z", "+y,-z", "+z,+y", "-x,+z"] {
            let o = Orientation::parse(o).unwrap();
            let fast = reaches(&positions, &h, &q, &o);
            assert_eq!(fast, reaches_searching_every_vertex(&positions, &h, &q, &o));
            assert!(fast.iter().any(|r| r.is_some()), "{}", o.label());
        }
        // Only points exactly at ankle height, behind the ankles: each foot is measured by them
        // alone (a vertex level with an ankle is not above it), so skipping them would show.
        let level: Vec<P3> = flat_feet(&h)
            .iter()
            .map(|f| q[f.ankle.0] - V3::new(0.0, 0.0, 0.02))
            .collect();
        let o = Orientation::IDENTITY;
        let fast = reaches(&level, &h, &q, &o);
        assert_eq!(fast, reaches_searching_every_vertex(&level, &h, &q, &o));
        assert!(fast.iter().all(|r| r.is_some()), "{fast:?}");
    }

    #[test]
    fn a_half_turn_keeps_up_and_flips_forward() {
        let o = Orientation::parse("+z,+y").unwrap();
        let t = turned(&o);
        assert_eq!(t.label(), "+Z up, -Y forward");
        assert_eq!(turned(&t), o);
    }
}
