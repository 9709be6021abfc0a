//! Rendering: a pure function of `&App` (style anchor P8). It never rasterizes or touches files; the
//! thumbnail arrives pre-encoded from the raster thread.

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;
use ratatui_image::Image;

use super::app::{App, Asset, LastRun, RowStatus};
use super::layout::layout;

/// Draw the whole screen.
pub fn render(app: &App, f: &mut Frame) {
    let width = f.area().width;
    let a = layout((width, f.area().height), super::help::rows(app, width));
    render_header(app, f, a.header);
    render_list(app, f, a.list);
    render_thumb(app, f, a.thumb_block, a.thumb);
    render_detail(app, f, a.detail);
    render_status(app, f, a.status);
    render_help(app, f, a.help);
}

fn render_header(app: &App, f: &mut Frame, area: Rect) {
    let text = super::header::header_text(
        &app.root,
        app.assets.len(),
        app.counts(),
        &app.protocol,
        area.width,
    );
    f.render_widget(
        Paragraph::new(text).style(Style::new().add_modifier(Modifier::BOLD)),
        area,
    );
}

/// Status word and colour of a row.
pub fn status_text(s: RowStatus) -> (String, Color) {
    match s {
        RowStatus::Queued => ("queued".into(), Color::DarkGray),
        RowStatus::Empty => ("empty file".into(), Color::DarkGray),
        // Stages report no fraction yet: "embed 0%" for seconds read as stuck.
        RowStatus::Running(stage, f) if f <= 0.0 => (stage.name().into(), Color::Cyan),
        RowStatus::Running(stage, f) => {
            (format!("{} {:>3.0}%", stage.name(), f * 100.0), Color::Cyan)
        }
        RowStatus::Retrying => ("finer retry".into(), Color::Cyan),
        RowStatus::Ok => ("ok".into(), Color::Green),
        RowStatus::LowConfidence => ("low conf".into(), Color::Yellow),
        RowStatus::NotWritten => ("not written".into(), Color::Red),
        RowStatus::Failed => ("failed".into(), Color::Red),
    }
}

/// The time column: elapsed for a running job, total of the last rig otherwise.
fn time_text(app: &App, a: &Asset) -> String {
    if let (Some(_), Some(t)) = (a.running, a.started) {
        return format!("{:.1}s", app.now.saturating_duration_since(t).as_secs_f64());
    }
    match a.rig() {
        Some(r) => r
            .rig
            .timings_ms
            .get("total")
            .map_or_else(String::new, |ms| format!("{:.1}s", ms / 1000.0)),
        None => String::new(),
    }
}

/// The first asset row the list shows, so that the selected row is in view (the list used to
/// show its first rows only: with more assets than rows, ↓ moved the selection off screen).
/// Stateless: the selection sits on the last row once it is below the first screenful.
pub fn list_offset(app: &App) -> usize {
    let order = app.order();
    let visible = usize::from(super::layout::of(app).list_inner.height.saturating_sub(1)).max(1);
    let selected = app
        .selected
        .as_deref()
        .and_then(|p| order.iter().position(|&i| app.assets[i].path == p))
        .unwrap_or(0);
    (selected + 1).saturating_sub(visible)
}

fn render_list(app: &App, f: &mut Frame, area: Rect) {
    let order = app.order();
    let rows = order.iter().skip(list_offset(app)).map(|&i| {
        let a = &app.assets[i];
        let (s, c) = status_text(a.status());
        let penalty = a
            .rig()
            .map_or_else(String::new, |r| super::rig_view::penalty_text(&r.rig));
        let mark = if app.selected.as_ref() == Some(&a.path) {
            "▶"
        } else {
            " "
        };
        Row::new(vec![
            Cell::from(format!("{mark}{}", a.name)),
            Cell::from(s).style(Style::new().fg(c)),
            Cell::from(time_text(app, a)),
            Cell::from(penalty),
        ])
        .style(if mark == "▶" {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        })
    });
    let title = if app.failures_first {
        " assets (failures first) "
    } else {
        " assets "
    };
    let table = Table::new(
        rows,
        [
            Constraint::Min(12),
            Constraint::Length(12),
            Constraint::Length(7),
            Constraint::Length(8),
        ],
    )
    .header(
        Row::new(["name", "status", "time", "penalty"])
            .style(Style::new().add_modifier(Modifier::UNDERLINED)),
    )
    .block(Block::default().borders(Borders::ALL).title(title));
    f.render_widget(table, area);
}

fn render_thumb(app: &App, f: &mut Frame, block_area: Rect, inner: Rect) {
    let cur = app.current();
    let joint_name = cur
        .and_then(|a| a.rig())
        .and_then(|r| {
            r.rig
                .joints
                .get(app.joint().min(r.rig.joints.len().saturating_sub(1)))
        })
        .map_or(String::new(), |j| j.name.clone());
    let title = format!(
        " front │ side  {}{} ",
        joint_name,
        if app.heat { " · weights" } else { "" }
    );
    let title = super::edit_view::title(app).unwrap_or(title);
    let title = super::play::title(app).unwrap_or(title);
    f.render_widget(
        Block::default().borders(Borders::ALL).title(title),
        block_area,
    );
    if let Some(frame) = super::play::frame(app) {
        f.render_widget(Image::new(frame), inner);
        return;
    }
    let shown = app
        .thumb
        .as_ref()
        .filter(|t| cur.is_some_and(|a| a.path == t.key.mesh));
    match (shown, cur) {
        (Some(t), _) => f.render_widget(Image::new(&t.protocol), inner),
        (None, Some(a)) => {
            let msg = match a.status() {
                RowStatus::Failed => "no thumbnail: the rig failed",
                RowStatus::Empty => "the file is empty: waiting for its content",
                RowStatus::Ok | RowStatus::LowConfidence | RowStatus::NotWritten => "rendering…",
                _ => "waiting for the rig…",
            };
            f.render_widget(
                Paragraph::new(msg).style(Style::new().fg(Color::DarkGray)),
                inner,
            );
        }
        (None, None) => f.render_widget(
            Paragraph::new("no meshes yet: save an .obj/.glb/.gltf/.off/.ply into the folder"),
            inner,
        ),
    }
}

pub(super) fn heading(s: &str) -> Line<'static> {
    Line::from(Span::styled(
        s.to_string(),
        Style::new().add_modifier(Modifier::BOLD),
    ))
}

fn render_detail(app: &App, f: &mut Frame, area: Rect) {
    let p = Paragraph::new(detail_lines(app))
        .wrap(Wrap { trim: false })
        .scroll((app.scroll.min(max_detail_scroll(app)), 0))
        .block(Block::default().borders(Borders::ALL).title(" details "));
    f.render_widget(p, area);
}

/// Scroll the detail pane by `lines` (PgDn: +10, PgUp: −10) within its text.
pub fn scroll_by(app: &mut App, lines: i32) {
    let max = i32::from(max_detail_scroll(app));
    let now = i32::from(app.scroll).min(max);
    app.scroll = u16::try_from((now + lines).clamp(0, max)).unwrap_or(0);
}

/// The largest useful detail scroll: the wrapped text's last line at the pane's bottom. PgDn
/// stops there (it used to scroll on into a blank pane, and as many PgUp were needed back).
pub fn max_detail_scroll(app: &App) -> u16 {
    let inner = Block::default()
        .borders(Borders::ALL)
        .inner(super::layout::of(app).detail);
    let rows = Paragraph::new(detail_lines(app))
        .wrap(Wrap { trim: false })
        .line_count(inner.width);
    u16::try_from(rows)
        .unwrap_or(u16::MAX)
        .saturating_sub(inner.height)
}

/// The detail pane's text for the selected asset.
pub fn detail_lines(app: &App) -> Vec<Line<'static>> {
    let Some(a) = app.current() else {
        return vec![Line::from("nothing selected")];
    };
    let (s, c) = status_text(a.status());
    let mut out = vec![Line::from(vec![
        Span::styled(a.name.clone(), Style::new().add_modifier(Modifier::BOLD)),
        Span::raw("  "),
        Span::styled(s, Style::new().fg(c)),
        Span::raw(format!("  runs: {}", a.runs)),
    ])];
    super::edit_view::lines(app, &mut out);
    if a.empty && a.status() == RowStatus::Empty {
        out.push(Line::from(
            "the file is empty (0 bytes); it is rigged as soon as content is saved into it",
        ));
    }
    match &a.last {
        None if a.empty => {}
        None => out.push(Line::from("not rigged yet")),
        Some(LastRun::Failed(e)) => {
            out.push(Line::from(Span::styled(
                format!("error: {}", e.replace(&app.root.display().to_string(), ".")),
                Style::new().fg(Color::Red),
            )));
            out.push(Line::from(
                "fix the file and save it again; the watcher re-rigs it on its next change",
            ));
        }
        Some(LastRun::Rigged(r)) => super::rig_view::rig_lines(app, a, r, &mut out),
    }
    companion_lines(app, a, &mut out);
    out
}

/// The files the last load read besides the mesh (buffers, `.mtl`, textures): a change to any
/// re-rigs the asset; a missing one is marked.
fn companion_lines(app: &App, a: &super::app::Asset, out: &mut Vec<Line<'static>>) {
    // Every rig looks for its edits sidecar: listed once it exists, not as missing everywhere.
    let edits = crate::edit::sidecar::sidecar_path(&a.path);
    let list: Vec<_> = app
        .companions
        .of(&a.path)
        .iter()
        .filter(|c| c.stat.is_some() || c.path != edits)
        .collect();
    if list.is_empty() {
        return;
    }
    out.push(heading("reads (re-rigged when they change)"));
    for c in list {
        let name = format!("  {}", app.rel(&c.path));
        out.push(match c.stat {
            Some(_) => Line::from(name),
            None => Line::from(Span::styled(
                format!("{name} (missing)"),
                Style::new().fg(Color::Yellow),
            )),
        });
    }
}

fn render_status(app: &App, f: &mut Frame, area: Rect) {
    let line = if let Some(input) = &app.input {
        let mut spans = vec![
            Span::styled(" x y z (mesh units): ", Style::new().fg(Color::Cyan)),
            Span::raw(input.clone()),
            Span::raw("▏  Enter pin · Esc cancel"),
        ];
        // Why Enter did not pin (the line stays open until it parses or Esc).
        if let Some(m) = &app.message {
            spans.push(Span::styled(
                format!("  {m}"),
                Style::new().fg(Color::Yellow),
            ));
        }
        Line::from(spans)
    } else if let Some(m) = &app.message {
        Line::from(Span::styled(
            format!(" {m}"),
            Style::new().fg(Color::Yellow),
        ))
    } else {
        Line::from(Span::styled(
            format!(
                " {}",
                app.log
                    .back()
                    .map_or("", String::as_str)
                    .replace(&app.root.display().to_string(), ".")
            ),
            Style::new().fg(Color::DarkGray),
        ))
    };
    f.render_widget(Paragraph::new(line), area);
}

fn render_help(app: &App, f: &mut Frame, area: Rect) {
    let lines = super::help::lines(super::help::keys(app), area.width);
    f.render_widget(Paragraph::new(lines), area);
}
