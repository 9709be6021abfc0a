//! Update-level tests of the edit mode's save and the watcher: the save's own write of the
//! edits sidecar is no change to re-rig for. Same harness as [`super`].

use super::*;

/// The rig read the edits sidecar (a companion: a hand-saved one re-rigs); the save's own write
/// of it, reported by the watcher, re-rigs nothing (the outputs already are the replay's), and
/// a later hand edit does.
#[test]
fn the_saves_own_sidecar_write_rerigs_nothing_a_hand_edit_does() {
    use crate::mesh::load::{Companion, FileStat};
    let stat = |len| {
        Some(FileStat {
            len,
            modified: None,
        })
    };
    let mut app = editing();
    let (mesh, file) = (std::path::Path::new("/w/a.obj"), "/w/a.edits.yaml");
    let seen = vec![Companion {
        path: file.into(),
        stat: None,
    }];
    app.companions.record(mesh, seen);
    update(&mut app, key(KeyCode::Left));
    answer_move(&mut app);
    update(&mut app, key(KeyCode::Char('w')));
    let rig = app.edit.as_ref().unwrap().rig.clone();
    let saved = Saved {
        sidecar: file.into(),
        sidecar_stat: stat(40),
        edits: 1,
        outputs: vec![],
        rig,
    };
    reply(&mut app, |session| EditEvent::Saved {
        session,
        result: Ok(saved),
    });
    let echo = FsChange::File {
        path: file.into(),
        stat: stat(40),
    };
    let fx = update(&mut app, Msg::Fs(echo));
    assert!(!fx.iter().any(|e| matches!(e, Effect::Rig(_))), "{fx:?}");
    let by_hand = FsChange::File {
        path: file.into(),
        stat: stat(55),
    };
    let fx = update(&mut app, Msg::Fs(by_hand));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Rig(p) if p == mesh)),
        "{fx:?}"
    );
}
