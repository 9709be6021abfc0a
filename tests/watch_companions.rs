//! Companion files in the watch folder, on a real temporary folder through the same `App`/`update`
//! and `Runtime` as the UI (headless): a `.gltf`'s external `.bin`, an `.obj`'s `.mtl` and the
//! texture it names. The loader reports what each rig read; a companion appearing, changing or
//! disappearing re-rigs the assets that read it, and the GLB shows the new material or texture.
//! Generous deadlines (`GEPPETTO_TEST_DEADLINE_S`); assertions are about eventual state.

mod watch_support;

use std::path::Path;
use std::time::Duration;

use geppetto::mesh::Mesh;
use geppetto::tui::app::{LastRun, RowStatus};
use serde_json::{json, Value};
use watch_support::{dump, Rt};

impl Rt {
    /// Wait until `path` has finished at least `runs` rigs and nothing more is queued or running.
    fn runs(&mut self, path: &Path, runs: u32) {
        self.until(&format!("{} run {runs}", path.display()), |a| {
            a.find(path).is_some_and(|i| {
                let x = &a.assets[i];
                x.runs >= runs && !x.queued && x.running.is_none()
            })
        });
    }

    fn status(&self, path: &Path) -> RowStatus {
        self.app.assets[self.app.find(path).unwrap()].status()
    }

    fn failure(&self, path: &Path) -> Option<String> {
        match &self.app.assets[self.app.find(path)?].last {
            Some(LastRun::Failed(e)) => Some(e.clone()),
            _ => None,
        }
    }

    /// The GLB written for `name` (in the output folder): its JSON and BIN chunks.
    fn glb(&self, name: &str) -> (Value, Vec<u8>) {
        let bytes = std::fs::read(self.app.out_dir.join(format!("{name}.glb"))).unwrap();
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let json_len = u32_at(12);
        let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
        let bin_at = 20 + json_len;
        let bin = bytes.get(bin_at + 8..).unwrap_or(&[]).to_vec();
        (json, bin)
    }

    /// The base colour of the first material of `name`'s GLB.
    fn base_colour(&self, name: &str) -> Vec<f64> {
        let (json, _) = self.glb(name);
        json["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"]
            .as_array()
            .expect("a base colour")
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    }
}

fn rigged(s: RowStatus) -> bool {
    matches!(s, RowStatus::Ok | RowStatus::LowConfidence)
}

fn figure() -> Mesh {
    geppetto::raster::figure::box_figure(false).0
}

/// A textured OBJ of the box figure: `mtllib`, one material, one UV for every corner.
fn textured_obj(mtl: &str) -> String {
    let body = geppetto::mesh::write::obj_string(&figure());
    let mut s = format!("mtllib {mtl}\nusemtl skin\nvt 0.5 0.5\n");
    for line in body.lines() {
        match line.strip_prefix("f ") {
            Some(f) => {
                let corners: Vec<String> = f.split_whitespace().map(|v| format!("{v}/1")).collect();
                s += &format!("f {}\n", corners.join(" "));
            }
            None => s += &format!("{line}\n"),
        }
    }
    s
}

fn mtl(kd: [f32; 3], texture: Option<&str>) -> String {
    let mut s = format!("newmtl skin\nKd {} {} {}\n", kd[0], kd[1], kd[2]);
    if let Some(t) = texture {
        s += &format!("map_Kd {t}\n");
    }
    s
}

fn png(rgba: [u8; 4]) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(4, 4, image::Rgba(rgba));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The box figure as a `.gltf` with its positions and indices in the external buffer `bin`.
fn gltf_with_bin(bin: &str) -> (String, Vec<u8>) {
    gltf_of(&figure(), bin)
}

/// `m` as a `.gltf` with its positions and indices in the external buffer `bin`.
fn gltf_of(m: &Mesh, bin: &str) -> (String, Vec<u8>) {
    let mut data = Vec::new();
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in &m.positions {
        for k in 0..3 {
            let c = p[k] as f32;
            lo[k] = lo[k].min(c);
            hi[k] = hi[k].max(c);
            data.extend_from_slice(&c.to_le_bytes());
        }
    }
    let pos_len = data.len();
    for t in &m.triangles {
        for i in t {
            data.extend_from_slice(&i.to_le_bytes());
        }
    }
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"uri": bin, "byteLength": data.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": pos_len},
            {"buffer": 0, "byteOffset": pos_len, "byteLength": data.len() - pos_len}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": m.positions.len(), "type": "VEC3", "min": lo, "max": hi},
            {"bufferView": 1, "componentType": 5125, "count": m.triangles.len() * 3, "type": "SCALAR"}
        ]
    });
    (doc.to_string(), data)
}

#[test]
fn a_gltf_whose_bin_arrives_late_is_rigged_when_it_lands() {
    let mut r = Rt::start();
    let (gltf, bin) = gltf_with_bin("body.bin");
    let g = r.root().join("body.gltf");
    std::fs::write(&g, gltf).unwrap();
    r.runs(&g, 1);
    let e = r.failure(&g).expect("failed without its buffer");
    assert!(e.contains("body.bin"), "the failure names the buffer: {e}");
    // The exporter's (or rsync's) second file: no touch of the .gltf needed.
    std::fs::write(r.root().join("body.bin"), bin).unwrap();
    r.runs(&g, 2);
    assert!(rigged(r.status(&g)), "{}", dump(&r.app));
    assert!(r.app.out_dir.join("body.glb").is_file());
    // The buffer is a companion, never an asset.
    assert_eq!(r.app.assets.len(), 1);
}

/// The `.bin` of a `.gltf` whose first rig loaded it and then failed (flat geometry: nothing to
/// rig) is followed too: saving a fixed `.bin` re-rigs the asset. Only a failed *load* used to
/// report its companions, so this asset stayed failed until the `.gltf` itself was touched.
#[test]
fn a_bin_fixed_after_a_failed_rig_rerigs_the_asset() {
    let mut r = Rt::start();
    let mut flat = figure();
    for p in &mut flat.positions {
        p[2] = 0.0;
    }
    let (gltf, flat_bin) = gltf_of(&flat, "plate.bin");
    let (_, bin) = gltf_with_bin("plate.bin");
    assert_eq!(flat_bin.len(), bin.len(), "one .gltf fits both buffers");
    let b = r.root().join("plate.bin");
    std::fs::write(&b, flat_bin).unwrap();
    let g = r.root().join("plate.gltf");
    std::fs::write(&g, gltf).unwrap();
    r.runs(&g, 1);
    let e = r.failure(&g).expect("flat geometry fails after loading");
    assert!(e.contains("flat"), "{e}");
    // Only the buffer changes (the exporter re-saves its data; the .gltf text is the same).
    std::fs::write(&b, bin).unwrap();
    r.runs(&g, 2);
    assert!(rigged(r.status(&g)), "{}", dump(&r.app));
    assert!(r.app.out_dir.join("plate.glb").is_file());
}

/// A hand-saved `NAME.edits.yaml` re-rigs its asset, which replays it (it was read only on the
/// next save of the mesh or `r`, while a hand-saved hints file re-rigged at once).
#[test]
fn a_hand_saved_edits_sidecar_rerigs_and_is_replayed() {
    let mut r = Rt::start();
    let p = r.root().join("hero.obj");
    std::fs::write(&p, geppetto::mesh::write::obj_string(&figure())).unwrap();
    r.runs(&p, 1);
    assert!(rigged(r.status(&p)), "{}", dump(&r.app));
    let i = r.app.find(&p).unwrap();
    let joint = r.app.assets[i].rig().unwrap().rig.joints[1].name.clone();
    let edits = format!("version: 1\nedits:\n  - magnitude: {{ joint: {joint}, c: 0.5 }}\n");
    std::fs::write(r.root().join("hero.edits.yaml"), edits).unwrap();
    r.runs(&p, 2);
    let i = r.app.find(&p).unwrap();
    let warnings = &r.app.assets[i].rig().expect("re-rigged").rig.warnings;
    assert!(
        warnings.iter().any(|w| w.starts_with("1 of 1 edits")),
        "{warnings:?}"
    );
    assert_eq!(r.app.assets.len(), 1, "the sidecar is not an asset");
}

#[test]
fn deleting_a_companion_fails_the_asset_naming_it() {
    let mut r = Rt::start();
    let (gltf, bin) = gltf_with_bin("legs.bin");
    let b = r.root().join("legs.bin");
    std::fs::write(&b, bin).unwrap();
    let g = r.root().join("legs.gltf");
    std::fs::write(&g, gltf).unwrap();
    r.runs(&g, 1);
    assert!(rigged(r.status(&g)), "{}", dump(&r.app));
    std::fs::remove_file(&b).unwrap();
    r.runs(&g, 2);
    assert_eq!(r.status(&g), RowStatus::Failed);
    let e = r.failure(&g).unwrap();
    assert!(
        e.contains("missing external buffer") && e.contains("legs.bin"),
        "{e}"
    );
    assert!(
        r.app.log.iter().any(|l| l.starts_with("gone: legs.bin")),
        "the log says why it re-rigged: {}",
        dump(&r.app)
    );
}

#[test]
fn an_edited_mtl_rerigs_and_the_glb_material_changes() {
    let mut r = Rt::start();
    std::fs::write(r.root().join("hero.mtl"), mtl([1.0, 0.0, 0.0], None)).unwrap();
    let p = r.root().join("hero.obj");
    std::fs::write(&p, textured_obj("hero.mtl")).unwrap();
    r.runs(&p, 1);
    assert!(rigged(r.status(&p)), "{}", dump(&r.app));
    assert_eq!(r.base_colour("hero"), [1.0, 0.0, 0.0, 1.0]);
    // A new diffuse colour in the material library only.
    std::fs::write(r.root().join("hero.mtl"), mtl([0.0, 0.0, 1.0], None)).unwrap();
    r.runs(&p, 2);
    assert!(rigged(r.status(&p)));
    assert_eq!(r.base_colour("hero"), [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(r.app.assets.len(), 1, "the .mtl is not an asset");
}

#[test]
fn a_replaced_texture_rerigs_and_the_glb_embeds_the_new_image() {
    let mut r = Rt::start();
    let (red, blue) = (png([255, 0, 0, 255]), png([0, 0, 255, 255]));
    std::fs::write(r.root().join("skin.png"), &red).unwrap();
    std::fs::write(r.root().join("hero.mtl"), mtl([1.0; 3], Some("skin.png"))).unwrap();
    let p = r.root().join("hero.obj");
    std::fs::write(&p, textured_obj("hero.mtl")).unwrap();
    r.runs(&p, 1);
    let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    let (json, bin) = r.glb("hero");
    assert_eq!(json["images"].as_array().map(Vec::len), Some(1));
    assert!(contains(&bin, &red), "the red texture is embedded");
    // Re-saved by a paint program: written to a temp file and renamed over the old one.
    let tmp = r.root().join("skin.tmp");
    std::fs::write(&tmp, &blue).unwrap();
    std::fs::rename(&tmp, r.root().join("skin.png")).unwrap();
    r.runs(&p, 2);
    let (_, bin) = r.glb("hero");
    assert!(contains(&bin, &blue), "the new texture is embedded");
    assert!(!contains(&bin, &red), "the old texture is gone");
}

#[test]
fn a_companion_shared_by_two_assets_rerigs_both() {
    let mut r = Rt::start();
    std::fs::write(r.root().join("shared.mtl"), mtl([0.0, 1.0, 0.0], None)).unwrap();
    let a = r.root().join("a.obj");
    let b = r.root().join("b.obj");
    std::fs::write(&a, textured_obj("shared.mtl")).unwrap();
    std::fs::write(&b, textured_obj("shared.mtl")).unwrap();
    r.runs(&a, 1);
    r.runs(&b, 1);
    assert_eq!(r.base_colour("a"), [0.0, 1.0, 0.0, 1.0]);
    std::fs::write(r.root().join("shared.mtl"), mtl([1.0, 1.0, 0.0], None)).unwrap();
    r.runs(&a, 2);
    r.runs(&b, 2);
    assert_eq!(r.base_colour("a"), [1.0, 1.0, 0.0, 1.0]);
    assert_eq!(r.base_colour("b"), [1.0, 1.0, 0.0, 1.0]);
    // Once each: the change is not reported twice.
    r.idle(Duration::from_secs(2));
    assert_eq!(r.app.assets[r.app.find(&a).unwrap()].runs, 2);
    assert_eq!(r.app.assets[r.app.find(&b).unwrap()].runs, 2);
}
