//! The primary 3D silhouette as outline loops: marching squares on the raster (a robust stand-in
//! for the paper's Level 1/Level 2 walk, §4), smoothed and resampled at a uniform spacing (uniform
//! spacing makes the chordal axis smooth), each point carrying the depth of the surface at the
//! outline: on a closed smooth surface front and back meet at the contour generator, so the middle
//! of the pixel's depth range is that depth.

use std::ops::Range;

use super::raster::Raster;
use super::{CurveError, CurveMode};

/// Outline point spacing, pixels of the primary raster.
pub const SPACING_PX: f64 = 2.0;
/// Outer loops smaller than this fraction of the total covered area get no branches (floating
/// accessories); their vertices follow the nearest branch.
pub const MIN_LOOP_AREA: f64 = 0.005;
/// Holes smaller than this fraction of the total area are filled (robust mode keeps larger ones:
/// a hand on a hip encloses a real loop).
pub const MIN_HOLE_AREA: f64 = 0.01;
/// Laplacian smoothing passes on the marching-squares polyline (removes the pixel staircase).
const SMOOTHING_PASSES: usize = 2;

/// One outline point, frame coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutPt {
    /// Image x.
    pub x: f64,
    /// Image y.
    pub y: f64,
    /// Depth of the surface at the outline.
    pub z: f64,
}

/// Closed outline loops: outer loops counter-clockwise, holes clockwise.
#[derive(Clone, Debug, Default)]
pub struct Loops {
    /// All points, loop after loop.
    pub points: Vec<OutPt>,
    /// Each loop's range in `points`.
    pub loops: Vec<Range<usize>>,
}

/// Trace, filter, smooth and resample the outline of `r`'s mask.
pub fn loops(r: &Raster, mode: CurveMode) -> Result<Loops, CurveError> {
    let mask = if mode == CurveMode::Faithful {
        fill_holes(r)
    } else {
        r.mask.clone()
    };
    let raw = march(&mask, r.w, r.h);
    let total: f64 = raw
        .iter()
        .map(|l| signed_area(l))
        .filter(|a| *a > 0.0)
        .sum();
    if total <= 0.0 {
        return Err(CurveError::NoOutline);
    }
    let mut out = Loops::default();
    for l in raw {
        let a = signed_area(&l);
        let keep = if a > 0.0 {
            a >= MIN_LOOP_AREA * total
        } else {
            -a >= MIN_HOLE_AREA * total
        };
        if !keep {
            continue;
        }
        let pts = resample(smooth(l), SPACING_PX);
        if pts.len() < 3 {
            continue;
        }
        let start = out.points.len();
        for (u, v) in pts {
            let (x, y) = (r.x0 + u * r.px, r.y0 + v * r.px);
            let z = r.mid_depth(u, v).unwrap_or(f64::NAN);
            out.points.push(OutPt { x, y, z });
        }
        fill_missing_depth(&mut out.points[start..]);
        out.loops.push(start..out.points.len());
    }
    if out.loops.is_empty() {
        return Err(CurveError::NoOutline);
    }
    Ok(out)
}

/// Marching squares on pixel centres; each loop keeps the covered side on its left. Points are in
/// continuous pixel coordinates. Saddles join the covered pixels (8-connected).
fn march(mask: &[bool], w: usize, h: usize) -> Vec<Vec<(f64, f64)>> {
    const NONE: u32 = u32::MAX;
    let id_h = |i: usize, j: usize| 2 * (j * w + i);
    let id_v = |i: usize, j: usize| 2 * (j * w + i) + 1;
    let mut next = vec![NONE; 2 * w * h];
    for j in 0..h.saturating_sub(1) {
        for i in 0..w.saturating_sub(1) {
            let val = [
                mask[j * w + i],
                mask[j * w + i + 1],
                mask[(j + 1) * w + i + 1],
                mask[(j + 1) * w + i],
            ];
            let side = [id_h(i, j), id_v(i + 1, j), id_h(i, j + 1), id_v(i, j)];
            for s in 0..4 {
                if !val[s] || val[(s + 1) % 4] {
                    continue;
                }
                // The next side, counter-clockwise, where the outline comes back in.
                for d in 1..4 {
                    let t = (s + d) % 4;
                    if !val[t] && val[(t + 1) % 4] {
                        next[side[s]] = side[t] as u32;
                        break;
                    }
                }
            }
        }
    }
    let point = |id: usize| {
        let (k, vertical) = (id / 2, id % 2 == 1);
        let (i, j) = ((k % w) as f64, (k / w) as f64);
        if vertical {
            (i + 0.5, j + 1.0)
        } else {
            (i + 1.0, j + 0.5)
        }
    };
    let mut seen = vec![false; next.len()];
    let mut out = Vec::new();
    for start in 0..next.len() {
        if next[start] == NONE || seen[start] {
            continue;
        }
        let mut l = Vec::new();
        let mut id = start;
        while !seen[id] && next[id] != NONE {
            seen[id] = true;
            l.push(point(id));
            id = next[id] as usize;
        }
        if l.len() >= 3 {
            out.push(l);
        }
    }
    out
}

/// The mask with every hole filled (background not reachable from the image border).
fn fill_holes(r: &Raster) -> Vec<bool> {
    let (w, h) = (r.w, r.h);
    let mut outside = vec![false; w * h];
    let mut stack: Vec<usize> = (0..w).flat_map(|i| [i, (h - 1) * w + i]).collect();
    stack.extend((0..h).flat_map(|j| [j * w, j * w + w - 1]));
    while let Some(k) = stack.pop() {
        if outside[k] || r.mask[k] {
            continue;
        }
        outside[k] = true;
        let (i, j) = (k % w, k / w);
        if i > 0 {
            stack.push(k - 1);
        }
        if i + 1 < w {
            stack.push(k + 1);
        }
        if j > 0 {
            stack.push(k - w);
        }
        if j + 1 < h {
            stack.push(k + w);
        }
    }
    outside.iter().map(|o| !o).collect()
}

/// The signed area of a closed polyline (positive counter-clockwise).
pub fn signed_area(l: &[(f64, f64)]) -> f64 {
    let n = l.len();
    0.5 * (0..n)
        .map(|i| {
            let (a, b) = (l[i], l[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
}

/// Cyclic [¼, ½, ¼] smoothing.
fn smooth(mut l: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let n = l.len();
    for _ in 0..SMOOTHING_PASSES {
        l = (0..n)
            .map(|i| {
                let (a, b, c) = (l[(i + n - 1) % n], l[i], l[(i + 1) % n]);
                (
                    0.25 * a.0 + 0.5 * b.0 + 0.25 * c.0,
                    0.25 * a.1 + 0.5 * b.1 + 0.25 * c.1,
                )
            })
            .collect();
    }
    l
}

/// Points at equal arc-length steps (about `spacing`) along the closed polyline.
fn resample(l: Vec<(f64, f64)>, spacing: f64) -> Vec<(f64, f64)> {
    let n = l.len();
    let seg = |i: usize| {
        let (a, b) = (l[i], l[(i + 1) % n]);
        ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt()
    };
    let perimeter: f64 = (0..n).map(seg).sum();
    let count = (perimeter / spacing).round() as usize;
    if count < 3 {
        return Vec::new();
    }
    let step = perimeter / count as f64;
    let mut out = Vec::with_capacity(count);
    let (mut i, mut walked) = (0, 0.0);
    for k in 0..count {
        let target = k as f64 * step;
        while i < n && walked + seg(i) < target {
            walked += seg(i);
            i += 1;
        }
        let i = i.min(n - 1);
        let (a, b) = (l[i], l[(i + 1) % n]);
        let t = ((target - walked) / seg(i).max(1e-12)).clamp(0.0, 1.0);
        out.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
    }
    out
}

/// Points whose neighbourhood had no covered pixel take the nearest known depth along the loop.
fn fill_missing_depth(pts: &mut [OutPt]) {
    let n = pts.len();
    let Some(first) = pts.iter().position(|p| p.z.is_finite()) else {
        pts.iter_mut().for_each(|p| p.z = 0.0);
        return;
    };
    let mut last = pts[first].z;
    for k in 0..n {
        let i = (first + k) % n;
        if pts[i].z.is_finite() {
            last = pts[i].z;
        } else {
            pts[i].z = last;
        }
    }
}
