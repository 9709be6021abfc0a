//! Small I/O helpers.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` atomically: a temporary file in the same folder, fsync, then rename.
/// Readers (and the watcher) never see a half-written output.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] with the content streamed by `fill` (buffered), so a large output (a big
/// mesh's rig.json) is never held in memory as a whole.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if dir.exists() && !dir.is_dir() {
        // create_dir_all said only "File exists (os error 17)" for `--out FILE`.
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            format!("{} is a file, not a folder", dir.display()),
        ));
    }
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".geppetto-tmp-")
        .tempfile_in(dir)?;
    {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        fill(&mut buffered)?;
        buffered.flush()?;
    }
    // tempfile creates 0600 files; an output (or a hints file the user edits) should get the
    // permissions the replaced file had, else the usual rw-r--r--.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0o644);
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// True when `a` and `b` both exist and are the same file (same device and inode on Unix, so a
/// second spelling, a hard link or a symlink to it counts).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (ma.dev(), ma.ino()) == (mb.dev(), mb.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

/// Milliseconds since `t`.
pub fn ms_since(t: std::time::Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// `n` and its noun in the right number, for counts users read: `1 mesh`, `0 meshes`,
/// `2 meshes` (the counts read `1 meshes`, `1 workers`).
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A YAML error as one line, `what at line L, column C` (every YAML file Geppetto reads: settings,
/// hints, edits, skeletons; the caller names the file). The parser's own text adds a source
/// snippet over several lines, labelled `<input>`, and an `error:` prefix: in the watch UI's
/// detail pane its lines ran together ("`<input>:3:15 |1 | hints:2 |`").
pub fn yaml_message(e: &serde_saphyr::Error) -> String {
    let text = e.without_snippet().to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

#[cfg(test)]
pub(crate) mod test_rng;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_content_and_keeps_readable_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("a.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o644
            );
        }
        let leftovers = std::fs::read_dir(p.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1, "no temp files left behind");
    }

    #[test]
    fn same_file_sees_through_a_second_spelling_but_not_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.glb");
        std::fs::write(&a, b"x").unwrap();
        std::fs::write(dir.path().join("b.glb"), b"x").unwrap();
        assert!(same_file(&a, &dir.path().join(".").join("a.glb")));
        assert!(!same_file(&a, &dir.path().join("b.glb")));
        assert!(!same_file(&a, &dir.path().join("missing.glb")));
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1, "mesh", "meshes"), "1 mesh");
        assert_eq!(count(0, "mesh", "meshes"), "0 meshes");
        assert_eq!(count(2, "worker", "workers"), "2 workers");
    }
}
