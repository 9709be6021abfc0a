//! Meshes as loaded, and their preparation for rigging.
//!
//! [`load()`] reads a file into a [`Mesh`] (mesh frame, input vertex order and count preserved);
//! [`prepare()`] welds, analyses and normalizes it into a [`PreparedMesh`] with a [`RepairReport`].

pub mod load;
pub mod normalize;
mod notes;
pub mod prepare;
mod shell;
mod topology;
pub(crate) mod weld;
pub mod write;

pub use load::{load, LoadError, MeshFormat};
pub use normalize::Normalization;
pub use prepare::{prepare, PrepareError, PreparedMesh, RepairReport, Shell};
pub(crate) use shell::volume_and_area;
pub use write::write_obj;

use crate::geom::{Aabb, P3};

/// A triangle mesh exactly as the input file describes it.
///
/// * `positions`: one entry per input vertex, in file order, **mesh frame** (the file's units/axes).
///   Every per-vertex output of Geppetto (skin weights, GLB vertices) refers to these indices.
/// * `triangles`: polygons fan- or ear-triangulated by the loader, indices into `positions`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// One entry per input vertex, mesh frame.
    pub positions: Vec<P3>,
    /// One entry per triangle; indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Bounding box of all vertices (mesh frame).
    pub fn aabb(&self) -> Aabb {
        Aabb::of_points(&self.positions)
    }

    /// A stable 64-bit content hash of positions and triangles (FNV-1a over the raw bits), used
    /// to cache stage outputs: a hint re-run must not redo the distance field.
    pub fn content_hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(&(self.positions.len() as u64).to_le_bytes());
        for p in &self.positions {
            for c in p.coords.iter() {
                eat(&c.to_bits().to_le_bytes());
            }
        }
        for t in &self.triangles {
            for i in t {
                eat(&i.to_le_bytes());
            }
        }
        h
    }
}
