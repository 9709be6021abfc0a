//! The unit tests' one random source: a deterministic uniform [0, 1) generator (64-bit LCG with
//! Knuth's MMIX constants, top 53 bits), so a seed names the same sequence in every test.

/// Uniform [0, 1) draws from `seed`.
pub(crate) fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}
