//! The watcher and job pool on a real temporary folder, driven through the same `App`/`update` and
//! `Runtime` as the UI (headless: no thumbnails). These need the real engine: a valid mesh must end
//! up rigged (`ok` or `low confidence`), so they cannot pass while the engine stages are stubs.
//! Generous deadlines; assertions are about eventual state, never about event counts per batch.

mod watch_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use geppetto::tui::app::{App, RowStatus};
use watch_support::Rt;

fn rigged(app: &App, path: &Path) -> bool {
    app.find(path).is_some_and(|i| {
        matches!(
            app.assets[i].status(),
            RowStatus::Ok | RowStatus::LowConfidence
        )
    })
}

fn finished(app: &App, path: &Path) -> bool {
    app.find(path).is_some_and(|i| {
        let a = &app.assets[i];
        !a.queued && a.running.is_none() && a.last.is_some()
    })
}

/// OBJ text of a valid character mesh: the procedural box figure (8 closed boxes; rigs in a few
/// seconds, long enough to be modified mid-rig). `variant` 1 adds a comment line (new content).
fn character_obj(variant: usize) -> String {
    let (mesh, _) = geppetto::raster::figure::box_figure(false);
    let mut s = if variant == 1 {
        "# variant 1\n".to_string()
    } else {
        String::new()
    };
    s += &geppetto::mesh::write::obj_string(&mesh);
    s
}

#[test]
fn created_file_is_rigged_once_and_outputs_are_ignored() {
    let mut r = Rt::start();
    let p = r.root().join("alice.obj");
    std::fs::write(&p, character_obj(0)).unwrap();
    r.until("alice rigged", |a| rigged(a, &p));
    assert!(r.app.out_dir.join("alice.rig.json").is_file());
    assert!(r.app.out_dir.join("alice.png").is_file());
    // Our own outputs (rig.json, png, glb in the output folder) must not trigger anything.
    r.idle(Duration::from_secs(2));
    assert_eq!(r.count(&p, "started"), 1, "{:?}", r.events);
    assert_eq!(r.app.assets.len(), 1);
}

#[test]
fn slow_chunked_write_is_rigged_after_the_last_chunk() {
    let mut r = Rt::start();
    let p = r.root().join("slow.obj");
    let text = character_obj(0);
    let bytes = text.as_bytes();
    let mut f = std::fs::File::create(&p).unwrap();
    let chunks = 8;
    let step = bytes.len().div_ceil(chunks);
    for c in bytes.chunks(step) {
        f.write_all(c).unwrap();
        f.flush().unwrap();
        // Shorter than the settle interval: the file never looks stable mid-write.
        r.idle(Duration::from_millis(200));
        assert_eq!(
            r.count(&p, "started"),
            0,
            "rigged while still being written"
        );
    }
    drop(f);
    r.until("slow rigged", |a| rigged(a, &p));
    assert_eq!(r.count(&p, "started"), 1);
}

#[test]
fn modified_mid_rig_cancels_and_rerigs_the_new_content() {
    let mut r = Rt::start();
    let p = r.root().join("busy.obj");
    std::fs::write(&p, character_obj(0)).unwrap();
    r.until("busy running", |a| {
        a.find(&p).is_some_and(|i| a.assets[i].running.is_some())
    });
    // Re-save with different content while the rig runs.
    std::fs::write(&p, character_obj(0) + "# re-saved\n").unwrap();
    r.until("busy re-rigged", |a| {
        rigged(a, &p) && a.assets[a.find(&p).unwrap()].runs >= 1
    });
    r.idle(Duration::from_secs(1));
    r.until("settled", |a| finished(a, &p));
    // Either the first job was cancelled at a stage boundary, or it had already passed the last
    // boundary and completed; in both cases a second job ran for the new content.
    assert_eq!(r.count(&p, "started"), 2, "{:?}", r.events);
    assert!(rigged(&r.app, &p));
}

#[test]
fn renamed_file_moves_its_row_and_deleted_file_disappears() {
    let mut r = Rt::start();
    let a = r.root().join("a.obj");
    std::fs::write(&a, character_obj(0)).unwrap();
    r.until("a rigged", |app| rigged(app, &a));
    let b = r.root().join("b.obj");
    std::fs::rename(&a, &b).unwrap();
    r.until("rename seen", |app| {
        app.find(&a).is_none() && rigged(app, &b)
    });
    std::fs::remove_file(&b).unwrap();
    r.until("delete seen", |app| app.assets.is_empty());
    // Outputs of deleted meshes are left alone; the user's files were never touched by us.
    assert!(r.app.out_dir.join("a.rig.json").is_file());
}

#[test]
fn fifty_files_dropped_at_once_are_all_rigged() {
    let mut r = Rt::start();
    let src = tempfile::tempdir().unwrap();
    let text = character_obj(0);
    for i in 0..50 {
        std::fs::write(src.path().join(format!("m{i:02}.obj")), &text).unwrap();
    }
    // "Dropped": a folder moved into the watched folder in one rename (new subfolder).
    let drop_dir = r.root().join("batch");
    std::fs::rename(src.path(), &drop_dir).unwrap_or_else(|_| {
        // Across file systems: copy instead (still one burst of creations).
        std::fs::create_dir(&drop_dir).unwrap();
        for i in 0..50 {
            std::fs::write(drop_dir.join(format!("m{i:02}.obj")), &text).unwrap();
        }
    });
    let paths: Vec<PathBuf> = (0..50)
        .map(|i| drop_dir.join(format!("m{i:02}.obj")))
        .collect();
    r.until("50 rigged", |a| paths.iter().all(|p| rigged(a, p)));
    assert_eq!(r.app.assets.len(), 50);
    let c = r.app.counts();
    assert_eq!(
        (c.ok + c.low, c.failed, c.running, c.queued, c.empty),
        (50, 0, 0, 0, 0)
    );
    assert!(r.app.settled());
    for p in &paths {
        assert_eq!(r.count(p, "done"), 1, "{}", p.display());
    }
}

#[test]
fn corrupt_file_is_an_error_row_and_the_watcher_stays_alive() {
    let mut r = Rt::start();
    let bad = r.root().join("broken.obj");
    std::fs::write(&bad, "v 1 2\nf 1 2 3 4 5\nthis is not an obj\n").unwrap();
    r.until("broken finished", |a| finished(a, &bad));
    let i = r.app.find(&bad).unwrap();
    assert_eq!(r.app.assets[i].status(), RowStatus::Failed);
    // The watcher still works: a good file is rigged, and fixing the bad one retries it.
    let good = r.root().join("good.obj");
    std::fs::write(&good, character_obj(0)).unwrap();
    r.until("good rigged", |a| rigged(a, &good));
    std::fs::write(&bad, character_obj(1)).unwrap();
    r.until("fixed file rigged", |a| rigged(a, &bad));
}

#[test]
fn hint_edit_reruns_from_the_embedding() {
    let mut r = Rt::start();
    let p = r.root().join("hinted.obj");
    // A smooth character: the box figure of the other tests takes the box-figure path, which
    // has no discretization to reuse.
    let mesh = geppetto::demo::humanoid(1).mesh;
    std::fs::write(&p, geppetto::mesh::write::obj_string(&mesh)).unwrap();
    r.until("rigged", |a| rigged(a, &p));
    let i = r.app.find(&p).unwrap();
    let rig = r.app.assets[i].rig().unwrap().rig.clone();
    let joint = &rig.joints[rig.joints.len() / 2];
    // An external edit, as a user would make in vim.
    let yaml = format!(
        "hints:\n  - joint: {}\n    position: [{}, {}, {}]\n",
        joint.name, joint.position[0], joint.position[1], joint.position[2]
    );
    std::fs::write(geppetto::embed::hints::sidecar_path(&p), yaml).unwrap();
    r.until("re-rigged", |a| {
        a.assets[a.find(&p).unwrap()].runs >= 2 && finished(a, &p)
    });
    let a = &r.app.assets[r.app.find(&p).unwrap()];
    let info = a.rig().expect("still rigged");
    assert!(
        info.reused,
        "a hint edit must reuse the cached discretization"
    );
    assert_eq!(info.rig.hints.len(), 1);
    assert_eq!(info.rig.hints[0].joint, joint.name);
    drop(r.dir);
}

#[test]
fn polling_watcher_sees_new_files_in_new_subfolders() {
    let mut r = Rt::start_with(
        tempfile::tempdir().unwrap(),
        Some(Duration::from_millis(200)),
    );
    r.until("scan", |a| a.scan_done);
    let sub = r.root().join("new/deeper");
    std::fs::create_dir_all(&sub).unwrap();
    let p = sub.join("polled.obj");
    std::fs::write(&p, character_obj(0)).unwrap();
    r.until("polled rigged", |a| rigged(a, &p));
    assert_eq!(r.count(&p, "started"), 1);
}

#[test]
fn deleted_and_recreated_folder_is_reported_and_watched_again() {
    let mut r = Rt::start();
    let root = r.root();
    let a = root.join("a.obj");
    std::fs::write(&a, character_obj(0)).unwrap();
    r.until("a rigged", |app| rigged(app, &a));
    std::fs::remove_dir_all(&root).unwrap();
    r.until("the loss reported", |app| {
        app.assets.is_empty()
            && app
                .message
                .as_deref()
                .is_some_and(|m| m.contains("is gone"))
            && app.log.iter().any(|l| l.contains("is gone"))
    });
    // Re-created (a branch checkout, an rsync): a file saved into the new folder is rigged.
    std::fs::create_dir(&root).unwrap();
    let b = root.join("b.obj");
    std::fs::write(&b, character_obj(1)).unwrap();
    r.until("b rigged in the new folder", |app| rigged(app, &b));
    assert!(r.app.log.iter().any(|l| l.contains("is back")));
    assert!(r.app.out_dir.join("b.rig.json").is_file());
}

/// `bytes` written to `path` in `chunks` writes, the harness idling between them (a big file's
/// `cp`, `scp`, a file manager's copy).
fn write_in_chunks(r: &mut Rt, path: &Path, bytes: &[u8], chunks: usize) {
    let mut f = std::fs::File::create(path).unwrap();
    for c in bytes.chunks(bytes.len().div_ceil(chunks)) {
        f.write_all(c).unwrap();
        f.flush().unwrap();
        r.idle(Duration::from_millis(200));
    }
}

#[test]
fn our_glb_copied_in_several_writes_is_skipped_and_replaces_the_source_it_overwrites() {
    let mut r = Rt::start();
    let root = r.root();
    let alice = root.join("alice.obj");
    std::fs::write(&alice, character_obj(0)).unwrap();
    r.until("alice rigged", |a| rigged(a, &alice));
    let ours = std::fs::read(r.app.out_dir.join("alice.glb")).unwrap();
    // The same GLB as another tool would have written it (same length: the chunk sizes hold).
    let mut theirs = ours.clone();
    let at = ours
        .windows(9)
        .position(|w| w == b"geppetto ")
        .expect("our GLB names geppetto");
    theirs[at..at + 9].copy_from_slice(b"blender! ");

    let copy = root.join("copy.glb");
    write_in_chunks(&mut r, &copy, &ours, 4);
    let user = root.join("user.glb");
    std::fs::write(&user, &theirs).unwrap();
    r.until("the user's GLB rigged", |a| rigged(a, &user));
    // The user overwrites that source with one of our outputs, again in several writes.
    write_in_chunks(&mut r, &user, &ours, 4);
    r.until("both reported as ours", |a| {
        ["copy.glb", "user.glb"].iter().all(|n| {
            a.log
                .iter()
                .any(|l| l.starts_with(&format!("skipped: {n}")))
        })
    });
    r.idle(Duration::from_secs(2));
    assert_eq!(r.count(&copy, "started"), 0, "{:?}", r.events);
    assert_eq!(r.count(&user, "started"), 1, "{:?}", r.events);
    assert!(r.app.find(&copy).is_none() && r.app.find(&user).is_none());
    assert_eq!(r.app.assets.len(), 1, "{}", watch_support::dump(&r.app));
}
