//! Dropping what a rewritten glTF document no longer refers to: accessors (the old skin's
//! inverse bind matrices and weights, removed animations) and the buffer views and bytes behind
//! them. Only the core properties are followed, so with an extension in use that might refer to
//! accessors or views itself, nothing is dropped.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::glb_source::set_or_remove;
use crate::mesh::load::source::SourceDocument;

/// Extensions known not to refer to accessors or buffer views other than through the core
/// properties; with any other extension in use, unused data is kept rather than risk breaking it.
const GC_SAFE_EXTENSION_PREFIXES: &[&str] = &[
    "KHR_materials_",
    "KHR_texture_transform",
    "KHR_lights_punctual",
    "KHR_mesh_quantization",
    "KHR_texture_basisu",
    "EXT_texture_webp",
];

/// Accessor indices referred to by the core properties.
fn used_accessors(json: &mut Value) -> BTreeSet<usize> {
    let mut used = BTreeSet::new();
    for_each_accessor_ref(json, &mut |v| {
        if let Some(i) = v.as_u64() {
            used.insert(i as usize);
        }
    });
    used
}

/// Drop accessors and buffer views nothing refers to, compacting the binary.
pub(super) fn collect_garbage(doc: &mut SourceDocument) {
    if !gc_safe(&doc.json) {
        return;
    }
    let used = used_accessors(&mut doc.json);
    let accessors: Vec<Value> = doc.json["accessors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let acc_map: Vec<Option<usize>> = remap_of(accessors.len(), |i| used.contains(&i));
    let mut kept_acc: Vec<Value> = accessors
        .into_iter()
        .enumerate()
        .filter(|(i, _)| used.contains(i))
        .map(|(_, a)| a)
        .collect();
    let used_views = used_views(&kept_acc, &doc.json);
    let views: Vec<Value> = doc.json["bufferViews"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let view_map = remap_of(views.len(), |i| used_views.contains(&i));
    let (kept_views, bin) = compact_views(views, &used_views, &doc.bin);
    remap_view_refs(&mut kept_acc, &mut doc.json, &view_map);
    remap_accessor_refs(&mut doc.json, &acc_map);
    set_or_remove(&mut doc.json, "accessors", kept_acc);
    set_or_remove(&mut doc.json, "bufferViews", kept_views);
    doc.bin = bin;
}

/// Whether every extension in use is known to refer to data only through the core properties.
fn gc_safe(json: &Value) -> bool {
    json["extensionsUsed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .all(|e| GC_SAFE_EXTENSION_PREFIXES.iter().any(|p| e.starts_with(p)))
}

/// Buffer view indices referred to by the kept accessors (dense and sparse) and by images.
fn used_views(kept_acc: &[Value], json: &Value) -> BTreeSet<usize> {
    let mut used_views = BTreeSet::new();
    for a in kept_acc {
        for v in [
            &a["bufferView"],
            &a["sparse"]["indices"]["bufferView"],
            &a["sparse"]["values"]["bufferView"],
        ] {
            if let Some(i) = v.as_u64() {
                used_views.insert(i as usize);
            }
        }
    }
    for img in json["images"].as_array().into_iter().flatten() {
        if let Some(i) = img["bufferView"].as_u64() {
            used_views.insert(i as usize);
        }
    }
    used_views
}

/// The used views, in order, with their bytes copied into a new binary (each view 4-byte
/// aligned, as accessors require) and their offsets rewritten to match.
fn compact_views(
    views: Vec<Value>,
    used_views: &BTreeSet<usize>,
    old_bin: &[u8],
) -> (Vec<Value>, Vec<u8>) {
    let mut bin = Vec::with_capacity(old_bin.len());
    let mut kept_views = Vec::new();
    for (i, mut v) in views.into_iter().enumerate() {
        if !used_views.contains(&i) {
            continue;
        }
        let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
        let len = v["byteLength"].as_u64().unwrap_or(0) as usize;
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        v["byteOffset"] = json!(bin.len());
        bin.extend_from_slice(old_bin.get(off..off + len).unwrap_or(&[]));
        kept_views.push(v);
    }
    (kept_views, bin)
}

/// Rewrite the kept accessors' and the images' buffer view references through `view_map`.
fn remap_view_refs(kept_acc: &mut [Value], json: &mut Value, view_map: &[Option<usize>]) {
    for a in kept_acc {
        if a.get("bufferView").is_some() {
            remap_index(&mut a["bufferView"], view_map);
        }
        if a.get("sparse").is_some() {
            remap_index(&mut a["sparse"]["indices"]["bufferView"], view_map);
            remap_index(&mut a["sparse"]["values"]["bufferView"], view_map);
        }
    }
    if let Some(images) = json.get_mut("images").and_then(Value::as_array_mut) {
        for img in images.iter_mut().filter(|i| i.get("bufferView").is_some()) {
            remap_index(&mut img["bufferView"], view_map);
        }
    }
}

/// Old index → new index when keeping the indices for which `keep` is true, in order.
fn remap_of(n: usize, keep: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
    let mut next = 0;
    (0..n)
        .map(|i| {
            keep(i).then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// Rewrite every core accessor reference through `map`.
fn remap_accessor_refs(json: &mut Value, map: &[Option<usize>]) {
    for_each_accessor_ref(json, &mut |v| remap_index(v, map));
}

/// `v`, an index, replaced by its new index under `map` (0 for one dropped; only what nothing
/// refers to is dropped, so that is never read).
fn remap_index(v: &mut Value, map: &[Option<usize>]) {
    if let Some(i) = v.as_u64() {
        *v = json!(map.get(i as usize).copied().flatten().unwrap_or(0));
    }
}

/// Every array of `key` in `v`, as mutable elements (none when absent or not an array).
fn items_mut<'v>(v: &'v mut Value, key: &str) -> impl Iterator<Item = &'v mut Value> {
    v.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

/// Visit every accessor reference of the core properties: primitive attributes, indices and
/// morph targets, skins' inverse bind matrices, animation samplers. The one list both the
/// garbage collector's "used" set and its remapping walk, so they cannot disagree.
fn for_each_accessor_ref(json: &mut Value, visit: &mut dyn FnMut(&mut Value)) {
    for m in items_mut(json, "meshes") {
        for p in items_mut(m, "primitives") {
            p.get_mut("attributes")
                .and_then(Value::as_object_mut)
                .into_iter()
                .flatten()
                .for_each(|(_, v)| visit(v));
            if let Some(v) = p.get_mut("indices") {
                visit(v);
            }
            for t in items_mut(p, "targets") {
                t.as_object_mut()
                    .into_iter()
                    .flatten()
                    .for_each(|(_, v)| visit(v));
            }
        }
    }
    for s in items_mut(json, "skins") {
        if let Some(v) = s.get_mut("inverseBindMatrices") {
            visit(v);
        }
    }
    for a in items_mut(json, "animations") {
        for s in items_mut(a, "samplers") {
            visit(&mut s["input"]);
            visit(&mut s["output"]);
        }
    }
}
