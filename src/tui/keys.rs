//! Keyboard and mouse handling, and the hint edits they trigger. Pure state changes plus effects;
//! hints files are written only when the user pins, unpins or undoes (never implicitly).

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::app::{App, Draft, Effect};

/// Handle a key.
pub fn on_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    if k.kind == KeyEventKind::Release {
        return Vec::new();
    }
    // Ctrl-C quits from every mode (raw mode delivers it as a key, not as SIGINT).
    if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
        app.quit = true;
        return vec![Effect::Quit];
    }
    if app.edit.is_some() {
        return super::edit_keys::on_key(app, k);
    }
    if app.input.is_some() {
        return super::coord_input::on_input_key(app, k);
    }
    if app.draft.is_some() && nudge_key(app, k) {
        return Vec::new();
    }
    browse_key(app, k.code)
}

/// While a hint is being edited, arrows and `,` `.` move the joint (Shift for a big step);
/// whether the key was one of them.
fn nudge_key(app: &mut App, k: KeyEvent) -> bool {
    let big = k.modifiers.contains(KeyModifiers::SHIFT);
    let (axis, dir) = match k.code {
        KeyCode::Left => (0, -1),
        KeyCode::Right => (0, 1),
        KeyCode::Up => (1, 1),
        KeyCode::Down => (1, -1),
        KeyCode::Char(',') | KeyCode::Char('<') => (2, -1),
        KeyCode::Char('.') | KeyCode::Char('>') => (2, 1),
        _ => return false,
    };
    nudge(app, axis, dir, big);
    true
}

/// The browsing keys: selection, play, hint edits, toggles, re-rig, scrolling.
fn browse_key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    match code {
        KeyCode::Char('q') => {
            app.quit = true;
            vec![Effect::Quit]
        }
        KeyCode::Up | KeyCode::Char('k') => select_step(app, -1),
        KeyCode::Down | KeyCode::Char('j') => select_step(app, 1),
        KeyCode::Tab | KeyCode::Char('n') => joint_step(app, 1),
        KeyCode::BackTab | KeyCode::Char('N') => joint_step(app, -1),
        KeyCode::Char(super::play::PLAY_KEY) => super::play::toggle(app),
        KeyCode::Char('e') => {
            start_draft(app);
            Vec::new()
        }
        KeyCode::Char(super::edit::EDIT_KEY) => super::edit::enter(app),
        KeyCode::Char('p') | KeyCode::Enter => pin(app),
        KeyCode::Char('u') => unpin(app),
        KeyCode::Char('z') => undo(app),
        KeyCode::Char('c') => {
            super::coord_input::open_input(app);
            Vec::new()
        }
        KeyCode::Char('t') => cycle_template(app),
        KeyCode::Char('r') => rerig(app),
        code => {
            view_key(app, code);
            Vec::new()
        }
    }
}

/// Queue the selected asset for a re-rig.
fn rerig(app: &mut App) -> Vec<Effect> {
    let Some(p) = app.current().map(|a| a.path.clone()) else {
        return Vec::new();
    };
    if let Some(a) = app.assets.iter_mut().find(|a| a.path == p) {
        a.queued = true;
    }
    vec![Effect::Rig(p)]
}

/// Keys that only change what is shown: heat map, list order, scrolling, Esc.
fn view_key(app: &mut App, code: KeyCode) {
    match code {
        KeyCode::Char('w') => app.heat = !app.heat,
        KeyCode::Char('f') => app.failures_first = !app.failures_first,
        KeyCode::PageDown => super::view::scroll_by(app, 10),
        KeyCode::PageUp => super::view::scroll_by(app, -10),
        KeyCode::Esc => {
            app.draft = None;
            app.message = None;
        }
        _ => {}
    }
}

fn select_step(app: &mut App, dir: i32) -> Vec<Effect> {
    let order = app.order();
    if order.is_empty() {
        return Vec::new();
    }
    let cur = app
        .selected
        .as_deref()
        .and_then(|p| order.iter().position(|&i| app.assets[i].path == p))
        .unwrap_or(0);
    let next = (cur as i64 + i64::from(dir)).clamp(0, order.len() as i64 - 1) as usize;
    app.selected = Some(app.assets[order[next]].path.clone());
    app.draft = None;
    app.scroll = 0;
    Vec::new()
}

fn joint_step(app: &mut App, dir: i32) -> Vec<Effect> {
    let n = app
        .current()
        .and_then(|a| a.rig())
        .map_or(0, |r| r.rig.joints.len());
    if n == 0 {
        return Vec::new();
    }
    let next = ((app.joint().min(n - 1) as i64 + i64::from(dir)).rem_euclid(n as i64)) as usize;
    if let Some(i) = app.selected.clone().and_then(|p| app.find(&p)) {
        app.assets[i].joint = next;
    }
    app.draft = None;
    Vec::new()
}

/// The selected joint's (mesh, index, name, current position, extent) if a rig is shown.
fn selected_joint(app: &App) -> Option<(std::path::PathBuf, usize, String, [f64; 3], f64)> {
    let a = app.current()?;
    let r = a.rig()?;
    let i = app.joint().min(r.rig.joints.len().checked_sub(1)?);
    let j = r.rig.joints.get(i)?;
    Some((
        a.path.clone(),
        i,
        j.name.clone(),
        j.position,
        r.rig.max_extent(),
    ))
}

pub(super) fn start_draft(app: &mut App) -> bool {
    if app.draft.is_some() {
        return true;
    }
    match selected_joint(app) {
        Some((mesh, joint, _, pos, _)) => {
            app.draft = Some(Draft { mesh, joint, pos });
            true
        }
        None => {
            app.message = Some("no rig to edit yet".into());
            false
        }
    }
}

/// Move the draft by 1% of the model size along `axis` (5% with Shift).
fn nudge(app: &mut App, axis: usize, dir: i32, big: bool) {
    let ext = selected_joint(app).map_or(1.0, |s| s.4);
    let step = ext * if big { 0.05 } else { 0.01 } * f64::from(dir);
    if let Some(d) = &mut app.draft {
        if let Some(c) = d.pos.get_mut(axis) {
            *c += step;
        }
    }
}

/// Write `hints` for `mesh` (remembering the previous hints for undo) and re-rig at once.
fn write_hints(
    app: &mut App,
    mesh: std::path::PathBuf,
    hints: crate::embed::hints::Hints,
    what: String,
) -> Vec<Effect> {
    let Some(i) = app.find(&mesh) else {
        return Vec::new();
    };
    let a = &mut app.assets[i];
    let previous = std::mem::replace(&mut a.hints, hints.clone());
    a.hints_text = Some(hints.to_yaml());
    a.queued = true;
    app.undo.entry(mesh.clone()).or_default().push(previous);
    app.message = Some(what);
    app.draft = None;
    vec![
        Effect::SaveHints {
            mesh: mesh.clone(),
            hints,
        },
        Effect::Rig(mesh),
    ]
}

pub(super) fn pin(app: &mut App) -> Vec<Effect> {
    let Some((mesh, _, name, pos, _)) = selected_joint(app) else {
        app.message = Some("no rig to pin a joint of yet".into());
        return Vec::new();
    };
    let pos = app
        .draft
        .as_ref()
        .filter(|d| d.mesh == mesh)
        .map_or(pos, |d| d.pos);
    let mut hints = app.current().map(|a| a.hints.clone()).unwrap_or_default();
    hints.pin(&name, pos, None);
    let what = format!(
        "pinned {name} at ({:.3}, {:.3}, {:.3}); re-rigging",
        pos[0], pos[1], pos[2]
    );
    write_hints(app, mesh, hints, what)
}

/// The templates the `t` key cycles through, in order; `curve` is no template but the
/// curve-skeleton method ([`crate::curveskel::METHOD_NAME`]), chosen through the same sidecar key.
pub const TEMPLATE_CYCLE: [&str; 6] = [
    "auto",
    "human",
    "quadruped",
    "horse",
    "centaur",
    crate::curveskel::METHOD_NAME,
];

/// The next template in [`TEMPLATE_CYCLE`] after `current` (a name not in the cycle, e.g. a YAML
/// file, goes back to the start).
pub fn next_template(current: &str) -> &'static str {
    let i = TEMPLATE_CYCLE
        .iter()
        .position(|t| t.eq_ignore_ascii_case(current));
    TEMPLATE_CYCLE[i.map_or(0, |i| (i + 1) % TEMPLATE_CYCLE.len())]
}

/// `t`: the selected asset's next template, written to its sidecar (hints kept) and re-rigged.
fn cycle_template(app: &mut App) -> Vec<Effect> {
    let Some(a) = app.current() else {
        return Vec::new();
    };
    // The template in force, not the one `auto` chose: from `auto` a human rig went on to the
    // quadruped, and `human` was never offered.
    let current = a
        .hints
        .skeleton
        .clone()
        .unwrap_or_else(|| app.templates.for_mesh(&a.path).to_string());
    let next = next_template(&current);
    let mut hints = a.hints.clone();
    hints.skeleton = Some(next.to_string());
    let what = format!("template {next} for {}; re-rigging", a.name);
    let mesh = a.path.clone();
    write_hints(app, mesh, hints, what)
}

fn unpin(app: &mut App) -> Vec<Effect> {
    let Some((mesh, _, name, _, _)) = selected_joint(app) else {
        return Vec::new();
    };
    let mut hints = app.current().map(|a| a.hints.clone()).unwrap_or_default();
    if !hints.unpin(&name) {
        app.message = Some(format!("{name} is not pinned"));
        return Vec::new();
    }
    write_hints(app, mesh, hints, format!("unpinned {name}; re-rigging"))
}

fn undo(app: &mut App) -> Vec<Effect> {
    let Some(mesh) = app.current().map(|a| a.path.clone()) else {
        return Vec::new();
    };
    let Some(prev) = app.undo.get_mut(&mesh).and_then(Vec::pop) else {
        app.message = Some("nothing to undo".into());
        return Vec::new();
    };
    let fx = write_hints(
        app,
        mesh.clone(),
        prev,
        "undid the last hint change; re-rigging".into(),
    );
    // write_hints pushed the state we just left; undo must not be undone by itself.
    if let Some(stack) = app.undo.get_mut(&mesh) {
        stack.pop();
    }
    fx
}

/// Handle the mouse: click a row to select it, click a view to place the joint being edited
/// (the front view sets the character's left and up, the side view its forward and up), wheel
/// to move the selection.
pub fn on_mouse(app: &mut App, m: MouseEvent) -> Vec<Effect> {
    if app.edit.is_some() {
        return super::edit_keys::on_mouse(app, m);
    }
    let areas = super::layout::of(app);
    let inside = |r: ratatui::layout::Rect| {
        m.column >= r.x && m.column < r.x + r.width && m.row >= r.y && m.row < r.y + r.height
    };
    match m.kind {
        MouseEventKind::ScrollDown => select_step(app, 1),
        MouseEventKind::ScrollUp => select_step(app, -1),
        MouseEventKind::Down(MouseButton::Left) if inside(areas.list_inner) => {
            let row = usize::from(m.row - areas.list_inner.y);
            let order = app.order();
            let first = super::view::list_offset(app);
            // Row 0 is the table header.
            if let Some(&i) = row.checked_sub(1).and_then(|r| order.get(first + r)) {
                app.selected = Some(app.assets[i].path.clone());
                app.draft = None;
            }
            Vec::new()
        }
        MouseEventKind::Down(MouseButton::Left) if inside(areas.thumb) => {
            click_thumb(app, m.column - areas.thumb.x, m.row - areas.thumb.y);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

fn click_thumb(app: &mut App, cx: u16, cy: u16) {
    let Some(map) = app
        .thumb
        .as_ref()
        .filter(|t| Some(&t.key.mesh) == app.selected.as_ref())
        .map(|t| t.map)
    else {
        return;
    };
    if !start_draft(app) {
        return;
    }
    let px = (f64::from(cx) + 0.5) * f64::from(app.cell_px.0);
    let py = (f64::from(cy) + 0.5) * f64::from(app.cell_px.1);
    if let Some(d) = &mut app.draft {
        d.pos = map.unproject_onto(px, py, d.pos).1;
    }
}
