//! The help bar: every key of the current mode, wrapped onto as many lines as the terminal's
//! width needs (at most [`MAX_ROWS`]). One line used to hold them all and an 80-column terminal,
//! the most common size, cut the last six keys off; a key is never split across lines.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::app::App;

/// The keys shown in the help bar. Mouse: click a row to select it, click a view to place the
/// joint being edited, wheel to move the selection.
pub const HELP: &[(&str, &str)] = &[
    ("q", "quit"), // first: a terminal too narrow even for the wrapped bar cuts the end
    ("↑↓", "asset"),
    ("Space", "play"),
    ("Tab", "joint"),
    ("E", "edit rig"),
    ("e", "hint"),
    ("←→↑↓,.", "move"),
    ("c", "xyz"),
    ("p", "pin"),
    ("u", "unpin"),
    ("z", "undo"),
    ("w", "weights"),
    ("t", "template"),
    ("f", "fails 1st"),
    ("r", "rerig"),
    ("PgUp/Dn", "scroll"),
];

/// The keys of the edit mode, for the help bar.
pub const EDIT_HELP: &[(&str, &str)] = &[
    ("E", "leave"), // most used first: a terminal too narrow for the wrapped bar cuts the end
    ("Tab", "joint"),
    ("←→↑↓,.", "move"),
    ("u", "undo"),
    ("^R", "redo"),
    ("w", "save"),
    ("i", "insert"),
    ("x", "delete"),
    ("a", "align"),
    ("m", "mode"),
    ("+-", "magnitude"),
    ("<>", "smooth"),
    ("[]", "parent/child"),
    ("v", "view"),
    ("d", "+children"),
    ("h", "heat"),
    ("Space", "pose"),
];

/// Most lines the bar takes: every key fits 80 columns in two (browsing) or three (edit mode)
/// lines, and a 24-row screen keeps 19 rows for the panes.
pub const MAX_ROWS: usize = 3;

/// The keys of the mode `app` is in.
pub fn keys(app: &App) -> &'static [(&'static str, &'static str)] {
    if app.edit.is_some() {
        EDIT_HELP
    } else {
        HELP
    }
}

/// One key as shown: the key reversed, then what it does.
fn item(key: &str, what: &str) -> [Span<'static>; 2] {
    [
        Span::styled(
            key.to_string(),
            Style::new().add_modifier(Modifier::REVERSED),
        ),
        Span::raw(format!(" {what}")),
    ]
}

/// The bar's lines for `keys` at `width` columns: keys packed greedily in order, one space
/// between them, a key never split; at most [`MAX_ROWS`] lines (the last is cut if even they
/// are too few).
pub fn lines(keys: &[(&str, &str)], width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width);
    let mut out: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for (k, what) in keys {
        let spans = item(k, what);
        let w: usize = spans.iter().map(Span::width).sum();
        let fits = used == 0 || used + 1 + w <= width;
        if !fits && out.len() < MAX_ROWS {
            out.push(Vec::new());
            used = 0;
        }
        let line = out.last_mut().expect("never empty");
        if used > 0 {
            line.push(Span::raw(" "));
            used += 1;
        }
        line.extend(spans);
        used += w;
    }
    out.into_iter().map(Line::from).collect()
}

/// Rows the help bar takes for `app` at `width` columns.
pub fn rows(app: &App, width: u16) -> u16 {
    lines(keys(app), width).len() as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of both modes shows in full at 80 columns (the common terminal size), each line
    /// fits, and no key is split.
    #[test]
    fn every_key_shows_at_80_columns() {
        for keys in [HELP, EDIT_HELP] {
            let lines = lines(keys, 80);
            let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
            for l in &lines {
                assert!(l.width() <= 80, "{text:?}");
            }
            let all = text.join(" ");
            for (k, what) in keys {
                assert!(
                    all.contains(&format!("{k} {what}")),
                    "{k} missing: {text:?}"
                );
            }
        }
        assert_eq!(lines(HELP, 80).len(), 2);
        assert_eq!(lines(HELP, 200).len(), 1, "a wide terminal keeps one line");
    }
}
