//! Ctrl-C (SIGINT) and SIGTERM during `geppetto rig`: finish what is being written, start
//! nothing new, exit 130.
//!
//! Killed by the default action, a run left `OUT/.geppetto-tmp-XXXX` files behind (the atomic
//! write's temporary, never renamed) and one mesh's outputs half there (its rig.json and GLB
//! without the PNG). With the handler, running rigs stop at their next stage boundary (the
//! pipeline's cancellation check) and write nothing; a rig that already finished writes all of
//! its outputs. A second Ctrl-C ends the program at once (the default action is restored).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::progress::Progress;

/// Set by the signal handler.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_CODE: u8 = 130;

#[allow(unsafe_code)]
extern "C" fn on_signal(signal: libc::c_int) {
    REQUESTED.store(true, Ordering::SeqCst);
    // SAFETY: signal() is async-signal-safe (POSIX.1 signal-safety list); restoring the default
    // action makes a second Ctrl-C end the program at once.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
    }
}

/// Install the handler for SIGINT and SIGTERM (a scheduler's preemption). A signal the
/// process was started ignoring (a shell's background job ignores SIGINT) stays ignored.
#[allow(unsafe_code)]
pub fn install() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic and calls signal(), both
        // async-signal-safe; it has the C ABI signal() expects.
        unsafe {
            let old = libc::signal(signal, on_signal as *const () as libc::sighandler_t);
            if old == libc::SIG_IGN {
                libc::signal(signal, libc::SIG_IGN);
            }
        }
    }
}

/// True once Ctrl-C (or SIGTERM) was received.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// A [`Progress`] that cancels at the next stage boundary once Ctrl-C was received.
pub struct UntilInterrupted;

impl Progress for UntilInterrupted {
    fn cancelled(&self) -> bool {
        requested()
    }
}
