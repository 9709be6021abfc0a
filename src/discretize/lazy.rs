//! The octree distance field built only where it is read (`geppetto attach`; docs/algorithms.md#lazy-field).
//!
//! `attach` reads the field only along its visibility segments (each vertex to its nearest bones)
//! and its leaf marches: on the corpus and the armoured characters of issue 16 these fall in 6–35 %
//! of the full octree's leaves. [`LazyField::eval`] descends from the root like
//! [`super::DistanceField::eval`] and runs a cell's split test (`octree::test_cell`, the same
//! rule, Lipschitz skip and cropping as the full build) the first time a query reaches it, so the
//! cells it builds, and hence the values it returns, are the full tree's. The buried triangles
//! ([`super::winding::internal_triangles`]) are found up front, as in the full build.
//!
//! Same input, same output: a cell's content is a pure function of its path (its corners come from
//! its parent's lattice, signs are inherited only from its own corners and centre), never of which
//! thread or query built it first. The full build instead lets a lattice point keep the value of
//! the first cell that evaluated it; the two differ only where that cell's sign inheritance and
//! this one's disagree, i.e. across the soft w = ½ cap over a hole of an open mesh.

mod cell;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Mutex, MutexGuard};

use super::bvh::{Bvh, Scratch};
use super::field::{clamp_unit, split_buried, tree_and_sign, trilinear, FAR};
use super::octree::{self, KeyHasher, Params, Tested};
use super::winding::{Sign, WindingClass};
use super::DiscretizeOptions;
use crate::geom::{P3, V3};
use crate::mesh::PreparedMesh;
use cell::CellEval;

/// What the lazy build has computed so far (deterministic: the same queries build the same cells).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LazyStats {
    /// Cells whose split test ran (the full build tests every cell it creates).
    pub cells_tested: usize,
    /// Leaves built.
    pub leaves: usize,
    /// Distinct lattice points whose exact distance was computed.
    pub exact_points: usize,
    /// Distinct lattice points whose winding number was computed.
    pub winding_points: usize,
}

/// A node of the lazily built tree.
enum Node {
    /// Reached by no query yet.
    Unbuilt,
    /// Corner values (bit 0 = +x, 1 = +y, 2 = +z), as the full field stores them.
    Leaf([f32; 8]),
    /// Children at `first..first + 8`; the lattice values (signed value, anchor radius) and
    /// known-inside flag the children's tests start from.
    Split {
        first: u32,
        lat: Box<[(f64, f64); 27]>,
        known: Option<bool>,
    },
}

/// Context-free data of one lattice point: distance to the outer surface, distance to all
/// triangles once asked (only a winding-signed point whose sign is not known needs it: the buried
/// triangles are searched then), the pseudo-normal sign (if that is the method) and the winding
/// number once asked.
#[derive(Clone, Copy)]
struct Point {
    d: f64,
    /// NaN until asked (keeps the table's entries small).
    r: f64,
    inside: bool,
    w: Option<WindingClass>,
    /// The closest outer triangle's slot: seeds the next nearby query's bound.
    slot: Option<u32>,
}

/// The lazily built field of one mesh (normalized frame). Thread-safe; see the module docs.
pub struct LazyField {
    prm: Params,
    /// All triangles (the sign's surface).
    all: Bvh,
    /// The triangles not buried inside the solid, when some are (the distance's surface), and
    /// the buried ones.
    outer: Option<Bvh>,
    inner: Option<Bvh>,
    sign: Sign,
    /// Per packed lattice key: the point's context-free data.
    points: Mutex<HashMap<u64, Point, BuildHasherDefault<KeyHasher>>>,
    tree: Mutex<Vec<Node>>,
    root: [(f64, f64); 8],
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl LazyField {
    /// The field of `mesh` with `opts`' τ and depth cap; nothing below the root is built yet.
    pub fn new(mesh: &PreparedMesh, opts: &DiscretizeOptions) -> Self {
        let (all, sign) = tree_and_sign(&mesh.positions, &mesh.triangles);
        // Buried faces (winding::internal_triangles): nearly every one is the nearest face of
        // some point the skin reads (measured: 97 % on the armoured character), so all are
        // tested up front, as the full build does.
        let buried = split_buried(&sign, &mesh.positions, &mesh.triangles);
        let (outer, inner) = (buried.outer, buried.inner);
        let prm = Params::new(opts, true);
        let depth = prm.max_depth;
        let mut f = Self {
            prm,
            all,
            outer,
            inner,
            sign,
            points: Mutex::new(HashMap::default()),
            tree: Mutex::new(vec![Node::Unbuilt]),
            root: [(0.0, 0.0); 8],
        };
        let full = 1u32 << (depth + 1);
        // The root's corners, outside by construction (as the full build evaluates them).
        f.root = std::array::from_fn(|m| {
            let b = |bit: usize| if m >> bit & 1 == 1 { full } else { 0 };
            let p = f.point([b(0), b(1), b(2)], None, &mut Scratch::default());
            (p.d, p.d)
        });
        f
    }

    /// Signed distance at `p`: the value [`super::DistanceField::eval`] of the full field gives.
    pub fn eval(&self, p: &P3) -> f64 {
        if !p.coords.iter().all(|c| c.is_finite()) {
            return FAR;
        }
        let q = clamp_unit(p);
        let out = (p - q).norm();
        let d = self.prm.max_depth;
        let res = f64::from(1u32 << d);
        let max = (1u32 << d) - 1;
        let ix = [q.x, q.y, q.z].map(|c| ((c * res) as u32).min(max));
        let v = loop {
            match self.descend(ix) {
                Ok((c, level)) => {
                    let s = d - level;
                    let lo = V3::new(
                        f64::from((ix[0] >> s) << s),
                        f64::from((ix[1] >> s) << s),
                        f64::from((ix[2] >> s) << s),
                    ) / res;
                    let size = 1.0 / f64::from(1u32 << level);
                    let u = (q.coords - lo) / size;
                    break trilinear(
                        &c,
                        u.x.clamp(0.0, 1.0),
                        u.y.clamp(0.0, 1.0),
                        u.z.clamp(0.0, 1.0),
                    );
                }
                Err(job) => self.build(&job),
            }
        };
        if out > 0.0 {
            out + v.max(0.0)
        } else {
            v
        }
    }

    /// What the build has computed so far.
    pub fn stats(&self) -> LazyStats {
        let tree = lock(&self.tree);
        let points = lock(&self.points);
        LazyStats {
            cells_tested: tree.iter().filter(|n| !matches!(n, Node::Unbuilt)).count(),
            leaves: tree.iter().filter(|n| matches!(n, Node::Leaf(_))).count(),
            exact_points: points.len(),
            winding_points: points.values().filter(|p| p.w.is_some()).count(),
        }
    }

    /// The leaf holding finest-lattice cell `ix` (corners, level), or the first unbuilt cell on
    /// the way down. The way down only follows child indices; an unbuilt cell's corners, lower
    /// corner and known flag (what its split test starts from) are read from its parent once it
    /// is found, not carried through every level.
    fn descend(&self, ix: [u32; 3]) -> Result<([f32; 8], u32), Box<Job>> {
        let tree = lock(&self.tree);
        let d = self.prm.max_depth;
        let (mut node, mut level) = (0usize, 0u32);
        // The parent of `node` and `node`'s index among its children (none at the root).
        let mut from: Option<(usize, usize)> = None;
        loop {
            match tree.get(node) {
                Some(Node::Leaf(c)) => return Ok((*c, level)),
                Some(Node::Split { first, .. }) => {
                    let s = d - level - 1;
                    let child =
                        ((ix[0] >> s) & 1) | (((ix[1] >> s) & 1) << 1) | (((ix[2] >> s) & 1) << 2);
                    from = Some((node, child as usize));
                    node = *first as usize + child as usize;
                    level += 1;
                }
                _ => {
                    let (corners, known) = match from.and_then(|(p, c)| match tree.get(p) {
                        Some(Node::Split { lat, known, .. }) => Some((lat, known, c)),
                        _ => None,
                    }) {
                        Some((lat, known, c)) => (octree::child_corners(lat, c), *known),
                        None => (self.root, None),
                    };
                    // The cell's lower corner, lattice units (two per finest cell).
                    let s = d - level;
                    let lo = ix.map(|i| ((i >> s) << s) * 2);
                    return Err(Box::new(Job {
                        node,
                        level,
                        lo,
                        corners,
                        known,
                    }));
                }
            }
        }
    }

    /// Run the split test of `job`'s cell (outside the tree lock) and install the result unless
    /// another thread did (the same result: it is a pure function of the cell).
    fn build(&self, job: &Job) {
        let mut ev = CellEval {
            f: self,
            local: Vec::with_capacity(27),
            hint: None,
            scratch: Scratch::default(),
        };
        for (m, &(v, r)) in job.corners.iter().enumerate() {
            let b =
                |bit: usize| ((m >> bit) & 1) as u32 * (2u32 << (self.prm.max_depth - job.level));
            ev.local
                .push(([job.lo[0] + b(0), job.lo[1] + b(1), job.lo[2] + b(2)], v, r));
        }
        let values = job.corners.map(|c| c.0);
        let node = match octree::test_cell(&mut ev, self.prm, job.lo, job.level, &values, job.known)
        {
            Tested::Leaf => Node::Leaf(values.map(|v| v as f32)),
            Tested::Split(lat, known) => {
                let h = 1u32 << (self.prm.max_depth - job.level);
                let lat = std::array::from_fn(|idx| {
                    let k = [
                        job.lo[0] + (idx % 3) as u32 * h,
                        job.lo[1] + (idx / 3 % 3) as u32 * h,
                        job.lo[2] + (idx / 9) as u32 * h,
                    ];
                    (lat[idx], ev.radius(k))
                });
                Node::Split {
                    first: 0,
                    lat: Box::new(lat),
                    known,
                }
            }
        };
        let mut tree = lock(&self.tree);
        if !matches!(tree.get(job.node), Some(Node::Unbuilt)) {
            return;
        }
        let node = match node {
            Node::Split { lat, known, .. } => {
                let first = tree.len() as u32;
                tree.extend((0..8).map(|_| Node::Unbuilt));
                Node::Split { first, lat, known }
            }
            other => other,
        };
        tree[job.node] = node;
    }

    /// The context-free data of lattice point `k`, computed once.
    /// `hint`: a triangle slot near `k` (speed only: the distance is the exact minimum);
    /// `scratch`: the caller's traversal stack.
    fn point(&self, k: [u32; 3], hint: Option<u32>, scratch: &mut Scratch) -> Point {
        let key = octree::pack(k);
        if let Some(p) = lock(&self.points).get(&key) {
            return *p;
        }
        let at = octree::lattice_point(k, self.prm.unit);
        let hit = self
            .outer
            .as_ref()
            .unwrap_or(&self.all)
            .closest_with(&at, hint, scratch);
        let p = match hit {
            None => Point {
                d: 1.0,
                r: f64::INFINITY,
                inside: false,
                w: None,
                slot: None,
            },
            Some(hit) => Point {
                d: hit.dist2.sqrt(),
                r: if self.inner.is_none() {
                    hit.dist2.sqrt()
                } else {
                    f64::NAN
                },
                inside: !self.sign.is_winding() && self.sign.inside(&at, &hit),
                w: None,
                slot: Some(hit.slot),
            },
        };
        *lock(&self.points).entry(key).or_insert(p)
    }

    /// The class of the winding number at lattice point `k` (already in the point table),
    /// computed once.
    fn winding(&self, k: [u32; 3]) -> WindingClass {
        let key = octree::pack(k);
        if let Some(w) = lock(&self.points).get(&key).and_then(|p| p.w) {
            return w;
        }
        let at = octree::lattice_point(k, self.prm.unit);
        let w = self.sign.class(&at).unwrap_or(WindingClass::of(0.0));
        if let Some(p) = lock(&self.points).get_mut(&key) {
            p.w = Some(w);
        }
        w
    }

    /// The distance from lattice point `k` (already in the point table) to all triangles: the
    /// buried ones searched only below the outer distance `p.d` (the same minimum), once.
    fn radius(&self, k: [u32; 3], p: &Point, scratch: &mut Scratch) -> f64 {
        if !p.r.is_nan() {
            return p.r;
        }
        let at = octree::lattice_point(k, self.prm.unit);
        let d2 = p.d * p.d;
        let inner = self
            .inner
            .as_ref()
            .and_then(|b| b.closest_below(&at, None, d2, scratch));
        let r = inner.map_or(d2, |h| h.dist2.min(d2)).sqrt();
        if let Some(q) = lock(&self.points).get_mut(&octree::pack(k)) {
            q.r = r;
        }
        r
    }
}

/// An unbuilt cell a query reached: tree slot, level, lower corner (lattice units), corner
/// values with anchor radii, known-inside flag.
struct Job {
    node: usize,
    level: u32,
    lo: [u32; 3],
    corners: [(f64, f64); 8],
    known: Option<bool>,
}
