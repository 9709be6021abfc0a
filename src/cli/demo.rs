//! `geppetto demo`. (Stub until implemented.)

use std::process::ExitCode;

use super::DemoArgs;

/// Run `geppetto demo`.
pub fn run(_args: &DemoArgs) -> anyhow::Result<ExitCode> {
    eprintln!("error: 'geppetto demo' is not implemented yet");
    Ok(ExitCode::from(2))
}
