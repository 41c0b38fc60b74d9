//! Running a recorded validation's jobs two at a time (the machine has two
//! cores), printing each as it finishes.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::shell::Result;

/// Runs `job` on every entry of `jobs`, `parallel` at a time; `describe`
/// names a job and `said` summarizes its result for the progress line.
/// Results come back in the order of `jobs`.
pub fn run_jobs<J: Sync, R: Send>(
    jobs: &[J],
    parallel: usize,
    describe: impl Fn(&J) -> String + Sync,
    said: impl Fn(&R) -> String + Sync,
    job: impl Fn(&J) -> Result<R> + Sync,
) -> Vec<Result<R>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<R>>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..parallel.max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(entry) = jobs.get(index) else { break };
                    let job_started = Instant::now();
                    let result = job(entry);
                    let finished = done.fetch_add(1, Ordering::SeqCst) + 1;
                    let summary = match &result {
                        Ok(value) => said(value),
                        Err(error) => format!("FAILED: {error}"),
                    };
                    eprintln!(
                        "[{finished}/{}] {}: {summary} ({:.1} s; {:.0} s elapsed)",
                        jobs.len(),
                        describe(entry),
                        job_started.elapsed().as_secs_f64(),
                        started.elapsed().as_secs_f64()
                    );
                    results.lock().expect("no worker panicked")[index] = Some(result);
                }
            });
        }
    });
    let results = results.into_inner().expect("no worker panicked");
    results.into_iter().map(|r| r.unwrap_or_else(|| Err("the job did not run".to_owned()))).collect()
}
