use super::*;

fn write(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("t.json");
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn truth_json_is_parsed_with_padding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        r#"{"joint_names":["a","b"],"parents":[-1,0],
        "joint_positions":[[0,0,0],[0,1,0]],
        "skin_joints":[[0,1,-1,-1],[1,-1,-1,-1]],
        "skin_weights":[[0.75,0.25,0,0],[1,0,0,0]]}"#,
    );
    let r = read(&path).expect("truth");
    assert_eq!(r.kind, RigFileKind::Truth);
    let parents: Vec<_> = r.joints.iter().map(|j| j.parent).collect();
    assert_eq!(parents, vec![None, Some(0)]);
    assert_eq!(
        r.skin,
        Some(vec![vec![(0, 0.75), (1, 0.25)], vec![(1, 1.0)]])
    );
    // Round trip through a skeleton-only rig.json keeps the joints.
    let rig = r.skeleton_rig(Path::new("m.obj"), None);
    let back = RigFile::from_rig(Path::new("x"), &rig);
    assert_eq!(back.joints, r.joints);
    assert_eq!(back.kind, RigFileKind::RigJson);
}

#[test]
fn a_skeleton_rig_marks_the_joints_the_files_skin_never_uses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        r#"{"joint_names":["a","ik","b"],"parents":[-1,0,0],
        "joint_positions":[[0,0,0],[0,1,0],[1,0,0]],
        "skin_joints":[[0,2,-1,-1]],"skin_weights":[[0.5,0.5,0,0]]}"#,
    );
    let rig = read(&path)
        .expect("truth")
        .skeleton_rig(Path::new("m.obj"), None);
    let ends: Vec<bool> = rig.joints.iter().map(|j| j.end).collect();
    assert_eq!(ends, vec![false, true, false]);
    // Without a skin nothing is marked.
    let back = RigFile::from_rig(Path::new("x"), &rig);
    let again = RigFile { skin: None, ..back }.skeleton_rig(Path::new("m.obj"), None);
    assert!(again.joints.iter().all(|j| !j.end));
}

#[test]
fn bad_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (text, why) in [
        (
            r#"{"joint_names":["a"],"parents":[-1],"joint_positions":[[0,0,0]],
            "skin_joints":[[3,-1,-1,-1]],"skin_weights":[[1,0,0,0]]}"#,
            "refers to joint 3",
        ),
        (
            r#"{"joint_names":["a","b"],"parents":[-1,5],"joint_positions":[[0,0,0],[1,0,0]]}"#,
            "invalid parent",
        ),
        (
            r#"{"joint_names":[],"parents":[],"joint_positions":[]}"#,
            "no joints",
        ),
        ("{", "not JSON"),
    ] {
        let path = write(dir.path(), text);
        let e = read(&path).expect_err(why).to_string();
        assert!(e.contains(why) && e.contains("t.json"), "{e}");
    }
    let obj = dir.path().join("hero.obj");
    std::fs::write(&obj, "v 0 0 0\n").expect("write");
    let e = read(&obj).expect_err("an OBJ").to_string();
    assert!(
        e.contains("hero.obj: a mesh file without a skeleton") && e.contains("rig.json"),
        "{e}"
    );
    let missing = dir.path().join("missing.json");
    let e = read(&missing).expect_err("missing").to_string();
    assert!(
        e.contains("missing.json") && e.contains("cannot read"),
        "{e}"
    );
}
