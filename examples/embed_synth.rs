//! Print the embedding of a template on the synthetic stick human (debugging aid).
//! `cargo run --release --example embed_synth -- [template] [spacing]`
use geppetto::embed::synthetic::Capsules;
use geppetto::embed::{run_with, EmbedOptions};
use geppetto::skeleton::load_template;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if std::env::var("IDEAL").is_ok() {
        score_ideal();
    }
    let name = args.get(1).map_or("human", String::as_str);
    let spacing: f64 = args.get(2).map_or(Ok(0.02), |s| s.parse())?;
    let shape = Capsules::human();
    let (g, medial) = shape.discretize(spacing);
    let s = load_template(name)?;
    let never = || false;
    let e = run_with(
        &g,
        &shape,
        &medial,
        &s,
        &[],
        &EmbedOptions::default(),
        &never,
    )?;
    println!(
        "spheres {} nodes {} budget {} forced {}",
        g.len(),
        e.nodes_expanded,
        e.budget_hit,
        e.forced
    );
    println!("penalty {:.4} {:?}", e.penalty.total, e.penalty.terms);
    println!("warnings {:?}", e.warnings);
    for (j, p) in s.joints.iter().zip(&e.joints) {
        println!("{:16} {:.3} {:.3} {:.3}", j.name, p.x, p.y, p.z);
    }
    println!("timings {:?}", e.timings_ms);
    Ok(())
}

/// Score a hand-picked embedding term by term (debugging aid).
#[allow(dead_code)]
pub fn score_ideal() {
    use geppetto::embed::paths::Paths;
    use geppetto::embed::penalty::Ctx;
    use geppetto::embed::reduced::Reduced;
    use geppetto::geom::{P3, V3};
    let shape = Capsules::human();
    let (g, _) = shape.discretize(0.02);
    let s = load_template("human").unwrap();
    let red = Reduced::new(&s);
    let paths = Paths::new(&g);
    let ideal = |name: &str| match name {
        "Spine2" => P3::new(0.5, 0.68, 0.5),
        "Hips" => P3::new(0.5, 0.47, 0.5),
        "HeadTop_End" => P3::new(0.5, 0.86, 0.5),
        "LeftToe_End" => P3::new(0.42, 0.06, 0.58),
        "RightToe_End" => P3::new(0.58, 0.06, 0.58),
        "LeftHand_End" => P3::new(0.06, 0.72, 0.5),
        _ => P3::new(0.94, 0.72, 0.5),
    };
    let m: Vec<u32> = red
        .joints
        .iter()
        .map(|rj| {
            let t = ideal(&s.joints[rj.full.0].name);
            (0..g.len() as u32)
                .min_by(|a, b| {
                    (g.spheres[*a as usize].center - t)
                        .norm()
                        .total_cmp(&(g.spheres[*b as usize].center - t).norm())
                })
                .unwrap()
        })
        .collect();
    let half = V3::new(0.5, 0.5, 0.5);
    let pos = g.spheres.iter().map(|s| s.center.coords - half).collect();
    let nbrs = g
        .edges
        .iter()
        .map(|l| l.iter().map(|(n, _)| n.0).collect())
        .collect();
    let rad = g.spheres.iter().map(|s| s.radius).collect();
    let (fat, limb) = (
        geppetto::embed::candidates::fat_verts(&g),
        geppetto::embed::candidates::limb_verts(&g),
    );
    let ctx = Ctx::new(
        &red,
        &paths,
        pos,
        rad,
        nbrs,
        EmbedOptions::default().weights,
        vec![Vec::new(); red.len()],
    );
    let mut taken = vec![0u64; 4];
    for idx in 0..m.len() {
        let name = &s.joints[red.joints[idx].full.0].name;
        println!(
            "{name}: v{} fat {} limb {} terms {:?}",
            m[idx],
            fat.contains(&m[idx]),
            limb.contains(&m[idx]),
            ctx.terms(&m[..idx], &taken, idx, m[idx], true)
        );
        if let Some(p) = red.joints[idx].parent {
            for v in paths.path(m[idx], m[p]) {
                taken[v as usize / 64] |= 1 << (v % 64);
            }
        }
    }
}
