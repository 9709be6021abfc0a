//! Small geometry vocabulary shared by every stage.
//!
//! Frames: the **mesh frame** is the input file's own axes and units. The **normalized frame** is
//! Pinocchio's: the mesh's bounding box scaled so its largest side is 0.9 and centred in the unit cube
//! (Baran & Popović 2007, code `normalizeBoundingBox`). Every tolerance inside the engine is expressed in
//! normalized units, i.e. relative to the model's size. See [`crate::mesh::Normalization`].

use serde::{Deserialize, Serialize};

/// A point (normalized or mesh frame: the variable name or doc says which).
pub type P3 = nalgebra::Point3<f64>;
/// A vector (normalized or mesh frame: the variable name or doc says which).
pub type V3 = nalgebra::Vector3<f64>;

/// A closed axis-aligned box `[lo, hi]` as a triangle mesh: the 8 corners (corner `k` takes x
/// from bit 0 of `k`, y from bit 1, z from bit 2) and 12 triangles wound counter-clockwise seen
/// from outside (two per face).
pub fn box_mesh(lo: P3, hi: P3) -> (Vec<P3>, Vec<[u32; 3]>) {
    const QUADS: [[u32; 4]; 6] = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let pick = |k: u32, bit: u32, a: f64, b: f64| if k >> bit & 1 == 0 { a } else { b };
    let corners = (0..8)
        .map(|k| {
            P3::new(
                pick(k, 0, lo.x, hi.x),
                pick(k, 1, lo.y, hi.y),
                pick(k, 2, lo.z, hi.z),
            )
        })
        .collect();
    let triangles = QUADS
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    (corners, triangles)
}

/// Axis-aligned bounding box.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    /// Lower corner.
    pub min: P3,
    /// Upper corner.
    pub max: P3,
}

impl Aabb {
    /// The empty box (min = +inf, max = -inf); growing it by any point gives that point's box.
    pub fn empty() -> Self {
        Self {
            min: P3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY),
            max: P3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
        }
    }

    /// Bounding box of a point set (empty box for no points).
    pub fn of_points<'a>(points: impl IntoIterator<Item = &'a P3>) -> Self {
        let mut b = Self::empty();
        for p in points {
            b.grow(p);
        }
        b
    }

    /// Grow to contain `p`.
    pub fn grow(&mut self, p: &P3) {
        self.min = self.min.inf(p);
        self.max = self.max.sup(p);
    }

    /// True if no point was added.
    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }

    /// Side lengths.
    pub fn extent(&self) -> V3 {
        self.max - self.min
    }

    /// Largest side length (the scale every relative tolerance refers to).
    pub fn max_extent(&self) -> f64 {
        self.extent().max()
    }

    /// Centre point.
    pub fn center(&self) -> P3 {
        nalgebra::center(&self.min, &self.max)
    }
}

/// Index of a joint in a [`crate::skeleton::Skeleton`] (full skeleton, parent-first order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct JointId(pub usize);

/// Index of a vertex of the sphere graph ([`crate::discretize::SphereGraph`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeId(pub u32);

impl NodeId {
    /// As a `usize` index.
    pub fn idx(self) -> usize {
        self.0 as usize
    }
}
