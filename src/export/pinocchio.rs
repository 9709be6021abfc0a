//! The original Pinocchio text outputs (docs/algorithms.md#original-output-formats), for tools built around them.
//!
//! * `NAME.skeleton.out`: one line per joint, `idx x y z parentIdx` (−1 for a root), mesh frame,
//!   6 significant digits (the original's default ostream precision).
//! * `NAME.attachment.out`: one line per **input** vertex (the original drops unreferenced
//!   vertices; we keep every row aligned with the file), `#joints − 1` weights in bone order,
//!   bone b = joint b+1 → its parent, each `floor(0.5 + w·1e4)/1e4`, space-separated with a
//!   trailing space.
//!
//! Mapping our joint-owned weights (glTF convention: a vertex bound to joint J follows J) to the
//! original's bones: a bone P→C rotates about P with P's transform, and every bone leaving P moves
//! the same way, so joint P's weight goes to the column of **P's first child bone** (lowest child
//! index). A joint without children (a leaf that is not an end marker) has no bone of its own; its
//! weight goes to its own column (bone J−1, the bone ending at J, or — for an extra root — the
//! column that would be its bone). Joint 0 without children has no column; its weight is dropped
//! and the row renormalized.

use crate::rig::{RigJoint, SkinTable};

/// Column of `attachment.out` that carries joint `j`'s weight, if any.
pub fn column_of_joint(joints: &[RigJoint], j: usize) -> Option<usize> {
    let first_child = (1..joints.len()).find(|&c| joints[c].parent == Some(j) && c != j);
    match first_child {
        Some(c) => Some(c - 1),
        None if j >= 1 && j < joints.len() => Some(j - 1),
        None => None,
    }
}

/// Format a number like C++'s default `ostream <<` for doubles (`%g` with 6 significant digits).
pub fn fmt_g6(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() {
            "0".into()
        } else {
            format!("{x}")
        };
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-5..6).contains(&exp) {
        let s = format!("{x:.5e}");
        // Rust prints `1.23450e3`; C prints `1.2345e+03`.
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = trim_zeros(m);
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    trim_zeros(&format!("{x:.decimals$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `skeleton.out` text.
pub fn skeleton_out(joints: &[RigJoint]) -> String {
    let mut s = String::new();
    for (i, j) in joints.iter().enumerate() {
        let parent = j
            .parent
            .filter(|&p| p < joints.len() && p != i)
            .map_or(-1, |p| p as i64);
        let [x, y, z] = j.position.map(fmt_g6);
        s.push_str(&format!("{i} {x} {y} {z} {parent}\n"));
    }
    s
}

/// `attachment.out` text: one line per row of `skin`.
pub fn attachment_out(joints: &[RigJoint], skin: &SkinTable) -> String {
    let columns = joints.len().saturating_sub(1);
    let map: Vec<Option<usize>> = (0..joints.len())
        .map(|j| column_of_joint(joints, j))
        .collect();
    let mut s = String::with_capacity(skin.len() * columns * 3);
    let mut row = vec![0.0; columns];
    for influences in skin {
        row.iter_mut().for_each(|w| *w = 0.0);
        for &(j, w) in influences {
            if let Some(Some(c)) = map.get(j as usize) {
                row[*c] += w;
            }
        }
        let sum: f64 = row.iter().sum();
        for w in &row {
            let w = if sum > 0.0 { w / sum } else { 0.0 };
            let q = (0.5 + w * 1e4).floor() / 1e4;
            s.push_str(&fmt_g6(q));
            s.push(' ');
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(name: &str, parent: Option<usize>) -> RigJoint {
        RigJoint {
            name: name.into(),
            parent,
            position: [0.5, -1234.5678, 1e-7],
            end: false,
        }
    }

    #[test]
    fn formats_like_cpp() {
        assert_eq!(fmt_g6(0.5), "0.5");
        assert_eq!(fmt_g6(-1234.5678), "-1234.57");
        assert_eq!(fmt_g6(1e-7), "1e-07");
        assert_eq!(fmt_g6(123456789.0), "1.23457e+08");
        assert_eq!(fmt_g6(0.0), "0");
        assert_eq!(fmt_g6(1.0), "1");
    }

    #[test]
    fn columns_follow_first_child_bone() {
        // 0 root → 1, 0 → 2 (leaf), 1 → 3 (leaf).
        let joints = vec![
            j("a", None),
            j("b", Some(0)),
            j("c", Some(0)),
            j("d", Some(1)),
        ];
        assert_eq!(column_of_joint(&joints, 0), Some(0));
        assert_eq!(column_of_joint(&joints, 1), Some(2));
        assert_eq!(column_of_joint(&joints, 2), Some(1));
        assert_eq!(column_of_joint(&joints, 3), Some(2));
        let skin: SkinTable = vec![vec![(0, 0.25), (1, 0.75)]];
        assert_eq!(attachment_out(&joints, &skin), "0.25 0 0.75 \n");
        assert!(skeleton_out(&joints).starts_with("0 0.5 -1234.57 1e-07 -1\n1 "));
    }
}
