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
struct Posed {
    positions: Vec<P3>,
    joints: Vec<SceneJoint>,
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
    // Round up, but not past a whole ratio that floating point misses by a hair (120 → 30 fps).
    let step = (1.0 / (motion.frame_time_s * MAX_PREVIEW_FPS) - 1e-3)
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
    let posed: Vec<Posed> = picked
        .iter()
        .map(|&f| pose_frame(mesh, joints, skin, motion, f, frame, opts.skeleton))
        .collect();
    let map = ViewMap::fit(
        crate::raster::finite_bbox(
            posed
                .iter()
                .flat_map(|p| &p.positions)
                .map(|p| [p.x, p.y, p.z]),
        ),
        opts.view.width.max(2),
        opts.view.height.max(1),
    );
    posed
        .iter()
        .map(|p| {
            let scene = Scene {
                positions: &p.positions,
                triangles: &mesh.triangles,
                joints: &p.joints,
                heat: None,
            };
            render_framed(&scene, &opts.view, &map)
        })
        .collect()
}

fn pose_frame(
    mesh: &Mesh,
    joints: &[RigJoint],
    skin: &SkinTable,
    motion: &Motion,
    f: usize,
    frame: &CharacterFrame,
    skeleton: bool,
) -> Posed {
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
    Posed { positions, joints }
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
