//! Sphere graph (pinocchio-facts §4): intersecting spheres plus Gabriel edges that stay inside, made
//! connected, with all-pairs shortest paths.
//! OWNER: discretize helper. (Stub until implemented.)

use super::{DistanceField, Sphere};
use crate::geom::NodeId;

/// The graph the discrete embedding searches. Vertices are packed spheres (normalized frame).
#[derive(Clone, Debug, Default)]
pub struct SphereGraph {
    /// One entry per graph vertex.
    pub spheres: Vec<Sphere>,
    /// Adjacency lists: `(neighbour, Euclidean edge length)`.
    pub edges: Vec<Vec<(NodeId, f64)>>,
    /// Edges added only to connect otherwise separate components (they leave the interior).
    pub bridges: Vec<(NodeId, NodeId)>,
}

impl SphereGraph {
    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.spheres.len()
    }

    /// True if there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.spheres.is_empty()
    }

    /// Shortest-path distance (normalized units); `f64::INFINITY` if unreachable.
    pub fn dist(&self, _a: NodeId, _b: NodeId) -> f64 {
        f64::INFINITY
    }

    /// Shortest path from `a` to `b`, both ends included (`[a]` when a == b; empty if unreachable).
    pub fn path(&self, _a: NodeId, _b: NodeId) -> Vec<NodeId> {
        Vec::new()
    }
}

/// Connect packed spheres into a graph and compute all-pairs shortest paths.
pub fn connect(spheres: Vec<Sphere>, _field: &DistanceField) -> SphereGraph {
    SphereGraph {
        edges: vec![Vec::new(); spheres.len()],
        spheres,
        bridges: Vec::new(),
    }
}
