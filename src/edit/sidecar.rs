//! The edits sidecar `NAME.edits.yaml` beside the mesh: the ordered edit log, written atomically
//! only when the user asks, and replayed after every re-rig (docs/algorithms.md#rig-editing).
//!
//! ```yaml
//! version: 1
//! edits:
//!   - move_joint: { joint: LeftForeArm, to: [0.41, 1.20, 0.03] }
//!   - insert_joint: { child: LeftHand, at: 0.5, name: LeftForeArmTwist }
//!   - magnitude: { joint: Head, c: 0.7 }
//! ```
//! Skeleton edits are replayed in order (inserts and deletes change the names later entries use);
//! then one global solve makes the result depend on the file alone, not on the interactive
//! history (facts §11.5). An edit that no longer applies (a joint that vanished) is reported.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{EditOp, Session};
use crate::util::write_atomic;

/// The sidecar format version this code writes and reads.
pub const VERSION: u32 = 1;

/// The file's contents.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditLog {
    /// Format version.
    pub version: u32,
    /// Edits, applied in order.
    #[serde(default)]
    pub edits: Vec<EditOp>,
}

/// Why a sidecar could not be read or written.
#[derive(Debug, Error)]
pub enum SidecarError {
    /// I/O failure.
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// Not a valid edits file.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong (with line and column when the YAML parser knows them).
        message: String,
    },
}

/// `NAME.edits.yaml` beside `mesh`, named by the one naming rule ([`crate::naming::asset_name`]).
pub fn sidecar_path(mesh: &Path) -> PathBuf {
    mesh.with_file_name(format!("{}.edits.yaml", crate::naming::asset_name(mesh)))
}

impl EditLog {
    /// Parse YAML; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, SidecarError> {
        // An empty file (or one of comments only) holds no edits, as an empty hints file holds
        // no hints; it was "edits not applied: unexpected end of input" on every re-rig.
        if text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            return Ok(Self {
                version: VERSION,
                edits: Vec::new(),
            });
        }
        let log: Self = serde_saphyr::from_str(text).map_err(|e| SidecarError::Parse {
            path: path.to_path_buf(),
            message: crate::util::yaml_message(&e),
        })?;
        if log.version != VERSION {
            return Err(SidecarError::Parse {
                path: path.to_path_buf(),
                message: format!(
                    "version {} is not supported (expected {VERSION})",
                    log.version
                ),
            });
        }
        Ok(log)
    }

    /// Read the sidecar of `mesh`, `None` if there is none.
    pub fn load_for(mesh: &Path) -> Result<Option<Self>, SidecarError> {
        let path = sidecar_path(mesh);
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::parse(&text, &path).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(cause) => Err(SidecarError::Io { path, cause }),
        }
    }

    /// YAML text (floats in shortest round-trip form).
    pub fn to_yaml(&self) -> String {
        let body = serde_saphyr::to_string(self).unwrap_or_else(|_| "version: 1\n".into());
        format!("# Geppetto rig edits, replayed in order after every re-rig.\n{body}")
    }

    /// Write atomically to `path`.
    pub fn save(&self, path: &Path) -> Result<(), SidecarError> {
        write_atomic(path, self.to_yaml().as_bytes()).map_err(|cause| SidecarError::Io {
            path: path.to_path_buf(),
            cause,
        })
    }

    /// Append `ops` and compact the whole log ([`super::compact`], facts §11.5): superseded moves
    /// and settings, settings back at their default, and an inserted joint deleted again go.
    pub fn push_compacted(&mut self, ops: &[EditOp]) {
        self.edits.extend_from_slice(ops);
        self.edits = super::compact::compact(&self.edits);
    }
}

/// Replay `edits` on `session` in order without local solves, then solve once globally. Returns
/// one message per edit that no longer applies (never dropped silently).
pub fn replay(session: &mut Session, edits: &[EditOp]) -> Result<Vec<String>, super::EditError> {
    let mut skipped = Vec::new();
    session.defer = true;
    for op in edits {
        if let Err(e) = session.apply(op) {
            skipped.push(format!("edit \"{}\" skipped: {e}", op.label()));
        }
    }
    session.defer = false;
    if edits.len() > skipped.len() {
        session.global()?;
    }
    Ok(skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bad YAML names the file and the line in one line (the watch UI's detail pane).
    #[test]
    fn bad_yaml_is_one_line_naming_the_file_and_line() {
        let e = EditLog::parse("version: 1\nedits: [\n", Path::new("a.edits.yaml")).unwrap_err();
        let m = e.to_string();
        assert!(
            m.starts_with("a.edits.yaml: ") && m.contains("line 2"),
            "{m}"
        );
        assert!(!m.contains('\n') && !m.contains("<input>"), "{m}");
    }

    #[test]
    fn an_empty_sidecar_holds_no_edits() {
        for text in ["", "\n  \n", "# cleared by hand\n"] {
            let log = EditLog::parse(text, Path::new("x.edits.yaml")).unwrap();
            assert!(log.edits.is_empty(), "{text:?}");
        }
        assert!(EditLog::parse("edits: 5\n", Path::new("x.edits.yaml")).is_err());
    }

    #[test]
    fn round_trip_and_strict_parse() {
        let mut log = EditLog {
            version: VERSION,
            edits: vec![],
        };
        log.push_compacted(&[
            EditOp::MoveJoint {
                joint: "a".into(),
                to: [0.1, 0.2, 0.30000000000000004],
                with_descendants: false,
            },
            EditOp::MoveJoint {
                joint: "a".into(),
                to: [0.5, 0.2, 1e-17],
                with_descendants: false,
            },
            EditOp::InsertJoint {
                child: "b".into(),
                at: 0.5,
                name: "ab".into(),
            },
            EditOp::Magnitude {
                joint: "b".into(),
                c: 1.25,
            },
            EditOp::Magnitude {
                joint: "b".into(),
                c: 1.5,
            },
            EditOp::Align {
                joints: vec!["a".into(), "b".into(), "c".into()],
            },
        ]);
        assert_eq!(log.edits.len(), 4);
        let text = log.to_yaml();
        let back = EditLog::parse(&text, Path::new("x.edits.yaml")).expect("parse");
        assert_eq!(back, log, "{text}");
        let bad = "version: 1\nedits:\n  - move_joint: { joint: a, to: [1, 2, 3], speed: 2 }\n";
        let e = EditLog::parse(bad, Path::new("x.edits.yaml")).expect_err("unknown key");
        assert!(e.to_string().contains("x.edits.yaml"), "{e}");
        assert!(EditLog::parse("version: 7\n", Path::new("v.yaml")).is_err());
    }

    #[test]
    fn sidecar_sits_beside_the_mesh() {
        let p = sidecar_path(Path::new("/tmp/does-not-exist/hero.obj"));
        assert_eq!(p, PathBuf::from("/tmp/does-not-exist/hero.edits.yaml"));
    }
}
