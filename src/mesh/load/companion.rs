//! The files a load reads besides the mesh file itself ("companions"): a `.gltf`'s external
//! buffers and images, an `.obj`'s `.mtl` libraries and the textures they name, an FBX's external
//! textures. Each is recorded as the loader saw it, found (with its size and modification time
//! just before it was read) or missing, so a watcher can re-rig an asset when one of its
//! companions appears, changes or disappears, without parsing the asset itself.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What a watcher compares of a file: size and modification time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    /// Size in bytes.
    pub len: u64,
    /// Modification time, when the file system has one.
    pub modified: Option<SystemTime>,
}

impl FileStat {
    /// Stat a regular file; `None` if it does not exist or is not a file.
    pub fn of(path: &Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        m.is_file().then(|| Self {
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

/// One file a load read or looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Companion {
    /// The file, as the loader resolved it (relative to the mesh's folder).
    pub path: PathBuf,
    /// Its size and time when read; `None` if it was missing. An unreadable file keeps its
    /// stat, so it is retried on its next change, not in a loop.
    pub stat: Option<FileStat>,
}

/// Read a companion file and record it in `seen`. The stat is taken before the read, so a write
/// racing the read leaves a stat older than the content: the watcher then sees a difference and
/// re-rigs, never the other way round.
pub(crate) fn read(path: &Path, seen: &mut Vec<Companion>) -> std::io::Result<Vec<u8>> {
    let stat = FileStat::of(path);
    let bytes = std::fs::read(path);
    seen.push(Companion {
        path: path.to_path_buf(),
        stat,
    });
    bytes
}

/// Record a file that was looked for and not found.
pub(crate) fn missing(path: &Path, seen: &mut Vec<Companion>) {
    seen.push(Companion {
        path: path.to_path_buf(),
        stat: None,
    });
}

/// Keep the first record of each path (a texture shared by two materials is read once, but a
/// buffer and an image may name the same file).
pub(crate) fn dedup(seen: &mut Vec<Companion>) {
    let mut kept: Vec<Companion> = Vec::with_capacity(seen.len());
    for c in seen.drain(..) {
        if !kept.iter().any(|k| k.path == c.path) {
            kept.push(c);
        }
    }
    *seen = kept;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_records_the_stat_and_a_missing_file_records_none() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.bin");
        std::fs::write(&p, b"1234").unwrap();
        let mut seen = Vec::new();
        assert_eq!(read(&p, &mut seen).unwrap(), b"1234");
        assert!(read(&d.path().join("gone.bin"), &mut seen).is_err());
        assert_eq!(seen[0].stat.map(|s| s.len), Some(4));
        assert_eq!(seen[1].stat, None);
        seen.push(seen[0].clone());
        dedup(&mut seen);
        assert_eq!(seen.len(), 2);
    }
}
