//! Timing of load + prepare on the corpus' sveta mesh (the hot path of every rig). Ignored by
//! default and assertion-free: run it in release,
//! `cargo test --release --test mesh_timing -- --ignored --nocapture`.

mod common;

use std::time::Instant;

use geppetto::mesh::{load, prepare};

/// CPU time of this thread, ms (wall time is dominated by contention on a shared machine).
#[allow(unsafe_code)] // per-thread CPU time has no safe std API
fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes into it.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
#[ignore = "timing; run in release with --ignored --nocapture"]
fn sveta_load_and_prepare_timing() {
    let Some(path) = common::corpus_mesh("sveta") else {
        return;
    };
    let (mut tl, mut tp, mut cl, mut cp) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..15 {
        let (t, c) = (Instant::now(), thread_cpu_ms());
        let mesh = load(&path).expect("sveta loads");
        tl.push(t.elapsed().as_secs_f64() * 1e3);
        cl.push(thread_cpu_ms() - c);
        let (t, c) = (Instant::now(), thread_cpu_ms());
        let p = prepare(mesh).expect("sveta prepares");
        tp.push(t.elapsed().as_secs_f64() * 1e3);
        cp.push(thread_cpu_ms() - c);
        assert!(p.report.watertight);
    }
    println!(
        "sveta CPU time: load median {:.2} ms, prepare median {:.2} ms",
        median(cl),
        median(cp)
    );
    println!(
        "sveta: load median {:.2} ms (min {:.2}), prepare median {:.2} ms (min {:.2}), 15 runs",
        median(tl.clone()),
        tl.iter().copied().fold(f64::INFINITY, f64::min),
        median(tp.clone()),
        tp.iter().copied().fold(f64::INFINITY, f64::min)
    );
}
