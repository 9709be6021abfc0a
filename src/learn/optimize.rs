//! Maximum-margin Γ (Baran & Popović 2007 §3.3): Nelder–Mead from random normalized Γ in a
//! shrinking cube, maximizing the minimum per-character margin. Deterministic: one seeded
//! [`SplitMix64`] stream, sequential.
//!
//! **Margin** of a character for a unit Γ (‖Γ‖₂ = 1, Γ ≥ 0):
//! `min over its bad embeddings of Γᵀb − min over its good embeddings of Γᵀb`, the paper's
//! optimization margin: how much more the cheapest bad embedding costs than the cheapest good one.
//! Positive means a search that returns the minimum picks a good embedding. (A character may have
//! several good embeddings; only the best one needs to beat every bad one, which is why the paper
//! does not ask for all goods below all bads.)

use crate::skin::pose::SplitMix64;

/// Basis vectors of one character's labelled embeddings.
#[derive(Clone, Debug, Default)]
pub struct CharacterSet {
    /// Character name.
    pub name: String,
    /// Basis vectors of good embeddings.
    pub good: Vec<[f64; 9]>,
    /// Basis vectors of bad embeddings.
    pub bad: Vec<[f64; 9]>,
}

impl CharacterSet {
    /// The margin of `gamma` (used as given: pass a unit vector), `None` without both kinds.
    pub fn margin(&self, gamma: &[f64; 9]) -> Option<f64> {
        let cost = |b: &[f64; 9]| b.iter().zip(gamma).map(|(x, g)| x * g).sum::<f64>();
        let min = |v: &[[f64; 9]]| v.iter().map(cost).fold(f64::INFINITY, f64::min);
        (!self.good.is_empty() && !self.bad.is_empty()).then(|| min(&self.bad) - min(&self.good))
    }
}

/// `|x| / ‖x‖₂` (Γ ≥ 0 with unit norm); the uniform vector when `x` is zero.
pub fn unit_gamma(x: &[f64; 9]) -> [f64; 9] {
    let a = x.map(f64::abs);
    let n = a.iter().map(|v| v * v).sum::<f64>().sqrt();
    if n > 0.0 {
        a.map(|v| v / n)
    } else {
        [1.0 / 3.0; 9]
    }
}

/// Weight of the mean margin in the objective: the minimum decides, the mean breaks its ties (a
/// flat minimum gives Nelder–Mead no direction) and is too small to trade a worse minimum for it
/// (margins are O(0.01–1), this makes the mean count a thousand times less).
const MEAN_WEIGHT: f64 = 1e-3;

/// The objective (to maximize) of the raw parameters `x` (Γ = [`unit_gamma`]`(x)`).
pub fn objective(sets: &[CharacterSet], x: &[f64; 9]) -> f64 {
    let g = unit_gamma(x);
    let m: Vec<f64> = sets.iter().filter_map(|s| s.margin(&g)).collect();
    if m.is_empty() {
        return 0.0;
    }
    let min = m.iter().copied().fold(f64::INFINITY, f64::min);
    min + MEAN_WEIGHT * m.iter().sum::<f64>() / m.len() as f64
}

/// Search settings (the paper gives no numbers; these make the search converge on the corpus in
/// well under a second and are fixed, so results depend on the seed only).
#[derive(Clone, Debug)]
pub struct Search {
    /// Seed of the random starts.
    pub seed: u64,
    /// Rounds; the cube halves around the best Γ after each.
    pub rounds: usize,
    /// Random starts per round.
    pub starts: usize,
    /// Nelder–Mead iterations per start.
    pub iterations: usize,
}

impl Default for Search {
    fn default() -> Self {
        Self {
            seed: 1,
            rounds: 6,
            starts: 8,
            iterations: 1500,
        }
    }
}

/// The unit Γ maximizing [`objective`], and its objective value.
pub fn maximize(sets: &[CharacterSet], s: &Search) -> ([f64; 9], f64) {
    let mut rng = SplitMix64::new(s.seed);
    let f = |x: &[f64; 9]| -objective(sets, x);
    let mut best = unit_gamma(&[1.0; 9]);
    let mut best_f = f(&best);
    let (mut centre, mut side) = ([0.5; 9], 1.0);
    for _ in 0..s.rounds {
        for _ in 0..s.starts {
            // A random point of the cube, clipped to Γ ≥ 0, normalized.
            let x0 = std::array::from_fn(|i| (centre[i] + side * (rng.next_f64() - 0.5)).max(0.0));
            let (x, fx) = nelder_mead(&f, unit_gamma(&x0), 0.1 * side, s.iterations);
            if fx < best_f {
                (best, best_f) = (unit_gamma(&x), fx);
            }
        }
        centre = best;
        side *= 0.5;
    }
    (best, -best_f)
}

/// Nelder–Mead minimization of `f` from `x0` with an initial simplex of `step` along each axis
/// (standard coefficients: reflection 1, expansion 2, contraction ½, shrink ½).
pub fn nelder_mead(
    f: &dyn Fn(&[f64; 9]) -> f64,
    x0: [f64; 9],
    step: f64,
    iterations: usize,
) -> ([f64; 9], f64) {
    let mut pts: Vec<([f64; 9], f64)> = (0..=9)
        .map(|i| {
            let mut x = x0;
            if i > 0 {
                x[i - 1] += step;
            }
            (x, f(&x))
        })
        .collect();
    let lerp = |a: &[f64; 9], b: &[f64; 9], t: f64| -> [f64; 9] {
        std::array::from_fn(|i| a[i] + t * (b[i] - a[i]))
    };
    for _ in 0..iterations {
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        if pts[9].1 - pts[0].1 <= 1e-12 * (1.0 + pts[0].1.abs()) {
            break;
        }
        let c: [f64; 9] =
            std::array::from_fn(|i| pts[..9].iter().map(|p| p.0[i]).sum::<f64>() / 9.0);
        let worst = pts[9];
        let r = lerp(&c, &worst.0, -1.0);
        let fr = f(&r);
        if fr < pts[0].1 {
            let e = lerp(&c, &worst.0, -2.0);
            let fe = f(&e);
            pts[9] = if fe < fr { (e, fe) } else { (r, fr) };
        } else if fr < pts[8].1 {
            pts[9] = (r, fr);
        } else {
            let k = lerp(&c, &worst.0, 0.5);
            let fk = f(&k);
            if fk < worst.1 {
                pts[9] = (k, fk);
            } else {
                let b = pts[0].0;
                for p in pts.iter_mut().skip(1) {
                    p.0 = lerp(&b, &p.0, 0.5);
                    p.1 = f(&p.0);
                }
            }
        }
    }
    pts.sort_by(|a, b| a.1.total_cmp(&b.1));
    pts[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(i: usize, v: f64) -> [f64; 9] {
        let mut b = [0.0; 9];
        b[i] = v;
        b
    }

    /// Two characters a Γ weighting terms 0 and 1 separates (the uniform Γ does not: a bad
    /// embedding of `a` is cheap on every term but 1).
    fn separable() -> Vec<CharacterSet> {
        vec![
            CharacterSet {
                name: "a".into(),
                good: vec![e(1, 1.0), e(2, 3.0)],
                bad: vec![e(0, 1.0), e(1, 0.5)],
            },
            CharacterSet {
                name: "b".into(),
                good: vec![e(1, 2.0)],
                bad: vec![e(0, 2.0)],
            },
        ]
    }

    #[test]
    fn margin_is_best_bad_minus_best_good() {
        let s = &separable()[0];
        let g = unit_gamma(&[1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        // bads cost h and 0.5h, goods h and 0: margin 0.5h − 0.
        assert!((s.margin(&g).unwrap() - 0.5 * h).abs() < 1e-12);
        assert_eq!(CharacterSet::default().margin(&g), None);
    }

    #[test]
    fn learns_a_separating_gamma() {
        let sets = separable();
        // The uniform Γ does not separate `a` (bad e1·0.5 is cheaper than every good).
        let u = unit_gamma(&[1.0; 9]);
        assert!(sets[0].margin(&u).unwrap() < 0.0);
        let (g, obj) = maximize(&sets, &Search::default());
        for s in &sets {
            assert!(s.margin(&g).unwrap() > 0.1, "{} {:?}", s.name, g);
        }
        assert!(obj > 0.1);
        // Deterministic.
        assert_eq!(maximize(&sets, &Search::default()).0, g);
    }

    #[test]
    fn non_separable_set_reports_a_negative_margin() {
        // The same basis vector is good in one character and bad in another, and bad is
        // componentwise cheaper elsewhere: no Γ ≥ 0 can give both a positive margin.
        let sets = vec![
            CharacterSet {
                name: "x".into(),
                good: vec![e(0, 1.0)],
                bad: vec![e(1, 1.0)],
            },
            CharacterSet {
                name: "y".into(),
                good: vec![e(1, 1.0)],
                bad: vec![e(0, 1.0)],
            },
        ];
        let (g, obj) = maximize(&sets, &Search::default());
        let worst = sets
            .iter()
            .map(|s| s.margin(&g).unwrap())
            .fold(f64::INFINITY, f64::min);
        assert!(worst <= 0.0 && obj <= 1e-9, "{worst} {obj}");
    }
}
