//! Thumbnails: the view map inverts its projection; the weight heat map is a continuous ramp.

use super::*;

#[test]
fn project_and_unproject_agree() {
    let map = ViewMap::fit([[-1.0, 0.0, -0.5], [1.0, 2.0, 0.5]], 200, 100);
    for p in [[0.3, 1.2, -0.1], [-0.9, 0.1, 0.4]] {
        let (x, y) = map.project(p, ViewKind::Front);
        let (k, h, v) = map.unproject(f64::from(x), f64::from(y));
        assert_eq!(k, ViewKind::Front);
        assert!((h - p[0]).abs() < 1e-4 && (v - p[1]).abs() < 1e-4);
        let (x, y) = map.project(p, ViewKind::Side);
        let (k, h, v) = map.unproject(f64::from(x), f64::from(y));
        assert_eq!(k, ViewKind::Side);
        assert!((h - p[2]).abs() < 1e-4 && (v - p[1]).abs() < 1e-4);
    }
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
