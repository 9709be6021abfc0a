//! Animated previews: every frame of a [`Motion`] deformed by linear blend skinning with the rig's
//! own weights (so weight problems show), drawn by our rasterizer (front and side views) and
//! encoded as a looping GIF.
//!
//! Frames are drawn in the rig's character frame (so "front" faces the character whatever the
//! mesh's axes), in place (the root's horizontal travel removed, so a walk stays in view), with
//! one framing for the whole clip.

use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, RgbaImage};

use super::{CharacterFrame, Motion};
use crate::geom::{P3, V3};
use crate::mesh::Mesh;
use crate::raster::{render_framed, Scene, SceneJoint, ThumbnailView, ViewMap};
use crate::rig::{RigJoint, SkinTable};
use crate::skin::pose::deform;

/// Highest preview frame rate: faster clips (mocap is often 120 fps) are subsampled to it.
pub const MAX_PREVIEW_FPS: f64 = 30.0;

/// One posed frame in the character frame: vertices and joints.
pub struct PosedFrame {
    /// Deformed vertices (input vertex order), character frame, in place.
    pub positions: Vec<P3>,
    /// Posed joints (empty without the skeleton overlay), character frame, in place.
    pub joints: Vec<SceneJoint>,
}

/// Preview options.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewOptions {
    /// Image size and drawing options (both views side by side).
    pub view: ThumbnailView,
    /// Draw the skeleton over the mesh.
    pub skeleton: bool,
}

/// Indices of the motion's frames to show, at most [`MAX_PREVIEW_FPS`].
pub fn preview_frames(motion: &Motion) -> (Vec<usize>, f64) {
    preview_frames_at(motion, MAX_PREVIEW_FPS)
}

/// Indices of the motion's frames to show at most `max_fps` frames per second, and the time
/// between shown frames (seconds).
pub fn preview_frames_at(motion: &Motion, max_fps: f64) -> (Vec<usize>, f64) {
    // Round up, but not past a whole ratio that floating point misses by a hair (120 → 30 fps).
    let step = (1.0 / (motion.frame_time_s * max_fps) - 1e-3)
        .ceil()
        .max(1.0) as usize;
    let picked = (0..motion.frames.len()).step_by(step).collect();
    (picked, motion.frame_time_s * step as f64)
}

/// Render the picked frames (see [`preview_frames`]) of `motion` on `mesh` (input vertices, mesh
/// frame) with `skin` (one row per input vertex) and `joints`.
pub fn render_motion(
    mesh: &Mesh,
    joints: &[RigJoint],
    skin: &SkinTable,
    motion: &Motion,
    frame: &CharacterFrame,
    opts: &PreviewOptions,
) -> Vec<RgbaImage> {
    let (picked, _) = preview_frames(motion);
    let posed: Vec<PosedFrame> = picked
        .iter()
        .map(|&f| pose_frame(mesh, joints, skin, motion, f, frame, opts.skeleton))
        .collect();
    let map = framing(&posed, &opts.view);
    posed
        .iter()
        .map(|p| render_posed(mesh, p, &opts.view, &map))
        .collect()
}

/// One framing for all `posed` frames (so the character does not jump as its box changes).
pub fn framing(posed: &[PosedFrame], view: &ThumbnailView) -> ViewMap {
    ViewMap::fit(
        crate::raster::finite_bbox(
            posed
                .iter()
                .flat_map(|p| &p.positions)
                .map(|p| [p.x, p.y, p.z]),
        ),
        view.width.max(2),
        view.height.max(1),
    )
}

/// Draw one posed frame of `mesh` (its triangles) with the framing `map`.
pub fn render_posed(
    mesh: &Mesh,
    posed: &PosedFrame,
    view: &ThumbnailView,
    map: &ViewMap,
) -> RgbaImage {
    let scene = Scene {
        positions: &posed.positions,
        triangles: &mesh.triangles,
        joints: &posed.joints,
        heat: None,
        vertex_rgb: None,
        // Posed frames are in the character frame already (`pose_frame`).
        axes: crate::raster::ViewAxes::default(),
    };
    render_framed(&scene, view, map)
}

/// Frame `f` of `motion` on `mesh`, deformed by linear blend skinning with `skin`, in the
/// character frame and in place (the root's horizontal travel removed, so a walk stays in view).
pub fn pose_frame(
    mesh: &Mesh,
    joints: &[RigJoint],
    skin: &SkinTable,
    motion: &Motion,
    f: usize,
    frame: &CharacterFrame,
    skeleton: bool,
) -> PosedFrame {
    let mf = &motion.frames[f];
    let transforms = mf.transforms(joints);
    let up = frame.up_mesh();
    // In place: remove the horizontal part of the root's travel.
    let travel = mf.root_offset_mesh - up * up.dot(&mf.root_offset_mesh);
    let to_view = |p: V3| P3::from(frame.mesh_to_character * (p - travel));
    let positions = deform(&mesh.positions, skin, &transforms)
        .into_iter()
        .map(|p| to_view(p.coords))
        .collect();
    let joints = if skeleton {
        mf.joint_positions(joints)
            .into_iter()
            .zip(joints)
            .map(|(p, j)| SceneJoint {
                position: to_view(p).into(),
                parent: j.parent,
                pinned: false,
            })
            .collect()
    } else {
        Vec::new()
    };
    PosedFrame { positions, joints }
}

/// Encode frames as a looping GIF, `frame_time_s` per frame.
pub fn gif_bytes(frames: Vec<RgbaImage>, frame_time_s: f64) -> Result<Vec<u8>, image::ImageError> {
    let mut out = Vec::new();
    {
        let mut enc = GifEncoder::new_with_speed(&mut out, GIF_QUANTIZER_SPEED);
        enc.set_repeat(Repeat::Infinite)?;
        let ms = (frame_time_s * 1000.0).round().clamp(10.0, 60_000.0) as u32;
        enc.encode_frames(
            frames
                .into_iter()
                .map(|img| Frame::from_parts(img, 0, 0, Delay::from_numer_denom_ms(ms, 1))),
        )?;
    }
    Ok(out)
}

/// NeuQuant speed (1 best … 30 fastest): previews are flat-shaded, so a fast quantizer loses
/// nothing visible.
const GIF_QUANTIZER_SPEED: i32 = 10;
