//! Typed coordinates for the hint being edited (`c`): a line of three numbers in mesh units that
//! pins the joint on Enter. Pure state changes plus the pin's effects, like [`super::keys`].

use crossterm::event::{KeyCode, KeyEvent};

use super::app::{App, Effect};
use super::keys::{pin, start_draft};

/// `c`: start editing the selected joint and prefill the line with its position.
pub(super) fn open_input(app: &mut App) {
    if !start_draft(app) {
        return;
    }
    if let Some(d) = &app.draft {
        app.input = Some(format!("{:.4} {:.4} {:.4}", d.pos[0], d.pos[1], d.pos[2]));
        // The status line shows the input now; an older message would read as its complaint.
        app.message = None;
    }
}

/// A key while the coordinate line is open: edit it, Enter pins the typed point, Esc closes it.
pub(super) fn on_input_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let Some(line) = app.input.as_mut() else {
        return Vec::new();
    };
    match k.code {
        KeyCode::Esc => app.input = None,
        KeyCode::Backspace => {
            line.pop();
            app.message = None;
        }
        KeyCode::Char(c)
            if c.is_ascii_digit() || matches!(c, ' ' | '.' | '-' | ',' | 'e' | '+') =>
        {
            line.push(c);
            app.message = None;
        }
        KeyCode::Enter => {
            let parsed: Vec<f64> = line
                .split([' ', ','])
                .filter(|s| !s.is_empty())
                .map(str::parse::<f64>)
                .collect::<Result<_, _>>()
                .unwrap_or_default();
            match parsed.as_slice() {
                [x, y, z] if [x, y, z].iter().all(|c| c.is_finite()) => {
                    app.input = None;
                    if let Some(d) = &mut app.draft {
                        d.pos = [*x, *y, *z];
                    }
                    return pin(app);
                }
                _ => app.message = Some("type three numbers: x y z (mesh units)".into()),
            }
        }
        _ => {}
    }
    Vec::new()
}
