//! Screen layout: where each pane sits for a terminal size. Shared by rendering ([`super::view`]),
//! mouse hit-testing ([`super::keys`]) and thumbnail sizing ([`mod@super::update`]), so it depends on
//! none of them (only on the state and the help bar's height, [`super::help`]).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Borders};

use super::app::App;

/// Screen areas; shared by rendering and mouse handling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Areas {
    /// Title line.
    pub header: Rect,
    /// Asset list (with border).
    pub list: Rect,
    /// Inside the list border.
    pub list_inner: Rect,
    /// Thumbnail block (with border).
    pub thumb_block: Rect,
    /// Inside the thumbnail border: the image area.
    pub thumb: Rect,
    /// Detail text (with border).
    pub detail: Rect,
    /// Status / input line.
    pub status: Rect,
    /// Help bar (one or more lines).
    pub help: Rect,
}

/// The layout of `app`'s screen: its terminal size and the help bar its mode needs.
pub fn of(app: &App) -> Areas {
    layout(app.size, super::help::rows(app, app.size.0))
}

/// The layout for a terminal of `size` (columns, rows) with a help bar of `help_rows` lines.
pub fn layout(size: (u16, u16), help_rows: u16) -> Areas {
    let area = Rect::new(0, 0, size.0, size.1);
    let [header, body, status, help] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(help_rows),
    ])
    .areas(area);
    // Left: the list over the details; right: the thumbnail, full height (characters are tall).
    let [left, thumb_block] =
        Layout::horizontal([Constraint::Percentage(56), Constraint::Percentage(44)]).areas(body);
    let list_rows = (body.height * 2 / 5).max(5).min(body.height);
    let [list, detail] =
        Layout::vertical([Constraint::Length(list_rows), Constraint::Min(0)]).areas(left);
    Areas {
        header,
        list,
        list_inner: Block::default().borders(Borders::ALL).inner(list),
        thumb_block,
        thumb: Block::default().borders(Borders::ALL).inner(thumb_block),
        detail,
        status,
        help,
    }
}
