//! The ingest state machine on a simulated clock and file system: settling, renames, editor
//! temp files, ignored outputs, hints edits.

use super::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::SystemTime;

struct World {
    ingest: Ingest,
    files: RefCell<HashMap<PathBuf, Stat>>,
    t0: Instant,
}

const SETTLE: Duration = Duration::from_millis(500);

impl World {
    fn new() -> Self {
        let root = PathBuf::from("/assets");
        Self {
            ingest: Ingest::new(
                root.clone(),
                root.join("rigged"),
                vec![Glob::new("**/*.obj"), Glob::new("**/*.glb")],
                SETTLE,
            ),
            files: RefCell::new(HashMap::new()),
            t0: Instant::now(),
        }
    }
    fn at(&self, ms: u64) -> Instant {
        self.t0 + Duration::from_millis(ms)
    }
    fn write(&mut self, name: &str, len: u64, ms: u64) -> Vec<FsChange> {
        let p = PathBuf::from("/assets").join(name);
        let s = Stat {
            len,
            modified: Some(SystemTime::UNIX_EPOCH + Duration::from_millis(ms)),
        };
        self.files.borrow_mut().insert(p.clone(), s);
        let now = self.at(ms);
        self.ingest.touch(&p, Some(s), now)
    }
    fn delete(&mut self, name: &str, ms: u64) -> Vec<FsChange> {
        let p = PathBuf::from("/assets").join(name);
        self.files.borrow_mut().remove(&p);
        let now = self.at(ms);
        self.ingest.touch(&p, None, now)
    }
    fn tick(&mut self, ms: u64) -> Vec<FsChange> {
        let files = self.files.borrow().clone();
        let now = self.at(ms);
        self.ingest.tick(now, &|p| files.get(p).copied())
    }
}

fn ready(name: &str) -> FsChange {
    FsChange::Ready(PathBuf::from("/assets").join(name))
}

#[test]
fn a_file_is_ready_only_after_it_settles() {
    let mut w = World::new();
    assert!(w.write("a.obj", 10, 0).is_empty());
    assert!(w.tick(100).is_empty());
    assert!(w.tick(499).is_empty());
    assert_eq!(w.tick(500), vec![ready("a.obj")]);
    assert!(w.tick(2000).is_empty(), "reported once");
}

#[test]
fn slow_chunked_writes_wait_for_the_last_chunk() {
    let mut w = World::new();
    w.write("slow.obj", 0, 0);
    let mut reported = Vec::new();
    for i in 1..=10u64 {
        // A chunk every 300 ms, each growing the file; the file changes under the ingest's feet
        // (no event needed: tick re-stats).
        let p = PathBuf::from("/assets/slow.obj");
        w.files.borrow_mut().insert(
            p,
            Stat {
                len: i * 100,
                modified: Some(SystemTime::UNIX_EPOCH + Duration::from_millis(i * 300)),
            },
        );
        reported.extend(w.tick(i * 300));
        reported.extend(w.tick(i * 300 + 150));
    }
    assert!(reported.is_empty(), "nothing while writing: {reported:?}");
    assert!(w.tick(3000 + 400).is_empty());
    assert_eq!(w.tick(3000 + 500), vec![ready("slow.obj")]);
}

#[test]
fn empty_files_are_reported_once_then_rigged_when_content_arrives() {
    let mut w = World::new();
    let e = PathBuf::from("/assets/e.obj");
    w.write("e.obj", 0, 0);
    assert_eq!(
        w.tick(5000),
        vec![FsChange::Empty(e.clone())],
        "a row says so"
    );
    w.write("e.obj", 0, 0); // a metadata-only event
    assert!(w.tick(6000).is_empty(), "reported once");
    w.write("e.obj", 5, 7000);
    assert_eq!(w.tick(7500), vec![ready("e.obj")]);
    w.delete("e.obj", 8000);
    w.write("f.obj", 0, 8000);
    assert_eq!(w.tick(9000), vec![FsChange::Empty("/assets/f.obj".into())]);
    assert_eq!(
        w.delete("f.obj", 9100),
        vec![FsChange::Removed("/assets/f.obj".into())]
    );
}

#[test]
fn metadata_only_events_do_not_rerig_but_real_changes_do() {
    let mut w = World::new();
    w.write("a.obj", 10, 0);
    assert_eq!(w.tick(600), vec![ready("a.obj")]);
    // Same stat touched again (chmod, close-nowrite): nothing.
    let p = PathBuf::from("/assets/a.obj");
    let s = w.files.borrow()[&p];
    w.ingest.touch(&p, Some(s), w.at(700));
    assert!(w.tick(1300).is_empty());
    // A real change (unreadable file fixed by the user, or a re-save).
    w.write("a.obj", 11, 1400);
    assert_eq!(w.tick(1900), vec![ready("a.obj")]);
}

#[test]
fn repeated_events_on_an_unchanged_file_do_not_delay_it() {
    let mut w = World::new();
    w.write("a.obj", 10, 0);
    let p = PathBuf::from("/assets/a.obj");
    let s = w.files.borrow()[&p];
    for ms in (50..500).step_by(50) {
        w.ingest.touch(&p, Some(s), w.at(ms));
        assert!(w.tick(ms).is_empty());
    }
    assert_eq!(w.tick(500), vec![ready("a.obj")]);
}

#[test]
fn rename_reports_old_removed_and_new_ready() {
    let mut w = World::new();
    w.write("a.obj", 10, 0);
    w.tick(600);
    let removed = w.delete("a.obj", 700);
    assert_eq!(removed, vec![FsChange::Removed("/assets/a.obj".into())]);
    w.write("b.obj", 10, 700);
    assert_eq!(w.tick(1200), vec![ready("b.obj")]);
}

#[test]
fn editor_temp_file_then_rename_rigs_the_target_once() {
    let mut w = World::new();
    // vim: writes ".a.obj.swp" / "a.obj~" / "4913", then renames over a.obj.
    assert!(w.write(".a.obj.swp", 10, 0).is_empty());
    assert!(w.write("a.obj~", 10, 0).is_empty());
    assert!(w.write(".geppetto-tmp-XYZ", 10, 0).is_empty());
    w.write("a.obj", 20, 10);
    // The backup `a.obj~` is another file (reported for the app to ignore), never a mesh.
    let meshes: Vec<FsChange> = w
        .tick(510)
        .into_iter()
        .filter(|c| !matches!(c, FsChange::File { .. }))
        .collect();
    assert_eq!(meshes, vec![ready("a.obj")]);
}

#[test]
fn outputs_are_ignored_and_non_meshes_are_other_files() {
    let w = World::new();
    let c = |s: &str| w.ingest.classify(Path::new(s));
    assert_eq!(c("/assets/rigged/a.glb"), Class::Ignored);
    assert_eq!(c("/assets/rigged/a.png"), Class::Ignored);
    assert_eq!(c("/assets/.hidden/a.png"), Class::Ignored);
    // Possible companions (textures, buffers, material libraries): watched, never rigged.
    assert_eq!(c("/assets/a.png"), Class::Other);
    assert_eq!(c("/assets/a.mtl"), Class::Other);
    assert_eq!(c("/elsewhere/a.obj"), Class::Ignored);
    assert_eq!(c("/assets/x/a.glb"), Class::Mesh);
    assert_eq!(
        c("/assets/x/a.hints.yaml"),
        Class::Hints("/assets/x/a".into())
    );
}

#[test]
fn a_folder_renamed_away_removes_its_meshes() {
    let mut w = World::new();
    w.write("sub/a.obj", 10, 0);
    w.write("sub/b.obj", 10, 0);
    w.write("other.obj", 10, 0);
    assert_eq!(w.tick(600).len(), 3);
    let out = w.ingest.vanished_under(Path::new("/assets/sub"));
    assert_eq!(
        out,
        vec![
            FsChange::Removed("/assets/sub/a.obj".into()),
            FsChange::Removed("/assets/sub/b.obj".into())
        ]
    );
    assert_eq!(w.ingest.meshes(), vec![PathBuf::from("/assets/other.obj")]);
}

#[test]
fn deleting_a_file_still_settling_reports_nothing() {
    let mut w = World::new();
    w.write("a.obj", 10, 0);
    assert!(w.delete("a.obj", 100).is_empty());
    assert!(w.tick(1000).is_empty());
}

#[test]
fn hints_edit_names_the_mesh() {
    let mut w = World::new();
    w.write("sub/a.obj", 10, 0);
    w.tick(600);
    w.write("sub/a.hints.yaml", 10, 700);
    let out = w.tick(1200);
    assert_eq!(out.len(), 1);
    match &out[0] {
        FsChange::HintsChanged { mesh, .. } => assert_eq!(mesh, Path::new("/assets/sub/a.obj")),
        other => panic!("{other:?}"),
    }
    // A sidecar without a mesh is ignored.
    w.write("sub/zzz.hints.yaml", 10, 700);
    assert!(w.tick(2000).is_empty());
}

fn file(name: &str, len: u64, ms: u64) -> FsChange {
    FsChange::File {
        path: PathBuf::from("/assets").join(name),
        stat: Some(Stat {
            len,
            modified: Some(SystemTime::UNIX_EPOCH + Duration::from_millis(ms)),
        }),
    }
}

#[test]
fn other_files_settle_then_report_changes_and_removals_once() {
    let mut w = World::new();
    // A `.bin` copied in chunks: nothing until it is stable, then one report with its stat.
    w.write("a.bin", 100, 0);
    assert!(w.tick(300).is_empty());
    w.write("a.bin", 200, 300);
    assert!(w.tick(700).is_empty());
    assert_eq!(w.tick(800), vec![file("a.bin", 200, 300)]);
    // Touched without a change: nothing; a real change: reported again.
    w.write("a.bin", 200, 300);
    assert!(w.tick(1500).is_empty());
    w.write("a.bin", 201, 1600);
    assert_eq!(w.tick(2100), vec![file("a.bin", 201, 1600)]);
    // Deleted: reported at once, with no stat; deleting an unreported file says nothing.
    assert_eq!(
        w.delete("a.bin", 2200),
        vec![FsChange::File {
            path: "/assets/a.bin".into(),
            stat: None
        }]
    );
    w.write("b.png", 5, 2300);
    assert!(w.delete("b.png", 2400).is_empty());
    assert!(w.tick(4000).is_empty());
    // Never a mesh: the scan does not list it.
    assert!(w.ingest.meshes().is_empty());
}

#[test]
fn a_folder_renamed_away_reports_its_other_files_gone() {
    let mut w = World::new();
    w.write("sub/a.mtl", 10, 0);
    w.tick(600);
    let out = w.ingest.vanished_under(Path::new("/assets/sub"));
    assert_eq!(
        out,
        vec![FsChange::File {
            path: "/assets/sub/a.mtl".into(),
            stat: None
        }]
    );
}
