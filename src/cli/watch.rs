//! `geppetto watch`. (Stub until implemented.)

use std::process::ExitCode;

use super::WatchArgs;

/// Run `geppetto watch`.
pub fn run(_args: &WatchArgs) -> anyhow::Result<ExitCode> {
    eprintln!("error: 'geppetto watch' is not implemented yet");
    Ok(ExitCode::from(2))
}
