//! `geppetto attach`. (Stub until implemented.)

use std::process::ExitCode;

use super::AttachArgs;

/// Run `geppetto attach`.
pub fn run(_args: &AttachArgs) -> anyhow::Result<ExitCode> {
    eprintln!("error: 'geppetto attach' is not implemented yet");
    Ok(ExitCode::from(2))
}
