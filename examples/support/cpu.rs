//! Process CPU time for the timing examples (`#[path]`-included by each; not an example itself).

/// Process CPU time (user + system, all threads), ms.
#[allow(unsafe_code)] // getrusage has no safe std API
pub fn cpu_ms() -> f64 {
    // SAFETY: rusage is plain old data; zeroed is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we pass; RUSAGE_SELF is always valid.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}
