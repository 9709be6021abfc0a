//! The corpus quality table (`tests/quality/corpus_quality.tsv`): per corpus mesh the expected
//! status and the quality ceilings, plus the corpus-wide low-confidence ceiling. Parsing, the
//! per-mesh comparison (plain failure messages) and printing today's values in the same format.
//!
//! Ceilings are the recorded value plus a margin ([`cd_j2j_ceiling`], [`deform_ceiling`]). The
//! rig is the same on every run, so the margin only absorbs floating-point differences between
//! platforms and incidental changes; it is far below what a misplaced joint or a broken skin term
//! costs (the guards were checked by lowering a penalty weight and by dropping a skin term).
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The table file, beside this module.
pub fn table_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/quality/corpus_quality.tsv")
}

/// Set to print today's values as a table (`GEPPETTO_QUALITY_PRINT=1 cargo test --test
/// corpus_quality -- --nocapture`).
pub const PRINT_ENV: &str = "GEPPETTO_QUALITY_PRINT";

/// Ceiling for a CD-J2J (% of the largest bounding-box side): +5 % of the value +0.10 points,
/// rounded up to 0.01. A joint one bone segment off moves CD-J2J of a ~20-joint skeleton by
/// well over 0.2 points.
pub fn cd_j2j_ceiling(value_pct: f64) -> f64 {
    round_up(value_pct * 1.05 + 0.10)
}

/// Ceiling for a skin deformation mean (% of extent; today 0.2–1 %): +5 % of the value +0.02
/// points, rounded up to 0.01.
pub fn deform_ceiling(value_pct: f64) -> f64 {
    round_up(value_pct * 1.05 + 0.02)
}

fn round_up(x: f64) -> f64 {
    (x * 100.0 - 1e-9).ceil() / 100.0
}

/// A rig's outcome as the table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Rigged, confidence ok.
    Ok,
    /// Rigged, flagged low confidence.
    LowConfidence,
    /// No rig (a clear error naming the file).
    Failed,
}

impl Status {
    fn parse(s: &str) -> Option<Status> {
        match s {
            "ok" => Some(Status::Ok),
            "low_confidence" => Some(Status::LowConfidence),
            "failed" => Some(Status::Failed),
            _ => None,
        }
    }

    /// The table spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::LowConfidence => "low_confidence",
            Status::Failed => "failed",
        }
    }
}

/// One mesh's row.
#[derive(Clone, Debug)]
pub struct Row {
    /// Corpus mesh name.
    pub mesh: String,
    /// Template it is rigged with (the manifest's rule, `bench::manifest::skeleton_for`).
    pub template: String,
    /// Templates that fit the creature (empty: none does).
    pub fits: Vec<String>,
    /// Expected status.
    pub status: Status,
    /// CD-J2J ceiling, % (meshes with an artist skeleton).
    pub cd_j2j_max: Option<f64>,
    /// Ceiling of the `attach` skin deformation mean, % (meshes with artist weights).
    pub deform_mean_max: Option<f64>,
}

/// The whole table.
#[derive(Clone, Debug)]
pub struct Table {
    /// One row per corpus mesh, in file order.
    pub rows: Vec<Row>,
    /// Most `low_confidence` rigs allowed over the corpus.
    pub low_confidence_max: usize,
}

/// What one mesh measured today.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Corpus mesh name.
    pub mesh: String,
    /// Template used.
    pub template: String,
    /// Outcome.
    pub status: Status,
    /// Confidence reasons, or the error of a failed rig.
    pub reasons: Vec<String>,
    /// CD-J2J against the artist skeleton, %.
    pub cd_j2j: Option<f64>,
    /// Skin deformation mean of `attach` on the artist skeleton against the artist weights, %.
    pub deform_mean: Option<f64>,
}

/// The comment block at the top of the table file (written again by [`format`]).
const DOC: &str = "\
# Corpus quality table, read by tests/corpus_quality.rs (docs: tests/quality/mod.rs).
# One row per corpus mesh, rigged with `template` (the manifest rule: quadruped -> quadruped,
# anything else -> human). `fits`: the templates that fit the creature (`none`: no template does;
# such a mesh may never be `ok`). `status`: ok | low_confidence | failed, matched exactly.
# Ceilings, % of the largest bounding-box side, `-` = not measured: CD-J2J against the artist
# skeleton; skin deformation mean of `attach` on the artist skeleton vs the artist weights.
# Ceiling = measured x 1.05 + 0.10 (CD-J2J) or + 0.02 (deformation), rounded up to 0.01.
# `low_confidence_max`: most low_confidence rigs over the corpus.
# Re-record after a quality change (review the diff; ceilings should only go down):
#   GEPPETTO_QUALITY_PRINT=1 cargo test --test corpus_quality -- --nocapture
";

const HEADER: &str = "mesh\ttemplate\tfits\tstatus\tcd_j2j_max_pct\tdeform_mean_max_pct";
const TOTAL_KEY: &str = "low_confidence_max";

fn opt(cell: &str, what: &str, line: usize) -> Result<Option<f64>, String> {
    if cell == "-" {
        return Ok(None);
    }
    cell.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(Some)
        .ok_or_else(|| format!("line {line}: {what} {cell:?} is not a positive number or -"))
}

fn parse_row(cells: &[&str], line: usize) -> Result<Row, String> {
    let [mesh, template, fits, status, cd, deform] = cells else {
        return Err(format!(
            "line {line}: expected 6 tab-separated cells: {HEADER}"
        ));
    };
    let status =
        Status::parse(status).ok_or_else(|| format!("line {line}: unknown status {status:?}"))?;
    let fits: Vec<String> = match *fits {
        "none" => Vec::new(),
        f => f.split(',').map(|s| s.trim().to_string()).collect(),
    };
    if status == Status::Ok && !fits.iter().any(|f| f == template) {
        return Err(format!(
            "line {line}: {mesh} may not be expected ok with {template}, a template that does not fit it"
        ));
    }
    Ok(Row {
        mesh: mesh.to_string(),
        template: template.to_string(),
        fits,
        status,
        cd_j2j_max: opt(cd, "cd_j2j_max_pct", line)?,
        deform_mean_max: opt(deform, "deform_mean_max_pct", line)?,
    })
}

impl Table {
    /// Parse the table text (`#` comments and blank lines ignored).
    pub fn parse(text: &str) -> Result<Table, String> {
        let (mut rows, mut total) = (Vec::new(), None);
        for (i, raw) in text.lines().enumerate() {
            // A `#` starts a comment (whole lines, or the measured values after a row).
            let l = raw.split('#').next().unwrap_or("").trim();
            if l.is_empty() || l == HEADER {
                continue;
            }
            let cells: Vec<&str> = l.split('\t').map(str::trim).collect();
            if cells[0] == TOTAL_KEY {
                let n = cells.get(1).and_then(|c| c.parse().ok());
                total = Some(n.ok_or_else(|| format!("line {}: bad {TOTAL_KEY}", i + 1))?);
            } else {
                rows.push(parse_row(&cells, i + 1)?);
            }
        }
        let low_confidence_max = total.ok_or(format!("no {TOTAL_KEY} line"))?;
        Ok(Table {
            rows,
            low_confidence_max,
        })
    }

    /// Read and parse `path`.
    pub fn load(path: &Path) -> Result<Table, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Table::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The row of `mesh`.
    pub fn row(&self, mesh: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.mesh == mesh)
    }
}

const RERECORD: &str = "re-record the table \
    (GEPPETTO_QUALITY_PRINT=1 cargo test --test corpus_quality -- --nocapture)";

/// Every way `m` breaks `row`, as plain messages ("fox: CD-J2J 6.100 % > ceiling 5.20 %").
pub fn check(row: &Row, m: &Measured) -> Vec<String> {
    let name = &m.mesh;
    let mut out = Vec::new();
    if row.template != m.template {
        out.push(format!(
            "{name}: rigged with {}, the table row was recorded with {}",
            m.template, row.template
        ));
    }
    if m.status == Status::Ok && !row.fits.contains(&m.template) {
        out.push(format!(
            "{name}: ok with template {}, which does not fit it (fits: {})",
            m.template,
            fits_cell(&row.fits)
        ));
    }
    if m.status != row.status {
        let why = if m.reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", m.reasons.join("; "))
        };
        // Better-looking than recorded may be an improvement (or a confidence check gone lax).
        let hint = if m.status == Status::Ok {
            format!("; if the rig is right, {RERECORD}")
        } else {
            String::new()
        };
        out.push(format!(
            "{name}: status {}{why}, table expects {}{hint}",
            m.status.as_str(),
            row.status.as_str()
        ));
    }
    let ceilings = [
        ("CD-J2J", m.cd_j2j, row.cd_j2j_max),
        ("skin deformation mean", m.deform_mean, row.deform_mean_max),
    ];
    for (what, value, max) in ceilings {
        match (value, max) {
            (Some(v), Some(max)) if v > max => {
                out.push(format!("{name}: {what} {v:.3} % > ceiling {max:.2} %"));
            }
            (None, Some(max)) => out.push(format!(
                "{name}: no {what} measured (ceiling {max:.2} %): the rig or attach run failed"
            )),
            (Some(v), None) => out.push(format!(
                "{name}: {what} {v:.3} % measured but the table has no ceiling; {RERECORD}"
            )),
            _ => {}
        }
    }
    out
}

fn fits_cell(fits: &[String]) -> String {
    if fits.is_empty() {
        "none".into()
    } else {
        fits.join(",")
    }
}

fn ceiling_cell(v: Option<f64>, ceiling: fn(f64) -> f64) -> String {
    v.map_or("-".into(), |v| format!("{:.2}", ceiling(v)))
}

/// Today's values as a table (ceilings = value + margin; `fits` kept from `old`), with the
/// measured values as a trailing comment per row, ready to replace the file.
pub fn format(measured: &[Measured], old: &Table) -> String {
    let mut s = String::from(DOC);
    let _ = writeln!(s, "{HEADER}");
    for m in measured {
        let fits = old.row(&m.mesh).map(|r| fits_cell(&r.fits));
        let _ = writeln!(
            s,
            "{}\t{}\t{}\t{}\t{}\t{}\t# measured: CD-J2J {} deform {}",
            m.mesh,
            m.template,
            fits.unwrap_or_else(|| m.template.clone()),
            m.status.as_str(),
            ceiling_cell(m.cd_j2j, cd_j2j_ceiling),
            ceiling_cell(m.deform_mean, deform_ceiling),
            m.cd_j2j.map_or("-".into(), |v| format!("{v:.3}")),
            m.deform_mean.map_or("-".into(), |v| format!("{v:.3}")),
        );
    }
    let low = measured
        .iter()
        .filter(|m| m.status == Status::LowConfidence)
        .count();
    let _ = writeln!(s, "{TOTAL_KEY}\t{low}");
    s
}
