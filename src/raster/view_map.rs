//! The two views of a thumbnail and the mapping between mesh coordinates and image pixels
//! (drawing projects with it, mouse clicks unproject with it).

/// Which view a pixel is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// Front: screen x = mesh +X, screen y = mesh −Y.
    Front,
    /// Side: screen x = mesh +Z, screen y = mesh −Y.
    Side,
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
}

impl ViewMap {
    /// Fit the bounding box `[min, max]` into a `width`×`height` image of two square-ish halves.
    pub fn fit(bbox: [[f64; 3]; 2], width: u32, height: u32) -> Self {
        let ext = |i: usize| (bbox[1][i] - bbox[0][i]).max(1e-9);
        let half = f64::from(width) / 2.0;
        let sx = half / ext(0).max(ext(2));
        let sy = f64::from(height) / ext(1);
        let center = [0, 1, 2].map(|i| 0.5 * (bbox[0][i] + bbox[1][i]));
        Self {
            width,
            height,
            scale: 0.9 * sx.min(sy),
            center,
        }
    }

    /// Pixel position of mesh point `p` in `view`.
    pub fn project(&self, p: [f64; 3], view: ViewKind) -> (f32, f32) {
        let half = f64::from(self.width) / 2.0;
        let (h, ox) = match view {
            ViewKind::Front => (p[0] - self.center[0], half / 2.0),
            ViewKind::Side => (p[2] - self.center[2], half + half / 2.0),
        };
        let x = ox + h * self.scale;
        let y = f64::from(self.height) / 2.0 - (p[1] - self.center[1]) * self.scale;
        (x as f32, y as f32)
    }

    /// The view a pixel column belongs to and the two mesh coordinates under pixel (`x`, `y`):
    /// front → (X, Y), side → (Z, Y).
    pub fn unproject(&self, x: f64, y: f64) -> (ViewKind, f64, f64) {
        let half = f64::from(self.width) / 2.0;
        let (view, ox, c) = if x < half {
            (ViewKind::Front, half / 2.0, self.center[0])
        } else {
            (ViewKind::Side, half + half / 2.0, self.center[2])
        };
        let h = c + (x - ox) / self.scale;
        let v = self.center[1] - (y - f64::from(self.height) / 2.0) / self.scale;
        (view, h, v)
    }
}
