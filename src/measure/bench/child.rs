//! Run one child process and measure it whole: wall time from spawn to reap, and its peak resident
//! set size.
//!
//! Peak RSS is the child's `VmHWM` (its own high-water mark) from `/proc/PID/status`, sampled every
//! 2 ms while it runs (monotonic, so the last sample is at most 2 ms stale). `wait4`'s
//! `ru_maxrss` is only the fallback (no `/proc`): on Linux it also counts the *bench* process's
//! memory, because the child's high-water mark is carried across fork/exec — with it, every child
//! after a large mesh would report at least the bench's own peak.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a child run ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChildRun {
    /// Exit code, if it exited normally.
    pub exit_code: Option<i32>,
    /// Terminating signal, if killed.
    pub signal: Option<i32>,
    /// Spawn to reap, milliseconds (polling adds at most ~2 ms).
    pub wall_ms: f64,
    /// Peak resident set size, megabytes (MiB); 0 if unknown.
    pub peak_rss_mb: f64,
    /// Killed because it exceeded the time limit.
    pub timed_out: bool,
    /// Last lines of its stderr (for failure messages).
    pub stderr_tail: String,
}

impl ChildRun {
    /// Exited with status 0.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// One-line description of a failure.
    pub fn failure(&self) -> String {
        let how = if self.timed_out {
            "timed out".to_string()
        } else if let Some(s) = self.signal {
            format!("killed by signal {s}")
        } else {
            format!("exit status {}", self.exit_code.unwrap_or(-1))
        };
        let tail = self.stderr_tail.trim();
        if tail.is_empty() {
            how
        } else {
            format!("{how}: {tail}")
        }
    }
}

/// Run `cmd` with stdout/stderr sent to files in `log_dir`, killing it after `timeout`.
// Peak RSS of a child needs wait4's rusage (no safe std API); the two unsafe blocks are documented.
#[allow(unsafe_code)]
pub fn run(mut cmd: Command, log_dir: &Path, timeout: Duration) -> std::io::Result<ChildRun> {
    std::fs::create_dir_all(log_dir)?;
    let err_path = log_dir.join("stderr.txt");
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(log_dir.join("stdout.txt"))?)
        .stderr(std::fs::File::create(&err_path)?);
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let Ok(pid) = libc::pid_t::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(std::io::Error::other("child pid out of range"));
    };
    let mut out = ChildRun::default();
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; zeroed is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut hwm_kb = 0u64;
    loop {
        // SAFETY: pid is our own unreaped child; status and usage are valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if let Some(kb) = vm_hwm_kb(pid) {
            hwm_kb = hwm_kb.max(kb);
        }
        if start.elapsed() > timeout && !out.timed_out {
            out.timed_out = true;
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    out.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    if libc::WIFEXITED(status) {
        out.exit_code = Some(libc::WEXITSTATUS(status));
    } else if libc::WIFSIGNALED(status) {
        out.signal = Some(libc::WTERMSIG(status));
    }
    out.peak_rss_mb = if hwm_kb > 0 {
        hwm_kb as f64 / 1024.0
    } else {
        usage.ru_maxrss as f64 / 1024.0
    };
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    out.stderr_tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    Ok(out)
}

/// `VmHWM` of a running process, kilobytes (`None` if unreadable, e.g. no `/proc` or exited).
fn vm_hwm_kb(pid: libc::pid_t) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_shell_child() {
        let Ok(dir) = tempfile::tempdir() else { return };
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo oops >&2; exit 3"]);
        let r = run(cmd, dir.path(), Duration::from_secs(30));
        assert!(r.is_ok(), "{r:?}");
        let Ok(r) = r else { return };
        assert_eq!(r.exit_code, Some(3));
        assert!(r.peak_rss_mb > 0.0);
        // A child that allocates ~64 MB reports at least that.
        let mut big = Command::new("python3");
        big.args(["-c", "import time; b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.2)"]);
        if let Ok(r) = run(big, dir.path(), Duration::from_secs(30)) {
            if r.success() {
                assert!(r.peak_rss_mb > 60.0 && r.peak_rss_mb < 200.0, "{r:?}");
            }
        }
        assert!(r.failure().contains("oops"));
        let mut slow = Command::new("sleep");
        slow.arg("10");
        let r = run(slow, dir.path(), Duration::from_millis(50));
        assert!(
            matches!(r, Ok(ref r) if r.timed_out && !r.success()),
            "{r:?}"
        );
    }
}
