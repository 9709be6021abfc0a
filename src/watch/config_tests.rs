//! Tests of the watch settings: the built-in file, partial files, globs, output folder,
//! workers, clip.

use super::*;

#[test]
fn builtin_config_parses() {
    let c = WatchConfig::default();
    assert_eq!(c.globs.len(), 6);
    assert!(
        c.globs.iter().any(|g| g == "**/*.fbx"),
        "FBX is watched by default"
    );
    assert_eq!(c.output, PathBuf::from("rigged"));
    assert!(c.worker_count() >= 1);
}

#[test]
fn the_built_in_file_equals_the_code_defaults() {
    // A partial file is filled from the code's defaults: they must be the file's values.
    let file = WatchConfig::parse(DEFAULT_WATCH_YAML, Path::new("default.yaml")).unwrap();
    assert_eq!(file, WatchConfig::default());
}

/// A file holding only the settings a user changes keeps the built-in values for the rest
/// (it failed with "missing field `globs`").
#[test]
fn a_partial_file_keeps_the_built_in_values() {
    let c = WatchConfig::parse("workers: 2\n", Path::new("w.yaml")).unwrap();
    assert_eq!(c.workers, 2);
    let d = WatchConfig::default();
    assert_eq!(
        (&c.globs, &c.output, &c.formats),
        (&d.globs, &d.output, &d.formats)
    );
    assert_eq!((c.settle_ms, &c.motion), (d.settle_ms, &d.motion));
    let c = WatchConfig::parse("motion: { clip: wave }\n", Path::new("w.yaml")).unwrap();
    assert_eq!(c.motion.clip, "wave");
    assert_eq!(c.skeleton, "auto");
    // An empty file is every default.
    let c = WatchConfig::parse("{}\n", Path::new("w.yaml")).unwrap();
    assert_eq!(c, d);
}

#[test]
fn unknown_key_is_an_error_naming_the_file() {
    let e = WatchConfig::parse("globz: []\n", Path::new("w.yaml")).unwrap_err();
    assert!(e.to_string().contains("w.yaml"), "{e}");
}

#[test]
fn skeleton_rules_pick_per_file_templates() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = WatchConfig::default();
    // The default is `auto`, whatever the file is called.
    let s = WatchSettings::resolve(&c, dir.path()).unwrap();
    assert_eq!(s.skeleton_for(&s.root.join("a/dog.obj")), "auto");
    c.skeleton_rules = vec![SkeletonRule {
        glob: "**/*quadruped*".into(),
        skeleton: "quadruped".into(),
    }];
    c.skeleton = "human".into();
    let s = WatchSettings::resolve(&c, dir.path()).unwrap();
    assert_eq!(s.skeleton_for(&s.root.join("a/quadruped.obj")), "quadruped");
    assert_eq!(s.skeleton_for(&s.root.join("humanoid.obj")), "human");
    assert_eq!(s.out_dir, s.root.join("rigged"));
}

#[test]
fn motion_clip_setting_resolves_or_names_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    assert_eq!(
        motion_source("auto", root).unwrap(),
        MotionSource::Clip(Clip::Walk)
    );
    assert_eq!(
        motion_source("Squat", root).unwrap(),
        MotionSource::Clip(Clip::Squat)
    );
    let e = motion_source("jog", root).unwrap_err().to_string();
    assert!(e.contains("motion.clip") && e.contains("`jog`"), "{e}");
    let e = motion_source("clips/none.bvh", root)
        .unwrap_err()
        .to_string();
    assert!(e.contains("motion.clip") && e.contains("none.bvh"), "{e}");
    std::fs::write(root.join("bad.bvh"), "HIERARCHY\nROOT\n").unwrap();
    let e = motion_source("bad.bvh", root).unwrap_err().to_string();
    assert!(e.contains("bad.bvh"), "{e}");
    // The section is checked like the rest of the file: an unknown key names itself.
    let yaml = DEFAULT_WATCH_YAML.replace("clip: auto", "clip: wave\n  speed: 2");
    let e = WatchConfig::parse(&yaml, Path::new("w.yaml")).unwrap_err();
    assert!(e.to_string().contains("speed"), "{e}");
    let yaml = DEFAULT_WATCH_YAML.replace("clip: auto", "clip: wave");
    let c = WatchConfig::parse(&yaml, Path::new("w.yaml")).unwrap();
    assert_eq!(c.motion.clip, "wave");
    assert_eq!(WatchConfig::default().motion.clip, AUTO_CLIP);
}

/// `watch DIR --out DIR` (or a folder above DIR) is refused naming both folders; the
/// default, a sibling and an absolute folder elsewhere are fine.
#[test]
fn an_output_folder_holding_the_watched_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("assets");
    std::fs::create_dir(&root).unwrap();
    let mut s = WatchSettings::resolve(&WatchConfig::default(), &root).unwrap();
    assert!(s.check_output().is_ok(), "the default DIR/rigged");
    for bad in [
        s.root.clone(),
        s.root.join("."),
        s.root.join(".."),
        s.root.join("x/../.."),
    ] {
        s.out_dir = bad.clone();
        let e = s.check_output().expect_err(&bad.display().to_string());
        assert!(e.to_string().contains("--out"), "{e}");
    }
    for good in [s.root.join("../rigged"), s.root.join("x/y")] {
        s.out_dir = good;
        assert!(s.check_output().is_ok());
    }
}

/// `globs: []` is refused naming the setting (it rigged nothing, and `--once` said "0 ok").
#[test]
fn empty_globs_are_refused_naming_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let none = WatchConfig {
        globs: Vec::new(),
        ..WatchConfig::default()
    };
    let e = WatchSettings::resolve(&none, dir.path())
        .unwrap_err()
        .to_string();
    assert!(e.contains("globs") && e.contains("no mesh patterns"), "{e}");
}

/// A worker count past [`MAX_WORKERS`] is refused naming the setting (the thread spawner's
/// "Resource temporarily unavailable" named nothing).
#[test]
fn too_many_workers_are_refused_naming_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = WatchSettings::resolve(&WatchConfig::default(), dir.path()).unwrap();
    assert!(s.check_workers().is_ok(), "the default");
    s.workers = 100_000;
    let e = s.check_workers().unwrap_err().to_string();
    assert!(
        e.contains("`workers (--workers)`") && e.contains("100000"),
        "{e}"
    );
}

/// 0 workers means one per core but one, at least one; any other count is itself.
#[test]
fn zero_workers_is_one_per_core_but_one() {
    assert_eq!(workers_on(0, 8), 7);
    assert_eq!(workers_on(0, 2), 1);
    assert_eq!(workers_on(0, 1), 1);
    assert_eq!(workers_on(3, 8), 3);
    assert_eq!(WatchConfig::default().worker_count(), worker_count(0));
}

/// `watch hero.obj` is refused: a file is not a folder to watch.
#[test]
fn a_file_is_not_a_folder_to_watch() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hero.obj");
    std::fs::write(&file, "v 0 0 0\n").unwrap();
    let e = WatchSettings::resolve(&WatchConfig::default(), &file).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("hero.obj") && e.contains("not a folder"), "{e}");
}

/// A template path in the file is relative to the watched folder, not to wherever the watcher
/// was started; a template no one has is refused when the watcher starts, naming the setting.
#[test]
fn skeleton_settings_are_checked_and_relative_to_the_watched_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let quadruped = crate::skeleton::BUILTIN[1].1;
    std::fs::write(root.join("mine.yaml"), quadruped).unwrap();
    let c = WatchConfig {
        skeleton: "mine.yaml".into(),
        skeleton_rules: vec![SkeletonRule {
            glob: "**/*dog*".into(),
            skeleton: "quadruped".into(),
        }],
        ..WatchConfig::default()
    };
    let s = WatchSettings::resolve(&c, &root).unwrap();
    assert_eq!(s.skeleton, root.join("mine.yaml").display().to_string());
    assert_eq!(s.skeleton_for(&root.join("a/dog.obj")), "quadruped");
    for (bad, setting) in [
        (
            WatchConfig {
                skeleton: "dragon".into(),
                ..WatchConfig::default()
            },
            "`skeleton`",
        ),
        (
            WatchConfig {
                skeleton_rules: vec![SkeletonRule {
                    glob: "**/*".into(),
                    skeleton: "nope.yaml".into(),
                }],
                ..WatchConfig::default()
            },
            "`skeleton_rules[0].skeleton`",
        ),
    ] {
        let e = WatchSettings::resolve(&bad, &root).unwrap_err().to_string();
        assert!(e.contains(setting) && e.contains("unknown skeleton"), "{e}");
    }
}
