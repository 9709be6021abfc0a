//! The watch UI's rig-edit worker on a real rig (a demo humanoid rigged by the pipeline): open a
//! session, move a joint, undo (bit-identical weights back), redo, save; the sidecar holds the
//! edit, the outputs carry it, and a re-rig of the mesh re-applies it through the pipeline's
//! replay. An edit that no longer applies is reported in rig.json's warnings, which the edit
//! pane shows.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::sync::Arc;
use std::time::Duration;

use geppetto::config::RigConfig;
use geppetto::edit::sidecar::{sidecar_path, EditLog, VERSION};
use geppetto::edit::EditOp;
use geppetto::export::Format;
use geppetto::pipeline::{Pipeline, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::Rig;
use geppetto::tui::app::Msg;
use geppetto::tui::edit_view::is_edit_warning;
use geppetto::tui::editor::{EditCmd, EditCmdBody, EditEvent, EditWorker, SaveTarget};

const JOINT: &str = "LeftForeArm";

fn rig_of(mesh: &Path) -> Rig {
    let pipeline = Pipeline::new(RigConfig::default());
    let req = RigRequest::with_sidecar(
        mesh,
        geppetto::choose::Template::parse("human").expect("template"),
    )
    .expect("request");
    pipeline.rig(&req, &NoProgress).expect("rig").rig
}

fn next(rx: &Receiver<Msg>) -> EditEvent {
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(Msg::Edit(ev)) => *ev,
        Ok(_) => panic!("unexpected message"),
        Err(e) => panic!("no reply from the edit worker: {e}"),
    }
}

fn send(w: &EditWorker, body: EditCmdBody) {
    w.send(EditCmd { session: 1, body });
}

fn position(rig: &Rig, name: &str) -> [f64; 3] {
    rig.joints
        .iter()
        .find(|j| j.name == name)
        .expect(name)
        .position
}

struct Folder {
    _dir: tempfile::TempDir,
    root: PathBuf,
    mesh: PathBuf,
}

fn folder() -> Folder {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().to_path_buf();
    let mesh = root.join("hero.obj");
    geppetto::mesh::write_obj(&geppetto::demo::humanoid(1).mesh, &mesh).expect("write mesh");
    Folder {
        _dir: dir,
        root,
        mesh,
    }
}

#[test]
fn move_undo_redo_save_and_the_rerig_reapplies_the_edit() {
    let f = folder();
    let rig = Arc::new(rig_of(&f.mesh));
    let (tx, rx) = channel();
    let target = SaveTarget {
        root: f.root.clone(),
        out_dir: f.root.join("rigged"),
        formats: vec![Format::Json, Format::Glb],
    };
    let w = EditWorker::start(RigConfig::default(), target, tx).expect("worker");
    send(
        &w,
        EditCmdBody::Open {
            mesh: f.mesh.clone(),
            rig: rig.clone(),
        },
    );
    let EditEvent::Ready { rig: base, .. } = next(&rx) else {
        panic!("ready expected");
    };
    assert_eq!(base.joints, rig.joints, "the session starts from the rig");
    let from = position(&base, JOINT);
    let to = [from[0], from[1] + 0.03 * base.max_extent(), from[2]];
    let op = EditOp::MoveJoint {
        joint: JOINT.into(),
        to,
        with_descendants: false,
    };
    send(
        &w,
        EditCmdBody::Apply {
            seq: 1,
            op: op.clone(),
        },
    );
    let EditEvent::Applied {
        rig: moved,
        outcome,
        ..
    } = next(&rx)
    else {
        panic!("applied expected");
    };
    assert_eq!(position(&moved, JOINT), to);
    assert!(!outcome.global && outcome.region > 0 && outcome.region < outcome.vertices);
    assert_ne!(
        moved.skin, base.skin,
        "the weights near the joint were re-solved"
    );

    send(&w, EditCmdBody::Undo { seq: 1 });
    let EditEvent::Undone { rig: back, seq, .. } = next(&rx) else {
        panic!("undone expected");
    };
    assert_eq!(seq, Some(1));
    assert_eq!(back.joints, base.joints);
    assert_eq!(
        back.skin, base.skin,
        "undo restores the weights bit for bit"
    );

    // Redo re-applies the same edit: the same result (deterministic).
    send(
        &w,
        EditCmdBody::Apply {
            seq: 2,
            op: op.clone(),
        },
    );
    let EditEvent::Applied { rig: again, .. } = next(&rx) else {
        panic!("applied expected");
    };
    assert_eq!(again.skin, moved.skin);

    // A refused edit leaves the rig alone and says why.
    let root = base.joints[0].name.clone();
    send(
        &w,
        EditCmdBody::Apply {
            seq: 3,
            op: EditOp::DeleteJoint { joint: root },
        },
    );
    let EditEvent::Refused { error, .. } = next(&rx) else {
        panic!("refused expected");
    };
    assert!(error.contains("root"), "{error}");

    send(
        &w,
        EditCmdBody::Save {
            ops: vec![op.clone()],
        },
    );
    let EditEvent::Saved { result, .. } = next(&rx) else {
        panic!("saved expected");
    };
    let saved = result.expect("save");
    let log = EditLog::load_for(&f.mesh)
        .expect("read")
        .expect("sidecar exists");
    assert_eq!(log.edits, vec![op]);
    assert_eq!(saved.sidecar, sidecar_path(&f.mesh));
    let json = f.root.join("rigged/hero.rig.json");
    assert!(saved.outputs.contains(&json) && f.root.join("rigged/hero.glb").exists());
    let written = Rig::load(&json).expect("rig.json");
    assert_eq!(position(&written, JOINT), to);
    send(&w, EditCmdBody::Close);
    drop(w);

    // A re-rig of the mesh re-applies the sidecar (global solve): same joint, same weights as
    // the saved rig (which the save refreshed globally for exactly this reason).
    let rerig = rig_of(&f.mesh);
    assert_eq!(position(&rerig, JOINT), to);
    assert!(
        rerig.warnings.iter().any(|w| w.starts_with("1 of 1 edits")),
        "{:?}",
        rerig.warnings
    );
    let diff = max_weight_diff(&rerig, &saved.rig);
    assert!(diff < 1e-9, "replay differs from the saved rig by {diff}");
}

fn max_weight_diff(a: &Rig, b: &Rig) -> f64 {
    let (Some(sa), Some(sb)) = (&a.skin, &b.skin) else {
        return f64::INFINITY;
    };
    let w = |r: &[(u32, f64)], j: u32| r.iter().find(|e| e.0 == j).map_or(0.0, |e| e.1);
    sa.iter()
        .zip(sb)
        .flat_map(|(x, y)| {
            x.iter()
                .chain(y)
                .map(move |e| (w(x, e.0) - w(y, e.0)).abs())
        })
        .fold(0.0, f64::max)
}

#[test]
fn an_edit_that_no_longer_applies_is_reported_not_dropped() {
    let f = folder();
    let log = EditLog {
        version: VERSION,
        edits: vec![
            EditOp::DeleteJoint {
                joint: "NoSuchJoint".into(),
            },
            EditOp::Magnitude {
                joint: JOINT.into(),
                c: 1.5,
            },
        ],
    };
    log.save(&sidecar_path(&f.mesh)).expect("write sidecar");
    let rig = rig_of(&f.mesh);
    let shown: Vec<&String> = rig.warnings.iter().filter(|w| is_edit_warning(w)).collect();
    assert!(
        shown
            .iter()
            .any(|w| w.contains("NoSuchJoint") && w.contains("skipped")),
        "{:?}",
        rig.warnings
    );
    assert!(
        shown.iter().any(|w| w.starts_with("1 of 2 edits")),
        "{:?}",
        rig.warnings
    );
}
