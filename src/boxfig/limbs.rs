//! The template's trunk and limbs, and how they are laid on the part tree's boxes.

use super::PartTree;
use crate::embed::Orientation;
use crate::geom::{Aabb, P3, V3};
use crate::skeleton::Skeleton;

/// The template split into its trunk (the root and every joint above a branching) and its limbs
/// (chains leaving the trunk, parent first).
pub struct TemplateLimbs {
    /// Trunk joints, parent first.
    pub trunk: Vec<usize>,
    /// Limb chains: first joint (child of a trunk joint) to the end.
    pub limbs: Vec<Vec<usize>>,
}

impl TemplateLimbs {
    /// Split `t`.
    pub fn new(t: &Skeleton) -> Self {
        let n = t.joints.len();
        let children = |j: usize| -> Vec<usize> {
            (0..n)
                .filter(|&c| t.joints[c].parent.map(|p| p.0) == Some(j))
                .collect()
        };
        // A joint is on the trunk if it or a descendant branches (two children or more).
        let mut branches_below = vec![false; n];
        for j in (0..n).rev() {
            let ch = children(j);
            branches_below[j] = ch.len() >= 2 || ch.iter().any(|&c| branches_below[c]);
        }
        let trunk: Vec<usize> = (0..n)
            .filter(|&j| t.joints[j].parent.is_none() || branches_below[j])
            .collect();
        let mut limbs = Vec::new();
        for &j in &trunk {
            for c in children(j).into_iter().filter(|c| !trunk.contains(c)) {
                let mut chain = vec![c];
                while let Some(&next) = children(*chain.last().unwrap_or(&c)).first() {
                    chain.push(next);
                }
                limbs.push(chain);
            }
        }
        Self { trunk, limbs }
    }

    fn centroid(t: &Skeleton, js: &[usize]) -> V3 {
        js.iter()
            .fold(V3::zeros(), |s, &j| s + t.joints[j].rest.coords)
            / js.len().max(1) as f64
    }

    /// Direction of limb `l` from the trunk's centre, template frame.
    fn direction(&self, t: &Skeleton, l: usize) -> V3 {
        Self::centroid(t, &self.limbs[l]) - Self::centroid(t, &self.trunk)
    }
}

/// How the template's trunk is laid along the trunk box: the template's trunk axis (root to the
/// last trunk joint) along the box, from the lowest to the highest of the trunk joints and limb
/// roots; offsets across the axis scaled alike.
pub struct TrunkMap {
    o: Orientation,
    /// Template root rest position.
    origin: V3,
    /// Where the template root lands, normalized frame.
    at: P3,
    scale: f64,
    bounds: Aabb,
}

impl TrunkMap {
    /// Lay `tl`'s trunk along `trunk_box`.
    pub fn new(tl: &TemplateLimbs, t: &Skeleton, trunk_box: &Aabb, o: Orientation) -> Self {
        let root = tl.trunk[0];
        let last = *tl.trunk.last().unwrap_or(&root);
        let origin = t.joints[root].rest.coords;
        let axis = (t.joints[last].rest.coords - origin)
            .try_normalize(1e-12)
            .unwrap_or(V3::y());
        let mut ends: Vec<usize> = tl.trunk.clone();
        ends.extend(tl.limbs.iter().map(|c| c[0]));
        let proj = |j: usize| (t.joints[j].rest.coords - origin).dot(&axis);
        let lo = ends.iter().map(|&j| proj(j)).fold(f64::INFINITY, f64::min);
        let hi = ends
            .iter()
            .map(|&j| proj(j))
            .fold(f64::NEG_INFINITY, f64::max);
        let m_axis = o.unapply(&axis);
        let along = |p: &P3| p.coords.dot(&m_axis);
        let (b_lo, b_hi) = {
            let (a, b) = (along(&trunk_box.min), along(&trunk_box.max));
            (a.min(b), a.max(b))
        };
        let scale = (b_hi - b_lo) / (hi - lo).max(1e-12);
        let c = trunk_box.center();
        let at = c + m_axis * (b_lo - scale * lo - along(&c));
        Self {
            o,
            origin,
            at,
            scale,
            bounds: *trunk_box,
        }
    }

    /// Joint `j` laid by the trunk map, kept inside the trunk box.
    pub fn place(&self, t: &Skeleton, j: usize) -> P3 {
        let d = self.o.unapply(&(t.joints[j].rest.coords - self.origin)) * self.scale;
        let p = self.at + d;
        P3::from(V3::from_fn(|k, _| {
            p[k].clamp(self.bounds.min[k], self.bounds.max[k])
        }))
    }
}

/// Each template limb's branch (index into `branches`) and the cosine between their directions
/// from the trunk; greedy by cosine (largest first, earlier limb and branch on ties), one branch
/// per limb, only pairs less than a right angle apart.
pub fn assign(
    tl: &TemplateLimbs,
    t: &Skeleton,
    tree: &PartTree,
    branches: &[usize],
    o: Orientation,
) -> Vec<Option<(usize, f64)>> {
    let c = tree.groups[tree.trunk].aabb.center();
    let mut pairs = Vec::new();
    for l in 0..tl.limbs.len() {
        let Some(dl) = o.unapply(&tl.direction(t, l)).try_normalize(1e-12) else {
            continue;
        };
        for (b, &g) in branches.iter().enumerate() {
            let path = tree.path(g);
            let m = path
                .iter()
                .fold(V3::zeros(), |s, &p| s + tree.groups[p].aabb.center().coords)
                / path.len() as f64;
            if let Some(db) = (m - c.coords).try_normalize(1e-12) {
                pairs.push((super::round(dl.dot(&db)), l, b));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let mut out = vec![None; tl.limbs.len()];
    let mut used = vec![false; branches.len()];
    for (cos, l, b) in pairs {
        if cos > 0.0 && out[l].is_none() && !used[b] {
            out[l] = Some((b, cos));
            used[b] = true;
        }
    }
    out
}

/// The two ends of a box's own axis: its longest side when clearly longest (by a quarter), else
/// the side most along `towards` (the way the limb leaves its parent).
fn axis_ends(b: &Aabb, towards: &V3) -> (P3, P3) {
    let e = b.extent();
    let mut k = (0..3).fold(0, |m, i| if e[i] > e[m] { i } else { m });
    let second = (0..3).filter(|&i| i != k).map(|i| e[i]).fold(0.0, f64::max);
    if e[k] < 1.25 * second {
        k = (0..3).fold(0, |m, i| {
            if (towards[i] * e[i]).abs() > (towards[m] * e[m]).abs() {
                i
            } else {
                m
            }
        });
    }
    let c = b.center();
    let mut a = c;
    let mut z = c;
    a[k] = b.min[k];
    z[k] = b.max[k];
    (a, z)
}

/// Lay `chain` along the boxes of `path`: from `root` (the limb root laid by the trunk map) into
/// each box at the end of its axis nearer the previous point, out at the other end; joints spaced
/// by the template's bone lengths. A root already on the first box starts the chain there.
pub fn place_chain(
    t: &Skeleton,
    chain: &[usize],
    root: P3,
    path: &[usize],
    tree: &PartTree,
    joints: &mut [P3],
) {
    let mut poly = vec![root];
    for &g in path {
        let b = &tree.groups[g].aabb;
        let prev = *poly.last().unwrap_or(&root);
        let (a, z) = axis_ends(b, &(b.center() - prev));
        let (s, e) = if (a - prev).norm() <= (z - prev).norm() {
            (a, z)
        } else {
            (z, a)
        };
        poly.push(s);
        poly.push(e);
    }
    let first = &tree.groups[path[0]].aabb;
    let point = Aabb {
        min: root,
        max: root,
    };
    let parent = tree.parent[path[0]].map_or(tree.trunk, |p| p);
    let contact = super::gap(first, &tree.groups[parent].aabb);
    // The root at the contact with the parent box (a leg under the trunk, across the same gap):
    // the chain starts on the box. Farther (an arm beside the trunk, its root inside the trunk):
    // the root stays, the next joint enters the box.
    let on_box = super::gap(first, &point) <= contact + tree.eps;
    let (lead, rest) = if on_box {
        poly.remove(0);
        (Vec::new(), chain)
    } else {
        poly.remove(0);
        (vec![(chain[0], root)], &chain[1..])
    };
    for (j, p) in lead {
        joints[j] = p;
    }
    spread(t, rest, &poly, joints);
}

/// Joints of `chain` along polyline `poly` at their cumulative template bone length fractions.
fn spread(t: &Skeleton, chain: &[usize], poly: &[P3], joints: &mut [P3]) {
    if chain.is_empty() || poly.is_empty() {
        return;
    }
    let mut cum = vec![0.0];
    for w in chain.windows(2) {
        let l = (t.joints[w[1]].rest - t.joints[w[0]].rest).norm();
        cum.push(cum.last().unwrap_or(&0.0) + l);
    }
    let total = cum.last().copied().unwrap_or(0.0).max(1e-12);
    let seg: Vec<f64> = poly.windows(2).map(|w| (w[1] - w[0]).norm()).collect();
    let length: f64 = seg.iter().sum();
    for (i, &j) in chain.iter().enumerate() {
        let mut want = cum[i] / total * length;
        let mut p = poly[0];
        for (s, w) in seg.iter().zip(poly.windows(2)) {
            if want <= *s {
                p = w[0] + (w[1] - w[0]) * (want / s.max(1e-300)).min(1.0);
                break;
            }
            want -= s;
            p = w[1];
        }
        joints[j] = p;
    }
}

/// The joint of `chain` whose bone runs longest inside `b` (the first on ties; the chain's first
/// joint when none does).
pub fn owner(t: &Skeleton, chain: &[usize], joints: &[P3], b: &Aabb) -> usize {
    let mut best = (0.0, chain[0]);
    for &j in chain {
        for c in (0..t.joints.len()).filter(|&c| t.joints[c].parent.map(|p| p.0) == Some(j)) {
            let inside = clipped(b, &joints[j], &joints[c]);
            if inside > best.0 * (1.0 + 1e-9) {
                best = (inside, j);
            }
        }
    }
    best.1
}

/// Length of segment `a`–`b` inside box `bx`.
fn clipped(bx: &Aabb, a: &P3, b: &P3) -> f64 {
    let d = b - a;
    let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
    for k in 0..3 {
        if d[k].abs() < 1e-300 {
            if a[k] < bx.min[k] || a[k] > bx.max[k] {
                return 0.0;
            }
            continue;
        }
        let (u, v) = ((bx.min[k] - a[k]) / d[k], (bx.max[k] - a[k]) / d[k]);
        t0 = t0.max(u.min(v));
        t1 = t1.min(u.max(v));
    }
    (t1 - t0).max(0.0) * d.norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_human_template_splits_into_a_trunk_and_five_limbs() {
        let t = crate::skeleton::load_template("human").expect("human template");
        let tl = TemplateLimbs::new(&t);
        let names = |js: &[usize]| -> Vec<String> {
            js.iter().map(|&j| t.joints[j].name.clone()).collect()
        };
        assert_eq!(names(&tl.trunk), ["Hips", "Spine", "Spine1", "Spine2"]);
        let ends: Vec<String> = tl
            .limbs
            .iter()
            .map(|c| t.joints[*c.last().unwrap()].name.clone())
            .collect();
        assert_eq!(ends.len(), 5, "{ends:?}");
        assert!(ends.contains(&"HeadTop_End".to_string()));
        assert!(ends.contains(&"LeftHand_End".to_string()));
        assert!(ends.contains(&"RightToe_End".to_string()));
    }

    #[test]
    fn a_chain_is_spread_along_its_polyline_by_bone_length() {
        let t = crate::skeleton::load_template("human").expect("human template");
        let chain: Vec<usize> = ["RightUpLeg", "RightLeg", "RightFoot"]
            .iter()
            .map(|n| t.joints.iter().position(|j| j.name == *n).unwrap())
            .collect();
        let mut joints = vec![P3::origin(); t.joints.len()];
        let poly = [P3::new(0.0, 10.0, 0.0), P3::new(0.0, 0.0, 0.0)];
        spread(&t, &chain, &poly, &mut joints);
        assert!((joints[chain[0]].y - 10.0).abs() < 1e-12);
        assert!(joints[chain[2]].y.abs() < 1e-12);
        let (a, b) = (joints[chain[1]].y, joints[chain[2]].y);
        assert!(a > b && a < 10.0, "knee between hip and foot: {a}");
    }
}
