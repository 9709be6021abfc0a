//! Mesh loaders: OBJ, glTF 2.0 (`.glb`/`.gltf`), OFF, PLY (ASCII and binary).
//!
//! Every loader keeps the input's vertex order and count: `Mesh::positions[i]` is the file's i-th
//! vertex (for glTF: primitives concatenated in document order, in world space, bind pose).

pub mod companion;
mod fbx;
mod fbx_source;
mod gltf;
mod gltf_bind;
mod gltf_data;
mod gltf_place;
mod gltf_skin;
mod gltf_source;
mod number;
mod obj;
mod obj_source;
mod off;
pub mod ours;
mod ply;
mod polygon;
pub mod source;
mod text;

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::Mesh;
use crate::skeleton::rigged::{RigJoint, SkinTable};
pub use companion::{Companion, FileStat};
pub use source::{SourceDocument, SourcePrimitive};

/// The file formats Geppetto reads, chosen by extension (case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    /// Wavefront OBJ.
    Obj,
    /// glTF 2.0 binary.
    Glb,
    /// glTF 2.0 JSON (with external or embedded buffers).
    Gltf,
    /// Object File Format.
    Off,
    /// Stanford PLY, ASCII or binary.
    Ply,
    /// Autodesk FBX, binary or ASCII (through ufbx).
    Fbx,
}

impl MeshFormat {
    /// The format for a path's extension, if supported.
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "obj" => Self::Obj,
            "glb" => Self::Glb,
            "gltf" => Self::Gltf,
            "off" => Self::Off,
            "ply" => Self::Ply,
            "fbx" => Self::Fbx,
            _ => return None,
        })
    }
}

/// Why a mesh file could not be read. The `Display` form names the problem; callers add the path.
#[derive(Debug, Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read file: {0}")]
    Io(#[from] std::io::Error),
    /// The extension is not one of the supported formats.
    #[error("unsupported file type (expected .obj, .glb, .gltf, .fbx, .off or .ply)")]
    UnsupportedFormat,
    /// The path is a folder (`geppetto rig DIR` said "unsupported file type").
    #[error("a folder, not a mesh file (`geppetto watch FOLDER --headless --once` rigs every mesh in a folder)")]
    Folder,
    /// A syntax or structure error at a line (text formats).
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A structural error without a line (binary formats).
    #[error("{0}")]
    Invalid(String),
    /// A face refers to a vertex that does not exist.
    #[error(
        "{}face #{} refers to vertex #{} (counting from 1), but the file has {count} vertices",
        line_prefix(*.line),
        .face + 1,
        .index + 1
    )]
    BadIndex {
        /// 0-based face number.
        face: usize,
        /// The (resolved, 0-based) index.
        index: i64,
        /// Number of vertices.
        count: usize,
        /// 1-based line of the face (text formats).
        line: Option<usize>,
    },
    /// A referenced external file (glTF buffer) is missing.
    #[error("missing external buffer {0}")]
    MissingBuffer(PathBuf),
    /// A referenced external buffer is shorter than the document says (still being copied, or
    /// left from another export).
    #[error("external buffer {path} is {len} bytes, the document says {expected} (still being written, or from another export?)")]
    ShortBuffer {
        /// The buffer file.
        path: PathBuf,
        /// Its size.
        len: u64,
        /// The document's `byteLength`.
        expected: u64,
    },
}

/// `"line N: "` for text-format errors, nothing otherwise.
fn line_prefix(line: Option<usize>) -> String {
    line.map(|l| format!("line {l}: ")).unwrap_or_default()
}

/// The format `path` names by its extension; a folder is refused as such, whatever its name.
fn format_of(path: &Path) -> Result<MeshFormat, LoadError> {
    if path.is_dir() {
        return Err(LoadError::Folder);
    }
    MeshFormat::from_path(path).ok_or(LoadError::UnsupportedFormat)
}

/// Read a mesh file. See the module docs for what each format keeps.
pub fn load(path: &Path) -> Result<Mesh, LoadError> {
    let format = format_of(path)?;
    let bytes = std::fs::read(path)?;
    load_bytes(&bytes, format, path.parent())
}

/// Parse a mesh from memory. `base_dir` resolves a `.gltf`'s external buffers (`None`: only
/// embedded buffers are available).
pub fn load_bytes(
    bytes: &[u8],
    format: MeshFormat,
    base_dir: Option<&Path>,
) -> Result<Mesh, LoadError> {
    match format {
        MeshFormat::Obj => obj::parse(bytes),
        MeshFormat::Glb | MeshFormat::Gltf => {
            let opened = gltf::open(bytes, base_dir, &mut Vec::new())?;
            Ok(gltf::assemble(&opened, false)?.mesh)
        }
        MeshFormat::Off => off::parse(bytes),
        MeshFormat::Ply => ply::parse(bytes),
        MeshFormat::Fbx => fbx::parse(bytes),
    }
}

/// A mesh and what else its file carries (see [`source`]).
#[derive(Clone, Debug)]
pub struct LoadedMesh {
    /// The mesh (mesh frame, the file's vertex order and count).
    pub mesh: Mesh,
    /// Materials, textures, UVs, normals, colours and the document structure, as a glTF document
    /// to write the rig into; `None` when the file has nothing beyond positions and faces.
    pub source: Option<SourceDocument>,
}

/// Read a mesh file with everything it carries besides geometry (materials, textures, UVs,
/// normals, colours; for glTF the whole document). A missing texture or `.mtl` file is a warning
/// in [`SourceDocument::warnings`], never an error.
pub fn load_with_source(path: &Path) -> Result<LoadedMesh, LoadError> {
    load_tracked(path).0
}

/// [`load_with_source`], and the files besides `path` that it read or looked for (its
/// [`companion`]s), also when it fails: a `.gltf` whose `.bin` is missing or short names it, so a
/// watcher knows which file arriving may fix the asset. On success the list equals the
/// document's [`SourceDocument::companions`].
pub fn load_tracked(path: &Path) -> (Result<LoadedMesh, LoadError>, Vec<Companion>) {
    let mut seen = Vec::new();
    let result = format_of(path).and_then(|format| {
        let bytes = std::fs::read(path)?;
        with_source(&bytes, format, path.parent(), &mut seen)
    });
    companion::dedup(&mut seen);
    (result, seen)
}

/// [`load_with_source`] from memory; `base_dir` resolves external buffers, images and `.mtl`
/// files.
pub fn load_bytes_with_source(
    bytes: &[u8],
    format: MeshFormat,
    base_dir: Option<&Path>,
) -> Result<LoadedMesh, LoadError> {
    with_source(bytes, format, base_dir, &mut Vec::new())
}

/// [`load_bytes_with_source`], recording companions in `seen` as they are read (buffers first,
/// then images, libraries and textures); the document gets the same list.
fn with_source(
    bytes: &[u8],
    format: MeshFormat,
    base_dir: Option<&Path>,
    seen: &mut Vec<Companion>,
) -> Result<LoadedMesh, LoadError> {
    let mut loaded = match format {
        MeshFormat::Glb | MeshFormat::Gltf => {
            let opened = gltf::open(bytes, base_dir, seen)?;
            let a = gltf::assemble(&opened, false)?;
            let source =
                gltf_source::source_document(bytes, base_dir, &opened, &a.mesh, &a.ranges)?;
            LoadedMesh {
                mesh: a.mesh,
                source: Some(source),
            }
        }
        MeshFormat::Obj => {
            let (mesh, extras) = obj::parse_full(bytes)?;
            let source = obj_source::obj_source(&mesh, &extras, base_dir);
            LoadedMesh { mesh, source }
        }
        MeshFormat::Fbx => {
            let (mesh, source) = fbx_source::parse_with_source(bytes, base_dir)?;
            LoadedMesh {
                mesh,
                source: Some(source),
            }
        }
        MeshFormat::Ply | MeshFormat::Off => {
            let (mesh, colors) = if format == MeshFormat::Ply {
                ply::parse_full(bytes)?
            } else {
                off::parse_full(bytes)?
            };
            let source = colors.map(|c| source::colored_source(&mesh, &c));
            LoadedMesh { mesh, source }
        }
    };
    if let Some(doc) = &mut loaded.source {
        seen.append(&mut doc.companions);
        companion::dedup(seen);
        doc.companions = seen.clone();
    }
    Ok(loaded)
}

/// A mesh with an artist rig, read from a skinned glTF.
#[derive(Clone, Debug)]
pub struct RiggedMesh {
    /// The mesh (bind pose, world space, mesh frame), primitives concatenated in document order.
    pub mesh: Mesh,
    /// The skin's joints, parent-first, bind-pose world positions (mesh frame).
    pub joints: Vec<RigJoint>,
    /// Per-vertex weights (one list per vertex of `mesh`), if the file has JOINTS_0/WEIGHTS_0.
    pub skin: Option<SkinTable>,
}

/// Read an artist rig from a skinned `.glb`/`.gltf` ([`load_rigged_gltf`]) or an `.fbx` with a
/// skeleton (bones in parent-first order at their default-pose world positions, the pose the mesh
/// is read in; weights from the first skin deformer of each mesh, if any).
pub fn load_rigged(path: &Path) -> Result<RiggedMesh, LoadError> {
    match MeshFormat::from_path(path) {
        Some(MeshFormat::Fbx) => fbx::parse_rigged(&std::fs::read(path)?),
        _ => load_rigged_gltf(path),
    }
}

/// Read a skinned `.glb`/`.gltf`: mesh, joint hierarchy with bind-pose positions, and weights.
/// Errors if the file has no skin.
///
/// Joints are the first skin's, parent-first (a joint's parent is its nearest ancestor node in
/// the skin; several roots are allowed), named after their nodes (`joint_N`, N = position in the
/// skin's joint list, for unnamed nodes), at their world positions in the default pose the mesh is
/// read in. Weights come from every JOINTS_n/WEIGHTS_n set, remapped to this joint order, zero
/// weights dropped, normalized, heaviest first; vertices of unskinned primitives are bound
/// rigidly to the nearest joint above their node (empty list if none).
pub fn load_rigged_gltf(path: &Path) -> Result<RiggedMesh, LoadError> {
    match MeshFormat::from_path(path) {
        Some(MeshFormat::Glb | MeshFormat::Gltf) => {}
        _ => return Err(LoadError::UnsupportedFormat),
    }
    let bytes = std::fs::read(path)?;
    gltf_skin::parse_rigged(&bytes, path.parent())
}
