//! Thumbnails: the view map inverts its projection; the weight heat map is a continuous ramp.

use super::*;

#[test]
fn project_and_unproject_agree() {
    let zup = ViewAxes::of_label("+Z up, -Y forward");
    for axes in [ViewAxes::default(), zup] {
        let map = ViewMap::fit_axes([[-1.0, 0.0, -0.5], [1.0, 2.0, 0.5]], axes, 200, 100);
        for p in [[0.3, 1.2, -0.1], [-0.9, 0.1, 0.4]] {
            for view in [ViewKind::Front, ViewKind::Side] {
                let (x, y) = map.project(p, view);
                // From another point, the pixel's unprojection lands on `p` up to its depth.
                let from = [0, 1, 2].map(|i| p[i] + 0.7 * axes.depth(view)[i] + 0.2);
                let (k, q) = map.unproject_onto(f64::from(x), f64::from(y), from);
                assert_eq!(k, view);
                let (qx, qy) = map.project(q, view);
                assert!(
                    (qx - x).abs() < 1e-3 && (qy - y).abs() < 1e-3,
                    "{view:?} {q:?}"
                );
                let depth_of =
                    |a: [f64; 3]| (0..3).map(|i| a[i] * axes.depth(view)[i]).sum::<f64>();
                assert!((depth_of(q) - depth_of(from)).abs() < 1e-9);
            }
        }
    }
}

#[test]
fn a_z_up_rig_is_drawn_upright() {
    // A character saved +Z up, facing -Y (Blender's frame): its head is at +Z. Drawn in the rig's
    // frame the head is at the top of both views; in the mesh's +Y-up frame it would be at the
    // side (lying down).
    let axes = ViewAxes::of_label("+Z up, -Y forward");
    let map = ViewMap::fit_axes([[-0.3, -0.2, 0.0], [0.3, 0.2, 1.8]], axes, 200, 100);
    let (head, feet) = ([0.0, 0.0, 1.7], [0.0, 0.0, 0.1]);
    for view in [ViewKind::Front, ViewKind::Side] {
        let (hx, hy) = map.project(head, view);
        let (fx, fy) = map.project(feet, view);
        assert!(hy + 50.0 < fy, "{view:?}: head at y {hy}, feet at {fy}");
        assert!((hx - fx).abs() < 1e-3);
    }
    // The character's left hand (+X) is on the front view's right, its nose (-Y) on the side
    // view's right.
    let c = map.project([0.0; 3], ViewKind::Front).0;
    assert!(map.project([0.3, 0.0, 0.0], ViewKind::Front).0 > c);
    let c = map.project([0.0; 3], ViewKind::Side).0;
    assert!(map.project([0.0, -0.2, 0.0], ViewKind::Side).0 > c);
    // A tall character fills the height: the scale comes from the up axis's extent (1.8).
    assert!((map.scale - 0.9 * 100.0 / 1.8).abs() < 1e-9);
}

#[test]
fn heat_colour_runs_blue_to_red() {
    let cold = heat_colour(0.0);
    let hot = heat_colour(1.0);
    assert!(cold[2] > cold[0] && hot[0] > hot[2]);
    assert_eq!(heat_colour(-3.0), cold);
    // A NaN weight draws as "no weight", not as NaN channels (black after conversion).
    assert_eq!(heat_colour(f32::NAN), cold);
    // The stops are reached exactly and the ramp is continuous between them.
    let mid = heat_colour(0.5);
    let want = [0.525, 0.825, 0.225];
    assert!((0..3).all(|k| (mid[k] - want[k]).abs() < 1e-6), "{mid:?}");
    for i in 0..100 {
        let (a, b) = (
            heat_colour(i as f32 / 100.0),
            heat_colour((i + 1) as f32 / 100.0),
        );
        assert!((0..3).all(|k| (a[k] - b[k]).abs() < 0.05), "jump at {i}%");
    }
}
