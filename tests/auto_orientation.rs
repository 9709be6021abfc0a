//! `--skeleton auto` / `--orientation auto` on the real binary: a character saved the way artists
//! save them (+Y or +Z up) is rigged `ok` and upright; the same character turned upside down
//! still rigs, but no template fit is called `ok` (no file is authored upside down, and a shape that only
//! fits a template upside down is usually not that template's creature: an octopus, a hand).

use std::path::Path;

use geppetto::demo::humanoid;
use geppetto::geom::P3;
use geppetto::mesh::write_obj;
use geppetto::rig::{Rig, Status};

mod common;

/// Rig `mesh` with the defaults (`--skeleton auto`) into `out`; the rig read back.
fn rig_with_defaults(mesh: &Path, out: &Path) -> Rig {
    common::rig_cli(mesh, out, &[])
}

#[test]
fn upright_is_ok_and_upside_down_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = humanoid(3);
    let upright = dir.path().join("upright.obj");
    write_obj(&c.mesh, &upright).unwrap();
    // A half turn about X: +Y up becomes -Y up (handedness kept).
    for p in &mut c.mesh.positions {
        *p = P3::new(p.x, -p.y, -p.z);
    }
    let flipped = dir.path().join("flipped.obj");
    write_obj(&c.mesh, &flipped).unwrap();

    let out = dir.path().join("out");
    let up = rig_with_defaults(&upright, &out);
    assert_eq!(up.skeleton, "human");
    assert_eq!(up.status, Status::Ok, "{:?}", up.confidence_reasons);
    assert!(up.orientation.starts_with("+Y up"), "{}", up.orientation);

    let down = rig_with_defaults(&flipped, &out);
    // No template may be trusted upside down. Under `auto` the template-free curve skeleton then
    // competes (it follows the shape whatever its orientation) and may win; the rig says why.
    let why: Vec<&String> = down
        .confidence_reasons
        .iter()
        .chain(&down.warnings)
        .filter(|r| r.contains("turned"))
        .collect();
    assert!(
        !why.is_empty(),
        "{:?} {:?}",
        down.confidence_reasons,
        down.warnings
    );
    if down.method == "curve" {
        assert!(
            down.warnings
                .iter()
                .any(|w| w.contains("no template fits with confidence")),
            "{:?}",
            down.warnings
        );
    } else {
        assert_eq!(
            down.status,
            Status::LowConfidence,
            "an upside-down template fit must not be ok ({})",
            down.orientation
        );
    }
}
