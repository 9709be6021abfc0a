//! Medial-surface sampling (pinocchio-facts §2).
//! OWNER: discretize helper. (Stub until implemented.)

use super::{DiscretizeOptions, DistanceField, MedialSamples};

/// Sample the medial surface of the field's interior; sorted by radius, largest first.
pub fn sample(_field: &DistanceField, _opts: &DiscretizeOptions) -> MedialSamples {
    MedialSamples::default()
}
