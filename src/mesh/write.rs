//! Writing meshes as OBJ (posed meshes, demo characters).

use std::fmt::Write as _;
use std::path::Path;

use super::Mesh;

/// The OBJ text of a mesh: one `v x y z` line per vertex in order, then one `f a b c` line per
/// triangle (1-based). Coordinates use Rust's shortest round-trip formatting, so reading the file
/// back gives bit-identical positions.
pub fn obj_string(mesh: &Mesh) -> String {
    let mut s = String::with_capacity(mesh.positions.len() * 40 + mesh.triangles.len() * 24);
    s.push_str("# written by geppetto\n");
    for p in &mesh.positions {
        let _ = writeln!(s, "v {} {} {}", p.x, p.y, p.z);
    }
    for t in &mesh.triangles {
        let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}

/// Write `mesh` as OBJ to `path` atomically ([`crate::util::write_atomic`]); see [`obj_string`].
pub fn write_obj(mesh: &Mesh, path: &Path) -> std::io::Result<()> {
    crate::util::write_atomic(path, obj_string(mesh).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::P3;

    #[test]
    fn round_trip_is_bit_exact() {
        let mesh = Mesh {
            positions: vec![
                P3::new(0.1, -2.5e-17, 1.0 / 3.0),
                P3::new(1e300, 7.0, -0.0),
                P3::new(-1.25, 0.2 + 0.1, 9.999_999_999_999_999),
            ],
            triangles: vec![[0, 1, 2], [2, 1, 0]],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("m.obj");
        write_obj(&mesh, &path).unwrap();
        let back = crate::mesh::load(&path).unwrap();
        assert_eq!(back, mesh);
    }
}
