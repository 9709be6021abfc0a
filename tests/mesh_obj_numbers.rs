//! OBJ numbers: the loader reads plain decimals on a short path (`mesh/load/number.rs`); on any
//! generated file it must give the positions and faces a plain `str::parse` reading gives, bit
//! for bit, and a malformed number must still fail with the error naming the file, the line and
//! the token.

use std::path::PathBuf;

use geppetto::choose::Template;
use geppetto::mesh::load::{load, load_bytes, LoadError, MeshFormat};
use geppetto::pipeline::{Pipeline, RigRequest};
use geppetto::progress::NoProgress;
use proptest::prelude::*;

/// A coordinate as exporters write it: fixed decimals, shortest form, exponents, signs, leading
/// or trailing points, long digit runs.
fn coordinate() -> impl Strategy<Value = String> {
    prop_oneof![
        (-1e3f64..1e3, 0usize..9).prop_map(|(x, p)| format!("{x:.p$}")),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| format!("{x}")),
        (-1e3f64..1e3).prop_map(|x| format!("{x:e}")),
        "[+-]?[0-9]{1,25}(\\.[0-9]{0,25})?",
        "[+-]?\\.[0-9]{1,8}",
    ]
}

/// The reference reading of one `v` line's three numbers.
fn reference(tokens: &[String]) -> [u64; 3] {
    [0, 1, 2].map(|k| tokens[k].parse::<f64>().unwrap().to_bits())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn positions_are_what_std_parse_reads(
        coords in prop::collection::vec([coordinate(), coordinate(), coordinate()], 3..40),
        plus in any::<bool>(),
    ) {
        let mut text = String::from("# generated\n");
        for c in &coords {
            text += &format!("v {} {} {}\n", c[0], c[1], c[2]);
        }
        let n = coords.len();
        let first = if plus { "+1" } else { "1" };
        text += &format!("f {first} 2 3\nf -1 -2 -3\nf {n} 1 2\n");
        let m = load_bytes(text.as_bytes(), MeshFormat::Obj, None).unwrap();
        prop_assert_eq!(m.positions.len(), n);
        for (p, c) in m.positions.iter().zip(&coords) {
            let got = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
            prop_assert_eq!(got, reference(c));
        }
        let tail = [(n - 1) as u32, (n - 2) as u32, (n - 3) as u32];
        prop_assert_eq!(&m.triangles, &vec![[0, 1, 2], tail, [(n - 1) as u32, 0, 1]]);
    }

    #[test]
    fn a_bad_coordinate_is_a_syntax_error_naming_line_and_token(
        bad in "[0-9]{0,3}(\\.|[a-df-z,])[a-z.,]{1,4}",
        line in 0usize..3,
    ) {
        prop_assume!(bad.parse::<f64>().is_err());
        let mut lines = ["v 0 0 0".to_string(), "v 1 0 0".into(), "v 0 1 0".into()];
        lines[line] = format!("v 0 {bad} 0");
        let text = lines.join("\n") + "\nf 1 2 3\n";
        match load_bytes(text.as_bytes(), MeshFormat::Obj, None) {
            Err(e @ LoadError::Syntax { .. }) => prop_assert_eq!(
                e.to_string(),
                format!("line {}: vertex coordinate: '{bad}' is not a number", line + 1)
            ),
            other => prop_assert!(false, "{other:?}"),
        }
    }
}

#[test]
fn bad_face_indices_keep_their_messages() {
    let cases: [(&str, &str); 4] = [
        (
            "f 1 2 x",
            "line 4: face vertex index: 'x' is not an integer",
        ),
        (
            "f 1 2 3.0",
            "line 4: face vertex index: '3.0' is not an integer",
        ),
        (
            "f 1 2 99999999999999999999",
            "line 4: face vertex index: '99999999999999999999' is not an integer",
        ),
        (
            "f 1 2 0",
            "line 4: face vertex index 0 in '0' (OBJ indices start at 1)",
        ),
    ];
    for (face, message) in cases {
        let text = format!("v 0 0 0\nv 1 0 0\nv 0 1 0\n{face}\n");
        let e = load_bytes(text.as_bytes(), MeshFormat::Obj, None).unwrap_err();
        assert_eq!(e.to_string(), message, "{face}");
    }
}

#[test]
fn a_malformed_file_is_named_in_the_rig_error() {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join("broken.obj");
    std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 0 1,5 0\nf 1 2 3\n").unwrap();
    let e = load(&path).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 3: vertex coordinate: '1,5' is not a number"
    );
    let req = RigRequest::with_sidecar(&path, Template::Auto).unwrap();
    let err = Pipeline::default()
        .rig(&req, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(
        err.contains("line 3: vertex coordinate: '1,5' is not a number"),
        "{err}"
    );
}
