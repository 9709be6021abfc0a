//! Joint-name tables: matching clip joints to our template's joints (Mixamo-style names, their
//! `mixamorig:` variants, CMU's MotionBuilder and ASF names, Poser/DAZ names), and the export naming
//! profiles (`--names mixamo|vrm|unity|godot`).
//!
//! Names are compared after [`normalize`]: namespace prefixes (`mixamorig:`, `Armature|`) removed,
//! lower case, separators dropped. Side-specific aliases are written once with `{s}` (`left` /
//! `right`) and `{c}` (`l` / `r`).

/// A role (our human template's joint name) and its aliases, most specific first. `Left*` roles
/// stand for both sides.
const HUMAN_ALIASES: &[(&str, &[&str])] = &[
    ("Hips", &["hips", "hip", "pelvis", "root"]),
    ("Spine", &["spine", "abdomen", "lowerback", "spine01"]),
    ("Spine1", &["spine1", "upperback", "chest", "spine02"]),
    (
        "Spine2",
        &["spine2", "thorax", "upperchest", "chest2", "spine03"],
    ),
    ("Neck", &["neck", "lowerneck", "neck01"]),
    ("Head", &["head"]),
    (
        "HeadTop_End",
        &["headtopend", "headend", "headtop", "head1end"],
    ),
    (
        "LeftShoulder",
        &[
            "{s}shoulder",
            "{c}clavicle",
            "{s}clavicle",
            "{c}collar",
            "{s}collar",
        ],
    ),
    (
        "LeftArm",
        &[
            "{s}arm",
            "{s}upperarm",
            "{c}humerus",
            "{c}shldr",
            "upperarm{c}",
            "{c}upperarm",
        ],
    ),
    (
        "LeftForeArm",
        &[
            "{s}forearm",
            "{s}lowerarm",
            "{c}radius",
            "{c}forearm",
            "lowerarm{c}",
            "{c}elbow",
        ],
    ),
    ("LeftHand", &["{s}hand", "{c}wrist", "{c}hand", "hand{c}"]),
    (
        "LeftHand_End",
        &[
            "{s}handend",
            "{s}handmiddle1",
            "{s}fingerbase",
            "{c}handend",
            "{c}fingers",
        ],
    ),
    (
        "LeftUpLeg",
        &[
            "{s}upleg",
            "{s}upperleg",
            "{c}femur",
            "{c}thigh",
            "{s}thigh",
            "thigh{c}",
            "{s}hip",
        ],
    ),
    (
        "LeftLeg",
        &[
            "{s}leg",
            "{s}lowerleg",
            "{c}tibia",
            "{c}shin",
            "calf{c}",
            "{s}knee",
            "{c}knee",
        ],
    ),
    (
        "LeftFoot",
        &["{s}foot", "{c}foot", "{s}ankle", "{c}ankle", "foot{c}"],
    ),
    (
        "LeftToeBase",
        &[
            "{s}toebase",
            "{s}toes",
            "{c}toes",
            "{s}toe",
            "{c}toe",
            "{c}toebase",
        ],
    ),
    (
        "LeftToe_End",
        &[
            "{s}toeend",
            "{s}toebaseend",
            "{s}toesend",
            "{c}toesend",
            "{c}toeend",
        ],
    ),
];

/// Strip namespaces (`mixamorig:Hips`, `Armature|Hips`), lower-case, drop separators.
pub fn normalize(name: &str) -> String {
    let base = name.rsplit([':', '|']).next().unwrap_or(name);
    base.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Every (role, aliases) pair with both sides expanded.
pub fn human_roles() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (role, aliases) in HUMAN_ALIASES {
        let expand = |s: &str, c: &str| -> Vec<String> {
            aliases
                .iter()
                .map(|a| a.replace("{s}", s).replace("{c}", c))
                .collect()
        };
        if let Some(rest) = role.strip_prefix("Left") {
            out.push((role.to_string(), expand("left", "l")));
            out.push((format!("Right{rest}"), expand("right", "r")));
        } else {
            out.push((role.to_string(), expand("", "")));
        }
    }
    out
}

/// For each role, the index of the first name in `names` matching its aliases in priority order
/// (each name used at most once).
pub fn match_roles(names: &[String]) -> Vec<(String, usize)> {
    let normalized: Vec<String> = names.iter().map(|n| normalize(n)).collect();
    let mut used = vec![false; names.len()];
    let mut out = Vec::new();
    for (role, aliases) in human_roles() {
        let hit = aliases.iter().find_map(|a| {
            normalized
                .iter()
                .enumerate()
                .find(|(i, n)| !used[*i] && *n == a)
                .map(|(i, _)| i)
        });
        if let Some(i) = hit {
            used[i] = true;
            out.push((role, i));
        }
    }
    out
}

/// Swap `Left`/`Right` in a role name.
pub fn mirror_role(role: &str) -> String {
    if let Some(r) = role.strip_prefix("Left") {
        format!("Right{r}")
    } else if let Some(r) = role.strip_prefix("Right") {
        format!("Left{r}")
    } else {
        role.to_owned()
    }
}

/// Export naming profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum NameProfile {
    /// Our names (Mixamo-style, no prefix).
    Geppetto,
    /// Mixamo: `mixamorig:` + our names.
    Mixamo,
    /// VRM 1.0 humanoid bone names (`hips`, `leftUpperArm`, …).
    Vrm,
    /// Unity Mecanim `HumanBodyBones` names (`Hips`, `LeftUpperArm`, …).
    Unity,
    /// Godot `SkeletonProfileHumanoid` bone names.
    Godot,
}

/// Our role → VRM 1.0 humanoid bone; Unity and Godot use the same words capitalized.
const HUMANOID: &[(&str, &str)] = &[
    ("Hips", "hips"),
    ("Spine", "spine"),
    ("Spine1", "chest"),
    ("Spine2", "upperChest"),
    ("Neck", "neck"),
    ("Head", "head"),
    ("LeftShoulder", "leftShoulder"),
    ("LeftArm", "leftUpperArm"),
    ("LeftForeArm", "leftLowerArm"),
    ("LeftHand", "leftHand"),
    ("LeftUpLeg", "leftUpperLeg"),
    ("LeftLeg", "leftLowerLeg"),
    ("LeftFoot", "leftFoot"),
    ("LeftToeBase", "leftToes"),
    ("RightShoulder", "rightShoulder"),
    ("RightArm", "rightUpperArm"),
    ("RightForeArm", "rightLowerArm"),
    ("RightHand", "rightHand"),
    ("RightUpLeg", "rightUpperLeg"),
    ("RightLeg", "rightLowerLeg"),
    ("RightFoot", "rightFoot"),
    ("RightToeBase", "rightToes"),
];

/// The 15 bones VRM 1.0 and Unity's humanoid avatar require (VRM 1.0 spec, "humanoid"; Unity
/// `HumanTrait.RequiredBone`), in VRM spelling.
pub const REQUIRED_HUMANOID: [&str; 15] = [
    "hips",
    "spine",
    "head",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
];

/// Export name of our joint `name` under `profile`. `mirrored` says the rig's `Left*` joints are on
/// the character's anatomical right (see [`crate::motion::retarget::labels_mirrored`]); the
/// engine-side names are anatomical, so they swap. Joints outside the table keep their name.
pub fn export_name(name: &str, profile: NameProfile, mirrored: bool) -> String {
    let role = if mirrored {
        mirror_role(name)
    } else {
        name.to_owned()
    };
    let humanoid = HUMANOID.iter().find(|(ours, _)| *ours == role).map(|e| e.1);
    match (profile, humanoid) {
        (NameProfile::Geppetto, _) => name.to_owned(),
        (NameProfile::Mixamo, _) => format!("mixamorig:{role}"),
        (NameProfile::Vrm, Some(v)) => v.to_owned(),
        (NameProfile::Unity | NameProfile::Godot, Some(v)) => capitalize(v),
        (_, None) => name.to_owned(),
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn matches_mixamo_cmu_and_asf_names() {
        let mixamo = names(&[
            "mixamorig:Hips",
            "mixamorig:LeftUpLeg",
            "mixamorig:RightForeArm",
        ]);
        let m = match_roles(&mixamo);
        assert!(m.contains(&("LeftUpLeg".into(), 1)) && m.contains(&("RightForeArm".into(), 2)));
        let cmu = names(&[
            "Hips",
            "LHipJoint",
            "LeftUpLeg",
            "LowerBack",
            "Spine",
            "Spine1",
        ]);
        let m = match_roles(&cmu);
        assert!(m.contains(&("LeftUpLeg".into(), 2)));
        assert!(m.contains(&("Spine".into(), 4)) && m.contains(&("Spine1".into(), 5)));
        assert!(
            !m.iter().any(|(_, i)| *i == 1),
            "LHipJoint is not a leg joint"
        );
        let asf = names(&["root", "lfemur", "rtibia", "lhumerus", "thorax"]);
        let m = match_roles(&asf);
        for role in ["Hips", "LeftUpLeg", "RightLeg", "LeftArm", "Spine2"] {
            assert!(
                m.iter().any(|(r, _)| r == role),
                "{role} unmatched in {m:?}"
            );
        }
    }

    #[test]
    fn vrm_and_unity_profiles_cover_the_required_bones() {
        let template = crate::skeleton::load_template("human").unwrap();
        let ours: Vec<&str> = template.joints.iter().map(|j| j.name.as_str()).collect();
        for mirrored in [false, true] {
            let vrm: Vec<String> = ours
                .iter()
                .map(|n| export_name(n, NameProfile::Vrm, mirrored))
                .collect();
            let unity: Vec<String> = ours
                .iter()
                .map(|n| export_name(n, NameProfile::Unity, mirrored))
                .collect();
            for req in REQUIRED_HUMANOID {
                assert!(vrm.iter().any(|n| n == req), "VRM lacks {req}");
                assert!(
                    unity.iter().any(|n| *n == capitalize(req)),
                    "Unity lacks {req}"
                );
            }
            let mut uniq = vrm.clone();
            uniq.sort();
            uniq.dedup();
            assert_eq!(uniq.len(), vrm.len(), "duplicate export names");
        }
        assert_eq!(
            export_name("LeftArm", NameProfile::Vrm, true),
            "rightUpperArm"
        );
        assert_eq!(
            export_name("Hips", NameProfile::Mixamo, false),
            "mixamorig:Hips"
        );
    }
}
