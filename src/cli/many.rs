//! One command over many clusters: at most `--parallel` at once, each cluster's result
//! kept as it ends, so that a signal stops the others and the report still holds what
//! finished — and, for those stopped, the steps they had done.

use std::future::Future;
use std::num::NonZeroUsize;

use futures::StreamExt;

use super::exit::CommandError;
use super::progress::Reporter;
use super::report::Results;
use super::signals::{Interrupted, until_stopped};
use crate::lifecycle::Outcome;

/// Runs `work(i)` for each of `clusters`, at most `parallel` at once, and returns their
/// results in the order of `clusters`. On SIGINT or SIGTERM, or at the command's deadline,
/// the clusters still running (or not started) end with [`Interrupted`].
pub async fn each<Fut>(
    clusters: &[String],
    parallel: NonZeroUsize,
    reporter: &Reporter,
    work: impl Fn(usize) -> Fut,
) -> Results
where
    Fut: Future<Output = Result<Outcome, CommandError>>,
{
    let mut ended: Vec<(usize, Result<Outcome, CommandError>)> = Vec::with_capacity(clusters.len());
    let runs = futures::stream::iter(0..clusters.len())
        .map(|i| {
            let run = work(i);
            async move { (i, run.await) }
        })
        .buffer_unordered(parallel.get());
    let all = runs.for_each(|result| {
        ended.push(result);
        std::future::ready(())
    });
    let stopped = until_stopped(all).await;
    if let Err(stop) = stopped {
        for (i, cluster) in clusters.iter().enumerate() {
            if !ended.iter().any(|(j, _)| *j == i) {
                ended.push((i, Err(Interrupted { stop, done: reporter.done_of(cluster) }.into())));
            }
        }
    }
    ended.sort_by_key(|(i, _)| *i);
    ended.into_iter().filter_map(|(i, result)| Some((clusters.get(i)?.clone(), result))).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::cli::flags::Output;
    use crate::cli::printer::Printer;
    use crate::lifecycle::LifecycleError;

    fn outcome(cluster: &str) -> Outcome {
        Outcome::unchanged(cluster, "imported".into())
    }

    #[tokio::test]
    async fn results_come_in_the_order_asked_and_no_more_than_parallel_run_at_once() {
        let reporter = Reporter::new(&Printer::with(Output::Json, false));
        let clusters: Vec<String> = (1..=7).map(|i| format!("c{i}")).collect();
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let parallel = NonZeroUsize::new(3).expect("3");
        let results = each(&clusters, parallel, &reporter, |i| {
            let (running, most, clusters) = (&running, &most, &clusters);
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                // The later clusters end first.
                for _ in 0..(10 - i) {
                    tokio::task::yield_now().await;
                }
                running.fetch_sub(1, Ordering::SeqCst);
                if i == 4 {
                    return Err(LifecycleError::Failed("boom".into()).into());
                }
                Ok(outcome(&clusters[i]))
            }
        })
        .await;
        let names: Vec<&str> = results.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["c1", "c2", "c3", "c4", "c5", "c6", "c7"]);
        assert!(results.iter().enumerate().all(|(i, (_, r))| r.is_err() == (i == 4)));
        assert_eq!(most.load(Ordering::SeqCst), 3);
    }
}
