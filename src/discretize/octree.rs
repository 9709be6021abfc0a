//! Building the adaptive octree of the distance field (Baran & Popović 2007 §3.1; docs/algorithms.md#distance-field).
//!
//! Cells live on an integer lattice: a cell at level `L` has side `2^(D+1−L)` lattice units where
//! `D` is the depth cap, so every point of a cell's 3×3×3 lattice, even at the deepest level, has
//! integer coordinates. Exact distances are cached by those integer keys: neighbouring cells share
//! their face centres and edge midpoints exactly (the original rounds to a 1/1023 grid instead,
//! which merges distinct points at level 10).
//!
//! Subtrees below level [`PAR_LEVEL`] are built in parallel (rayon), each with its own cache.

use rayon::prelude::*;

use super::DiscretizeOptions;
use lattice::{Bounds, Settle, NON_CORNER};

mod exact;
mod lattice;
pub use exact::{inherit, lattice_point, pack, Anchor, Anchors, Exact, KeyHasher};

/// A winding number this far from ½ makes a point a sign anchor for its neighbours.
pub const CONFIDENT: f64 = 0.25;

/// Subtrees at this level (64 of them) are independent rayon tasks.
const PAR_LEVEL: u32 = 2;

/// A cell of the octree under construction.
#[derive(Debug)]
pub enum BuildNode {
    /// Leaf with its 8 corner distances (corner `k`: bit 0 = +x, bit 1 = +y, bit 2 = +z).
    Leaf([f32; 8]),
    /// Eight children in the same bit order.
    Split(Box<[BuildNode]>),
}

/// Parameters shared by the whole build.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// τ, normalized units.
    pub tol: f64,
    /// Depth cap D.
    pub max_depth: u32,
    /// Normalized units per lattice unit: 1 / 2^(D+1).
    pub unit: f64,
    /// Skip evaluating lattice points whose split test the Lipschitz bound settles (exact: the
    /// same tree; false only for the reference build the tests compare against).
    pub lipschitz_skip: bool,
}

/// Depth cap actually used (the lattice keys pack 21 bits per axis).
const HARD_MAX_DEPTH: u32 = 19;

impl Params {
    /// `opts`' τ and depth cap (clamped to 1..=19), with or without the Lipschitz skip.
    pub fn new(opts: &DiscretizeOptions, lipschitz_skip: bool) -> Self {
        let depth = opts.max_depth.clamp(1, HARD_MAX_DEPTH);
        Self {
            tol: opts.tol(),
            max_depth: depth,
            unit: 1.0 / f64::from(1u32 << (depth + 1)),
            lipschitz_skip,
        }
    }
}

/// Build the tree below the root cell, whose 8 corner values are given. Returns the root and
/// the number of exact queries.
pub fn build_tree(ex: &mut Exact, prm: Params, corners: [f64; 8]) -> (BuildNode, usize) {
    cell(ex, prm, [0, 0, 0], 0, corners, None)
}

/// Corner `m` of child `c` as an index into the 3×3×3 lattice (i + 3j + 9k).
#[inline]
fn child_corner(c: usize, m: usize) -> usize {
    let i = (c & 1) + (m & 1);
    let j = ((c >> 1) & 1) + ((m >> 1) & 1);
    let k = ((c >> 2) & 1) + ((m >> 2) & 1);
    i + 3 * j + 9 * k
}

/// What a cell's split test found (docs/algorithms.md#distance-field).
// Returned by value once per tested cell and never stored: boxing the lattice would add an
// allocation per split to the full build.
#[allow(clippy::large_enum_variant)]
pub enum Tested {
    /// The cell stays a leaf with its corners.
    Leaf,
    /// The cell splits: the exact values at its 3×3×3 lattice points (index i + 3j + 9k), and
    /// whether the whole cell is known to be inside (its children inherit it).
    Split([f64; 27], Option<bool>),
}

/// Exact signed distances at lattice points, as the split test reads them: [`Exact`] for the
/// whole build, `super::lazy` for a field built only where it is read.
pub trait Evaluate {
    /// Signed distance at lattice point `k` (see [`Exact::value`]).
    fn value(&mut self, k: [u32; 3], known: Option<bool>, anchors: &[Anchor]) -> f64;
    /// The anchor for an already evaluated lattice point, if any.
    fn anchor(&self, k: [u32; 3]) -> Option<Anchor>;
    /// True under the winding-number sign.
    fn is_winding(&self) -> bool;
}

/// Build one cell (and its subtree). `lo` in lattice units; `known` = the whole cell is known
/// to be inside (`Some(true)`) — then every sign is known and no winding number is needed.
fn cell(
    ex: &mut Exact,
    prm: Params,
    lo: [u32; 3],
    level: u32,
    corners: [f64; 8],
    known: Option<bool>,
) -> (BuildNode, usize) {
    let leaf = |c: &[f64; 8]| BuildNode::Leaf(c.map(|v| v as f32));
    let q0 = ex.queries;
    let (lat, known) = match test_cell(ex, prm, lo, level, &corners, known) {
        Tested::Leaf => return (leaf(&corners), ex.queries - q0),
        Tested::Split(lat, known) => (lat, known),
    };
    let h = (1u32 << (prm.max_depth + 1 - level)) / 2;
    let child_input = |c: usize| {
        let clo = [
            lo[0] + (c as u32 & 1) * h,
            lo[1] + ((c as u32 >> 1) & 1) * h,
            lo[2] + ((c as u32 >> 2) & 1) * h,
        ];
        (clo, child_corners(&lat, c))
    };
    let (children, q): (Vec<BuildNode>, usize) = if level < PAR_LEVEL {
        let (bvh, inner, sign_bvh, sign, windings) =
            (ex.bvh, ex.inner, ex.sign_bvh, ex.sign, ex.windings);
        let out: Vec<(BuildNode, usize)> = (0..8)
            .into_par_iter()
            .map(|c| {
                let (clo, cc) = child_input(c);
                let mut sub = Exact::new(bvh, inner, sign_bvh, sign, prm.unit, windings);
                cell(&mut sub, prm, clo, level + 1, cc, known)
            })
            .collect();
        let q = out.iter().map(|x| x.1).sum();
        (out.into_iter().map(|x| x.0).collect(), q)
    } else {
        let mut v = Vec::with_capacity(8);
        for c in 0..8 {
            let (clo, cc) = child_input(c);
            v.push(cell(ex, prm, clo, level + 1, cc, known).0);
        }
        (v, 0)
    };
    let own = ex.queries - q0;
    (BuildNode::Split(children.into_boxed_slice()), own + q)
}

/// The corners of child `c` (bit 0 = +x, 1 = +y, 2 = +z) from its parent's lattice values.
pub fn child_corners<T: Copy>(lat: &[T; 27], c: usize) -> [T; 8] {
    std::array::from_fn(|m| lat[child_corner(c, m)])
}

/// The split test of one cell (Baran & Popović 2007 §3.1: split where the trilinear interpolant
/// of the corners misses an exact lattice value by more than τ; docs/algorithms.md#distance-field
/// for cropping and the Lipschitz skip). `lo` in lattice units, `corners` its exact corner values.
pub fn test_cell<E: Evaluate>(
    ex: &mut E,
    prm: Params,
    lo: [u32; 3],
    level: u32,
    corners: &[f64; 8],
    known: Option<bool>,
) -> Tested {
    if level >= prm.max_depth {
        return Tested::Leaf;
    }
    let side = 1u32 << (prm.max_depth + 1 - level);
    let h = side / 2;
    // Not under the winding sign: there a value can depend on which cell evaluated it first
    // (sign inheritance; a cached value may even disagree with a cell's known sign near the soft
    // w = ½ cap over a hole), so every point is evaluated in the original order.
    let skip = prm.lipschitz_skip && level > 0 && !ex.is_winding();
    let half = f64::from(h) * prm.unit;
    let at = lattice::interp(corners);
    let mut from_corners = None;
    if skip {
        match Bounds::corners_settle(corners, half, &at, prm.tol) {
            // The corners alone settle all 19 points, centre included: the cell stays a leaf
            // whether or not the centre would have cropped it.
            Settle::All => return Tested::Leaf,
            Settle::Not(b) => from_corners = b,
        }
    }
    let (center, anchors) = centre_value(ex, lo, side, known);
    let anchors = anchors.as_slice();
    let mut known = known;
    if level >= 1 && known.is_none() && crop(center, side, prm.unit, &mut known) {
        return Tested::Leaf;
    }
    // Points whose split test the Lipschitz bound already answers (bit j: `NON_CORNER[j]`).
    // (Computed only now: a cropped cell needs no bounds.)
    let settled = settled_points(skip, from_corners, corners, center, half, &at, prm.tol);
    let mut lat = lattice_of(corners, center);
    // A corner's interpolant is its own value: only the centre and the 18 other points can split.
    let mut split = level == 0 || (center - at[lattice::CENTRE]).abs() > prm.tol;
    // Evaluated in lattice order, the unsettled points first: the order fixes each query's hint.
    for (j, &idx) in NON_CORNER.iter().enumerate() {
        if j == lattice::CENTRE || settled >> j & 1 == 1 {
            continue;
        }
        lat[idx] = ex.value(lattice_key(lo, h, idx), known, anchors);
        if !split && (lat[idx] - at[j]).abs() > prm.tol {
            split = true;
        }
    }
    if !split {
        return Tested::Leaf;
    }
    // The children need every lattice value as corners.
    fill_settled(ex, &mut lat, settled, lo, h, known, anchors);
    Tested::Split(lat, known)
}

/// The points whose split test the Lipschitz bound answers (bit j: `NON_CORNER[j]`), from the
/// corners' bounds (`from_corners`, when the corner test already built them) and the centre;
/// none without the skip.
fn settled_points(
    skip: bool,
    from_corners: Option<Bounds>,
    corners: &[f64; 8],
    center: f64,
    half: f64,
    at: &[f64; 19],
    tol: f64,
) -> u32 {
    if !skip {
        return 0;
    }
    let mut b = from_corners.unwrap_or_else(|| Bounds::from_corners(corners, half));
    b.add_center(center, half);
    b.settled(at, tol)
}

/// A cell's 27 lattice values with its corners and centre filled in (the rest zero).
fn lattice_of(corners: &[f64; 8], center: f64) -> [f64; 27] {
    let mut lat = [0.0f64; 27];
    for (m, v) in corners.iter().enumerate() {
        lat[lattice::corner_index(m)] = *v;
    }
    lat[13] = center;
    lat
}

/// Evaluate the points the bound settled (bit j of `settled`), in lattice order, after the
/// unsettled ones: a split cell's children need every lattice value as corners.
fn fill_settled<E: Evaluate>(
    ex: &mut E,
    lat: &mut [f64; 27],
    settled: u32,
    lo: [u32; 3],
    h: u32,
    known: Option<bool>,
    anchors: &[Anchor],
) {
    for (j, &idx) in NON_CORNER.iter().enumerate() {
        if settled >> j & 1 == 1 {
            lat[idx] = ex.value(lattice_key(lo, h, idx), known, anchors);
        }
    }
}

/// The exact value at the centre of the cell at `lo` with side `side` (lattice units), with the
/// winding anchors (corners, then centre) when the sign is by winding and not `known`.
fn centre_value<E: Evaluate>(
    ex: &mut E,
    lo: [u32; 3],
    side: u32,
    known: Option<bool>,
) -> (f64, Anchors) {
    let h = side / 2;
    let mut anchors = Anchors::default();
    if known.is_none() && ex.is_winding() {
        for m in 0..8 {
            let b = |bit: usize| ((m >> bit) & 1) as u32 * side;
            anchors.extend(ex.anchor([lo[0] + b(0), lo[1] + b(1), lo[2] + b(2)]));
        }
    }
    let ckey = [lo[0] + h, lo[1] + h, lo[2] + h];
    let center = ex.value(ckey, known, anchors.as_slice());
    if known.is_none() && ex.is_winding() {
        anchors.extend(ex.anchor(ckey));
    }
    (center, anchors)
}

/// Cropping (docs/algorithms.md#distance-field): a cell whose centre is farther than half its
/// diagonal from the surface contains no surface. True for an outside cell (it stays a leaf);
/// an inside cell is marked `known` inside and still refined.
fn crop(center: f64, side: u32, unit: f64, known: &mut Option<bool>) -> bool {
    let half_diag = 0.5 * 3f64.sqrt() * f64::from(side) * unit;
    if center > half_diag {
        return true;
    }
    if center < -half_diag {
        *known = Some(true);
    }
    false
}

/// Lattice key of point `idx` (i + 3j + 9k) of the 3×3×3 lattice of the cell at `lo` with
/// half side `h`.
fn lattice_key(lo: [u32; 3], h: u32, idx: usize) -> [u32; 3] {
    let step = |t: usize| t as u32 * h;
    [
        lo[0] + step(idx % 3),
        lo[1] + step(idx / 3 % 3),
        lo[2] + step(idx / 9),
    ]
}
