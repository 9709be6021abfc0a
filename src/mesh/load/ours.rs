//! Is this file one of Geppetto's own outputs? A GLB we write names us in `asset.generator`
//! (`geppetto X.Y.Z`, [`crate::export`]), so a folder watched after an earlier run wrote its
//! outputs inside it (a later `watch DIR --out ELSEWHERE`, or two runs with different `--out`)
//! can tell an earlier run's rigs from the artist's source meshes instead of rigging them again.
//!
//! Only glTF files carry the mark: our other outputs (`rig.json`, `.png`, the original's `.out`
//! text files) are not meshes the watcher would pick up. A file re-exported by another tool
//! (Blender, say) names that tool, so an artist who edits one of our rigs and saves it back is
//! rigged again as a source.

use std::io::Read;
use std::path::Path;

/// Prefix of the `asset.generator` every glTF we write carries.
pub const GENERATOR_PREFIX: &str = "geppetto ";

/// Largest JSON part read to find the generator: ours is a few KB to a few MB even for a
/// million-vertex rig (the arrays live in the binary chunk); a larger one is not ours.
const MAX_JSON_BYTES: u64 = 64 << 20;

/// The `asset.generator` of `path` when it is a glTF or GLB file Geppetto wrote, else `None`
/// (another tool's file, not glTF, unreadable, or not yet complete: any doubt means "a source").
pub fn geppetto_output(path: &Path) -> Option<String> {
    let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
    let json = match ext.as_str() {
        "glb" => glb_json(path)?,
        "gltf" => {
            let mut bytes = Vec::new();
            std::fs::File::open(path)
                .ok()?
                .take(MAX_JSON_BYTES + 1)
                .read_to_end(&mut bytes)
                .ok()?;
            bytes
        }
        _ => return None,
    };
    generator_of(&json).filter(|g| g.starts_with(GENERATOR_PREFIX))
}

/// The JSON chunk of a GLB, read without the binary chunk that follows it.
fn glb_json(path: &Path) -> Option<Vec<u8>> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut header = [0u8; 20];
    file.read_exact(&mut header).ok()?;
    let le = |at: usize| {
        u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    if &header[0..4] != b"glTF" || &header[16..20] != b"JSON" {
        return None;
    }
    let len = u64::from(le(12));
    if len > MAX_JSON_BYTES {
        return None;
    }
    let mut json = Vec::new();
    file.take(len).read_to_end(&mut json).ok()?;
    (json.len() as u64 == len).then_some(json)
}

/// `asset.generator` of a glTF JSON document, if it parses and has one.
fn generator_of(json: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Doc {
        asset: Asset,
    }
    #[derive(serde::Deserialize)]
    struct Asset {
        generator: Option<String>,
    }
    if json.len() as u64 > MAX_JSON_BYTES {
        return None;
    }
    serde_json::from_slice::<Doc>(json).ok()?.asset.generator
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(json: &str) -> Vec<u8> {
        let mut j = json.as_bytes().to_vec();
        while !j.len().is_multiple_of(4) {
            j.push(b' ');
        }
        let mut out = b"glTF".to_vec();
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&((12 + 8 + j.len()) as u32).to_le_bytes());
        out.extend_from_slice(&(j.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&j);
        out
    }

    #[test]
    fn tells_our_files_from_other_tools_and_from_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let ours = r#"{"accessors":[],"asset":{"version":"2.0","generator":"geppetto 0.1.0"}}"#;
        let blender =
            r#"{"asset":{"version":"2.0","generator":"Khronos glTF Blender I/O v3.4.50"}}"#;
        let cases: [(&str, Vec<u8>, bool); 7] = [
            ("a.glb", glb(ours), true),
            ("b.GLB", glb(ours), true),
            ("c.gltf", ours.as_bytes().to_vec(), true),
            ("d.glb", glb(blender), false),
            ("e.glb", glb(r#"{"asset":{"version":"2.0"}}"#), false),
            ("f.glb", glb(ours)[..30].to_vec(), false), // still being written
            ("g.obj", ours.as_bytes().to_vec(), false),
        ];
        for (name, bytes, expected) in cases {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            assert_eq!(geppetto_output(&p).is_some(), expected, "{name}");
        }
        assert_eq!(geppetto_output(&dir.path().join("missing.glb")), None);
    }
}
