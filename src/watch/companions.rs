//! Which assets depend on which other files (no I/O): each finished job reports the companion
//! files its load read or looked for ([`crate::mesh::load::Companion`]: a `.gltf`'s buffers and
//! images, an `.obj`'s `.mtl` and textures, an FBX's textures) with the stat it saw; the watcher
//! reports other files changing ([`super::FsChange::File`]). A file whose reported stat differs
//! from the one an asset's last load saw makes that asset stale: it is re-rigged.
//!
//! Comparing stats, not merely "an event came", is what makes the order of events irrelevant: the
//! start-up scan reports every texture after the first rigs have read them (same stat: nothing
//! to do), while a `.bin` that arrives during the rig that failed without it is caught when that
//! rig finishes ([`Companions::stale`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::ingest::Stat;
use crate::mesh::load::Companion;

/// The dependency map. See the module docs.
#[derive(Debug, Default)]
pub struct Companions {
    /// Per asset: the companions its last load saw.
    by_asset: HashMap<PathBuf, Vec<Companion>>,
    /// Per companion file: the assets whose last load read it or looked for it.
    dependents: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    /// Other files as the watcher last reported them (`None`: gone).
    seen: HashMap<PathBuf, Option<Stat>>,
}

impl Companions {
    /// `asset`'s last load saw these companions (replacing what an earlier load saw).
    pub fn record(&mut self, asset: &Path, list: Vec<Companion>) {
        self.forget(asset);
        for c in &list {
            self.dependents
                .entry(c.path.clone())
                .or_default()
                .insert(asset.to_path_buf());
        }
        if !list.is_empty() {
            self.by_asset.insert(asset.to_path_buf(), list);
        }
    }

    /// `asset`'s companion `path` is now `stat` because the program wrote it itself (the edit
    /// mode's save of `NAME.edits.yaml`, whose outputs already are what a re-rig would write):
    /// the watcher reporting that write re-rigs nothing.
    pub fn wrote(&mut self, asset: &Path, path: &Path, stat: Option<Stat>) {
        if let Some(c) = self
            .by_asset
            .get_mut(asset)
            .and_then(|list| list.iter_mut().find(|c| c.path == path))
        {
            c.stat = stat;
        }
    }

    /// `asset` is gone: it depends on nothing.
    pub fn forget(&mut self, asset: &Path) {
        for c in self.by_asset.remove(asset).unwrap_or_default() {
            if let Some(set) = self.dependents.get_mut(&c.path) {
                set.remove(asset);
                if set.is_empty() {
                    self.dependents.remove(&c.path);
                }
            }
        }
    }

    /// The watcher reports `path` with `stat` (`None`: deleted or renamed away). Returns the
    /// assets whose last load saw it otherwise, sorted.
    pub fn file_changed(&mut self, path: &Path, stat: Option<Stat>) -> Vec<PathBuf> {
        self.seen.insert(path.to_path_buf(), stat);
        self.dependents_of(path)
            .into_iter()
            .filter(|a| self.saw(a, path).is_some_and(|s| s != stat))
            .collect()
    }

    /// The assets whose last load read or looked for `path`, sorted.
    pub fn dependents_of(&self, path: &Path) -> Vec<PathBuf> {
        self.dependents
            .get(path)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The first companion of `asset` that the watcher has since reported otherwise than its
    /// last load saw it (it changed while the rig ran), if any.
    pub fn stale(&self, asset: &Path) -> Option<&Path> {
        self.of(asset)
            .iter()
            .find(|c| self.seen.get(&c.path).is_some_and(|s| *s != c.stat))
            .map(|c| c.path.as_path())
    }

    /// The companions `asset`'s last load saw (empty if none, or never loaded).
    pub fn of(&self, asset: &Path) -> &[Companion] {
        self.by_asset.get(asset).map_or(&[], Vec::as_slice)
    }

    /// How `asset`'s last load saw `path` (`Some(None)`: missing), `None` if it did not look.
    fn saw(&self, asset: &Path, path: &Path) -> Option<Option<Stat>> {
        self.of(asset)
            .iter()
            .find(|c| c.path == path)
            .map(|c| c.stat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn stat(len: u64) -> Option<Stat> {
        Some(Stat {
            len,
            modified: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(len)),
        })
    }

    fn comp(path: &str, s: Option<Stat>) -> Companion {
        Companion {
            path: path.into(),
            stat: s,
        }
    }

    #[test]
    fn a_shared_companion_changing_names_both_assets_and_only_when_it_differs() {
        let mut c = Companions::default();
        c.record(Path::new("/w/a.obj"), vec![comp("/w/m.mtl", stat(10))]);
        c.record(
            Path::new("/w/b.obj"),
            vec![comp("/w/m.mtl", stat(10)), comp("/w/t.png", stat(3))],
        );
        // The scan reporting what the loads read: nothing to do.
        assert!(c.file_changed(Path::new("/w/m.mtl"), stat(10)).is_empty());
        assert_eq!(
            c.file_changed(Path::new("/w/m.mtl"), stat(11)),
            vec![PathBuf::from("/w/a.obj"), PathBuf::from("/w/b.obj")]
        );
        assert_eq!(
            c.file_changed(Path::new("/w/t.png"), None),
            vec![PathBuf::from("/w/b.obj")]
        );
        assert!(c
            .file_changed(Path::new("/w/other.png"), stat(1))
            .is_empty());
        c.forget(Path::new("/w/b.obj"));
        assert_eq!(
            c.dependents_of(Path::new("/w/t.png")),
            Vec::<PathBuf>::new()
        );
    }

    #[test]
    fn a_companion_that_arrived_during_the_rig_makes_it_stale() {
        let mut c = Companions::default();
        // The `.bin` is reported while the rig that missed it still runs.
        assert!(c.file_changed(Path::new("/w/a.bin"), stat(8)).is_empty());
        c.record(Path::new("/w/a.gltf"), vec![comp("/w/a.bin", None)]);
        assert_eq!(c.stale(Path::new("/w/a.gltf")), Some(Path::new("/w/a.bin")));
        // The re-rig read it: settled.
        c.record(Path::new("/w/a.gltf"), vec![comp("/w/a.bin", stat(8))]);
        assert_eq!(c.stale(Path::new("/w/a.gltf")), None);
        // A missing file never reported is not stale (nothing says it changed).
        c.record(Path::new("/w/b.gltf"), vec![comp("/w/b.bin", None)]);
        assert_eq!(c.stale(Path::new("/w/b.gltf")), None);
    }
}
