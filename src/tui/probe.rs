//! The terminal image-protocol query (kitty graphics, sixel, cell size in pixels), done here
//! instead of by `ratatui_image::Picker::from_query_stdio`.
//!
//! Why: when the terminal does not answer (tmux forwards the query to an outer terminal that may
//! never answer, a detached session has none, some SSH paths drop it), the library gives up after
//! its timeout but leaves its query thread blocked in `read(stdin)`. That thread then swallows the
//! user's first key press and restores the terminal settings it saw before the query, i.e. puts the
//! terminal back into cooked mode *after* the UI entered raw mode: every later key is echoed as
//! text (`^[[B`) and never reaches the UI. It also left its own half-raw mode as the "original"
//! mode that raw mode restores on exit.
//!
//! Here the query runs on the calling thread, while the UI's raw mode is already on, reading
//! stdin with `poll(2)` until the terminal's status report or a fixed deadline, so nothing is left
//! reading the terminal afterwards and raw mode is entered and left exactly once.

use std::io::{IsTerminal, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::time::{Duration, Instant};

use ratatui_image::picker::cap_parser::{Parser, QueryStdioOptions, Response};
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::FontSize;

use super::runtime::protocol_type;

/// Longest wait for the terminal's answer. Local terminals answer in milliseconds and SSH in one
/// round trip; an unanswered query (tmux without an answering outer terminal) costs this once at
/// start-up.
pub const QUERY_TIMEOUT: Duration = Duration::from_millis(1000);

/// The ASCII code a Ctrl-C key press sends in raw mode.
const CTRL_C: u8 = 0x03;

/// What the terminal said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answers {
    /// The kitty graphics protocol answered.
    pub kitty: bool,
    /// The device attributes list sixel graphics.
    pub sixel: bool,
    /// Cell size in pixels (width, height), if reported.
    pub cell: Option<(u16, u16)>,
    /// The status report arrived (the terminal answered everything it was going to).
    pub complete: bool,
    /// The user pressed Ctrl-C while we waited.
    pub interrupted: bool,
}

/// The picker for the protocol setting, and whether the user pressed Ctrl-C during the query.
///
/// The caller must have put the terminal in raw mode (so the answer is not echoed and arrives
/// byte by byte) and must not have started reading terminal events yet.
pub fn picker(protocol: &str) -> anyhow::Result<(Picker, bool)> {
    let forced = protocol_type(protocol)?;
    if forced == Some(ProtocolType::Halfblocks) {
        return Ok((Picker::halfblocks(), false));
    }
    let answers = if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        query(
            std::io::stdin().as_raw_fd(),
            &mut std::io::stdout(),
            QUERY_TIMEOUT,
        )
    } else {
        Answers::default()
    };
    Ok((build(&answers, forced), answers.interrupted))
}

/// Inside tmux the query must be wrapped for passthrough; same test as ratatui-image's.
fn in_tmux() -> bool {
    std::env::var("TERM").is_ok_and(|t| t.starts_with("tmux"))
        || std::env::var("TERM_PROGRAM").is_ok_and(|t| t == "tmux")
}

/// The query options: WezTerm and Konsole claim kitty and sixel support they do not fully have
/// (ratatui-image's compatibility notes), so those answers are not asked for there.
fn options() -> QueryStdioOptions {
    let set = |v: &str| std::env::var(v).is_ok_and(|s| !s.is_empty());
    let mut o = QueryStdioOptions::default();
    if set("WEZTERM_EXECUTABLE") || set("KONSOLE_VERSION") {
        o.blacklist_protocols = vec![ProtocolType::Kitty, ProtocolType::Sixel];
    }
    o
}

/// Send the query to `out` and read the answers from `fd` until the status report, Ctrl-C or
/// `timeout` (a hard deadline: it is never extended).
pub fn query(fd: RawFd, out: &mut impl Write, timeout: Duration) -> Answers {
    let text = Parser::query(in_tmux(), options());
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return Answers::default();
    }
    read_answers(fd, Instant::now() + timeout)
}

/// Read and parse answers from `fd` until the status report, Ctrl-C or `deadline`.
pub fn read_answers(fd: RawFd, deadline: Instant) -> Answers {
    let mut parser = Parser::new();
    let mut a = Answers::default();
    let mut buf = [0u8; 256];
    while !a.complete && !a.interrupted {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let n = match read_within(fd, &mut buf, left) {
            Some(0) | None => break, // end of input or an error: nothing more will come
            Some(n) => n,
        };
        for &b in &buf[..n] {
            if b == CTRL_C {
                a.interrupted = true;
            }
            for r in parser.push(char::from(b)) {
                match r {
                    Response::Kitty => a.kitty = true,
                    Response::Sixel => a.sixel = true,
                    Response::CellSize(c) => a.cell = a.cell.or(c),
                    Response::Status => a.complete = true,
                    _ => {}
                }
            }
        }
    }
    a
}

/// Wait up to `timeout` for `fd` to be readable, then read once. `Some(0)` at end of input,
/// `None` on timeout or error.
// A bounded wait on the terminal needs poll(2): std has no read with a timeout, and a helper
// thread blocked in read() is exactly what swallowed the first key before (see the module doc).
#[allow(unsafe_code)]
fn read_within(fd: RawFd, buf: &mut [u8], timeout: Duration) -> Option<usize> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(timeout.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
    // SAFETY: one valid pollfd, count 1.
    let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
    if ready <= 0 {
        return None;
    }
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    usize::try_from(n).ok()
}

/// The picker for `answers`: a forced protocol wins; else kitty, then sixel, then iTerm2 when the
/// environment names a terminal that speaks it, else half-blocks. Pixel protocols need the cell
/// size (the answer, else the pixel size the kernel reports for the window); without one they
/// cannot place an image, so half-blocks it is.
pub fn build(answers: &Answers, forced: Option<ProtocolType>) -> Picker {
    let cell = answers.cell.or_else(cell_from_window).map(FontSize::from);
    let Some(cell) = cell else {
        return Picker::halfblocks();
    };
    // `from_fontsize` is the library's constructor for a font size measured elsewhere; it also
    // detects tmux (for passthrough) and iTerm2-speaking terminals from the environment.
    #[allow(deprecated)]
    let mut picker = Picker::from_fontsize(cell);
    let detected = if answers.kitty {
        Some(ProtocolType::Kitty)
    } else if answers.sixel {
        Some(ProtocolType::Sixel)
    } else {
        None
    };
    if let Some(p) = forced.or(detected) {
        picker.set_protocol_type(p);
    }
    picker
}

/// Cell size from the window's pixel size (TIOCGWINSZ), when the terminal fills it in.
fn cell_from_window() -> Option<(u16, u16)> {
    let w = crossterm::terminal::window_size().ok()?;
    (w.width > 0 && w.height > 0 && w.columns > 0 && w.rows > 0)
        .then(|| (w.width / w.columns, w.height / w.rows))
        .filter(|&(x, y)| x > 0 && y > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::OwnedFd;

    #[allow(unsafe_code)] // test-only pipe(2); the two blocks are documented
    fn pipe() -> (OwnedFd, std::fs::File) {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors pipe(2) returns.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both descriptors were just created and are owned here only.
        unsafe {
            use std::os::fd::FromRawFd;
            (
                OwnedFd::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        }
    }

    #[test]
    fn a_terminal_that_never_answers_costs_the_timeout_and_no_more() {
        let (r, _w) = pipe(); // writer kept open: no end of input, just silence
        let t = Instant::now();
        let a = read_answers(r.as_raw_fd(), Instant::now() + Duration::from_millis(200));
        let waited = t.elapsed();
        assert_eq!(a, Answers::default());
        assert!(waited >= Duration::from_millis(190), "{waited:?}");
        assert!(waited < Duration::from_secs(3), "{waited:?}");
    }

    #[test]
    fn kitty_cell_size_and_status_are_read_and_reading_stops_at_the_status() {
        let (r, mut w) = pipe();
        w.write_all(b"\x1b_Gi=31;OK\x1b\\\x1b[?62;4c\x1b[6;20;10t\x1b[0n")
            .unwrap();
        let t = Instant::now();
        let a = read_answers(r.as_raw_fd(), Instant::now() + Duration::from_secs(30));
        assert!(t.elapsed() < Duration::from_secs(5), "stops at the status");
        assert!(a.kitty && a.sixel && a.complete && !a.interrupted, "{a:?}");
        assert_eq!(a.cell, Some((10, 20)));
        let p = build(&a, None);
        assert_eq!(p.protocol_type(), ProtocolType::Kitty);
        assert_eq!((p.font_size().width, p.font_size().height), (10, 20));
        let forced = build(&a, Some(ProtocolType::Sixel));
        assert_eq!(forced.protocol_type(), ProtocolType::Sixel);
    }

    #[test]
    fn ctrl_c_while_waiting_interrupts() {
        let (r, mut w) = pipe();
        w.write_all(&[CTRL_C]).unwrap();
        let a = read_answers(r.as_raw_fd(), Instant::now() + Duration::from_secs(30));
        assert!(a.interrupted && !a.complete, "{a:?}");
    }

    #[test]
    fn sixel_only_terminal_gets_sixel_and_end_of_input_stops_reading() {
        let (r, mut w) = pipe();
        w.write_all(b"\x1b[?62;4;22c\x1b[6;16;8t").unwrap();
        drop(w);
        let a = read_answers(r.as_raw_fd(), Instant::now() + Duration::from_secs(30));
        assert!(a.sixel && !a.kitty && !a.complete, "{a:?}");
        assert_eq!(build(&a, None).protocol_type(), ProtocolType::Sixel);
    }
}
