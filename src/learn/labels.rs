//! Labelled embeddings and their file: JSON lines, one [`Label`] per line, so learning reads stored
//! basis values and never re-runs the discretization (Baran & Popović 2007 §3.3). Files from the
//! corpus (`geppetto learn --collect`) and from the watcher (users' hints) have the same shape and
//! may be concatenated or passed together.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::LearnError;

/// The file the watcher appends hint labels to, in its output folder.
pub const HINT_LABELS_FILE: &str = "geppetto-labels.jsonl";

/// Where a label came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelSource {
    /// Compared with an artist rig (CD-J2J against a threshold).
    Artist,
    /// A user's hint: the pre-hint embedding is bad, the accepted hinted one good.
    Hint,
}

/// One complete discrete embedding with its 9 unweighted basis values and its label.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Label {
    /// The character (mesh) it belongs to: margins are per character.
    pub character: String,
    /// Where the label came from.
    pub source: LabelSource,
    /// Template embedded.
    pub template: String,
    /// Orientation label (`+Y up, +Z forward`).
    pub orientation: String,
    /// Graph vertex per reduced joint (search order): identifies the embedding.
    pub matched: Vec<u32>,
    /// Unweighted basis values b, in `embed::PENALTY_TERMS` order (penalty = Γᵀb).
    pub basis: [f64; 9],
    /// Good (the search should pick it) or bad.
    pub good: bool,
    /// CD-J2J against the artist rig, % of the largest extent (artist labels only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cd_j2j: Option<f64>,
}

/// Read labels from JSON-lines files (blank lines skipped). Errors name the file and line.
pub fn read(paths: &[impl AsRef<Path>]) -> Result<Vec<Label>, LearnError> {
    let mut out = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let text = std::fs::read_to_string(p).map_err(|e| LearnError::Input {
            path: p.to_path_buf(),
            message: format!("cannot read: {e}"),
        })?;
        out.extend(parse(&text, p)?);
    }
    Ok(out)
}

/// An error naming the (first) file when `paths` held no label at all: learning from them alone
/// would fail with the learner's "0 labels read", which does not say where it looked.
pub fn require_some(labels: &[Label], paths: &[impl AsRef<Path>]) -> Result<(), LearnError> {
    if let (true, Some(first)) = (labels.is_empty(), paths.first()) {
        let more = match paths.len() {
            1 => String::new(),
            n => format!(" (nor do the other {} file(s))", n - 1),
        };
        return Err(LearnError::Input {
            path: first.as_ref().to_path_buf(),
            message: format!(
                "holds no labels{more}: one JSON object per line, as `geppetto learn --collect` \
                 or the watcher writes them"
            ),
        });
    }
    Ok(())
}

/// Parse JSON-lines text (`path` names it in errors).
pub fn parse(text: &str, path: &Path) -> Result<Vec<Label>, LearnError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let label: Label = serde_json::from_str(line).map_err(|e| LearnError::Input {
            path: path.to_path_buf(),
            message: format!("line {}: {e}", i + 1),
        })?;
        if label.basis.iter().any(|b| !b.is_finite()) {
            return Err(LearnError::Input {
                path: path.to_path_buf(),
                message: format!("line {}: a basis value is not finite", i + 1),
            });
        }
        out.push(label);
    }
    Ok(out)
}

/// The JSON-lines text of `labels`.
pub fn to_text(labels: &[Label]) -> String {
    let mut s = String::new();
    for l in labels {
        // A label of plain numbers and strings always serializes.
        s.push_str(&serde_json::to_string(l).unwrap_or_default());
        s.push('\n');
    }
    s
}

/// Write `labels` to `path` atomically (the whole file).
pub fn write(path: &Path, labels: &[Label]) -> Result<(), LearnError> {
    crate::util::write_atomic(path, to_text(labels).as_bytes()).map_err(|e| LearnError::Input {
        path: path.to_path_buf(),
        message: format!("cannot write: {e}"),
    })
}

/// Append the labels of `new` that `path` does not hold yet (same character, embedding and label),
/// each as one line written with one `write` call on a file opened in append mode: concurrent
/// appenders never interleave within a line, and a reader sees whole lines. Returns how many
/// were appended.
pub fn append(path: &Path, new: &[Label]) -> Result<usize, LearnError> {
    let io = |e: std::io::Error| LearnError::Input {
        path: path.to_path_buf(),
        message: format!("cannot append: {e}"),
    };
    let existing = match std::fs::read_to_string(path) {
        Ok(t) => parse(&t, path).unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let same = |a: &Label, b: &Label| {
        a.character == b.character && a.matched == b.matched && a.good == b.good
    };
    let fresh: Vec<&Label> = new
        .iter()
        .filter(|l| !existing.iter().any(|e| same(e, l)))
        .collect();
    if fresh.is_empty() {
        return Ok(0);
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    for l in &fresh {
        let line = to_text(std::slice::from_ref(*l));
        f.write_all(line.as_bytes()).map_err(io)?;
    }
    Ok(fresh.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(good: bool, b0: f64) -> Label {
        Label {
            character: "c".into(),
            source: LabelSource::Artist,
            template: "human".into(),
            orientation: "+Y up, +Z forward".into(),
            matched: vec![1, 2, 3],
            basis: [b0, 0.5, 0.0, 1.0, 0.0, 0.0, 2.25, 0.0, 1.0],
            good,
            cd_j2j: Some(3.5),
        }
    }

    #[test]
    fn an_empty_labels_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("empty.jsonl");
        std::fs::write(&p, "\n\n").unwrap();
        let got = read(&[&p]).unwrap();
        let e = require_some(&got, &[&p]).unwrap_err().to_string();
        assert!(
            e.contains("empty.jsonl") && e.contains("holds no labels"),
            "{e}"
        );
        assert!(require_some(&[label(true, 0.1)], &[&p]).is_ok());
    }

    #[test]
    fn round_trip_and_append_dedupes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.jsonl");
        let ls = vec![label(true, 0.1), label(false, 0.123_456_789_012_345_6)];
        write(&p, &ls).unwrap();
        assert_eq!(read(&[&p]).unwrap(), ls, "bit-exact round trip");
        let mut hint = label(false, 7.0);
        hint.matched = vec![9, 9];
        hint.source = LabelSource::Hint;
        hint.cd_j2j = None;
        assert_eq!(append(&p, &[ls[0].clone(), hint.clone()]).unwrap(), 1);
        assert_eq!(append(&p, &[hint.clone()]).unwrap(), 0, "already there");
        let back = read(&[&p]).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(back[2], hint);
    }

    #[test]
    fn bad_line_names_file_and_line() {
        let e = parse("\n{\"x\": 1}\n", Path::new("bad.jsonl")).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("bad.jsonl") && m.contains("line 2"), "{m}");
    }
}
