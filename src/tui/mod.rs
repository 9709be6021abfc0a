//! The watch-folder terminal UI (issue 5), a thin layer over [`crate::watch`] and the pipeline.
//! Dependencies run one way: `app` (state) ← `layout` ← `keys` ← `update`; `view` reads `app`,
//! `layout` and the key list; `runtime` and `term` drive them.
//!
//! * [`app`]: one state struct, one message enum, the effects (no behaviour);
//! * [`mod@update`]: `update(&mut App, Msg) -> Vec<Effect>`, the only place state changes (no I/O);
//! * [`keys`]: keyboard/mouse handling and hint edits; [`suggest`]: suggested hints in plain words;
//!   [`coord_input`]: the typed x y z line for the hint being edited;
//! * [`edit`]: rig edit mode (state, no I/O), [`edit_keys`] its keys and mouse, [`edit_view`]
//!   its pane text; [`editor`]: the worker owning the editing session (local re-solves, undo
//!   snapshots, saving);
//! * [`play`]: the clip playing in the thumbnail pane (state, no I/O); [`player`]: its render job;
//! * [`layout`]: pane rectangles for a terminal size; [`help`]: the help bar's keys, wrapped; [`view`]: rendering, a pure function of `&App`;
//!   [`rig_view`]: the detail pane's sections for a rigged asset;
//! * [`runtime`]: the watcher, the job pool and the thumbnail thread, and effect execution;
//! * [`probe`]: the terminal's image-protocol query (bounded, on the calling thread);
//! * [`term`]: the interactive loop (raw mode, alternate screen, panic-safe restore) and the
//!   headless loop; [`trace`]: the opt-in key-to-frame latency trace.

pub mod app;
mod asset;
pub mod coord_input;
pub mod edit;
pub mod edit_keys;
mod edit_state;
pub mod edit_view;
pub mod editor;
mod editor_msg;
mod fs_update;
mod header;
pub mod help;
pub mod keys;
pub mod layout;
pub mod method;
pub mod play;
pub mod player;
pub mod probe;
pub mod rig_view;
pub mod runtime;
pub mod suggest;
pub mod term;
pub mod trace;
pub mod update;
pub mod view;

pub use app::{App, Effect, Msg};
pub use update::update;
