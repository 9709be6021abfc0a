//! The silhouette raster: filling band by band (in parallel) equals filling the whole image.

use super::*;

/// Fill `tris` into a `w`×`h` image either as one band or band by band (buckets as in
/// [`Raster::new`]); returns (mask, zmin, zmax, layers).
fn filled(tris: &[[[f64; 3]; 3]], w: usize, h: usize, banded: bool) -> Raster {
    let mut r = Raster {
        w,
        h,
        x0: 0.0,
        y0: 0.0,
        px: 1.0,
        mask: vec![false; w * h],
        zmin: vec![f64::INFINITY; w * h],
        zmax: vec![f64::NEG_INFINITY; w * h],
        layers: vec![0; w * h],
        extent: 1.0,
    };
    let rows = if banded { BAND_ROWS * w } else { w * h };
    let buckets = if banded {
        band_buckets(tris, h)
    } else {
        vec![(0..tris.len() as u32).collect()]
    };
    let chunks = r
        .mask
        .chunks_mut(rows)
        .zip(r.zmin.chunks_mut(rows))
        .zip(r.zmax.chunks_mut(rows))
        .zip(r.layers.chunks_mut(rows));
    for (b, (((mask, zmin), zmax), layers)) in chunks.enumerate() {
        let j0 = if banded { b * BAND_ROWS } else { 0 };
        let mut band = Band {
            j0,
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
    }
    r
}

#[test]
fn banded_fill_equals_a_whole_image_fill() {
    // Large triangles, slivers thinner than a pixel (some crossing band edges, some covering a
    // centre in one band only) and tiny triangles: a deterministic pseudo-random set.
    let (w, h) = (24, 3 * BAND_ROWS + 5);
    let mut next = crate::util::test_rng::lcg(12345);
    let mut tris = Vec::new();
    for k in 0..300 {
        let scale = [20.0, 3.0, 0.4][k % 3];
        let (cu, cv) = (
            1.0 + next() * (w as f64 - 2.0),
            1.0 + next() * (h as f64 - 2.0),
        );
        let mut p = || {
            let u = (cu + (next() - 0.5) * scale).clamp(0.0, w as f64 - 0.01);
            let v = (cv + (next() - 0.5) * scale * 8.0).clamp(0.0, h as f64 - 0.01);
            [u, v, next()]
        };
        tris.push([p(), p(), p()]);
    }
    let (one, banded) = (filled(&tris, w, h, false), filled(&tris, w, h, true));
    assert!(one.mask.iter().filter(|m| **m).count() > w * h / 4);
    assert_eq!(one.mask, banded.mask);
    assert_eq!(one.layers, banded.layers);
    assert_eq!(one.zmin, banded.zmin);
    assert_eq!(one.zmax, banded.zmax);
}
