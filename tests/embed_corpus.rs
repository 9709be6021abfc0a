//! Corpus walk for the embedding: every biped rigs with `human` and every quadruped with `quadruped`
//! (or fails with a clear error), without panicking. For meshes with an artist rig (truth), every
//! embedded joint lies inside the mesh, and the CD-J2J against the artist's joints is printed
//! (half of the mean nearest-joint distance both ways, in % of the largest bounding-box extent).
//! Run with `--nocapture` to see the table.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use common::{corpus, manifest};
use geppetto::config::RigConfig;
use geppetto::discretize::Field;
use geppetto::embed::OrientationMode;
use geppetto::pipeline::{Pipeline, RigRequest};
use geppetto::progress::NoProgress;
use geppetto::rig::Status;
use geppetto::skeleton::load_template;
use rayon::prelude::*;

/// Artist joint positions (OBJ frame), if a truth file exists.
fn truth(dir: &Path, name: &str) -> Option<Vec<[f64; 3]>> {
    let text = std::fs::read_to_string(dir.join("truth").join(format!("{name}.json"))).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["joint_positions"]
        .as_array()?
        .iter()
        .map(|p| {
            let a = p.as_array()?;
            Some([
                a.first()?.as_f64()?,
                a.get(1)?.as_f64()?,
                a.get(2)?.as_f64()?,
            ])
        })
        .collect()
}

/// CD-J2J in % of `extent`.
pub fn cd_j2j(a: &[[f64; 3]], b: &[[f64; 3]], extent: f64) -> f64 {
    let d = |p: &[f64; 3], q: &[f64; 3]| {
        ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
    };
    let mean_nearest = |x: &[[f64; 3]], y: &[[f64; 3]]| {
        x.iter()
            .map(|p| y.iter().map(|q| d(p, q)).fold(f64::INFINITY, f64::min))
            .sum::<f64>()
            / x.len() as f64
    };
    50.0 * (mean_nearest(a, b) + mean_nearest(b, a)) / extent
}

#[test]
fn corpus_bipeds_and_quadrupeds_rig() {
    let Some(dir) = corpus() else { return };
    let rows: Vec<(String, String)> = manifest(&dir)
        .into_iter()
        .filter(|(_, c)| c == "biped" || c == "quadruped")
        .collect();
    assert!(
        rows.len() >= 10,
        "expected the corpus bipeds and quadrupeds"
    );
    let pipeline = Pipeline::new(RigConfig::default());
    let lines: Vec<(String, Result<String, String>)> = rows
        .par_iter()
        .map(|(name, cat)| {
            let template = if cat == "biped" { "human" } else { "quadruped" };
            let skel = Arc::new(load_template(template).expect("built-in"));
            let path = dir.join("meshes").join(format!("{name}.obj"));
            let rig = |orientation| {
                let req = RigRequest {
                    mesh_path: path.clone(),
                    skeleton: skel.clone().into(),
                    hints: None,
                    orientation,
                    skin: false,
                };
                pipeline.rig(&req, &NoProgress)
            };
            let out = match rig(OrientationMode::Default) {
                Ok(o) => o,
                Err(e) => {
                    let msg = e.to_string();
                    assert!(
                        msg.len() > 10 && msg.contains(name.as_str()),
                        "unclear error: {msg}"
                    );
                    return (name.clone(), Err(msg));
                }
            };
            // Several corpus quadrupeds face ±X (cow_igl, horse_md2, horse_quad): show what `auto` picks.
            let auto = (cat != "biped")
                .then(|| rig(OrientationMode::Auto).ok())
                .flatten()
                .map(|a| {
                    format!(
                        "\n{:14} auto: {} {:?} penalty {:.3} {:?}",
                        "",
                        a.rig.orientation,
                        a.rig.status,
                        a.rig.penalty.total,
                        a.rig.confidence_reasons
                    )
                });
            let norm = &out.prepared.normalization;
            let field = &out.discretization.field;
            let mut line = format!(
                "{:8} {:15} penalty {:.3}",
                template,
                if out.rig.status == Status::Ok {
                    "ok"
                } else {
                    "low_confidence"
                },
                out.rig.penalty.total
            );
            if let Some(t) = truth(&dir, name) {
                for j in &out.rig.joints {
                    let p = norm.to_normalized(&geppetto::geom::P3::new(
                        j.position[0],
                        j.position[1],
                        j.position[2],
                    ));
                    let f = Field::eval(field, &p);
                    assert!(
                        f <= 0.01,
                        "{name}: joint {} is outside the mesh (field {f:.4})",
                        j.name
                    );
                }
                let pred: Vec<[f64; 3]> = out.rig.joints.iter().map(|j| j.position).collect();
                let bb = out.rig.bbox;
                let ext = (0..3).map(|a| bb[1][a] - bb[0][a]).fold(0.0, f64::max);
                line += &format!("  CD-J2J {:.2}%", cd_j2j(&pred, &t, ext));
            }
            if !out.rig.confidence_reasons.is_empty() {
                line += &format!("  reasons: {}", out.rig.confidence_reasons.join("; "));
            }
            line += &auto.unwrap_or_default();
            (name.clone(), Ok(line))
        })
        .collect();
    let table: BTreeMap<_, _> = lines.into_iter().collect();
    for (name, r) in &table {
        match r {
            Ok(l) => println!("{name:14} {l}"),
            Err(e) => println!("{name:14} FAILED: {e}"),
        }
    }
}
