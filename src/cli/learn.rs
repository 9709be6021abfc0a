//! `geppetto learn LABELS... [--collect] [--iterate] [--out FILE] [--seed N] [--leave-one-out]`: maximum-margin
//! Γ (see [`crate::learn`]). Prints the learned Γ and the margin of every character (a negative
//! one is a character whose labels the 9 basis terms cannot separate).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use super::rig::load_config;
use crate::embed::PENALTY_TERMS;
use crate::learn::{self, collect, iterate, labels, loo, optimize::Search, Learned};

/// `geppetto learn`.
#[derive(Debug, Args)]
pub struct LearnArgs {
    /// Label files (JSON lines: `--collect` output, or `geppetto-labels.jsonl` from a watched
    /// folder's output).
    pub labels: Vec<PathBuf>,
    /// First label the corpus meshes that have an artist rig (searches under many Γ; slow), write
    /// them to --labels-out, and learn from them too.
    #[arg(long)]
    pub collect: bool,
    /// Where --collect writes its labels.
    #[arg(long, default_value = "learn-labels.jsonl")]
    pub labels_out: PathBuf,
    /// The corpus folder (default: $GEPPETTO_CORPUS, else ../shared/corpus).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Write the learned Γ as a config/rig.yaml-shaped file here (use it with --config).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the random starts (and of --collect's random Γ).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Evaluate leave-one-character-out on the corpus: learn without each character, rig it with
    /// that Γ and with the configured Γ, compare CD-J2J (real searches; slow).
    #[arg(long)]
    pub leave_one_out: bool,
    /// The paper's loop: search the corpus characters again under the learned Γ (and under each
    /// character's leave-one-out Γ), label the new embeddings, re-learn, until no new ones; the
    /// grown label set is written to --labels-out.
    #[arg(long)]
    pub iterate: bool,
    /// Engine configuration whose Γ is the baseline (default: the built-in config/rig.yaml).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// Run `geppetto learn`. Exit 0 on success, 1 when an input cannot be read or nothing can be
/// learned, 2 for usage errors.
pub fn run(args: &LearnArgs) -> anyhow::Result<ExitCode> {
    if args.labels.is_empty() && !args.collect {
        eprintln!("error: give label files, or --collect to label the corpus");
        return Ok(ExitCode::from(2));
    }
    let config = load_config(args.config.as_deref())?;
    let shipped = config.penalties.as_array();
    let search = Search {
        seed: args.seed,
        ..Search::default()
    };
    let read = labels::read(&args.labels).and_then(|l| {
        // With --collect the corpus supplies labels; alone, files without any are an input error.
        if !args.collect {
            labels::require_some(&l, &args.labels)?;
        }
        Ok(l)
    });
    let mut all = match read {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if args.collect {
        all.extend(collect_corpus(&corpus(args)?, &config, args)?);
    }
    if args.iterate {
        iterate_labels(args, &mut all, &config, &search)?;
    }
    let learned = match learn::learn(&all, shipped, &search) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    print!("{}", report(&learned, all.len()));
    if let Some(out) = &args.out {
        write_gamma(args, out, &learned, all.len())?;
    }
    if args.leave_one_out {
        print_leave_one_out(args, &all, &config, &search)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The corpus characters (read again for each use: `--collect`, `--iterate`, `--leave-one-out`).
fn corpus(args: &LearnArgs) -> anyhow::Result<Vec<collect::Character>> {
    let dir = corpus_dir(args.corpus.clone());
    collect::corpus_characters(&dir).with_context(|| format!("corpus {}", dir.display()))
}

/// `--iterate`: the training loop (learn, embed again, label the new embeddings, repeat; Baran &
/// Popović 2007 §3.3), then every label written to `--labels-out`.
fn iterate_labels(
    args: &LearnArgs,
    all: &mut Vec<labels::Label>,
    config: &crate::config::RigConfig,
    search: &Search,
) -> anyhow::Result<()> {
    let rounds = iterate::iterate(&corpus(args)?, all, config, search, |r| {
        eprintln!(
            "round {}: smallest margin {:.4}; {} new embeddings labelled ({} good)",
            r.round, r.min_margin, r.added, r.added_good
        );
    })?;
    labels::write(&args.labels_out, all)?;
    eprintln!(
        "{}; wrote {} to {}",
        crate::util::count(rounds.len(), "round", "rounds"),
        crate::util::count(all.len(), "label", "labels"),
        args.labels_out.display()
    );
    Ok(())
}

/// `--out`: the learned Γ as a rig config, with a header saying how it was learned.
fn write_gamma(
    args: &LearnArgs,
    out: &std::path::Path,
    learned: &Learned,
    labels: usize,
) -> anyhow::Result<()> {
    let header = [
        format!(
            "Γ learned by `geppetto learn` (seed {}) from {} of {};",
            args.seed,
            crate::util::count(labels, "labelled embedding", "labelled embeddings"),
            crate::util::count(learned.characters.len(), "character", "characters")
        ),
        format!(
            "smallest per-character margin {:.4} (unit Γ).",
            learned.min_margin()
        ),
    ];
    crate::util::write_atomic(out, learn::rig_yaml(&learned.gamma, &header).as_bytes())
        .with_context(|| format!("{}: cannot write", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}

/// `--leave-one-out`: the per-character table and whether the learned Γ wins on left-out meshes.
fn print_leave_one_out(
    args: &LearnArgs,
    all: &[labels::Label],
    config: &crate::config::RigConfig,
    search: &Search,
) -> anyhow::Result<()> {
    let report = loo::leave_one_out(&corpus(args)?, all, config, search)?;
    print!(
        "\nleave one character out (CD-J2J %, status):\n{}",
        report.table()
    );
    println!(
        "learned Γ {} on the left-out meshes (median and worst)",
        if report.learned_wins() {
            "wins"
        } else {
            "does not win"
        }
    );
    Ok(())
}

/// `--collect`: label every corpus character and write the labels to `--labels-out`.
fn collect_corpus(
    characters: &[collect::Character],
    config: &crate::config::RigConfig,
    args: &LearnArgs,
) -> anyhow::Result<Vec<labels::Label>> {
    let mut got = Vec::new();
    for c in characters {
        let l = collect::collect(c, config, args.seed)
            .with_context(|| format!("labelling {}", c.name))?;
        let good = l.iter().filter(|x| x.good).count();
        eprintln!(
            "{}: {} embeddings, {good} good, {} bad",
            c.name,
            l.len(),
            l.len() - good
        );
        got.extend(l);
    }
    labels::write(&args.labels_out, &got)?;
    eprintln!(
        "wrote {} to {}",
        crate::util::count(got.len(), "label", "labels"),
        args.labels_out.display()
    );
    Ok(got)
}

/// `--corpus`, else `$GEPPETTO_CORPUS`, else `../shared/corpus`.
fn corpus_dir(arg: Option<PathBuf>) -> PathBuf {
    arg.or_else(|| std::env::var_os("GEPPETTO_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"))
}

/// Γ and the per-character margins, as printed.
pub fn report(l: &Learned, labels: usize) -> String {
    let labels = crate::util::count(labels, "label", "labels");
    let mut s = format!("learned Γ from {labels} (scaled to the configured Γ's norm):\n");
    for (name, g) in PENALTY_TERMS.iter().zip(l.gamma) {
        s.push_str(&format!("  {name:<18} {g:.6}\n"));
    }
    s.push_str("margin per character (unit Γ; negative: the basis cannot separate its labels):\n");
    s.push_str(&format!(
        "  {:<24} {:>5} {:>5} {:>10} {:>10}\n",
        "character", "good", "bad", "learned", "configured"
    ));
    for c in &l.characters {
        s.push_str(&format!(
            "  {:<24} {:>5} {:>5} {:>10.4} {:>10.4}\n",
            c.name, c.good, c.bad, c.learned, c.shipped
        ));
    }
    for name in &l.skipped {
        s.push_str(&format!(
            "  {name:<24} skipped: needs both a good and a bad label\n"
        ));
    }
    s
}
