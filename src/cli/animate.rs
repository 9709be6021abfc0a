//! `geppetto animate RIG.json [--bvh CLIP.bvh | --clip walk] [--out NAME.glb] [--gif NAME.gif]`:
//! a motion on a finished rig, written as a glTF animation and/or an animated GIF preview. The
//! library does the work (`motion::motion_for`, `export::anim::animated_glb`,
//! `motion::preview`); this only resolves paths and reports.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;

use super::AnimateArgs;
use crate::motion::preview::{gif_bytes, preview_frames, render_motion, PreviewOptions};
use crate::motion::procedural::Clip;
use crate::motion::{motion_for, CharacterFrame, Motion, MotionSource};
use crate::raster::ThumbnailView;
use crate::rig::Rig;
use crate::util::write_atomic;

/// Run `geppetto animate`.
pub fn run(args: &AnimateArgs) -> anyhow::Result<ExitCode> {
    let rig = Rig::load(&args.rig)?;
    let source = match &args.bvh {
        Some(p) => MotionSource::Bvh(p.clone()),
        None => MotionSource::Clip(args.clip.unwrap_or(Clip::Walk)),
    };
    let Some(size) = parse_size(&args.size) else {
        eprintln!("error: --size must look like 320x200, got `{}`", args.size);
        return Ok(ExitCode::from(2));
    };
    let motion = motion_for(&rig, &source).with_context(|| args.rig.display().to_string())?;
    let mesh_path = super::pose::rig_mesh(&args.rig, &rig, args.mesh.as_deref())?;
    let mesh = crate::mesh::load(&mesh_path)
        .map_err(|e| anyhow::anyhow!("{}: {e}", mesh_path.display()))?;
    let protected = [args.rig.as_path(), mesh_path.as_path()];
    if let Some(out) = glb_target(args, &motion.name) {
        super::pose::refuse_source(&out, &protected)?;
        write_glb(&out, &mesh, &rig, &motion, args.names)?;
    }
    if let Some(gif) = &args.gif {
        super::pose::refuse_source(gif, &protected)?;
        if !write_gif(args, gif, (&mesh, &mesh_path), &rig, &motion, size)? {
            return Ok(ExitCode::from(2));
        }
    }
    if let Some(cells) = &args.terminal {
        let Some((cols, rows)) = parse_cells(cells) else {
            eprintln!("error: --terminal must look like 68x43 (cells), got `{cells}`");
            return Ok(ExitCode::from(2));
        };
        terminal_preview(rig, mesh, source, (cols, rows));
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the animated GLB goes: `--out`, else the default name when no other output was asked
/// for, else nowhere.
fn glb_target(args: &AnimateArgs, clip: &str) -> Option<PathBuf> {
    match (&args.out, &args.gif, &args.terminal) {
        (Some(p), _, _) => Some(p.clone()),
        (None, None, None) => Some(default_glb(&args.rig, clip)),
        _ => None,
    }
}

/// Build the animated GLB, write it atomically and report its length.
fn write_glb(
    out: &Path,
    mesh: &crate::mesh::Mesh,
    rig: &Rig,
    motion: &Motion,
    names: crate::motion::names::NameProfile,
) -> anyhow::Result<()> {
    let bytes = crate::export::anim::animated_glb(mesh, rig, motion, names)
        .with_context(|| format!("{}: cannot build the animated GLB", out.display()))?;
    write_atomic(out, &bytes).with_context(|| format!("{}: cannot write", out.display()))?;
    println!(
        "wrote {} ({} frames, {:.2} s)",
        out.display(),
        motion.frames.len(),
        motion.frames.len() as f64 * motion.frame_time_s
    );
    Ok(())
}

/// Render the GIF preview, write it atomically and report the time per frame; `false` after
/// printing a usage error (a rig without skin weights).
fn write_gif(
    args: &AnimateArgs,
    gif: &Path,
    (mesh, mesh_path): (&crate::mesh::Mesh, &Path),
    rig: &Rig,
    motion: &Motion,
    (width, height): (u32, u32),
) -> anyhow::Result<bool> {
    let Some(skin) = &rig.skin else {
        eprintln!(
            "error: {}: the rig has no skin weights to preview",
            args.rig.display()
        );
        return Ok(false);
    };
    anyhow::ensure!(
        skin.len() == mesh.positions.len(),
        "{} has {} vertices but the rig's skin has {} rows",
        mesh_path.display(),
        mesh.positions.len(),
        skin.len()
    );
    let frame = CharacterFrame::from_label(&rig.orientation)?;
    let opts = PreviewOptions {
        view: ThumbnailView {
            width,
            height,
            ..ThumbnailView::default()
        },
        skeleton: args.skeleton,
    };
    let start = Instant::now();
    let frames = render_motion(mesh, &rig.joints, skin, motion, &frame, &opts);
    let render_ms = start.elapsed().as_secs_f64() * 1e3;
    let count = frames.len();
    let (_, dt) = preview_frames(motion);
    let bytes = gif_bytes(frames, dt)?;
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    write_atomic(gif, &bytes).with_context(|| format!("{}: cannot write", gif.display()))?;
    println!(
        "wrote {} ({count} frames; {:.1} ms/frame rendering, {:.1} ms/frame with GIF encoding)",
        gif.display(),
        render_ms / count.max(1) as f64,
        total_ms / count.max(1) as f64
    );
    Ok(true)
}

/// Render the clip for the watch UI's pane (half-blocks) and print the time per frame.
fn terminal_preview(rig: Rig, mesh: crate::mesh::Mesh, source: MotionSource, cells: (u16, u16)) {
    use crate::tui::play::{PlayEvent, PlayKey, PlayRequest};
    let req = PlayRequest {
        key: PlayKey {
            mesh: PathBuf::from(&rig.mesh),
            run: 1,
            cells,
            cell_px: (1, 2),
            edit: 0,
        },
        mesh: std::sync::Arc::new(mesh),
        rig: std::sync::Arc::new(rig),
    };
    let picker = ratatui_image::picker::Picker::halfblocks();
    let start = Instant::now();
    let mut last = start;
    let mut setup_ms = 0.0;
    // Per frame: the time since the previous report (render + encode of that frame).
    let mut frame_ms = Vec::new();
    let mut send = |ev: PlayEvent| {
        let ms = last.elapsed().as_secs_f64() * 1e3;
        last = Instant::now();
        match ev {
            PlayEvent::Started { .. } => setup_ms = ms,
            PlayEvent::Frame { .. } => frame_ms.push(ms),
            PlayEvent::Failed { error, .. } => eprintln!("error: {error}"),
        }
        true
    };
    crate::tui::player::render_clip(&picker, &source, &req, &|| false, &mut send);
    let mut sorted = frame_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let pick = |q: f64| sorted.get(((sorted.len() as f64 - 1.0) * q).round() as usize);
    println!(
        "terminal preview (halfblocks, {}x{} cells): {} frames; clip and poses {setup_ms:.1} ms; \
         render + encode per frame: median {:.1} ms, 90th percentile {:.1} ms, mean {:.1} ms",
        cells.0,
        cells.1,
        frame_ms.len(),
        pick(0.5).copied().unwrap_or(0.0),
        pick(0.9).copied().unwrap_or(0.0),
        frame_ms.iter().sum::<f64>() / frame_ms.len().max(1) as f64
    );
}

fn parse_cells(s: &str) -> Option<(u16, u16)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    ((4..=1000).contains(&w) && (2..=1000).contains(&h)).then_some((w, h))
}

fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    ((16..=4096).contains(&w) && (16..=4096).contains(&h)).then_some((w, h))
}

/// `NAME.CLIP.glb` beside the rig.json (NAME = the rig file's name without `.rig.json`).
fn default_glb(rig: &Path, clip: &str) -> PathBuf {
    let file = rig
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    let stem = file
        .strip_suffix(".rig.json")
        .or_else(|| file.strip_suffix(".json"))
        .unwrap_or(&file);
    rig.with_file_name(format!("{stem}.{clip}.glb"))
}
