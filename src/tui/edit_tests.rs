//! Update-level tests of the edit mode: scripted messages through `update`, no worker, no I/O
//! (the worker's replies are built by hand).

use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::edit::{Control, EditOutcome};
use crate::tui::app::Msg;
use crate::tui::editor::Saved;
use crate::tui::play::tests::{key, rigged};
use crate::tui::update;
use crate::watch::FsChange;

/// 1% of the box figure's largest extent (1.85).
const STEP: f64 = 0.0185;

fn shift(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::SHIFT))
}

/// An app with one rigged asset in edit mode, the session ready; LeftHand (index 4) selected.
fn editing() -> App {
    let mut app = App::new("/w".into(), "/w/rigged".into(), Instant::now());
    app.headless = true;
    update(
        &mut app,
        Msg::Fs(FsChange::ScanDone(vec!["/w/a.obj".into()])),
    );
    rigged(&mut app, "a.obj", 1);
    app.assets[0].joint = 4;
    let fx = update(&mut app, key(KeyCode::Char(EDIT_KEY)));
    assert!(
        matches!(fx.as_slice(), [Effect::Edit(c)] if matches!(c.body, EditCmdBody::Open { .. }))
    );
    let rig = app.edit.as_ref().unwrap().rig.clone();
    let controls = vec![Control::default(); rig.joints.len()];
    reply(&mut app, |session| EditEvent::Ready {
        session,
        rig,
        controls,
        ms: 1.0,
    });
    app
}

fn reply(app: &mut App, ev: impl FnOnce(u64) -> EditEvent) {
    let id = app.edit.as_ref().map_or(0, |e| e.id);
    update(app, Msg::Edit(Box::new(ev(id))));
}

/// The edit ops the effects send.
fn applied(fx: &[Effect]) -> Vec<EditOp> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::Edit(c) => match &c.body {
                EditCmdBody::Apply { op, .. } => Some(op.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The one edit the effects send.
fn one(fx: &[Effect]) -> EditOp {
    let ops = applied(fx);
    assert_eq!(ops.len(), 1, "{ops:?}");
    ops[0].clone()
}

/// Answer the last applied move as the worker would (the joint moves, nothing else).
fn answer_move(app: &mut App) {
    let e = app.edit.as_ref().unwrap();
    let (seq, op) = e.ops.last().cloned().unwrap();
    let EditOp::MoveJoint { joint, to, .. } = op else {
        panic!("a move");
    };
    let mut rig = (*e.rig).clone();
    rig.joints
        .iter_mut()
        .find(|j| j.name == joint)
        .unwrap()
        .position = to;
    let rig = Arc::new(rig);
    let outcome = EditOutcome::default();
    reply(app, |session| EditEvent::Applied {
        session,
        seq,
        rig,
        outcome,
    });
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12)
}

#[test]
fn selection_walks_the_hierarchy() {
    let mut app = editing();
    let name = |app: &App| app.edit.as_ref().unwrap().joint.clone();
    assert_eq!(name(&app), "LeftHand");
    update(&mut app, key(KeyCode::Char('[')));
    assert_eq!(name(&app), "LeftArm");
    update(&mut app, key(KeyCode::Char('[')));
    assert_eq!(name(&app), "Spine");
    update(&mut app, key(KeyCode::Char(']')));
    assert_eq!(name(&app), "Head", "first child");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(name(&app), "LeftArm");
    update(&mut app, key(KeyCode::BackTab));
    update(&mut app, key(KeyCode::BackTab));
    assert_eq!(name(&app), "Spine");
}

#[test]
fn arrows_move_in_the_active_views_plane_by_a_step_relative_to_the_model() {
    let mut app = editing();
    let fx = update(&mut app, key(KeyCode::Left));
    let EditOp::MoveJoint {
        joint,
        to,
        with_descendants,
    } = one(&fx)
    else {
        panic!("one move");
    };
    assert_eq!(joint, "LeftHand");
    assert!(!with_descendants);
    assert!(close(to, [0.75 - STEP, 1.5, 0.0]), "{to:?}");
    // A second press before the reply builds on the pending target, not the old position.
    let fx = update(&mut app, shift(KeyCode::Up));
    let EditOp::MoveJoint { to, .. } = one(&fx) else {
        panic!("one move");
    };
    assert!(
        close(to, [0.75 - STEP, 1.5 + STEP / 5.0, 0.0]),
        "fine step: {to:?}"
    );
    // The side view: right is +Z, depth is X; `d` carries the children.
    update(&mut app, key(KeyCode::Char('v')));
    update(&mut app, key(KeyCode::Char('d')));
    let fx = update(&mut app, key(KeyCode::Right));
    let EditOp::MoveJoint {
        to,
        with_descendants,
        ..
    } = one(&fx)
    else {
        panic!("one move");
    };
    assert!(with_descendants);
    assert!(close(to, [0.75 - STEP, 1.5 + STEP / 5.0, STEP]), "{to:?}");
    let fx = update(&mut app, key(KeyCode::Char('.')));
    let EditOp::MoveJoint { to, .. } = one(&fx) else {
        panic!("one move");
    };
    assert!(close(to, [0.75, 1.5 + STEP / 5.0, STEP]), "{to:?}");
    assert_eq!(app.edit.as_ref().unwrap().pending, 4);
}

#[test]
fn arrows_follow_the_way_the_rig_stands() {
    // A character saved +Z up facing -Y is drawn upright, so ↑ must move it up (+Z) and → in
    // the side view forward (-Y), not along the mesh's Y.
    let mut app = editing();
    let e = app.edit.as_mut().unwrap();
    let mut rig = (*e.rig).clone();
    rig.orientation = "+Z up, -Y forward".into();
    e.rig = Arc::new(rig);
    let fx = update(&mut app, key(KeyCode::Up));
    let EditOp::MoveJoint { to, .. } = one(&fx) else {
        panic!("one move");
    };
    assert!(close(to, [0.75, 1.5, STEP]), "up is +Z: {to:?}");
    update(&mut app, key(KeyCode::Char('v')));
    let fx = update(&mut app, key(KeyCode::Right));
    let EditOp::MoveJoint { to, .. } = one(&fx) else {
        panic!("one move");
    };
    assert!(
        close(to, [0.75, 1.5 - STEP, STEP]),
        "side right is -Y: {to:?}"
    );
}

#[test]
fn undo_sends_the_last_edit_back_and_redo_reapplies_it() {
    let mut app = editing();
    update(&mut app, key(KeyCode::Left));
    answer_move(&mut app);
    update(&mut app, key(KeyCode::Left));
    answer_move(&mut app);
    let e = app.edit.as_ref().unwrap();
    assert_eq!((e.ops.len(), e.redo.len(), e.pending), (2, 0, 0));
    let second = e.ops[1].1.clone();
    let fx = update(&mut app, key(KeyCode::Char('u')));
    assert!(
        matches!(fx.as_slice(), [Effect::Edit(c)] if matches!(c.body, EditCmdBody::Undo { seq: 2 }))
    );
    let e = app.edit.as_ref().unwrap();
    assert_eq!((e.ops.len(), e.redo.len()), (1, 1));
    let fx = update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL)),
    );
    assert_eq!(applied(&fx), vec![second]);
    let e = app.edit.as_ref().unwrap();
    assert_eq!((e.ops.len(), e.redo.len()), (2, 0));
    assert_eq!(e.ops[1].0, 3, "a redo is a new edit number");
    // A new edit clears the redo stack.
    update(&mut app, key(KeyCode::Char('u')));
    update(&mut app, key(KeyCode::Char('+')));
    assert!(app.edit.as_ref().unwrap().redo.is_empty());
    update(&mut app, key(KeyCode::Char('u')));
    update(&mut app, key(KeyCode::Char('u')));
    update(&mut app, key(KeyCode::Char('u')));
    assert_eq!(app.message.as_deref(), Some("nothing to undo"));
}

#[test]
fn a_refused_edit_leaves_the_stack_and_is_shown() {
    let mut app = editing();
    for _ in 0..4 {
        update(&mut app, key(KeyCode::Char('['))); // to the root
    }
    assert_eq!(app.edit.as_ref().unwrap().joint, "Hips");
    let fx = update(&mut app, key(KeyCode::Char('x')));
    assert_eq!(
        applied(&fx),
        vec![EditOp::DeleteJoint {
            joint: "Hips".into()
        }]
    );
    let error = "delete refused: Hips is a root and cannot be deleted".to_string();
    reply(&mut app, |session| EditEvent::Refused {
        session,
        seq: 1,
        error,
    });
    let e = app.edit.as_ref().unwrap();
    assert!(e.ops.is_empty() && !e.dirty());
    assert_eq!(e.problems.len(), 1);
    assert!(app.message.as_deref().unwrap().contains("is a root"));
}

#[test]
fn magnitude_keys_step_the_heat_constant() {
    let mut app = editing();
    let fx = update(&mut app, key(KeyCode::Char('+')));
    assert_eq!(
        applied(&fx),
        vec![EditOp::Magnitude {
            joint: "LeftHand".into(),
            c: 1.25
        }]
    );
    let fx = update(&mut app, key(KeyCode::Char('-')));
    assert_eq!(
        applied(&fx),
        vec![EditOp::Magnitude {
            joint: "LeftHand".into(),
            c: 1.0
        }]
    );
}

#[test]
fn smoothness_keys_step_b_within_its_bounds() {
    let mut app = editing();
    update(&mut app, key(KeyCode::Char('4'))); // smoothness mode: arrows step b
    let fx = update(&mut app, key(KeyCode::Up));
    assert_eq!(
        applied(&fx),
        vec![EditOp::Smoothness {
            joint: "LeftHand".into(),
            b: 0.1
        }]
    );
    let fx = update(&mut app, key(KeyCode::Char('<')));
    assert_eq!(
        applied(&fx),
        vec![EditOp::Smoothness {
            joint: "LeftHand".into(),
            b: 0.0
        }]
    );
    let fx = update(&mut app, key(KeyCode::Char('<')));
    assert!(fx.is_empty(), "b stays in [0, 0.95]");
}

#[test]
fn range_mode_arrows_move_the_handle_and_its_virtual_bone() {
    let mut app = editing();
    update(&mut app, key(KeyCode::Char('2'))); // range mode: arrows move the handle
    let fx = update(&mut app, key(KeyCode::Right));
    let EditOp::Handle { offset, .. } = one(&fx) else {
        panic!("a handle edit");
    };
    assert!(close(offset, [STEP, 0.0, 0.0]));
    let h = app.edit.as_ref().unwrap().range_handle();
    let h = h.expect("the handle is drawn in range mode");
    assert!(close(
        [0, 1, 2].map(|i| h.handle[i] - h.joint[i]),
        [STEP, 0.0, 0.0]
    ));
    // LeftHand is a leaf: one virtual bone, from its parent's handle to its own.
    assert_eq!(h.reach.len(), 1);
    assert_eq!(h.reach[0][1], h.handle);
}

#[test]
fn insert_selects_the_new_joint_and_align_completes_a_leafs_chain() {
    let mut app = editing();
    let fx = update(&mut app, key(KeyCode::Char('i')));
    assert_eq!(
        applied(&fx),
        vec![EditOp::InsertJoint {
            child: "LeftHand".into(),
            at: 0.5,
            name: "LeftHand_split".into()
        }]
    );
    assert_eq!(
        app.edit.as_ref().unwrap().joint,
        "LeftHand_split",
        "the new joint is selected"
    );
    // Align: LeftHand is a leaf, so its parents complete the chain of three.
    let e = app.edit.as_mut().unwrap();
    e.select(4);
    let chain = crate::tui::edit_keys::chain_from(e);
    assert_eq!(chain, vec![1, 3, 4]);
}

#[test]
fn a_quit_after_a_leave_warning_asks_again_instead_of_dropping_the_edits() {
    let mut app = editing();
    update(&mut app, key(KeyCode::Left));
    answer_move(&mut app);
    assert!(update(&mut app, key(KeyCode::Char('E'))).is_empty());
    let fx = update(&mut app, key(KeyCode::Char('q')));
    assert!(fx.is_empty(), "the q was never confirmed: {fx:?}");
    assert!(!app.quit && app.edit.is_some());
    assert!(app
        .message
        .as_deref()
        .unwrap_or("")
        .contains("press q again to quit"));
    let fx = update(&mut app, key(KeyCode::Char('q')));
    assert!(app.quit, "the second q quits: {fx:?}");
}

#[test]
fn save_sends_the_stack_and_leaving_unsaved_asks_first() {
    let mut app = editing();
    update(&mut app, key(KeyCode::Left));
    answer_move(&mut app);
    let fx = update(&mut app, key(KeyCode::Char('E')));
    assert!(fx.is_empty(), "unsaved: the first leave only warns");
    assert!(app.edit.is_some());
    let fx = update(&mut app, key(KeyCode::Char('w')));
    let [Effect::Edit(c)] = fx.as_slice() else {
        panic!("{fx:?}");
    };
    let EditCmdBody::Save { ops } = &c.body else {
        panic!("a save");
    };
    assert_eq!(ops.len(), 1);
    let rig = app.edit.as_ref().unwrap().rig.clone();
    let saved = Saved {
        sidecar: "/w/a.edits.yaml".into(),
        sidecar_stat: None,
        edits: 1,
        outputs: vec![],
        rig: rig.clone(),
    };
    reply(&mut app, |session| EditEvent::Saved {
        session,
        result: Ok(saved),
    });
    assert!(!app.edit.as_ref().unwrap().dirty());
    assert!(
        Arc::ptr_eq(&app.assets[0].rig().unwrap().rig, &rig),
        "the asset shows the saved rig"
    );
    let fx = update(&mut app, key(KeyCode::Char('E')));
    assert!(matches!(fx.as_slice(), [Effect::Edit(c)] if matches!(c.body, EditCmdBody::Close)));
    assert!(app.edit.is_none());
    assert_eq!(app.assets[0].joint, 4, "the selection carries over");
}

#[test]
fn a_rerig_of_the_asset_closes_the_session() {
    let mut app = editing();
    update(&mut app, key(KeyCode::Left));
    rigged(&mut app, "a.obj", 2);
    assert!(app.edit.is_none());
    assert!(app
        .message
        .as_deref()
        .unwrap()
        .contains("re-rigged (1 unsaved edit dropped)"));
    // Replies of the closed session are ignored.
    let rig = app.assets[0].rig().unwrap().rig.clone();
    update(
        &mut app,
        Msg::Edit(Box::new(EditEvent::Undone {
            session: 1,
            seq: None,
            rig,
        })),
    );
    assert!(app.edit.is_none());
}

#[path = "edit_mouse_tests.rs"]
mod mouse;
#[path = "edit_save_tests.rs"]
mod save;
