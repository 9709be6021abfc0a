//! Sphere packing (pinocchio-facts §3).
//! OWNER: discretize helper. (Stub until implemented.)

use super::{DiscretizeError, DiscretizeOptions, MedialSamples, Sphere};

/// Greedy packing of medial samples, largest first.
pub fn pack(
    medial: &MedialSamples,
    _opts: &DiscretizeOptions,
) -> Result<Vec<Sphere>, DiscretizeError> {
    if medial.samples.is_empty() {
        return Err(DiscretizeError::NoInterior {
            min_thickness: 0.006 / 0.9,
        });
    }
    Ok(medial.samples.clone())
}
