//! Command-line interface: argument definitions and one module per subcommand. Each `run` returns
//! the process exit code: 0 success, 1 when any input failed, 2 for usage errors.

pub mod animate;
pub mod attach;
pub mod bench;
pub mod demo;
pub mod edit;
pub mod errors;
pub mod interrupt;
pub mod learn;
pub mod pose;
pub mod rig;
pub mod score;
pub mod watch;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::export::Format;
pub use learn::LearnArgs;

/// Geppetto: automatic rigging for character meshes.
#[derive(Debug, Parser)]
#[command(name = "geppetto", version, about, long_about = None)]
pub struct Cli {
    /// Subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rig meshes: embed a skeleton, compute weights, write OUT/NAME.rig.json and OUT/NAME.glb.
    Rig(RigArgs),
    /// Compute skin weights for a skeleton you already have (from a rig.json or a rigged .glb).
    Attach(AttachArgs),
    /// Edit a rig (move, insert, delete, align joints; weight range, magnitude, smoothness) with
    /// local weight re-solves; write the edited rig.json and GLB.
    Edit(EditArgs),
    /// Pose a rig (linear blend skinning) and write the deformed mesh as OBJ.
    Pose(PoseArgs),
    /// Play a motion on a rig: animated GLB (glTF animation) and/or an animated GIF preview.
    Animate(AnimateArgs),
    /// Score a rig against an artist rig (corpus scoring conventions).
    Score(ScoreArgs),
    /// Benchmark the corpus: per-stage times, wall time, peak memory, quality.
    Bench(BenchArgs),
    /// Watch an asset folder and rig every saved mesh (terminal UI, or --headless).
    Watch(WatchArgs),
    /// Generate procedural demo characters into a folder and open the watch UI on it.
    Demo(DemoArgs),
    /// Learn the penalty weights Γ by maximum margin from labelled embeddings (corpus artist rigs,
    /// users' hints); write a config/rig.yaml-shaped file for --config.
    Learn(LearnArgs),
}

/// `geppetto rig`.
#[derive(Debug, Args)]
pub struct RigArgs {
    /// Mesh files (.obj, .glb, .gltf, .fbx, .off, .ply).
    #[arg(required_unless_present = "list")]
    pub meshes: Vec<PathBuf>,
    /// A file listing mesh paths, one per line (blank lines and `#` comments ignored; relative
    /// paths are relative to the list file's folder), rigged after the MESH arguments.
    #[arg(long)]
    pub list: Option<PathBuf>,
    /// Rig only shard K of N (0-based K < N) of the de-duplicated inputs: the inputs at positions
    /// K, K+N, K+2N, … N tasks given the same inputs write exactly the files one run writes.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Leave the per-stage times out of rig.json, so it depends on the inputs only (byte-identical
    /// across runs, machines and shards).
    #[arg(long)]
    pub no_timings: bool,
    /// Skeleton template: `auto` (try the shipped templates, keep the best fit; when none fits with
    /// confidence, a curve skeleton competes), human, quadruped, horse, centaur, a YAML file, or
    /// `curve` (no template: a skeleton from the mesh's 3D silhouettes).
    #[arg(long, default_value = "auto")]
    pub skeleton: String,
    /// With `--skeleton curve`: `robust` (default) or `faithful` (the paper's rules only).
    #[arg(long, default_value = "robust")]
    pub curve_mode: String,
    /// Hints file (default: NAME.hints.yaml next to each mesh, if present).
    #[arg(long)]
    pub hints: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "rigged")]
    pub out: PathBuf,
    /// `default` (+Y up, facing +Z), `auto` (try all 24 axis-aligned orientations), or e.g. `+z,-y`
    /// (the mesh axes that point up and forward). With `--skeleton auto`, `default` means `auto`.
    #[arg(long, default_value = "default")]
    pub orientation: String,
    /// `auto` (the multi-component method for a mesh of many parts with none dominant, else the
    /// template embedding), `embed`, or `multi`.
    #[arg(long, default_value = "auto")]
    pub method: String,
    /// Engine configuration file (default: the built-in config/rig.yaml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Output formats (comma-separated).
    #[arg(long, value_delimiter = ',', default_values = ["json", "glb"])]
    pub format: Vec<Format>,
    /// Skip skin weights (skeleton only).
    #[arg(long)]
    pub no_skin: bool,
    /// Parallel jobs (default: number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
}

/// `geppetto attach`.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// Mesh file.
    pub mesh: PathBuf,
    /// Skeleton source: a rig.json, a rigged .glb/.gltf, an .fbx with a skeleton, or a skeleton JSON
    /// {"joints": [{"name", "parent", "position"}]} in the mesh's frame, where "parent" is a joint
    /// name or a 0-based index into the list (null or absent for a root).
    #[arg(long)]
    pub skeleton_from: PathBuf,
    /// Keep the mesh file's animations: its own joint nodes are reused (matched by name), so
    /// this needs the skeleton unchanged (`--skeleton-from` the same file).
    #[arg(long)]
    pub keep_animations: bool,
    /// Weight every joint of the skeleton file. By default, when the file carries its own skin
    /// (a rigged glTF/FBX, a corpus truth JSON), the joints that skin never uses (bones with
    /// deforming off: IK goals, poles, roots, helpers) are end markers owning no vertices.
    #[arg(long)]
    pub weight_every_joint: bool,
    /// The mesh axes that point up and forward, e.g. `+z,-y` (a model saved Blender's way), recorded
    /// in the rig for thumbnails, the editor and `animate`. Default: the skeleton file's own frame
    /// (a rig.json's orientation; +Y up, facing +Z for glTF), else "as given".
    #[arg(long)]
    pub orientation: Option<String>,
    /// Output folder.
    #[arg(long, default_value = "rigged")]
    pub out: PathBuf,
    /// Output formats (comma-separated).
    #[arg(long, value_delimiter = ',', default_values = ["json", "glb"])]
    pub format: Vec<Format>,
    /// Engine configuration file.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// `geppetto edit`. Edits apply in this order: moves, inserts, deletes, align, re-root, ranges,
/// magnitudes, smoothness. Positions and offsets are in the mesh's frame and units.
#[derive(Debug, Args)]
pub struct EditArgs {
    /// The rig.json to edit.
    pub rig: PathBuf,
    /// Move joint J to (X, Y, Z).
    #[arg(long = "move", num_args = 4, value_names = ["J", "X", "Y", "Z"], action = clap::ArgAction::Append, allow_negative_numbers = true)]
    pub r#move: Vec<String>,
    /// Moves translate the joint's descendants too.
    #[arg(long)]
    pub with_descendants: bool,
    /// Split the bone from J's parent to J at fraction T from the parent (new joint J_split).
    #[arg(long, num_args = 2, value_names = ["J", "T"], action = clap::ArgAction::Append)]
    pub insert: Vec<String>,
    /// Delete joint J (not the root); its children are re-parented to its parent.
    #[arg(long, value_name = "J")]
    pub delete: Vec<String>,
    /// Put a contiguous chain of at least 3 joints on one bending plane.
    #[arg(long, num_args = 3.., value_name = "J")]
    pub align: Vec<String>,
    /// Make joint J the root.
    #[arg(long, value_name = "J")]
    pub reroot: Option<String>,
    /// Influence range: put J's weight handle at offset (DX, DY, DZ) from the joint.
    #[arg(long, num_args = 4, value_names = ["J", "DX", "DY", "DZ"], action = clap::ArgAction::Append, allow_negative_numbers = true)]
    pub range: Vec<String>,
    /// Influence magnitude: heat constant C (> 0, default 1) of J's bones.
    /// (A negative C reaches the edit's own check, which names the rule, instead of clap's
    /// "unexpected argument".)
    #[arg(long, num_args = 2, value_names = ["J", "C"], action = clap::ArgAction::Append, allow_negative_numbers = true)]
    pub magnitude: Vec<String>,
    /// Influence smoothness: bi-Laplacian share B in [0, 0.95] of J's weights (default 0).
    #[arg(long, num_args = 2, value_names = ["J", "B"], action = clap::ArgAction::Append, allow_negative_numbers = true)]
    pub smoothness: Vec<String>,
    /// Zero threshold of the region search (default 1e-2; from the prune level 1e-4 up to, not
    /// including, 1); larger gives smaller regions and a weight error of about this size at the
    /// region's border.
    #[arg(long, allow_negative_numbers = true)]
    pub eps: Option<f64>,
    /// Also solve globally; report its time and the largest weight difference.
    #[arg(long)]
    pub compare_global: bool,
    /// Append the edits to the mesh's sidecar NAME.edits.yaml (replayed by every re-rig).
    #[arg(long)]
    pub save_edits: bool,
    /// The mesh (default: the `mesh` path recorded in the rig).
    #[arg(long)]
    pub mesh: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "rigged")]
    pub out: PathBuf,
    /// Output formats (comma-separated).
    #[arg(long, value_delimiter = ',', default_values = ["json", "glb"])]
    pub format: Vec<Format>,
    /// Engine configuration file.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// `geppetto pose`.
#[derive(Debug, Args)]
pub struct PoseArgs {
    /// A rig.json with skin weights.
    pub rig: PathBuf,
    /// Random pose from this seed (each joint rotated up to --max-degrees about a random axis).
    #[arg(long)]
    pub random: Option<u64>,
    /// Largest random rotation per joint, degrees (0 to 360).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true, value_parser = max_degrees)]
    pub max_degrees: f64,
    /// The mesh (default: the `mesh` path recorded in the rig).
    #[arg(long)]
    pub mesh: Option<PathBuf>,
    /// Output OBJ.
    #[arg(long)]
    pub out: PathBuf,
}

/// `geppetto animate`.
#[derive(Debug, Args)]
pub struct AnimateArgs {
    /// A rig.json (with skin weights for the GIF and a skinned GLB).
    pub rig: PathBuf,
    /// A BVH motion clip, retargeted onto the rig by joint names.
    #[arg(long, conflicts_with = "clip")]
    pub bvh: Option<PathBuf>,
    /// A built-in cycle (default: walk; on a quadruped rig walk plays the trot).
    #[arg(long, value_enum)]
    pub clip: Option<crate::motion::procedural::Clip>,
    /// Output GLB (default: NAME.CLIP.glb beside the rig.json, unless only --gif is given).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also render the clip (front and side, the rig's own weights) to this animated GIF.
    #[arg(long)]
    pub gif: Option<PathBuf>,
    /// Draw the skeleton over the mesh in the GIF.
    #[arg(long)]
    pub skeleton: bool,
    /// GIF size in pixels, WIDTHxHEIGHT (both views side by side).
    #[arg(long, default_value = "320x200")]
    pub size: String,
    /// Also time the watch UI's terminal preview of the clip: frames rendered and encoded as
    /// half-blocks for a thumbnail pane of COLSxROWS cells, exactly as `watch` plays them.
    #[arg(long, value_name = "COLSxROWS")]
    pub terminal: Option<String>,
    /// Joint names in the GLB: geppetto, mixamo, vrm, unity, godot (rig.json keeps ours).
    #[arg(long, value_enum, default_value = "geppetto")]
    pub names: crate::motion::names::NameProfile,
    /// The mesh (default: the `mesh` path recorded in the rig).
    #[arg(long)]
    pub mesh: Option<PathBuf>,
}

/// `geppetto score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Predicted rig: rig.json or rigged .glb.
    pub pred: PathBuf,
    /// Truth: corpus truth JSON or rigged .glb.
    pub truth: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Mesh the rigs belong to (for the extent and skin measures; default: from the rig).
    #[arg(long)]
    pub mesh: Option<PathBuf>,
    /// Random poses for the deformation error.
    #[arg(long, default_value_t = 20)]
    pub poses: usize,
    /// Seed of the random poses.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `geppetto bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Corpus folder (with meshes/, truth/, MANIFEST.tsv).
    #[arg(long, default_value = "../shared/corpus")]
    pub corpus: PathBuf,
    /// Runs per mesh.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Only meshes whose name matches this glob.
    #[arg(long)]
    pub filter: Option<String>,
    /// Also write the results as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Scaling study of one mesh (subdivided to ~1x, 4x, 16x vertices).
    #[arg(long)]
    pub scaling: Option<PathBuf>,
    /// With --scaling: the template or method each run uses (`curve` for the curve skeleton);
    /// default: the corpus manifest's template for a corpus mesh, else `human`.
    #[arg(long)]
    pub skeleton: Option<String>,
    /// Edit bench of one mesh (subdivided to ~1x, 4x, 16x vertices): a joint dragged in --runs
    /// steps, each re-solved locally, against the global solve (region, ms, speed-up, max |dw|).
    #[arg(long)]
    pub edit: Option<PathBuf>,
    /// Hint re-run latency of one mesh, as the watcher re-rigs it after a hints edit (cached
    /// discretization): request to new thumbnail, --runs re-runs after one cold rig.
    #[arg(long)]
    pub rerun: Option<PathBuf>,
    /// With --edit: the joint to drag (default: the first forearm/elbow joint).
    #[arg(long)]
    pub joint: Option<String>,
    /// Engine configuration file.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// `geppetto watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Asset folder to watch.
    pub dir: PathBuf,
    /// No screen: one log line per event.
    #[arg(long)]
    pub headless: bool,
    /// Watch configuration (default: the built-in config/default.yaml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Output folder (default from the config: DIR/rigged).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Force the image protocol: auto, kitty, sixel, iterm2, halfblocks.
    #[arg(long)]
    pub protocol: Option<String>,
    /// Skeleton template (`auto`, the default, tries the shipped templates).
    #[arg(long)]
    pub skeleton: Option<String>,
    /// Worker threads; 0 = cores − 1, at least 1 (default from the config: 0).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Poll the folder instead of using OS events (network filesystems, WSL).
    #[arg(long)]
    pub poll: bool,
    /// The clip Space plays in the thumbnail pane: auto, walk, wave, squat, trot or a .bvh file
    /// (default from the config: auto, the built-in cycle suited to the template).
    #[arg(long)]
    pub motion: Option<String>,
    /// Exit after every asset found at start-up is rigged (headless scripts, CI).
    #[arg(long)]
    pub once: bool,
}

/// `geppetto demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder to write the demo characters into (default: ./geppetto-demo).
    #[arg(default_value = "geppetto-demo")]
    pub dir: PathBuf,
    /// Rig without the UI and print a summary (for scripts and dumb terminals).
    #[arg(long)]
    pub headless: bool,
    /// Force the image protocol: auto, kitty, sixel, iterm2, halfblocks (tmux users).
    #[arg(long)]
    pub protocol: Option<String>,
}

/// `--max-degrees`: a number the library accepts as an angle
/// ([`crate::skin::pose::check_max_degrees`]).
fn max_degrees(text: &str) -> Result<f64, String> {
    let d: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of degrees"))?;
    crate::skin::pose::check_max_degrees(d).map_err(|e| e.to_string())
}
