//! Fan-out (issue 16): `geppetto rig --list FILE --shard K/N`. N = 3 shards write exactly the
//! files one run writes, byte for byte (with `--no-timings`, the documented way to keep the
//! per-stage times out of rig.json), each file written by exactly one shard; bad list lines and
//! bad shard specs are usage errors naming the problem.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn geppetto(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geppetto"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file under `dir`, by path relative to `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A small library: demo characters in two sub-folders (one name used twice), and a list file
/// with comments, a blank line, a repeated entry and relative paths.
fn library(root: &Path) -> PathBuf {
    let write = |rel: &str, mesh: &geppetto::mesh::Mesh| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, geppetto::mesh::write::obj_string(mesh)).unwrap();
    };
    write("lib/heroes/hero.obj", &geppetto::demo::humanoid(1).mesh);
    write("lib/heroes/tall.obj", &geppetto::demo::humanoid(2).mesh);
    write("lib/villains/hero.obj", &geppetto::demo::humanoid(3).mesh);
    write("lib/beasts/dog.obj", &geppetto::demo::quadruped(1).mesh);
    let list = root.join("lib/all.txt");
    std::fs::write(
        &list,
        "# the library\nheroes/hero.obj\n\nheroes/tall.obj\n  villains/hero.obj\n\
         beasts/dog.obj\n# again, counted once\nheroes/./hero.obj\n",
    )
    .unwrap();
    list
}

#[test]
fn three_shards_write_exactly_the_files_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let list = library(dir.path());
    let rig = |out: &Path, shard: Option<&str>| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "rig".as_ref(),
            "--list".as_ref(),
            list.as_os_str(),
            "--no-timings".as_ref(),
            "--format".as_ref(),
            "json,glb".as_ref(),
            "--skeleton".as_ref(),
            "human".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ];
        if let Some(s) = shard {
            args.push("--shard".as_ref());
            args.push(s.as_ref());
        }
        let o = geppetto(&args);
        ok(&o);
        o
    };
    let whole_dir = dir.path().join("whole");
    rig(&whole_dir, None);
    let whole = files(&whole_dir);
    // 4 distinct meshes (the repeated entry is rigged once), 2 files each.
    assert_eq!(whole.len(), 8, "{:?}", whole.keys());
    assert!(whole.contains_key(Path::new("heroes/hero.rig.json")));
    assert!(whole.contains_key(Path::new("villains/hero.glb")));

    let mut union = BTreeMap::new();
    for k in 0..3 {
        let out = dir.path().join(format!("shard{k}"));
        rig(&out, Some(&format!("{k}/3")));
        let part = files(&out);
        assert!(!part.is_empty(), "shard {k}/3 rigged nothing");
        for (path, bytes) in part {
            let clash = union.insert(path.clone(), bytes);
            assert!(clash.is_none(), "{} written by two shards", path.display());
        }
    }
    assert_eq!(
        union.keys().collect::<Vec<_>>(),
        whole.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &whole {
        assert!(
            union[path] == *bytes,
            "{} differs between the sharded and the single run",
            path.display()
        );
    }
    let text = String::from_utf8(whole[Path::new("beasts/dog.rig.json")].clone()).unwrap();
    assert!(!text.contains("timings_ms"), "--no-timings left times in");
}

#[test]
fn bad_list_lines_and_shards_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("meshes.txt");
    std::fs::write(&list, "# ok\n\nmissing.obj\n").unwrap();
    let out = dir.path().join("out");
    let run = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "rig".as_ref(),
            "--list".as_ref(),
            list.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        geppetto(&args)
    };
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("meshes.txt:3:") && err.contains("missing.obj"),
        "{err}"
    );

    std::fs::write(&list, "").unwrap();
    for bad in ["3/3", "1/0", "x/2"] {
        let o = run(&["--shard", bad]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains(bad), "{bad}: {err}");
    }
    assert!(!out.exists(), "a usage error wrote outputs");
}

/// A shard that gets no mesh (more tasks than meshes) succeeds, writes nothing and says so: a
/// task that printed nothing looked like one that never ran.
#[test]
fn an_empty_shard_says_it_has_nothing_to_rig() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = dir.path().join("hero.obj");
    std::fs::write(
        &mesh,
        geppetto::mesh::write::obj_string(&geppetto::demo::humanoid(1).mesh),
    )
    .unwrap();
    let list = dir.path().join("one.txt");
    std::fs::write(&list, "hero.obj\n").unwrap();
    let out = dir.path().join("out");
    let o = geppetto(&[
        "rig".as_ref(),
        "--list".as_ref(),
        list.as_os_str(),
        "--shard".as_ref(),
        "1/2".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("shard 1/2") && err.contains("1 input") && err.contains("nothing to rig"),
        "{err}"
    );
    assert!(files(&out).is_empty(), "an empty shard wrote outputs");
}
