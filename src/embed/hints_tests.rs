//! Hints files: positions far outside the mesh and `skeleton:` names are refused or resolved
//! against the hints file, each error naming it.

use super::*;

fn unit_box() -> Aabb {
    Aabb {
        min: P3::new(-0.5, 0.0, -0.2),
        max: P3::new(0.5, 1.5, 0.2),
    }
}

fn pin(position: [f64; 3]) -> Hints {
    let mut h = Hints::default();
    h.pin("LeftHand", position, None);
    h
}

#[test]
fn a_pin_far_outside_the_mesh_is_refused_with_the_file() {
    let e = pin([50.0, 50.0, 50.0])
        .check_positions(&unit_box(), Path::new("fig.hints.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("fig.hints.yaml: hint 0 (LeftHand): ") && e.contains("outside the mesh"),
        "{e}"
    );
}

#[test]
fn pins_on_or_near_the_surface_are_kept() {
    // On a corner of the box, and a little past its side (a pin placed by eye on a fingertip).
    for p in [[0.5, 1.5, 0.2], [0.55, 0.8, 0.0], [-0.5, 0.0, -0.3]] {
        assert!(
            pin(p)
                .check_positions(&unit_box(), Path::new("x.yaml"))
                .is_ok(),
            "{p:?}"
        );
    }
}

#[test]
fn a_curve_end_far_outside_is_refused() {
    let h = Hints {
        curve: Some(CurveEdits {
            add_ends: vec![[0.0, 1.0, 0.0]],
            remove_ends: vec![[0.0, -40.0, 0.0]],
        }),
        ..Hints::default()
    };
    let e = h
        .check_positions(&unit_box(), Path::new("c.hints.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("c.hints.yaml") && e.contains("remove_ends"),
        "{e}"
    );
}

#[test]
fn a_relative_template_path_is_beside_the_hints_file() {
    let h = Hints {
        skeleton: Some("dragon.yaml".into()),
        ..Hints::default()
    };
    let name = h
        .template_name(Path::new("assets/hero.hints.yaml"))
        .unwrap();
    assert_eq!(Path::new(&name), Path::new("assets/dragon.yaml"));
    let builtin = Hints {
        skeleton: Some("quadruped".into()),
        ..Hints::default()
    };
    let name = builtin.template_name(Path::new("assets/hero.hints.yaml"));
    assert_eq!(name.as_deref(), Some("quadruped"));
}

/// Bad YAML in a hints file (the watch UI shows the message in its detail pane): one line
/// naming the file, line and column, no multi-line source snippet labelled `<input>`.
#[test]
fn bad_yaml_is_one_line_naming_the_file_and_line() {
    let text = "hints:\n  - joint: LeftHand\n    position: [0.6, 1.0\n";
    let e = Hints::parse(text, Path::new("fox.hints.yaml")).unwrap_err();
    let m = e.to_string();
    assert!(
        m.starts_with("fox.hints.yaml: ") && m.contains("line 3, column 15"),
        "{m}"
    );
    assert!(!m.contains('\n') && !m.contains("<input>"), "{m}");
}
