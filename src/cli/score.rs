//! `geppetto score`. (Stub until implemented.)

use std::process::ExitCode;

use super::ScoreArgs;

/// Run `geppetto score`.
pub fn run(_args: &ScoreArgs) -> anyhow::Result<ExitCode> {
    eprintln!("error: 'geppetto score' is not implemented yet");
    Ok(ExitCode::from(2))
}
