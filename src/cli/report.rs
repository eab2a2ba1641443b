//! The report of `import`, `upgrade` and `detach`: for each cluster reached, what was done
//! and how it ended. People get a summary table, one row per cluster (errors go to stderr);
//! `-o json|yaml` get one document, on failure too, with the error and the exit status. A
//! command over several clusters exits with the gravest status among theirs.

use serde::Serialize;

use super::exit::{CommandError, ExitStatus};
use super::printer::{Cell, PrintError, Printer, Tone};
use super::progress::Reporter;
use super::signals::{Interrupted, Stop};
use crate::lifecycle::Outcome;
use crate::lifecycle::rollout::RolloutSummary;

/// How a lifecycle command ended for each cluster it reached, in order.
pub type Results = Vec<(String, Result<Outcome, CommandError>)>;

/// The document `-o json|yaml` prints.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Each cluster reached.
    pub clusters: Vec<ClusterReport>,
    /// The waves of an upgrade's rollout, and why it stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutSummary>,
    /// The error the command ended with, if it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ReportedError>,
}

/// One cluster's part of a report.
#[derive(Debug, Serialize)]
pub struct ClusterReport {
    /// What was done; on failure the steps that finished, and `result` `failed`.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Why this cluster failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A command's `-o json|yaml` document on failure: the shape it has on success (empty where
/// nothing is known) with the error beside it, so one parser reads both.
#[derive(Debug, Serialize)]
pub struct WithError<'a, T: Serialize> {
    /// The document of the command.
    #[serde(flatten)]
    pub document: &'a T,
    /// The error the command ended with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ReportedError>,
}

/// The error of a failed command, as the exit status says it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedError {
    /// The error and its causes.
    pub message: String,
    /// The exit status (see the README's table).
    pub exit_code: u8,
}

/// The results of clusters that a signal or the deadline stopped: each with the steps it
/// finished.
pub fn stopped(reporter: &Reporter, clusters: &[String], stop: Stop) -> Results {
    let error = |cluster: &str| Interrupted { stop, done: reporter.done_of(cluster) };
    clusters.iter().map(|cluster| (cluster.clone(), Err(error(cluster).into()))).collect()
}

/// The error of a command a signal or the deadline stopped before it reached any cluster.
pub fn interrupted(stop: Stop) -> CommandError {
    Interrupted { stop, done: Vec::new() }.into()
}

/// Prints `document` (the shape the command prints on success, empty) with the error for
/// `-o json|yaml` — nothing for people, who read the error on stderr — and returns the error.
pub fn fail_with<T: Serialize>(printer: &Printer, document: &T, error: CommandError) -> Result<(), CommandError> {
    if printer.is_machine() {
        let failed = WithError { document, error: Some(reported(&error)) };
        let text = printer.render_document(&failed)?;
        printer.data(&text)?;
    }
    Err(error)
}

/// What a cluster's result says when it did not succeed, by the status it ended with.
pub fn result_of(status: ExitStatus) -> &'static str {
    match status {
        ExitStatus::Success => "done",
        ExitStatus::Failure => "failed",
        ExitStatus::Usage | ExitStatus::Refused => "refused",
        ExitStatus::Timeout => "timed out",
        ExitStatus::Interrupted | ExitStatus::Terminated => "interrupted",
    }
}

/// Prints the report of a command that failed before it reached any cluster (its
/// connection or preflight), and returns the error.
pub fn fail(printer: &Printer, error: CommandError) -> Result<(), CommandError> {
    fail_keeping(printer, error, |_| Ok(()))
}

/// [`fail`], handing the report to `keep` too (to write it to a file); an error of `keep`
/// is said on stderr.
pub fn fail_keeping(
    printer: &Printer,
    error: CommandError,
    keep: impl FnOnce(&Report) -> Result<(), CommandError>,
) -> Result<(), CommandError> {
    let report = Report { clusters: Vec::new(), rollout: None, error: Some(reported(&error)) };
    print(printer, &report)?;
    if let Err(not_kept) = keep(&report) {
        printer.error(&not_kept);
    }
    Err(error)
}

/// Prints the report of a command line refused before the command could run (a usage
/// error clap found: a bad flag value such as `--timeout 0s` or an invalid label), so that
/// `-o json|yaml` gets its report on every failure. `message` is clap's, without its
/// `error: ` prefix.
pub fn refused_command_line<T: Serialize>(printer: &Printer, document: &T, message: &str) -> Result<(), PrintError> {
    let error = ReportedError { message: message.to_string(), exit_code: ExitStatus::Usage as u8 };
    let text = printer.render_document(&WithError { document, error: Some(error) })?;
    printer.data(&text)
}

/// The report of a command that reached no cluster.
pub fn empty() -> Report {
    Report { clusters: Vec::new(), rollout: None, error: None }
}

pub(super) fn reported(error: &CommandError) -> ReportedError {
    ReportedError { message: error.chain(), exit_code: error.status() as u8 }
}

/// Prints the report of the results and returns how the command ends: with the gravest
/// error (the others are named on stderr, and all in the report). Over several clusters,
/// each error names its cluster.
pub fn finish(printer: &Printer, reporter: &Reporter, results: Results) -> Result<(), CommandError> {
    finish_with(printer, reporter, results, None)
}

/// [`finish`] for an upgrade's rollout: the report holds its waves too.
pub fn finish_with(
    printer: &Printer,
    reporter: &Reporter,
    results: Results,
    rollout: Option<RolloutSummary>,
) -> Result<(), CommandError> {
    finish_keeping(printer, reporter, results, rollout, |_| Ok(()))
}

/// [`finish_with`], handing the report to `keep` too (to write it to a file) once it is
/// printed; an error of `keep` ends the command when nothing graver does.
pub fn finish_keeping(
    printer: &Printer,
    reporter: &Reporter,
    results: Results,
    rollout: Option<RolloutSummary>,
    keep: impl FnOnce(&Report) -> Result<(), CommandError>,
) -> Result<(), CommandError> {
    let several = results.len() > 1;
    let results = results
        .into_iter()
        .map(|(cluster, result)| {
            let result = result.map_err(|e| if several { e.of_cluster(&cluster) } else { e });
            (cluster, result)
        })
        .collect();
    let (mut report, mut errors) = build(reporter, results);
    report.rollout = rollout;
    print(printer, &report)?;
    let kept = keep(&report);
    let gravest = errors.iter().enumerate().max_by_key(|(i, (_, e))| (e.status().severity(), usize::MAX - i));
    let Some(gravest) = gravest.map(|(i, _)| i) else { return kept };
    let (_, error) = errors.remove(gravest);
    for (_, other) in &errors {
        printer.error(other);
    }
    if let Err(not_kept) = kept {
        printer.error(&not_kept);
    }
    Err(error)
}

/// The report, and the errors by cluster in order; the report's error is the gravest.
fn build(reporter: &Reporter, results: Results) -> (Report, Vec<(String, CommandError)>) {
    let mut errors = Vec::new();
    let mut clusters = Vec::new();
    for (cluster, result) in results {
        clusters.push(match result {
            Ok(outcome) => ClusterReport { outcome, error: None },
            Err(error) => {
                let steps = reporter.steps(&cluster);
                let message = error.chain();
                let result = result_of(error.status()).to_string();
                errors.push((cluster.clone(), error));
                let outcome = Outcome { cluster, result, steps, conditions: Vec::new(), writes: Vec::new() };
                ClusterReport { outcome, error: Some(message) }
            }
        });
    }
    // The first of the gravest, as `finish` ends with.
    let gravest = errors.iter().rev().max_by_key(|(_, e)| e.status().severity());
    let error = gravest.map(|(_, e)| reported(e));
    (Report { clusters, rollout: None, error }, errors)
}

fn print(printer: &Printer, report: &Report) -> Result<(), PrintError> {
    let succeeded = report.clusters.iter().filter(|c| c.error.is_none()).map(|c| &c.outcome);
    let names: String =
        succeeded.map(|o| format!("managedcluster.cluster.open-cluster-management.io/{}\n", o.cluster)).collect();
    printer.document(report, names.trim_end(), |printer| summary(printer, report))
}

/// The summary table: each cluster, how it ended and how long its steps took.
fn summary(printer: &Printer, report: &Report) -> String {
    if report.clusters.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<Cell>> = report.clusters.iter().map(row).collect();
    let mut text = printer.table(&["CLUSTER", "RESULT", "TIME"], &rows);
    // A dry run: the writes each cluster would get, in order.
    let writes: Vec<Vec<Cell>> = report
        .clusters
        .iter()
        .flat_map(|c| c.outcome.writes.iter().map(|w| vec![Cell::plain(&c.outcome.cluster), Cell::plain(w)]))
        .collect();
    if !writes.is_empty() {
        text.push('\n');
        text.push_str(&printer.table(&["CLUSTER", "WOULD WRITE"], &writes));
    }
    text
}

fn row(cluster: &ClusterReport) -> Vec<Cell> {
    let outcome = &cluster.outcome;
    let total: f64 = outcome.steps.iter().map(|s| s.seconds).sum();
    let result = match &cluster.error {
        Some(_) => Cell::toned(&outcome.result, Tone::Bad),
        None => Cell::toned(&outcome.result, Tone::Good),
    };
    let time = if outcome.steps.is_empty() { Cell::plain("-") } else { Cell::plain(format!("{total:.2}s")) };
    vec![Cell::plain(&outcome.cluster), result, time]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::{LifecycleError, StepRecord};

    #[test]
    fn people_read_a_row_per_cluster_with_its_result_and_the_time_it_took() {
        let step = |seconds| StepRecord { step: "s".into(), seconds };
        let imported = Outcome { steps: vec![step(1.5), step(0.25)], ..Outcome::unchanged("c1", "imported".into()) };
        let already = Outcome { cluster: "c2".into(), result: "already imported".into(), ..imported.clone() };
        let already = Outcome { steps: Vec::new(), ..already };
        let failed = Outcome { cluster: "c3".into(), result: "failed".into(), ..imported.clone() };
        let report = Report {
            clusters: vec![
                ClusterReport { outcome: imported, error: None },
                ClusterReport { outcome: already, error: None },
                ClusterReport { outcome: failed, error: Some("boom".into()) },
            ],
            rollout: None,
            error: None,
        };
        let printer = Printer::with(crate::cli::flags::Output::Table, false);
        assert_eq!(
            summary(&printer, &report),
            "CLUSTER   RESULT             TIME\nc1        imported           1.75s\nc2        already imported   -\nc3        failed             1.75s\n"
        );
    }

    #[test]
    fn over_several_clusters_the_command_ends_with_the_gravest_error_each_naming_its_cluster() {
        let printer = Printer::with(crate::cli::flags::Output::Json, false);
        let reporter = Reporter::new(&printer);
        let after = std::time::Duration::from_secs(1);
        let results: Results = vec![
            ("c1".into(), Err(LifecycleError::Refused("no".into()).into())),
            ("c2".into(), Err(LifecycleError::Timeout { what: "c2".into(), after }.into())),
            ("c3".into(), Err(LifecycleError::Failed("boom".into()).into())),
            ("c4".into(), Err(LifecycleError::Failed("bang".into()).into())),
        ];
        let error = finish(&printer, &reporter, results).expect_err("failed");
        assert_eq!(error.status() as u8, 1);
        assert_eq!(error.chain(), "cluster c3: boom");
    }

    #[test]
    fn a_cluster_that_did_not_succeed_says_whether_it_was_refused_timed_out_interrupted_or_failed() {
        let printer = Printer::with(crate::cli::flags::Output::Json, false);
        let reporter = Reporter::new(&printer);
        let stop = Stop::Signal(fleetctl_kube::runner::StopSignal::Interrupt);
        let results: Results = vec![
            ("c1".into(), Err(LifecycleError::Refused("no".into()).into())),
            ("c2".into(), Err(Interrupted { stop, done: Vec::new() }.into())),
            ("c3".into(), Err(LifecycleError::Failed("boom".into()).into())),
            ("c4".into(), Err(interrupted(Stop::Deadline(std::time::Duration::from_secs(1))))),
        ];
        let (report, _) = build(&reporter, results);
        let said: Vec<&str> = report.clusters.iter().map(|c| c.outcome.result.as_str()).collect();
        assert_eq!(said, ["refused", "interrupted", "failed", "timed out"]);
    }

    #[test]
    fn a_failed_cluster_reports_its_finished_steps_and_the_exit_status() {
        let printer = Printer::with(crate::cli::flags::Output::Json, false);
        let reporter = Reporter::new(&printer);
        reporter.show(crate::lifecycle::Progress::Finished {
            cluster: "c2".into(),
            step: "hub: version recorded".into(),
            elapsed: std::time::Duration::from_secs(1),
        });
        let done = Outcome::unchanged("c1", "running 0.2.0".into());
        let timeout =
            LifecycleError::Timeout { what: "c2 to run 0.2.0".into(), after: std::time::Duration::from_secs(1) };
        let results: Results = vec![("c1".into(), Ok(done)), ("c2".into(), Err(timeout.into()))];
        let (report, errors) = build(&reporter, results);
        assert_eq!(errors.len(), 1);
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(json["error"]["exitCode"], 3);
        assert_eq!(json["clusters"][0]["result"], "running 0.2.0");
        assert!(json["clusters"][0].get("error").is_none());
        assert_eq!(json["clusters"][1]["result"], "timed out", "a timeout is no failure");
        assert_eq!(json["clusters"][1]["steps"][0]["step"], "hub: version recorded");
        assert_eq!(json["clusters"][1]["error"], "timed out after 1s waiting for c2 to run 0.2.0");
    }
}
