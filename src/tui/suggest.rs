//! Suggested hints in plain words, derived from the rig's warnings, confidence reasons, penalty
//! terms and a few geometric sanity checks on the embedded joints (mesh frame, tolerances relative
//! to the model's size).

use crate::rig::Rig;

/// Plain-words meaning of each weighted penalty term (Baran & Popović 2007 §4, the nine terms)
/// and the hint that usually fixes a large value.
fn term_advice(term: &str) -> Option<&'static str> {
    Some(match term {
        "length" => "bone lengths differ from the template — pin the hands and feet at their tips?",
        "global_direction" => "a chain points the wrong way — is the model upright (+Y) and facing +Z? pin the Head?",
        "asymmetry" => "left and right limbs came out with different lengths — pin the short side's hand or foot?",
        "shared_path" => "two limbs share a path through the body (e.g. an arm running through the torso) — pin the hand?",
        "foot" => "the feet are not at the bottom of the model — pin LeftFoot and RightFoot?",
        "zero_length" => "a limb collapsed to almost nothing — pin its end joint (hand, foot, head top)?",
        "direction" => "a bone points away from its template direction — pin the joint at its end?",
        "mid_limb_end" => "a limb ends in the middle of a limb, not at an extremity — pin the hand or foot at the tip?",
        "disjoint" => "two limbs overlap where they should be apart — pin one of them?",
        _ => return None,
    })
}

/// Suggestions for `rig`, most useful first, without duplicates.
pub fn suggestions(rig: &Rig) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    // Warnings and reasons that name a joint: offer to pin the joint a user can see there. A chain
    // end (LeftHand_End) is a marker; its parent (the wrist) is what to pin, and a pin on any joint
    // moves the whole limb through it.
    for w in rig.warnings.iter().chain(&rig.confidence_reasons) {
        if let Some(j) = rig.joints.iter().find(|j| mentions(w, &j.name)) {
            let w = w.trim_start_matches("low confidence: ");
            let visible = j
                .parent
                .filter(|_| j.end)
                .and_then(|p| rig.joints.get(p))
                .unwrap_or(j);
            add(format!("{w} — {}", pin_advice(&visible.name)));
        }
    }
    if rig
        .confidence_reasons
        .iter()
        .any(|r| r.contains("feet are not at the bottom"))
    {
        add("the feet are not at the bottom — is the model upright? pin LeftFoot and RightFoot at the ankles".into());
    }
    for s in geometric(rig) {
        add(s);
    }
    // The dominant penalty term, if the total is noticeable.
    let total = rig.penalty.total;
    if total > 0.0 {
        let worst = rig
            .penalty
            .terms
            .iter()
            .filter(|(_, v)| v.is_finite())
            .max_by(|a, b| a.1.total_cmp(b.1));
        if let Some((term, v)) = worst {
            if *v > 0.3 * total && *v > 0.05 {
                if let Some(advice) = term_advice(term) {
                    add(format!(
                        "{term} is {:.0}% of the penalty: {advice}",
                        100.0 * v / total
                    ));
                }
            }
        }
    }
    out
}

/// "pin LeftHand (the left wrist) where it really is — the whole limb follows".
fn pin_advice(joint: &str) -> String {
    let side = if joint.starts_with("Left") {
        "left "
    } else if joint.starts_with("Right") {
        "right "
    } else {
        ""
    };
    let part = [
        ("ForeArm", "elbow"),
        ("Hand", "wrist"),
        ("UpLeg", "hip"),
        ("Leg", "knee"),
        ("Foot", "ankle"),
        ("ToeBase", "toes"),
        ("Arm", "shoulder"),
    ]
    .iter()
    .find(|(k, _)| joint.ends_with(k))
    .map(|(_, v)| *v);
    match part {
        Some(p) => {
            format!("pin {joint} (the {side}{p}) where it really is; the whole limb follows")
        }
        None => format!("pin {joint}?"),
    }
}

/// True if `text` names `joint` as a word (so "Hand" does not match "LeftHand").
fn mentions(text: &str, joint: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| w == joint)
}

/// Checks on joint positions: hands next to the head, feet above the hips, collapsed limbs.
fn geometric(rig: &Rig) -> Vec<String> {
    let ext = rig.max_extent();
    if ext <= 0.0 {
        return Vec::new();
    }
    let pos = |name: &str| {
        rig.joints
            .iter()
            .find(|j| j.name == name)
            .map(|j| j.position)
    };
    let dist = |a: [f64; 3], b: [f64; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    let mut out = Vec::new();
    if let Some(head) = pos("Head") {
        for hand in ["LeftHand", "RightHand"] {
            if let Some(h) = pos(hand) {
                if dist(h, head) < 0.12 * ext {
                    out.push(format!(
                        "{hand} was embedded in a short branch near the head — pin {hand}?"
                    ));
                }
            }
        }
    }
    if let Some(hips) = pos("Hips") {
        for foot in ["LeftFoot", "RightFoot"] {
            if let Some(f) = pos(foot) {
                if f[1] > hips[1] {
                    out.push(format!(
                        "{foot} is above the hips — pin {foot} near the bottom of the leg?"
                    ));
                }
            }
        }
    }
    for pair in [
        ("LeftArm", "LeftHand"),
        ("RightArm", "RightHand"),
        ("LeftUpLeg", "LeftFoot"),
        ("RightUpLeg", "RightFoot"),
    ] {
        if let (Some(a), Some(b)) = (pos(pair.0), pos(pair.1)) {
            if dist(a, b) < 0.03 * ext {
                out.push(format!(
                    "the {} chain has almost no length — pin {}?",
                    pair.0, pair.1
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::RigJoint;

    fn joint(name: &str, p: [f64; 3]) -> RigJoint {
        RigJoint {
            name: name.into(),
            parent: None,
            position: p,
            end: false,
        }
    }

    fn rig() -> Rig {
        Rig {
            bbox: [[-1.0, 0.0, -0.5], [1.0, 2.0, 0.5]],
            joints: vec![
                joint("Hips", [0.0, 1.0, 0.0]),
                joint("Head", [0.0, 1.8, 0.0]),
                joint("LeftHand", [0.05, 1.75, 0.0]),
                joint("RightHand", [-0.9, 1.4, 0.0]),
                joint("LeftFoot", [0.2, 0.05, 0.0]),
                joint("RightFoot", [-0.2, 1.3, 0.0]),
            ],
            ..Rig::default()
        }
    }

    #[test]
    fn hand_near_head_and_foot_above_hips_are_suggested() {
        let s = suggestions(&rig());
        assert!(
            s.iter().any(|l| l
                .contains("LeftHand was embedded in a short branch near the head — pin LeftHand?")),
            "{s:?}"
        );
        assert!(
            s.iter().any(|l| l.contains("RightFoot is above the hips")),
            "{s:?}"
        );
        assert!(!s.iter().any(|l| l.contains("RightHand")), "{s:?}");
    }

    #[test]
    fn warnings_naming_a_joint_offer_a_pin_and_dominant_terms_explain_themselves() {
        let mut r = rig();
        r.joints.truncate(2);
        r.warnings = vec!["Head placed outside the surface".into()];
        r.penalty.total = 1.0;
        r.penalty.terms.insert("foot".into(), 0.8);
        r.penalty.terms.insert("length".into(), 0.2);
        let s = suggestions(&r);
        assert_eq!(s[0], "Head placed outside the surface — pin Head?");
        assert!(
            s.iter()
                .any(|l| l.starts_with("foot is 80% of the penalty")),
            "{s:?}"
        );
        assert!(mentions("LeftHand, and more", "LeftHand"));
        assert!(!mentions("LeftHandIndex", "LeftHand"));
    }

    #[test]
    fn a_limb_in_a_plate_asks_for_the_wrist_in_plain_words() {
        let mut r = rig();
        r.joints.push(RigJoint {
            name: "LeftHand_End".into(),
            parent: Some(2),
            position: [0.1, 1.7, 0.0],
            end: true,
        });
        r.confidence_reasons =
            vec!["the limb ending at LeftHand_End runs through a thin, flat plate".into()];
        let s = suggestions(&r);
        assert!(
            s[0].ends_with(
                "pin LeftHand (the left wrist) where it really is; the whole limb follows"
            ),
            "{s:?}"
        );
    }

    #[test]
    fn empty_rig_gives_no_suggestions() {
        assert!(suggestions(&Rig::default()).is_empty());
    }
}
