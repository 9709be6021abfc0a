//! Update-level tests of the edit mode's mouse: a press on the thumbnail picks the nearest joint,
//! a drag moves it in the plane of the view it started in. Same harness as [`super`].

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::*;
use crate::raster::ViewKind;

/// Puts a thumbnail of the edited asset on screen (the mouse maps only onto one), one pixel per
/// column and two per row; returns its pane and its view map.
fn thumbnail_on_screen(app: &mut App) -> (ratatui::layout::Rect, crate::raster::ViewMap) {
    app.cell_px = (1, 2);
    let area = crate::tui::layout::of(app).thumb;
    let map = crate::raster::ViewMap::fit(
        [[-0.8, 0.0, -0.12], [0.8, 1.85, 0.2]],
        u32::from(area.width),
        u32::from(area.height) * 2,
    );
    let img = image::RgbaImage::new(4, 4);
    let protocol =
        crate::tui::runtime::encode(&ratatui_image::picker::Picker::halfblocks(), img, (4, 2))
            .unwrap();
    let key = crate::tui::app::ThumbKey {
        mesh: "/w/a.obj".into(),
        run: 1,
        view: crate::raster::ThumbnailView::default(),
        cells: (area.width, area.height),
        edit: 1,
    };
    app.thumb = Some(crate::tui::app::ThumbReady { key, protocol, map });
    (area, map)
}

fn mouse(kind: MouseEventKind, (column, row): (u16, u16)) -> Msg {
    Msg::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    })
}

#[test]
fn mouse_press_picks_the_nearest_joint_and_a_drag_moves_it_in_that_view() {
    let mut app = editing();
    let (area, map) = thumbnail_on_screen(&mut app);
    let at = |p: [f64; 3], v: ViewKind| {
        let (x, y) = map.project(p, v);
        (area.x + x as u16, area.y + (y / 2.0) as u16)
    };
    // Press on the right arm's hand in the front view.
    update(
        &mut app,
        mouse(
            MouseEventKind::Down(MouseButton::Left),
            at([-0.75, 1.5, 0.0], ViewKind::Front),
        ),
    );
    assert_eq!(app.edit.as_ref().unwrap().joint, "RightHand");
    update(
        &mut app,
        mouse(
            MouseEventKind::Drag(MouseButton::Left),
            at([-0.6, 1.2, 0.0], ViewKind::Front),
        ),
    );
    let fx = update(
        &mut app,
        mouse(
            MouseEventKind::Up(MouseButton::Left),
            at([-0.6, 1.2, 0.0], ViewKind::Front),
        ),
    );
    let EditOp::MoveJoint { joint, to, .. } = one(&fx) else {
        panic!("a move on release");
    };
    assert_eq!(joint, "RightHand");
    let cell = 2.0 / map.scale;
    assert!(
        (to[0] + 0.6).abs() < cell && (to[1] - 1.2).abs() < cell,
        "{to:?}"
    );
    assert_eq!(to[2], 0.0, "the front view keeps Z");
}
