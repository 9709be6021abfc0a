//! Do the two rigs agree on which side is the character's left? The Chamfer measures
//! ([`super::joints`]) match nearest joints and ignore names, so a rig that is mirrored (its
//! `Left*` limbs on the character's right: stop 18's template naming) or embedded facing
//! backwards (which swaps the sides too) scores as well as a right one. An engine that retargets
//! by bone name (Godot's humanoid profile, Mixamo clips) then plays the left arm's motion on the
//! right arm.
//!
//! The measure: every PRED joint whose name says a side is paired with its nearest TRUTH joint;
//! a pair counts when that joint's name says a side too (midline joints, whose names say none, are
//! left out), and it agrees when the sides are the same. Side words, case-insensitive: `left` /
//! `right` as a word or a camel-case part (`LeftArm`, `mixamorig:RightHand`, `B_Hand_Left`), and a
//! lone `l` / `r` as one of several `_`, `.`, ` `, `-`, `:` separated parts (`arm.L`, `thigh_r`,
//! `L_Foot`, `Bip01 L Thigh`): the Blender, Unreal and 3ds Max conventions.

use serde::Serialize;

use crate::geom::P3;

/// A side of the character, from a joint's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The character's left.
    Left,
    /// The character's right.
    Right,
}

/// How many side-named PRED joints sit nearest to a TRUTH joint of the same side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SideAgreement {
    /// Pairs whose sides agree.
    pub agree: usize,
    /// Pairs compared (PRED joint with a side, its nearest TRUTH joint with a side).
    pub compared: usize,
}

impl SideAgreement {
    /// Fraction agreeing, `None` when nothing was compared.
    pub fn fraction(&self) -> Option<f64> {
        (self.compared > 0).then(|| self.agree as f64 / self.compared as f64)
    }

    /// What a user should read into it, when it is not plain agreement: the bare number ("sides
    /// 0.000", "n/a, 0 of 0") said neither what was wrong nor why nothing was compared.
    pub fn note(&self) -> Option<String> {
        if self.compared == 0 {
            return Some(
                "sides n/a: no side-named PRED joint has a side-named TRUTH joint nearest it \
                 (PRED names no side, or the TRUTH joints nearest its sided ones name none)"
                    .into(),
            );
        }
        (2 * self.agree < self.compared).then(|| {
            format!(
                "sides: {} of {} side-named joints sit nearest a TRUTH joint of the other side: \
                 PRED's left and right are swapped (a mirrored rig, or one facing backwards), so \
                 animation retargeted by bone name plays on the opposite limbs",
                self.compared - self.agree,
                self.compared
            )
        })
    }
}

/// The side a joint's name says, if any (module docs).
pub fn side_of(name: &str) -> Option<Side> {
    let words = camel_words(name);
    let has = |w: &str| words.iter().any(|x| x == w);
    match (has("left"), has("right")) {
        (true, false) => return Some(Side::Left),
        (false, true) => return Some(Side::Right),
        (true, true) => return None,
        (false, false) => {}
    }
    let parts: Vec<&str> = name
        .split(['_', '.', ' ', '-', ':'])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() < 2 {
        return None;
    }
    let lone = |c: &str| parts.iter().any(|p| p.eq_ignore_ascii_case(c));
    match (lone("l"), lone("r")) {
        (true, false) => Some(Side::Left),
        (false, true) => Some(Side::Right),
        _ => None,
    }
}

/// The lower-case words of a name, split at non-letters and at lower → upper case changes.
fn camel_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        let boundary = !c.is_ascii_alphabetic() || (c.is_ascii_uppercase() && prev_lower);
        if boundary && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase();
        if c.is_ascii_alphabetic() {
            cur.push(c.to_ascii_lowercase());
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The side agreement of PRED (`names`, `positions`) against TRUTH (same frame).
pub fn agreement(pred: (&[String], &[P3]), truth: (&[String], &[P3])) -> SideAgreement {
    let truth_sides: Vec<Option<Side>> = truth.0.iter().map(|n| side_of(n)).collect();
    let mut out = SideAgreement {
        agree: 0,
        compared: 0,
    };
    for (name, p) in pred.0.iter().zip(pred.1) {
        let Some(side) = side_of(name) else { continue };
        let nearest = truth.1.iter().enumerate().min_by(|a, b| {
            (a.1 - p)
                .norm_squared()
                .total_cmp(&(b.1 - p).norm_squared())
        });
        if let Some(Some(t)) = nearest.map(|(i, _)| truth_sides[i]) {
            out.compared += 1;
            out.agree += usize::from(t == side);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_usual_conventions() {
        let left = [
            "LeftArm",
            "mixamorig:LeftHand",
            "B_Hand_Left",
            "arm_up.l",
            "thigh_L",
            "L_Foot",
            "Bip01 L Thigh",
            "left_eye",
        ];
        let right = [
            "RightUpLeg",
            "upperarm.R",
            "calf_r",
            "R Hand",
            "b_RightUpperArm",
        ];
        let none = [
            "Hips", "Spine1", "Bip01", "Leftover", "Wrist", "Hair", "LowerLeg", "l", "Bright",
        ];
        for n in left {
            assert_eq!(side_of(n), Some(Side::Left), "{n}");
        }
        for n in right {
            assert_eq!(side_of(n), Some(Side::Right), "{n}");
        }
        for n in none {
            assert_eq!(side_of(n), None, "{n}");
        }
    }

    #[test]
    fn a_mirrored_rig_disagrees_everywhere_and_midline_joints_do_not_count() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let truth_names = names(&["Hips", "arm.L", "arm.R", "hand.L", "hand.R"]);
        let truth_pos = [
            P3::new(0.0, 1.0, 0.0),
            P3::new(0.3, 1.4, 0.0),
            P3::new(-0.3, 1.4, 0.0),
            P3::new(0.7, 1.4, 0.0),
            P3::new(-0.7, 1.4, 0.0),
        ];
        let pred_names = names(&["Hips", "LeftArm", "RightArm", "LeftHand", "RightHand"]);
        let right_way = truth_pos;
        let mirrored: Vec<P3> = truth_pos.iter().map(|p| P3::new(-p.x, p.y, p.z)).collect();
        let ok = agreement((&pred_names, &right_way), (&truth_names, &truth_pos));
        assert_eq!((ok.agree, ok.compared), (4, 4));
        assert_eq!(ok.fraction(), Some(1.0));
        let bad = agreement((&pred_names, &mirrored), (&truth_names, &truth_pos));
        assert_eq!((bad.agree, bad.compared), (0, 4));
        let none = agreement(
            (&names(&["Hips"]), &truth_pos[..1]),
            (&truth_names, &truth_pos),
        );
        assert_eq!(none.fraction(), None);
    }
}
