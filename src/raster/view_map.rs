//! The two views of a thumbnail and the mapping between mesh coordinates and image pixels
//! (drawing projects with it, mouse clicks unproject with it).
//!
//! The views look at the character the way its rig stands: a model saved +Z up (Blender's
//! frame) is drawn upright, not lying on its back, because the axes come from the rig's recorded
//! orientation ([`ViewAxes::of_label`]).

use crate::embed::Orientation;
use crate::geom::V3;

/// Which view a pixel is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// Front, looking at the character's face: screen x = the character's left, screen y = down.
    Front,
    /// Side, from the character's right: screen x = forward, screen y = down.
    Side,
}

/// The character's left, up and forward directions as unit vectors in the **mesh frame**: the
/// camera frame of both views. The default is a model saved +Y up facing +Z (the template's own
/// frame, and the frame motion previews are posed in).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewAxes {
    /// The character's left (front view's screen right).
    pub left: [f64; 3],
    /// Up (both views' screen up).
    pub up: [f64; 3],
    /// Forward (side view's screen right; toward the front view's viewer).
    pub forward: [f64; 3],
}

impl Default for ViewAxes {
    fn default() -> Self {
        Self {
            left: [1.0, 0.0, 0.0],
            up: [0.0, 1.0, 0.0],
            forward: [0.0, 0.0, 1.0],
        }
    }
}

impl ViewAxes {
    /// The axes of orientation `o` (template +X, +Y, +Z taken back to the mesh frame).
    pub fn from_orientation(o: &Orientation) -> Self {
        let back = |v: V3| {
            let m = o.unapply(&v);
            [m.x, m.y, m.z]
        };
        Self {
            left: back(V3::x()),
            up: back(V3::y()),
            forward: back(V3::z()),
        }
    }

    /// The axes of a rig's `orientation` label (`+Z up, -Y forward`); the default for a label
    /// that names no orientation (`as given` of `attach`).
    pub fn of_label(label: &str) -> Self {
        Orientation::from_label(label).map_or_else(Self::default, |o| Self::from_orientation(&o))
    }

    /// Screen right of `view`.
    pub fn right(&self, view: ViewKind) -> [f64; 3] {
        match view {
            ViewKind::Front => self.left,
            ViewKind::Side => self.forward,
        }
    }

    /// The axis the `,` / `.` keys move along in `view` (the one the screen does not show).
    pub fn depth(&self, view: ViewKind) -> [f64; 3] {
        match view {
            ViewKind::Front => self.forward,
            ViewKind::Side => self.left,
        }
    }

    /// Toward the viewer of `view` (larger is nearer: the z-buffer's depth).
    pub fn toward_viewer(&self, view: ViewKind) -> [f64; 3] {
        match view {
            ViewKind::Front => self.forward,
            ViewKind::Side => self.left.map(|c| -c),
        }
    }

    /// Mesh-frame vector of camera-frame components (`left`, `up`, `forward`).
    pub fn to_mesh(&self, c: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| c[0] * self.left[i] + c[1] * self.up[i] + c[2] * self.forward[i])
    }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Mapping between mesh coordinates and image pixels, for drawing and for mouse clicks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewMap {
    /// Image size.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// Pixels per mesh unit.
    pub scale: f64,
    /// Mesh-frame centre of the bounding box.
    pub center: [f64; 3],
    /// The camera frame of both views.
    pub axes: ViewAxes,
}

impl ViewMap {
    /// Fit the mesh-frame bounding box `[min, max]` into a `width`×`height` image of two
    /// square-ish halves, seen along the default axes (+Y up, facing +Z).
    pub fn fit(bbox: [[f64; 3]; 2], width: u32, height: u32) -> Self {
        Self::fit_axes(bbox, ViewAxes::default(), width, height)
    }

    /// [`fit`](Self::fit) seen along `axes`.
    pub fn fit_axes(bbox: [[f64; 3]; 2], axes: ViewAxes, width: u32, height: u32) -> Self {
        let size = [0, 1, 2].map(|i| (bbox[1][i] - bbox[0][i]).max(1e-9));
        // The box's extent along a unit axis (the axes are signed coordinate axes or rotations).
        let ext = |a: [f64; 3]| (0..3).map(|i| a[i].abs() * size[i]).sum::<f64>().max(1e-9);
        let half = f64::from(width) / 2.0;
        let sx = half / ext(axes.left).max(ext(axes.forward));
        let sy = f64::from(height) / ext(axes.up);
        let center = [0, 1, 2].map(|i| 0.5 * (bbox[0][i] + bbox[1][i]));
        Self {
            width,
            height,
            scale: 0.9 * sx.min(sy),
            center,
            axes,
        }
    }

    /// Pixel position of mesh point `p` in `view`.
    pub fn project(&self, p: [f64; 3], view: ViewKind) -> (f32, f32) {
        let d = [0, 1, 2].map(|i| p[i] - self.center[i]);
        let x = self.origin_x(view) + dot(d, self.axes.right(view)) * self.scale;
        let y = f64::from(self.height) / 2.0 - dot(d, self.axes.up) * self.scale;
        (x as f32, y as f32)
    }

    /// The z-buffer depth of mesh point `p` in `view` (larger is nearer the viewer).
    pub fn depth(&self, p: [f64; 3], view: ViewKind) -> f64 {
        dot(p, self.axes.toward_viewer(view))
    }

    /// The view pixel column `x` belongs to.
    pub fn view_at(&self, x: f64) -> ViewKind {
        if x < f64::from(self.width) / 2.0 {
            ViewKind::Front
        } else {
            ViewKind::Side
        }
    }

    /// The view under pixel (`x`, `y`) and mesh point `p` moved in that view's plane so that it
    /// projects onto the pixel; its depth in the view is kept.
    pub fn unproject_onto(&self, x: f64, y: f64, p: [f64; 3]) -> (ViewKind, [f64; 3]) {
        let view = self.view_at(x);
        let (right, up) = (self.axes.right(view), self.axes.up);
        let h = (x - self.origin_x(view)) / self.scale;
        let v = -(y - f64::from(self.height) / 2.0) / self.scale;
        let d = [0, 1, 2].map(|i| p[i] - self.center[i]);
        let (dh, dv) = (h - dot(d, right), v - dot(d, up));
        (view, [0, 1, 2].map(|i| p[i] + dh * right[i] + dv * up[i]))
    }

    fn origin_x(&self, view: ViewKind) -> f64 {
        let half = f64::from(self.width) / 2.0;
        match view {
            ViewKind::Front => half / 2.0,
            ViewKind::Side => half + half / 2.0,
        }
    }
}
