//! `attach` on the corpus' artist skeletons, scored against the artist weights the corpus way
//! (issue 12 §2): each mesh's deformation error mean stays under its ceiling and its influence
//! precision and recall (micro, weight ≥ 0.05) above their floors, from
//! `tests/quality/skin_attach.tsv`; every row holds at most the configured influence count; a
//! character built from parts gets one joint per part. Re-record after an intended change:
//! `GEPPETTO_QUALITY_PRINT=1 cargo test --test skin_attach_corpus -- --nocapture`.

mod skin_common;

use std::collections::BTreeMap;
use std::path::Path;

use geppetto::config::RigConfig;
use geppetto::measure::bench::manifest;
use geppetto::measure::pose::random_poses;
use geppetto::measure::score::score_rigs;
use geppetto::measure::skinscore::SkinMeasures;
use geppetto::measure::truth;
use geppetto::pipeline::AttachRequest;
use geppetto::rig::read::RigFile;
use geppetto::skin::ShellBinding;
use geppetto::{NoProgress, Pipeline};
use skin_common::common;

/// Poses and seed of the deformation error (corpus README; `geppetto score` defaults).
const POSES: usize = 20;
const POSE_SEED: u64 = 1;
const POSE_MAX_DEGREES: f64 = 30.0;

const TABLE: &str = include_str!("quality/skin_attach.tsv");

/// Ceiling / floors of one mesh: deformation mean (% of extent), precision, recall.
struct Limits {
    deform_max: f64,
    precision_min: f64,
    recall_min: f64,
}

fn table() -> BTreeMap<String, Limits> {
    TABLE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("mesh\t") && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let num = |i: usize| f[i].trim().parse::<f64>().expect("number");
            (
                f[0].to_string(),
                Limits {
                    deform_max: num(1),
                    precision_min: num(2),
                    recall_min: num(3),
                },
            )
        })
        .collect()
}

/// Attach on the artist skeleton, check the rows, score.
fn attach_and_score(mesh: &Path, truth_path: &Path, config: &RigConfig) -> SkinMeasures {
    let name = mesh.file_stem().unwrap_or_default().to_string_lossy();
    let t = truth::load(truth_path).unwrap_or_else(|e| panic!("{e}"));
    let req = AttachRequest::from_file(mesh, truth_path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let done = Pipeline::new(config.clone())
        .attach(&req, &NoProgress)
        .unwrap_or_else(|e| panic!("{name}: attach failed: {e}"));
    let verts = &done.prepared.input.positions;
    skin_common::assert_valid(&done.skin, verts.len(), done.rig.joints.len());
    let most = done.skin.weights.iter().map(Vec::len).max().unwrap_or(0);
    assert!(
        most <= config.skin.max_influences,
        "{name}: a vertex has {most} influences"
    );
    if geppetto::multipart::detect(&done.prepared).multipart {
        // Built from parts (the multi-component method's test): every shell follows one joint,
        // except a body part the skeleton bends inside (`skin::parts::articulated`).
        let heat: Vec<usize> = done
            .skin
            .shells
            .iter()
            .filter_map(|s| match s {
                ShellBinding::Heat { shell, .. } => Some(*shell),
                _ => None,
            })
            .collect();
        let blended = heat
            .iter()
            .filter(|&&s| !articulated(&done.prepared, &done.rig.joints, s))
            .count();
        assert_eq!(
            blended, 0,
            "{name}: {blended} part shells are still blended"
        );
    }
    let pred: truth::ScoredRig = RigFile::from_rig(mesh, &done.rig).into();
    let poses = random_poses(t.positions.len(), POSES, POSE_SEED, POSE_MAX_DEGREES);
    let (_, skin, notes) = score_rigs(&pred, &t, done.rig.max_extent(), Some(verts), &poses)
        .unwrap_or_else(|e| panic!("{name}: score: {e}"));
    skin.unwrap_or_else(|| panic!("{name}: skin not scored: {notes:?}"))
}

/// True if prepared shell `s` is not convex and holds a bending joint of `joints`.
fn articulated(
    prepared: &geppetto::mesh::PreparedMesh,
    joints: &[geppetto::rig::RigJoint],
    s: usize,
) -> bool {
    let shell = &prepared.shells[s];
    let tris: Vec<[u32; 3]> = shell
        .triangles
        .iter()
        .map(|&t| prepared.triangles[t as usize])
        .collect();
    let points: Vec<_> = joints
        .iter()
        .map(|j| prepared.normalization.to_normalized(&j.point()))
        .collect();
    let parents: Vec<Option<usize>> = joints.iter().map(|j| j.parent).collect();
    let sides = geppetto::skin::parts::joint_sides(&points, &parents);
    geppetto::skin::parts::articulated(&tris, &prepared.positions, &sides)
}

#[test]
fn attach_on_artist_skeletons_meets_its_ceilings_and_floors() {
    let Some(dir) = common::corpus() else { return };
    let limits = table();
    let config = RigConfig::default();
    let entries = manifest::read(&dir).expect("manifest");
    let print = std::env::var_os("GEPPETTO_QUALITY_PRINT").is_some();
    let mut failures = Vec::new();
    let mut scored = 0;
    for e in &entries {
        let Some(truth_path) = manifest::truth_path(&dir, &e.name) else {
            continue;
        };
        let t = truth::load(&truth_path).unwrap_or_else(|err| panic!("{err}"));
        if t.skin.is_none() {
            continue;
        }
        let m = attach_and_score(&manifest::mesh_path(&dir, &e.name), &truth_path, &config);
        let (p, r) = (m.precision.unwrap_or(0.0), m.recall.unwrap_or(0.0));
        scored += 1;
        if print {
            // Ceiling = measured × 1.05 + 0.02; floors = measured − 0.02 (rounded outward).
            println!(
                "{}\t{:.2}\t{:.2}\t{:.2}\t# measured: deform {:.3} precision {:.3} recall {:.3} L1 {:.3}",
                e.name,
                ((m.deform_mean_pct * 1.05 + 0.02) * 100.0).ceil() / 100.0,
                ((p - 0.02) * 100.0).floor() / 100.0,
                ((r - 0.02) * 100.0).floor() / 100.0,
                m.deform_mean_pct,
                p,
                r,
                m.l1_mean
            );
        }
        let Some(l) = limits.get(&e.name) else {
            failures.push(format!("{}: no row in skin_attach.tsv", e.name));
            continue;
        };
        if m.deform_mean_pct > l.deform_max {
            failures.push(format!(
                "{}: deformation mean {:.3} % > ceiling {:.2} %",
                e.name, m.deform_mean_pct, l.deform_max
            ));
        }
        if p < l.precision_min || r < l.recall_min {
            failures.push(format!(
                "{}: precision {p:.3} / recall {r:.3} below floors {:.2} / {:.2}",
                e.name, l.precision_min, l.recall_min
            ));
        }
    }
    assert_eq!(scored, limits.len(), "every table row is scored");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
