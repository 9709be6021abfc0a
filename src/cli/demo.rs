//! `geppetto demo`: write the procedural demo characters (a humanoid and a quadruped) into a folder
//! and open the watch UI on it (`--headless`: rig them, print a summary, exit). The README's first
//! command.

use std::process::ExitCode;

use super::DemoArgs;
use crate::watch::{WatchConfig, WatchSettings};

/// Run `geppetto demo`.
pub fn run(args: &DemoArgs) -> anyhow::Result<ExitCode> {
    let dir = &args.dir;
    // Existing files are never overwritten (they may be the user's own work).
    let written = crate::demo::write_demo_folder(dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot write the demo characters: {e}", dir.display()))?;
    for p in &written {
        println!("demo character: {}", p.display());
    }
    let mut settings = WatchSettings::resolve(&WatchConfig::default(), dir)?;
    if let Some(p) = &args.protocol {
        crate::tui::runtime::protocol_type(p)?;
        settings.protocol = p.clone();
    }
    super::watch::watch_with(&settings, args.headless, args.headless)
}
