//! `geppetto bench`. (Stub until implemented.)

use std::process::ExitCode;

use super::BenchArgs;

/// Run `geppetto bench`.
pub fn run(_args: &BenchArgs) -> anyhow::Result<ExitCode> {
    eprintln!("error: 'geppetto bench' is not implemented yet");
    Ok(ExitCode::from(2))
}
