//! Work shared between the calling thread and rayon's threads, the calling thread taking its
//! turn: what it makes (the values of a description read in pieces) it frees later itself, which
//! mimalloc does faster than a free of what another thread allocated, and its memory, freed, is
//! its own to reuse.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `run` of every job, in the order of `jobs`; the jobs are taken in turn by this thread and as
/// many of rayon's as there are other cores.
pub(super) fn map<J: Sync, T: Send>(jobs: &[J], run: impl Fn(&J) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(index) else {
                return done;
            };
            done.push((index, run(job)));
        }
    };
    let theirs = Mutex::new(Vec::new());
    let mine = rayon::in_place_scope(|scope| {
        for _ in 1..rayon::current_num_threads() {
            scope.spawn(|_| {
                let done = take();
                theirs
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(done);
            });
        }
        take()
    });
    let mut all = theirs.into_inner().unwrap_or_else(|e| e.into_inner());
    all.extend(mine);
    all.sort_unstable_by_key(|(index, _)| *index);
    all.into_iter().map(|(_, done)| done).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_job_is_run_once_and_the_results_are_in_the_order_of_the_jobs() {
        let jobs: Vec<usize> = (0..1000).collect();
        let runs = std::sync::atomic::AtomicUsize::new(0);
        let done = super::map(&jobs, |&job| {
            runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            job * 2
        });
        assert_eq!(done, jobs.iter().map(|job| job * 2).collect::<Vec<_>>());
        assert_eq!(runs.into_inner(), 1000);
        assert!(super::map(&[] as &[usize], |&job| job).is_empty());
    }
}
