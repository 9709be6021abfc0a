//! The interactive-rigging facts sheet §10 checks not covered by `edit_local.rs`: neutral handles,
//! exact locality (rows and columns), the region rules, alignment invariants, factorization reuse,
//! and the replay of the edits sidecar when the pipeline re-rigs a (corpus) mesh.

mod edit_common;

use std::collections::{BTreeSet, VecDeque};

use edit_common::common::{corpus_mesh, skip};
use edit_common::*;
use geppetto::config::RigConfig;
use geppetto::edit::region::{computing_region, Adjacency, BAND_RINGS};
use geppetto::edit::sidecar::{sidecar_path, EditLog, VERSION};
use geppetto::edit::EditOp;
use geppetto::geom::V3;
use geppetto::pipeline::{Pipeline, RigRequest};
use geppetto::progress::NoProgress;

/// Bitwise equality of weight tables (`==` on f64 would also accept −0 = +0).
fn same_bits(a: &[Vec<(u32, f64)>], b: &[Vec<(u32, f64)>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| p.0 == q.0 && p.1.to_bits() == q.1.to_bits())
        })
}

fn weight(row: &[(u32, f64)], j: u32) -> f64 {
    row.iter().find(|e| e.0 == j).map_or(0.0, |e| e.1)
}

#[test]
fn handles_created_on_their_joints_change_no_weight() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let before = s.welded_rows().to_vec();
    let out = s
        .apply(&EditOp::Handle {
            joint: "j4".into(),
            offset: [0.0; 3],
        })
        .expect("handle");
    assert!(
        same_bits(&before, s.welded_rows()),
        "a handle on its joint changed weights"
    );
    assert_eq!(
        out.region, 0,
        "a neutral handle re-solved {} vertices",
        out.region
    );
    // A handle moved away and back: the weights return to within round-off.
    for offset in [[0.0, 0.3, 0.0], [0.0; 3]] {
        s.apply(&EditOp::Handle {
            joint: "j4".into(),
            offset,
        })
        .expect("handle");
    }
    let d = max_diff(&before, s.welded_rows());
    assert!(d < 1e-9, "a handle moved and put back drifted by {d}");
}

#[test]
fn weights_outside_the_region_and_columns_outside_the_recomputed_set_are_bit_identical() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let before = s.welded_rows().to_vec();
    let j6 = joints()[6].position;
    let out = s.apply(&mv("j6", [0.1, j6[1] + 0.2, 0.0])).expect("move");
    let after = s.welded_rows().to_vec();
    let m = after.len();
    let region: BTreeSet<u32> = s.last_region().iter().copied().collect();
    let columns = s.last_columns().to_vec();
    eprintln!(
        "move j6: d = {} of m = {m}, {} columns recomputed ({:?})",
        region.len(),
        columns.len(),
        columns
    );
    assert_eq!(region.len(), out.region);
    assert!(
        region.len() < m * 3 / 5,
        "the region is not local: {}",
        region.len()
    );
    let mut changed = 0;
    for v in 0..m {
        if !region.contains(&(v as u32)) {
            assert!(
                same_bits(&before[v..=v], &after[v..=v]),
                "vertex {v} changed"
            );
        } else if before[v] != after[v] {
            changed += 1;
        }
    }
    assert!(changed > 0, "the move changed nothing");
    assert!(columns.len() < JOINTS - 1, "every column was recomputed");
    for j in (0..JOINTS as u32).filter(|j| columns.binary_search(j).is_err()) {
        for v in 0..m {
            let (a, b) = (weight(&before[v], j), weight(&after[v], j));
            assert_eq!(a.to_bits(), b.to_bits(), "column {j} changed at {v}");
        }
    }
}

/// Vertices within `rings` edge hops of `from`, moving only through `inside`.
fn band(adj: &Adjacency, inside: &[bool], from: &[usize], rings: usize) -> BTreeSet<u32> {
    let mut depth = vec![usize::MAX; inside.len()];
    let mut queue: VecDeque<usize> = from.iter().copied().collect();
    for &v in from {
        depth[v] = 0;
    }
    while let Some(v) = queue.pop_front() {
        if depth[v] == rings {
            continue;
        }
        for &u in adj.of(v) {
            let u = u as usize;
            if inside[u] && depth[u] == usize::MAX {
                depth[u] = depth[v] + 1;
                queue.push_back(u);
            }
        }
    }
    (0..inside.len())
        .filter(|&v| depth[v] != usize::MAX)
        .map(|v| v as u32)
        .collect()
}

#[test]
fn the_region_is_grown_until_its_border_is_cold_then_trimmed_to_a_four_ring_band() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let m = f.mesh.positions.len();
    let adj = Adjacency::new(m, &f.mesh.triangles);
    // Moving j4 watches its own column and its parent's (the bones at j4, facts §9.5).
    let (seed, watch) = (4usize, [3u32, 4]);
    // "Zero" is tested on the raw heat solution (before clipping and pruning).
    let eps = s.eps();
    let rows = s.raw_rows().to_vec();
    let hot = |v: usize| rows[v].iter().any(|e| e.1 > eps && watch.contains(&e.0));
    let region_of = s.regions().to_vec();
    let c = computing_region(&adj, &region_of, &[seed], &hot);
    // Γ = the corresponding regions of the seed and of every joint C reaches (each region the
    // growth added has a vertex next to a hot one, so it meets C).
    let mut grown: BTreeSet<u32> = c.iter().map(|&v| region_of[v as usize]).collect();
    grown.insert(seed as u32);
    let gamma: Vec<bool> = region_of.iter().map(|r| grown.contains(r)).collect();
    assert!(grown.len() > 1, "the region never grew: {grown:?}");
    // Growth rule: no hot vertex of Γ has a neighbour outside Γ.
    for v in (0..m).filter(|&v| gamma[v] && hot(v)) {
        for &u in adj.of(v) {
            assert!(gamma[u as usize], "hot vertex {v} on the border of Γ");
        }
    }
    // Trim rule: C is exactly the hot vertices of Γ and those within BAND_RINGS hops of them.
    let hot_in: Vec<usize> = (0..m).filter(|&v| gamma[v] && hot(v)).collect();
    let want = band(&adj, &gamma, &hot_in, BAND_RINGS);
    let got: BTreeSet<u32> = c.iter().copied().collect();
    assert_eq!(
        got, want,
        "the trimmed region is not the hot set plus its band"
    );
    let cold = got.iter().filter(|&&v| !hot(v as usize)).count();
    let gamma_n = gamma.iter().filter(|&&g| g).count();
    assert!(
        cold > 0 && got.len() < gamma_n,
        "no band or nothing trimmed"
    );
    // The edit solves at least that region; the corresponding regions do not move with a joint.
    let j4 = joints()[4].position;
    s.apply(&mv("j4", [0.1, j4[1] + 0.2, 0.0])).expect("move");
    let solved: BTreeSet<u32> = s.last_region().iter().copied().collect();
    assert!(
        got.is_subset(&solved),
        "the edit solved less than the rule's region"
    );
    assert_eq!(
        s.regions(),
        &region_of[..],
        "regions changed on a joint move"
    );
    s.apply(&EditOp::InsertJoint {
        child: "j6".into(),
        at: 0.5,
        name: "j56".into(),
    })
    .expect("insert");
    assert_ne!(
        s.regions(),
        &region_of[..],
        "regions did not change on insert"
    );
}

#[test]
fn an_aligned_chain_lies_on_one_plane_through_its_fixed_ends() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    s.apply(&mv("j3", [0.12, 2.95, 0.03])).expect("bend");
    s.apply(&mv("j4", [0.1, 3.9, -0.06])).expect("bend");
    s.apply(&mv("j5", [0.04, 4.8, 0.09])).expect("bend");
    let names = ["j2", "j3", "j4", "j5", "j6"];
    let before = s.joints.clone();
    let out = s
        .apply(&EditOp::Align {
            joints: names.map(String::from).to_vec(),
        })
        .expect("align");
    let up = out.up.expect("the shared up-vector");
    let p = |i: usize| V3::from(s.joints[i].position);
    let (h, l) = (p(2), p(6));
    assert_eq!(s.joints[2].position, before[2].position, "J_h moved");
    assert_eq!(s.joints[6].position, before[6].position, "J_l moved");
    let normal = (l - h).cross(&V3::from(up)).normalize();
    let bbox = (LEN + 2.0 * R).hypot(2.0 * R);
    for i in 2..=6 {
        let off = (p(i) - h).dot(&normal).abs();
        assert!(off <= 1e-9 * bbox, "joint j{i} is {off} off the plane");
    }
    // Moved joints: their weights were re-solved and still sum to one.
    assert!(out.region > 0);
    assert_unity(s.welded_rows());
}

#[test]
fn reused_factorizations_give_the_same_bits_as_fresh_ones() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let j4 = joints()[4].position;
    s.apply(&mv("j4", [0.08, j4[1] + 0.1, 0.0])).expect("move");
    // A global refresh after a move: same pattern as the session's first solve (analysis
    // reused), new heat diagonal (numeric factorization redone).
    let mut fresh = s.clone();
    fresh.clear_cache();
    let a = s.global().expect("global");
    let b = fresh.global().expect("fresh global");
    assert_eq!((a.times.symbolic_reused, b.times.symbolic_reused), (1, 0));
    assert!(same_bits(s.welded_rows(), fresh.welded_rows()));
    // A second refresh with nothing changed: the whole factor is reused.
    let again = s.global().expect("global again");
    assert_eq!(again.times.numeric_reused, 1);
    assert!(same_bits(s.welded_rows(), fresh.welded_rows()));
    // A local edit whose region and matrix repeat: the same move a second and third time (the
    // third starts from the weights of the second, equal up to round-off: same region).
    let to = mv("j4", [0.08, j4[1] + 0.1, 0.0]);
    s.apply(&to).expect("same move");
    let mut fresh = s.clone();
    fresh.clear_cache();
    let a = s.apply(&to).expect("same move again");
    let b = fresh.apply(&to).expect("same move, fresh");
    assert!(a.times.numeric_reused >= 1, "{:?}", a.times);
    assert_eq!(b.times.numeric_reused + b.times.symbolic_reused, 0);
    assert!(same_bits(s.welded_rows(), fresh.welded_rows()));
}

#[test]
fn a_drag_solves_on_one_frozen_region_and_reuses_its_analysis() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    let mut fresh = s.clone();
    let j4 = joints()[4].position;
    let steps: Vec<_> = (1..=4)
        .map(|i| mv("j4", [0.02 * i as f64, j4[1] + 0.01 * i as f64, 0.0]))
        .collect();
    let mut regions = Vec::new();
    for (i, op) in steps.iter().enumerate() {
        let a = s.apply(op).expect("drag step");
        fresh.clear_cache();
        fresh.apply(op).expect("fresh step");
        assert!(same_bits(s.welded_rows(), fresh.welded_rows()), "step {i}");
        regions.push(s.last_region().to_vec());
        if i > 0 {
            assert!(a.times.symbolic_reused >= 1, "step {i}: {:?}", a.times);
        }
    }
    assert!(
        regions.windows(2).all(|w| w[0] == w[1]),
        "the drag region moved"
    );
    // Solving a superset of the rule region keeps the local result close to the global one.
    let mut g = s.clone();
    g.global().expect("global");
    let d = max_diff(s.welded_rows(), g.welded_rows());
    assert!(d < s.eps(), "the drag drifted from the global solve by {d}");
}

#[test]
fn the_pipeline_replays_the_sidecar_on_a_re_rig_and_reports_a_stale_edit() {
    let Some(src) = corpus_mesh("knight") else {
        return skip("the corpus mesh knight is not available");
    };
    let dir = tempfile::tempdir().expect("tmp");
    let mesh = dir.path().join("knight.obj");
    std::fs::copy(&src, &mesh).expect("copy the mesh");
    let pipeline = Pipeline::new(RigConfig::default());
    let req = RigRequest::with_sidecar(&mesh, template()).expect("request");
    let base = pipeline.rig(&req, &NoProgress).expect("rig");
    let find = |joints: &[geppetto::rig::RigJoint], n: &str| {
        joints.iter().position(|j| j.name == n).expect(n)
    };
    let k = find(&base.rig.joints, "LeftForeArm");
    let p = base.rig.joints[k].position;
    let to = [p[0], p[1] + 0.03 * extent(&base.rig.joints), p[2]];
    let log = EditLog {
        version: VERSION,
        edits: vec![
            mv("LeftForeArm", to),
            EditOp::Magnitude {
                joint: "Head".into(),
                c: 1.5,
            },
            mv("NoSuchJoint", [0.0; 3]),
        ],
    };
    log.save(&sidecar_path(&mesh)).expect("save the sidecar");
    let edited = pipeline.rig(&req, &NoProgress).expect("re-rig");
    let joints = &edited.rig.joints;
    assert_eq!(joints[find(joints, "LeftForeArm")].position, to);
    let w = &edited.rig.warnings;
    assert!(
        w.iter().any(|m| m.contains("2 of 3 edits")),
        "no replay summary in {w:?}"
    );
    assert!(
        w.iter().any(|m| m.contains("NoSuchJoint")),
        "the stale edit was not reported: {w:?}"
    );
    let (a, b) = (base.rig.skin.expect("skin"), edited.rig.skin.expect("skin"));
    assert_ne!(a, b, "the replayed edits did not change the weights");
    for row in &b {
        let sum: f64 = row.iter().map(|e| e.1).sum();
        assert!((sum - 1.0).abs() < 1e-9, "a row sums to {sum}");
    }
}

fn template() -> geppetto::choose::Template {
    geppetto::choose::Template::parse("human").expect("the human template")
}

/// Largest side of the joints' bounding box.
fn extent(joints: &[geppetto::rig::RigJoint]) -> f64 {
    (0..3)
        .map(|a| {
            let v = joints.iter().map(|j| j.position[a]);
            v.clone().fold(f64::MIN, f64::max) - v.fold(f64::MAX, f64::min)
        })
        .fold(0.0, f64::max)
}

/// Largest |Σ_j w_j − 1| over the vertices' raw heat solutions.
fn raw_unity_error(rows: &[Vec<(u32, f64)>]) -> f64 {
    rows.iter()
        .map(|r| (r.iter().map(|e| e.1).sum::<f64>() - 1.0).abs())
        .fold(0.0, f64::max)
}

#[test]
fn raw_weights_sum_to_one_before_clipping() {
    // Facts §10.1 (derived, §2.5): every column shares one matrix and Σ p = 1 where H > 0, so the
    // raw solutions sum to 1. Exact ties are the exception: like the original, every tied bone
    // gets the full heat term (Σ p > 1 there, the rows are renormalized), and the fixture's
    // joints j1, j3, … sit exactly on vertex rings; a quarter ring up, no vertex ties.
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let quarter = LEN / 120.0 / 4.0;
    let mut js = joints();
    for j in &mut js {
        j.position[1] += quarter;
    }
    let skin = geppetto::skin::skin_with_sdf(&f.mesh, &sdf, &js, &opts()).expect("skin");
    let mut s = geppetto::edit::Session::new(&f.mesh, &sdf, js.clone(), &skin, opts()).expect("s");
    let e = raw_unity_error(s.raw_rows());
    assert!(e < 1e-6, "base raw weights sum to 1 ± {e}");
    // Still so after edits and a global refresh (magnitude and range keep one matrix; smoothness
    // does not, so it is left out, and so is bending the chain: a vertex whose nearest point on
    // both bones at a bent joint is the joint itself ties exactly).
    s.apply(&EditOp::Handle {
        joint: "j5".into(),
        offset: [0.0, 0.3, 0.0],
    })
    .expect("range");
    s.apply(&EditOp::Magnitude {
        joint: "j2".into(),
        c: 2.0,
    })
    .expect("magnitude");
    s.global().expect("global");
    let e = raw_unity_error(s.raw_rows());
    assert!(e < 1e-6, "edited raw weights sum to 1 ± {e}");
}

/// `K x` for a symmetric matrix stored with both triangles.
fn mul(k: &geppetto::skin::laplacian::SymCsc, x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; k.n];
    for (c, xc) in x.iter().enumerate().take(k.n) {
        for i in k.col_ptr[c]..k.col_ptr[c + 1] {
            out[k.row_idx[i]] += k.values[i] * xc;
        }
    }
    out
}

#[test]
fn smoothness_lowers_the_thin_plate_excess_of_the_edited_weights() {
    // Facts §10.13 [derived]: the column solves min (w−p)ᵀMH(w−p) + (1−b) wᵀKw + b wᵀKM⁻¹Kw, so
    // g(w) = wᵀKM⁻¹Kw − wᵀKw cannot rise with b (the one quantity guaranteed to move one way).
    use geppetto::skin::laplacian::{one_ring_areas, stiffness};
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let s = session(&f.mesh, &sdf);
    let n = f.mesh.positions.len();
    let row: Vec<u32> = (0..n as u32).collect();
    let k = stiffness(&f.mesh.positions, &f.mesh.triangles, &row, n);
    let m = one_ring_areas(&f.mesh.positions, &f.mesh.triangles, &row, n);
    let mut seen = Vec::new();
    for b in [0.0, 0.25, 0.5, 0.75] {
        let mut g = s.clone();
        g.apply(&EditOp::Smoothness {
            joint: "j4".into(),
            b,
        })
        .expect("smoothness");
        g.global().expect("global");
        let w: Vec<f64> = g.raw_rows().iter().map(|r| weight(r, 4)).collect();
        let kw = mul(&k, &w);
        let energy: f64 = w.iter().zip(&kw).map(|(a, b)| a * b).sum();
        let bending: f64 = kw.iter().zip(&m).map(|(x, a)| x * x / a).sum();
        seen.push(bending - energy);
    }
    eprintln!("g(w4) for b = 0, .25, .5, .75: {seen:?}");
    for p in seen.windows(2) {
        assert!(
            p[1] <= p[0] + 1e-6 * p[0].abs().max(1e-12),
            "g rose with b: {seen:?}"
        );
    }
    assert!(seen[3] < seen[0], "b had no effect: {seen:?}");
}

#[test]
fn re_rooting_keeps_every_joints_weight_controls() {
    let f = Fixture::new();
    let sdf = sdf_of(&f.mesh);
    let mut s = session(&f.mesh, &sdf);
    s.apply(&EditOp::Magnitude {
        joint: "j6".into(),
        c: 2.5,
    })
    .expect("magnitude");
    s.apply(&EditOp::Reroot { joint: "j4".into() })
        .expect("reroot");
    let k = s.joints.iter().position(|j| j.name == "j6").expect("j6");
    assert_eq!(k_control(&s, k), 2.5, "j6's magnitude after the re-root");
    let others = (0..s.joints.len()).filter(|&i| i != k);
    assert!(others.into_iter().all(|i| k_control(&s, i) == 1.0));
}

fn k_control(s: &geppetto::edit::Session, i: usize) -> f64 {
    s.controls[i].magnitude
}
