//! The demo characters' proportions: bones (joint positions) first, then a solid around them.
//!
//! Frame: +Y up, facing +Z, the character's left at +X (the template frame, docs/algorithms.md#frames); metres.

use super::implicit::{Primitive, Shape};
use crate::geom::{P3, V3};

/// A deterministic stream of numbers in [0, 1) from a seed (SplitMix64).
pub struct Rng(u64);

impl Rng {
    /// A stream for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x6765_7070_6574_746f)
    }
    /// Next value in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Next value in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// Named joints and the solid built around them.
pub struct Body {
    /// Joint names and positions, parent-first.
    pub joints: Vec<(String, P3)>,
    /// The character's solid.
    pub shape: Shape,
}

impl Body {
    fn new(blend: f64) -> Self {
        Self {
            joints: Vec::new(),
            shape: Shape {
                parts: Vec::new(),
                blend,
            },
        }
    }
    fn joint(&mut self, name: &str, p: P3) -> P3 {
        self.joints.push((name.to_owned(), p));
        p
    }
    fn capsule(&mut self, a: P3, b: P3, ra: f64, rb: f64) {
        self.shape.parts.push(Primitive::Capsule { a, b, ra, rb });
    }
    fn ellipsoid(&mut self, c: P3, r: V3) {
        self.shape.parts.push(Primitive::Ellipsoid { c, r });
    }
}

/// Mirror a point on the character's right (−X, where the parts are built) to its left (+X).
fn mirror(p: P3) -> P3 {
    P3::new(-p.x, p.y, p.z)
}

/// Departures from the plain humanoid, for test characters with known failure modes (cartoon ears,
/// stubby arms, a big head).
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// Arm length factor (1 = the seed's own).
    pub arm_scale: f64,
    /// Arm thickness factor (1 = the seed's own): the radii of the arm's capsules.
    pub arm_thickness: f64,
    /// Foot thickness factor (1 = the seed's own): the radii of the capsules below the ankle, so
    /// a thin, flat sole that the sphere graph does not reach.
    pub foot_thickness: f64,
    /// Direction of the right arm, template frame (`None`: sideways, 0 … 45° below horizontal by the
    /// seed); the left arm mirrors it.
    pub arm_dir: Option<V3>,
    /// Head size factor.
    pub head_scale: f64,
    /// Flat ears: semi-axes (width, height, half-thickness) of an ellipsoid on each side of the head,
    /// hanging down to the shoulders.
    pub ears: Option<V3>,
    /// A bulky plate on the right shoulder only (armour): semi-axes of an ellipsoid centred beside
    /// and above the right shoulder, sticking out sideways past the arm.
    pub shoulder_pad: Option<V3>,
}

impl Default for Variant {
    fn default() -> Self {
        Self {
            arm_scale: 1.0,
            arm_thickness: 1.0,
            foot_thickness: 1.0,
            arm_dir: None,
            head_scale: 1.0,
            ears: None,
            shoulder_pad: None,
        }
    }
}

/// A humanoid about 1.7 m tall. The seed varies height, leg and arm length, girth and the arm
/// angle (0° = T-pose … 45° = A-pose).
pub fn humanoid_body(seed: u64) -> Body {
    humanoid_variant_body(seed, &Variant::default())
}

/// [`humanoid_body`] with a [`Variant`]'s departures.
pub fn humanoid_variant_body(seed: u64, var: &Variant) -> Body {
    let mut rng = Rng::new(seed);
    let leg = rng.range(0.9, 1.1);
    let torso = rng.range(0.9, 1.1);
    let arm = rng.range(0.9, 1.12) * var.arm_scale;
    let girth = rng.range(0.85, 1.2);
    let angle = rng.range(0.0, 45.0_f64).to_radians();
    let hs = var.head_scale;
    let mut b = Body::new(0.05);
    let hips = b.joint("Hips", P3::new(0.0, 0.08 + 0.86 * leg, 0.0));
    b.joint("Spine", hips + V3::new(0.0, 0.12 * torso, 0.0));
    let spine1 = b.joint("Spine1", hips + V3::new(0.0, 0.24 * torso, 0.0));
    let spine2 = b.joint("Spine2", hips + V3::new(0.0, 0.38 * torso, 0.0));
    let neck = b.joint("Neck", hips + V3::new(0.0, 0.50 * torso, 0.0));
    let head = b.joint("Head", neck + V3::new(0.0, 0.09, 0.0));
    b.joint("HeadTop_End", head + V3::new(0.0, 0.2 * hs, 0.0));
    b.ellipsoid(
        hips + V3::new(0.0, 0.02, 0.0),
        V3::new(0.16, 0.12, 0.11) * girth,
    );
    b.capsule(hips, spine1, 0.13 * girth, 0.13 * girth);
    b.ellipsoid(spine2, V3::new(0.19, 0.15, 0.115) * girth);
    b.capsule(spine2, neck, 0.09 * girth, 0.05);
    b.capsule(neck, head, 0.05, 0.05);
    b.ellipsoid(
        head + V3::new(0.0, 0.1 * hs, 0.015),
        V3::new(0.095, 0.12, 0.105) * hs,
    );
    if let Some(e) = var.ears {
        for s in [-1.0, 1.0] {
            // Hanging from the side of the head down to the shoulders, flat in z.
            let c = head + V3::new(s * (0.06 * hs + e.x), 0.1 * hs - e.y * 0.8, 0.0);
            b.ellipsoid(c, e);
        }
    }
    let dir = var
        .arm_dir
        .map_or(V3::new(-angle.cos(), -angle.sin(), 0.0), |d| d.normalize());
    humanoid_arms(&mut b, var, spine2, (torso, girth, arm), dir);
    humanoid_legs(&mut b, hips, (leg, girth), var.foot_thickness);
    b
}

/// Both arms from the upper spine `spine2` along `dir` (the right arm's; the left one mirrored),
/// shoulder to hand tip, with the variant's shoulder pad on the right. `(torso, girth, arm)`: the
/// seed's proportions.
fn humanoid_arms(
    b: &mut Body,
    var: &Variant,
    spine2: P3,
    (torso, girth, arm): (f64, f64, f64),
    dir: V3,
) {
    for side in [Side::Right, Side::Left] {
        let m = |p: P3| if side == Side::Right { p } else { mirror(p) };
        let n = side.name();
        let shoulder = b.joint(
            &format!("{n}Shoulder"),
            m(spine2 + V3::new(-0.07, 0.06 * torso, 0.0)),
        );
        let upper = m(spine2 + V3::new(-0.19 * girth.sqrt(), 0.08 * torso, 0.0));
        let arm_j = b.joint(&format!("{n}Arm"), upper);
        let d = if side == Side::Right {
            dir
        } else {
            V3::new(-dir.x, dir.y, dir.z)
        };
        let elbow = b.joint(&format!("{n}ForeArm"), arm_j + d * 0.28 * arm);
        let wrist = b.joint(&format!("{n}Hand"), elbow + d * 0.25 * arm);
        let tip = b.joint(&format!("{n}Hand_End"), wrist + d * 0.17 * var.arm_scale);
        if let (Some(pad), Side::Right) = (var.shoulder_pad, side) {
            // Resting on the shoulder, reaching out beyond it by most of its width.
            b.ellipsoid(upper + V3::new(-0.6 * pad.x, 0.5 * pad.y, 0.0), pad);
        }
        let t = var.arm_thickness;
        b.capsule(shoulder, arm_j, 0.06 * girth * t, 0.055 * girth * t);
        b.capsule(arm_j, elbow, 0.052 * girth * t, 0.042 * girth * t);
        b.capsule(elbow, wrist, 0.044 * girth * t, 0.04 * t);
        b.capsule(wrist, tip, 0.042 * t, 0.038 * t);
    }
}

/// Both legs from `hips`, thigh to toe tip; `leg` and `girth`: the seed's proportions; `foot`:
/// the foot's thickness factor.
fn humanoid_legs(b: &mut Body, hips: P3, (leg, girth): (f64, f64), foot: f64) {
    for side in [Side::Right, Side::Left] {
        let m = |p: P3| if side == Side::Right { p } else { mirror(p) };
        let n = side.name();
        let hip = b.joint(&format!("{n}UpLeg"), m(hips + V3::new(-0.095, -0.03, 0.0)));
        let knee = b.joint(
            &format!("{n}Leg"),
            m(P3::new(-0.1, 0.08 + 0.45 * leg, 0.015)),
        );
        let ankle = b.joint(&format!("{n}Foot"), m(P3::new(-0.105, 0.09, -0.01)));
        let toe = b.joint(&format!("{n}ToeBase"), m(P3::new(-0.105, 0.035, 0.11)));
        let toe_end = b.joint(&format!("{n}Toe_End"), m(P3::new(-0.105, 0.035, 0.18)));
        b.capsule(hip, knee, 0.085 * girth, 0.058 * girth);
        b.capsule(knee, ankle, 0.055 * girth, 0.042);
        b.capsule(ankle, toe, 0.048 * foot, 0.042 * foot);
        b.capsule(toe, toe_end, 0.042 * foot, 0.038 * foot);
    }
}

/// A four-legged animal about 1.2 m long, head at +Z. The seed varies body length, leg length,
/// girth, neck angle and tail length.
pub fn quadruped_body(seed: u64) -> Body {
    let mut rng = Rng::new(seed.wrapping_add(0x5155_4144));
    let length = rng.range(0.85, 1.15);
    let leg = rng.range(0.85, 1.2);
    let girth = rng.range(0.85, 1.2);
    let neck_up = rng.range(0.6, 1.2);
    let tail = rng.range(0.8, 1.3);
    let mut b = Body::new(0.06);
    let y = 0.08 + 0.62 * leg;
    let half = 0.42 * length;
    let hips = b.joint("Hips", P3::new(0.0, y, -half));
    let spine = b.joint("Spine", P3::new(0.0, y + 0.02, -half / 3.0));
    let spine1 = b.joint("Spine1", P3::new(0.0, y + 0.02, half / 3.0));
    let chest = b.joint("Chest", P3::new(0.0, y + 0.02, half));
    let neck = b.joint("Neck", chest + V3::new(0.0, 0.22 * neck_up, 0.14));
    let head = b.joint("Head", neck + V3::new(0.0, 0.1 * neck_up, 0.1));
    let snout = b.joint("HeadTop_End", head + V3::new(0.0, -0.02, 0.24));
    b.ellipsoid(
        P3::new(0.0, y + 0.02, 0.0),
        V3::new(0.2 * girth, 0.21 * girth, half + 0.12),
    );
    b.capsule(hips, chest, 0.17 * girth, 0.19 * girth);
    b.capsule(chest, neck, 0.12 * girth, 0.085);
    b.capsule(neck, head, 0.08, 0.08);
    b.ellipsoid(head + V3::new(0.0, 0.0, 0.08), V3::new(0.085, 0.1, 0.16));
    b.capsule(head, snout, 0.07, 0.045);
    let _ = (spine, spine1);
    for (end, z) in [("Front", half), ("Hind", -half)] {
        for side in [Side::Right, Side::Left] {
            let m = |p: P3| if side == Side::Right { p } else { mirror(p) };
            let n = side.name();
            let hip = b.joint(
                &format!("{n}{end}UpLeg"),
                m(P3::new(-0.12 * girth, y - 0.05, z)),
            );
            let knee = b.joint(
                &format!("{n}{end}Leg"),
                m(P3::new(-0.13 * girth, 0.08 + 0.33 * leg, z)),
            );
            let foot = b.joint(&format!("{n}{end}Foot"), m(P3::new(-0.13 * girth, 0.07, z)));
            let toe = b.joint(
                &format!("{n}{end}Toe_End"),
                m(P3::new(-0.13 * girth, 0.035, z + 0.08)),
            );
            b.capsule(hip, knee, 0.08 * girth, 0.055);
            b.capsule(knee, foot, 0.05, 0.04);
            b.capsule(foot, toe, 0.045, 0.042);
        }
    }
    let tail_root = b.joint("Tail", hips + V3::new(0.0, 0.05, -0.12));
    let tail_end = b.joint("Tail_End", tail_root + V3::new(0.0, -0.12, -0.3 * tail));
    b.capsule(tail_root, tail_end, 0.055, 0.042);
    b
}

/// Character side.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Left => "Left",
            Side::Right => "Right",
        }
    }
}
