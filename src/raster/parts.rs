//! Per-bone colours for multi-component rigs (Bharaj et al. 2012): each rigid piece is bound to one
//! bone with weight 1, so painting every vertex by its bone shows the limb mapping at a glance (a
//! left hand coloured like the right arm is a wrong mapping). Embed rigs keep the plain grey.

use crate::rig::{Rig, METHOD_MULTIPART};

/// Fixed palette, indexed by joint index modulo its length: ten hues far apart, light enough for
/// the Lambert shading to stay readable on the dark background, and unlike the skeleton overlay's
/// yellow bones and orange joints so the overlay stays visible.
pub const BONE_PALETTE: [[f32; 3]; 10] = [
    [0.90, 0.35, 0.30],
    [0.30, 0.70, 0.95],
    [0.40, 0.85, 0.40],
    [0.55, 0.35, 0.20],
    [0.75, 0.45, 0.95],
    [0.85, 0.85, 0.35],
    [0.30, 0.90, 0.85],
    [0.95, 0.45, 0.75],
    [0.65, 0.80, 0.30],
    [0.55, 0.60, 0.95],
];

/// The palette colour of joint `joint`.
pub fn bone_colour(joint: usize) -> [f32; 3] {
    BONE_PALETTE[joint % BONE_PALETTE.len()]
}

/// One colour per input vertex for a multipart rig with weights: the colour of the vertex's bone
/// (the joint of largest weight; with rigid weights the only one). `None` for other methods, or
/// without a weight table; a vertex without weights stays grey (`base`).
pub fn vertex_bone_colours(rig: &Rig, base: [f32; 3]) -> Option<Vec<[f32; 3]>> {
    if rig.method != METHOD_MULTIPART {
        return None;
    }
    let table = rig.skin.as_ref()?;
    Some(
        table
            .iter()
            .map(|row| {
                row.iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
                    .map_or(base, |(j, _)| bone_colour(*j as usize))
            })
            .collect(),
    )
}
