//! How a command's error is printed: the message and its causes, each cause once.
//!
//! Library errors name their cause in their own message (`hero.obj: cannot read file: No such
//! file…`) and many also expose it as the error's `source()` (thiserror's `#[from]` and `source`
//! fields), so anyhow's `{:#}` printed the same text two or three times:
//! `preparing hero.obj: hero.obj: cannot read file: X: cannot read file: X: X`.

/// A usage error: a bad flag, settings file or setting, found before any mesh is read. `main`
/// exits with code 2 for it (the README's exit codes), 1 for any other error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(String);

/// `e` as a [`Usage`] error (its message and causes kept as text).
pub fn usage(e: impl Into<anyhow::Error>) -> anyhow::Error {
    anyhow::Error::new(Usage(message(&e.into())))
}

/// The process exit code for an error a command returned: 2 for a usage error, else 1.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.chain().any(|c| c.is::<Usage>()) {
        2
    } else {
        1
    }
}

/// `e` and its causes joined by `: `, leaving out a cause whose text the message so far already
/// holds.
pub fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mesh that cannot be read, as `geppetto edit` reports it: every cause once.
    #[test]
    fn each_cause_is_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let load = crate::mesh::LoadError::from(io);
        let rig = crate::error::RigError::Load {
            path: "hero.obj".into(),
            source: load,
            companions: Vec::new(),
        };
        let e = anyhow::Error::new(rig).context("preparing hero.obj");
        assert_eq!(
            message(&e),
            "preparing hero.obj: hero.obj: cannot read file: no such file"
        );
        assert_eq!(format!("{e:#}").matches("no such file").count(), 3);
        // A cause the message does not hold is kept.
        let e = anyhow::anyhow!("the cause").context("the context");
        assert_eq!(message(&e), "the context: the cause");
    }

    /// A settings error is a usage error (exit 2) with its message unchanged; others exit 1.
    #[test]
    fn usage_errors_exit_2() {
        let e = usage(anyhow::anyhow!("w.yaml: setting `workers`: bad"));
        assert_eq!(
            (exit_code(&e), message(&e).as_str()),
            (2, "w.yaml: setting `workers`: bad")
        );
        assert_eq!(exit_code(&e.context("starting the watcher")), 2);
        assert_eq!(exit_code(&anyhow::anyhow!("hero.obj: cannot read")), 1);
    }
}
