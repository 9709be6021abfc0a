//! The job pool with a stub skeleton step: panics become failed results, resubmits coalesce.

use super::*;
use std::sync::mpsc;
use std::time::Duration;

type Events = mpsc::Receiver<JobEvent>;

/// A pool whose skeleton step runs `f` (the engine is never reached when `f` fails or panics).
fn pool(
    workers: usize,
    f: impl Fn(&Path) -> Result<Template, String> + Send + Sync + 'static,
) -> (JobPool, Events) {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let ctx = JobContext {
        pipeline: Pipeline::default(),
        skeleton_for: Box::new(f),
        root: std::env::temp_dir(),
        out_dir: std::env::temp_dir(),
        formats: Vec::new(),
        thumbnails: false,
    };
    let sink: Sink = Box::new(move |e| {
        let _ = tx.lock().unwrap_or_else(|e| e.into_inner()).send(e);
    });
    (JobPool::new(workers, ctx, sink).unwrap(), rx)
}

fn finished(rx: &Events, n: usize) -> Vec<(PathBuf, u64, JobResult)> {
    let mut out = Vec::new();
    while out.len() < n {
        let event = rx.recv_timeout(Duration::from_secs(20)).expect("job event");
        if let JobEvent::Finished {
            path, id, result, ..
        } = event
        {
            out.push((path, id, result));
        }
    }
    out
}

#[test]
fn a_panicking_job_becomes_a_failed_result_and_the_worker_survives() {
    let (pool, rx) = pool(1, |p| {
        if p.ends_with("boom.obj") {
            panic!("kaboom");
        }
        Err("no engine here".into())
    });
    pool.submit(Path::new("/x/boom.obj"));
    pool.submit(Path::new("/x/fine.obj"));
    let f = finished(&rx, 2);
    match &f[0].2 {
        JobResult::Failed(m) => assert!(m.contains("panic") && m.contains("kaboom"), "{m}"),
        other => panic!("{other:?}"),
    }
    match &f[1].2 {
        JobResult::Failed(m) => assert_eq!(m, "no engine here"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn resubmits_while_running_coalesce_into_one_more_job() {
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let g = gate.clone();
    let (pool, rx) = pool(2, move |_| {
        let (m, cv) = &*g;
        let mut open = m.lock().unwrap();
        while !*open {
            open = cv.wait(open).unwrap();
        }
        Err("done".into())
    });
    let p = Path::new("/x/a.obj");
    pool.submit(p);
    // Wait until it runs, then re-save three times.
    loop {
        if let JobEvent::Started { .. } = rx.recv_timeout(Duration::from_secs(20)).unwrap() {
            break;
        }
    }
    for _ in 0..3 {
        pool.submit(p);
    }
    assert_eq!(
        pool.load(),
        (1, 1),
        "one queued behind the running one, not three"
    );
    {
        let (m, cv) = &*gate;
        *m.lock().unwrap() = true;
        cv.notify_all();
    }
    let f = finished(&rx, 2);
    assert!(f[0].1 < f[1].1, "in order");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(pool.load(), (0, 0));
    assert!(rx.try_recv().is_err(), "no third job");
}
