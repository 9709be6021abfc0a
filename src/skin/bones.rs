//! The bone segments that emit heat, and which joint owns each (glTF convention).
//!
//! A bone segment parent→child moves with the **parent** joint's transform, so heat from segment
//! (P→C) goes to joint P; a joint with several children owns several segments; end markers own
//! nothing (the original Pinocchio uses bone b = joint b+1 → parent, weights per bone; we map them to
//! the joint that moves the bone). Artist skeletons end heads, hands and tails at joints with no
//! child: such a *leaf* that is not an end marker gets a virtual segment continuing its parent
//! bone's direction until it leaves the surface, so it owns the part of the mesh beyond it. The
//! segment also stops at the first surface the ray meets ([`Surface::first_hit`]): a leaf inside an
//! inner shell (an eye in its eyeball, a tooth) owns that shell, not the patch of skin beyond it.
//! A leaf a little outside the skin (a hand joint just off a low-poly hand) starts its segment at
//! the nearest inside point (`leaf_start`), so it still owns the end of its limb.
//!
//! Heat comes from the part of a bone inside the surface (BP07 §4 assumes the skeleton is inside):
//! an artist's bone whose child end pokes out of a thin part (a fin, a tail tip, an ear) ends where
//! it leaves the surface ([`trim_child_end`]). Otherwise the vertices beyond the exit point have
//! their closest bone point in the air, cannot see it through the inside, and take their heat from
//! a farther bone of another part. Only the child end is trimmed, so there is still one bone per
//! link (the edit regions rely on that order).
//!
//! A chain's last joint inside the surface (a leaf that is its parent's only deforming child: a
//! foot, a hand, a head) whose incoming bone's direction leaves the skin within half that bone's
//! length (a foot joint at the heel, the shin pointing into the ground) turns its segment to the
//! direction, within 90° of the bone, along which its part runs farthest
//! (`skin::leaf_direction`): the artist's last bone points along the part the joint list only
//! gives the start of.
//!
//! A joint whose every child is a leaf, two or more of them, ends its chain as a leaf does: an
//! artist's head carrying eye, brow and mouth bones, a snout carrying mouth bones
//! ([`leaf_hubs`]). Its only bones run to those leaves, which sit inside the part (the face),
//! so the leaves' virtual segments fan through the skull and own it; in the artist's tool the
//! head bone has a tail up through the skull that the joint list does not carry. Such a hub gets
//! the leaf's virtual segment too, continuing its incoming bone to the surface, after the leaves'.

use rayon::prelude::*;

use super::heat::VISIBILITY_TOLERANCE;
use super::leaf_direction;
use crate::discretize::ray::plane_hit;
use crate::geom::{P3, V3};

/// A heat-emitting segment, normalized frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bone {
    /// Segment start (normalized frame).
    pub a: P3,
    /// Segment end (normalized frame); equal to `a` for a point bone.
    pub b: P3,
    /// Joint whose transform the segment follows (index into the rig's joint list).
    pub joint: u32,
}

impl Bone {
    /// Closest point of the segment to `p`.
    pub fn closest_point(&self, p: &P3) -> P3 {
        let d = self.b - self.a;
        let len2 = d.norm_squared();
        if len2 <= f64::MIN_POSITIVE {
            return self.a;
        }
        let t = ((p - self.a).dot(&d) / len2).clamp(0.0, 1.0);
        self.a + d * t
    }

    /// Distance from `p` to the segment.
    pub fn distance(&self, p: &P3) -> f64 {
        (p - self.closest_point(p)).norm()
    }
}

/// The welded surface, normalized frame, for the leaves' first ray hit.
#[derive(Clone, Copy)]
pub struct Surface<'a> {
    /// Vertex positions (normalized frame).
    pub positions: &'a [P3],
    /// Triangles (indices into `positions`).
    pub triangles: &'a [[u32; 3]],
}

impl Surface<'_> {
    /// Distance along the unit ray `start + t·u` (t > 0) to the first triangle it meets, if any
    /// (Möller–Trumbore; both sides count). Brute force: it runs once per leaf joint, and the
    /// smallest hit does not depend on the triangles' order.
    pub fn first_hit(&self, start: &P3, u: &V3) -> Option<f64> {
        let mut best: Option<f64> = None;
        for t in self.triangles {
            let [a, b, c] = t.map(|i| self.positions.get(i as usize));
            let (Some(a), Some(b), Some(c)) = (a, b, c) else {
                continue;
            };
            if let Some(d) = ray_triangle(start, u, a, b, c) {
                if best.is_none_or(|x| d < x) {
                    best = Some(d);
                }
            }
        }
        best
    }
}

/// Distance along `u` from `o` to triangle `abc`, if the ray (t > 0) meets it (edges count).
fn ray_triangle(o: &P3, u: &V3, a: &P3, b: &P3, c: &P3) -> Option<f64> {
    let h = plane_hit(&o.coords, u, &[a.coords, b.coords, c.coords])?;
    let inside = h.u >= 0.0 && h.v >= 0.0 && h.u + h.v <= 1.0;
    (inside && h.along > 0.0).then_some(h.along)
}

/// Step of the surface march for virtual leaf segments, normalized units.
pub(super) const MARCH_STEP: f64 = 0.0025;
/// Longest virtual segment, normalized units (the whole unit cube).
pub(super) const MARCH_MAX: f64 = 1.5;

/// The bones of a skeleton. `joints[j] = (position, parent, end)` with positions in the
/// **normalized frame**; `sdf` is the signed distance (negative inside) used to extend leaves.
/// Out-of-range parents are treated as roots. A lone joint with no parent and no children that is
/// not an end marker becomes a point bone, so every non-end joint can own vertices.
pub fn bones(
    joints: &[(P3, Option<usize>, bool)],
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
    surface: Option<Surface<'_>>,
) -> Vec<Bone> {
    let n = joints.len();
    let parent = |j: usize| joints[j].1.filter(|&p| p < n && p != j);
    let mut has_child = vec![false; n];
    // A leaf that is its parent's only deforming child ends a chain (a foot, a hand, a head, a
    // tail tip), not a fan of face bones.
    let chain_end = |j: usize| {
        parent(j).is_some_and(|p| {
            (0..n)
                .filter(|&c| parent(c) == Some(p) && !joints[c].2)
                .count()
                == 1
        })
    };
    let mut links = Vec::new();
    for c in 0..n {
        if let Some(p) = parent(c) {
            has_child[p] = true;
            if !joints[p].2 {
                links.push((p, c));
            }
        }
    }
    // Each bone's trim and each leaf's segment read the field along their own marches only:
    // independent, so they run on every core (a field built where it is read, as `attach`'s,
    // builds its cells on first reading; its values do not depend on who reads first), and the
    // indexed collects keep the serial order.
    let mut out: Vec<Bone> = links
        .par_iter()
        .map(|&(p, c)| Bone {
            a: joints[p].0,
            b: trim_child_end(&joints[p].0, &joints[c].0, sdf),
            joint: p as u32,
        })
        .collect();
    let leaves: Vec<usize> = (0..n).filter(|&j| !has_child[j] && !joints[j].2).collect();
    let leaf = |j: usize| {
        let joint = &joints[j];
        let dir = parent(j)
            .map(|p| joint.0 - joints[p].0)
            .unwrap_or_else(V3::zeros);
        let a = leaf_start(&joint.0, dir.norm(), sdf);
        // A leaf off the skin marks a spot on it (a mouth corner on the cheek), not the start of
        // a part: it keeps its bone's direction.
        let dir = if chain_end(j) && a == joint.0 {
            leaf_direction::turn(&a, &dir, sdf)
        } else {
            dir
        };
        Bone {
            a,
            b: extend_leaf(&a, &dir, sdf, surface),
            joint: j as u32,
        }
    };
    out.par_extend(leaves.par_iter().map(|&j| leaf(j)));
    let hubs = leaf_hubs(n, parent, |j| joints[j].2);
    out.par_extend(hubs.par_iter().filter_map(|&j| {
        let p = parent(j)?;
        let dir = joints[j].0 - joints[p].0;
        Some(Bone {
            a: joints[j].0,
            b: extend_leaf(&joints[j].0, &dir, sdf, surface),
            joint: j as u32,
        })
    }));
    out
}

/// The joints that end their chain with a fan of leaves, in index order: not an end marker, with
/// a parent, and with at least two children that are not end markers, each without a child of
/// its own (a leaf). One such joint (a head with eyes, brows and mouth bones) owns, besides its
/// bones to the leaves, a virtual segment continuing its incoming bone, as a leaf does. A joint
/// with one leaf child (a neck carrying the head) is a chain and keeps its bone alone; a joint
/// with a chain among its children (a hand with finger chains, a chest) is not the end of one.
pub fn leaf_hubs(
    n: usize,
    parent: impl Fn(usize) -> Option<usize>,
    end: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut children = vec![0usize; n];
    let mut live = vec![0usize; n];
    for c in 0..n {
        if let Some(p) = parent(c) {
            children[p] += 1;
            live[p] += usize::from(!end(c));
        }
    }
    let mut chain = vec![false; n];
    for (c, &grand) in children.iter().enumerate() {
        if let Some(p) = parent(c) {
            chain[p] |= !end(c) && grand > 0;
        }
    }
    (0..n)
        .filter(|&j| !end(j) && parent(j).is_some() && live[j] >= 2 && !chain[j])
        .collect()
}

/// The child end of the bone `a → b` (parent → child), moved back along the bone to where it comes
/// within [`VISIBILITY_TOLERANCE`] of the inside when the bone starts inside and ends outside (found
/// by marching in `MARCH_STEP`s, then bisection). A bone that starts outside (a ground-level root
/// → hips, a prop's outside parent) is kept whole, as before: trimming its parent end would turn
/// its inside part into a heat source the artist never weights (`attach` marks a joint outside whose
/// bones lie mostly outside as a control first, [`super::controls`]).
pub fn trim_child_end(a: &P3, b: &P3, sdf: &dyn Fn(&P3) -> f64) -> P3 {
    let outside = |p: &P3| sdf(p) > VISIBILITY_TOLERANCE;
    if !outside(b) || outside(a) {
        return *b;
    }
    match entry(b, a, &outside) {
        Some(t) => b + (a - b) * t,
        None => *b,
    }
}

/// The fraction t ∈ (0, 1] of `from → to` (`from` outside) where the segment first stops being
/// `outside`, if it does.
fn entry(from: &P3, to: &P3, outside: &dyn Fn(&P3) -> bool) -> Option<f64> {
    let len = (to - from).norm();
    if len <= 1e-12 {
        return None;
    }
    let step = (MARCH_STEP / len).min(1.0);
    let at = |t: f64| from + (to - from) * t;
    let mut lo = 0.0;
    let hit = loop {
        let t = (lo + step).min(1.0);
        if !outside(&at(t)) {
            break t;
        }
        if t >= 1.0 {
            return None;
        }
        lo = t;
    };
    // The crossing lies in (lo, hit]: halve it down to far below the field's accuracy.
    let mut hi = hit;
    for _ in 0..BISECTIONS {
        let mid = 0.5 * (lo + hi);
        if outside(&at(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(hi)
}

/// Where a leaf's virtual segment starts: the leaf itself when it is inside, else, when the leaf
/// lies a little outside (a hand joint placed on the skin of a low-poly arm, a finger tip past a
/// thin finger, a tail tip past a fin), the nearest inside point: the leaf moved against the
/// field's gradient (central differences, one `MARCH_STEP`) by its distance plus one step. What
/// lies beyond a chain's last joint along its bone moves with that joint in the artist's rig
/// (LBS), so the leaf owns that end of the limb; left outside, its segment was empty, no vertex
/// could see it and it only adopted a few vertices ([`super::heat::adopt_orphans`]), the limb's
/// end following the parent bone instead. The move is allowed up to half the incoming bone's
/// length: farther out the joint is not on this part's skin (`attach` makes a joint whose bones
/// lie more than half outside a control, [`super::controls`]), and the leaf stays where it is.
fn leaf_start(p: &P3, incoming: f64, sdf: &dyn Fn(&P3) -> f64) -> P3 {
    let f = sdf(p);
    if f < 0.0 {
        return *p;
    }
    let h = MARCH_STEP;
    let g = V3::new(
        sdf(&(p + V3::x() * h)) - sdf(&(p - V3::x() * h)),
        sdf(&(p + V3::y() * h)) - sdf(&(p - V3::y() * h)),
        sdf(&(p + V3::z() * h)) - sdf(&(p - V3::z() * h)),
    );
    let n = g.norm();
    let shift = f + MARCH_STEP;
    if n <= 1e-12 || shift > 0.5 * incoming {
        return *p;
    }
    let q = p - g / n * shift;
    if sdf(&q) < 0.0 {
        q
    } else {
        *p
    }
}

/// Bisection steps of [`entry`]: a march step of 0.0025 units halved 20 times is ~2.4e-9 units.
const BISECTIONS: usize = 20;

/// March from `start` along `dir` while the field says inside; returns the last inside point
/// (`start` itself if it is outside, or if `dir` is zero).
fn extend_leaf(start: &P3, dir: &V3, sdf: &dyn Fn(&P3) -> f64, surface: Option<Surface<'_>>) -> P3 {
    let len = dir.norm();
    if len <= 1e-12 || !len.is_finite() || sdf(start) >= 0.0 {
        return *start;
    }
    let u = dir / len;
    let mut t = 0.0;
    while t + MARCH_STEP <= MARCH_MAX {
        let q = start + u * (t + MARCH_STEP);
        let f = sdf(&q);
        if f >= 0.0 {
            break;
        }
        // Far from the surface the field bounds the free distance, so stride by it.
        t += MARCH_STEP.max(-f * 0.9);
    }
    if let Some(hit) = surface.and_then(|s| s.first_hit(start, &u)) {
        t = t.min(hit);
    }
    start + u * t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ownership_follows_parent_and_leaves_extend_to_surface() {
        // Unit ball at the origin as the surface.
        let sdf = |p: &P3| p.coords.norm() - 1.0;
        let joints = vec![
            (P3::new(0.0, 0.0, 0.0), None, false),
            (P3::new(0.0, 0.5, 0.0), Some(0), false), // leaf, not an end marker
            (P3::new(0.0, -0.5, 0.0), Some(0), false),
            (P3::new(0.0, -0.8, 0.0), Some(2), true), // end marker
        ];
        let b = bones(&joints, &sdf, None);
        let owners: Vec<u32> = b.iter().map(|b| b.joint).collect();
        assert_eq!(owners, vec![0, 0, 2, 1]);
        let virt = b[3];
        assert!(
            (virt.b.y - 1.0).abs() < 0.01,
            "leaf extended to {:?}",
            virt.b
        );
        assert!(virt.b.x.abs() < 1e-12);
    }

    #[test]
    fn a_leaf_inside_an_inner_shell_stops_at_that_shell() {
        // A body (unit ball, by its field) holding an eyeball (a small box around the leaf).
        let sdf = |p: &P3| p.coords.norm() - 1.0;
        let (positions, triangles) =
            crate::geom::box_mesh(P3::new(-0.1, -0.1, -0.1), P3::new(0.1, 0.1, 0.1));
        let surface = Surface {
            positions: &positions,
            triangles: &triangles,
        };
        let joints = vec![
            (P3::new(0.0, -0.5, 0.0), None, false),
            (P3::new(0.0, 0.0, 0.0), Some(0), false), // the eye: a leaf in its eyeball
        ];
        let alone = bones(&joints, &sdf, None)[1];
        assert!((alone.b.y - 1.0).abs() < 0.01, "{:?}", alone.b);
        let inner = bones(&joints, &sdf, Some(surface))[1];
        assert!((inner.b.y - 0.1).abs() < 1e-9, "{:?}", inner.b);
        assert_eq!(inner.joint, 1);
    }

    #[test]
    fn a_bone_leaving_the_surface_ends_where_it_leaves() {
        let sdf = |p: &P3| p.coords.norm() - 1.0; // unit ball
        let o = P3::new(0.0, 0.0, 0.0);
        let inside = P3::new(0.0, 0.5, 0.0);
        assert_eq!(trim_child_end(&o, &inside, &sdf), inside);
        // Out at the child end: it stops where the field reaches the tolerance.
        let b = trim_child_end(&o, &P3::new(0.0, 2.0, 0.0), &sdf);
        assert!((b.y - (1.0 + VISIBILITY_TOLERANCE)).abs() < 1e-6, "{b:?}");
        assert!(b.x.abs() < 1e-12 && b.z.abs() < 1e-12);
        // A bone coming from outside (a ground-level root to the hips) is kept whole.
        let ground = P3::new(0.0, -3.0, 0.0);
        assert_eq!(trim_child_end(&ground, &inside, &sdf), inside);
        let far = P3::new(0.0, 3.0, 0.0);
        assert_eq!(trim_child_end(&ground, &far, &sdf), far);
    }

    #[test]
    fn a_hub_of_leaves_continues_its_incoming_bone() {
        let sdf = |p: &P3| p.coords.norm() - 1.0; // unit ball
        let j =
            |x: f64, y: f64, parent: Option<usize>, end: bool| (P3::new(x, y, 0.0), parent, end);
        // neck → head → two face leaves and an end marker.
        let joints = vec![
            j(0.0, -0.6, None, false),
            j(0.0, -0.2, Some(0), false),
            j(-0.2, 0.1, Some(1), false),
            j(0.2, 0.1, Some(1), false),
            j(0.0, 0.2, Some(1), true),
        ];
        let hubs = leaf_hubs(5, |k| joints[k].1, |k| joints[k].2);
        assert_eq!(hubs, vec![1]);
        let b = bones(&joints, &sdf, None);
        // Bones: neck → head, head → both leaves (the end marker's link too), the two leaves'
        // virtual segments, then the head's own, up to the top of the ball.
        assert_eq!(b.len(), 7);
        let own = b[6];
        assert_eq!(own.joint, 1);
        assert!(
            (own.b.y - 1.0).abs() < 0.01 && own.b.x.abs() < 1e-12,
            "{own:?}"
        );
        // One leaf child is a chain (a neck carrying the head); a chain child is not a fan.
        let one = [
            j(0.0, -0.6, None, false),
            j(0.0, -0.2, Some(0), false),
            j(0.0, 0.1, Some(1), false),
        ];
        assert!(leaf_hubs(3, |k| one[k].1, |k| one[k].2).is_empty());
        let mut deeper = joints.clone();
        deeper.push(j(-0.3, 0.3, Some(2), false));
        assert!(leaf_hubs(6, |k| deeper[k].1, |k| deeper[k].2).is_empty());
    }

    #[test]
    fn a_foot_joint_at_the_heel_owns_its_foot() {
        let sdf = super::super::leaf_direction::tests::leg_and_foot;
        let j = |z: f64, parent: Option<usize>| (P3::new(0.0, 0.0, z), parent, false);
        // hip → knee → heel: the heel is the shin's only child, a chain's end.
        let joints = vec![j(0.9, None), j(0.5, Some(0)), j(0.03, Some(1))];
        let foot = bones(&joints, &sdf, None)[2];
        assert_eq!(foot.joint, 2);
        assert!(foot.b.y < -0.3 && foot.b.z > 0.0, "{foot:?}");
        // Two leaves of one joint are a fan (face bones): they keep their bones' direction.
        let mut fan = joints.clone();
        fan.push((P3::new(0.02, 0.0, 0.03), Some(1), false));
        let b = bones(&fan, &sdf, None);
        let heel = b.iter().rev().find(|b| b.joint == 2).copied();
        let heel = heel.unwrap_or_else(|| panic!("{b:?}"));
        assert!(heel.b.y.abs() < 1e-9 && heel.b.z < 0.03 + 1e-9, "{heel:?}");
    }

    #[test]
    fn segment_distance() {
        let b = Bone {
            a: P3::origin(),
            b: P3::new(1.0, 0.0, 0.0),
            joint: 0,
        };
        assert!((b.distance(&P3::new(0.5, 2.0, 0.0)) - 2.0).abs() < 1e-12);
        assert!((b.distance(&P3::new(-1.0, 0.0, 0.0)) - 1.0).abs() < 1e-12);
    }
}
