//! Motion on real rigs: the corpus CMU walk retargeted onto a rigged demo humanoid and a rigged
//! corpus biped, built-in cycles on a demo humanoid and quadruped. Checks that can fail: no NaN,
//! every bone keeps its length each frame, the skinned mesh's feet never sink below the rest
//! floor by more than 2 % of the height, the animated GLB has ≥ 15 animated joints, reads back
//! with the `gltf` crate with its channels, and passes the Khronos validator.

mod skin_common;

use skin_common::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use geppetto::config::RigConfig;
use geppetto::mesh::{write_obj, Mesh};
use geppetto::motion::names::NameProfile;
use geppetto::motion::procedural::Clip;
use geppetto::motion::{bone_lengths, motion_for, CharacterFrame, Motion, MotionSource};
use geppetto::pipeline::{Pipeline, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::Rig;
use geppetto::skin::pose::deform;

/// Largest allowed sinking of the feet below the rest floor, relative to the character's height
/// (the acceptance rule).
const SINK_TOLERANCE: f64 = 0.02;
/// Bone lengths are preserved exactly by construction; allow float rounding only.
const BONE_LENGTH_TOLERANCE: f64 = 1e-6;
/// Fewest animated joints in the GLB of a human walk (the rule: an action on ≥ 15 bones).
const MIN_ANIMATED_JOINTS: usize = 15;

fn rig_mesh(path: &Path, skeleton: &str) -> (Rig, Mesh) {
    let skel = Arc::new(geppetto::skeleton::load_template(skeleton).expect("template"));
    let req = RigRequest::with_sidecar(path, skel).expect("request");
    let out = Pipeline::new(RigConfig::default())
        .rig(&req, &NoProgress)
        .expect("rig");
    (out.rig, out.prepared.input.clone())
}

fn rig_demo(dir: &Path, c: &geppetto::demo::DemoCharacter) -> (Rig, Mesh) {
    let path = dir.join(format!("{}.obj", c.name));
    write_obj(&c.mesh, &path).expect("write obj");
    rig_mesh(&path, c.skeleton)
}

fn walk_clip() -> Option<PathBuf> {
    let p = common::corpus()?.join("motion/cmu_02_01_walk.bvh");
    if p.exists() {
        Some(p)
    } else {
        common::skip(format!("{} missing", p.display()));
        None
    }
}

/// No NaN, bone lengths kept, skinned feet above the floor; returns the deepest sinking (relative).
fn check_motion(label: &str, rig: &Rig, mesh: &Mesh, motion: &Motion) -> f64 {
    let frame = CharacterFrame::from_label(&rig.orientation).expect("orientation");
    let up = frame.up_mesh();
    let rest: Vec<_> = rig.joints.iter().map(|j| j.position.into()).collect();
    let rest_lengths = bone_lengths(&rig.joints, &rest);
    let height_of = |ps: &[geppetto::geom::P3]| {
        let h: Vec<f64> = ps.iter().map(|p| p.coords.dot(&up)).collect();
        let lo = h.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = h.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi - lo)
    };
    let (floor, height) = height_of(&mesh.positions);
    let skin = rig.skin.as_ref().expect("skin");
    let mut worst: f64 = 0.0;
    assert!(motion.frames.len() >= 2, "{label}: no frames");
    for (f, mf) in motion.frames.iter().enumerate() {
        let posed = mf.joint_positions(&rig.joints);
        assert!(
            posed.iter().all(|p| p.iter().all(|c| c.is_finite())),
            "{label}: NaN joint at frame {f}"
        );
        for (j, (a, b)) in bone_lengths(&rig.joints, &posed)
            .iter()
            .zip(&rest_lengths)
            .enumerate()
        {
            assert!(
                (a - b).abs() <= BONE_LENGTH_TOLERANCE * b.max(height * 1e-3),
                "{label}: bone {} changes length at frame {f}: {b} -> {a}",
                rig.joints[j].name
            );
        }
        let verts = deform(&mesh.positions, skin, &mf.transforms(&rig.joints));
        assert!(
            verts.iter().all(|p| p.iter().all(|c| c.is_finite())),
            "{label}: NaN vertex at frame {f}"
        );
        let (low, _) = height_of(&verts);
        worst = worst.max((floor - low) / height);
    }
    println!(
        "{label}: {} frames, deepest sinking {:.4} of the height",
        motion.frames.len(),
        worst
    );
    assert!(
        worst <= SINK_TOLERANCE,
        "{label}: feet sink {worst:.4} of the height below the floor"
    );
    worst
}

/// Write the animated GLB, read it back with `gltf`, count animated joints; returns the path.
fn check_glb(
    label: &str,
    dir: &Path,
    rig: &Rig,
    mesh: &Mesh,
    motion: &Motion,
    profile: NameProfile,
) -> PathBuf {
    let bytes = geppetto::export::anim::animated_glb(mesh, rig, motion, profile).expect("glb");
    let path = dir.join(format!("{label}.glb"));
    std::fs::write(&path, &bytes).expect("write");
    let (doc, buffers, _) = gltf::import(&path).expect("gltf reads the animated GLB");
    let anim = doc.animations().next().expect("an animation");
    let mut rotated = std::collections::BTreeSet::new();
    let mut translated = 0;
    for ch in anim.channels() {
        let reader = ch.reader(|b| Some(&buffers[b.index()]));
        let times: Vec<f32> = reader.read_inputs().expect("inputs").collect();
        assert_eq!(
            times.len(),
            motion.frames.len(),
            "{label}: one key per frame"
        );
        match reader.read_outputs().expect("outputs") {
            gltf::animation::util::ReadOutputs::Rotations(r) => {
                let q: Vec<[f32; 4]> = r.into_f32().collect();
                assert!(q
                    .iter()
                    .all(|q| (q.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5));
                rotated.insert(ch.target().node().name().unwrap_or_default().to_owned());
            }
            gltf::animation::util::ReadOutputs::Translations(_) => translated += 1,
            _ => panic!("{label}: unexpected channel"),
        }
    }
    assert!(translated >= 1, "{label}: no root translation channel");
    println!("{label}: {} animated joints", rotated.len());
    assert!(
        rotated.len() >= MIN_ANIMATED_JOINTS,
        "{label}: only {} animated joints: {rotated:?}",
        rotated.len()
    );
    if profile == NameProfile::Vrm {
        let names: Vec<String> = doc
            .nodes()
            .filter_map(|n| n.name().map(str::to_owned))
            .collect();
        for req in geppetto::motion::names::REQUIRED_HUMANOID {
            assert!(
                names.iter().any(|n| n == req),
                "{label}: VRM bone {req} missing"
            );
        }
    }
    path
}

#[test]
fn corpus_walk_on_demo_humanoid_and_corpus_biped() {
    let Some(clip) = walk_clip() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut glbs = Vec::new();
    let demo = geppetto::demo::humanoid(geppetto::demo::DEFAULT_SEED);
    let mut rigs = vec![("demo_humanoid".to_owned(), rig_demo(dir.path(), &demo))];
    if let Some(sveta) = common::corpus_mesh("sveta") {
        rigs.push(("sveta".to_owned(), rig_mesh(&sveta, "human")));
    }
    for (i, (label, (rig, mesh))) in rigs.iter().enumerate() {
        let motion = motion_for(rig, &MotionSource::Bvh(clip.clone())).expect("retarget");
        check_motion(label, rig, mesh, &motion);
        let profile = if i == 0 {
            NameProfile::Vrm
        } else {
            NameProfile::Mixamo
        };
        glbs.push(check_glb(label, dir.path(), rig, mesh, &motion, profile));
    }
    if let Some((ok, report)) = skin_common::gltf_validator(&glbs) {
        assert!(ok, "glTF validator: {report}");
    }
}

#[test]
fn builtin_cycles_on_demo_characters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let human = geppetto::demo::humanoid(2);
    let (rig, mesh) = rig_demo(dir.path(), &human);
    let mut glbs = Vec::new();
    for clip in [Clip::Walk, Clip::Wave, Clip::Squat] {
        let motion = motion_for(&rig, &MotionSource::Clip(clip)).expect("clip");
        check_motion(clip.name(), &rig, &mesh, &motion);
        let bytes = geppetto::export::anim::animated_glb(&mesh, &rig, &motion, NameProfile::Unity)
            .expect("glb");
        let path = dir.path().join(format!("{}.glb", clip.name()));
        std::fs::write(&path, bytes).expect("write");
        glbs.push(path);
    }
    // The squat really bends: the hips come down by a tenth of the height or more.
    let squat = motion_for(&rig, &MotionSource::Clip(Clip::Squat)).expect("squat");
    let frame = CharacterFrame::from_label(&rig.orientation).expect("orientation");
    let drop = squat
        .frames
        .iter()
        .map(|f| -f.root_offset_mesh.dot(&frame.up_mesh()))
        .fold(0.0, f64::max);
    assert!(drop > 0.1 * rig.max_extent(), "squat hips drop only {drop}");
    assert!(
        motion_for(&rig, &MotionSource::Clip(Clip::Trot)).is_err(),
        "trot needs a quadruped"
    );

    let quad = geppetto::demo::quadruped(1);
    let (qrig, qmesh) = rig_demo(dir.path(), &quad);
    let trot = motion_for(&qrig, &MotionSource::Clip(Clip::Walk)).expect("walk on a quadruped");
    assert_eq!(trot.name, "trot");
    if let Some(clip) = walk_clip() {
        let err =
            motion_for(&qrig, &MotionSource::Bvh(clip)).expect_err("human clip on a quadruped");
        assert!(err.to_string().contains("trot"), "{err}");
    }
    check_motion("trot", &qrig, &qmesh, &trot);
    if let Some((ok, report)) = skin_common::gltf_validator(&glbs) {
        assert!(ok, "glTF validator: {report}");
    }
}

#[test]
fn bad_clip_fails_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("broken.bvh");
    std::fs::write(&path, "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 x\n}\n").expect("write");
    let rig = Rig {
        orientation: "+Y up, +Z forward".into(),
        ..Rig::default()
    };
    let err = motion_for(&rig, &MotionSource::Bvh(path))
        .expect_err("broken clip")
        .to_string();
    assert!(
        err.contains("broken.bvh:4:") && err.contains("`x`"),
        "{err}"
    );
}

/// A clip whose joints share no names with any rig (no feet, toes or upper legs) says so and
/// lists its joints (it said only "cannot tell which way the clip's character faces").
#[test]
fn clip_with_foreign_joint_names_lists_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("robot.bvh");
    let text = "HIERARCHY\nROOT base\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition \
        Zposition Zrotation Yrotation Xrotation\n JOINT thigh_l\n {\n  OFFSET 1 -2 0\n  \
        CHANNELS 3 Zrotation Yrotation Xrotation\n  End Site\n  {\n   OFFSET 0 -3 0\n  }\n \
        }\n}\nMOTION\nFrames: 1\nFrame Time: 0.04\n0 0 0 0 0 0 0 0 0\n";
    std::fs::write(&path, text).expect("write");
    let rig = Rig {
        orientation: "+Y up, +Z forward".into(),
        ..Rig::default()
    };
    let err = motion_for(&rig, &MotionSource::Bvh(path))
        .expect_err("no joint matches")
        .to_string();
    assert!(
        err.contains("`robot`") && err.contains("base, thigh_l"),
        "{err}"
    );
}

/// The mesh's axes do not matter: the walk on a rig turned to +Z up (orientation recorded) is the
/// walk on the upright rig, turned the same way.
#[test]
fn retargeting_is_independent_of_the_mesh_axes() {
    let Some(clip) = walk_clip() else { return };
    let template = geppetto::skeleton::load_template("human").expect("template");
    let joints: Vec<geppetto::rig::RigJoint> = template
        .joints
        .iter()
        .map(|j| geppetto::rig::RigJoint {
            name: j.name.clone(),
            parent: j.parent.map(|p| p.0),
            position: [j.rest.x, j.rest.y, j.rest.z],
            end: j.end,
        })
        .collect();
    // Template (x, y, z) -> mesh (x, -z, y): template up (+Y) is mesh +Z, forward (+Z) is mesh -Y.
    let turn = |p: [f64; 3]| [p[0], -p[2], p[1]];
    let upright = Rig {
        orientation: "+Y up, +Z forward".into(),
        joints: joints.clone(),
        ..Rig::default()
    };
    let turned = Rig {
        orientation: "+Z up, -Y forward".into(),
        joints: joints
            .iter()
            .map(|j| geppetto::rig::RigJoint {
                position: turn(j.position),
                ..j.clone()
            })
            .collect(),
        ..Rig::default()
    };
    let a = motion_for(&upright, &MotionSource::Bvh(clip.clone())).expect("upright");
    let b = motion_for(&turned, &MotionSource::Bvh(clip)).expect("turned");
    let scale = template.rest_extent();
    for (fa, fb) in a.frames.iter().zip(&b.frames) {
        let pa = fa.joint_positions(&upright.joints);
        let pb = fb.joint_positions(&turned.joints);
        for (x, y) in pa.iter().zip(&pb) {
            let tx = turn([x.x, x.y, x.z]);
            let d = ((tx[0] - y.x).powi(2) + (tx[1] - y.y).powi(2) + (tx[2] - y.z).powi(2)).sqrt();
            assert!(d < 1e-9 * scale.max(1.0), "frames differ by {d}");
        }
    }
}

/// The CLI end to end: `geppetto animate` writes the GLB and a GIF with one frame per preview
/// frame, and refuses to overwrite the rig's mesh.
#[test]
fn animate_cli_writes_glb_and_gif() {
    use image::AnimationDecoder;
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = geppetto::demo::humanoid(3);
    let (mut rig, _) = rig_demo(dir.path(), &demo);
    let mesh_path = dir.path().join(format!("{}.obj", demo.name));
    rig.mesh = mesh_path.display().to_string();
    let rig_path = dir.path().join("demo.rig.json");
    std::fs::write(&rig_path, rig.to_json()).expect("write rig");
    let exe = env!("CARGO_BIN_EXE_geppetto");
    let (glb, gif) = (dir.path().join("squat.glb"), dir.path().join("squat.gif"));
    let out = std::process::Command::new(exe)
        .args([
            "animate",
            rig_path.to_str().unwrap(),
            "--clip",
            "squat",
            "--out",
        ])
        .arg(&glb)
        .arg("--gif")
        .arg(&gif)
        .output()
        .expect("run geppetto");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (doc, _, _) = gltf::import(&glb).expect("GLB reads back");
    assert_eq!(doc.animations().count(), 1);
    let file = std::io::BufReader::new(std::fs::File::open(&gif).expect("gif"));
    let frames = image::codecs::gif::GifDecoder::new(file)
        .expect("gif decodes")
        .into_frames()
        .collect_frames()
        .expect("frames");
    assert_eq!(frames.len(), 60, "2 s squat at 30 fps");
    // Frames differ: the squat moves.
    assert_ne!(frames[0].buffer(), frames[30].buffer());
    let before = std::fs::read(&mesh_path).expect("mesh");
    let refused = std::process::Command::new(exe)
        .args(["animate", rig_path.to_str().unwrap(), "--out"])
        .arg(&mesh_path)
        .output()
        .expect("run geppetto");
    assert!(!refused.status.success(), "overwrote the mesh");
    assert_eq!(std::fs::read(&mesh_path).expect("mesh"), before);
}

/// A human clip on a curve skeleton (the octopus's `tentacle_*` joints) is refused without
/// pointing to the quadruped's trot: the message said "quadruped rigs play the built-in
/// `--clip trot`" for every rig without legs, and `--clip trot` then failed on the octopus too.
#[test]
fn a_human_clip_on_a_curve_rig_does_not_suggest_the_trot() {
    let Some(walk) = walk_clip() else { return };
    let joint = |name: &str, parent: Option<usize>, x: f64| geppetto::rig::RigJoint {
        name: name.into(),
        parent,
        position: [x, 0.5 - x.abs(), 0.0],
        end: false,
    };
    let rig = Rig {
        orientation: "+Y up, +Z forward".into(),
        method: "curve".into(),
        joints: vec![
            joint("root", None, 0.0),
            joint("tentacle_0_1", Some(0), 0.2),
            joint("tentacle_1_1", Some(0), -0.2),
        ],
        ..Rig::default()
    };
    let err = motion_for(&rig, &MotionSource::Bvh(walk))
        .expect_err("no legs")
        .to_string();
    assert!(err.contains("no legs") && !err.contains("trot"), "{err}");
}
