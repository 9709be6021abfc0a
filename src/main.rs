//! `geppetto` binary: parse arguments and dispatch; all work is in the library.

use std::process::ExitCode;

use clap::Parser;
use geppetto::cli::{self, Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Rig(a) => cli::rig::run(a),
        Command::Attach(a) => cli::attach::run(a),
        Command::Edit(a) => cli::edit::run(a),
        Command::Pose(a) => cli::pose::run(a),
        Command::Animate(a) => cli::animate::run(a),
        Command::Score(a) => cli::score::run(a),
        Command::Bench(a) => cli::bench::run(a),
        Command::Watch(a) => cli::watch::run(a),
        Command::Demo(a) => cli::demo::run(a),
        Command::Learn(a) => cli::learn::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", cli::errors::message(&e));
            ExitCode::from(cli::errors::exit_code(&e))
        }
    }
}
