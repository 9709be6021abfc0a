//! A small glob matcher for asset paths and names (watch-folder globs, `bench --filter`): `**` spans any number of folders (including none), `*`
//! and `?` stay within one path segment. Case-insensitive, `/`-separated, relative paths.

use std::path::Path;

/// A compiled glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    segments: Vec<String>,
}

impl Glob {
    /// Compile `pattern` (e.g. `**/*.obj`).
    pub fn new(pattern: &str) -> Self {
        Self {
            segments: pattern
                .split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_lowercase)
                .collect(),
        }
    }

    /// True if the relative path `rel` matches.
    pub fn matches(&self, rel: &Path) -> bool {
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_lowercase())
            .collect();
        match_segments(&self.segments, &parts)
    }
}

fn match_segments(pat: &[String], parts: &[String]) -> bool {
    match pat.split_first() {
        None => parts.is_empty(),
        Some((first, rest)) if first == "**" => {
            (0..=parts.len()).any(|skip| match_segments(rest, parts.get(skip..).unwrap_or(&[])))
        }
        Some((first, rest)) => match parts.split_first() {
            Some((part, more)) => {
                let p: Vec<char> = first.chars().collect();
                let s: Vec<char> = part.chars().collect();
                match_segment(&p, &s) && match_segments(rest, more)
            }
            None => false,
        },
    }
}

/// Wildcard match of one segment (`*` any run, `?` one character), iterative with backtracking.
fn match_segment(p: &[char], s: &[char]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, si));
                pi += 1;
            }
            Some(c) if *c == '?' || Some(c) == s.get(si) => {
                pi += 1;
                si += 1;
            }
            _ => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p.get(pi..).unwrap_or(&[]).iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Glob::new(p).matches(Path::new(s))
    }

    #[test]
    fn double_star_spans_zero_or_more_folders() {
        assert!(m("**/*.obj", "a.obj"));
        assert!(m("**/*.obj", "x/y/a.obj"));
        assert!(m("**/*.OBJ", "x/A.obj"));
        assert!(!m("**/*.obj", "a.objx"));
        assert!(!m("**/*.obj", "a.obj/b"));
        assert!(m("chars/**/*.ply", "chars/a/b/c.ply"));
        assert!(!m("chars/**/*.ply", "props/c.ply"));
    }

    #[test]
    fn star_and_question_stay_in_a_segment() {
        assert!(m("*quadruped*", "my_quadruped_2.obj"));
        assert!(!m("*.obj", "x/a.obj"));
        assert!(m("a?c.off", "abc.off"));
        assert!(!m("a?c.off", "ac.off"));
        assert!(m("**/*", "anything/at/all"));
    }
}
