//! `geppetto watch`: the watch-folder UI, or `--headless` log lines.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use super::WatchArgs;
use crate::config::{ConfigError, RigConfig};
use crate::tui::term::{run_headless, run_tui};
use crate::watch::config::template;
use crate::watch::{WatchConfig, WatchSettings};

/// Run `geppetto watch`.
pub fn run(args: &WatchArgs) -> anyhow::Result<ExitCode> {
    // Every settings problem (the file, a setting, a flag, the folder) is a usage error.
    let settings = settings(args).map_err(super::errors::usage)?;
    watch_with(&settings, args.headless, args.once)
}

/// Watch with resolved settings: the UI on a terminal, headless otherwise (or when asked).
pub fn watch_with(
    settings: &WatchSettings,
    headless: bool,
    once: bool,
) -> anyhow::Result<ExitCode> {
    let config = RigConfig::default();
    let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
    if headless || once {
        return run_headless(settings, config, once);
    }
    if !std::io::stdout().is_terminal() || dumb {
        eprintln!(
            "note: not an interactive terminal; running headless (use --headless to silence this)"
        );
        return run_headless(settings, config, false);
    }
    run_tui(settings, config)
}

/// Resolve the configuration file and the command-line overrides.
pub fn settings(args: &WatchArgs) -> anyhow::Result<WatchSettings> {
    let config = match &args.config {
        Some(p) => WatchConfig::load(p)?,
        None => WatchConfig::default(),
    };
    // A setting the file gets wrong names the file too.
    let mut s = WatchSettings::resolve(&config, &args.dir).map_err(|e| match &args.config {
        Some(p) if matches!(e, ConfigError::Invalid { .. }) => {
            anyhow::anyhow!("{}: {e}", p.display())
        }
        _ => e.into(),
    })?;
    if let Some(out) = &args.out {
        s.out_dir = absolute(out)?;
    }
    if let Some(p) = &args.protocol {
        crate::tui::runtime::protocol_type(p)?;
        s.protocol = p.clone();
    }
    if let Some(sk) = &args.skeleton {
        // A path on the command line is relative to where the user typed it.
        s.skeleton = template(sk, &std::env::current_dir()?, "--skeleton")?;
        s.skeleton_rules.clear();
    }
    if let Some(w) = args.workers {
        // 0 as in the file: one per core but one (it meant one worker here, cores − 1 there).
        s.workers = crate::watch::config::worker_count(w);
    }
    if let Some(m) = &args.motion {
        // A path on the command line is relative to where the user typed it.
        let clip = if m.to_ascii_lowercase().ends_with(".bvh") {
            absolute(Path::new(m))?.display().to_string()
        } else {
            m.clone()
        };
        s.motion = crate::watch::config::motion_source(&clip, &s.root)?;
    }
    if args.poll {
        s.poll = Some(Duration::from_millis(config.poll_ms.max(50)));
    }
    s.check_output()?;
    s.check_workers()?;
    Ok(s)
}

fn absolute(p: &Path) -> anyhow::Result<std::path::PathBuf> {
    let abs = std::path::absolute(p)?;
    // Resolve symlinks when the folder exists, so "is this inside the output folder" compares like
    // with like (the watched root is canonical).
    Ok(std::fs::canonicalize(&abs).unwrap_or(abs))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    /// `--workers 0` means what `workers: 0` in the file means (one per core but one; it meant
    /// one worker), and any other count is itself.
    #[test]
    fn workers_zero_on_the_command_line_is_the_files_zero() {
        let dir = tempfile::tempdir().unwrap();
        let parse = |w: &str| {
            let argv = [
                "geppetto",
                "watch",
                dir.path().to_str().unwrap(),
                "--workers",
                w,
            ];
            match Cli::try_parse_from(argv).unwrap().command {
                Command::Watch(args) => settings(&args).unwrap().workers,
                _ => unreachable!("a watch command"),
            }
        };
        let file = WatchSettings::resolve(&WatchConfig::default(), dir.path()).unwrap();
        assert_eq!(parse("0"), file.workers);
        assert_eq!(parse("0"), crate::watch::config::worker_count(0));
        assert_eq!(parse("3"), 3);
    }
}
