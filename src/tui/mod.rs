//! The watch-folder terminal UI (issue 5), a thin layer over [`crate::watch`] and the pipeline.
//!
//! * [`app`]: one state struct, one message enum, `update(&mut App, Msg) -> Vec<Effect>` (no I/O);
//! * [`keys`]: keyboard/mouse handling and hint edits; [`suggest`]: suggested hints in plain words;
//! * [`view`]: rendering as a pure function of `&App`;
//! * [`runtime`]: the watcher, the job pool and the thumbnail thread, and effect execution;
//! * [`term`]: the interactive loop (raw mode, alternate screen, panic-safe restore) and the
//!   headless loop.

pub mod app;
pub mod keys;
pub mod runtime;
pub mod suggest;
pub mod term;
pub mod view;

pub use app::{update, App, Effect, Msg};
