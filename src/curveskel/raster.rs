//! Orthographic raster of every triangle of every shell (no back-face culling), with the front and
//! back depth per pixel and a layer count. This is the robust stand-in for the paper's vertex walk
//! (§4): the union of projected triangles copes with many shells, holes and open meshes.

use rayon::prelude::*;

use super::view::Frame;
use crate::mesh::PreparedMesh;

/// Primary raster size, pixels on the long side: the thinnest limb worth a branch (about 2 % of the
/// model) is then about 10 pixels wide.
pub const PRIMARY_PIXELS: usize = 512;
/// Empty pixels around the projection, so every outline closes inside the image.
const MARGIN: usize = 3;
/// Rows per band of the parallel fill: small enough that a 512-pixel raster has work for every
/// core, large enough that few triangles cross a band's edge.
const BAND_ROWS: usize = 16;

/// A raster of the projection along a frame's p.
#[derive(Clone, Debug)]
pub struct Raster {
    /// Width in pixels.
    pub w: usize,
    /// Height in pixels.
    pub h: usize,
    /// Frame x of the image's left edge.
    pub x0: f64,
    /// Frame y of the image's bottom edge.
    pub y0: f64,
    /// Pixel size (normalized units).
    pub px: f64,
    /// Covered pixels (row-major, row 0 at the bottom).
    pub mask: Vec<bool>,
    /// Nearest depth per pixel (+∞ where uncovered).
    pub zmin: Vec<f64>,
    /// Farthest depth per pixel (−∞ where uncovered).
    pub zmax: Vec<f64>,
    /// Surface layers along each pixel's ray.
    pub layers: Vec<u16>,
    /// The model's largest side (normalized units): the scale of every size rule.
    pub extent: f64,
}

impl Raster {
    /// Rasterize `prepared` along `frame.p`, `pixels` on the long side. Bands of rows are filled
    /// in parallel; a pixel's cover is a min, a max and a count, so the result does not depend on
    /// the order of the triangles or the number of threads.
    pub fn new(prepared: &PreparedMesh, frame: &Frame, pixels: usize) -> Self {
        let pts: Vec<[f64; 3]> = prepared
            .positions
            .par_iter()
            .map(|q| {
                let f = frame.to_frame(q);
                [f.x, f.y, f.z]
            })
            .collect();
        let mut r = Self::empty(&pts, pixels);
        let (x0, y0, px) = (r.x0, r.y0, r.px);
        let tris: Vec<[[f64; 3]; 3]> = prepared
            .triangles
            .par_iter()
            .map(|t| {
                t.map(|i| {
                    let p = pts[i as usize];
                    [(p[0] - x0) / px, (p[1] - y0) / px, p[2]]
                })
            })
            .collect();
        r.fill(&tris);
        r
    }

    /// An empty raster framing `pts` (frame coordinates): `pixels` on the long side, margin
    /// included.
    fn empty(pts: &[[f64; 3]], pixels: usize) -> Self {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for p in pts {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let extent = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max).max(1e-12);
        let side = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-12);
        let px = side / (pixels - 2 * MARGIN) as f64;
        let w = ((hi[0] - lo[0]) / px).ceil() as usize + 2 * MARGIN;
        let h = ((hi[1] - lo[1]) / px).ceil() as usize + 2 * MARGIN;
        Self {
            w,
            h,
            x0: lo[0] - MARGIN as f64 * px,
            y0: lo[1] - MARGIN as f64 * px,
            px,
            mask: vec![false; w * h],
            zmin: vec![f64::INFINITY; w * h],
            zmax: vec![f64::NEG_INFINITY; w * h],
            layers: vec![0; w * h],
            extent,
        }
    }

    /// Cover every triangle (pixel coordinates and depth), bands of [`BAND_ROWS`] rows in
    /// parallel, each band filling the triangles that reach it.
    fn fill(&mut self, tris: &[[[f64; 3]; 3]]) {
        let (w, h) = (self.w, self.h);
        let buckets = band_buckets(tris, h);
        let rows = BAND_ROWS * w;
        self.mask
            .par_chunks_mut(rows)
            .zip(self.zmin.par_chunks_mut(rows))
            .zip(self.zmax.par_chunks_mut(rows))
            .zip(self.layers.par_chunks_mut(rows))
            .enumerate()
            .for_each(|(b, (((mask, zmin), zmax), layers))| {
                let mut band = Band {
                    j0: b * BAND_ROWS,
                    w,
                    h,
                    mask,
                    zmin,
                    zmax,
                    layers,
                };
                for &t in &buckets[b] {
                    band.fill(&tris[t as usize]);
                }
            });
    }

    /// The primary raster: [`PRIMARY_PIXELS`], cracks between touching shells closed (1 px).
    pub fn primary(prepared: &PreparedMesh, frame: &Frame) -> Self {
        let mut r = Self::new(prepared, frame, PRIMARY_PIXELS);
        r.close();
        r
    }

    /// Covered area (normalized units²).
    pub fn area(&self) -> f64 {
        self.mask.iter().filter(|m| **m).count() as f64 * self.px * self.px
    }

    /// Fraction of covered pixels whose ray crosses more than two surface layers (parts overlap).
    pub fn overlap_fraction(&self) -> f64 {
        let covered = self.mask.iter().filter(|m| **m).count().max(1);
        let deep = self.layers.iter().filter(|l| **l > 2).count();
        deep as f64 / covered as f64
    }

    /// Pixel (column, row) → frame (x, y) of its centre.
    pub fn centre(&self, i: f64, j: f64) -> (f64, f64) {
        (self.x0 + (i + 0.5) * self.px, self.y0 + (j + 0.5) * self.px)
    }

    /// Frame (x, y) → continuous pixel coordinates (pixel i spans [i, i+1)).
    pub fn to_px(&self, x: f64, y: f64) -> (f64, f64) {
        ((x - self.x0) / self.px, (y - self.y0) / self.px)
    }

    /// Index of the pixel containing continuous pixel coordinates, if inside the image.
    pub fn index(&self, u: f64, v: f64) -> Option<usize> {
        (u >= 0.0 && v >= 0.0 && (u as usize) < self.w && (v as usize) < self.h)
            .then(|| v as usize * self.w + u as usize)
    }

    /// Middle depth (½(front + back)) at the covered pixels within one pixel of (u, v), if any.
    pub fn mid_depth(&self, u: f64, v: f64) -> Option<f64> {
        let (ci, cj) = (u.floor() as i64, v.floor() as i64);
        let (mut sum, mut n) = (0.0, 0);
        for dj in -1..=1 {
            for di in -1..=1 {
                let (i, j) = (ci + di, cj + dj);
                if i < 0 || j < 0 || i >= self.w as i64 || j >= self.h as i64 {
                    continue;
                }
                let k = j as usize * self.w + i as usize;
                if self.mask[k] && self.zmin[k].is_finite() {
                    sum += 0.5 * (self.zmin[k] + self.zmax[k]);
                    n += 1;
                }
            }
        }
        (n > 0).then(|| sum / f64::from(n))
    }

    /// Depth range [front, back] at the pixel containing (u, v), if covered.
    pub fn depth_range(&self, u: f64, v: f64) -> Option<(f64, f64)> {
        let k = self.index(u, v)?;
        (self.zmin[k].is_finite()).then(|| (self.zmin[k], self.zmax[k]))
    }

    /// Morphological closing by one pixel (3×3): seals cracks between touching shells. New pixels
    /// take the depth range of their covered neighbours.
    fn close(&mut self) {
        let dilated = box3(&self.mask, self.w, self.h, true);
        let closed = box3(&dilated, self.w, self.h, false);
        for (k, &c) in closed.iter().enumerate() {
            if c && !self.mask[k] {
                let (i, j) = (k % self.w, k / self.w);
                let (lo, hi) = self.neighbour_depths(i, j);
                self.zmin[k] = lo;
                self.zmax[k] = hi;
            }
        }
        self.mask = closed;
    }

    fn around(&self, i: usize, j: usize) -> impl Iterator<Item = usize> + '_ {
        let (i0, i1) = (i.saturating_sub(1), (i + 1).min(self.w - 1));
        let (j0, j1) = (j.saturating_sub(1), (j + 1).min(self.h - 1));
        (j0..=j1).flat_map(move |jj| (i0..=i1).map(move |ii| jj * self.w + ii))
    }

    fn neighbour_depths(&self, i: usize, j: usize) -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for k in self.around(i, j) {
            if self.mask[k] {
                lo = lo.min(self.zmin[k]);
                hi = hi.max(self.zmax[k]);
            }
        }
        (lo, hi)
    }
}

/// Barycentric coordinates of (x, y) in `t` (signed `area` = twice the triangle's area).
fn barycentric(t: &[[f64; 3]; 3], x: f64, y: f64, area: f64) -> [f64; 3] {
    let f = |a: &[f64; 3], b: &[f64; 3]| {
        ((b[0] - a[0]) * (y - a[1]) - (x - a[0]) * (b[1] - a[1])) / area
    };
    [f(&t[1], &t[2]), f(&t[2], &t[0]), f(&t[0], &t[1])]
}

/// For each band of [`BAND_ROWS`] rows, the triangles whose pixel rows (their centres' rows and
/// the rows of their corners, which a sliver marks) meet it.
fn band_buckets(tris: &[[[f64; 3]; 3]], h: usize) -> Vec<Vec<u32>> {
    let mut buckets = vec![Vec::new(); h.div_ceil(BAND_ROWS)];
    for (k, t) in tris.iter().enumerate() {
        let vmin = t.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
        let vmax = t.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max);
        let row = |v: f64| (v.max(0.0) as usize).min(h - 1);
        for bucket in &mut buckets[row(vmin) / BAND_ROWS..=row(vmax) / BAND_ROWS] {
            bucket.push(k as u32);
        }
    }
    buckets
}

/// Rows `j0..` of a raster being filled (global pixel indices minus `j0 * w`).
struct Band<'a> {
    j0: usize,
    w: usize,
    h: usize,
    mask: &'a mut [bool],
    zmin: &'a mut [f64],
    zmax: &'a mut [f64],
    layers: &'a mut [u16],
}

impl Band<'_> {
    /// Cover the pixel centres inside one triangle (pixel coordinates, depth) in this band. A
    /// triangle that covers no centre anywhere (a sliver thinner than a pixel) marks the pixels of
    /// its corners and centroid, so thin parts are never lost.
    fn fill(&mut self, t: &[[f64; 3]; 3]) {
        let area =
            (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
        let mut any = false;
        if area.abs() > 1e-12 {
            if let Some((i0, i1, j0, j1)) = centre_box(t, self.w, self.h) {
                let end = self.j0 + self.mask.len() / self.w;
                for j in j0.max(self.j0)..=j1.min(end - 1) {
                    for i in i0..=i1 {
                        let (x, y) = (i as f64 + 0.5, j as f64 + 0.5);
                        let b = barycentric(t, x, y, area);
                        if b.iter().all(|c| *c >= -1e-9) {
                            let z = b[0] * t[0][2] + b[1] * t[1][2] + b[2] * t[2][2];
                            self.cover(j * self.w + i, z);
                            any = true;
                        }
                    }
                }
                // The triangle may cover centres in another band only.
                if !any && (j0 < self.j0 || j1 >= end) {
                    any = covers_a_centre(t, area, (i0, i1, j0, j1));
                }
            }
        }
        if !any {
            let c = [0, 1, 2].map(|k| (t[0][k] + t[1][k] + t[2][k]) / 3.0);
            for p in t.iter().chain(std::iter::once(&c)) {
                let (u, v) = (p[0], p[1]);
                if u >= 0.0 && v >= 0.0 && (u as usize) < self.w && (v as usize) < self.h {
                    self.cover(v as usize * self.w + u as usize, p[2]);
                }
            }
        }
    }

    /// Cover global pixel `k` if it lies in this band.
    fn cover(&mut self, k: usize, z: f64) {
        let Some(k) = k
            .checked_sub(self.j0 * self.w)
            .filter(|k| *k < self.mask.len())
        else {
            return;
        };
        self.mask[k] = true;
        self.zmin[k] = self.zmin[k].min(z);
        self.zmax[k] = self.zmax[k].max(z);
        self.layers[k] = self.layers[k].saturating_add(1);
    }
}

/// Columns i0..=i1 and rows j0..=j1 of the pixel centres in a triangle's bounding box, clipped to
/// the image; `None` if empty on the high side.
fn centre_box(t: &[[f64; 3]; 3], w: usize, h: usize) -> Option<(usize, usize, usize, usize)> {
    let umin = t.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min);
    let umax = t.iter().map(|p| p[0]).fold(f64::NEG_INFINITY, f64::max);
    let vmin = t.iter().map(|p| p[1]).fold(f64::INFINITY, f64::min);
    let vmax = t.iter().map(|p| p[1]).fold(f64::NEG_INFINITY, f64::max);
    let (i0, i1) = ((umin - 0.5).ceil().max(0.0) as usize, (umax - 0.5).floor());
    let (j0, j1) = ((vmin - 0.5).ceil().max(0.0) as usize, (vmax - 0.5).floor());
    let (i1, j1) = (i1.min(w as f64 - 1.0), j1.min(h as f64 - 1.0));
    (i1 >= 0.0 && j1 >= 0.0 && i0 <= i1 as usize && j0 <= j1 as usize).then_some((
        i0,
        i1 as usize,
        j0,
        j1 as usize,
    ))
}

/// Whether any pixel centre of the box lies in the triangle (the same test as the fill).
fn covers_a_centre(
    t: &[[f64; 3]; 3],
    area: f64,
    (i0, i1, j0, j1): (usize, usize, usize, usize),
) -> bool {
    (j0..=j1).any(|j| {
        (i0..=i1).any(|i| {
            let b = barycentric(t, i as f64 + 0.5, j as f64 + 0.5, area);
            b.iter().all(|c| *c >= -1e-9)
        })
    })
}

/// Any (`grow`) or all (else) of each pixel's 3×3 neighbourhood clipped to the image, as a row
/// pass then a column pass (the 3×3 box is separable).
fn box3(m: &[bool], w: usize, h: usize, grow: bool) -> Vec<bool> {
    let pick = |a: bool, b: bool| if grow { a || b } else { a && b };
    let mut rows = m.to_vec();
    for j in 0..h {
        let r = &m[j * w..(j + 1) * w];
        for i in 0..w {
            let mut v = r[i];
            if i > 0 {
                v = pick(v, r[i - 1]);
            }
            if i + 1 < w {
                v = pick(v, r[i + 1]);
            }
            rows[j * w + i] = v;
        }
    }
    let mut out = rows.clone();
    for j in 0..h {
        for i in 0..w {
            let mut v = rows[j * w + i];
            if j > 0 {
                v = pick(v, rows[(j - 1) * w + i]);
            }
            if j + 1 < h {
                v = pick(v, rows[(j + 1) * w + i]);
            }
            out[j * w + i] = v;
        }
    }
    out
}

#[cfg(test)]
#[path = "raster_tests.rs"]
mod tests;
