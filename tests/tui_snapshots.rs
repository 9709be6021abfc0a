//! Snapshot tests of the main screens (ratatui TestBackend + insta), driven by scripted messages
//! through `update` exactly as the runtime would deliver them. Paths are synthetic (`/assets`) and
//! the clock is injected, so the screens are deterministic without filters.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use geppetto::motion::procedural::Clip;
use geppetto::motion::MotionSource;
use geppetto::progress::Stage;
use geppetto::raster::figure::box_figure;
use geppetto::rig::Status;
use geppetto::tui::app::Counts;
use geppetto::tui::app::{App, Effect, Msg};
use geppetto::tui::editor::{EditCmdBody, EditEvent};
use geppetto::tui::player::render_clip;
use geppetto::tui::runtime::render_request;
use geppetto::tui::update;
use geppetto::tui::view;
use geppetto::watch::{FsChange, JobDone, JobEvent, JobResult};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use ratatui_image::picker::Picker;

const W: u16 = 120;
const H: u16 = 36;

fn root() -> PathBuf {
    PathBuf::from("/assets")
}

fn mesh(name: &str) -> PathBuf {
    root().join(name)
}

fn key(c: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// A harness: the app, a clock, and thumbnails rendered synchronously with half-blocks.
struct Harness {
    app: App,
    t0: Instant,
    picker: Picker,
    /// Effects other than thumbnails, described.
    effects: Vec<String>,
    /// Thumbnails rendered.
    thumbnails: usize,
    /// Commands for the edit worker, not answered yet.
    edit_cmds: Vec<geppetto::tui::editor::EditCmd>,
    /// The fake edit worker's rigs (undo pops).
    edit_rigs: Vec<Arc<geppetto::rig::Rig>>,
}

impl Harness {
    fn new() -> Self {
        let t0 = Instant::now();
        let mut app = App::new(root(), root().join("rigged"), t0);
        app.size = (W, H);
        Self {
            app,
            t0,
            picker: Picker::halfblocks(),
            effects: Vec::new(),
            thumbnails: 0,
            edit_cmds: Vec::new(),
            edit_rigs: Vec::new(),
        }
    }

    fn send(&mut self, msg: Msg) {
        for e in update(&mut self.app, msg) {
            match e {
                // Render thumbnails at once, as the raster thread would.
                Effect::Thumbnail(req) => {
                    let ready = render_request(&self.picker, &req).expect("thumbnail renders");
                    self.send(Msg::Thumb(Box::new(ready)));
                    self.thumbnails += 1;
                }
                // Render the clip at once, as the player thread would.
                Effect::Play(req) => {
                    let mut events = Vec::new();
                    let source = MotionSource::Clip(Clip::Walk);
                    render_clip(&self.picker, &source, &req, &|| false, &mut |ev| {
                        events.push(ev);
                        true
                    });
                    self.effects.push(describe(&Effect::Play(req)));
                    for ev in events {
                        self.send(Msg::Play(Box::new(ev)));
                    }
                }
                Effect::Edit(c) => {
                    self.effects.push(describe(&Effect::Edit(c.clone())));
                    self.edit_cmds.push(*c);
                }
                other => self.effects.push(describe(&other)),
            }
        }
    }

    /// Answer the edit commands as the worker would, with a fake session: moves change the
    /// joint only, and every solve reports the same region and time.
    fn edit_worker(&mut self) {
        use geppetto::tui::editor::Saved;
        for c in std::mem::take(&mut self.edit_cmds) {
            let session = c.session;
            let ev = match c.body {
                EditCmdBody::Open { rig, .. } => {
                    self.edit_rigs = vec![rig.clone()];
                    let controls = vec![Default::default(); rig.joints.len()];
                    EditEvent::Ready {
                        session,
                        rig,
                        controls,
                        ms: 850.0,
                    }
                }
                EditCmdBody::Apply { seq, op } => match &op {
                    geppetto::edit::EditOp::MoveJoint { joint, to, .. } => {
                        let mut rig = (**self.edit_rigs.last().unwrap()).clone();
                        let j = rig.joints.iter_mut().find(|j| &j.name == joint).unwrap();
                        j.position = *to;
                        let rig = Arc::new(rig);
                        self.edit_rigs.push(rig.clone());
                        let outcome = geppetto::edit::EditOutcome {
                            op: op.label(),
                            region: 24,
                            vertices: 64,
                            columns: 2,
                            total_ms: 4.5,
                            ..Default::default()
                        };
                        EditEvent::Applied {
                            session,
                            seq,
                            rig,
                            outcome,
                        }
                    }
                    _ => EditEvent::Refused {
                        session,
                        seq,
                        error: "not in the fake".into(),
                    },
                },
                EditCmdBody::Undo { seq } => {
                    self.edit_rigs.pop();
                    let rig = self.edit_rigs.last().unwrap().clone();
                    EditEvent::Undone {
                        session,
                        seq: Some(seq),
                        rig,
                    }
                }
                EditCmdBody::Save { ops } => EditEvent::Saved {
                    session,
                    result: Ok(Saved {
                        sidecar: mesh("alice.edits.yaml"),
                        sidecar_stat: None,
                        edits: ops.len(),
                        outputs: vec![root().join("rigged/alice.rig.json")],
                        rig: self.edit_rigs.last().unwrap().clone(),
                    }),
                },
                EditCmdBody::Close => continue,
            };
            self.send(Msg::Edit(Box::new(ev)));
        }
    }

    fn at(&mut self, secs: f64) {
        self.send(Msg::Tick(self.t0 + Duration::from_secs_f64(secs)));
    }

    fn job(&mut self, e: JobEvent) {
        self.send(Msg::Job(e));
    }

    fn done(&mut self, name: &str, id: u64, status: Status, penalty: f64) {
        self.done_with(name, id, status, penalty, |_| {});
    }

    /// As `done`, with the rig adjusted by `edit` before it is delivered.
    fn done_with(
        &mut self,
        name: &str,
        id: u64,
        status: Status,
        penalty: f64,
        edit: impl FnOnce(&mut geppetto::rig::Rig),
    ) {
        let (m, mut rig) = box_figure(true);
        rig.mesh = mesh(name).display().to_string();
        rig.status = status;
        rig.penalty.total = penalty;
        for (i, t) in geppetto::embed::PENALTY_TERMS.iter().enumerate() {
            rig.penalty.terms.insert(
                (*t).to_string(),
                penalty * [0.5, 0.1, 0.05, 0.1, 0.05, 0.0, 0.15, 0.05, 0.0][i],
            );
        }
        if status == Status::LowConfidence {
            rig.confidence_reasons = vec!["LeftHand lies outside the surface".into()];
            rig.warnings = vec!["low confidence: LeftHand lies outside the surface".into()];
        }
        rig.repair.input_vertices = m.positions.len();
        rig.repair.welded_vertices = 0; // eight closed boxes: no coincident vertices
        rig.repair.input_triangles = m.triangles.len();
        rig.repair.shells = 8;
        rig.repair.watertight = true;
        for (s, ms) in [
            ("load", 3.0),
            ("prepare", 5.0),
            ("field", 420.0),
            ("embed", 910.0),
            ("skin", 300.0),
            ("total", 1650.0),
        ] {
            rig.timings_ms.insert(s.into(), ms);
        }
        edit(&mut rig);
        let stem = name.trim_end_matches(".obj");
        // bob's GLB could not be written (a read-only file the user left in the output folder).
        let (outputs, output_errors) = if stem == "bob" {
            (
                vec!["rig.json", "png"],
                vec![format!(
                    "{}: cannot write: Permission denied (os error 13)",
                    root().join("rigged/bob.glb").display()
                )],
            )
        } else {
            (vec!["rig.json", "glb", "png"], Vec::new())
        };
        let done = JobDone {
            rig,
            mesh: Arc::new(m),
            reused_discretization: false,
            outputs: outputs
                .iter()
                .map(|s| root().join(format!("rigged/{stem}.{s}")))
                .collect(),
            output_errors,
            thumbnail: Some(root().join(format!("rigged/{stem}.png"))),
        };
        self.job(JobEvent::Finished {
            path: mesh(name),
            id,
            result: JobResult::Done(Box::new(done)),
            companions: None,
        });
    }

    /// The screen as text. The thumbnail's pixels are replaced by a label with its size: the
    /// rasterizer has its own golden tests, and a text snapshot must not change with them.
    fn screen(&self) -> String {
        let (w, h) = self.app.size;
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| {
            view::render(&self.app, f);
            let shown = self.app.thumb.as_ref().filter(|t| {
                self.app.current().is_some_and(|a| a.path == t.key.mesh) // as the view decides
            });
            let label = match (&self.app.play, shown) {
                (Some(p), _) if !p.frames.is_empty() => Some(format!(
                    "[clip frame {} of {}: {}]",
                    p.shown + 1,
                    p.total,
                    p.key.mesh.display()
                )),
                (_, Some(thumb)) => Some(format!(
                    "[thumbnail {}x{} px: {}]",
                    thumb.key.view.width,
                    thumb.key.view.height,
                    thumb.key.mesh.display()
                )),
                _ => None,
            };
            if let Some(label) = label {
                let area = geppetto::tui::layout::of(&self.app).thumb;
                let buf = f.buffer_mut();
                for y in area.top()..area.bottom() {
                    for x in area.left()..area.right() {
                        buf[(x, y)].reset();
                    }
                }
                buf.set_string(area.x, area.y, label, ratatui::style::Style::new());
            }
        })
        .unwrap();
        format!("{}", t.backend())
    }
}

fn describe(e: &Effect) -> String {
    match e {
        Effect::Rig(p) => format!("Rig({})", p.display()),
        Effect::Cancel(p) => format!("Cancel({})", p.display()),
        Effect::SaveHints { mesh, hints } => format!(
            "SaveHints({}: {})",
            mesh.display(),
            hints
                .hints
                .iter()
                .map(|h| h.joint.as_str())
                .collect::<Vec<_>>()
                .join(",")
        ),
        Effect::Thumbnail(_) => "Thumbnail".into(),
        Effect::Play(req) => format!("Play({})", req.key.mesh.display()),
        Effect::PlayStop => "PlayStop".into(),
        Effect::Edit(c) => match &c.body {
            EditCmdBody::Open { mesh, .. } => format!("EditOpen({})", mesh.display()),
            EditCmdBody::Apply { op, .. } => format!("EditApply({})", op.label()),
            EditCmdBody::Undo { seq } => format!("EditUndo({seq})"),
            EditCmdBody::Save { ops } => format!("EditSave({} edits)", ops.len()),
            EditCmdBody::Close => "EditClose".into(),
        },
        Effect::Quit => "Quit".into(),
    }
}

/// Four assets in every state: ok, low confidence, failed, running.
fn busy_folder() -> Harness {
    let mut h = Harness::new();
    let names = ["alice.obj", "bob.obj", "broken.obj", "dragon.obj"];
    h.send(Msg::Fs(FsChange::ScanDone(
        names.iter().map(|n| mesh(n)).collect(),
    )));
    for n in names {
        h.send(Msg::Fs(FsChange::Ready(mesh(n))));
    }
    h.job(JobEvent::Started {
        path: mesh("alice.obj"),
        id: 1,
    });
    h.job(JobEvent::Started {
        path: mesh("bob.obj"),
        id: 2,
    });
    h.done("alice.obj", 1, Status::Ok, 0.0421);
    h.done("bob.obj", 2, Status::LowConfidence, 0.31);
    h.job(JobEvent::Started {
        path: mesh("broken.obj"),
        id: 3,
    });
    h.job(JobEvent::Finished {
        path: mesh("broken.obj"),
        id: 3,
        result: JobResult::Failed(
            "/assets/broken.obj: line 3: expected 3 numbers after 'v', found 'v 1 2'".into(),
        ),
        companions: None,
    });
    h.at(10.0);
    h.job(JobEvent::Started {
        path: mesh("dragon.obj"),
        id: 4,
    });
    h.job(JobEvent::Stage {
        path: mesh("dragon.obj"),
        id: 4,
        stage: Stage::Field,
    });
    h.job(JobEvent::Fraction {
        path: mesh("dragon.obj"),
        id: 4,
        fraction: 0.42,
    });
    h.at(12.5);
    h
}

#[test]
fn empty_folder() {
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![])));
    insta::assert_snapshot!(h.screen());
}

#[test]
fn list_and_detail_of_a_good_rig() {
    let h = busy_folder();
    assert_eq!(
        h.app.counts(),
        Counts {
            ok: 1,
            failed: 2,
            running: 1,
            ..Counts::default()
        },
        "bob (outputs not written) counts with the failures"
    );
    insta::assert_snapshot!(h.screen());
}

/// A multi-component report as the method writes it: one floating part, one extra limb, one
/// template limb left without a branch.
fn multipart_report() -> geppetto::rig::MultipartReport {
    let limb = |limb: &str, parts, cost, primary| geppetto::multipart::LimbMap {
        limb: limb.into(),
        parts,
        cost,
        primary,
    };
    geppetto::rig::MultipartReport {
        components: 8,
        contact_edges: 8,
        forced_links: 1,
        floating_shells: vec![7],
        high_tree: [8, 5],
        low_tree: [4, 3],
        limbs: vec![
            limb("LeftHand", 2, 0.125, true),
            limb("RightHand", 2, 0.25, true),
            limb("LeftFoot", 1, 0.5, true),
            limb("Tail", 1, 1.5, false),
        ],
        unmapped_limbs: vec!["RightFoot".into()],
        unmapped_nodes: 1,
        ..Default::default()
    }
}

/// Every key of the help bar is on an 80x24 screen (the most common terminal size), browsing
/// and in edit mode: the bar wraps instead of cutting the keys off.
#[test]
fn every_key_shows_at_80x24() {
    let mut h = busy_folder();
    h.send(Msg::Resize(80, 24));
    let screen = h.screen();
    let has = |screen: &str, k: &str, what: &str| screen.contains(&format!("{k} {what}"));
    for (k, what) in geppetto::tui::help::HELP {
        assert!(
            has(&screen, k, what),
            "key {k} ({what}) missing at 80x24:\n{screen}"
        );
    }
    insta::assert_snapshot!("browsing_at_80x24", screen);
    h.send(key(KeyCode::Char('E')));
    h.edit_worker();
    let screen = h.screen();
    for (k, what) in geppetto::tui::help::EDIT_HELP {
        assert!(
            has(&screen, k, what),
            "edit key {k} ({what}) missing at 80x24:\n{screen}"
        );
    }
}

#[test]
fn multipart_rig_detail_names_the_method_and_the_limb_mapping() {
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![mesh("robot.obj")])));
    h.send(Msg::Fs(FsChange::Ready(mesh("robot.obj"))));
    h.job(JobEvent::Started {
        path: mesh("robot.obj"),
        id: 1,
    });
    h.done_with("robot.obj", 1, Status::Ok, 0.0, |rig| {
        rig.method = geppetto::rig::METHOD_MULTIPART.into();
        rig.multipart = Some(multipart_report());
    });
    h.at(3.0);
    let screen = h.screen();
    for want in [
        "multi-component method (Bharaj et al. 2012)",
        "8 components",
        "1 forced link)",
        "shells #7",
        "limb RightHand",
        "limbs no branch mapped to: RightFoot",
    ] {
        assert!(screen.contains(want), "missing {want:?}:\n{screen}");
    }
    insta::assert_snapshot!(screen);
}

#[test]
fn failures_first_and_the_error_row() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Char('f')));
    h.send(key(KeyCode::Up));
    h.send(key(KeyCode::Up)); // top of the list: the failure
    assert_eq!(h.app.current().unwrap().name, "broken.obj");
    insta::assert_snapshot!(h.screen());
}

#[test]
fn low_confidence_detail_with_suggestions() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Down));
    assert_eq!(h.app.current().unwrap().name, "bob.obj");
    let screen = h.screen();
    assert!(screen.contains("pin LeftHand (the left"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn editing_a_joint_then_pinning_writes_hints_and_rerigs() {
    let mut h = busy_folder();
    for _ in 0..4 {
        h.send(key(KeyCode::Tab)); // Hips → Spine → Head → LeftArm → LeftHand
    }
    h.send(key(KeyCode::Char('e')));
    h.send(key(KeyCode::Left));
    h.send(key(KeyCode::Left));
    h.send(key(KeyCode::Up));
    let d = h.app.draft.clone().expect("editing");
    // 1% of the 1.85-unit model per step.
    assert!(
        (d.pos[0] - (0.75 - 2.0 * 0.0185)).abs() < 1e-9 && (d.pos[1] - (1.5 + 0.0185)).abs() < 1e-9,
        "{d:?}"
    );
    insta::assert_snapshot!("editing_joint", h.screen());
    h.effects.clear();
    h.send(key(KeyCode::Char('p')));
    assert_eq!(
        h.effects,
        vec![
            "SaveHints(/assets/alice.obj: LeftHand)",
            "Rig(/assets/alice.obj)"
        ]
    );
    assert!(h.app.draft.is_none());
    // The watcher's echo of our own write does not re-rig again.
    let yaml = h.app.current().unwrap().hints.to_yaml();
    h.effects.clear();
    h.send(Msg::Fs(FsChange::HintsChanged {
        mesh: mesh("alice.obj"),
        text: Some(yaml),
    }));
    assert!(
        h.effects.iter().all(|e| !e.starts_with("Rig")),
        "{:?}",
        h.effects
    );
    // Undo writes the previous (empty) hints and re-rigs.
    h.effects.clear();
    h.send(key(KeyCode::Char('z')));
    assert_eq!(
        h.effects,
        vec!["SaveHints(/assets/alice.obj: )", "Rig(/assets/alice.obj)"]
    );
    h.effects.clear();
    h.send(key(KeyCode::Char('z')));
    assert!(h.effects.is_empty());
    assert_eq!(h.app.message.as_deref(), Some("nothing to undo"));
}

#[test]
fn typing_coordinates_pins_there() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Tab));
    h.send(key(KeyCode::Char('c')));
    let line = h.app.input.clone().expect("input open");
    assert_eq!(line, "0.0000 1.3000 0.0000");
    for _ in 0..line.len() {
        h.send(key(KeyCode::Backspace));
    }
    for c in "0.1 1.25 -0.02".chars() {
        h.send(key(KeyCode::Char(c)));
    }
    insta::assert_snapshot!("typing_coordinates", h.screen());
    h.effects.clear();
    h.send(key(KeyCode::Enter));
    assert_eq!(
        h.effects,
        vec![
            "SaveHints(/assets/alice.obj: Spine)",
            "Rig(/assets/alice.obj)"
        ]
    );
    let pinned = &h.app.current().unwrap().hints.hints[0];
    assert_eq!(pinned.position, [0.1, 1.25, -0.02]);
}

#[test]
fn typed_coordinates_that_do_not_parse_say_why_on_the_open_line() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Tab));
    h.send(key(KeyCode::Char('c')));
    for c in " 1 0".chars() {
        h.send(key(KeyCode::Char(c)));
    }
    h.effects.clear();
    h.send(key(KeyCode::Enter));
    assert!(h.effects.is_empty(), "{:?}", h.effects);
    assert!(h.app.input.is_some(), "the line stays open");
    let screen = h.screen();
    let status = screen
        .lines()
        .find(|l| l.contains("x y z (mesh units)"))
        .expect("input line shown");
    assert!(status.contains("type three numbers"), "{status}");
    // Editing the line again clears the complaint.
    h.send(key(KeyCode::Backspace));
    assert!(h.app.message.is_none());
}

#[test]
fn mouse_click_in_the_front_view_places_the_joint() {
    let mut h = busy_folder();
    let areas = geppetto::tui::layout::of(&h.app);
    let map = h.app.thumb.as_ref().expect("thumbnail shown").map;
    // Click where the point (0.3, 1.0) of the front view is drawn.
    let (px, py) = map.project([0.3, 1.0, 0.0], geppetto::raster::ViewKind::Front);
    let (col, row) = (
        areas.thumb.x + (px / 1.0) as u16,
        areas.thumb.y + (py / 2.0) as u16,
    );
    h.send(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: col,
        row,
        modifiers: KeyModifiers::NONE,
    }));
    let d = h.app.draft.clone().expect("click starts an edit");
    let cell = 2.0 / map.scale; // one cell is two pixels tall
    assert!(
        (d.pos[0] - 0.3).abs() < cell && (d.pos[1] - 1.0).abs() < cell,
        "{d:?}"
    );
    assert_eq!(d.pos[2], 0.0, "front view keeps Z");
}

#[test]
fn weights_heat_map_toggle_requests_a_new_thumbnail() {
    let mut h = busy_folder();
    h.effects.clear();
    let before = h.thumbnails;
    h.send(key(KeyCode::Char('w')));
    assert!(h.effects.is_empty());
    assert_eq!(h.thumbnails, before + 1);
    assert!(h.app.thumb.as_ref().unwrap().key.view.heat);
    insta::assert_snapshot!("heat_map", h.screen());
}

#[test]
fn cancelled_job_goes_back_to_queued_and_removed_file_disappears() {
    let mut h = busy_folder();
    h.send(Msg::Fs(FsChange::Ready(mesh("dragon.obj"))));
    h.job(JobEvent::Finished {
        path: mesh("dragon.obj"),
        id: 4,
        result: JobResult::Cancelled,
        companions: None,
    });
    assert_eq!(h.app.counts().queued, 1, "queued again");
    h.effects.clear();
    h.send(Msg::Fs(FsChange::Removed(mesh("dragon.obj"))));
    assert_eq!(h.effects, vec!["Cancel(/assets/dragon.obj)"]);
    assert_eq!(h.app.assets.len(), 3);
}

#[test]
fn quit_key() {
    let mut h = Harness::new();
    h.send(key(KeyCode::Char('q')));
    assert!(h.app.quit);
    assert_eq!(h.effects, vec!["Quit"]);
}

#[test]
fn events_of_a_superseded_job_are_ignored() {
    let mut h = busy_folder();
    // dragon's job 4 is running; a newer job 9 starts (events can interleave across workers).
    h.job(JobEvent::Started {
        path: mesh("dragon.obj"),
        id: 9,
    });
    h.job(JobEvent::Finished {
        path: mesh("dragon.obj"),
        id: 4,
        result: JobResult::Cancelled,
        companions: None,
    });
    let i = h.app.find(&mesh("dragon.obj")).unwrap();
    assert!(matches!(
        h.app.assets[i].status(),
        geppetto::tui::app::RowStatus::Running(..)
    ));
    h.done("dragon.obj", 9, Status::Ok, 0.1);
    assert_eq!(
        h.app.assets[h.app.find(&mesh("dragon.obj")).unwrap()].status(),
        geppetto::tui::app::RowStatus::Ok
    );
}

#[test]
fn output_errors_are_shown_near_the_top_of_the_detail_pane() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Down));
    assert_eq!(h.app.current().unwrap().name, "bob.obj");
    let screen = h.screen();
    assert!(
        screen.contains("✗ ./rigged/bob.glb: cannot write: Permission denied"),
        "the output error is visible without scrolling:\n{screen}"
    );
}

/// A rig whose outputs could not all be written does not look `ok` in the list: its row says
/// `not written` (the log line already said so) and the detail pane names the reason.
#[test]
fn a_rig_whose_outputs_were_not_written_says_so_in_its_row() {
    let h = busy_folder();
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains(" bob.obj "))
        .expect("bob's row");
    assert!(row.contains("not written"), "{row}");
    let mut h = h;
    h.send(key(KeyCode::Down));
    let screen = h.screen();
    assert!(screen.contains("bob.obj  not written"), "{screen}");
    assert!(
        screen.contains("✗ ./rigged/bob.glb: cannot write"),
        "{screen}"
    );
}

/// An empty mesh file (an editor creates it, content follows) gets a row that says so, does
/// not hold up `--once`, and is rigged when its content arrives.
#[test]
fn an_empty_file_gets_a_row_and_rigs_when_filled() {
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![])));
    h.send(Msg::Fs(FsChange::Empty(mesh("blank.obj"))));
    let screen = h.screen();
    assert!(
        screen
            .lines()
            .any(|l| l.contains("blank.obj") && l.contains("empty file")),
        "{screen}"
    );
    assert!(screen.contains("the file is empty (0 bytes)"), "{screen}");
    // The header counts it as empty, not queued (it read "1 queued" for as long as it stayed empty).
    let c = h.app.counts();
    assert_eq!((c.queued, c.empty), (0, 1), "{c:?}");
    assert!(screen.contains("0 queued, 1 empty"), "{screen}");
    assert!(h.app.settled(), "nothing to wait for");
    h.effects.clear();
    h.send(Msg::Fs(FsChange::Ready(mesh("blank.obj"))));
    assert_eq!(h.effects, vec!["Rig(/assets/blank.obj)"]);
    assert_eq!(
        h.app.assets[0].status(),
        geppetto::tui::app::RowStatus::Queued
    );
}

#[test]
fn each_asset_keeps_its_own_joint_selection() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Tab));
    h.send(key(KeyCode::Tab)); // alice: Head
    h.send(key(KeyCode::Down)); // bob
    assert_eq!(h.app.joint(), 0, "bob starts at his first joint");
    h.send(key(KeyCode::Tab)); // bob: Spine
    h.send(key(KeyCode::Up)); // alice again
    assert_eq!(h.app.joint(), 2);
    assert!(h.screen().contains("joint Head (3/11)"));
    h.send(key(KeyCode::Down));
    assert_eq!(h.app.joint(), 1);
}

#[test]
fn template_key_cycles_and_writes_the_sidecar_keeping_the_hints() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Char('p'))); // pin Hips: one hint
    h.effects.clear();
    let before = h.app.current().unwrap().rig().unwrap().rig.skeleton.clone();
    assert_eq!(before, "human");
    let mut seen = Vec::new();
    for _ in 0..6 {
        h.send(key(KeyCode::Char('t')));
        let a = h.app.current().unwrap();
        seen.push(a.hints.skeleton.clone().unwrap());
        assert_eq!(a.hints.hints.len(), 1, "the pin is kept");
    }
    // The cycle goes on from the template in force (the watcher's `auto`), not from the one
    // `auto` chose: the first press went from the human rig to the quadruped, `human` unoffered.
    assert_eq!(
        seen,
        ["human", "quadruped", "horse", "centaur", "curve", "auto"]
    );
    assert_eq!(
        h.effects[..2],
        [
            "SaveHints(/assets/alice.obj: Hips)".to_string(),
            "Rig(/assets/alice.obj)".to_string()
        ]
    );
    assert_eq!(
        h.effects.len(),
        2 * seen.len(),
        "one write and one re-rig per key press"
    );
}

/// With a pixel protocol (kitty, sixel, iTerm2) the thumbnail is rendered at the pane's real pixel
/// size: cells times the font size the terminal reported; half-blocks use 1x2 pixels per cell.
#[test]
fn thumbnail_is_rendered_at_the_panes_pixel_size() {
    let h = busy_folder();
    let cells = geppetto::tui::layout::of(&h.app).thumb;
    let key = &h.app.thumb.as_ref().unwrap().key;
    assert_eq!(
        (key.view.width, key.view.height),
        (u32::from(cells.width), 2 * u32::from(cells.height))
    );
    let mut h = Harness::new();
    h.app.cell_px = (9, 18);
    h.send(Msg::Fs(FsChange::Ready(mesh("alice.obj"))));
    h.job(JobEvent::Started {
        path: mesh("alice.obj"),
        id: 1,
    });
    h.done("alice.obj", 1, Status::Ok, 0.05);
    let key = &h.app.thumb.as_ref().expect("thumbnail").key;
    assert_eq!(
        (key.view.width, key.view.height),
        (9 * u32::from(cells.width), 18 * u32::from(cells.height))
    );
}

/// The thumbnail pane's cells (symbol and colours) as the real view draws them.
fn pane_cells(app: &App) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(W, H)).unwrap();
    t.draw(|f| view::render(app, f)).unwrap();
    let area = geppetto::tui::layout::of(app).thumb;
    let buf = t.backend().buffer();
    let mut out = Vec::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let c = &buf[(x, y)];
            out.push(format!("{}{:?}{:?}", c.symbol(), c.fg, c.bg));
        }
    }
    out
}

#[test]
fn space_plays_the_walk_in_the_pane_and_pauses_it() {
    let mut h = busy_folder();
    let still = pane_cells(&h.app);
    h.effects.clear();
    h.send(key(KeyCode::Char(' ')));
    assert_eq!(h.effects, vec!["Play(/assets/alice.obj)"]);
    let p = h.app.play.as_ref().expect("playing");
    assert_eq!(p.clip.as_deref(), Some("walk"));
    // The built-in walk (1.1 s at 30 fps) shown at the pane's 15 fps.
    assert_eq!((p.total, p.frames.len()), (17, 17));
    let dt = p.frame_time;
    assert!(dt <= Duration::from_millis(100), "at least 10 fps: {dt:?}");
    let first = pane_cells(&h.app);
    assert_ne!(
        first, still,
        "the clip's frame replaces the still thumbnail"
    );
    // Four frame times later (the injected clock): frame 5 of 17, the legs apart.
    let t = h.app.now;
    for i in 1..=4 {
        h.send(Msg::Tick(t + dt * i));
    }
    assert_eq!(h.app.play.as_ref().unwrap().shown, 4);
    let fifth = pane_cells(&h.app);
    let changed = first.iter().zip(&fifth).filter(|(a, b)| a != b).count();
    assert!(
        changed > first.len() / 100,
        "the frame changed: {changed} of {} cells",
        first.len()
    );
    insta::assert_snapshot!("playing_walk", h.screen());
    h.send(key(KeyCode::Char(' ')));
    for i in 5..=8 {
        h.send(Msg::Tick(t + dt * i));
    }
    assert_eq!(h.app.play.as_ref().unwrap().shown, 4, "paused");
    assert_eq!(pane_cells(&h.app), fifth);
    assert!(h.screen().contains("⏸ walk 5/17"));
    h.effects.clear();
    h.send(key(KeyCode::Down));
    assert_eq!(h.effects, vec!["PlayStop"]);
    assert!(h.app.play.is_none());
}

#[test]
fn rig_edit_mode_moves_undoes_redoes_and_saves() {
    let mut h = busy_folder();
    for _ in 0..4 {
        h.send(key(KeyCode::Tab)); // Hips → Spine → Head → LeftArm → LeftHand
    }
    h.effects.clear();
    h.send(key(KeyCode::Char('E')));
    assert_eq!(h.effects, vec!["EditOpen(/assets/alice.obj)"]);
    h.edit_worker();
    let e = h.app.edit.as_ref().expect("edit mode");
    assert!(e.ready && e.heat);
    assert_eq!(e.joint, "LeftHand");
    let before = h.thumbnails;
    h.effects.clear();
    h.send(key(KeyCode::Left));
    assert_eq!(h.effects, vec!["EditApply(move_joint LeftHand)"]);
    h.edit_worker();
    assert!(h.thumbnails > before, "the edited rig is drawn");
    let thumb = h.app.thumb.as_ref().unwrap();
    assert!(thumb.key.view.heat && thumb.key.edit > 0);
    insta::assert_snapshot!("rig_edit_mode", h.screen());

    h.effects.clear();
    h.send(key(KeyCode::Char('u')));
    h.edit_worker();
    let undone = h.app.edit.as_ref().unwrap();
    assert_eq!(undone.ops.len(), 0);
    assert_eq!(undone.redo.len(), 1);
    assert_eq!(undone.rig.joints[4].position, [0.75, 1.5, 0.0]);
    h.send(Msg::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::CONTROL,
    )));
    h.edit_worker();
    h.send(key(KeyCode::Char('w')));
    h.edit_worker();
    assert_eq!(
        h.effects,
        vec![
            "EditUndo(1)",
            "EditApply(move_joint LeftHand)",
            "EditSave(1 edits)"
        ]
    );
    let e = h.app.edit.as_ref().unwrap();
    assert!(!e.dirty());
    assert_eq!(
        h.app.message.as_deref(),
        Some("saved 1 edit to alice.edits.yaml; wrote 1 output file")
    );
    // The asset now shows the saved rig; leaving needs no confirmation.
    let moved = e.rig.joints[4].position;
    h.send(key(KeyCode::Esc));
    assert!(h.app.edit.is_none());
    let shown = &h.app.current().unwrap().rig().unwrap().rig;
    assert_eq!(shown.joints[4].position, moved);
}

/// The status line's last line above the help bar.
fn status_line(h: &Harness) -> String {
    let rows = geppetto::tui::help::rows(&h.app, W);
    let screen = h.screen();
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len() - 1 - usize::from(rows)].to_string()
}

/// After a pin the status line says "re-rigging"; when that rig finishes it says how it went
/// (it used to keep "re-rigging" until Esc, hiding the result, a failure included).
#[test]
fn the_status_line_shows_the_rig_result_after_a_pin() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Char('p')));
    assert!(
        status_line(&h).contains("re-rigging"),
        "{}",
        status_line(&h)
    );
    h.job(JobEvent::Started {
        path: mesh("alice.obj"),
        id: 5,
    });
    h.done("alice.obj", 5, Status::LowConfidence, 0.2);
    let line = status_line(&h);
    assert!(line.contains("low confidence: alice.obj"), "{line}");
    assert!(!line.contains("re-rigging"), "{line}");
    // A key's complaint also gives way to the next event.
    h.send(key(KeyCode::Char('u')));
    assert!(
        status_line(&h).contains("not pinned"),
        "{}",
        status_line(&h)
    );
    h.send(Msg::Fs(FsChange::Ready(mesh("bob.obj"))));
    assert!(status_line(&h).contains("changed: bob.obj"));
}

/// PgDn stops where the detail text ends (it scrolled on into a blank pane), and one PgUp then
/// scrolls back.
#[test]
fn page_down_stops_at_the_end_of_the_details() {
    let mut h = busy_folder();
    h.app.size = (80, 24);
    let detail = geppetto::tui::layout::of(&h.app).detail;
    let pane = |h: &Harness| -> Vec<String> {
        h.screen()
            .lines()
            .skip(usize::from(detail.y) + 1)
            .take(usize::from(detail.height) - 2)
            .map(|l| l.chars().take(usize::from(detail.width)).collect())
            .collect()
    };
    let last_line = |rows: &[String]| {
        rows.iter()
            .rev()
            .find(|l| !l.trim_matches(['│', ' ']).is_empty())
            .cloned()
    };
    for _ in 0..20 {
        h.send(key(KeyCode::PageDown));
    }
    let bottom = pane(&h);
    let max = view::max_detail_scroll(&h.app);
    assert!(max > 0, "alice's details are longer than the 80x24 pane");
    assert_eq!(h.app.scroll, max);
    assert!(
        bottom
            .last()
            .is_some_and(|l| !l.trim_matches(['│', ' ']).is_empty()),
        "the text's end sits at the pane's bottom: {bottom:#?}"
    );
    h.send(key(KeyCode::PageUp));
    assert_eq!(h.app.scroll, max.saturating_sub(10));
    assert_ne!(last_line(&pane(&h)), last_line(&bottom));
}

/// A sidecar found at start-up is no edit: the mesh's first rig reads it. It used to log "hints
/// edited" and start a rig that the mesh's own "changed" cancelled.
#[test]
fn a_sidecar_found_at_start_up_is_not_an_edit() {
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![mesh("alice.obj")])));
    let text = "hints:\n  - joint: Head\n    position: [0, 1.6, 0]\n".to_string();
    h.send(Msg::Fs(FsChange::HintsChanged {
        mesh: mesh("alice.obj"),
        text: Some(text.clone()),
    }));
    assert!(h.effects.is_empty(), "{:?}", h.effects);
    assert!(
        h.app.log.iter().all(|l| !l.contains("hints edited")),
        "{:?}",
        h.app.log
    );
    assert_eq!(
        h.app.current().unwrap().hints.hints.len(),
        1,
        "the hints are known"
    );
    h.send(Msg::Fs(FsChange::Ready(mesh("alice.obj"))));
    assert_eq!(h.effects, vec!["Rig(/assets/alice.obj)"]);
    // Once it has rigged, a change of the sidecar is an edit and re-rigs.
    h.job(JobEvent::Started {
        path: mesh("alice.obj"),
        id: 1,
    });
    h.done("alice.obj", 1, Status::Ok, 0.05);
    h.effects.clear();
    h.send(Msg::Fs(FsChange::HintsChanged {
        mesh: mesh("alice.obj"),
        text: Some(text.replace("1.6", "1.5")),
    }));
    assert_eq!(h.effects, vec!["Rig(/assets/alice.obj)"]);
    assert!(h.app.log.iter().any(|l| l.contains("hints edited")));
}

/// With more assets than list rows (80x24 shows five), the selected row stays on screen and a
/// click picks the row it lands on (the list showed its first rows only).
#[test]
fn the_selected_asset_stays_in_view_in_a_long_list() {
    let mut h = Harness::new();
    h.app.size = (80, 24);
    let names: Vec<String> = (0..12).map(|i| format!("m{i:02}.obj")).collect();
    h.send(Msg::Fs(FsChange::ScanDone(
        names.iter().map(|n| mesh(n)).collect(),
    )));
    let list = geppetto::tui::layout::of(&h.app).list_inner;
    let list_text = |h: &Harness| -> Vec<String> {
        h.screen()
            .lines()
            .skip(usize::from(list.y) + 1)
            .take(usize::from(list.height) - 1)
            .map(|l| l.chars().take(usize::from(list.x + list.width)).collect())
            .collect()
    };
    for _ in 0..9 {
        h.send(key(KeyCode::Down));
    }
    assert_eq!(h.app.selected, Some(mesh("m09.obj")));
    let rows = list_text(&h);
    assert!(rows.iter().any(|r| r.contains("▶m09.obj")), "{rows:#?}");
    // A click on the first shown row selects the asset shown there.
    let first = rows[0].clone();
    h.send(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: list.x + 2,
        row: list.y + 1,
        modifiers: KeyModifiers::NONE,
    }));
    let picked = h.app.selected.clone().unwrap();
    let picked = picked.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        first.contains(&picked),
        "clicked {first:?}, selected {picked}"
    );
    for _ in 0..20 {
        h.send(key(KeyCode::Up));
    }
    assert!(list_text(&h)[0].contains("▶m00.obj"));
}

/// A multi-second finer retry (the first fit was low confidence) says so in the list and the
/// detail pane; it read "embed   0%" for its whole length, as if the rig were stuck (no stage
/// reports a fraction, so a percentage is shown only once one is reported).
#[test]
fn a_finer_retry_is_shown_as_such_not_as_a_stuck_stage() {
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![mesh("fish.obj")])));
    h.job(JobEvent::Started {
        path: mesh("fish.obj"),
        id: 1,
    });
    h.job(JobEvent::Stage {
        path: mesh("fish.obj"),
        id: 1,
        stage: Stage::Embed,
    });
    h.at(1.0);
    let embedding = h.screen();
    assert!(embedding.contains("fish.obj  embed  "), "{embedding}");
    assert!(!embedding.contains("0%"), "{embedding}");
    h.job(JobEvent::Retry {
        path: mesh("fish.obj"),
        id: 1,
    });
    h.at(4.0);
    let retrying = h.screen();
    assert_eq!(retrying.matches("finer retry").count(), 2, "{retrying}");
    assert_eq!(h.app.counts().running, 1);
    h.job(JobEvent::Stage {
        path: mesh("fish.obj"),
        id: 1,
        stage: Stage::Skin,
    });
    let skinning = h.screen();
    assert!(
        !skinning.contains("finer retry") && skinning.contains("skin"),
        "{skinning}"
    );
}

/// At 80×24 the detail pane is 43 columns wide: the templates table and the penalty terms fit in
/// it. Their rows (65 and 55 columns) used to wrap, the penalty and status of a template starting
/// at the pane's left edge under the template names and the second penalty term under the first's
/// value.
#[test]
fn the_detail_tables_fit_an_80x24_pane() {
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![mesh("piranha.glb")])));
    h.send(Msg::Fs(FsChange::Ready(mesh("piranha.glb"))));
    h.job(JobEvent::Started {
        path: mesh("piranha.glb"),
        id: 1,
    });
    h.done_with("piranha.glb", 1, Status::LowConfidence, 0.383, |rig| {
        let trial = |template: &str, orientation: &str, per_chain: f64, chosen: bool| {
            geppetto::rig::TemplateTrial {
                template: template.into(),
                orientation: orientation.into(),
                penalty: per_chain * 6.0,
                penalty_per_chain: per_chain,
                status: Some(Status::LowConfidence),
                chosen,
                note: String::new(),
            }
        };
        rig.templates = vec![
            trial("human", "-Z up, -X forward", 0.0639, true),
            trial("quadruped", "+Y up, -X forward", 0.1325, false),
            // The curve skeleton has no embedding penalty (its trial records 0).
            trial("curve", "", 0.0, false),
        ];
    });
    h.send(Msg::Resize(80, 24));
    let inner = ratatui::widgets::Block::default()
        .borders(ratatui::widgets::Borders::ALL)
        .inner(geppetto::tui::layout::of(&h.app).detail);
    let width = usize::from(inner.width);
    let text: Vec<String> = view::detail_lines(&h.app)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let start = text
        .iter()
        .position(|l| l.starts_with("templates tried"))
        .expect("a templates table");
    let end = text
        .iter()
        .position(|l| ["warnings", "suggested hints", "repair"].contains(&l.as_str()))
        .expect("a text section follows the penalty");
    for l in &text[start..end] {
        assert!(
            l.chars().count() <= width,
            "{l:?} is wider than the {width}-column pane"
        );
    }
    assert!(
        text.iter().any(|l| l == "      0.0639  low confidence"),
        "the chosen template's score on its own indented line: {text:#?}"
    );
    assert!(
        text.iter().any(|l| l.ends_with("     -  low confidence"))
            && !text.iter().any(|l| l.contains("0.0000  low")),
        "the curve skeleton's trial shows no penalty, not a perfect 0: {text:#?}"
    );
}

/// Why a rig is `low_confidence` is the first thing its detail pane says after the run line. At
/// 80×24 it used to come after the templates and penalty tables, two PgDn below the fold.
#[test]
fn a_low_rig_says_why_above_the_fold_at_80x24() {
    let mut h = busy_folder();
    h.send(key(KeyCode::Down));
    assert_eq!(h.app.current().unwrap().name, "bob.obj");
    h.send(Msg::Resize(80, 24));
    let screen = h.screen();
    assert!(screen.contains("why low confidence"), "{screen}");
    assert!(
        screen.contains("LeftHand lies outside the surface"),
        "{screen}"
    );
    // Shown once: the warnings section no longer repeats it.
    let text: Vec<String> = view::detail_lines(&h.app)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let times = text
        .iter()
        .filter(|l| l.contains("LeftHand lies outside the surface") && !l.contains('→'))
        .count();
    assert_eq!(times, 1, "{text:#?}");
}

/// A curve-skeleton rig has no embedding penalty: its log line names the method instead of a
/// "penalty 0.0000" that reads as a perfect fit.
#[test]
fn a_curve_rig_logs_its_method_not_a_zero_penalty() {
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![mesh("hand.obj")])));
    h.send(Msg::Fs(FsChange::Ready(mesh("hand.obj"))));
    h.job(JobEvent::Started {
        path: mesh("hand.obj"),
        id: 1,
    });
    h.done_with("hand.obj", 1, Status::Ok, 0.0, |rig| {
        rig.method = geppetto::rig::METHOD_CURVE.into();
    });
    let screen = h.screen();
    assert!(screen.contains("ok: hand.obj curve method in"), "{screen}");
    assert!(!screen.contains("penalty 0.0000"), "{screen}");
}

#[test]
fn the_headless_summary_shows_no_penalty_for_a_rig_without_one() {
    // `watch --headless --once` ends with a table of every asset; it printed "0.0000" for a curve
    // or multi-component rig (no penalty), where the list shows "-".
    let mut h = Harness::new();
    h.send(Msg::Fs(FsChange::ScanDone(vec![mesh("shark.glb")])));
    h.send(Msg::Fs(FsChange::Ready(mesh("shark.glb"))));
    h.job(JobEvent::Started {
        path: mesh("shark.glb"),
        id: 1,
    });
    h.done_with("shark.glb", 1, Status::Ok, 0.0, |rig| {
        rig.method = geppetto::rig::METHOD_MULTIPART.into();
    });
    let lines = geppetto::tui::term::summary_lines(&h.app);
    let row = lines
        .iter()
        .find(|l| l.starts_with("shark.glb"))
        .unwrap_or_else(|| panic!("a row: {lines:#?}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[..3], ["shark.glb", "ok", "-"], "{row:?}");
}
