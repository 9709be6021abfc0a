//! Rig outputs: `NAME.rig.json`, glTF 2.0 binary `NAME.glb`, the original Pinocchio text files
//! (`skeleton.out` / `attachment.out`) and the thumbnail `NAME.png`. Every file is written
//! atomically; [`crate::naming`] decides where (one rule for every command).
//! GLB and Pinocchio writers: OWNER skin helper.

pub mod anim;
pub mod glb;
mod glb_bin;
mod glb_gc;
mod glb_nodes;
mod glb_prune;
pub mod glb_source;
mod guard;
pub mod pinocchio;

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::RigError;
use crate::mesh::load::SourceDocument;
use crate::mesh::Mesh;
use crate::naming::{output_base, OutputBase};
use crate::pipeline::RigOutcome;
use crate::rig::Rig;
use crate::util::write_atomic_with;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// `NAME.rig.json` (always useful; the UI and `score` read it).
    Json,
    /// `NAME.glb`: mesh, joint nodes, inverse bind matrices, JOINTS_0/WEIGHTS_0.
    Glb,
    /// `NAME.skeleton.out` and `NAME.attachment.out`, the original's text formats.
    Pinocchio,
    /// `NAME.png`: front and side views of the mesh with the skeleton drawn over it.
    Png,
}

/// Write the requested outputs for one rig into `out_dir` (named by [`output_base`] with
/// the mesh's own folder as root, i.e. flat); returns the paths written.
pub fn write_outputs(
    outcome: &RigOutcome,
    out_dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    let glb = GlbSource::of(outcome);
    write_rig_with(&outcome.rig, &outcome.prepared.input, glb, out_dir, formats)
}

/// What the GLB is written into: the input's own document (textured, structured) if there is
/// one, else a new document from the mesh alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct GlbSource<'a> {
    /// The input file's document ([`crate::mesh::load::load_with_source`]).
    pub source: Option<&'a SourceDocument>,
    /// Keep the input's animations and drive them with its own joint nodes (only valid when the
    /// rig's skeleton is the input's, as with `attach --skeleton-from` the same file).
    pub keep_animations: bool,
}

impl<'a> GlbSource<'a> {
    /// The input document of a pipeline run (its animations are not kept: the skeleton is new).
    pub fn of(outcome: &'a RigOutcome) -> Self {
        Self {
            source: outcome.source.as_deref(),
            keep_animations: false,
        }
    }
}

/// [`write_rig_to`] into `out_dir`, named by [`output_base`] with the mesh's own folder as
/// root (flat: `out_dir/NAME.*`).
pub fn write_rig(
    rig: &Rig,
    mesh: &Mesh,
    out_dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    write_rig_with(rig, mesh, GlbSource::default(), out_dir, formats)
}

/// [`write_rig_to`] into `out_dir` (flat, as [`write_rig`]), writing the GLB into `glb.source`
/// when there is one.
pub fn write_rig_with(
    rig: &Rig,
    mesh: &Mesh,
    glb: GlbSource<'_>,
    out_dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    let mesh_path = Path::new(&rig.mesh);
    let root = mesh_path.parent().unwrap_or(Path::new(""));
    write_rig_to(
        rig,
        mesh,
        glb,
        &output_base(mesh_path, root, out_dir),
        formats,
    )
}

impl Format {
    /// The suffixes of the files this format writes (`NAME.SUFFIX`).
    pub fn suffixes(self) -> &'static [&'static str] {
        match self {
            Format::Json => &["rig.json"],
            Format::Glb => &["glb"],
            Format::Pinocchio => &["skeleton.out", "attachment.out"],
            Format::Png => &["png"],
        }
    }
}

/// Write `rig` (with `mesh`, the input mesh it was made from, mesh frame) in each of `formats`
/// as `base.dir/base.name.*`; the GLB goes into `glb.source` when there is one (the input's
/// own document: materials, textures, structure). A rig without skin weights writes a GLB with
/// the mesh and the joint hierarchy but no skin, and `attachment.out` is skipped.
pub fn write_rig_to(
    rig: &Rig,
    mesh: &Mesh,
    glb: GlbSource<'_>,
    base: &OutputBase,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    guard::refuse_to_replace_user_files(rig, base, formats)?;
    // The formats are independent files, each built and fsynced on its own: written side by
    // side (the fsyncs overlap), listed and failing in the order of `formats`.
    let each: Vec<Result<Vec<PathBuf>, RigError>> = formats
        .par_iter()
        .map(|format| write_format(rig, mesh, glb, base, *format))
        .collect();
    let mut written = Vec::new();
    for paths in each {
        written.extend(paths?);
    }
    Ok(written)
}

/// Write `rig` in one `format` (see [`write_rig_to`]); the paths written, in order.
fn write_format(
    rig: &Rig,
    mesh: &Mesh,
    glb: GlbSource<'_>,
    base: &OutputBase,
    format: Format,
) -> Result<Vec<PathBuf>, RigError> {
    let mut written = Vec::new();
    type Fill<'f> = &'f dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>;
    let mut put = |suffix: &str, fill: Fill<'_>| -> Result<(), RigError> {
        let path = base.file(suffix);
        write_atomic_with(&path, fill).map_err(|source| RigError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
        Ok(())
    };
    fn bytes(b: &[u8]) -> impl Fn(&mut dyn std::io::Write) -> std::io::Result<()> + '_ {
        move |w| w.write_all(b)
    }
    match format {
        // Streamed: a big mesh's weights are never held as one string.
        Format::Json => put("rig.json", &|w| rig.write_json(w))?,
        Format::Glb => put("glb", &bytes(&glb_file(rig, mesh, glb, base)?))?,
        Format::Pinocchio => {
            put(
                "skeleton.out",
                &bytes(pinocchio::skeleton_out(&rig.joints).as_bytes()),
            )?;
            if let Some(skin) = &rig.skin {
                let text = pinocchio::attachment_out(&rig.joints, skin);
                put("attachment.out", &bytes(text.as_bytes()))?;
            }
        }
        Format::Png => put("png", &bytes(&png_file(rig, mesh, base)?))?,
    }
    Ok(written)
}

/// The GLB of `rig`: written into `glb.source` when there is one, else a new document of `mesh`.
fn glb_file(
    rig: &Rig,
    mesh: &Mesh,
    glb: GlbSource<'_>,
    base: &OutputBase,
) -> Result<Vec<u8>, RigError> {
    let skin = rig.skin.as_ref();
    match glb.source {
        Some(src) => glb_source::source_glb_bytes(src, &rig.joints, skin, glb.keep_animations),
        None => glb::glb_bytes(mesh, &rig.joints, skin),
    }
    .map_err(|e| RigError::Export {
        path: base.file("glb"),
        message: e.to_string(),
    })
}

/// The thumbnail PNG of `rig` on `mesh` (default views), marked as ours so a later run may
/// replace it ([`guard`]).
fn png_file(rig: &Rig, mesh: &Mesh, base: &OutputBase) -> Result<Vec<u8>, RigError> {
    let view = crate::raster::ThumbnailView::default();
    let (img, _) = crate::raster::render_rig(mesh, rig, &view);
    let png = crate::raster::png_bytes(&img).map_err(|e| RigError::Export {
        path: base.file("png"),
        message: e.to_string(),
    })?;
    Ok(guard::mark_png(&png))
}
