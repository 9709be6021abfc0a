//! Small command-line promises (issue 15 §6): `attach --skeleton-from` reads a minimal skeleton
//! JSON (parents by name or by index), and `rig --format png` writes the thumbnail.

use std::process::Command;

use geppetto::rig::Rig;

fn geppetto(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Write the procedural demo humanoid to `path` as OBJ; returns the text written.
fn write_humanoid(path: &std::path::Path) -> String {
    let text = geppetto::mesh::write::obj_string(&geppetto::demo::humanoid(1).mesh);
    std::fs::write(path, &text).unwrap();
    text
}

#[test]
fn attach_reads_a_minimal_skeleton_with_parents_by_name_and_index() {
    let dir = tempfile::tempdir().unwrap();
    let c = geppetto::demo::humanoid(1);
    let mesh = dir.path().join("body.obj");
    std::fs::write(&mesh, geppetto::mesh::write::obj_string(&c.mesh)).unwrap();
    let at = |n: &str| {
        let p = c.joint(n).unwrap();
        format!("[{}, {}, {}]", p.x, p.y, p.z)
    };
    let skel = dir.path().join("skeleton.json");
    let text = format!(
        r#"{{"joints": [
            {{"name": "Hips", "parent": null, "position": {}}},
            {{"name": "Spine", "parent": "Hips", "position": {}}},
            {{"name": "Head", "parent": 1, "position": {}}}
        ]}}"#,
        at("Hips"),
        at("Spine"),
        at("Head")
    );
    std::fs::write(&skel, text).unwrap();
    let out = dir.path().join("out");
    ok(&geppetto(&[
        "attach".as_ref(),
        mesh.as_os_str(),
        "--skeleton-from".as_ref(),
        skel.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]));
    let rig = Rig::load(&out.join("body.rig.json")).unwrap();
    let names: Vec<&str> = rig.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["Hips", "Spine", "Head"]);
    let parents: Vec<Option<usize>> = rig.joints.iter().map(|j| j.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(1)]);
    // The weights follow the skeleton: the top of the head belongs to Head, the feet to Hips.
    let skin = rig.skin.as_ref().expect("skin weights");
    let top = (0..c.mesh.positions.len())
        .max_by(|&a, &b| c.mesh.positions[a].y.total_cmp(&c.mesh.positions[b].y))
        .unwrap();
    let bottom = (0..c.mesh.positions.len())
        .min_by(|&a, &b| c.mesh.positions[a].y.total_cmp(&c.mesh.positions[b].y))
        .unwrap();
    assert_eq!(skin[top][0].0, 2, "top vertex weights {:?}", skin[top]);
    assert_eq!(
        skin[bottom][0].0, 0,
        "bottom vertex weights {:?}",
        skin[bottom]
    );
}

#[test]
fn attach_rejects_a_skeleton_with_an_unknown_parent_naming_file_and_joint() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = dir.path().join("body.obj");
    write_humanoid(&mesh);
    let skel = dir.path().join("bad.json");
    std::fs::write(
        &skel,
        r#"{"joints": [{"name": "Hips", "parent": "Root", "position": [0, 1, 0]}]}"#,
    )
    .unwrap();
    let out = geppetto(&[
        "attach".as_ref(),
        mesh.as_os_str(),
        "--skeleton-from".as_ref(),
        skel.as_os_str(),
        "--out".as_ref(),
        dir.path().join("out").as_os_str(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("no joint named 'Root'"),
        "{err}"
    );
}

#[test]
fn rig_format_png_writes_the_thumbnail() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = dir.path().join("hero.obj");
    write_humanoid(&mesh);
    let out = dir.path().join("out");
    ok(&geppetto(&[
        "rig".as_ref(),
        mesh.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--format".as_ref(),
        "png".as_ref(),
    ]));
    let png = out.join("hero.png");
    let img = image::open(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert_eq!((img.width(), img.height()), (320, 200));
    // Not a blank image: the mesh covers a good part of it.
    let rgba = img.to_rgba8();
    let bg = *rgba.get_pixel(0, 0);
    let covered = rgba.pixels().filter(|p| **p != bg).count();
    assert!(covered > 320 * 200 / 20, "{covered} non-background pixels");
    assert!(!out.join("hero.glb").exists(), "only the formats asked for");
}

/// A sidecar `skeleton:` picks the template for its mesh, in `rig` and in `watch`; its hints stay.
#[test]
fn sidecar_skeleton_overrides_the_template_in_rig_and_watch() {
    let dir = tempfile::tempdir().unwrap();
    let c = geppetto::demo::quadruped(1);
    let mesh = dir.path().join("bull.obj");
    std::fs::write(&mesh, geppetto::mesh::write::obj_string(&c.mesh)).unwrap();
    std::fs::write(dir.path().join("bull.hints.yaml"), "skeleton: quadruped\n").unwrap();
    let out = dir.path().join("out");
    let o = geppetto(&[
        "rig".as_ref(),
        mesh.as_os_str(),
        "--skeleton".as_ref(),
        "human".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("skeleton 'quadruped' from its hints file"));
    assert_eq!(
        Rig::load(&out.join("bull.rig.json")).unwrap().skeleton,
        "quadruped"
    );
    ok(&geppetto(&[
        "watch".as_ref(),
        dir.path().as_os_str(),
        "--once".as_ref(),
        "--workers".as_ref(),
        "1".as_ref(),
    ]));
    let rig = Rig::load(&dir.path().join("rigged/bull.rig.json")).unwrap();
    assert_eq!(rig.skeleton, "quadruped");
}

/// A hints sidecar naming a joint no skeleton has (a typo) is an error naming the file and the
/// joint, under `--skeleton auto` and `--skeleton curve` alike. Before, `auto` skipped every
/// template, rigged the curve skeleton instead and ignored the pin without a word.
#[test]
fn a_hint_naming_no_joint_is_an_error_not_a_silent_curve_rig() {
    let dir = tempfile::tempdir().unwrap();
    let c = geppetto::demo::quadruped(1);
    let mesh = dir.path().join("dog.obj");
    std::fs::write(&mesh, geppetto::mesh::write::obj_string(&c.mesh)).unwrap();
    std::fs::write(
        dir.path().join("dog.hints.yaml"),
        "hints:\n  - joint: NoSuchJoint\n    position: [0, 1, 0]\n",
    )
    .unwrap();
    for skeleton in ["auto", "curve"] {
        let out = geppetto(&[
            "rig".as_ref(),
            mesh.as_os_str(),
            "--skeleton".as_ref(),
            skeleton.as_ref(),
            "--out".as_ref(),
            dir.path().join("out").as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "--skeleton {skeleton}: {stderr}"
        );
        assert!(
            stderr.contains("dog.hints.yaml") && stderr.contains("'NoSuchJoint'"),
            "--skeleton {skeleton}: {stderr}"
        );
        assert!(!dir.path().join("out/dog.rig.json").exists());
    }
}

/// `geppetto` with `args`, run in the folder `cwd`.
fn geppetto_in(cwd: &std::path::Path, args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

/// `rig hero.obj` records `hero.obj` as given and writes `rigged/hero.rig.json`. `edit`, `pose`
/// and `animate` run from another folder must still find the mesh (`edit` looked only in the
/// current folder, `pose` and `animate` also in `rigged/`, never where the mesh is).
#[test]
fn edit_pose_and_animate_find_the_rigs_mesh_from_another_folder() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write_humanoid(&p.join("hero.obj"));
    ok(&geppetto_in(p, &["rig".as_ref(), "hero.obj".as_ref()]));
    let rig = p.join("rigged/hero.rig.json");
    assert_eq!(Rig::load(&rig).unwrap().mesh, "hero.obj");
    let elsewhere = p.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let edited = p.join("edited");
    let hips = Rig::load(&rig).unwrap().joints[0].position;
    let moved: Vec<String> = [hips[0] + 0.01, hips[1], hips[2]]
        .iter()
        .map(f64::to_string)
        .collect();
    let mut args: Vec<&std::ffi::OsStr> = vec!["edit".as_ref(), rig.as_os_str(), "--move".as_ref()];
    args.push("Hips".as_ref());
    args.extend(moved.iter().map(std::ffi::OsStr::new));
    args.extend(["--out".as_ref(), edited.as_os_str()]);
    ok(&geppetto_in(&elsewhere, &args));
    assert!(edited.join("hero.rig.json").is_file());
    let posed = p.join("posed.obj");
    ok(&geppetto_in(
        &elsewhere,
        &[
            "pose".as_ref(),
            rig.as_os_str(),
            "--out".as_ref(),
            posed.as_os_str(),
        ],
    ));
    assert!(posed.is_file());
    let gif = p.join("wave.gif");
    ok(&geppetto_in(
        &elsewhere,
        &[
            "animate".as_ref(),
            rig.as_os_str(),
            "--clip".as_ref(),
            "wave".as_ref(),
            "--gif".as_ref(),
            gif.as_os_str(),
            "--size".as_ref(),
            "64x32".as_ref(),
        ],
    ));
    assert!(gif.is_file());
    // A mesh found nowhere: the error names the recorded path and --mesh.
    std::fs::rename(p.join("hero.obj"), p.join("moved.obj")).unwrap();
    let out = geppetto_in(
        &elsewhere,
        &[
            "pose".as_ref(),
            rig.as_os_str(),
            "--out".as_ref(),
            posed.as_os_str(),
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("hero.obj") && err.contains("--mesh"), "{err}");
}

/// An error's causes are printed once each: `edit --mesh missing.obj` printed "No such file or
/// directory" three times, `animate --bvh missing.bvh` twice.
#[test]
fn a_missing_file_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let c = geppetto::demo::humanoid(1);
    std::fs::write(
        p.join("hero.obj"),
        geppetto::mesh::write::obj_string(&c.mesh),
    )
    .unwrap();
    ok(&geppetto_in(
        p,
        &["rig".as_ref(), "hero.obj".as_ref(), "--no-skin".as_ref()],
    ));
    for args in [
        &[
            "edit",
            "rigged/hero.rig.json",
            "--mesh",
            "missing.obj",
            "--move",
            "Hips",
            "0",
            "1",
            "0",
        ][..],
        &["animate", "rigged/hero.rig.json", "--bvh", "missing.bvh"][..],
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        let out = geppetto_in(p, &args);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.matches("os error 2").count(), 1, "{args:?}: {err}");
        assert!(err.contains("missing."), "{err}");
    }
}

/// `edit --magnitude J -1` (or a negative smoothness) got clap's "unexpected argument '-1'"
/// (exit 2); the value now reaches the edit's own check, which names the rule it breaks.
#[test]
fn edit_names_the_rule_a_negative_magnitude_or_smoothness_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write_humanoid(&p.join("hero.obj"));
    ok(&geppetto_in(p, &["rig".as_ref(), "hero.obj".as_ref()]));
    for (flag, value, rule) in [
        ("--magnitude", "-1", "c must be > 0, got -1"),
        ("--smoothness", "-0.5", "b must lie in [0, 0.95], got -0.5"),
    ] {
        let args = ["edit", "rigged/hero.rig.json", flag, "Spine", value];
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        let out = geppetto_in(p, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{flag} {value}: {err}");
        assert!(err.contains(rule), "{flag} {value}: {err}");
    }
}

/// `rig DIR` said "unsupported file type"; it names the folder as a folder and the command that
/// rigs one.
#[test]
fn rig_of_a_folder_says_it_is_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("assets.obj");
    std::fs::create_dir(&folder).unwrap();
    let out = geppetto(&["rig".as_ref(), folder.as_os_str()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("assets.obj"), "{err}");
    assert!(err.contains("a folder, not a mesh file"), "{err}");
    assert!(err.contains("geppetto watch"), "{err}");
}

/// `rig MESH --out FILE` said "File exists (os error 17)"; it names the file as not a folder.
#[test]
fn rig_out_a_file_says_it_is_not_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = dir.path().join("hero.obj");
    write_humanoid(&mesh);
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    let out = geppetto(&[
        "rig".as_ref(),
        mesh.as_os_str(),
        "--out".as_ref(),
        file.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("notes.txt is a file, not a folder"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

/// `score --poses 0` printed a deformation error of 0.000 (a perfect score from no poses).
#[test]
fn score_refuses_zero_poses() {
    let out = geppetto(&[
        "score".as_ref(),
        "a.rig.json".as_ref(),
        "b.gltf".as_ref(),
        "--poses".as_ref(),
        "0".as_ref(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--poses must be at least 1"), "{err}");
}

/// `pose RIG --out hero.obj` replaced the artist's mesh with the posed one; it must refuse (as
/// `animate` does) and leave the mesh and the rig untouched.
#[test]
fn pose_refuses_to_overwrite_the_mesh_or_the_rig() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let text = write_humanoid(&p.join("hero.obj"));
    ok(&geppetto_in(p, &["rig".as_ref(), "hero.obj".as_ref()]));
    let rig_text = std::fs::read(p.join("rigged/hero.rig.json")).unwrap();
    for target in ["hero.obj", "./hero.obj", "rigged/hero.rig.json"] {
        let out = geppetto_in(
            p,
            &[
                "pose".as_ref(),
                "rigged/hero.rig.json".as_ref(),
                "--random".as_ref(),
                "3".as_ref(),
                "--out".as_ref(),
                target.as_ref(),
            ],
        );
        assert!(!out.status.success(), "{target}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("refusing to overwrite"), "{target}: {err}");
    }
    assert_eq!(std::fs::read_to_string(p.join("hero.obj")).unwrap(), text);
    assert_eq!(
        std::fs::read(p.join("rigged/hero.rig.json")).unwrap(),
        rig_text
    );
}

/// `watch DIR --out DIR` skipped every mesh (all inside the output folder), said "0 meshes" and
/// exited 0; it is refused, naming both folders.
#[test]
fn watch_refuses_an_output_folder_that_holds_the_watched_folder() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write_humanoid(&p.join("hero.obj"));
    for out_dir in [".", ".."] {
        let out = geppetto_in(
            p,
            &[
                "watch".as_ref(),
                ".".as_ref(),
                "--out".as_ref(),
                out_dir.as_ref(),
                "--headless".as_ref(),
                "--once".as_ref(),
            ],
        );
        assert!(!out.status.success(), "--out {out_dir}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("output folder") && err.contains("watched folder"),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_dir(p).unwrap().count(), 1, "nothing written");
}

/// A hints file's `skeleton:` that names no template is reported against the hints file (it said
/// only "unknown skeleton 'dragon'", so the user looked for it on the command line), and a
/// relative template path in it is beside the hints file, whatever the working folder.
#[test]
fn a_hints_files_skeleton_is_read_relative_to_it_and_errors_name_it() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir(&assets).unwrap();
    let c = geppetto::demo::quadruped(1);
    let mesh = assets.join("bull.obj");
    std::fs::write(&mesh, geppetto::mesh::write::obj_string(&c.mesh)).unwrap();
    let hints = assets.join("bull.hints.yaml");
    std::fs::write(&hints, "skeleton: dragon\n").unwrap();
    let rig = |cwd: &std::path::Path| {
        geppetto_in(
            cwd,
            &[
                "rig".as_ref(),
                mesh.as_os_str(),
                "--out".as_ref(),
                dir.path().join("out").as_os_str(),
                "--format".as_ref(),
                "json".as_ref(),
            ],
        )
    };
    let out = rig(dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("bull.hints.yaml: skeleton: unknown skeleton 'dragon'"),
        "{err}"
    );
    // The shipped quadruped template saved as a file beside the mesh, named relatively.
    let template = geppetto::skeleton::BUILTIN
        .iter()
        .find(|(n, _)| *n == "quadruped")
        .unwrap()
        .1;
    let template = template.replace("name: quadruped", "name: beast");
    std::fs::write(assets.join("beast.yaml"), template).unwrap();
    std::fs::write(&hints, "skeleton: beast.yaml\n").unwrap();
    ok(&rig(dir.path()));
    assert_eq!(
        Rig::load(&dir.path().join("out/bull.rig.json"))
            .unwrap()
            .skeleton,
        "beast"
    );
}

/// A hint far outside the mesh (another unit, another frame) is an error naming the hints file
/// and the hint; it dragged the joint out of the body into a forced fit whose warnings never
/// mentioned the hint.
#[test]
fn a_hint_far_outside_the_mesh_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = dir.path().join("hero.obj");
    write_humanoid(&mesh);
    std::fs::write(
        dir.path().join("hero.hints.yaml"),
        "hints:\n  - joint: LeftHand\n    position: [50, 50, 50]\n",
    )
    .unwrap();
    let out = geppetto(&[
        "rig".as_ref(),
        mesh.as_os_str(),
        "--out".as_ref(),
        dir.path().join("out").as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("hero.hints.yaml: hint 0 (LeftHand)") && err.contains("outside the mesh"),
        "{err}"
    );
    assert!(!dir.path().join("out/hero.rig.json").exists());
}

/// `pose --max-degrees nan` wrote an OBJ of NaN vertices; a negative angle got clap's
/// "unexpected argument '-3'". Both are refused, naming the option.
#[test]
fn pose_refuses_a_max_degrees_that_is_no_angle() {
    for bad in ["nan", "inf", "-30"] {
        let out = geppetto(&[
            "pose".as_ref(),
            "hero.rig.json".as_ref(),
            "--random".as_ref(),
            "3".as_ref(),
            "--max-degrees".as_ref(),
            bad.as_ref(),
            "--out".as_ref(),
            "posed.obj".as_ref(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("--max-degrees") && err.contains("not a rotation angle"),
            "{bad}: {err}"
        );
    }
}

/// Stopping `geppetto rig` (SIGTERM, as a scheduler preempts; Ctrl-C's SIGINT takes the same
/// path) leaves no temporary file and no mesh with only some of its outputs: rigs already done
/// are written whole, the others not at all; the exit code is 130 and stderr says how many
/// meshes were not rigged. Killed by the default action, a run left `.geppetto-tmp-*` files
/// (the atomic write's temporary) and a rig.json without its GLB or PNG.
#[test]
fn a_stopped_rig_leaves_whole_outputs_and_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..30).map(|k| format!("m{k}")).collect();
    let mut meshes = Vec::new();
    for n in &names {
        let mesh = dir.path().join(format!("{n}.obj"));
        write_humanoid(&mesh);
        meshes.push(mesh);
    }
    let out = dir.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(["rig", "-j", "1", "--format", "json,glb,png", "--out"])
        .arg(&out)
        .args(&meshes)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stop it while it runs: once the first mesh's outputs are there.
    let start = std::time::Instant::now();
    while !out.join("m0.png").exists() && start.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !left.iter().any(|f| f.starts_with(".geppetto-tmp")),
        "{left:?}"
    );
    let whole = |n: &String| {
        let have = ["rig.json", "glb", "png"].map(|e| left.contains(&format!("{n}.{e}")));
        assert!(
            have.iter().all(|&h| h) || !have.iter().any(|&h| h),
            "{n}: {left:?}"
        );
        have[0]
    };
    let written = names.iter().filter(|n| whole(n)).count();
    assert!(written < names.len(), "the run ended before it was stopped");
    assert_eq!(done.status.code(), Some(130), "{err}");
    let missing = names.len() - written;
    assert!(
        err.contains(&format!("interrupted: {missing} mesh")),
        "{err}"
    );
}
