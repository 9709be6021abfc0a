//! The skeleton and skin of a finished or artist-made rig, as plain records. They live on the
//! skeleton side so that loaders (a rigged glTF) need not depend on the `rig` output record.

use serde::{Deserialize, Serialize};

use crate::geom::P3;

/// One joint of a rig, **mesh frame**.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RigJoint {
    /// Joint name.
    pub name: String,
    /// Index of the parent joint in the same list, `None` for a root.
    pub parent: Option<usize>,
    /// Position in the input mesh's frame and units.
    pub position: [f64; 3],
    /// End marker: owns no vertices (its parent's bone ends here).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub end: bool,
}

impl RigJoint {
    /// [`Self::position`] as a point (mesh frame).
    pub fn point(&self) -> P3 {
        P3::from(self.position)
    }
}

/// Skin weights: one list per **input** vertex of `(joint index, weight)`, weights > 0 summing to 1,
/// heaviest first. A vertex bound to joint J follows J's transform (the glTF convention).
pub type SkinTable = Vec<Vec<(u32, f64)>>;
