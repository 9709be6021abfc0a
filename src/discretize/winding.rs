//! Inside/outside for the signed field.
//!
//! * [`Sign::Winding`]: the generalized winding number (Jacobson et al. 2013), inside iff w > ½,
//!   evaluated fast as in Barill et al. 2018: every BVH node carries its area-weighted normal
//!   (a dipole at its area-weighted centroid); a node farther than β times its radius contributes
//!   its dipole term, nearer nodes descend to exact solid angles (Van Oosterom & Strackee).
//!   Correct for open, multi-shell, overlapping and self-intersecting meshes. Summed shell by
//!   shell ([`super::shells`]): a closed outward shell adds its exact 0 or 1 from its own
//!   pseudo-normal, and only the other shells pay for the dipole sum.
//! * [`Sign::PseudoNormal`]: for a single watertight, consistently and outward oriented shell the
//!   sign of `(p − q)·n`, with `q` the closest point and `n` the angle-weighted pseudo-normal of
//!   its feature (Bærentzen & Aanæs 2005), is exact and costs nothing beyond the closest-point
//!   query. Used only when that is guaranteed (checked here, not trusted from the report),
//!   including that the shell does not intersect itself ([`super::selfx`]).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::bvh::{Bvh, Feature, Hit, Tri};
use super::octree::KeyHasher;
use super::pseudo::Shell as PseudoShell;
use super::selfx;
use super::shells::Shells;
use crate::geom::{P3, V3};

mod fast;
pub use fast::{atan2_fast, winding_number_bounded, WindingClass, ATAN2_ERROR};

/// Far-field acceptance: a node is approximated by its dipole when the query is farther than
/// β·radius from its centre (Barill et al. 2018 use β = 2 for first-order expansions).
const BETA: f64 = 2.0;

/// Largest difference expected between [`winding_number`] (first-order terms, β = 2) and the
/// exact winding number Σ solid angles / 4π: measured ≤ 0.025 over 25,600 random queries near and
/// away from random mixes of open and closed shells (`tests/winding_shells_prop.rs`), doubled.
/// Far below the ¼ margin around w = ½ within which the octree does not trust a sign.
pub const DIPOLE_TOLERANCE: f64 = 0.05;

/// Per-node dipole data, parallel to [`Bvh::nodes`], with the node's child or triangle range
/// copied in: [`winding_number`] reads one 64-byte record (one cache line) per visited node
/// instead of a node and a dipole from two arrays.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub struct Dipole {
    /// Σ ½ (b−a)×(c−a) over the node's triangles (area-weighted normal).
    normal: V3,
    /// Area-weighted centroid.
    center: V3,
    /// (β · bounding radius about `center`)².
    far2: f64,
    /// The node's [`super::bvh::Node::first`].
    first: u32,
    /// The node's [`super::bvh::Node::count`] (0 for an internal node).
    count: u32,
}

/// Pseudo-normals of one triangle slot: face, three edges, three vertices.
#[derive(Clone, Copy, Debug)]
pub struct SlotNormals {
    face: V3,
    edge: [V3; 3],
    vertex: [V3; 3],
}

impl SlotNormals {
    /// The pseudo-normals of a slot: its face's, its edges' (`k`: from vertex `k` to `k + 1`) and
    /// its vertices'.
    pub(super) fn new(face: V3, edge: [V3; 3], vertex: [V3; 3]) -> Self {
        Self { face, edge, vertex }
    }

    /// Every component's bits (tests compare constructions bit for bit).
    #[cfg(test)]
    pub(super) fn bits(&self) -> Vec<u64> {
        std::iter::once(&self.face)
            .chain(&self.edge)
            .chain(&self.vertex)
            .flat_map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
            .collect()
    }
}

/// How the field decides inside/outside. Built once per mesh.
#[derive(Clone, Debug)]
pub enum Sign {
    /// Closest-feature pseudo-normal (single watertight outward shell only).
    PseudoNormal(Vec<SlotNormals>),
    /// Generalized winding number, shell by shell.
    Winding(Box<Shells>),
}

impl Sign {
    /// Choose the method for `bvh` built from `triangles` over `positions` (normalized frame).
    pub fn new(bvh: &Bvh, positions: &[P3], triangles: &[[u32; 3]]) -> Self {
        SignSetup::new(positions, triangles).finish(bvh, positions, triangles)
    }

    /// True for the winding-number method (the expensive one).
    pub fn is_winding(&self) -> bool {
        matches!(self, Sign::Winding(_))
    }

    /// True if the mesh is one watertight outward shell that intersects itself ([`selfx`]), so
    /// it got the winding sign instead of the pseudo-normal one.
    pub fn self_intersecting(&self) -> bool {
        matches!(self, Sign::Winding(s) if s.self_intersecting)
    }

    /// Short name for logs and tests.
    pub fn method(&self) -> &'static str {
        match self {
            Sign::PseudoNormal(_) => "pseudo-normal",
            Sign::Winding(_) => "winding",
        }
    }

    /// Winding number at `p` (winding method), or None for the pseudo-normal method.
    pub fn winding(&self, p: &V3) -> Option<f64> {
        match self {
            Sign::Winding(s) => Some(s.winding(p)),
            Sign::PseudoNormal(_) => None,
        }
    }

    /// The class of the winding number at `p` (winding method): what the field reads of it,
    /// equal to `WindingClass::of(winding(p))` and mostly computed without libm's `atan2`
    /// ([`WindingClass`]); None for the pseudo-normal method.
    pub fn class(&self, p: &V3) -> Option<WindingClass> {
        match self {
            Sign::Winding(s) => Some(s.class(p)),
            Sign::PseudoNormal(_) => None,
        }
    }

    /// True if `p` is inside, given its closest-point `hit` on the tree the sign was built for.
    pub fn inside(&self, p: &V3, hit: &Hit) -> bool {
        match self {
            Sign::PseudoNormal(n) => behind(n, p, hit),
            // |w| > ½: orientation-independent for open shells (see `internal_triangles`).
            Sign::Winding(s) => s.class(p).inside,
        }
    }
}

/// The part of [`Sign::new`] that does not need the tree: the field builds it beside
/// [`Bvh::build`] (`rayon::join`; it was serial after it, the largest serial step before the
/// parallel octree), then [`SignSetup::finish`] gathers the per-slot normals.
pub(super) enum SignSetup {
    /// One watertight outward shell: its normals per triangle.
    PseudoNormal(PseudoShell),
    /// Anything else: the winding number, shell by shell.
    Winding(Box<Shells>),
}

impl SignSetup {
    /// Choose the method for `triangles` over `positions` (normalized frame).
    pub(super) fn new(positions: &[P3], triangles: &[[u32; 3]]) -> Self {
        match PseudoShell::new(positions, triangles) {
            Some(s) => SignSetup::PseudoNormal(s),
            None => SignSetup::Winding(Box::new(Shells::new(positions, triangles))),
        }
    }

    /// The sign for `bvh`, built from the same `triangles` over `positions`.
    pub(super) fn finish(self, bvh: &Bvh, positions: &[P3], triangles: &[[u32; 3]]) -> Sign {
        match self {
            SignSetup::PseudoNormal(s) => {
                // The pseudo-normal sign needs a surface that does not pass through itself
                // (Bærentzen & Aanæs 2005); a shell that does gets the winding sign, which also
                // buries the faces inside the body (`internal_triangles`).
                let (normals, crossing) = rayon::join(
                    || s.slot_normals(bvh, triangles),
                    || selfx::self_intersects(bvh, triangles),
                );
                match normals {
                    Some(n) if !crossing => Sign::PseudoNormal(n),
                    _ => {
                        let mut shells = Shells::new(positions, triangles);
                        shells.self_intersecting = crossing;
                        Sign::Winding(Box::new(shells))
                    }
                }
            }
            SignSetup::Winding(s) => Sign::Winding(s),
        }
    }
}

/// True if `p` is behind the pseudo-normal of `hit`'s feature (`normals` per slot of the tree
/// `hit` came from): inside a watertight outward shell.
pub(super) fn behind(normals: &[SlotNormals], p: &V3, hit: &Hit) -> bool {
    let Some(s) = normals.get(hit.slot as usize) else {
        return false;
    };
    let normal = match hit.feature {
        Feature::Face => s.face,
        Feature::Edge(k) => s.edge[usize::from(k % 3)],
        Feature::Vertex(k) => s.vertex[usize::from(k % 3)],
    };
    (p - hit.point).dot(&normal) < 0.0
}

/// Triangles with the solid on both sides: |winding number| exceeds ½ just in front of the face
/// and just behind it (ε along its normal). Testing both sides, with |w|, keeps the answer the same
/// when faces are flipped (open shells cannot be oriented by volume). Such internal faces — eyes inside a head, overlapping
/// armour plates, a limb's capped end inside the torso — belong to no outer boundary; keeping them
/// in the distance would put fake surface (and fake medial sheets) inside the body. All false for
/// the pseudo-normal method (a watertight shell that does not intersect itself has none).
pub fn internal_triangles(sign: &Sign, positions: &[P3], triangles: &[[u32; 3]]) -> Vec<bool> {
    use rayon::prelude::*;
    /// Offset in front of the face, normalized units (far above f64 noise at unit scale).
    const EPS: f64 = 1e-6;
    let Sign::Winding(shells) = sign else {
        return vec![false; triangles.len()];
    };
    triangles
        .par_iter()
        .with_min_len(256)
        .map(|t| {
            let get = |k: usize| positions.get(t[k] as usize).map(|p| p.coords);
            let (Some(a), Some(b), Some(c)) = (get(0), get(1), get(2)) else {
                return false;
            };
            let centre = (a + b + c) / 3.0;
            let solid = |q: V3| shells.class(&q).inside;
            match (b - a).cross(&(c - a)).try_normalize(1e-300) {
                Some(n) => solid(centre + n * EPS) && solid(centre - n * EPS),
                None => false,
            }
        })
        .collect()
}

/// Fast generalized winding number of the triangles of `bvh` at `p` (1 inside a closed outward
/// shell, 0 outside). `dip` must be the output of `dipoles` of the same tree.
pub fn winding_number(bvh: &Bvh, dip: &[Dipole], p: &V3) -> f64 {
    let mut omega = 0.0;
    for_each_term(bvh, dip, p, |term| match term {
        Term::Far(x) => omega += x,
        Term::Near(v) => omega += solid_angle(p, v),
    });
    omega / (4.0 * std::f64::consts::PI)
}

/// One term of the dipole sum at a point ([`for_each_term`]).
pub(crate) enum Term<'a> {
    /// A far cluster's dipole term, already evaluated.
    Far(f64),
    /// A near triangle, whose exact solid angle the caller evaluates.
    Near(&'a [V3; 3]),
}

/// The terms of the dipole sum of Barill et al. 2018 at `p`, in traversal order: one place for
/// the order, so [`winding_number`] and the certified fast sum (`fast.rs`, whose error bound
/// needs the same terms in the same order) add the same floats.
#[inline]
pub(crate) fn for_each_term<'a>(bvh: &'a Bvh, dip: &[Dipole], p: &V3, mut f: impl FnMut(Term<'a>)) {
    let mut stack = [0u32; 128];
    let mut top = 1usize;
    while top > 0 {
        top -= 1;
        let Some(d) = dip.get(stack[top] as usize) else {
            continue;
        };
        let r = d.center - p;
        let r2 = r.norm_squared();
        if r2 > d.far2 {
            f(Term::Far(d.normal.dot(&r) / (r2 * r2.sqrt())));
        } else if d.count > 0 {
            let first = d.first as usize;
            let end = (first + d.count as usize).min(bvh.tris.len());
            for t in &bvh.tris[first.min(end)..end] {
                f(Term::Near(&t.v));
            }
        } else if top + 2 <= stack.len() {
            stack[top] = d.first;
            stack[top + 1] = d.first + 1;
            top += 2;
        }
    }
}

/// Signed solid angle of triangle `v` seen from `p` (Van Oosterom & Strackee 1983); positive
/// when `p` is behind the triangle's counter-clockwise normal.
#[inline]
pub fn solid_angle(p: &V3, v: &[V3; 3]) -> f64 {
    let a = v[0] - p;
    let b = v[1] - p;
    let c = v[2] - p;
    let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
    let num = a.dot(&b.cross(&c));
    let den = la * lb * lc + a.dot(&b) * lc + a.dot(&c) * lb + b.dot(&c) * la;
    2.0 * num.atan2(den)
}

/// Bottom-up dipoles for every node.
pub(super) fn dipoles(bvh: &Bvh) -> Vec<Dipole> {
    let zero = Dipole {
        normal: V3::zeros(),
        center: V3::zeros(),
        far2: f64::INFINITY,
        first: 0,
        count: 0,
    };
    let mut out = vec![zero; bvh.nodes.len()];
    // Total triangle area under each node (only needed while building).
    let mut areas = vec![0.0f64; bvh.nodes.len()];
    // Children always have larger indices than their parent: walk backwards.
    for i in (0..bvh.nodes.len()).rev() {
        let n = bvh.nodes[i];
        let (mut normal, mut wc, mut area) = (V3::zeros(), V3::zeros(), 0.0);
        if n.count > 0 {
            let first = n.first as usize;
            let end = (first + n.count as usize).min(bvh.tris.len());
            (normal, wc, area) = leaf_moments(&bvh.tris[first..end]);
        } else {
            for c in [n.first as usize, n.first as usize + 1] {
                if let (Some(d), Some(&a)) = (out.get(c), areas.get(c)) {
                    normal += d.normal;
                    wc += d.center * a;
                    area += a;
                }
            }
        }
        let (lo, hi) = n.bounds();
        let center = if area > 0.0 {
            wc / area
        } else {
            (lo + hi) * 0.5
        };
        let rad = farthest_corner(&lo, &hi, &center);
        out[i] = Dipole {
            normal,
            center,
            far2: (BETA * rad) * (BETA * rad),
            first: n.first,
            count: n.count,
        };
        areas[i] = area;
    }
    out
}

/// A leaf's area-weighted normal sum (half cross products), its area-weighted centroid sum and
/// its area: the first-order dipole terms of its triangles (as in Barill et al. 2018).
fn leaf_moments(tris: &[Tri]) -> (V3, V3, f64) {
    let (mut normal, mut wc, mut area) = (V3::zeros(), V3::zeros(), 0.0);
    for t in tris {
        let nn = (t.v[1] - t.v[0]).cross(&(t.v[2] - t.v[0])) * 0.5;
        let a = nn.norm();
        normal += nn;
        wc += (t.v[0] + t.v[1] + t.v[2]) * (a / 3.0);
        area += a;
    }
    (normal, wc, area)
}

/// Distance from `center` to the farthest corner of the box `lo..hi`: the radius beyond which
/// the node's dipole stands in for its triangles.
fn farthest_corner(lo: &V3, hi: &V3, center: &V3) -> f64 {
    (0..8)
        .map(|k| {
            let corner = V3::new(
                if k & 1 == 0 { lo.x } else { hi.x },
                if k & 2 == 0 { lo.y } else { hi.y },
                if k & 4 == 0 { lo.z } else { hi.z },
            );
            (corner - center).norm()
        })
        .fold(0.0, f64::max)
}

/// Directed edge (from, to) packed in a u64, the key of [`DirectedEdges`].
pub(super) fn edge(a: u32, b: u32) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

/// Each directed edge's triangle, keyed by [`edge`]; hashed with [`KeyHasher`], because SipHash
/// dominated the closed-shell tests on large meshes (three inserts and six lookups per triangle).
pub(super) type DirectedEdges = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

/// The directed edges of `triangles` (triangle indices into that slice), or `None` when a
/// directed edge repeats: then no shell through it is closed and consistently oriented.
pub(super) fn directed_edges(triangles: &[[u32; 3]]) -> Option<DirectedEdges> {
    let mut directed =
        DirectedEdges::with_capacity_and_hasher(triangles.len() * 3, Default::default());
    for (ti, t) in triangles.iter().enumerate() {
        for k in 0..3 {
            if directed
                .insert(edge(t[k], t[(k + 1) % 3]), ti as u32)
                .is_some()
            {
                return None;
            }
        }
    }
    Some(directed)
}

pub(super) fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let g = parent[parent[i as usize] as usize];
        parent[i as usize] = g;
        i = g;
    }
    i
}

pub(super) fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
}
