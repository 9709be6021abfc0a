//! Unit tests of the PLY reader.

use super::*;

const ASCII_QUAD: &str = "ply\r\nformat ascii 1.0\ncomment made by hand\nobj_info nothing\n\
element vertex 4\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\n\
element face 1\nproperty list uchar int vertex_indices\nproperty list uchar float texcoord\n\
element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n\
0 0 0 255\n1 0 0 0\n1 1 0 0\n0 1 0 9\n4 0 1 2 3 2 0.5 0.5\n0 1\n";

#[test]
fn ascii_with_extra_properties_and_elements() {
    let m = parse(ASCII_QUAD.as_bytes()).unwrap();
    assert_eq!(m.positions.len(), 4);
    assert_eq!(m.positions[2], P3::new(1.0, 1.0, 0.0));
    assert_eq!(m.triangles.len(), 2);
}

/// A binary PLY of a tetrahedron with a leading `double` property, `uint8` counts, `int32`
/// indices and an extra list, in either byte order.
fn binary_tet(big: bool) -> Vec<u8> {
    let fmt = if big {
        "binary_big_endian"
    } else {
        "binary_little_endian"
    };
    let mut out = format!(
        "ply\nformat {fmt} 1.0\nelement vertex 4\nproperty double w\nproperty float x\n\
property float y\nproperty float z\nelement face 4\nproperty list uint8 int32 vertex_index\n\
property list uchar ushort junk\nend_header\n"
    )
    .into_bytes();
    let f32b = |v: f32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let i32b = |v: i32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    for p in [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ] {
        out.extend(if big {
            7.5f64.to_be_bytes()
        } else {
            7.5f64.to_le_bytes()
        });
        for c in p {
            out.extend(f32b(c));
        }
    }
    for f in [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]] {
        out.push(3);
        for i in f {
            out.extend(i32b(i));
        }
        out.push(1);
        out.extend([0, 0]);
    }
    out
}

#[test]
fn binary_both_endians() {
    for big in [false, true] {
        let m = parse(&binary_tet(big)).unwrap();
        assert_eq!(m.positions[3], P3::new(0.0, 0.0, 1.0), "big endian: {big}");
        assert_eq!(
            m.triangles,
            vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
        );
    }
}

#[test]
fn truncated_and_forged_files_fail_cleanly() {
    let full = binary_tet(false);
    for cut in [full.len() - 1, full.len() - 20, 200, 10] {
        assert!(parse(&full[..cut.min(full.len())]).is_err(), "cut at {cut}");
    }
    let forged =
        "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000000\nproperty float x\n\
property float y\nproperty float z\nend_header\n";
    assert!(parse(forged.as_bytes()).is_err());
    let empty_el = "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\n\
property float z\nelement junk 999999999999\nend_header\n";
    assert!(parse(empty_el.as_bytes()).is_err());
}

#[test]
fn errors_name_the_problem() {
    let bad_index = ASCII_QUAD.replace("4 0 1 2 3 2", "4 0 1 2 7 2");
    match parse(bad_index.as_bytes()) {
        Err(LoadError::BadIndex {
            index: 7,
            count: 4,
            line: Some(21),
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    let bad_number = ASCII_QUAD.replace("1 1 0 0", "1 x 0 0");
    assert!(matches!(
        parse(bad_number.as_bytes()),
        Err(LoadError::Syntax { line: 19, .. })
    ));
    let no_xyz = ASCII_QUAD.replace("property float y\n", "");
    assert!(matches!(
        parse(no_xyz.as_bytes()),
        Err(LoadError::Syntax { line: 5, .. })
    ));
    assert!(parse(b"ply\nformat ascii 1.0\n").is_err());
    assert!(parse(b"ply\nformat weird 1.0\nend_header\n").is_err());
}
