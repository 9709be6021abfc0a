//! The BVH reader: hierarchy and channels, file:line errors, no panic on mutated text.

use super::*;
use crate::geom::P3;

const TWO: &str = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition \
    Zposition Zrotation Yrotation Xrotation\n JOINT Leg\n {\n  OFFSET 0 -2 0\n  CHANNELS 3 \
    Xrotation Yrotation Zrotation\n  End Site\n  {\n   OFFSET 0 -3 0\n  }\n }\n}\nMOTION\n\
    Frames: 2\nFrame Time: 0.04\n1 2 3 0 0 0 0 0 0\n0 0 0 0 0 90 90 0 0\n";

#[test]
fn reads_hierarchy_channels_and_frames() {
    let b = parse(TWO, Path::new("t.bvh")).unwrap();
    assert_eq!(b.joints.len(), 3);
    assert_eq!(b.joints[2].name, "Leg_End");
    assert!(b.joints[2].end_site);
    assert_eq!(b.channel_count(), 9);
    assert_eq!(b.frames.len(), 2);
    assert!((b.frame_time_s - 0.04).abs() < 1e-12);
    assert_eq!(b.joints[1].channels[0], Channel::Rotation(0));
}

#[test]
fn forward_kinematics_follows_channel_order() {
    let b = parse(TWO, Path::new("t.bvh")).unwrap();
    let w0 = b.world(Some(0));
    assert!((w0[2] * P3::origin() - P3::new(1.0, -3.0, 3.0)).norm() < 1e-12);
    // Frame 2: root Xrotation 90° carries the leg (−Y) onto −Z; the leg's own Xrotation 90°
    // adds another quarter turn, carrying the end site from −Y twice round to +Y.
    let w1 = b.world(Some(1));
    assert!((w1[1] * P3::origin() - P3::new(0.0, 0.0, -2.0)).norm() < 1e-9);
    assert!((w1[2] * P3::origin() - P3::new(0.0, 3.0, -2.0)).norm() < 1e-9);
}

#[test]
fn errors_name_file_and_line() {
    let bad = TWO.replace("OFFSET 0 -2 0", "OFFSET 0 nope 0");
    let e = parse(&bad, Path::new("walk.bvh")).unwrap_err().to_string();
    assert!(e.starts_with("walk.bvh:8:"), "{e}");
    let short = TWO.replace("0 0 0 0 0 90 90 0 0\n", "0 0 0\n");
    let e = parse(&short, Path::new("walk.bvh"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("end of file") && e.contains("frame 2"), "{e}");
    let ch = TWO.replace(
        "Xrotation Yrotation Zrotation",
        "Xrotation Wrotation Zrotation",
    );
    let e = parse(&ch, Path::new("a.bvh")).unwrap_err().to_string();
    assert!(e.contains("a.bvh:9:") && e.contains("Wrotation"), "{e}");
}

proptest::proptest! {
    #[test]
    fn never_panics_on_mutated_text(cut in 0usize..400, junk in "[ -~\n]{0,20}") {
        let mut s = TWO.to_owned();
        let at = cut.min(s.len());
        s.insert_str(at, &junk);
        let _ = parse(&s, Path::new("fuzz.bvh"));
        let _ = parse(&s[..at], Path::new("fuzz.bvh"));
    }

    #[test]
    fn never_panics_on_random_tokens(words in proptest::collection::vec(
        proptest::prop_oneof![
            proptest::strategy::Just("HIERARCHY".to_owned()),
            proptest::strategy::Just("ROOT".to_owned()),
            proptest::strategy::Just("JOINT".to_owned()),
            proptest::strategy::Just("{".to_owned()),
            proptest::strategy::Just("}".to_owned()),
            proptest::strategy::Just("OFFSET".to_owned()),
            proptest::strategy::Just("CHANNELS".to_owned()),
            proptest::strategy::Just("End".to_owned()),
            proptest::strategy::Just("Site".to_owned()),
            proptest::strategy::Just("MOTION".to_owned()),
            "-?[0-9]{1,3}(\\.[0-9])?",
            "[XYZ](position|rotation)",
        ], 0..80)) {
        let s = words.join(" ");
        if let Ok(b) = parse(&s, Path::new("fuzz.bvh")) {
            let _ = b.world(Some(0));
        }
    }
}
