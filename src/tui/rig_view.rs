//! The detail pane's sections for a rigged asset: the run summary, the selected joint, the
//! templates, the method report, the penalty, warnings, suggested hints, repair, stage times and
//! outputs. Pure: a function of `&App` and the rig report (the TUI's `view` rule).

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use super::app::{App, Asset, RigInfo};
use super::suggest::suggestions;
use super::view::heading;
use crate::embed::PENALTY_TERMS;
use crate::rig::Rig;

/// Every section for a rigged asset, in pane order.
pub(super) fn rig_lines(app: &App, a: &Asset, r: &RigInfo, out: &mut Vec<Line<'static>>) {
    let rig = &r.rig;
    out.push(run_line(r));
    // Outputs that could not be written come first: below the fold they would go unseen.
    for e in &r.output_errors {
        out.push(Line::from(Span::styled(
            format!("✗ {}", e.replace(&app.root.display().to_string(), ".")),
            Style::new().fg(Color::Red),
        )));
    }
    // In edit mode the edit section names the selected joint of the edited rig.
    if app.edit.is_none() {
        if let Some(line) = joint_line(app, a, rig) {
            out.push(line);
        }
    }
    reason_lines(rig, out);
    let width = usize::from(detail_width(app));
    template_lines(rig, width, out);
    super::method::method_lines(rig, out);
    if rig.has_penalty() {
        penalty_lines(rig, width, out);
    }
    warning_lines(rig, out);
    suggestion_lines(rig, out);
    repair_lines(rig, out);
    timing_lines(rig, out);
    out.push(heading("outputs"));
    for p in &r.outputs {
        out.push(Line::from(format!("  {}", app.rel(p))));
    }
}

/// The run's first line: skeleton, orientation, vertex count and whether it was a re-run.
fn run_line(r: &RigInfo) -> Line<'static> {
    let rig = &r.rig;
    Line::from(format!(
        "skeleton {} · {} · {} vertices · {}",
        rig.skeleton,
        rig.orientation,
        rig.vertex_count,
        if r.reused {
            "re-run from the embedding (cached discretization)"
        } else {
            "full run"
        }
    ))
}

/// The selected joint's position, its pin and the draft being typed; `None` for a jointless rig.
fn joint_line(app: &App, a: &Asset, rig: &Rig) -> Option<Line<'static>> {
    let j = rig
        .joints
        .get(app.joint().min(rig.joints.len().saturating_sub(1)))?;
    let pinned = a.hints.hints.iter().find(|h| h.joint == j.name);
    let mut line = format!(
        "joint {} ({}/{}) at ({:.3}, {:.3}, {:.3})",
        j.name,
        app.joint().min(rig.joints.len() - 1) + 1,
        rig.joints.len(),
        j.position[0],
        j.position[1],
        j.position[2]
    );
    if let Some(h) = pinned {
        line += &format!(
            " · pinned at ({:.3}, {:.3}, {:.3})",
            h.position[0], h.position[1], h.position[2]
        );
    }
    if let Some(d) = app.draft.as_ref().filter(|d| d.mesh == a.path) {
        line += &format!(
            " · editing → ({:.3}, {:.3}, {:.3}) [p to pin, Esc to cancel]",
            d.pos[0], d.pos[1], d.pos[2]
        );
    }
    Some(Line::from(Span::styled(line, Style::new().fg(Color::Cyan))))
}

/// The detail pane's text width (inside its border).
fn detail_width(app: &App) -> u16 {
    Block::default()
        .borders(Borders::ALL)
        .inner(super::layout::of(app).detail)
        .width
}

/// The templates tried (`--skeleton auto`) or screened (a forced template), best first as chosen.
/// A row wider than the pane (`width` columns: 43 at 80×24) puts its penalty and status on an
/// indented second line; wrapped, they started at the pane's left edge under the template names.
fn template_lines(rig: &Rig, width: usize, out: &mut Vec<Line<'static>>) {
    if rig.templates.is_empty() {
        return;
    }
    out.push(heading("templates tried (penalty per chain)"));
    for t in &rig.templates {
        let status = match (t.status, t.note.as_str()) {
            (Some(crate::rig::Status::Ok), _) => "ok".to_string(),
            (Some(crate::rig::Status::LowConfidence), _) => "low confidence".to_string(),
            (None, note) => note.to_string(),
        };
        let mark = if t.chosen { "▶" } else { " " };
        let name = format!("  {mark} {:<10} {:<24}", t.template, t.orientation);
        // The curve skeleton competes without an embedding penalty: "-", not a perfect 0.
        let score = if t.template == crate::rig::METHOD_CURVE {
            format!("{:>6}  {status}", "-")
        } else {
            format!("{:.4}  {status}", t.penalty_per_chain)
        };
        if name.chars().count() + 1 + score.chars().count() <= width {
            out.push(Line::from(format!("{name} {score}")));
        } else {
            out.push(Line::from(name.trim_end().to_string()));
            out.push(Line::from(format!("      {score}")));
        }
    }
}

/// Why a rig is `low_confidence`, first after the run line: the reason is what the user acts on,
/// and below the template and penalty tables it sat two PgDn under the fold at 80×24.
fn reason_lines(rig: &Rig, out: &mut Vec<Line<'static>>) {
    if rig.status != crate::rig::Status::LowConfidence || rig.confidence_reasons.is_empty() {
        return;
    }
    out.push(heading("why low confidence"));
    for r in &rig.confidence_reasons {
        out.push(Line::from(Span::styled(
            format!("  • {r}"),
            Style::new().fg(Color::Yellow),
        )));
    }
}

/// Whether a warning only repeats a confidence reason already shown by [`reason_lines`].
fn repeats_reason(rig: &Rig, warning: &str) -> bool {
    rig.status == crate::rig::Status::LowConfidence
        && warning
            .strip_prefix("low confidence: ")
            .is_some_and(|r| rig.confidence_reasons.iter().any(|c| c == r))
}

/// The rig's warnings in yellow, under a heading (nothing when there are none), less the
/// confidence reasons shown at the top.
fn warning_lines(rig: &Rig, out: &mut Vec<Line<'static>>) {
    let shown: Vec<&String> = rig
        .warnings
        .iter()
        .filter(|w| !repeats_reason(rig, w))
        .collect();
    if shown.is_empty() {
        return;
    }
    out.push(heading("warnings"));
    for w in shown {
        out.push(Line::from(Span::styled(
            format!("  • {w}"),
            Style::new().fg(Color::Yellow),
        )));
    }
}

/// Hints that would likely fix a weak rig, in plain words (nothing when there are none).
fn suggestion_lines(rig: &Rig, out: &mut Vec<Line<'static>>) {
    let sugg = suggestions(rig);
    if sugg.is_empty() {
        return;
    }
    out.push(heading("suggested hints"));
    for s in sugg {
        out.push(Line::from(format!("  → {s}")));
    }
}

/// What mesh repair found and did.
fn repair_lines(rig: &Rig, out: &mut Vec<Line<'static>>) {
    let rep = &rig.repair;
    out.push(heading("repair"));
    out.push(Line::from(format!(
        "  {} vertices ({} welded), {} triangles, {} shells, watertight: {}, open edges {}, non-manifold {}, degenerate {}, flipped shells {}",
        rep.input_vertices, rep.welded_vertices, rep.input_triangles, rep.shells,
        if rep.watertight { "yes" } else { "no" }, rep.open_edges, rep.non_manifold_edges,
        rep.degenerate_triangles, rep.inward_shells_flipped
    )));
    for n in &rep.notes {
        out.push(Line::from(format!("  • {n}")));
    }
}

/// Each recorded stage's time in pipeline order, then the total, on one line.
fn timing_lines(rig: &Rig, out: &mut Vec<Line<'static>>) {
    out.push(heading("stage times (ms)"));
    let times: Vec<String> = crate::progress::Stage::ALL
        .iter()
        .filter_map(|s| {
            rig.timings_ms
                .get(s.name())
                .map(|ms| format!("{} {ms:.0}", s.name()))
        })
        .chain(
            rig.timings_ms
                .get("total")
                .map(|ms| format!("total {ms:.0}")),
        )
        .collect();
    out.push(Line::from(format!("  {}", times.join(" · "))));
}

/// The rig's penalty as the list and the headless summary show it: four decimals, or "-" for a
/// method without one ([`Rig::has_penalty`]; its recorded 0 read as a perfect fit).
pub(super) fn penalty_text(rig: &Rig) -> String {
    if rig.has_penalty() {
        format!("{:.4}", rig.penalty.total)
    } else {
        "-".into()
    }
}

/// One cell of the penalty table: a right-aligned term name and its value.
const PENALTY_CELL: usize = 27;

/// The embedding's penalty and its nine weighted terms, two per line where the pane (`width`
/// columns) holds two cells, else one: wrapped, the second cell broke the table's columns.
fn penalty_lines(rig: &Rig, width: usize, out: &mut Vec<Line<'static>>) {
    out.push(heading(&format!(
        "penalty {:.4} (weighted terms)",
        rig.penalty.total
    )));
    let per_line = if width > 2 * PENALTY_CELL { 2 } else { 1 };
    for chunk in PENALTY_TERMS.chunks(per_line) {
        let cells: Vec<String> = chunk
            .iter()
            .map(|t| {
                format!(
                    "{t:>17} {:<9.4}",
                    rig.penalty.terms.get(*t).copied().unwrap_or(0.0)
                )
            })
            .collect();
        out.push(Line::from(cells.join(" ")));
    }
}
