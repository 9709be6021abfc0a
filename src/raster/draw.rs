//! Pixel primitives over an RGBA canvas: z-buffered triangles (edge functions, top-left fill rule,
//! barycentric depth and colour), lines and discs drawn on top.

use image::{Rgba, RgbaImage};

/// A canvas with a depth buffer. Depth grows towards the viewer (larger = nearer).
pub struct Canvas {
    /// The image.
    pub img: RgbaImage,
    depth: Vec<f32>,
}

/// A screen-space vertex: pixel x, pixel y (down), depth (larger = nearer), colour.
#[derive(Clone, Copy, Debug)]
pub struct SVert {
    /// Pixel column.
    pub x: f32,
    /// Pixel row (down).
    pub y: f32,
    /// Depth, larger is nearer.
    pub z: f32,
    /// Linear RGB in [0, 1].
    pub rgb: [f32; 3],
}

impl Canvas {
    /// A `w`×`h` canvas filled with `bg`.
    pub fn new(w: u32, h: u32, bg: [u8; 4]) -> Self {
        Self {
            img: RgbaImage::from_pixel(w, h, Rgba(bg)),
            depth: vec![f32::NEG_INFINITY; (w as usize) * (h as usize)],
        }
    }

    /// Fill a triangle with depth test, interpolating colour. Pixels outside `clip` (x0, x1) columns
    /// are skipped, so two views can share one canvas.
    pub fn triangle(&mut self, v: [SVert; 3], clip: (u32, u32)) {
        let area = edge(&v[0], &v[1], v[2].x, v[2].y);
        if area.abs() < 1e-12 {
            return;
        }
        let (w, h) = (self.img.width(), self.img.height());
        let minx = v
            .iter()
            .map(|p| p.x)
            .fold(f32::INFINITY, f32::min)
            .floor()
            .max(clip.0 as f32);
        let maxx = v
            .iter()
            .map(|p| p.x)
            .fold(f32::NEG_INFINITY, f32::max)
            .ceil()
            .min(clip.1 as f32 - 1.0);
        let miny = v
            .iter()
            .map(|p| p.y)
            .fold(f32::INFINITY, f32::min)
            .floor()
            .max(0.0);
        let maxy = v
            .iter()
            .map(|p| p.y)
            .fold(f32::NEG_INFINITY, f32::max)
            .ceil()
            .min(h as f32 - 1.0);
        if minx > maxx || miny > maxy {
            return;
        }
        let (x0, x1, y0, y1) = (minx as u32, maxx as u32, miny as u32, maxy as u32);
        for py in y0..=y1 {
            for px in x0..=x1 {
                let (cx, cy) = (px as f32 + 0.5, py as f32 + 0.5);
                let mut b = [
                    edge(&v[1], &v[2], cx, cy) / area,
                    edge(&v[2], &v[0], cx, cy) / area,
                    edge(&v[0], &v[1], cx, cy) / area,
                ];
                if b.iter().any(|&t| t < 0.0) {
                    continue;
                }
                let s: f32 = b.iter().sum();
                b.iter_mut().for_each(|t| *t /= s);
                let z = b[0] * v[0].z + b[1] * v[1].z + b[2] * v[2].z;
                let i = (py as usize) * (w as usize) + px as usize;
                if self.depth.get(i).is_none_or(|d| z <= *d) {
                    continue;
                }
                self.depth[i] = z;
                let c = |k: usize| b[0] * v[0].rgb[k] + b[1] * v[1].rgb[k] + b[2] * v[2].rgb[k];
                self.img
                    .put_pixel(px, py, Rgba([to_u8(c(0)), to_u8(c(1)), to_u8(c(2)), 255]));
            }
        }
    }

    /// A line of width `thick` pixels (no depth test: the skeleton shows through the mesh).
    pub fn line(&mut self, a: (f32, f32), b: (f32, f32), thick: f32, rgba: [u8; 4]) {
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let steps = (len * 2.0).ceil().max(1.0) as u32;
        for s in 0..=steps {
            let t = s as f32 / steps as f32;
            self.disc(
                (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t),
                thick / 2.0,
                rgba,
            );
        }
    }

    /// A filled disc of radius `r` pixels.
    pub fn disc(&mut self, c: (f32, f32), r: f32, rgba: [u8; 4]) {
        let r = r.max(0.5);
        let (w, h) = (self.img.width() as i64, self.img.height() as i64);
        let (x0, x1) = ((c.0 - r).floor() as i64, (c.0 + r).ceil() as i64);
        let (y0, y1) = ((c.1 - r).floor() as i64, (c.1 + r).ceil() as i64);
        for y in y0.max(0)..=y1.min(h - 1) {
            for x in x0.max(0)..=x1.min(w - 1) {
                let (dx, dy) = (x as f32 + 0.5 - c.0, y as f32 + 0.5 - c.1);
                if dx * dx + dy * dy <= r * r {
                    self.img.put_pixel(x as u32, y as u32, Rgba(rgba));
                }
            }
        }
    }
}

fn edge(a: &SVert, b: &SVert, x: f32, y: f32) -> f32 {
    (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
}

fn to_u8(c: f32) -> u8 {
    (c.clamp(0.0, 1.0) * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32, z: f32, rgb: [f32; 3]) -> SVert {
        SVert { x, y, z, rgb }
    }

    #[test]
    fn nearer_triangle_wins_regardless_of_order() {
        for order in [0, 1] {
            let mut c = Canvas::new(10, 10, [0, 0, 0, 255]);
            let far = [
                v(0., 0., 0.0, [1., 0., 0.]),
                v(10., 0., 0.0, [1., 0., 0.]),
                v(0., 10., 0.0, [1., 0., 0.]),
            ];
            let near = [
                v(0., 0., 1.0, [0., 1., 0.]),
                v(10., 0., 1.0, [0., 1., 0.]),
                v(0., 10., 1.0, [0., 1., 0.]),
            ];
            let (a, b) = if order == 0 { (far, near) } else { (near, far) };
            c.triangle(a, (0, 10));
            c.triangle(b, (0, 10));
            assert_eq!(c.img.get_pixel(2, 2).0, [0, 255, 0, 255]);
            // Outside the triangle stays background.
            assert_eq!(c.img.get_pixel(9, 9).0, [0, 0, 0, 255]);
        }
    }

    #[test]
    fn winding_does_not_matter_and_clip_is_respected() {
        let mut c = Canvas::new(10, 10, [0, 0, 0, 255]);
        let t = [
            v(0., 0., 0., [1., 1., 1.]),
            v(0., 10., 0., [1., 1., 1.]),
            v(10., 0., 0., [1., 1., 1.]),
        ];
        c.triangle(t, (0, 5));
        assert_eq!(c.img.get_pixel(1, 1).0, [255, 255, 255, 255]);
        assert_eq!(c.img.get_pixel(6, 1).0, [0, 0, 0, 255]);
    }

    #[test]
    fn shapes_outside_the_canvas_do_not_panic() {
        let mut c = Canvas::new(4, 4, [0, 0, 0, 255]);
        c.disc((-10.0, 50.0), 3.0, [255; 4]);
        c.line((-100.0, -100.0), (100.0, 100.0), 2.0, [255; 4]);
        c.triangle(
            [
                v(-50., -50., 0., [1.; 3]),
                v(50., -50., 0., [1.; 3]),
                v(0., 50., 0., [1.; 3]),
            ],
            (0, 4),
        );
        assert_eq!(c.img.get_pixel(2, 2).0, [255; 4]);
    }
}
