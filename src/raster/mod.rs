//! Thumbnails: a small software rasterizer (z-buffer, Lambert shading) drawing the mesh in two
//! orthographic views side by side — front (facing the character, its left to the right, up up)
//! and side (from its right, forward to the right), in the frame the rig records — with the
//! skeleton drawn over it: bones as lines, joints as dots, the
//! selected joint highlighted and, on request, the selected joint's skin weights as a heat map.
//!
//! Both views share one scale (pixels per mesh unit) so proportions compare. Everything is
//! deterministic: golden-image tests compare pixels with a tolerance.

pub mod draw;
#[cfg(any(test, feature = "test-support"))]
pub mod figure;
pub mod handle;
pub mod parts;
mod view_map;

pub use view_map::{ViewAxes, ViewKind, ViewMap};

use std::path::Path;

use image::RgbaImage;

use crate::geom::P3;
use crate::mesh::Mesh;
use crate::rig::Rig;
use draw::{Canvas, SVert};

/// Background colour.
pub const BACKGROUND: [u8; 4] = [24, 26, 32, 255];
const BONE: [u8; 4] = [255, 214, 64, 255];
const JOINT: [u8; 4] = [255, 140, 30, 255];
const SELECTED: [u8; 4] = [64, 255, 255, 255];
const PINNED: [u8; 4] = [255, 64, 200, 255];
const DRAFT: [u8; 4] = [255, 255, 255, 255];
const BASE: [f32; 3] = [0.62, 0.66, 0.74];

/// A joint to draw, mesh frame.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneJoint {
    /// Position, mesh frame.
    pub position: [f64; 3],
    /// Parent index.
    pub parent: Option<usize>,
    /// Pinned by a hint.
    pub pinned: bool,
}

/// What to draw: a mesh (mesh frame), joints, optional per-vertex heat in [0, 1].
#[derive(Clone, Copy, Debug)]
pub struct Scene<'a> {
    /// One entry per vertex.
    pub positions: &'a [P3],
    /// Triangles (indices into `positions`; out-of-range ones are skipped).
    pub triangles: &'a [[u32; 3]],
    /// Joints.
    pub joints: &'a [SceneJoint],
    /// One heat value per vertex (the selected joint's weight), or none.
    pub heat: Option<&'a [f32]>,
    /// One base colour per vertex (a multipart rig's bone colours, see [`parts`]), or none (grey).
    pub vertex_rgb: Option<&'a [[f32; 3]]>,
    /// Which way the character stands in the mesh frame (the views' camera frame).
    pub axes: ViewAxes,
}

/// How to draw: size, selection, heat map, a draft joint position being edited.
#[derive(Clone, Debug, PartialEq)]
pub struct ThumbnailView {
    /// Image width in pixels (both views).
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Selected joint.
    pub selected: Option<usize>,
    /// Show the selected joint's weights.
    pub heat: bool,
    /// A joint position being edited (mesh frame), drawn as a white ring.
    pub draft: Option<[f64; 3]>,
    /// The selected joint's influence-range handle and the virtual bones it shapes.
    pub handle: Option<handle::RangeHandle>,
}

impl Default for ThumbnailView {
    fn default() -> Self {
        Self {
            width: 320,
            height: 200,
            selected: None,
            heat: false,
            draft: None,
            handle: None,
        }
    }
}

/// Render `scene` as two views side by side; returns the image and its mapping.
pub fn render(scene: &Scene<'_>, view: &ThumbnailView) -> (RgbaImage, ViewMap) {
    let (w, h) = (view.width.max(2), view.height.max(1));
    let map = ViewMap::fit_axes(bbox_of(scene), scene.axes, w, h);
    (render_framed(scene, view, &map), map)
}

/// Render `scene` with a given framing (animation frames share one, so the character does not
/// jump as its bounding box changes); `map`'s size is the image size.
pub fn render_framed(scene: &Scene<'_>, view: &ThumbnailView, map: &ViewMap) -> RgbaImage {
    let (w, h) = (map.width.max(2), map.height.max(1));
    let map = *map;
    let mut canvas = Canvas::new(w, h, BACKGROUND);
    let half = w / 2;
    for (kind, clip) in [(ViewKind::Front, (0, half)), (ViewKind::Side, (half, w))] {
        draw_mesh(&mut canvas, scene, &map, kind, clip, view.heat);
    }
    for kind in [ViewKind::Front, ViewKind::Side] {
        draw_skeleton(&mut canvas, scene, &map, kind, view);
    }
    // A thin divider between the views.
    canvas.line(
        (half as f32, 0.0),
        (half as f32, h as f32),
        1.0,
        [60, 64, 76, 255],
    );
    canvas.img
}

fn bbox_of(scene: &Scene<'_>) -> [[f64; 3]; 2] {
    finite_bbox(
        scene
            .positions
            .iter()
            .map(|p| [p.x, p.y, p.z])
            .chain(scene.joints.iter().map(|j| j.position)),
    )
}

/// Bounding box `[min, max]` of the finite points (non-finite ones are skipped); the box
/// [-1, 1]³ when there is none, so a camera can always be placed.
pub fn finite_bbox(points: impl Iterator<Item = [f64; 3]>) -> [[f64; 3]; 2] {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points.filter(|p| p.iter().all(|c| c.is_finite())) {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    if lo[0] > hi[0] {
        return [[-1.0; 3], [1.0; 3]];
    }
    [lo, hi]
}

/// Lambert shading with the light at the viewer (slightly above), two-sided so inconsistent
/// winding still shades; heat blends from the base grey to red.
fn draw_mesh(
    c: &mut Canvas,
    s: &Scene<'_>,
    map: &ViewMap,
    kind: ViewKind,
    clip: (u32, u32),
    heat: bool,
) {
    // The light, in the camera frame (left, up, forward): at the viewer, a little above.
    let light = match kind {
        ViewKind::Front => [-0.45, 0.5, 1.0],
        ViewKind::Side => [-1.0, 0.5, 0.45],
    };
    let ln = norm3(map.axes.to_mesh(light));
    for t in s.triangles {
        let Some(p) = tri_points(s.positions, t) else {
            continue;
        };
        let n = norm3(cross(sub(p[1], p[0]), sub(p[2], p[0])));
        let lambert = 0.25 + 0.75 * dot(n, ln).abs() as f32;
        let mut sv = [SVert {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            rgb: [0.0; 3],
        }; 3];
        for k in 0..3 {
            let (x, y) = map.project(p[k], kind);
            let depth = map.depth(p[k], kind);
            let base = match (heat, s.heat, s.vertex_rgb) {
                (true, Some(hv), _) => heat_colour(hv.get(t[k] as usize).copied().unwrap_or(0.0)),
                (_, _, Some(rgb)) => rgb.get(t[k] as usize).copied().unwrap_or(BASE),
                _ => BASE,
            };
            sv[k] = SVert {
                x,
                y,
                z: depth as f32,
                rgb: base.map(|b| b * lambert),
            };
        }
        c.triangle(sv, clip);
    }
}

fn tri_points(pos: &[P3], t: &[u32; 3]) -> Option<[[f64; 3]; 3]> {
    let g = |i: u32| pos.get(i as usize).map(|p| [p.x, p.y, p.z]);
    Some([g(t[0])?, g(t[1])?, g(t[2])?])
}

/// Weight → colour: blue (0) through green and yellow to red (1).
pub fn heat_colour(w: f32) -> [f32; 3] {
    // NaN compares false everywhere and would survive `clamp`: draw it as no weight.
    let w = if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) };
    let stops = [
        [0.15, 0.2, 0.7],
        [0.1, 0.75, 0.3],
        [0.95, 0.9, 0.15],
        [0.95, 0.15, 0.1],
    ];
    let f = w * 3.0;
    let i = (f.floor() as usize).min(2);
    let t = f - i as f32;
    let (a, b) = (stops[i], stops[i + 1]);
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t)
}

fn draw_skeleton(
    c: &mut Canvas,
    s: &Scene<'_>,
    map: &ViewMap,
    kind: ViewKind,
    view: &ThumbnailView,
) {
    let px = (f64::from(view.height) / 100.0).max(1.0) as f32;
    for j in s.joints {
        if let Some(parent) = j.parent.and_then(|p| s.joints.get(p)) {
            c.line(
                map.project(parent.position, kind),
                map.project(j.position, kind),
                px,
                BONE,
            );
        }
    }
    for (i, j) in s.joints.iter().enumerate() {
        let colour = if j.pinned { PINNED } else { JOINT };
        c.disc(map.project(j.position, kind), 1.2 * px, colour);
        if view.selected == Some(i) {
            c.disc(map.project(j.position, kind), 2.4 * px, SELECTED);
        }
    }
    if let Some(h) = &view.handle {
        handle::draw(c, map, kind, h, px);
    }
    if let Some(d) = view.draft {
        let (x, y) = map.project(d, kind);
        c.disc((x, y), 3.0 * px, DRAFT);
        c.disc((x, y), 1.8 * px, SELECTED);
    }
}

/// The joints of a rig as scene joints (pinned = named by one of the rig's hints).
pub fn scene_joints(rig: &Rig) -> Vec<SceneJoint> {
    rig.joints
        .iter()
        .map(|j| SceneJoint {
            position: j.position,
            parent: j.parent,
            pinned: rig.hints.iter().any(|h| h.joint == j.name),
        })
        .collect()
}

/// Per-input-vertex weight of joint `joint` from the rig's skin table (`None` without weights).
pub fn joint_heat(rig: &Rig, joint: usize) -> Option<Vec<f32>> {
    let table = rig.skin.as_ref()?;
    Some(
        table
            .iter()
            .map(|row| {
                row.iter()
                    .find(|(j, _)| *j as usize == joint)
                    .map_or(0.0, |(_, w)| *w as f32)
            })
            .collect(),
    )
}

/// Render a rig over its input mesh (both mesh frame).
pub fn render_rig(mesh: &Mesh, rig: &Rig, view: &ThumbnailView) -> (RgbaImage, ViewMap) {
    let joints = scene_joints(rig);
    let heat = match (view.heat, view.selected) {
        (true, Some(j)) => joint_heat(rig, j),
        _ => None,
    };
    let bone_rgb = parts::vertex_bone_colours(rig, BASE);
    let scene = Scene {
        positions: &mesh.positions,
        triangles: &mesh.triangles,
        joints: &joints,
        heat: heat.as_deref(),
        vertex_rgb: bone_rgb.as_deref(),
        axes: ViewAxes::of_label(&rig.orientation),
    };
    render(&scene, view)
}

/// Encode an image as PNG bytes.
pub fn png_bytes(img: &RgbaImage) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    img.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .map_err(std::io::Error::other)?;
    Ok(bytes)
}

/// Render a rig and write it as PNG, atomically.
pub fn write_thumbnail(
    mesh: &Mesh,
    rig: &Rig,
    view: &ThumbnailView,
    path: &Path,
) -> std::io::Result<()> {
    let (img, _) = render_rig(mesh, rig, view);
    crate::util::write_atomic(path, &png_bytes(&img)?)
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn norm3(a: [f64; 3]) -> [f64; 3] {
    let l = dot(a, a).sqrt();
    if l > 0.0 {
        a.map(|c| c / l)
    } else {
        [0.0, 0.0, 1.0]
    }
}

#[cfg(test)]
mod tests;
