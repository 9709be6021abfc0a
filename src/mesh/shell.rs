//! Shells as [`super::prepare()`] reports them: each connected, consistently oriented piece with
//! its vertices and signed volume, turned outward when it faces in (the winding number needs the
//! shells of one asset to agree: opposite shells cancel).

use super::prepare::{map3, Shell};
use super::topology::Shells;
use crate::geom::{P3, V3};

/// The shells of `split` (largest first) over the normalized `positions`, each inward-facing one
/// flipped in `triangles`; with how many were flipped.
pub(super) fn make_shells(
    split: &Shells,
    positions: &[P3],
    triangles: &mut [[u32; 3]],
) -> (Vec<Shell>, usize) {
    let mut inward = 0;
    let mut stamp = vec![u32::MAX; positions.len()];
    let shells = split
        .shells
        .iter()
        .enumerate()
        .map(|(id, tris)| {
            let ctx = ShellCtx {
                id: id as u32,
                touches_boundary: &split.touches_boundary,
                positions,
            };
            let (shell, flipped) = make_shell(tris, &ctx, triangles, &mut stamp);
            inward += usize::from(flipped);
            shell
        })
        .collect();
    (shells, inward)
}

/// What [`make_shell`] reads besides the shell's triangles.
struct ShellCtx<'a> {
    /// Shell number (stamps vertices already collected for this shell).
    id: u32,
    /// Per triangle: touches an open or non-manifold edge.
    touches_boundary: &'a [bool],
    /// Welded positions, normalized frame.
    positions: &'a [P3],
}

/// Build one shell; flips it in `triangles` if it faces inward. Returns whether it was flipped.
/// `stamp` (one entry per welded vertex) dedups vertices without sorting them all.
///
/// A closed shell faces inward when its signed volume is negative. An open shell has no exact
/// volume, but its signed volume about its own centroid still tells a body with a hole (an open
/// neck, a missing sole) from the same body turned inside out; only clearly negative ones (beyond
/// [`OPEN_SHELL_VOLUME_FRACTION`] of area^1.5) are flipped, so sheets keep their orientation. This
/// makes shells of one asset agree, which the winding number needs (opposite shells cancel).
fn make_shell(
    tris: &[u32],
    ctx: &ShellCtx,
    triangles: &mut [[u32; 3]],
    stamp: &mut [u32],
) -> (Shell, bool) {
    let closed = tris.iter().all(|&t| {
        !ctx.touches_boundary
            .get(t as usize)
            .copied()
            .unwrap_or(true)
    });
    let (mut volume, area) = volume_and_area(tris, triangles, ctx.positions);
    let vertices = shell_vertices(tris, triangles, ctx.id, stamp);
    let flip = if closed {
        volume < 0.0
    } else {
        volume < -OPEN_SHELL_VOLUME_FRACTION * area.powf(1.5)
    };
    if flip {
        for &t in tris {
            if let Some(tri) = triangles.get_mut(t as usize) {
                tri.swap(1, 2);
            }
        }
        volume = -volume;
    }
    let shell = Shell {
        triangles: tris.to_vec(),
        vertices,
        closed,
        volume,
    };
    (shell, flip)
}

/// The shell's signed volume about its own centroid (the exact volume when it is closed, where
/// the centre does not matter; for an open one, the centre keeps a hole from biasing the sign)
/// and its area.
pub(crate) fn volume_and_area(
    tris: &[u32],
    triangles: &[[u32; 3]],
    positions: &[P3],
) -> (f64, f64) {
    let corners = || {
        tris.iter().filter_map(|&t| {
            triangles
                .get(t as usize)
                .and_then(|tri| map3(tri, positions))
        })
    };
    let (mut centroid, mut count) = (V3::zeros(), 0.0);
    for [a, b, c] in corners() {
        centroid += (a.coords + b.coords + c.coords) / 3.0;
        count += 1.0;
    }
    let centroid = if count > 0.0 {
        centroid / count
    } else {
        V3::zeros()
    };
    let (mut volume, mut area) = (0.0, 0.0);
    for [a, b, c] in corners() {
        let (a, b, c) = (
            a.coords - centroid,
            b.coords - centroid,
            c.coords - centroid,
        );
        volume += a.dot(&b.cross(&c)) / 6.0;
        area += 0.5 * (b - a).cross(&(c - a)).norm();
    }
    (volume, area)
}

/// The shell's vertices, sorted. `stamp[v] == id` marks a vertex already taken for shell `id`,
/// which dedups without sorting every triangle corner.
fn shell_vertices(tris: &[u32], triangles: &[[u32; 3]], id: u32, stamp: &mut [u32]) -> Vec<u32> {
    let mut vertices = Vec::with_capacity(tris.len() / 2 + 3);
    for &t in tris {
        if let Some(tri) = triangles.get(t as usize) {
            for &v in tri {
                if let Some(s) = stamp.get_mut(v as usize) {
                    if *s != id {
                        *s = id;
                        vertices.push(v);
                    }
                }
            }
        }
    }
    vertices.sort_unstable();
    vertices
}

/// An open shell is flipped only if its signed volume about its centroid is below
/// −(this × area^1.5): a sphere has volume/area^1.5 ≈ 0.094, a flat sheet 0.
pub const OPEN_SHELL_VOLUME_FRACTION: f64 = 0.01;
