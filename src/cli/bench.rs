//! `geppetto bench`: corpus benchmark and scaling study (see [`crate::measure::bench`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use super::BenchArgs;
use crate::measure::bench::{self, manifest, report, scaling, BenchOptions};

/// Per-run time limit unless `GEPPETTO_BENCH_TIMEOUT` (seconds) says otherwise.
const DEFAULT_TIMEOUT_S: u64 = 300;

/// The `--corpus` default in [`super::BenchArgs`].
const DEFAULT_CORPUS: &str = "../shared/corpus";

/// Run `geppetto bench`. Exit 0 even when some rigs fail (they are reported); 2 for usage errors
/// or a missing corpus.
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    if args.runs == 0 {
        eprintln!("error: --runs must be at least 1");
        return Ok(ExitCode::from(2));
    }
    let exe = std::env::current_exe().context("cannot find the geppetto executable")?;
    let timeout = std::env::var("GEPPETTO_BENCH_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_TIMEOUT_S);
    // `--corpus` left at its default defers to GEPPETTO_CORPUS, like the tests.
    let corpus = match std::env::var_os("GEPPETTO_CORPUS") {
        Some(env) if args.corpus == Path::new(DEFAULT_CORPUS) => PathBuf::from(env),
        _ => args.corpus.clone(),
    };
    let opts = BenchOptions {
        exe,
        corpus: corpus.clone(),
        runs: args.runs,
        filter: args.filter.clone(),
        config: args.config.clone(),
        timeout: Duration::from_secs(timeout),
        verbose: true,
    };
    if let Some(mesh) = &args.edit {
        return run_edit(args, &opts, mesh);
    }
    if let Some(mesh) = &args.scaling {
        return run_scaling(args, &opts, mesh);
    }
    if let Some(mesh) = &args.rerun {
        return run_rerun(args, &opts, mesh);
    }
    if !corpus.join("MANIFEST.tsv").is_file() {
        eprintln!(
            "error: no corpus at {} (expected MANIFEST.tsv, meshes/, truth/); pass --corpus DIR \
             or set GEPPETTO_CORPUS",
            corpus.display()
        );
        return Ok(ExitCode::from(2));
    }
    let report = match bench::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    if report.meshes.is_empty() {
        eprintln!(
            "warning: no corpus mesh matches --filter '{}'",
            args.filter.as_deref().unwrap_or("")
        );
    }
    print!("{}", report::format(&report));
    write_json(args.json.as_deref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

fn run_scaling(args: &BenchArgs, opts: &BenchOptions, mesh: &Path) -> anyhow::Result<ExitCode> {
    if !mesh.is_file() {
        eprintln!("error: --scaling {}: no such file", mesh.display());
        return Ok(ExitCode::from(2));
    }
    let skeleton = template_for(args, opts, mesh);
    let report = match scaling::run(opts, mesh, &skeleton) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    print!("{}", scaling::format(&report));
    write_json(args.json.as_deref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

fn run_edit(args: &BenchArgs, opts: &BenchOptions, mesh: &Path) -> anyhow::Result<ExitCode> {
    if !mesh.is_file() {
        eprintln!("error: --edit {}: no such file", mesh.display());
        return Ok(ExitCode::from(2));
    }
    let skeleton = template_for(args, opts, mesh);
    let config = super::rig::load_config(args.config.as_deref())?;
    let report = match bench::edit::run(config, mesh, &skeleton, args.joint.as_deref(), args.runs) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    print!("{}", bench::edit::format(&report));
    write_json(args.json.as_deref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

fn run_rerun(args: &BenchArgs, opts: &BenchOptions, mesh: &Path) -> anyhow::Result<ExitCode> {
    if !mesh.is_file() {
        eprintln!("error: --rerun {}: no such file", mesh.display());
        return Ok(ExitCode::from(2));
    }
    let skeleton = template_for(args, opts, mesh);
    let config = super::rig::load_config(args.config.as_deref())?;
    let report = match bench::rerun::run(config, mesh, &skeleton, args.runs) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    print!("{}", bench::rerun::format(&report));
    write_json(args.json.as_deref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

/// `--skeleton` if given; else the corpus category picks the template when the mesh is a corpus
/// mesh; else `human`.
fn template_for(args: &BenchArgs, opts: &BenchOptions, mesh: &Path) -> String {
    let stem = crate::pipeline::asset_name(mesh);
    args.skeleton.clone().unwrap_or_else(|| {
        manifest::read(&opts.corpus)
            .ok()
            .and_then(|es| es.into_iter().find(|e| e.name == stem))
            .map_or_else(|| "human".to_string(), |e| e.skeleton)
    })
}

fn write_json<T: serde::Serialize>(path: Option<&Path>, value: &T) -> anyhow::Result<()> {
    if let Some(p) = path {
        let text = serde_json::to_string_pretty(value)?;
        crate::util::write_atomic(&PathBuf::from(p), text.as_bytes())
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}
