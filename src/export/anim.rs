//! glTF animation and export names on top of a GLB written by [`super::glb`]: one animation with a
//! rotation channel per animated joint node and a translation channel on each root joint node
//! (linear interpolation, one key per motion frame), and optionally the joint nodes renamed by a
//! naming profile.
//!
//! This works on the finished GLB (parse, append, re-serialize) so the GLB writer stays the one
//! place that lays out meshes and skins. Joint nodes are found through the skin's joint list
//! (rig joint j is `skins[0].joints[j]`), else by name for a rig without weights.
//!
//! Why a joint node's rotation is the pose's local rotation: the GLB's joint nodes carry only the
//! translation `b_j − b_parent` and inverse bind matrix `T(−b_j)`; with node rotation `R_j` the
//! node's world matrix is `M_j = M_p·T(b_j − b_p)·R_j`, and by induction `M_j·T(−b_j)` equals the
//! pose's `G_j = G_p·T(b_j)·R_j·T(−b_j)` (see `skin::pose`).

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use super::glb::GlbError;
use super::glb_bin::{container, push_accessor, View};
use crate::motion::names::{export_name, NameProfile};
use crate::motion::retarget::labels_mirrored;
use crate::motion::{CharacterFrame, Motion};
use crate::rig::RigJoint;

/// Smallest rotation (radians) for a joint to count as animated.
const ANIMATED_RADIANS: f64 = 1e-6;

/// The rig's GLB (mesh, joints, skin; see [`super::glb::glb_bytes`]) with `motion` as an
/// animation and the joint nodes named by `profile` (rig.json keeps our names).
pub fn animated_glb(
    mesh: &crate::mesh::Mesh,
    rig: &crate::rig::Rig,
    motion: &Motion,
    profile: NameProfile,
) -> Result<Vec<u8>, GlbError> {
    let frame =
        CharacterFrame::from_label(&rig.orientation).map_err(|e| mismatch(e.to_string()))?;
    let mirrored = labels_mirrored(&rig.joints, &frame);
    let base = super::glb::glb_bytes(mesh, &rig.joints, rig.skin.as_ref())?;
    animate_glb(&base, &rig.joints, motion, &|n| {
        export_name(n, profile, mirrored)
    })
}

/// A parsed GLB: its JSON document and binary chunk.
struct Glb {
    root: json::Root,
    bin: Vec<u8>,
}

fn mismatch(msg: impl Into<String>) -> GlbError {
    GlbError::Mismatch(msg.into())
}

fn parse_glb(bytes: &[u8]) -> Result<Glb, GlbError> {
    let u32_at = |o: usize| -> Result<usize, GlbError> {
        let b = bytes
            .get(o..o + 4)
            .ok_or_else(|| mismatch("truncated GLB"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    if bytes.get(0..4) != Some(b"glTF") {
        return Err(mismatch("not a GLB file"));
    }
    let json_len = u32_at(12)?;
    let js = bytes
        .get(20..20 + json_len)
        .ok_or_else(|| mismatch("truncated GLB"))?;
    let root: json::Root =
        json::deserialize::from_slice(js).map_err(|e| GlbError::Json(e.to_string()))?;
    let bin_at = 20 + json_len;
    let bin = match bytes.get(bin_at..bin_at + 8) {
        Some(_) => {
            let len = u32_at(bin_at)?;
            bytes
                .get(bin_at + 8..bin_at + 8 + len)
                .ok_or_else(|| mismatch("truncated GLB"))?
                .to_vec()
        }
        None => Vec::new(),
    };
    Ok(Glb { root, bin })
}

fn write_glb(mut g: Glb) -> Result<Vec<u8>, GlbError> {
    while !g.bin.len().is_multiple_of(4) {
        g.bin.push(0);
    }
    if g.root.buffers.is_empty() {
        g.root.push(json::Buffer {
            byte_length: USize64(0),
            extensions: None,
            extras: Default::default(),
            name: None,
            uri: None,
        });
    }
    g.root.buffers[0].byte_length = USize64::from(g.bin.len());
    let js = json::serialize::to_vec(&g.root).map_err(|e| GlbError::Json(e.to_string()))?;
    container(js, g.bin)
}

impl Glb {
    /// Append `floats` as a buffer view (no target: animation data) and an accessor.
    fn accessor(
        &mut self,
        floats: &[f32],
        count: usize,
        type_: json::accessor::Type,
        bounds: bool,
    ) -> json::Index<json::Accessor> {
        let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        let bounds = bounds.then(|| {
            let lo = floats.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = floats.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            (vec![lo], vec![hi])
        });
        let view = View {
            buffer: json::Index::new(0),
            target: None,
        };
        push_accessor(
            &mut self.root,
            &mut self.bin,
            view,
            &bytes,
            count,
            json::accessor::ComponentType::F32,
            type_,
            bounds,
        )
    }
}

/// The node of every rig joint: the skin's joint list, else nodes named like the joints.
fn joint_nodes(root: &json::Root, joints: &[RigJoint]) -> Result<Vec<usize>, GlbError> {
    if let Some(skin) = root.skins.first() {
        if skin.joints.len() == joints.len() {
            return Ok(skin.joints.iter().map(|n| n.value()).collect());
        }
    }
    joints
        .iter()
        .map(|j| {
            root.nodes
                .iter()
                .position(|n| n.name.as_deref() == Some(j.name.as_str()))
                .ok_or_else(|| mismatch(format!("the GLB has no node for joint `{}`", j.name)))
        })
        .collect()
}

/// Add `motion` (on `joints`, the rig the GLB was written from) as an animation, and rename joint
/// nodes with `rename` (our name → export name).
pub fn animate_glb(
    glb: &[u8],
    joints: &[RigJoint],
    motion: &Motion,
    rename: &dyn Fn(&str) -> String,
) -> Result<Vec<u8>, GlbError> {
    let mut g = parse_glb(glb)?;
    let nodes = joint_nodes(&g.root, joints)?;
    for (j, &n) in nodes.iter().enumerate() {
        let node = &g.root.nodes[n];
        if node.rotation.is_some_and(|r| (r.0[3] - 1.0).abs() > 1e-6) || node.matrix.is_some() {
            return Err(mismatch(format!(
                "joint node `{}` has a rest rotation",
                joints[j].name
            )));
        }
    }
    let n = motion.frames.len();
    if n >= 2 {
        add_channels(&mut g, joints, motion, &nodes)?;
    }
    for (j, &node) in nodes.iter().enumerate() {
        g.root.nodes[node].name = Some(rename(&joints[j].name));
    }
    write_glb(g)
}

/// Add one animation to `g`: a rotation channel per animated joint node, then a translation
/// channel per root joint node, all keyed at every motion frame.
fn add_channels(
    g: &mut Glb,
    joints: &[RigJoint],
    motion: &Motion,
    nodes: &[usize],
) -> Result<(), GlbError> {
    use json::accessor::Type as T;
    use json::animation::Property;
    let n = motion.frames.len();
    let times: Vec<f32> = (0..n)
        .map(|f| (f as f64 * motion.frame_time_s) as f32)
        .collect();
    let input = g.accessor(&times, n, T::Scalar, true);
    let mut tracks = Tracks {
        input,
        frames: n,
        samplers: Vec::new(),
        channels: Vec::new(),
    };
    for (j, &node) in nodes.iter().enumerate().take(joints.len()) {
        let animated = motion.frames.iter().any(|f| {
            f.pose
                .rotations
                .get(j)
                .is_some_and(|q| q.angle() > ANIMATED_RADIANS)
        });
        if animated {
            let values = motion
                .frames
                .iter()
                .flat_map(|f| quat_f32(f.pose.rotations.get(j)))
                .collect();
            tracks.push(g, values, T::Vec4, node, Property::Rotation);
        }
    }
    for (j, joint) in joints.iter().enumerate() {
        if joint.parent.is_some_and(|p| p < joints.len() && p != j) {
            continue;
        }
        let rest = g.root.nodes[nodes[j]].translation.unwrap_or([0.0; 3]);
        let values = motion
            .frames
            .iter()
            .flat_map(|f| [0, 1, 2].map(|k| rest[k] + f.root_offset_mesh[k] as f32))
            .collect();
        tracks.push(g, values, T::Vec3, nodes[j], Property::Translation);
    }
    g.root.push(json::Animation {
        extensions: None,
        extras: Default::default(),
        channels: tracks.channels,
        name: Some(motion.name.clone()),
        samplers: tracks.samplers,
    });
    Ok(())
}

/// The samplers and channels of the animation being built; every sampler shares the key times
/// `input` (one key per frame), and channel k uses sampler k.
struct Tracks {
    input: json::Index<json::Accessor>,
    frames: usize,
    samplers: Vec<json::animation::Sampler>,
    channels: Vec<json::animation::Channel>,
}

impl Tracks {
    /// Append `values` (one `type_` per frame) as a linear sampler driving `path` of `node`.
    fn push(
        &mut self,
        g: &mut Glb,
        values: Vec<f32>,
        type_: json::accessor::Type,
        node: usize,
        path: json::animation::Property,
    ) {
        use json::animation::{Channel, Interpolation, Sampler, Target};
        let output = g.accessor(&values, self.frames, type_, false);
        self.samplers.push(Sampler {
            extensions: None,
            extras: Default::default(),
            input: self.input,
            interpolation: Valid(Interpolation::Linear),
            output,
        });
        self.channels.push(Channel {
            sampler: json::Index::new(self.samplers.len() as u32 - 1),
            target: Target {
                extensions: None,
                extras: Default::default(),
                node: json::Index::new(node as u32),
                path: Valid(path),
            },
            extensions: None,
            extras: Default::default(),
        });
    }
}

/// `[x, y, z, w]`, renormalized in `f32` (the validator checks unit length).
fn quat_f32(q: Option<&nalgebra::UnitQuaternion<f64>>) -> [f32; 4] {
    let Some(q) = q else {
        return [0.0, 0.0, 0.0, 1.0];
    };
    let c = q.coords;
    let v = [c[0] as f32, c[1] as f32, c[2] as f32, c[3] as f32];
    let len = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if len.is_finite() && len > 0.0 {
        v.map(|x| x / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}
