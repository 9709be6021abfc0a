//! Tests of `skin::solve`: residuals, regularization, and the bit-for-bit equalities the
//! pattern reuse and the lent value array promise.

use super::*;
use crate::geom::P3;
use crate::skin::laplacian::stiffness;

#[test]
fn solves_laplacian_plus_diagonal() {
    // Octahedron: L + I is SPD; check the residual for two right-hand sides.
    let p = vec![
        P3::new(1.0, 0.0, 0.0),
        P3::new(-1.0, 0.0, 0.0),
        P3::new(0.0, 1.0, 0.0),
        P3::new(0.0, -1.0, 0.0),
        P3::new(0.0, 0.0, 1.0),
        P3::new(0.0, 0.0, -1.0),
    ];
    let t = vec![
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    let row: Vec<u32> = (0..6).collect();
    let mut a = stiffness(&p, &t, &row, 6);
    for &k in &a.diag.clone() {
        a.values[k] += 1.0;
    }
    let b: Vec<f64> = (0..12).map(|i| (i as f64).sin()).collect();
    let mut x = b.clone();
    let stats = solve_spd(&a, &mut x, 2).expect("SPD system");
    assert_eq!(stats.attempts, 1);
    for col in 0..2 {
        for r in 0..6 {
            let ax: f64 = (0..6).map(|c| a.get(r, c) * x[col * 6 + c]).sum();
            assert!((ax - b[col * 6 + r]).abs() < 1e-9);
        }
    }
}

#[test]
fn singular_system_is_regularized_not_fatal() {
    // A pure Laplacian is singular (constants in the null space): the shift rescues it.
    let p = vec![
        P3::new(0.0, 0.0, 0.0),
        P3::new(1.0, 0.0, 0.0),
        P3::new(0.0, 1.0, 0.0),
    ];
    let a = stiffness(&p, &[[0, 1, 2]], &[0, 1, 2], 3);
    // A right-hand side in the range of L (sums to zero): the shifted solve must still solve
    // L x = b, with no constant component (the null space is damped by the shift).
    let b = [1.0, -0.25, -0.75];
    let mut x = b.to_vec();
    let stats = solve_spd(&a, &mut x, 1).expect("regularized");
    assert!(stats.shift >= FIRST_SHIFT && stats.attempts <= MAX_ATTEMPTS);
    for (r, want) in b.iter().enumerate() {
        let lx: f64 = (0..3).map(|c| a.get(r, c) * x[c]).sum();
        assert!(
            (lx - want).abs() < 1e-6,
            "row {r}: (L x) = {lx}, b = {want}"
        );
    }
    // Round-off along the null space is amplified by 1/shift: a loose bound suffices.
    assert!(
        x.iter().sum::<f64>().abs() < 1e-4,
        "constant component in {x:?}"
    );
}

/// A `side × side` grid of squares (two triangles each), z a gentle bump: big enough for the
/// supernodal factorization.
fn grid(side: usize) -> (Vec<P3>, Vec<[u32; 3]>) {
    let mut p = Vec::new();
    for i in 0..side {
        for j in 0..side {
            let (x, y) = (i as f64 / side as f64, j as f64 / side as f64);
            p.push(P3::new(x, y, 0.1 * (3.0 * x).sin() * (2.0 * y).cos()));
        }
    }
    let id = |i: usize, j: usize| (i * side + j) as u32;
    let mut t = Vec::new();
    for i in 0..side - 1 {
        for j in 0..side - 1 {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    (p, t)
}

#[test]
fn a_pattern_analyzed_before_the_heat_term_gives_the_fresh_solution_bit_for_bit() {
    // `skin::system` analyzes L_c alone, then factors L_c + M·H with that analysis: the
    // ordering must not depend on the values, so the solution equals a fresh solve's.
    let (p, t) = grid(120);
    let n = p.len();
    let row: Vec<u32> = (0..n as u32).collect();
    let l = stiffness(&p, &t, &row, n);
    let pattern = SpdPattern::analyze(&l).expect("pattern");
    let mut a = l.clone();
    for (r, &k) in a.diag.clone().iter().enumerate() {
        a.values[k] += 1e-3 * (1.0 + (r % 7) as f64);
    }
    let k = 13;
    let b: Vec<f64> = (0..n * k)
        .map(|i| ((i * 7919) % 1000) as f64 * 1e-3)
        .collect();
    let mut fresh = b.clone();
    solve_spd(&a, &mut fresh, k).expect("fresh");
    let mut reused = b;
    solve_spd_with(&pattern, &a, &mut reused, k).expect("reused");
    assert!(fresh
        .iter()
        .zip(&reused)
        .all(|(x, y)| x.to_bits() == y.to_bits()));
}

#[test]
fn a_reused_value_array_gives_faers_own_factor_bit_for_bit() {
    // `factor_reusing` calls faer's numeric factorization directly, into a value array lent
    // by an earlier factor of another matrix: the solution must equal the one from faer's
    // `Llt` wrapper (the path this replaced) bit for bit, whatever the array held.
    use faer::linalg::solvers::Solve;
    use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
    let (p, t) = grid(90);
    let n = p.len();
    let row: Vec<u32> = (0..n as u32).collect();
    let l = stiffness(&p, &t, &row, n);
    let heat = |c: f64| -> Vec<f64> { (0..n).map(|r| c * (1.0 + (r % 5) as f64)).collect() };
    let (first, second) = (heat(1e-3), heat(2.5e-3));
    let pattern = SpdPattern::analyze(&l).expect("pattern");
    let mut st = SolveStats::default();
    let old = pattern
        .factor_reusing(&l, &first, &mut st, Vec::new())
        .expect("first");
    let f = pattern
        .factor_reusing(&l, &second, &mut st, old.into_values())
        .expect("second");
    let k = 5;
    let b: Vec<f64> = (0..n * k)
        .map(|i| ((i * 104_729) % 997) as f64 * 1e-3)
        .collect();
    let mut ours = b.clone();
    f.solve_in_place(&mut ours, k).expect("solve");

    let mut a = l.clone();
    for (r, &d) in a.diag.clone().iter().enumerate() {
        a.values[d] += second[r];
    }
    let mean = a.diag.iter().map(|&d| a.values[d].abs()).sum::<f64>() / n as f64;
    for &d in &a.diag {
        a.values[d] += FIRST_SHIFT * mean;
    }
    faer::set_global_parallelism(Par::Seq);
    let sym = SymbolicSparseColMatRef::new_checked(n, n, &a.col_ptr, None, &a.row_idx);
    let llt = Llt::try_new_with_symbolic(
        SymbolicLlt::try_new(sym, Side::Lower).expect("symbolic"),
        SparseColMatRef::new(sym, &a.values),
        Side::Lower,
    )
    .expect("llt");
    let mut theirs = b;
    llt.solve_in_place(MatMut::from_column_major_slice_mut(&mut theirs, n, k));
    assert!(ours
        .iter()
        .zip(&theirs)
        .all(|(x, y)| x.to_bits() == y.to_bits()));
}
