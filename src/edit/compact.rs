//! Compaction of the edit log on save (facts §11.5): drop the edits a later one makes moot, so the
//! sidecar holds what the user ended with, not every step of the way there.
//!
//! Replay applies the skeleton edits in order and then solves once globally, so the weights depend
//! only on the final joints and controls. An edit may go when removing it leaves that final state
//! **and** every other edit's effect unchanged:
//!
//! * a move of a joint (its descendants staying) is superseded by a later such move of the same
//!   joint when nothing in between reads the joint's position or the hierarchy (only moves of
//!   other joints and control settings lie between);
//! * a control setting (handle, magnitude, smoothness) is superseded by a later setting of the
//!   same kind on the same joint unless the joint is deleted or a joint of that name is inserted
//!   in between (then the two name different joints); a setting equal to the default with no
//!   earlier setting of its kind for that joint left is dropped (a joint starts at the default);
//! * an `insert_joint` followed later by a `delete_joint` of the inserted joint is removed with
//!   the edits of that joint in between (moves and settings: the joint is gone at the end), when
//!   everything else in between is independent of the hierarchy (moves of other joints without
//!   their descendants and settings; an align, insert, delete or re-root could see the inserted
//!   joint). Delete re-parents the inserted joint's child to the bone's parent: the hierarchy, the
//!   joint order and the controls are then exactly as before the insert.

use super::{Control, EditOp};

/// The compacted log (see the module docs): same replay result, no moot edit.
pub fn compact(edits: &[EditOp]) -> Vec<EditOp> {
    let mut out = edits.to_vec();
    // Each rule only removes edits, so this ends; removing one can enable another.
    loop {
        let before = out.len();
        out = drop_insert_delete_pairs(out);
        out = drop_superseded(out);
        out = drop_default_settings(out);
        if out.len() == before {
            return out;
        }
    }
}

/// Which control an edit sets, and on which joint.
fn setting(op: &EditOp) -> Option<(u8, &str)> {
    match op {
        EditOp::Handle { joint, .. } => Some((0, joint)),
        EditOp::Magnitude { joint, .. } => Some((1, joint)),
        EditOp::Smoothness { joint, .. } => Some((2, joint)),
        _ => None,
    }
}

/// True if `op` sets a control to its default value.
fn is_default_setting(op: &EditOp) -> bool {
    let d = Control::default();
    match op {
        EditOp::Handle { offset, .. } => *offset == d.handle,
        EditOp::Magnitude { c, .. } => *c == d.magnitude,
        EditOp::Smoothness { b, .. } => *b == d.smoothness,
        _ => false,
    }
}

/// A move of `joint` alone (descendants staying).
fn plain_move_of(op: &EditOp) -> Option<&str> {
    match op {
        EditOp::MoveJoint {
            joint,
            with_descendants: false,
            ..
        } => Some(joint),
        _ => None,
    }
}

/// True if `op` creates or removes the joint called `name`.
fn renames(op: &EditOp, name: &str) -> bool {
    match op {
        EditOp::InsertJoint { name: n, .. } => n == name,
        EditOp::DeleteJoint { joint } => joint == name,
        _ => false,
    }
}

fn drop_superseded(edits: Vec<EditOp>) -> Vec<EditOp> {
    let mut keep = vec![true; edits.len()];
    for i in 0..edits.len() {
        let later = &edits[i + 1..];
        keep[i] = if let Some(j) = plain_move_of(&edits[i]) {
            // Superseded if a later plain move of j comes before anything that reads positions.
            !later
                .iter()
                .take_while(|op| setting(op).is_some() || plain_move_of(op).is_some())
                .any(|op| plain_move_of(op) == Some(j))
        } else if let Some(key) = setting(&edits[i]) {
            !later
                .iter()
                .take_while(|op| !renames(op, key.1))
                .any(|op| setting(op) == Some(key))
        } else {
            true
        };
    }
    filter(edits, &keep)
}

fn drop_default_settings(edits: Vec<EditOp>) -> Vec<EditOp> {
    let keep: Vec<bool> = (0..edits.len())
        .map(|i| {
            let Some(key) = setting(&edits[i]) else {
                return true;
            };
            // Only the first setting of its kind for this joint (since the joint was created)
            // starts from the default.
            let earlier = edits[..i]
                .iter()
                .rev()
                .take_while(|op| !renames(op, key.1))
                .any(|op| setting(op) == Some(key));
            earlier || !is_default_setting(&edits[i])
        })
        .collect();
    filter(edits, &keep)
}

fn drop_insert_delete_pairs(edits: Vec<EditOp>) -> Vec<EditOp> {
    for (i, op) in edits.iter().enumerate() {
        let EditOp::InsertJoint { name, .. } = op else {
            continue;
        };
        let Some(d) = edits[i + 1..].iter().position(|op| renames(op, name)) else {
            continue;
        };
        let d = i + 1 + d;
        if !matches!(&edits[d], EditOp::DeleteJoint { .. }) {
            continue;
        }
        let between = &edits[i + 1..d];
        let independent = between.iter().all(|op| {
            setting(op).is_some()
                || plain_move_of(op).is_some()
                || matches!(op, EditOp::MoveJoint { joint, .. } if joint != name)
        });
        if !independent {
            continue;
        }
        let mut keep = vec![true; edits.len()];
        keep[i] = false;
        keep[d] = false;
        for (k, op) in between.iter().enumerate() {
            let own = setting(op).map(|s| s.1) == Some(name.as_str())
                || matches!(op, EditOp::MoveJoint { joint, .. } if joint == name);
            keep[i + 1 + k] = !own;
        }
        // One pair per call: `compact` loops until nothing changes.
        return filter(edits, &keep);
    }
    edits
}

fn filter(edits: Vec<EditOp>, keep: &[bool]) -> Vec<EditOp> {
    edits
        .into_iter()
        .zip(keep)
        .filter(|(_, &k)| k)
        .map(|(op, _)| op)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(j: &str, x: f64) -> EditOp {
        EditOp::MoveJoint {
            joint: j.into(),
            to: [x, 0.0, 0.0],
            with_descendants: false,
        }
    }
    fn ins(child: &str, name: &str) -> EditOp {
        EditOp::InsertJoint {
            child: child.into(),
            at: 0.5,
            name: name.into(),
        }
    }
    fn del(j: &str) -> EditOp {
        EditOp::DeleteJoint { joint: j.into() }
    }
    fn mag(j: &str, c: f64) -> EditOp {
        EditOp::Magnitude { joint: j.into(), c }
    }

    #[test]
    fn an_insert_later_deleted_goes_with_its_own_edits() {
        let log = vec![
            mv("a", 1.0),
            ins("hand", "n"),
            mv("n", 2.0),
            mag("n", 2.0),
            mv("b", 3.0),
            del("n"),
            mag("a", 1.5),
        ];
        assert_eq!(
            compact(&log),
            vec![mv("a", 1.0), mv("b", 3.0), mag("a", 1.5)]
        );
    }

    #[test]
    fn an_insert_delete_pair_stays_when_something_between_sees_the_hierarchy() {
        let align = EditOp::Align {
            joints: vec!["arm".into(), "n".into(), "hand".into()],
        };
        let log = vec![ins("hand", "n"), align.clone(), del("n")];
        assert_eq!(compact(&log), log);
        // A move of the inserted joint with its descendants moves the child too.
        let carry = EditOp::MoveJoint {
            joint: "n".into(),
            to: [1.0, 0.0, 0.0],
            with_descendants: true,
        };
        let log = vec![ins("hand", "n"), carry, del("n")];
        assert_eq!(compact(&log), log);
        // Deleting a joint that was not inserted in the log is a real edit.
        assert_eq!(compact(&[del("n")]), vec![del("n")]);
    }

    #[test]
    fn moves_and_settings_keep_their_last_value_only_where_nothing_reads_them() {
        let log = vec![mv("a", 1.0), mv("b", 2.0), mag("b", 2.0), mv("a", 4.0)];
        assert_eq!(
            compact(&log),
            vec![mv("b", 2.0), mag("b", 2.0), mv("a", 4.0)]
        );
        // An insert between reads a's position (the new joint's place): both moves stay.
        let log = vec![mv("a", 1.0), ins("a", "n"), mv("a", 4.0)];
        assert_eq!(compact(&log), log);
        // Settings are final values, whatever lies between, unless the joint is re-created.
        let log = vec![mag("a", 2.0), ins("x", "y"), mag("a", 3.0)];
        assert_eq!(compact(&log), vec![ins("x", "y"), mag("a", 3.0)]);
        let log = vec![mag("a", 2.0), del("a"), ins("x", "a"), mag("a", 3.0)];
        assert_eq!(compact(&log), log);
    }

    #[test]
    fn settings_back_at_their_default_vanish() {
        let log = vec![mag("a", 2.0), mag("a", 1.0)];
        assert!(compact(&log).is_empty(), "{:?}", compact(&log));
        let neutral = EditOp::Handle {
            joint: "a".into(),
            offset: [0.0; 3],
        };
        let smooth = EditOp::Smoothness {
            joint: "a".into(),
            b: 0.0,
        };
        assert!(compact(&[neutral, smooth]).is_empty());
        // The default after a deletion and re-insert under the same name is still moot.
        let log = vec![mag("a", 2.0), del("a"), ins("x", "a"), mag("a", 1.0)];
        assert_eq!(compact(&log), vec![mag("a", 2.0), del("a"), ins("x", "a")]);
    }
}
