//! The header line: the watched folder, the asset counts and the image protocol, shortened to fit
//! the terminal's width so the counts stay visible at 80 columns (a full path alone can fill it).

use std::path::Path;

use ratatui::text::Line;

/// The counts shown in the header, one per row status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Rigged, confident.
    pub ok: usize,
    /// Rigged, low confidence.
    pub low: usize,
    /// Failed, or rigged with outputs not written.
    pub failed: usize,
    /// Being rigged.
    pub running: usize,
    /// Waiting for a worker or for the file to settle.
    pub queued: usize,
    /// Empty (0-byte) files: waiting for content, neither queued nor failed. Shown only when
    /// there are some (a file saved empty used to read "1 queued" forever).
    pub empty: usize,
}

/// The header text for a `width`-column terminal: the first of these forms that fits, most
/// detailed first — full path and wording; the folder's name and short wording; without the
/// image protocol. The last form is used (and cut by the terminal) when none fits.
pub fn header_text(
    root: &Path,
    assets: usize,
    counts: Counts,
    protocol: &str,
    width: u16,
) -> String {
    let Counts {
        ok,
        low,
        failed,
        running,
        queued,
        empty,
    } = counts;
    let assets = crate::util::count(assets, "asset", "assets");
    let empty = if empty > 0 {
        format!(", {empty} empty")
    } else {
        String::new()
    };
    let name = root.file_name().map_or_else(
        || root.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    // The long and short wordings differ only in how the low-confidence count is named.
    let line = |low_word: &str| {
        format!(
            "{assets}: {ok} ok, {low} {low_word}, {failed} failed, {running} running, {queued} queued{empty}"
        )
    };
    let (long, short) = (line("low confidence"), line("low"));
    let forms = [
        format!(
            " geppetto watch {} │ {long} │ images: {protocol}",
            root.display()
        ),
        format!(" geppetto watch {name} │ {short} │ images: {protocol}"),
        format!(" {name} │ {short} │ {protocol}"),
        format!(" {name} │ {short}"),
    ];
    let fits = |s: &String| Line::raw(s.as_str()).width() <= usize::from(width);
    let last = forms[forms.len() - 1].clone();
    forms.into_iter().find(fits).unwrap_or(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(
        ok: usize,
        low: usize,
        failed: usize,
        running: usize,
        queued: usize,
        empty: usize,
    ) -> Counts {
        Counts {
            ok,
            low,
            failed,
            running,
            queued,
            empty,
        }
    }

    #[test]
    fn empty_files_are_counted_apart_from_the_queue_and_only_when_present() {
        let s = header_text(Path::new(ROOT), 3, c(1, 0, 0, 0, 0, 2), "halfblocks", 80);
        assert!(s.contains("0 queued, 2 empty"), "{s:?}");
        let s = header_text(Path::new(ROOT), 3, c(3, 0, 0, 0, 0, 0), "halfblocks", 80);
        assert!(!s.contains("empty"), "{s:?}");
    }

    const ROOT: &str = "/home/artist/projects/a-long-project-name/assets/characters";

    #[test]
    fn at_80_columns_the_counts_and_the_protocol_stay_visible() {
        let s = header_text(Path::new(ROOT), 12, c(7, 2, 1, 1, 1, 0), "halfblocks", 80);
        assert!(Line::raw(s.as_str()).width() <= 80, "{s}");
        for part in [
            "characters",
            "7 ok",
            "1 failed",
            "1 running",
            "1 queued",
            "halfblocks",
        ] {
            assert!(s.contains(part), "{part} missing from {s:?}");
        }
    }

    /// One asset reads "1 asset", not "1 assets".
    #[test]
    fn one_asset_is_singular() {
        let s = header_text(Path::new(ROOT), 1, c(1, 0, 0, 0, 0, 0), "halfblocks", 200);
        assert!(s.contains("1 asset: 1 ok"), "{s:?}");
        let s = header_text(Path::new(ROOT), 2, c(2, 0, 0, 0, 0, 0), "halfblocks", 200);
        assert!(s.contains("2 assets: 2 ok"), "{s:?}");
    }

    #[test]
    fn a_wide_terminal_gets_the_full_path_and_wording() {
        let s = header_text(Path::new(ROOT), 12, c(7, 2, 1, 1, 1, 0), "kitty", 200);
        assert!(s.contains(ROOT) && s.contains("2 low confidence") && s.contains("images: kitty"));
    }

    #[test]
    fn a_narrow_terminal_keeps_the_counts_before_the_protocol() {
        let s = header_text(Path::new(ROOT), 3, c(1, 1, 1, 0, 0, 0), "halfblocks", 60);
        assert!(s.contains("1 failed") && s.contains("0 queued"), "{s:?}");
        assert!(!s.contains("halfblocks"), "{s:?}");
    }
}
