//! Update-level tests of clip playback (ticks, frames, pause, stale reports), and the helpers
//! other TUI tests share: a key message and an asset rigged with the box figure.

use super::*;
use crate::raster::figure::box_figure;
use crate::tui::app::Msg;
use crate::tui::update;
use crate::watch::{FsChange, JobDone, JobEvent, JobResult};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_image::picker::Picker;

const DT: Duration = Duration::from_millis(66);

pub(in crate::tui) fn key(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Feeds `update` a started and a finished job: `name` rigged with the box figure.
pub(in crate::tui) fn rigged(app: &mut App, name: &str, id: u64) {
    let (m, rig) = box_figure(true);
    let done = JobDone {
        rig,
        mesh: Arc::new(m),
        reused_discretization: false,
        outputs: Vec::new(),
        output_errors: Vec::new(),
        thumbnail: None,
    };
    let path = app.root.join(name);
    update(
        app,
        Msg::Job(JobEvent::Started {
            path: path.clone(),
            id,
        }),
    );
    update(
        app,
        Msg::Job(JobEvent::Finished {
            path,
            id,
            result: JobResult::Done(Box::new(done)),
            companions: Some(Vec::new()),
        }),
    );
}

/// Two rigged assets, `a.obj` selected; thumbnails are not requested (headless).
fn app() -> (App, Instant) {
    let t0 = Instant::now();
    let mut app = App::new("/w".into(), "/w/rigged".into(), t0);
    app.headless = true;
    let names = ["a.obj", "b.obj"].map(|n| app.root.join(n));
    update(&mut app, Msg::Fs(FsChange::ScanDone(names.to_vec())));
    rigged(&mut app, "a.obj", 1);
    rigged(&mut app, "b.obj", 2);
    (app, t0)
}

fn tiny_frame() -> Protocol {
    let img = image::RgbaImage::new(4, 4);
    super::super::runtime::encode(&Picker::halfblocks(), img, (4, 2)).unwrap()
}

fn play_key(app: &mut App) -> Vec<Effect> {
    update(app, key(KeyCode::Char(PLAY_KEY)))
}

/// Press play and deliver `rendered` of `total` frames.
fn started(app: &mut App, total: usize, rendered: usize) -> PlayKey {
    let fx = play_key(app);
    let [Effect::Play(req)] = fx.as_slice() else {
        panic!("one play request: {fx:?}");
    };
    let k = req.key.clone();
    let ev = PlayEvent::Started {
        key: k.clone(),
        clip: "walk".into(),
        total,
        frame_time: DT,
    };
    update(app, Msg::Play(Box::new(ev)));
    for index in 0..rendered {
        let protocol = tiny_frame();
        let ev = PlayEvent::Frame {
            key: k.clone(),
            index,
            protocol,
        };
        update(app, Msg::Play(Box::new(ev)));
    }
    k
}

fn shown(app: &App) -> usize {
    app.play.as_ref().expect("playing").shown
}

#[test]
fn play_requests_the_selected_assets_frames_and_ticks_advance_them() {
    let (mut app, t0) = app();
    let k = started(&mut app, 4, 4);
    assert_eq!(k.mesh, app.root.join("a.obj"));
    assert_eq!(k.run, 1);
    assert!(frame(&app).is_some());
    assert_eq!(shown(&app), 0);
    // Not yet due: the frame stays.
    update(&mut app, Msg::Tick(t0 + DT / 2));
    assert_eq!(shown(&app), 0);
    for (i, want) in [1, 2, 3, 0, 1].into_iter().enumerate() {
        update(&mut app, Msg::Tick(t0 + DT * (i as u32 + 1)));
        assert_eq!(shown(&app), want, "tick {i}: loops over the clip");
    }
    assert_eq!(deadline(&app), Some(t0 + DT * 6));
    assert!(title(&app).unwrap().contains("▶ walk 2/4"));
    // A late tick shows one frame, not a burst.
    update(&mut app, Msg::Tick(t0 + DT * 20));
    assert_eq!(shown(&app), 2);
    assert_eq!(deadline(&app), Some(t0 + DT * 21));
}

#[test]
fn a_frame_not_rendered_yet_holds_the_current_one() {
    let (mut app, t0) = app();
    let k = started(&mut app, 5, 2);
    update(&mut app, Msg::Tick(t0 + DT));
    assert_eq!(shown(&app), 1);
    update(&mut app, Msg::Tick(t0 + DT * 2));
    assert_eq!(shown(&app), 1, "frame 2 is not there yet");
    assert_eq!(deadline(&app), None, "no tick is due until frame 2 arrives");
    assert!(title(&app).unwrap().contains("rendering 2/5"));
    let ev = PlayEvent::Frame {
        key: k,
        index: 2,
        protocol: tiny_frame(),
    };
    update(&mut app, Msg::Play(Box::new(ev)));
    assert_eq!(
        deadline(&app),
        Some(t0 + DT * 2),
        "overdue: the loop ticks at once"
    );
    update(&mut app, Msg::Tick(t0 + DT * 3));
    assert_eq!(shown(&app), 2);
}

#[test]
fn pause_holds_the_frame_and_resume_continues_one_frame_later() {
    let (mut app, t0) = app();
    started(&mut app, 4, 4);
    update(&mut app, Msg::Tick(t0 + DT));
    assert_eq!(shown(&app), 1);
    assert!(play_key(&mut app).is_empty(), "pausing needs no work");
    assert!(title(&app).unwrap().contains("⏸ walk 2/4"));
    assert_eq!(deadline(&app), None, "a paused clip does not tick");
    for i in 2..6 {
        update(&mut app, Msg::Tick(t0 + DT * i));
    }
    assert_eq!(shown(&app), 1, "paused");
    assert!(play_key(&mut app).is_empty(), "resuming reuses the frames");
    update(&mut app, Msg::Tick(t0 + DT * 5 + DT / 2));
    assert_eq!(shown(&app), 1);
    update(&mut app, Msg::Tick(t0 + DT * 7));
    assert_eq!(shown(&app), 2);
}

#[test]
fn selection_change_rerig_and_edit_stop_playback() {
    let (mut app, _) = app();
    started(&mut app, 4, 4);
    let fx = update(&mut app, key(KeyCode::Down));
    assert!(matches!(fx.as_slice(), [Effect::PlayStop]), "{fx:?}");
    assert!(app.play.is_none());
    assert!(title(&app).is_none());

    started(&mut app, 4, 4); // b.obj
    assert_eq!(app.play.as_ref().unwrap().key.mesh, app.root.join("b.obj"));
    // A rig of another asset finishing changes nothing.
    rigged(&mut app, "a.obj", 3);
    assert!(app.play.is_some());
    // The selected asset re-rigs: its old frames show the old rig, so playback stops.
    let path = app.root.join("b.obj");
    let fx = update(&mut app, Msg::Job(JobEvent::Started { path, id: 4 }));
    assert!(fx.is_empty(), "a re-rig in progress keeps the clip: {fx:?}");
    rigged(&mut app, "b.obj", 4);
    assert!(app.play.is_none());

    started(&mut app, 4, 4);
    let fx = update(&mut app, key(KeyCode::Char('e')));
    assert!(matches!(fx.as_slice(), [Effect::PlayStop]), "{fx:?}");
    assert!(app.draft.is_some());
}

#[test]
fn stale_reports_are_dropped_and_a_failure_is_shown() {
    let (mut app, _) = app();
    let k = started(&mut app, 4, 1);
    let old = PlayKey {
        run: 0,
        ..k.clone()
    };
    let ev = PlayEvent::Frame {
        key: old.clone(),
        index: 1,
        protocol: tiny_frame(),
    };
    update(&mut app, Msg::Play(Box::new(ev)));
    assert_eq!(app.play.as_ref().unwrap().frames.len(), 1);
    let ev = PlayEvent::Failed {
        key: old,
        error: "stale".into(),
    };
    update(&mut app, Msg::Play(Box::new(ev)));
    assert!(app.play.is_some());
    let ev = PlayEvent::Failed {
        key: k,
        error: "clip `x` has no legs".into(),
    };
    update(&mut app, Msg::Play(Box::new(ev)));
    assert!(app.play.is_none());
    assert_eq!(
        app.message.as_deref(),
        Some("cannot play: clip `x` has no legs")
    );
}

#[test]
fn a_resize_re_renders_at_the_new_size_and_keeps_playing() {
    let (mut app, _) = app();
    let k = started(&mut app, 4, 4);
    let fx = update(&mut app, Msg::Resize(80, 24));
    let [Effect::Play(req)] = fx.as_slice() else {
        panic!("{fx:?}");
    };
    assert_ne!(req.key.cells, k.cells);
    let p = app.play.as_ref().unwrap();
    assert!(p.playing && p.frames.is_empty());
}

#[test]
fn no_rig_no_play() {
    let t0 = Instant::now();
    let mut app = App::new("/w".into(), "/w/rigged".into(), t0);
    update(
        &mut app,
        Msg::Fs(FsChange::ScanDone(vec!["/w/a.obj".into()])),
    );
    assert!(play_key(&mut app).is_empty());
    assert_eq!(app.message.as_deref(), Some("no rig to play yet"));
    assert!(app.play.is_none());
}
