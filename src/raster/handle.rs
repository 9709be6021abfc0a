//! The influence-range handle of the selected joint (Bang et al. 2015 §5.1; the drawing of facts
//! §11.1): heat distances are measured to the *virtual bones* between handle positions, so the
//! overlay shows where the bones at the handle now reach — each virtual bone as a dashed line —
//! and the handle itself as a cross, linked to its joint by a dotted line.

use super::draw::Canvas;
use super::{ViewKind, ViewMap};

/// Virtual bones: a light violet, apart from the yellow bones and the cyan selection.
const REACH: [u8; 4] = [200, 150, 255, 255];
/// The handle's cross and its link to the joint.
const HANDLE: [u8; 4] = [255, 255, 255, 255];

/// The selected joint's range handle, mesh frame.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeHandle {
    /// The joint the handle belongs to.
    pub joint: [f64; 3],
    /// The handle: the joint plus its offset.
    pub handle: [f64; 3],
    /// The virtual bones that end at the handle (to the parent's handle and to each child's):
    /// the segments the heat distances are measured to.
    pub reach: Vec<[[f64; 3]; 2]>,
}

/// Draw `h` over one view; `px` is the skeleton's line width in pixels.
pub fn draw(c: &mut Canvas, map: &ViewMap, kind: ViewKind, h: &RangeHandle, px: f32) {
    for seg in &h.reach {
        let (a, b) = (map.project(seg[0], kind), map.project(seg[1], kind));
        dashed(c, a, b, 1.4 * px, 3.0 * px, REACH);
    }
    let (j, (x, y)) = (map.project(h.joint, kind), map.project(h.handle, kind));
    dashed(c, j, (x, y), 0.8 * px, 1.5 * px, HANDLE);
    let r = 3.0 * px;
    c.line((x - r, y - r), (x + r, y + r), px, HANDLE);
    c.line((x - r, y + r), (x + r, y - r), px, HANDLE);
}

/// A line drawn as dashes of `dash` pixels with gaps of the same length.
fn dashed(c: &mut Canvas, a: (f32, f32), b: (f32, f32), thick: f32, dash: f32, rgba: [u8; 4]) {
    let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
    let dash = dash.max(1.0);
    let n = (len / dash).ceil() as u32;
    let at = |t: f32| (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t);
    for k in (0..n).step_by(2) {
        let t0 = k as f32 * dash / len.max(1e-6);
        let t1 = ((k + 1) as f32 * dash / len.max(1e-6)).min(1.0);
        c.line(at(t0), at(t1), thick, rgba);
    }
}
