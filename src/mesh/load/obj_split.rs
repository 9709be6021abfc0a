//! A big OBJ's lines read on every core: the file is cut into runs of whole lines, each run read
//! on its own ([`read_run`]), and the runs joined in file order. Only two things in an OBJ carry
//! from one line to later ones: the counts that negative (relative) indices count back from, and
//! the `usemtl` in force. A run reads its relative indices against its own counts and marks them,
//! and lists the faces it read before its first `usemtl`; joining shifts the one and gives the
//! other the material in force where the run starts. Line numbers count the lines before the run.
//! So the joined statements, and the first error in file order, are one pass's, bit for bit,
//! whatever the number of runs (and so of threads).

use rayon::prelude::*;

use super::obj::{material_index, read_run, Run};
use super::LoadError;

/// Bytes per run at least: a run costs a task and a copy of its lists into the joined ones, so a
/// small file is read in one pass.
const MIN_RUN_BYTES: usize = 1 << 16;

/// The statements of `bytes`, read in one run per core (at most one per [`MIN_RUN_BYTES`]).
pub(super) fn read_runs(bytes: &[u8]) -> Result<Run, LoadError> {
    let runs = rayon::current_num_threads().min(bytes.len() / MIN_RUN_BYTES);
    read_runs_in(bytes, runs.max(1))
}

/// The statements of `bytes`, read in (at most) `runs` runs and joined.
pub(super) fn read_runs_in(bytes: &[u8], runs: usize) -> Result<Run, LoadError> {
    let cuts = cuts(bytes, runs);
    let mut before = 0;
    let pieces: Vec<(&[u8], usize)> = cuts
        .windows(2)
        .map(|w| {
            let piece = &bytes[w[0]..w[1]];
            let first_line = before;
            before += piece.iter().filter(|&&b| b == b'\n').count();
            (piece, first_line)
        })
        .collect();
    let read: Vec<Result<Run, LoadError>> = pieces
        .into_par_iter()
        .map(|(piece, first_line)| read_run(piece, first_line))
        .collect();
    let mut read = read.into_iter();
    let mut all = read.next().unwrap_or_else(|| Ok(Run::default()))?;
    for run in read {
        join(&mut all, run?);
    }
    Ok(all)
}

/// Run boundaries (0, …, `bytes.len()`), each just after a line end that does not continue the
/// line (`\` before it, as [`super::text::logical_lines`] reads continuation), near equal parts.
fn cuts(bytes: &[u8], runs: usize) -> Vec<usize> {
    let mut out = vec![0];
    for k in 1..runs {
        let from = (bytes.len() * k / runs).max(*out.last().unwrap_or(&0));
        if let Some(cut) = line_end_after(bytes, from) {
            if cut > *out.last().unwrap_or(&0) && cut < bytes.len() {
                out.push(cut);
            }
        }
    }
    out.push(bytes.len());
    out
}

/// The position just after the first `\n` at or after `from` that ends a line not continued on
/// the next one, if any.
fn line_end_after(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let nl = at + bytes.get(at..)?.iter().position(|&b| b == b'\n')?;
        let raw = &bytes[..nl];
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.last() != Some(&b'\\') {
            return Some(nl + 1);
        }
        at = nl + 1;
    }
}

/// Append `run` (read after everything in `all`) to `all`: its relative indices shifted by what
/// `all` defined, its materials renumbered into `all`'s list, its leading faces given the
/// material in force at its start.
fn join(all: &mut Run, run: Run) {
    let shift = |n: usize| n as i64;
    let (nv, nvt, nvn) = (
        shift(all.positions.len()),
        shift(all.ex.uvs.len()),
        shift(all.ex.normals.len()),
    );
    let first_corner = all.corners.len();
    let names: Vec<usize> = run
        .ex
        .material_names
        .into_iter()
        .map(|name| material_index(&mut all.ex, name))
        .collect();
    let in_force = all.last_material;
    for (k, mut face) in run.faces.into_iter().enumerate() {
        face.start += first_corner;
        face.end += first_corner;
        face.material = if k < run.inherited {
            in_force
        } else {
            face.material.map(|m| names[m])
        };
        all.faces.push(face);
    }
    if let Some(m) = run.last_material {
        all.last_material = Some(names[m]);
    }
    let moved = |i: i64, rel: u8, bit: u8, n: i64| if rel & bit != 0 { i + n } else { i };
    for ((v, vt, vn), rel) in run.corners.into_iter().zip(run.relative) {
        all.corners.push((
            moved(v, rel, 1, nv),
            vt.map(|i| moved(i, rel, 2, nvt)),
            vn.map(|i| moved(i, rel, 4, nvn)),
        ));
        all.relative.push(rel);
    }
    all.positions.extend(run.positions);
    all.ex.uvs.extend(run.ex.uvs);
    all.ex.normals.extend(run.ex.normals);
    all.ex.mtllibs.extend(run.ex.mtllibs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Everything a run says, comparable (errors as their text and line).
    fn said(r: Result<Run, LoadError>) -> String {
        match r {
            Err(e) => format!("error {e:?}"),
            Ok(r) => {
                let faces: Vec<_> = r
                    .faces
                    .iter()
                    .map(|f| (f.line, f.start, f.end, f.material))
                    .collect();
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                    r.positions
                        .iter()
                        .map(|p| [p.x, p.y, p.z].map(f64::to_bits))
                        .collect::<Vec<_>>(),
                    r.corners,
                    faces,
                    r.ex.uvs
                        .iter()
                        .map(|u| u.map(f32::to_bits))
                        .collect::<Vec<_>>(),
                    r.ex.normals
                        .iter()
                        .map(|n| n.map(f32::to_bits))
                        .collect::<Vec<_>>(),
                    r.ex.material_names,
                    r.ex.mtllibs,
                )
            }
        }
    }

    const LINES: [&str; 16] = [
        "v 1 2 3",
        "v -0.5 0.25 1e-3",
        "vt 0.5 0.5",
        "vn 0 0 1",
        "f 1 2 3",
        "f -1 -2 -3 -4",
        "f 1/1/1 2/-1/-1 3//1",
        "f 2/-2 -1//-1 1",
        "usemtl skin",
        "usemtl cloth",
        "mtllib a b.mtl",
        "# comment v 9 9 9",
        "v 1 2 \\",
        "",
        "f 1 2",
        "v 1 x 3",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn runs_read_what_one_pass_reads(
            picks in prop::collection::vec((0..LINES.len(), any::<bool>()), 0..60),
            runs in 1usize..6,
        ) {
            let mut text = Vec::new();
            for (i, crlf) in picks {
                text.extend_from_slice(LINES[i].as_bytes());
                text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
            prop_assert_eq!(said(read_runs_in(&text, runs)), said(read_run(&text, 0)));
        }
    }

    #[test]
    fn a_cut_never_splits_a_continued_line() {
        let text = b"v 1 2 \\\n3\nv 4 5 \\\r\n6\nf 1 2 3\n";
        for runs in 1..8 {
            for &c in &cuts(text, runs) {
                assert!(
                    c == 0 || c == text.len() || c == 10 || c == 21,
                    "cut at {c}"
                );
            }
        }
    }
}
