//! Confidence: never report nonsense as success. The original "rigs" a tetrahedron and an armless
//! torso with a human skeleton; here such results are `low_confidence` with plain reasons.
//! OWNER: embed helper. (Stub until implemented.)

use super::Status;
use crate::discretize::Discretization;
use crate::embed::Embedding;
use crate::mesh::PreparedMesh;
use crate::skeleton::Skeleton;

/// Status plus the reasons behind it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Confidence {
    /// `Ok` or `LowConfidence`.
    pub status: Status,
    /// Plain-language reasons (empty when `Ok`).
    pub reasons: Vec<String>,
}

/// Judge an embedding: limb chains with almost no length, joints outside the surface, proportions far
/// from the template, search budget hit, ….
pub fn assess(
    mesh: &PreparedMesh,
    disc: &Discretization,
    skeleton: &Skeleton,
    emb: &Embedding,
) -> Confidence {
    let _ = (mesh, disc, skeleton);
    if emb.budget_hit {
        return Confidence {
            status: Status::LowConfidence,
            reasons: vec!["search budget hit".into()],
        };
    }
    Confidence::default()
}
