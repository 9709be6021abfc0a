//! Reuse of factorizations where the region repeats (issue 11; facts §9.8).
//!
//! The local matrix `A_CC = diag(M H) + a K_CC + b (K M⁻¹ K)_CC` splits into a part fixed by the
//! region and b alone (the stiffness terms: the mesh never changes) and the heat diagonal, which
//! changes whenever a bone, handle or magnitude near the region does. So an entry keyed by the
//! region's vertex set and b keeps the stiffness part and the symbolic analysis (ordering,
//! elimination tree), and, keyed further by the exact heat diagonal, the numeric factor: a repeat
//! of the same region skips assembly and analysis, and a repeat of the same matrix (another
//! column group, a smoothness change elsewhere, a refresh with unchanged geometry) skips the
//! factorization as well. Every reuse is exact: the same pattern gets the same ordering and the
//! same values the same factor, bit for bit, so results never depend on what the cache held.

use std::sync::Arc;

use crate::skin::laplacian::SymCsc;
use crate::skin::solve::{SpdFactor, SpdPattern};

/// Entries kept (least recently used dropped first): a drag's region, the region of the settle
/// pass after it, and the global system of the last refresh.
const ENTRIES: usize = 3;

/// The stiffness part and symbolic analysis of one region and b.
#[derive(Debug)]
pub struct Stiffness {
    /// Heat rows of the region, sorted.
    pub rows: Vec<usize>,
    /// Bi-Laplacian share, as bits (exact key).
    pub b_bits: u64,
    /// `a K_CC + b (K M⁻¹ K)_CC` (zero diagonal heat).
    pub matrix: SymCsc,
    /// Its symbolic analysis.
    pub pattern: SpdPattern,
}

/// A numeric factor and the heat diagonal it was built with.
#[derive(Debug)]
pub struct Numeric {
    /// `M H` per region row, as bits (exact key).
    pub heat_bits: Vec<u64>,
    /// The factor of `stiffness + diag(M H)`.
    pub factor: SpdFactor,
}

#[derive(Clone, Debug)]
struct Entry {
    stiffness: Arc<Stiffness>,
    numeric: Option<Arc<Numeric>>,
}

/// The cache (cheap to clone: entries are shared).
#[derive(Clone, Debug, Default)]
pub struct FactorCache {
    entries: Vec<Entry>,
}

impl FactorCache {
    /// The stiffness part of `rows` and `b`, if cached (and now most recently used).
    pub fn stiffness(&mut self, rows: &[usize], b: f64) -> Option<Arc<Stiffness>> {
        let i = self.find(rows, b)?;
        let e = self.entries.remove(i);
        let s = e.stiffness.clone();
        self.entries.push(e);
        Some(s)
    }

    /// The numeric factor of `rows`, `b` and exactly this heat diagonal, if cached.
    pub fn numeric(&self, rows: &[usize], b: f64, heat: &[f64]) -> Option<Arc<Numeric>> {
        let e = &self.entries[self.find(rows, b)?];
        let n = e.numeric.as_ref()?;
        let same = n.heat_bits.len() == heat.len()
            && n.heat_bits.iter().zip(heat).all(|(a, h)| *a == h.to_bits());
        same.then(|| n.clone())
    }

    /// Store a stiffness part (replacing the entry of the same key, numeric factor dropped).
    pub fn put_stiffness(&mut self, s: Arc<Stiffness>) {
        if let Some(i) = self.find(&s.rows, f64::from_bits(s.b_bits)) {
            self.entries.remove(i);
        }
        if self.entries.len() >= ENTRIES {
            self.entries.remove(0);
        }
        self.entries.push(Entry {
            stiffness: s,
            numeric: None,
        });
    }

    /// Store the numeric factor of a cached stiffness part; returns it shared.
    pub fn put_numeric(
        &mut self,
        rows: &[usize],
        b: f64,
        heat: &[f64],
        factor: SpdFactor,
    ) -> Arc<Numeric> {
        let numeric = Arc::new(Numeric {
            heat_bits: heat.iter().map(|h| h.to_bits()).collect(),
            factor,
        });
        if let Some(i) = self.find(rows, b) {
            self.entries[i].numeric = Some(numeric.clone());
        }
        numeric
    }

    /// The value array of the numeric factor cached for `rows` and `b`, taken out of the cache
    /// if nothing else shares it (for [`crate::skin::solve::SpdPattern::factor_reusing`]: a
    /// drag's next step factors the same pattern with another heat diagonal); empty otherwise.
    pub fn spare_values(&mut self, rows: &[usize], b: f64) -> Vec<f64> {
        let Some(i) = self.find(rows, b) else {
            return Vec::new();
        };
        match self.entries[i].numeric.take().map(Arc::try_unwrap) {
            Some(Ok(n)) => n.factor.into_values(),
            Some(Err(shared)) => {
                self.entries[i].numeric = Some(shared);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    fn find(&self, rows: &[usize], b: f64) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.stiffness.b_bits == b.to_bits() && e.stiffness.rows == rows)
    }
}
