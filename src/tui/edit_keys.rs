//! Keys and mouse of the edit mode ([`super::edit`]): each turns into one [`EditOp`] (or an
//! undo, redo, save, selection change). Pure state changes plus effects.
//!
//! Steps are relative to the model: a key moves by [`STEP`] of the rig's largest extent,
//! [`FINE_STEP`] with Shift; magnitude steps by the factor [`MAGNITUDE_FACTOR`] and smoothness by
//! [`SMOOTHNESS_STEP`] (the facts sheet's suggested terminal mapping, §11.3).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::app::{App, Effect};
use super::edit::{self, EditMode, EditState};
use crate::edit::{EditOp, MAX_SMOOTHNESS};
use crate::raster::{ViewAxes, ViewKind, ViewMap};

/// One arrow key: this fraction of the model's largest extent.
pub const STEP: f64 = 0.01;
/// Shift + arrow: a fine step.
pub const FINE_STEP: f64 = 0.002;
/// `+` / `-`: the heat constant c is multiplied / divided by this (facts §11.3).
pub const MAGNITUDE_FACTOR: f64 = 1.25;
/// `>` / `<`: the bi-Laplacian share b changes by this (kept in [0, 0.95]).
pub const SMOOTHNESS_STEP: f64 = 0.1;
/// A click picks the nearest joint within this many cells (facts §11.2).
pub const PICK_CELLS: f64 = 2.0;

/// Handle a key in edit mode.
pub fn on_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let fine = k.modifiers.contains(KeyModifiers::SHIFT);
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    if let Some(fx) = arrow(app, k.code, fine) {
        return fx;
    }
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    match k.code {
        KeyCode::Char('E') | KeyCode::Esc => return edit::leave(app, false),
        KeyCode::Char('q') => return edit::leave(app, true),
        KeyCode::Char('r') if ctrl => return edit::redo(app),
        KeyCode::Char('y') => return edit::redo(app),
        KeyCode::Char('u') | KeyCode::Char('z') => return edit::undo(app),
        KeyCode::Char('w') => return edit::save(app),
        KeyCode::Tab => step_joint(e, 1),
        KeyCode::BackTab => step_joint(e, -1),
        KeyCode::Char('[') => parent(e),
        KeyCode::Char(']') => child(e),
        KeyCode::Char('v') => {
            e.view = match e.view {
                ViewKind::Front => ViewKind::Side,
                ViewKind::Side => ViewKind::Front,
            }
        }
        KeyCode::Char('d') => e.with_descendants = !e.with_descendants,
        KeyCode::Char('m') => e.mode = e.mode.next(),
        KeyCode::Char(c @ '1'..='4') => {
            e.mode = [
                EditMode::Joint,
                EditMode::Range,
                EditMode::Magnitude,
                EditMode::Smoothness,
            ][usize::from(c as u8 - b'1')]
        }
        KeyCode::Char('h') => e.heat = !e.heat,
        KeyCode::Char('+') | KeyCode::Char('=') => return magnitude(app, 1),
        KeyCode::Char('-') => return magnitude(app, -1),
        KeyCode::Char('>') => return smoothness(app, 1),
        KeyCode::Char('<') => return smoothness(app, -1),
        KeyCode::Char('i') => return insert(app),
        KeyCode::Char('x') | KeyCode::Delete => return delete(app),
        KeyCode::Char('a') => return align(app),
        KeyCode::Char(super::play::PLAY_KEY) => return super::play::toggle(app),
        KeyCode::PageDown => super::view::scroll_by(app, 10),
        KeyCode::PageUp => super::view::scroll_by(app, -10),
        _ => {}
    }
    Vec::new()
}

/// Arrows and `,` `.`: move in the active view's plane / along its depth, or step a control.
fn arrow(app: &mut App, code: KeyCode, fine: bool) -> Option<Vec<Effect>> {
    let e = app.edit.as_ref()?;
    // Screen right, screen up and depth of the active view, as mesh-frame axes (the thumbnail
    // draws the character the way its rig stands).
    let axes = ViewAxes::of_label(&e.rig.orientation);
    let (axis, dir) = match code {
        KeyCode::Left => (axes.right(e.view), -1.0),
        KeyCode::Right => (axes.right(e.view), 1.0),
        KeyCode::Up => (axes.up, 1.0),
        KeyCode::Down => (axes.up, -1.0),
        KeyCode::Char(',') => (axes.depth(e.view), -1.0),
        KeyCode::Char('.') => (axes.depth(e.view), 1.0),
        _ => return None,
    };
    let sign = if dir > 0.0 { 1 } else { -1 };
    Some(match e.mode {
        EditMode::Magnitude => magnitude(app, sign),
        EditMode::Smoothness => smoothness(app, sign),
        mode => {
            let size = e.rig.max_extent();
            let step = dir * size * if fine { FINE_STEP } else { STEP };
            let delta = axis.map(|a| a * step);
            if mode == EditMode::Joint {
                move_by(app, delta)
            } else {
                handle_by(app, delta)
            }
        }
    })
}

fn selected_name(e: &EditState) -> Option<String> {
    e.rig.joints.get(e.index()).map(|j| j.name.clone())
}

fn move_by(app: &mut App, delta: [f64; 3]) -> Vec<Effect> {
    let Some(e) = app.edit.as_ref() else {
        return Vec::new();
    };
    let Some(name) = selected_name(e) else {
        return Vec::new();
    };
    let Some(from) = e.position(&name) else {
        return Vec::new();
    };
    let op = EditOp::MoveJoint {
        joint: name,
        to: [0, 1, 2].map(|i| from[i] + delta[i]),
        with_descendants: e.with_descendants,
    };
    edit::push(app, op)
}

fn handle_by(app: &mut App, delta: [f64; 3]) -> Vec<Effect> {
    let Some(e) = app.edit.as_ref() else {
        return Vec::new();
    };
    let Some(name) = selected_name(e) else {
        return Vec::new();
    };
    let h = e.control(&name).handle;
    let op = EditOp::Handle {
        joint: name,
        offset: [0, 1, 2].map(|i| h[i] + delta[i]),
    };
    edit::push(app, op)
}

fn magnitude(app: &mut App, dir: i32) -> Vec<Effect> {
    let Some(e) = app.edit.as_ref() else {
        return Vec::new();
    };
    let Some(name) = selected_name(e) else {
        return Vec::new();
    };
    let c = e.control(&name).magnitude * MAGNITUDE_FACTOR.powi(dir);
    edit::push(app, EditOp::Magnitude { joint: name, c })
}

fn smoothness(app: &mut App, dir: i32) -> Vec<Effect> {
    let Some(e) = app.edit.as_ref() else {
        return Vec::new();
    };
    let Some(name) = selected_name(e) else {
        return Vec::new();
    };
    let old = e.control(&name).smoothness;
    // Rounded to the step grid so repeated presses land on 0.1, 0.2, … exactly.
    let b = ((old + f64::from(dir) * SMOOTHNESS_STEP) / SMOOTHNESS_STEP).round() * SMOOTHNESS_STEP;
    let b = b.clamp(0.0, MAX_SMOOTHNESS);
    if b == old {
        app.message = Some(format!(
            "smoothness of {name} stays {old} (range 0 – {MAX_SMOOTHNESS})"
        ));
        return Vec::new();
    }
    edit::push(app, EditOp::Smoothness { joint: name, b })
}

/// `i`: split the bone above the selected joint at its midpoint; the new joint is selected.
fn insert(app: &mut App) -> Vec<Effect> {
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    let Some(child) = selected_name(e) else {
        return Vec::new();
    };
    let taken = |n: &str| e.rig.joints.iter().any(|j| j.name == n);
    let mut name = format!("{child}_split");
    let mut k = 2;
    while taken(&name) {
        name = format!("{child}_split{k}");
        k += 1;
    }
    e.joint = name.clone();
    let op = EditOp::InsertJoint {
        child,
        at: 0.5,
        name,
    };
    edit::push(app, op)
}

/// `x`: delete the selected joint (the worker refuses the root); its parent is selected.
fn delete(app: &mut App) -> Vec<Effect> {
    let Some(e) = app.edit.as_mut() else {
        return Vec::new();
    };
    let i = e.index();
    let Some(joint) = selected_name(e) else {
        return Vec::new();
    };
    if let Some(p) = e.rig.joints[i].parent.and_then(|p| e.rig.joints.get(p)) {
        e.joint = p.name.clone();
    }
    edit::push(app, EditOp::DeleteJoint { joint })
}

/// `a`: align the chain through the selected joint on one plane: the selected joint and its
/// single-child descendants, extended up through its parents to at least three joints.
fn align(app: &mut App) -> Vec<Effect> {
    let Some(e) = app.edit.as_ref() else {
        return Vec::new();
    };
    let chain = chain_from(e);
    if chain.len() < 3 {
        app.message = Some("align needs a chain of three joints or more".into());
        return Vec::new();
    }
    let joints = chain
        .iter()
        .map(|&i| e.rig.joints[i].name.clone())
        .collect();
    edit::push(app, EditOp::Align { joints })
}

/// The joint indices of the chain `align` uses, root side first.
pub fn chain_from(e: &EditState) -> Vec<usize> {
    let joints = &e.rig.joints;
    let children = |j: usize| -> Vec<usize> {
        (0..joints.len())
            .filter(|&c| joints[c].parent == Some(j))
            .collect()
    };
    let mut chain = vec![e.index()];
    while let [only] = children(*chain.last().unwrap_or(&0)).as_slice() {
        chain.push(*only);
    }
    while chain.len() < 3 {
        match joints.get(chain[0]).and_then(|j| j.parent) {
            Some(p) => chain.insert(0, p),
            None => break,
        }
    }
    chain
}

fn step_joint(e: &mut EditState, dir: i64) {
    let n = e.rig.joints.len() as i64;
    if n > 0 {
        e.select((e.index() as i64 + dir).rem_euclid(n) as usize);
    }
}

fn parent(e: &mut EditState) {
    if let Some(p) = e.rig.joints.get(e.index()).and_then(|j| j.parent) {
        e.select(p);
    }
}

fn child(e: &mut EditState) {
    let i = e.index();
    if let Some(c) = e.rig.joints.iter().position(|j| j.parent == Some(i)) {
        e.select(c);
    }
}

/// Select the joint drawn nearest pixel `at` in the view under it, within [`PICK_CELLS`].
fn pick(e: &mut EditState, map: &ViewMap, at: (f64, f64), cell: (f64, f64)) {
    let view = map.view_at(at.0);
    let near = e.rig.joints.iter().enumerate().map(|(i, j)| {
        let (x, y) = map.project(j.position, view);
        let d = ((f64::from(x) - at.0) / cell.0).hypot((f64::from(y) - at.1) / cell.1);
        (d, i)
    });
    e.drag = match near.min_by(|a, b| a.0.total_cmp(&b.0)) {
        Some((d, i)) if d <= PICK_CELLS => {
            e.select(i);
            e.view = view;
            Some((view, None))
        }
        _ => None,
    };
}

/// The dragged joint follows pixel `at` in the view the drag started in (the other two
/// coordinates of that view change, the depth stays).
fn drag(e: &mut EditState, map: &ViewMap, at: (f64, f64)) {
    let Some((view, _)) = e.drag else {
        return;
    };
    let Some(p) = selected_name(e).and_then(|n| e.position(&n)) else {
        return;
    };
    let (under, p) = map.unproject_onto(at.0, at.1, p);
    if under == view {
        e.drag = Some((view, Some(p)));
    }
}

/// The mouse in edit mode: press on a view picks the nearest joint, a drag moves it in that
/// view's plane (the character's left and up in the front view, forward and up in the side
/// view), the release applies the move.
pub fn on_mouse(app: &mut App, m: MouseEvent) -> Vec<Effect> {
    let area = super::layout::of(app).thumb;
    let inside = m.column >= area.x
        && m.column < area.x + area.width
        && m.row >= area.y
        && m.row < area.y + area.height;
    let px = (f64::from(m.column.saturating_sub(area.x)) + 0.5) * f64::from(app.cell_px.0);
    let py = (f64::from(m.row.saturating_sub(area.y)) + 0.5) * f64::from(app.cell_px.1);
    let map = app
        .thumb
        .as_ref()
        .filter(|t| Some(&t.key.mesh) == app.selected.as_ref())
        .map(|t| t.map);
    let cell = (f64::from(app.cell_px.0), f64::from(app.cell_px.1));
    let (Some(map), Some(e)) = (map, app.edit.as_mut()) else {
        return Vec::new();
    };
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) if inside => {
            pick(e, &map, (px, py), cell);
            Vec::new()
        }
        MouseEventKind::Drag(MouseButton::Left) => {
            drag(e, &map, (px, py));
            Vec::new()
        }
        MouseEventKind::Up(MouseButton::Left) => match e.drag.take() {
            Some((_, Some(to))) => {
                let Some(joint) = selected_name(e) else {
                    return Vec::new();
                };
                let op = EditOp::MoveJoint {
                    joint,
                    to,
                    with_descendants: e.with_descendants,
                };
                edit::push(app, op)
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}
