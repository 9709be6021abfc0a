//! Which existing files an output may replace: only Geppetto's own.
//!
//! Outputs are `OUT/NAME.SUFFIX` ([`crate::naming`]). The suffixes `rig.json`, `skeleton.out` and
//! `attachment.out` name Geppetto's outputs only. `glb` and `png` are formats users keep beside
//! their meshes: `rig hero.glb --out .` names the input itself, and `rig hero.obj --out .
//! --format png` names `hero.png`, often the texture `hero.mtl` uses (or a reference image). So,
//! checked before anything is written (a refused rig leaves no half set of outputs):
//!
//! * no output is the input mesh (any spelling, hard link or symlink of it);
//! * an existing file at a PNG output must be a thumbnail Geppetto wrote, known by the text chunk
//!   [`mark_png`] puts in every thumbnail (`Software: geppetto`).
//!
//! A glTF's `.bin`, an `.mtl` and the hints/edits sidecars never share an output's suffix, so
//! naming alone keeps them safe; a texture is a PNG (or another image type no output uses).

use std::io::Read;
use std::path::Path;

use super::Format;
use crate::error::RigError;
use crate::naming::OutputBase;
use crate::rig::Rig;

/// The PNG text chunk's keyword and value that mark a thumbnail as Geppetto's.
const MARK_KEYWORD: &[u8] = b"Software";
const MARK_VALUE: &[u8] = b"geppetto";
/// PNG signature (8 bytes) + IHDR chunk (4 length + 4 type + 13 data + 4 CRC): the IHDR always
/// comes first, and the mark is the chunk right after it.
const AFTER_IHDR: usize = 8 + 4 + 4 + 13 + 4;

/// Refuse before writing anything if an output would replace the input mesh or a PNG that
/// Geppetto did not write (see the module docs).
pub fn refuse_to_replace_user_files(
    rig: &Rig,
    base: &OutputBase,
    formats: &[Format],
) -> Result<(), RigError> {
    let input = Path::new(&rig.mesh);
    for suffix in formats.iter().flat_map(|f| f.suffixes()) {
        let path = base.file(suffix);
        let message = if crate::util::same_file(&path, input) {
            format!(
                "this output would replace the input mesh {} it is made from; write the \
                 outputs to another folder",
                input.display()
            )
        } else if *suffix == "png" && path.is_file() && !is_marked_png(&path) {
            "this thumbnail would replace an image Geppetto did not write (a texture or \
             reference image beside the mesh? a thumbnail from a Geppetto before 2026-11-23 has \
             no mark either: delete it); write the outputs to another folder, or move the image"
                .to_string()
        } else {
            continue;
        };
        return Err(RigError::Export { message, path });
    }
    Ok(())
}

/// `png` with Geppetto's text chunk inserted right after its IHDR.
pub fn mark_png(png: &[u8]) -> Vec<u8> {
    if png.len() < AFTER_IHDR {
        return png.to_vec();
    }
    let mut data = MARK_KEYWORD.to_vec();
    data.push(0);
    data.extend_from_slice(MARK_VALUE);
    let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
    let mut typed = b"tEXt".to_vec();
    typed.extend_from_slice(&data);
    chunk.extend_from_slice(&typed);
    chunk.extend_from_slice(&crc32(&typed).to_be_bytes());
    let mut out = Vec::with_capacity(png.len() + chunk.len());
    out.extend_from_slice(&png[..AFTER_IHDR]);
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&png[AFTER_IHDR..]);
    out
}

/// True when the file at `path` starts like a PNG [`mark_png`] wrote.
fn is_marked_png(path: &Path) -> bool {
    let want = mark_png(&[0; AFTER_IHDR]);
    let mut head = vec![0; want.len()];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    read.is_ok() && head[AFTER_IHDR..] == want[AFTER_IHDR..]
}

/// The CRC-32 (ISO 3309, as PNG chunks use), bit by bit: a chunk of 20 bytes per thumbnail.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xffff_ffff_u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_png_still_decodes_and_is_recognised() {
        let img = image::RgbaImage::from_pixel(3, 2, image::Rgba([10, 20, 30, 255]));
        let png = crate::raster::png_bytes(&img).unwrap();
        let marked = mark_png(&png);
        let back = image::load_from_memory(&marked)
            .expect("a valid PNG")
            .to_rgba8();
        assert_eq!(back, img);
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a.png"), d.path().join("b.png"));
        std::fs::write(&a, &marked).unwrap();
        std::fs::write(&b, &png).unwrap();
        assert!(is_marked_png(&a));
        assert!(!is_marked_png(&b), "an image from elsewhere is not ours");
        assert_eq!(
            crc32(b"IEND"),
            0xae42_6082,
            "the CRC every PNG's IEND carries"
        );
    }
}
