//! The edit mode's text: the thumbnail pane title and the detail pane's edit section (pure
//! functions of the state, called by [`super::view`]).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::app::App;
use super::edit::{current, EditState};
use crate::raster::ViewKind;

/// The thumbnail pane's title in edit mode.
pub fn title(app: &App) -> Option<String> {
    let e = current(app)?;
    let j = e.rig.joints.get(e.index())?;
    let state = if !e.ready {
        "opening…"
    } else if e.pending > 0 {
        "solving…"
    } else {
        ""
    };
    Some(format!(
        " EDIT {} · {} · {} view{}{} {state} ",
        j.name,
        e.mode.name(),
        view_name(e.view),
        if e.with_descendants {
            " · +children"
        } else {
            ""
        },
        if e.heat { " · weights" } else { "" },
    ))
}

fn view_name(v: ViewKind) -> &'static str {
    match v {
        ViewKind::Front => "front",
        ViewKind::Side => "side",
    }
}

/// The detail pane's edit section (first in the pane while editing).
pub fn lines(app: &App, out: &mut Vec<Line<'static>>) {
    let Some(e) = current(app) else {
        return;
    };
    let bold = Style::new().add_modifier(Modifier::BOLD).fg(Color::Magenta);
    out.push(Line::from(Span::styled(
        format!(
            "rig edit mode · arrows: {} · {} view · {}, {} · redo {}",
            e.mode.name(),
            view_name(e.view),
            crate::util::count(e.ops.len(), "edit", "edits"),
            if e.dirty() { "unsaved" } else { "saved" },
            e.redo.len()
        ),
        bold,
    )));
    if let Some(j) = e.rig.joints.get(e.index()) {
        let parent = j
            .parent
            .and_then(|p| e.rig.joints.get(p))
            .map_or("none (root)".to_string(), |p| p.name.clone());
        let c = e.control(&j.name);
        out.push(Line::from(Span::styled(
            format!(
                "joint {} ({}/{}) parent {parent} at ({:.3}, {:.3}, {:.3})",
                j.name,
                e.index() + 1,
                e.rig.joints.len(),
                j.position[0],
                j.position[1],
                j.position[2]
            ),
            Style::new().fg(Color::Cyan),
        )));
        // The handle is an offset from the joint: "(0.000, 0.000, 0.000)" beside the joint's
        // own "at (…)" read as the mesh's origin.
        let handle = if c.handle == [0.0; 3] {
            "at the joint".to_string()
        } else {
            format!(
                "offset ({:+.3}, {:+.3}, {:+.3}) from the joint",
                c.handle[0], c.handle[1], c.handle[2]
            )
        };
        out.push(Line::from(format!(
            "  magnitude c {} · smoothness b {} · range handle {handle}",
            trim(c.magnitude),
            trim(c.smoothness),
        )));
    }
    if let Some(l) = &e.last {
        out.push(Line::from(format!("  last: {l}")));
    }
    problem_lines(e, out);
}

/// Refused edits, and the edits of the sidecar a re-rig could not re-apply (never silent).
fn problem_lines(e: &EditState, out: &mut Vec<Line<'static>>) {
    let warn = Style::new().fg(Color::Yellow);
    for p in &e.problems {
        out.push(Line::from(Span::styled(format!("  ✗ {p}"), warn)));
    }
    for w in e.rig.warnings.iter().filter(|w| is_edit_warning(w)) {
        out.push(Line::from(Span::styled(format!("  • {w}"), warn)));
    }
}

/// A rig warning about the replay of the edits sidecar.
pub fn is_edit_warning(w: &str) -> bool {
    w.starts_with("edit \"") || w.starts_with("edits ") || w.contains(".edits.yaml")
}

fn trim(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
