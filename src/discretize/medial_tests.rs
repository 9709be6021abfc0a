use super::*;
use crate::discretize::field;

/// The original test: the smallest pairwise dot of all 8 normalized gradients, then ≤ 0.
fn min_dot_disagrees(field: &DistanceField, c: &P3, r: f64) -> bool {
    let g: Vec<V3> = (0..8)
        .filter_map(|k| {
            let s = |bit: usize| if k >> bit & 1 == 0 { -r } else { r };
            field
                .gradient(&(c + V3::new(s(0), s(1), s(2))))
                .try_normalize(1e-12)
        })
        .collect();
    let mut best = 1.0f64;
    for i in 0..g.len() {
        for j in i + 1..g.len() {
            best = best.min(g[i].dot(&g[j]));
        }
    }
    best <= 0.0
}

/// A box (an axis-aligned slab 0.6 × 0.3 × 0.2 in the unit cube): medial sheets inside.
fn slab() -> DistanceField {
    let (lo, hi) = (P3::new(0.2, 0.35, 0.4), P3::new(0.8, 0.65, 0.6));
    let (positions, triangles) = crate::geom::box_mesh(lo, hi);
    field::build_from(&positions, &triangles, &DiscretizeOptions::default())
}

/// A 40 × 20 × 10 lattice spanning [`slab`]'s box, faces included.
fn slab_lattice() -> impl Iterator<Item = P3> {
    (0..40).flat_map(|i| {
        (0..20).flat_map(move |j| {
            (0..10).map(move |k| {
                P3::new(
                    0.2 + 0.6 * f64::from(i) / 39.0,
                    0.35 + 0.3 * f64::from(j) / 19.0,
                    0.4 + 0.2 * f64::from(k) / 9.0,
                )
            })
        })
    })
}

#[test]
fn early_exit_agrees_with_the_full_pairwise_minimum() {
    let f = slab();
    let (mut agree, mut disagreeing) = (0, 0);
    for c in slab_lattice() {
        for r in [3e-6, 1e-3, 0.01] {
            let want = min_dot_disagrees(&f, &c, r);
            assert_eq!(gradients_disagree(&f, &c, r), want, "at {c:?}, r = {r}");
            agree += 1;
            disagreeing += usize::from(want);
        }
    }
    // Both answers occur, so the comparison tests something.
    assert!(
        disagreeing > 100 && disagreeing < agree - 100,
        "{disagreeing} of {agree}"
    );
}

#[test]
fn memoised_corner_tests_equal_the_full_test_and_share_corners() {
    let f = slab();
    let mut corners = Corners::new(LeafHints::default(), CORNER_SLOTS_LOG2);
    // Slots shared by many corners (4 of them) answer the same.
    let mut small = Corners::new(LeafHints::default(), 2);
    let (mut leaves, mut disagreeing) = (0, 0);
    for (lo, size) in f.leaf_cells() {
        let half = 0.5 * size;
        let centre = lo + V3::repeat(half);
        let want = min_dot_disagrees(&f, &centre, half);
        assert_eq!(corners.disagree(&f, &centre, half), want, "leaf at {lo:?}");
        assert_eq!(small.disagree(&f, &centre, half), want, "leaf at {lo:?}");
        leaves += 1;
        disagreeing += usize::from(want);
    }
    assert!(
        disagreeing > 10 && disagreeing < leaves,
        "{disagreeing} of {leaves}"
    );
    // Neighbouring leaves share corners: far fewer gradients than 8 per leaf were computed
    // (the early exit stops some tests before their 8th corner), and fewer with more slots.
    assert!(
        corners.computed * 3 < leaves * 8 && corners.computed < small.computed,
        "{} and {} of {leaves}",
        corners.computed,
        small.computed
    );
    // Off-lattice points are answered without the memo.
    assert_eq!(corner_key(&P3::new(0.1, 0.5, 0.5)), None);
    assert_eq!(corner_key(&P3::new(-0.5, 0.5, 0.5)), None);
    assert!(corner_key(&P3::new(1.0, 0.5, 0.0)).is_some_and(|k| k != EMPTY));
}

#[test]
fn deep_leaves_have_every_face_point_deeper_than_twice_tau() {
    let f = slab();
    // τ from the default options and a few larger ones (fewer leaves deep enough).
    let (mut deep, mut points, mut caught) = (0, 0, 0);
    for tol in [DiscretizeOptions::default().tol(), 0.01, 0.03] {
        for (lo, size, min, max) in f.leaf_cells_with_range() {
            let is_deep = surely_deep(min, max, tol);
            // The shortcut made unsound on purpose (the smallest corner instead of the
            // largest) must be caught by the same check, or the check tests nothing.
            let broken = min < -2.0 * tol;
            let n = ((size / tol).ceil() as usize).clamp(1, 6);
            for (i, j) in (0..n).flat_map(|i| (0..n).map(move |j| (i, j))) {
                let t = size / n as f64;
                for p in [
                    lo + V3::new(0.0, i as f64, j as f64) * t,
                    lo + V3::new(i as f64, 0.0, j as f64) * t,
                    lo + V3::new(i as f64, j as f64, 0.0) * t,
                ] {
                    let shallow = -f.eval(&p) <= 2.0 * tol;
                    assert!(!(is_deep && shallow), "at {p:?}, leaf {lo:?}, τ {tol}");
                    caught += usize::from(broken && shallow);
                    points += usize::from(is_deep);
                }
            }
            deep += usize::from(is_deep);
        }
    }
    assert!(
        deep > 10 && points > 100 && caught > 0,
        "{deep} deep leaves, {points} points, {caught} caught"
    );
}

#[test]
fn agreement_is_proved_only_where_no_pair_disagrees() {
    let f = slab();
    let (mut proved, mut agreeing) = (0, 0);
    for c in slab_lattice() {
        for r in [3e-6, 1e-4, 1e-3] {
            let disagree = min_dot_disagrees(&f, &c, r);
            let sure = f.probes_surely_agree(&c, r, &mut LeafHints::default());
            assert!(!(sure && disagree), "proved agreement at {c:?}, r = {r}");
            agreeing += usize::from(!disagree);
            proved += usize::from(sure);
        }
    }
    // The bound is tight enough to settle most agreeing probes at the medial test's radius.
    assert!(proved * 2 > agreeing, "{proved} of {agreeing}");
}

#[test]
fn hinted_values_and_the_spread_table_change_nothing() {
    let f = slab();
    let spreads = f.spreads();
    let mut hints = LeafHints::with_spreads(&spreads);
    let (mut proved, mut points) = (0, 0);
    for c in slab_lattice() {
        for p in [c, c + V3::new(0.3, -0.2, 0.1), P3::new(1.5, c.y, -0.1)] {
            assert_eq!(
                f.eval_hinted(&p, &mut hints).to_bits(),
                f.eval(&p).to_bits()
            );
        }
        for r in [3e-6, 1e-3] {
            let sure = f.probes_surely_agree(&c, r, &mut LeafHints::default());
            assert_eq!(f.probes_surely_agree(&c, r, &mut hints), sure, "at {c:?}");
            proved += usize::from(sure);
            points += 1;
        }
    }
    assert!(proved * 4 > points, "{proved} of {points}");
}

#[test]
fn probe_grid_points_on_leaf_faces_agree_by_the_bound() {
    let f = slab();
    let mut hints = LeafHints::default();
    let (mut tested, mut proved) = (0, 0);
    for (lo, size) in f.leaf_cells().take(2000) {
        let p = lo + V3::new(0.0, 0.5 * size, 0.25 * size);
        if f.eval(&p) < -0.01 && !min_dot_disagrees(&f, &p, 3e-6) {
            tested += 1;
            proved += usize::from(f.probes_surely_agree(&p, 3e-6, &mut hints));
        }
    }
    assert!(
        tested > 50 && proved * 10 > tested * 9,
        "{proved} of {tested}"
    );
}
