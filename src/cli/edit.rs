//! `geppetto edit RIG.json [--move J X Y Z] … --out DIR`: edit a rig's skeleton and weight
//! controls with local weight re-solves ([`crate::edit`]), write the edited rig.json and GLB.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use super::rig::load_config;
use super::EditArgs;
use crate::edit::sidecar::{sidecar_path, EditLog, VERSION};
use crate::edit::{check_eps, EditOp, EditOutcome, Session};
use crate::export::{write_rig_with, GlbSource};
use crate::geom::P3;
use crate::measure::bench::edit::max_diff;
use crate::pipeline::{AttachRequest, Pipeline};
use crate::progress::NoProgress;
use crate::rig::Rig;

/// Run `geppetto edit`.
pub fn run(args: &EditArgs) -> anyhow::Result<ExitCode> {
    let Some(ops) = usable_ops(args) else {
        return Ok(ExitCode::from(2));
    };
    let config = load_config(args.config.as_deref())?;
    // Before the rig is loaded and solved (seconds on a big mesh).
    if let Some(Err(e)) = args.eps.map(|eps| check_eps(eps, config.skin.prune)) {
        eprintln!("error: --eps: {e}");
        return Ok(ExitCode::from(2));
    }
    let rig = Rig::load(&args.rig)?;
    let mesh = super::pose::rig_mesh(&args.rig, &rig, args.mesh.as_deref())?;
    let req = AttachRequest {
        mesh_path: mesh.clone(),
        joints: rig.joints.clone(),
        source: args.rig.clone(),
        notes: Vec::new(),
        orientation: None,
    };
    let pipeline = Pipeline::new(config);
    // The library's error names the mesh.
    let base = pipeline.edit_base(&req, &NoProgress)?;
    let opts = pipeline.config.skin.clone();
    let vis = crate::skin::visibility::VisibilityField::new(
        &base.prepared,
        &base.field,
        opts.exact_visibility,
    );
    let sdf = |p: &P3| vis.eval(p);
    let mut session = Session::new(&base.prepared, &sdf, rig.joints.clone(), &base.skin, opts)?;
    if let Some(eps) = args.eps {
        session.set_eps(eps)?;
    }
    let mut outcomes = Vec::new();
    for op in &ops {
        match session.apply(op) {
            Ok(o) => outcomes.push(o),
            Err(e) => {
                eprintln!("error: {}: {e}", args.rig.display());
                return Ok(ExitCode::from(1));
            }
        }
    }
    let mut out = edited_rig(&rig, &mesh, &session, &outcomes);
    if args.compare_global {
        compare_global(&session, &mut out)?;
    }
    let glb = GlbSource {
        source: base.source.as_deref(),
        keep_animations: false,
    };
    let written = write_rig_with(&out, &base.prepared.input, glb, &args.out, &args.format)?;
    report(&outcomes, &out);
    if args.save_edits {
        save_edits(&mesh, &ops)?;
    }
    for p in written {
        println!("  wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The edits to apply; `None` after printing a usage error (none given, or one malformed).
fn usable_ops(args: &EditArgs) -> Option<Vec<EditOp>> {
    match ops_of(args) {
        Ok(ops) if !ops.is_empty() => Some(ops),
        Ok(_) => {
            eprintln!("error: no edit given (--move, --insert, --delete, --align, --range, …)");
            None
        }
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

/// The input rig with the session's joints and skin, pointing at `mesh`, its edits recorded.
fn edited_rig(rig: &Rig, mesh: &Path, session: &Session, outcomes: &[EditOutcome]) -> Rig {
    let mut out = rig.clone();
    out.mesh = mesh.display().to_string();
    out.joints = session.joints.clone();
    out.skin = Some(session.skin_table());
    record(&mut out, outcomes);
    out
}

/// `--save-edits`: append the edits (compacted) to the mesh's edit sidecar.
fn save_edits(mesh: &Path, ops: &[EditOp]) -> anyhow::Result<()> {
    let path = sidecar_path(mesh);
    let mut log = EditLog::load_for(mesh)?.unwrap_or(EditLog {
        version: VERSION,
        edits: Vec::new(),
    });
    log.push_compacted(ops);
    log.save(&path)?;
    let edits = crate::util::count(log.edits.len(), "edit", "edits");
    println!("  saved {edits} to {}", path.display());
    Ok(())
}

/// The edits in a fixed order: moves, inserts, deletes, aligns, re-root, ranges, magnitudes,
/// smoothness (clap cannot keep the order of different flags).
fn ops_of(a: &EditArgs) -> anyhow::Result<Vec<EditOp>> {
    let mut ops = Vec::new();
    for m in a.r#move.chunks(4) {
        ops.push(EditOp::MoveJoint {
            joint: m[0].clone(),
            to: xyz(&m[1..])?,
            with_descendants: a.with_descendants,
        });
    }
    for m in a.insert.chunks(2) {
        let at: f64 = num(&m[1])?;
        ops.push(EditOp::InsertJoint {
            child: m[0].clone(),
            at,
            name: format!("{}_split", m[0]),
        });
    }
    for j in &a.delete {
        ops.push(EditOp::DeleteJoint { joint: j.clone() });
    }
    if !a.align.is_empty() {
        ops.push(EditOp::Align {
            joints: a.align.clone(),
        });
    }
    if let Some(j) = &a.reroot {
        ops.push(EditOp::Reroot { joint: j.clone() });
    }
    for m in a.range.chunks(4) {
        ops.push(EditOp::Handle {
            joint: m[0].clone(),
            offset: xyz(&m[1..])?,
        });
    }
    for m in a.magnitude.chunks(2) {
        ops.push(EditOp::Magnitude {
            joint: m[0].clone(),
            c: num(&m[1])?,
        });
    }
    for m in a.smoothness.chunks(2) {
        ops.push(EditOp::Smoothness {
            joint: m[0].clone(),
            b: num(&m[1])?,
        });
    }
    Ok(ops)
}

fn num(s: &str) -> anyhow::Result<f64> {
    s.parse()
        .with_context(|| format!("\"{s}\" is not a number"))
}

fn xyz(v: &[String]) -> anyhow::Result<[f64; 3]> {
    Ok([num(&v[0])?, num(&v[1])?, num(&v[2])?])
}

/// Local solve times and region sizes into rig.json (`timings_ms`, `stats`).
fn record(rig: &mut Rig, outcomes: &[EditOutcome]) {
    let sum = |f: &dyn Fn(&EditOutcome) -> f64| outcomes.iter().map(f).sum::<f64>();
    let t = &mut rig.timings_ms;
    t.insert("edit_local".into(), sum(&|o| o.total_ms));
    t.insert("edit_region_search".into(), sum(&|o| o.region_ms));
    t.insert("edit_heat".into(), sum(&|o| o.times.heat_ms));
    t.insert("edit_assemble".into(), sum(&|o| o.times.assemble_ms));
    t.insert("edit_factor".into(), sum(&|o| o.times.factor_ms));
    t.insert("edit_solve".into(), sum(&|o| o.times.solve_ms));
    let region = outcomes.iter().map(|o| o.region).max().unwrap_or(0) as f64;
    t.insert("edit_region_vertices".into(), region);
    let s = &mut rig.stats;
    s.insert("edit_region_vertices".into(), region);
    let m = outcomes.first().map_or(0, |o| o.vertices) as f64;
    s.insert("edit_heat_vertices".into(), m);
    s.insert("edit_eps".into(), outcomes.first().map_or(0.0, |o| o.eps));
    s.insert(
        "edit_columns".into(),
        outcomes.iter().map(|o| o.columns).max().unwrap_or(0) as f64,
    );
}

/// Solve globally with the same joints and controls (from scratch, as `rig` solves: no cached
/// analysis); record its time and the largest weight differences, raw (the heat solutions) and
/// final (clipped, pruned, renormalized).
fn compare_global(session: &Session, rig: &mut Rig) -> anyhow::Result<()> {
    let mut g = session.clone();
    g.clear_cache();
    let o = g.global()?;
    let diff = max_diff(session.welded_rows(), g.welded_rows());
    let raw = max_diff(session.raw_rows(), g.raw_rows());
    rig.timings_ms.insert("edit_global".into(), o.total_ms);
    rig.stats.insert("edit_global_ms".into(), o.total_ms);
    rig.stats.insert("edit_max_weight_diff".into(), diff);
    rig.stats.insert("edit_max_raw_weight_diff".into(), raw);
    Ok(())
}

fn report(outcomes: &[EditOutcome], rig: &Rig) {
    for o in outcomes {
        println!(
            "{}: region {} of {} vertices, {} columns, {} pass(es), eps {:e}, {:.1} ms (search {:.1}, heat {:.1}, assemble {:.1}, factor {:.1}, solve {:.1})",
            o.op, o.region, o.vertices, o.columns, o.passes, o.eps, o.total_ms, o.region_ms,
            o.times.heat_ms, o.times.assemble_ms, o.times.factor_ms, o.times.solve_ms
        );
    }
    if let (Some(g), Some(d), Some(raw)) = (
        rig.stats.get("edit_global_ms"),
        rig.stats.get("edit_max_weight_diff"),
        rig.stats.get("edit_max_raw_weight_diff"),
    ) {
        let local = rig.timings_ms.get("edit_local").copied().unwrap_or(0.0);
        println!(
            "global solve {g:.1} ms (local {local:.1} ms, speed-up {:.1}x), largest weight difference {d:.2e} (raw heat solution {raw:.2e})",
            g / local.max(1e-9)
        );
    }
}
