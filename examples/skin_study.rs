//! Study of heat skin weights against the corpus artist skins (issue 12 §2): per mesh, where the
//! false influences are (joint relation, distance ratio), and precision / recall / L1 /
//! deformation for post-processing variants of the raw heat rows.
//!
//! ```text
//! cargo run --example skin_study -- [heat c, default 1] [exact 0|1]
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use geppetto::config::RigConfig;
use geppetto::geom::P3;
use geppetto::measure::bench::manifest;
use geppetto::measure::pose::random_poses;
use geppetto::measure::score::score_rigs;
use geppetto::measure::truth::{self, ScoredRig};
use geppetto::pipeline::AttachRequest;
use geppetto::rig::read::RigFile;
use geppetto::skin::prune::prune_row;
use geppetto::skin::SkinOptions;
use geppetto::{NoProgress, Pipeline};

type Rows = Vec<Vec<(u32, f64)>>;

fn corpus() -> PathBuf {
    std::env::var_os("GEPPETTO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus"))
}

/// Distance from p to the bones a joint owns (segments to its children, else its point).
fn joint_dist(p: &P3, j: usize, pos: &[P3], children: &[Vec<usize>]) -> f64 {
    let seg = |a: &P3, b: &P3| {
        let d = b - a;
        let l2 = d.norm_squared();
        let t = if l2 > 0.0 {
            ((p - a).dot(&d) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (p - (a + d * t)).norm()
    };
    if children[j].is_empty() {
        (p - pos[j]).norm()
    } else {
        children[j]
            .iter()
            .map(|&c| seg(&pos[j], &pos[c]))
            .fold(f64::INFINITY, f64::min)
    }
}

fn hops(a: usize, b: usize, parents: &[Option<usize>]) -> usize {
    let chain = |mut x: usize| {
        let mut v = vec![x];
        while let Some(p) = parents[x] {
            v.push(p);
            x = p;
        }
        v
    };
    let (ca, cb) = (chain(a), chain(b));
    for (i, x) in ca.iter().enumerate() {
        if let Some(k) = cb.iter().position(|y| y == x) {
            return i + k;
        }
    }
    99
}

struct Case {
    name: String,
    rig: geppetto::rig::Rig,
    mesh: PathBuf,
    truth: ScoredRig,
    verts: Vec<P3>,
    raw: Rows,
    shells: Vec<Vec<usize>>, // input vertices per welded shell
    area: Vec<f64>,          // per input vertex (welded area, first occurrence)
    multipart: bool,
}

fn score(c: &Case, rows: &Rows) -> (f64, f64, f64, f64) {
    let mut rig = c.rig.clone();
    rig.skin = Some(rows.clone());
    let pred: ScoredRig = RigFile::from_rig(&c.mesh, &rig).into();
    let poses = random_poses(c.truth.positions.len(), 20, 1, 30.0);
    let (_, s, _) = score_rigs(&pred, &c.truth, rig.max_extent(), Some(&c.verts), &poses).unwrap();
    let s = s.unwrap();
    (
        s.deform_mean_pct,
        s.precision.unwrap_or(0.0),
        s.recall.unwrap_or(0.0),
        s.l1_mean,
    )
}

/// Post-process: transform then prune then parts.
fn post(c: &Case, rel: f64, maxi: usize, sharpen: f64, part: f64) -> Rows {
    let opts = SkinOptions {
        relative_prune: rel,
        max_influences: maxi,
        ..SkinOptions::default()
    };
    let mut rows: Rows = c
        .raw
        .iter()
        .map(|r| {
            let mut w: Vec<(u32, f64)> = r.iter().map(|&(j, x)| (j, x.powf(sharpen))).collect();
            prune_row(&mut w, &opts);
            w
        })
        .collect();
    let share = if c.multipart { 0.0 } else { part };
    for s in &c.shells {
        let mut per: BTreeMap<u32, f64> = BTreeMap::new();
        let mut tot = 0.0;
        for &v in s {
            tot += c.area[v];
            for &(j, w) in &rows[v] {
                *per.entry(j).or_insert(0.0) += c.area[v] * w;
            }
        }
        if tot <= 0.0 {
            continue;
        }
        if let Some((j, sh)) = per.into_iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
            if sh / tot >= share {
                for &v in s {
                    rows[v] = vec![(j, 1.0)];
                }
            }
        }
    }
    rows
}

fn breakdown(c: &Case, rows: &Rows) {
    let t = c.truth.skin.as_ref().unwrap();
    let n = c.truth.positions.len();
    let mut children = vec![Vec::new(); n];
    for (j, p) in c.truth.parents.iter().enumerate() {
        if let Some(&p) = p.as_ref() {
            children[p].push(j);
        }
    }
    // FP by hop distance to nearest truth influence, and by distance ratio.
    let mut by_hop: BTreeMap<usize, usize> = BTreeMap::new();
    let mut relation: BTreeMap<&str, usize> = BTreeMap::new();
    let mut ratio_hist = [0usize; 6]; // <1.25, <1.5, <2, <3, <5, >=5
    let mut w_hist = [0usize; 4]; // weight <0.1, <0.2, <0.35, >=
    let mut fp_joint: BTreeMap<usize, usize> = BTreeMap::new();
    let (mut fp, mut fneg, mut tp) = (0, 0, 0);
    let mut truth_count = BTreeMap::<usize, usize>::new();
    let mut pred_count = BTreeMap::<usize, usize>::new();
    for (v, (p, tr)) in rows.iter().zip(t).enumerate() {
        let pv = &c.verts[v];
        let ts: Vec<usize> = tr.iter().filter(|e| e.1 >= 0.05).map(|e| e.0).collect();
        let ps: Vec<(usize, f64)> = p
            .iter()
            .filter(|e| e.1 >= 0.05)
            .map(|e| (e.0 as usize, e.1))
            .collect();
        *truth_count.entry(ts.len()).or_insert(0) += 1;
        *pred_count.entry(ps.len()).or_insert(0) += 1;
        let dt = ts
            .iter()
            .map(|&j| joint_dist(pv, j, &c.truth.positions, &children))
            .fold(f64::INFINITY, f64::min);
        for &(j, w) in &ps {
            if ts.contains(&j) {
                tp += 1;
                continue;
            }
            fp += 1;
            let h = ts
                .iter()
                .map(|&k| hops(j, k, &c.truth.parents))
                .min()
                .unwrap_or(99);
            if h == 1 {
                let parent_is_truth = ts.iter().any(|&k| c.truth.parents[j] == Some(k));
                let rel = if parent_is_truth {
                    "child_of_truth"
                } else {
                    "parent_of_truth"
                };
                *relation.entry(rel).or_insert(0) += 1;
            }
            *by_hop.entry(h).or_insert(0) += 1;
            *fp_joint.entry(j).or_insert(0) += 1;
            let r = joint_dist(pv, j, &c.truth.positions, &children) / dt.max(1e-12);
            let k = [1.25, 1.5, 2.0, 3.0, 5.0]
                .iter()
                .position(|&x| r < x)
                .unwrap_or(5);
            ratio_hist[k] += 1;
            let k = [0.1, 0.2, 0.35].iter().position(|&x| w < x).unwrap_or(3);
            w_hist[k] += 1;
        }
        fneg += ts.iter().filter(|j| !ps.iter().any(|e| e.0 == **j)).count();
    }
    let mut top: Vec<_> = fp_joint.into_iter().collect();
    top.sort_by_key(|e| std::cmp::Reverse(e.1));
    let names: Vec<String> = top
        .iter()
        .take(6)
        .map(|(j, k)| format!("{}:{}", c.truth.names[*j], k))
        .collect();
    println!(
        "  {}: tp {tp} fp {fp} fn {fneg}; fp by hops {:?}; dist ratio [<1.25,<1.5,<2,<3,<5,>=5] {:?}; fp weight [<.1,<.2,<.35,>=] {:?}\n    truth #infl {:?} pred #infl {:?}\n    top fp joints {}; hop-1 relation {:?}",
        c.name, by_hop, ratio_hist, w_hist, truth_count, pred_count, names.join(" "), relation
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let heat: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let exact = args.get(2).is_some_and(|s| s == "1");
    let dir = corpus();
    let config = RigConfig {
        skin: SkinOptions {
            heat,
            relative_prune: 0.0,
            max_influences: 64,
            rigid_share: 2.0,
            exact_visibility: exact,
            ..SkinOptions::default()
        },
        ..RigConfig::default()
    };
    let mut cases = Vec::new();
    for e in manifest::read(&dir).unwrap() {
        let Some(tp) = manifest::truth_path(&dir, &e.name) else {
            continue;
        };
        let t = truth::load(&tp).unwrap();
        if t.skin.is_none() {
            continue;
        }
        let mesh = manifest::mesh_path(&dir, &e.name);
        let req = AttachRequest::from_file(&mesh, &tp).unwrap();
        let t0 = std::time::Instant::now();
        let done = Pipeline::new(config.clone())
            .attach(&req, &NoProgress)
            .unwrap();
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let prepared = &done.prepared;
        let multipart = geppetto::multipart::detect(prepared).multipart;
        let welded_area =
            geppetto::skin::parts::vertex_areas(&prepared.positions, &prepared.triangles);
        let mut shells_w: Vec<Vec<usize>> =
            vec![Vec::new(); geppetto::skin::shell_vertex_lists(prepared).len()];
        let mut shell_of = vec![usize::MAX; prepared.positions.len()];
        for (s, vs) in geppetto::skin::shell_vertex_lists(prepared)
            .iter()
            .enumerate()
        {
            for &v in vs {
                shell_of[v as usize] = s;
            }
        }
        let mut area = vec![0.0; prepared.weld.len()];
        let mut seen = vec![false; prepared.positions.len()];
        for (i, &w) in prepared.weld.iter().enumerate() {
            let s = shell_of[w as usize];
            if s != usize::MAX {
                shells_w[s].push(i);
            }
            if !seen[w as usize] {
                seen[w as usize] = true;
                area[i] = welded_area[w as usize];
            }
        }
        println!("{}: {} verts, {} joints, {} shells, multipart {multipart}, attach {ms:.0} ms, skin {:?}", e.name, prepared.weld.len(), t.positions.len(), shells_w.len(), done.skin.stats.total_ms);
        cases.push(Case {
            name: e.name.clone(),
            rig: done.rig.clone(),
            mesh,
            verts: prepared.input.positions.clone(),
            truth: t,
            raw: done.skin.weights.clone(),
            shells: shells_w,
            area,
            multipart,
        });
    }
    let base = |c: &Case| post(c, 0.01, 4, 1.0, 0.9);
    for c in &cases {
        breakdown(c, &base(c));
    }
    let mut variants: Vec<(f64, usize, f64, f64)> = Vec::new();
    for part in [0.9, 0.8, 0.7, 0.6, 0.5] {
        for rel in [0.01, 0.03, 0.05, 0.08, 0.12] {
            variants.push((rel, 4, 1.0, part));
        }
    }
    println!("variant\tmesh\tdeform\tprec\trecall\tL1");
    for (rel, maxi, sh, part) in variants {
        for c in &cases {
            let (d, p, r, l1) = score(c, &post(c, rel, maxi, sh, part));
            println!(
                "c{heat}_x{}_part{part}_rel{rel}\t{}\t{d:.3}\t{p:.3}\t{r:.3}\t{l1:.3}",
                u8::from(exact),
                c.name
            );
        }
    }
}
