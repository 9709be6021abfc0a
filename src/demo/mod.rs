//! Procedurally generated demo characters (humanoid, quadruped) for `geppetto demo`, the README's
//! first command, and for tests that need meshes with known proportions.
//!
//! Each character is a smooth union of capsules and ellipsoids around its own bones
//! ([`characters`]), polygonized by marching tetrahedra ([`polygonize`]) into a single watertight,
//! manifold, outward-oriented triangle mesh. Everything is deterministic from the seed.
//! Frame: +Y up, facing +Z, the character's left at +X (the template frame, docs/algorithms.md#frames); metres.

pub mod characters;
pub mod implicit;
pub mod polygonize;

use std::path::{Path, PathBuf};

use crate::geom::P3;
use crate::mesh::Mesh;

/// Grid spacing of the humanoid's polygonization, metres (~10k vertices).
const HUMANOID_STEP: f64 = 0.028;
/// Grid spacing of the quadruped's polygonization, metres (~10k vertices).
const QUADRUPED_STEP: f64 = 0.032;

/// A generated character with the generator's own bone positions.
#[derive(Clone, Debug)]
pub struct DemoCharacter {
    /// File stem, e.g. `demo_humanoid`.
    pub name: String,
    /// The watertight surface (mesh frame = metres, +Y up, facing +Z).
    pub mesh: Mesh,
    /// The skeleton template that fits: `"human"` or `"quadruped"`.
    pub skeleton: &'static str,
    /// Bone positions by template joint name (Hips, Spine, …, LeftArm, …), parent-first.
    pub joints: Vec<(String, P3)>,
}

impl DemoCharacter {
    /// Position of the named joint.
    pub fn joint(&self, name: &str) -> Option<P3> {
        self.joints.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
    }
}

fn build(name: &str, skeleton: &'static str, body: characters::Body, step: f64) -> DemoCharacter {
    let shape = body.shape;
    let mesh = polygonize::polygonize(|p| shape.eval(p), &shape.bounds(), step);
    DemoCharacter {
        name: name.to_owned(),
        mesh,
        skeleton,
        joints: body.joints,
    }
}

/// A humanoid (~1.7 m). The seed varies proportions and the arm angle (T-pose … A-pose).
pub fn humanoid(seed: u64) -> DemoCharacter {
    build(
        "demo_humanoid",
        "human",
        characters::humanoid_body(seed),
        HUMANOID_STEP,
    )
}

/// A humanoid with a [`characters::Variant`]'s departures (named `demo_humanoid_variant`), polygonized
/// finer so thin parts (flat ears) keep an interior.
pub fn humanoid_variant(seed: u64, var: &characters::Variant) -> DemoCharacter {
    humanoid_variant_at(seed, var, VARIANT_STEP)
}

/// [`humanoid_variant`] polygonized with grid spacing `step` (metres): finer for thinner parts.
pub fn humanoid_variant_at(seed: u64, var: &characters::Variant, step: f64) -> DemoCharacter {
    build(
        "demo_humanoid_variant",
        "human",
        characters::humanoid_variant_body(seed, var),
        step,
    )
}

/// Grid spacing for [`humanoid_variant`], metres (~25k vertices).
const VARIANT_STEP: f64 = 0.018;

/// A quadruped (~1.2 m long, head at +Z). The seed varies proportions.
pub fn quadruped(seed: u64) -> DemoCharacter {
    build(
        "demo_quadruped",
        "quadruped",
        characters::quadruped_body(seed),
        QUADRUPED_STEP,
    )
}

/// Seed used for the characters [`write_demo_folder`] writes.
pub const DEFAULT_SEED: u64 = 1;

/// Write `demo_humanoid.obj` and `demo_quadruped.obj` (seed [`DEFAULT_SEED`]) into `dir`,
/// creating it, and return their paths. Writes are atomic. An existing file is never overwritten:
/// one with the same content is simply reused, and one with different content (the user edited
/// it, or an older Geppetto wrote it) is left as it is and its path returned all the same, so a
/// repeated `geppetto demo` never fails and never destroys work.
pub fn write_demo_folder(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::new();
    for c in [humanoid(DEFAULT_SEED), quadruped(DEFAULT_SEED)] {
        let path = dir.join(format!("{}.obj", c.name));
        let text = crate::mesh::write::obj_string(&c.mesh);
        match std::fs::metadata(&path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                crate::util::write_atomic(&path, text.as_bytes())?;
            }
            Err(e) => return Err(e),
        }
        out.push(path);
    }
    Ok(out)
}
