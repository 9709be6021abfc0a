//! `geppetto score PRED TRUTH`: the corpus scoring conventions (see [`crate::measure::score`]).

use std::process::ExitCode;

use super::ScoreArgs;
use crate::measure::score::{format_table, score_files, ScoreOptions};

/// Run `geppetto score`. Exit 0 on success, 1 when a file cannot be read or scored.
pub fn run(args: &ScoreArgs) -> anyhow::Result<ExitCode> {
    if args.poses == 0 {
        // With no poses the deformation error printed as 0.000, a perfect score.
        eprintln!(
            "error: --poses must be at least 1 (the deformation error is a mean over the poses)"
        );
        return Ok(ExitCode::from(2));
    }
    let opts = ScoreOptions {
        mesh: args.mesh.clone(),
        poses: args.poses,
        seed: args.seed,
        ..ScoreOptions::default()
    };
    let report = match score_files(&args.pred, &args.truth, &opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", format_table(&report));
    }
    Ok(ExitCode::SUCCESS)
}
