//! Range checks of an engine configuration file. The engine would otherwise take any number: a
//! zero heat constant left every vertex without heat, a NaN penalty weight vetoed every
//! placement, `max_influences: 0` and a negative tolerance were clamped without a word. A value
//! outside its range is a typo, so it is refused with the file, the setting and the rule.

use std::path::Path;

use super::{ConfigError, RigConfig};
use crate::discretize::DiscretizeOptions;

/// Deepest octree level the lattice keys can address (`discretize::octree`).
const MAX_DEPTH: u32 = 19;

/// Shallowest useful octree: below it the cells are larger than a limb of a character whose
/// largest side is 0.9 (2⁻⁴ = 0.06 is about a forearm's thickness), and the rig comes out with
/// bones no vertex can see.
const MIN_DEPTH: u32 = 5;

/// Largest τ the discretization uses (`DiscretizeOptions::tol`).
const MAX_TOLERANCE: f64 = 0.1;

/// One rule: `ok(value)` or the message `rule`.
struct Rule<'a> {
    setting: &'a str,
    value: f64,
    ok: bool,
    rule: &'a str,
}

impl RigConfig {
    /// Every value in its range, else [`ConfigError::OutOfRange`] naming `path` and the setting.
    pub fn check(&self, path: &Path) -> Result<(), ConfigError> {
        let tol_rule = format!(
            "it must be between {} and {MAX_TOLERANCE} (normalized units: the model's largest side is 0.9)",
            DiscretizeOptions::MIN_TOLERANCE
        );
        let depth_rule = format!("it must be an integer from {MIN_DEPTH} to {MAX_DEPTH}");
        let terms = crate::embed::PENALTY_TERMS;
        let names: Vec<String> = terms.iter().map(|t| format!("penalties.{t}")).collect();
        let mut rules = self.discretize_and_search_rules(&tol_rule, &depth_rule);
        rules.extend(self.skin_rules());
        for (name, w) in names.iter().zip(self.penalties.as_array()) {
            rules.push(Rule {
                setting: name,
                value: w,
                ok: w.is_finite() && w >= 0.0,
                rule: "a penalty weight must be a number ≥ 0",
            });
        }
        match rules.into_iter().find(|r| !r.ok) {
            Some(r) => Err(ConfigError::OutOfRange {
                path: path.to_path_buf(),
                setting: r.setting.to_owned(),
                value: r.value.to_string(),
                rule: r.rule.to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// The `discretize` and `search` sections' rules.
    fn discretize_and_search_rules<'a>(
        &self,
        tol_rule: &'a str,
        depth_rule: &'a str,
    ) -> Vec<Rule<'a>> {
        let d = &self.discretize;
        let b = &self.search;
        vec![
            Rule {
                setting: "discretize.tolerance",
                value: d.tolerance,
                ok: (DiscretizeOptions::MIN_TOLERANCE..=MAX_TOLERANCE).contains(&d.tolerance),
                rule: tol_rule,
            },
            Rule {
                setting: "discretize.max_depth",
                value: f64::from(d.max_depth),
                ok: (MIN_DEPTH..=MAX_DEPTH).contains(&d.max_depth),
                rule: depth_rule,
            },
            positive_count("discretize.max_spheres", d.max_spheres as f64),
            positive_count("search.max_nodes", b.max_nodes as f64),
            positive_count(
                "search.work_per_joint_vertex",
                b.work_per_joint_vertex as f64,
            ),
            positive_count("search.safety_millis", b.safety_millis as f64),
        ]
    }

    /// The `skin` section's rules.
    fn skin_rules(&self) -> Vec<Rule<'static>> {
        let s = &self.skin;
        vec![
            Rule {
                setting: "skin.heat",
                value: s.heat,
                ok: s.heat.is_finite() && s.heat > 0.0,
                rule: "it must be a positive number (c in H = c/d²; 1 is the original's)",
            },
            fraction("skin.prune", s.prune),
            positive_count("skin.max_influences", s.max_influences as f64),
            fraction("skin.relative_prune", s.relative_prune),
            Rule {
                setting: "skin.rigid_share",
                value: s.rigid_share,
                ok: s.rigid_share.is_finite() && s.rigid_share >= 0.0,
                rule: "it must be a number ≥ 0 (a share of the weight; above 1: never)",
            },
        ]
    }
}

fn positive_count(setting: &str, value: f64) -> Rule<'_> {
    Rule {
        setting,
        value,
        ok: value >= 1.0,
        rule: "it must be at least 1",
    }
}

fn fraction(setting: &str, value: f64) -> Rule<'_> {
    Rule {
        setting,
        value,
        ok: (0.0..1.0).contains(&value),
        rule: "it must be a fraction from 0 up to (not including) 1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in file with `key: value` put in place of that setting's line.
    fn with(key: &str, value: &str) -> String {
        let mut done = false;
        let text: Vec<String> = super::super::DEFAULT_RIG_YAML
            .lines()
            .map(|l| {
                if !done && l.trim_start().starts_with(&format!("{key}:")) {
                    done = true;
                    format!("  {key}: {value}")
                } else {
                    l.to_owned()
                }
            })
            .collect();
        assert!(done, "{key} is in config/rig.yaml");
        text.join("\n")
    }

    #[test]
    fn out_of_range_values_are_refused_with_file_and_setting() {
        for (key, value, setting) in [
            ("heat", "0", "skin.heat"),
            ("heat", "-1", "skin.heat"),
            ("prune", "1", "skin.prune"),
            ("max_influences", "0", "skin.max_influences"),
            ("relative_prune", "2", "skin.relative_prune"),
            ("tolerance", "-1", "discretize.tolerance"),
            ("tolerance", "0", "discretize.tolerance"),
            ("max_depth", "0", "discretize.max_depth"),
            ("max_depth", "40", "discretize.max_depth"),
            ("max_spheres", "0", "discretize.max_spheres"),
            ("length", "-5", "penalties.length"),
            ("length", ".nan", "penalties.length"),
            ("max_nodes", "0", "search.max_nodes"),
            ("safety_millis", "0", "search.safety_millis"),
        ] {
            let e = RigConfig::parse(&with(key, value), Path::new("mine.yaml"))
                .expect_err(&format!("{key}: {value} is refused"))
                .to_string();
            assert!(
                e.starts_with("mine.yaml: ") && e.contains(&format!("`{setting}`")),
                "{key}: {value}: {e}"
            );
        }
    }

    #[test]
    fn a_partial_file_keeps_the_built_in_values() {
        let c = RigConfig::parse("skin:\n  heat: 2\n", Path::new("mine.yaml")).unwrap();
        let d = RigConfig::default();
        assert_eq!(c.skin.heat, 2.0);
        assert_eq!(c.penalties, d.penalties);
        assert_eq!(c.search, d.search);
        assert_eq!(c.discretize, d.discretize);
        let c = RigConfig::parse("penalties:\n  foot: 0.02\n", Path::new("mine.yaml")).unwrap();
        assert_eq!(c.penalties.foot, 0.02);
        assert_eq!(c.penalties.length, d.penalties.length);
    }

    #[test]
    fn the_built_in_file_equals_the_code_defaults() {
        // A partial file is filled from the code's defaults: they must be the file's values.
        let d = RigConfig::default();
        assert_eq!(d.penalties, super::super::PenaltyWeights::default());
        assert_eq!(d.search, super::super::SearchBudget::default());
        assert_eq!(d.discretize, DiscretizeOptions::default());
        assert_eq!(d.skin, crate::skin::SkinOptions::default());
    }
}
