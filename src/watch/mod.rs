//! The watch folder: settings ([`config`]), a glob matcher ([`glob`]), the ingest state machine that
//! decides when a file is ready ([`ingest`], no I/O), the notify adapter thread ([`notifier`]) and
//! the background rigging pool ([`jobs`]), and which assets depend on which other files
//! ([`companions`], no I/O). The terminal UI (`crate::tui`) and
//! `geppetto watch --headless` are both thin layers over these.

pub mod companions;
pub mod config;
pub use crate::glob;
pub mod ingest;
pub mod jobs;
pub mod notifier;
mod run;

pub use companions::Companions;
pub use config::{TemplateRules, WatchConfig, WatchSettings};
pub use ingest::{FsChange, Ingest, Stat};
pub use jobs::{JobContext, JobDone, JobEvent, JobPool, JobResult};
