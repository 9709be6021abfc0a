//! Welding coincident vertices with a hash grid (expected O(n), never all-pairs).
//!
//! Exporters split vertices at UV and normal seams, so a visually closed character often arrives
//! as many disconnected patches. Welding restores the topology the engine needs (shells, open
//! edges, the Laplacian); outputs still refer to the input vertices through the weld map.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::geom::P3;

/// A small multiplicative hasher (FxHash-style) for integer keys: std's SipHash is several times
/// slower, and this map is on the hot path of every rig (keys are not attacker-chosen in a way
/// that matters: the worst case is a slower load).
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// `BuildHasher` for [`FastHasher`].
pub(crate) type FastBuild = BuildHasherDefault<FastHasher>;

/// Result of [`weld`].
pub(crate) struct Welded {
    /// One entry per welded vertex: the position of its first input vertex (same frame as input).
    pub positions: Vec<P3>,
    /// One entry per input vertex: its welded vertex.
    pub weld: Vec<u32>,
}

/// Merge input vertices within `tol` (Euclidean) of an earlier kept vertex. The first occurrence
/// is the representative, so welding is deterministic and order-preserving: welded vertex ids
/// increase with the input index of their first vertex. `origin` should be the bounding-box
/// minimum, so grid coordinates stay small whatever the file's offset.
pub(crate) fn weld(points: &[P3], tol: f64, origin: &P3) -> Welded {
    // Cells 4× the tolerance: a query box [p − tol, p + tol] almost always touches one cell.
    let cell = if tol > 0.0 && tol.is_finite() {
        tol * 4.0
    } else {
        1.0
    };
    let key = |x: f64, o: f64| ((x - o) / cell).floor() as i64;
    let mut heads: HashMap<[i64; 3], u32, FastBuild> =
        HashMap::with_capacity_and_hasher(points.len(), FastBuild::default());
    // Singly linked lists of welded vertices per cell.
    let mut next: Vec<u32> = Vec::with_capacity(points.len());
    let mut positions: Vec<P3> = Vec::with_capacity(points.len());
    let mut map = Vec::with_capacity(points.len());
    let tol2 = tol * tol;
    for p in points {
        let lo = [0, 1, 2].map(|k| key(p[k] - tol, origin[k]));
        let hi = [0, 1, 2].map(|k| key(p[k] + tol, origin[k]));
        let found = find_near(&heads, &next, &positions, p, tol2, lo, hi);
        let id = match found {
            Some(id) => id,
            None => {
                let id = positions.len() as u32;
                let home = [0, 1, 2].map(|k| key(p[k], origin[k]));
                let head = heads.entry(home).or_insert(u32::MAX);
                next.push(*head);
                *head = id;
                positions.push(*p);
                id
            }
        };
        map.push(id);
    }
    Welded {
        positions,
        weld: map,
    }
}

/// The first kept vertex within `sqrt(tol2)` of `p` in the cells `lo..=hi`.
fn find_near(
    heads: &HashMap<[i64; 3], u32, FastBuild>,
    next: &[u32],
    positions: &[P3],
    p: &P3,
    tol2: f64,
    lo: [i64; 3],
    hi: [i64; 3],
) -> Option<u32> {
    let mut best: Option<u32> = None;
    for x in lo[0]..=hi[0] {
        for y in lo[1]..=hi[1] {
            for z in lo[2]..=hi[2] {
                let mut cur = heads.get(&[x, y, z]).copied().unwrap_or(u32::MAX);
                while let Some(q) = positions.get(cur as usize) {
                    if (q - p).norm_squared() <= tol2 {
                        best = Some(best.map_or(cur, |b| b.min(cur)));
                    }
                    cur = next.get(cur as usize).copied().unwrap_or(u32::MAX);
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welds_within_tolerance_only_and_keeps_first() {
        let pts = vec![
            P3::new(0.0, 0.0, 0.0),
            P3::new(1.0, 0.0, 0.0),
            P3::new(1e-12, 0.0, 0.0),
            P3::new(1e-6, 0.0, 0.0),
            P3::new(1.0, 0.0, -1e-12),
        ];
        let w = weld(&pts, 1e-9, &P3::origin());
        assert_eq!(w.weld, vec![0, 1, 0, 2, 1]);
        assert_eq!(w.positions.len(), 3);
        assert_eq!(w.positions[0], pts[0]);
    }

    #[test]
    fn points_straddling_a_cell_boundary_weld() {
        // 4e-9 is a cell boundary for tol = 1e-9.
        let pts = vec![
            P3::new(4e-9 - 1e-10, 0.0, 0.0),
            P3::new(4e-9 + 1e-10, 0.0, 0.0),
        ];
        let w = weld(&pts, 1e-9, &P3::origin());
        assert_eq!(w.weld, vec![0, 0]);
    }
}
