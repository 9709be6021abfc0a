//! Golden-image tests of the thumbnail rasterizer: the box figure rendered front + side with its
//! skeleton, compared to committed PNGs under tests/golden/ with a per-pixel tolerance.
//! Regenerate deliberately with `UPDATE_GOLDEN=1 cargo test --test raster_golden`.

use std::path::PathBuf;

use geppetto::raster::figure::box_figure;
use geppetto::raster::{render_rig, ThumbnailView, BACKGROUND};
use image::RgbaImage;

/// Largest per-channel difference a pixel may have and still match (rounding, float order).
const CHANNEL_TOLERANCE: i32 = 6;
/// Fraction of pixels allowed to exceed the channel tolerance (edge pixels on another platform).
const MAX_BAD_FRACTION: f64 = 0.003;

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn check(name: &str, img: &RgbaImage) {
    let path = golden(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        img.save(&path).unwrap();
        eprintln!("updated {}", path.display());
        return;
    }
    let want = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (create it with UPDATE_GOLDEN=1)", path.display()))
        .to_rgba8();
    assert_eq!(want.dimensions(), img.dimensions(), "{name}: size");
    let mut bad = Vec::new();
    for (x, y, p) in img.enumerate_pixels() {
        let q = want.get_pixel(x, y);
        let d = (0..4)
            .map(|k| (i32::from(p[k]) - i32::from(q[k])).abs())
            .max()
            .unwrap_or(0);
        if d > CHANNEL_TOLERANCE {
            bad.push((x, y, p.0, q.0));
        }
    }
    let frac = bad.len() as f64 / f64::from(img.width() * img.height());
    if frac > MAX_BAD_FRACTION {
        let out = std::env::temp_dir().join(format!("actual-{name}"));
        let _ = img.save(&out);
        panic!(
            "{name}: {} pixels ({:.2}%) differ by more than {CHANNEL_TOLERANCE}; first: {:?}; actual image saved to {}",
            bad.len(),
            100.0 * frac,
            &bad[..bad.len().min(5)],
            out.display()
        );
    }
}

fn count(img: &RgbaImage, pred: impl Fn([u8; 4]) -> bool) -> usize {
    img.pixels().filter(|p| pred(p.0)).count()
}

#[test]
fn figure_front_and_side_with_skeleton() {
    let (mesh, rig) = box_figure(false);
    let view = ThumbnailView {
        width: 240,
        height: 150,
        selected: Some(4),
        ..ThumbnailView::default()
    };
    let (img, _) = render_rig(&mesh, &rig, &view);
    // Sanity independent of the golden file: the figure covers a plausible share of the image,
    // bones (yellow) and the selected joint (cyan) are visible in both halves.
    let covered = count(&img, |p| p != BACKGROUND);
    let total = (img.width() * img.height()) as usize;
    assert!(
        covered > total / 20 && covered < total / 2,
        "covered {covered} of {total}"
    );
    let half = img.width() / 2;
    for (lo, hi) in [(0, half), (half, img.width())] {
        let yellow = (lo..hi)
            .flat_map(|x| (0..img.height()).map(move |y| (x, y)))
            .filter(|&(x, y)| img.get_pixel(x, y).0 == [255, 214, 64, 255])
            .count();
        assert!(yellow > 10, "bones visible in columns {lo}..{hi}: {yellow}");
    }
    assert!(
        count(&img, |p| p == [64, 255, 255, 255]) > 4,
        "selected joint highlighted"
    );
    check("figure.png", &img);
}

/// Index of the palette colour a pixel shows (same hue up to shading), if any.
fn palette_index(p: [u8; 4]) -> Option<usize> {
    let max = p[..3].iter().copied().max().unwrap_or(0);
    if max < 30 {
        return None; // background or too dark to tell hues apart
    }
    let norm = |c: [f32; 3]| {
        let m = c.iter().copied().fold(0.0f32, f32::max);
        c.map(|v| v / m)
    };
    let px = norm([0, 1, 2].map(|k| f32::from(p[k])));
    geppetto::raster::parts::BONE_PALETTE
        .iter()
        .position(|c| norm(*c).iter().zip(px).all(|(a, b)| (a - b).abs() < 0.06))
}

#[test]
fn multipart_rig_colours_each_bone_of_the_figure_apart() {
    let (mesh, mut rig) = box_figure(true);
    // Rigid weights as the multi-component method binds them: each vertex to its dominant bone.
    let skin = rig.skin.as_mut().expect("box figure has weights");
    for row in skin.iter_mut() {
        let j = row
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("weighted vertex")
            .0;
        *row = vec![(j, 1.0)];
    }
    let owners: std::collections::BTreeSet<usize> =
        skin.iter().map(|row| row[0].0 as usize).collect();
    assert!(
        owners.len() >= 4,
        "the figure binds several bones: {owners:?}"
    );
    let view = ThumbnailView {
        width: 240,
        height: 150,
        ..ThumbnailView::default()
    };
    let (grey, _) = render_rig(&mesh, &rig, &view);
    rig.method = geppetto::rig::METHOD_MULTIPART.into();
    let (img, _) = render_rig(&mesh, &rig, &view);
    let palette = geppetto::raster::parts::BONE_PALETTE.len();
    for &j in &owners {
        let want = j % palette;
        let seen = count(&img, |p| palette_index(p) == Some(want));
        assert!(seen > 10, "bone {j}: {seen} pixels of its colour");
        let before = count(&grey, |p| palette_index(p) == Some(want));
        assert_eq!(
            before, 0,
            "bone {j}'s colour is absent from the embed rendering"
        );
    }
    check("figure-multipart.png", &img);
}

#[test]
fn figure_heat_map_of_the_left_hand() {
    let (mesh, rig) = box_figure(true);
    let view = ThumbnailView {
        width: 240,
        height: 150,
        selected: Some(4),
        heat: true,
        ..ThumbnailView::default()
    };
    let (img, _) = render_rig(&mesh, &rig, &view);
    // The left hand's vertices are hot (red-dominant); most of the body is cold (blue-dominant).
    let red = count(&img, |p| {
        p[0] > 120 && p[0] > 2 * u16::from(p[2]).min(255) as u8 && p[1] < 100
    });
    let blue = count(&img, |p| p[2] > p[0] && p[2] > p[1] && p != BACKGROUND);
    assert!(red > 20, "hot pixels {red}");
    assert!(blue > red, "cold {blue} > hot {red}");
    check("figure-heat.png", &img);
}

#[test]
fn rendering_is_deterministic_and_draft_marker_moves() {
    let (mesh, rig) = box_figure(false);
    let mut view = ThumbnailView {
        width: 120,
        height: 80,
        selected: Some(2),
        ..ThumbnailView::default()
    };
    let (a, map) = render_rig(&mesh, &rig, &view);
    let (b, _) = render_rig(&mesh, &rig, &view);
    assert_eq!(a, b);
    view.draft = Some([0.5, 0.5, 0.0]);
    let (c, _) = render_rig(&mesh, &rig, &view);
    let (x, y) = map.project([0.5, 0.5, 0.0], geppetto::raster::ViewKind::Front);
    assert_eq!(
        c.get_pixel(x as u32, y as u32).0,
        [64, 255, 255, 255],
        "draft marker at its position"
    );
    assert_ne!(a, c);
}

#[test]
fn figure_range_handle_shows_the_virtual_bones_it_shapes() {
    use geppetto::raster::handle::RangeHandle;
    use geppetto::raster::ViewKind;
    let (mesh, rig) = box_figure(false);
    // LeftArm's handle pulled out, up and forward: the virtual bones from Spine and to LeftHand
    // end at the handle, not at the joint (facts §5.1).
    let joint = rig.joints[3].position;
    let handle = [joint[0] + 0.15, joint[1] + 0.12, joint[2] + 0.1];
    let mut view = ThumbnailView {
        width: 240,
        height: 150,
        selected: Some(3),
        ..ThumbnailView::default()
    };
    let (plain, map) = render_rig(&mesh, &rig, &view);
    view.handle = Some(RangeHandle {
        joint,
        handle,
        reach: vec![
            [rig.joints[1].position, handle],
            [handle, rig.joints[4].position],
        ],
    });
    let (img, _) = render_rig(&mesh, &rig, &view);
    let violet = |p: [u8; 4]| p == [200, 150, 255, 255];
    assert_eq!(count(&plain, violet), 0, "no handle, no virtual bone");
    let half = img.width() / 2;
    for kind in [ViewKind::Front, ViewKind::Side] {
        // The cross is centred on the handle, in both views.
        let (x, y) = map.project(handle, kind);
        assert_eq!(
            img.get_pixel(x as u32, y as u32).0,
            [255, 255, 255, 255],
            "{kind:?}: the handle's cross"
        );
        // The virtual bones are drawn (dashed) in this view's half.
        let (lo, hi) = match kind {
            ViewKind::Front => (0, half),
            ViewKind::Side => (half, img.width()),
        };
        let seen = img
            .enumerate_pixels()
            .filter(|(px, _, p)| (lo..hi).contains(px) && violet(p.0))
            .count();
        assert!(seen > 30, "{kind:?}: {seen} virtual-bone pixels");
    }
    check("figure-range-handle.png", &img);
}

#[test]
fn a_figure_saved_z_up_is_drawn_as_upright_as_saved_y_up() {
    // Blender's frame: +Z up, facing −Y. The same figure turned into it, its rig recording that
    // orientation, must give the same thumbnail (it used to be drawn lying on its back).
    let (mesh, rig) = box_figure(true);
    let turn = |p: [f64; 3]| [p[0], -p[2], p[1]];
    let mut zmesh = mesh.clone();
    for v in &mut zmesh.positions {
        let q = turn([v.x, v.y, v.z]);
        *v = geppetto::geom::P3::new(q[0], q[1], q[2]);
    }
    let mut zrig = rig.clone();
    zrig.orientation = "+Z up, -Y forward".into();
    for j in &mut zrig.joints {
        j.position = turn(j.position);
    }
    for view in [
        ThumbnailView {
            width: 240,
            height: 150,
            selected: Some(4),
            ..ThumbnailView::default()
        },
        ThumbnailView {
            width: 240,
            height: 150,
            selected: Some(4),
            heat: true,
            ..ThumbnailView::default()
        },
    ] {
        let (want, _) = render_rig(&mesh, &rig, &view);
        let (got, map) = render_rig(&zmesh, &zrig, &view);
        assert_eq!(got, want, "heat {}", view.heat);
        // The mouse maps back into the turned frame: the left hand's pixel is the left hand.
        let hand = zrig.joints[4].position;
        let (x, y) = map.project(hand, geppetto::raster::ViewKind::Front);
        let (_, back) = map.unproject_onto(f64::from(x), f64::from(y), hand);
        assert!((0..3).all(|i| (back[i] - hand[i]).abs() < 1e-9), "{back:?}");
    }
}
