//! Helpers shared by the measure tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use geppetto::geom::P3;
use geppetto::measure::truth::{RigKind, ScoredRig, Weights};

#[path = "../common/mod.rs"]
mod common;
#[allow(unused_imports)]
pub use common::{corpus, tool};

/// `v` lines of an OBJ (independent of the mesh loader).
pub fn obj_vertices(path: &Path) -> Vec<P3> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            (it.next()? == "v").then_some(())?;
            let c: Vec<f64> = it.take(3).filter_map(|s| s.parse().ok()).collect();
            (c.len() == 3).then(|| P3::new(c[0], c[1], c[2]))
        })
        .collect()
}

/// An OBJ with only vertices (and one triangle so loaders accept it).
pub fn write_obj(path: &Path, vertices: &[P3]) {
    let mesh = geppetto::mesh::Mesh {
        positions: vertices.to_vec(),
        triangles: vec![[0, 1, 2]],
    };
    geppetto::mesh::write_obj(&mesh, path).expect("write obj");
}

/// A rig from joints and optional weights.
pub fn rig(positions: Vec<P3>, parents: Vec<Option<usize>>, skin: Option<Weights>) -> ScoredRig {
    ScoredRig {
        source: PathBuf::from("test"),
        kind: RigKind::RigJson,
        names: (0..positions.len()).map(|i| format!("j{i}")).collect(),
        parents,
        positions,
        skin,
        bbox: None,
        mesh: None,
        mesh_path: None,
    }
}

/// Deterministic pseudo-random numbers in [0, 1) (tests only).
pub struct Lcg(pub u64);

impl Lcg {
    /// Next value in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}
