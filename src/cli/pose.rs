//! `geppetto pose`. (Stub until implemented.)

use std::process::ExitCode;

use super::PoseArgs;

/// Run `geppetto pose`.
pub fn run(_args: &PoseArgs) -> anyhow::Result<ExitCode> {
    eprintln!("error: 'geppetto pose' is not implemented yet");
    Ok(ExitCode::from(2))
}
