//! # Geppetto: automatic rigging of character meshes
//!
//! Give it a static character mesh; it embeds a skeleton inside, computes skin weights and writes a
//! rig that Blender, Godot or a game engine can animate. The engine reproduces and extends
//! Baran & Popović 2007 ("Pinocchio"). The CLI (`src/main.rs`, `src/cli/`) and the terminal UI
//! (`src/tui/`, `src/watch/`) are thin layers over [`pipeline::Pipeline`].
//!
//! Data flows one way; each stage is a module with one entry function and a typed output:
//!
//! ```text
//! file ─load─▶ Mesh ─prepare─▶ PreparedMesh ─discretize─▶ Discretization (field, medial, graph)
//!      ─embed(template, hints, Γ)─▶ Embedding ─confidence─▶ Status ─skin─▶ Skin ─▶ Rig ─export─▶ files
//! ```
#![warn(missing_docs)]

pub mod batch;
pub mod boxfig;
pub mod choose;
pub mod cli;
pub mod confidence;
pub mod config;
pub mod curveskel;
pub mod demo;
pub mod discretize;
pub mod edit;
pub mod embed;
pub mod error;
pub mod export;
pub mod geom;
pub mod glob;
pub mod learn;
pub mod measure;
pub mod mesh;
pub mod motion;
pub mod multipart;
pub mod naming;
pub mod pipeline;
pub mod progress;
pub mod raster;
pub mod rechoose;
pub mod rig;
pub mod skeleton;
pub mod skin;
pub mod tui;
pub mod util;
pub mod watch;

pub use error::RigError;
pub use pipeline::{Pipeline, RigOutcome, RigRequest};
pub use progress::{NoProgress, Progress, Stage};
