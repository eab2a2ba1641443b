//! The report of `import`, `upgrade` and `detach`: for each cluster reached, what was done
//! and how it ended. People get one line per cluster that succeeded (errors go to stderr);
//! `-o json|yaml` get one document, on failure too, with the error and the exit status.

use serde::Serialize;

use super::exit::CommandError;
use super::printer::{PrintError, Printer};
use super::progress::Reporter;
use super::signals::Interrupted;
use crate::lifecycle::Outcome;
use fleetctl_kube::runner::StopSignal;

/// How a lifecycle command ended for each cluster it reached, in order.
pub type Results = Vec<(String, Result<Outcome, CommandError>)>;

/// The document `-o json|yaml` prints.
#[derive(Debug, Serialize)]
pub struct Report {
    /// Each cluster reached.
    pub clusters: Vec<ClusterReport>,
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

/// The error of a failed command, as the exit status says it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedError {
    /// The error and its causes.
    pub message: String,
    /// The exit status (see the README's table).
    pub exit_code: u8,
}

/// The results of clusters that a signal stopped: each with the steps it finished.
pub fn stopped(reporter: &Reporter, clusters: &[String], signal: StopSignal) -> Results {
    let error = || Interrupted { signal, done: reporter.done() };
    clusters.iter().map(|cluster| (cluster.clone(), Err(error().into()))).collect()
}

/// Prints the report of a command that failed before it reached any cluster (its
/// connection or preflight), and returns the error.
pub fn fail(printer: &Printer, error: CommandError) -> Result<(), CommandError> {
    let report = Report { clusters: Vec::new(), error: Some(reported(&error)) };
    print(printer, &report)?;
    Err(error)
}

fn reported(error: &CommandError) -> ReportedError {
    ReportedError { message: error.chain(), exit_code: error.status() as u8 }
}

/// Prints the report of the results and returns how the command ends: with the first
/// cluster's error (the others are named in the report, and on stderr).
pub fn finish(printer: &Printer, reporter: &Reporter, results: Results) -> Result<(), CommandError> {
    let (report, errors) = build(reporter, results);
    print(printer, &report)?;
    let mut errors = errors.into_iter();
    let first = errors.next();
    for (cluster, error) in errors {
        printer.note(&format!("error: {cluster}: {}", error.chain()));
    }
    first.map_or(Ok(()), |(_, error)| Err(error))
}

/// The report, and the errors by cluster in order.
fn build(reporter: &Reporter, results: Results) -> (Report, Vec<(String, CommandError)>) {
    let mut errors = Vec::new();
    let mut clusters = Vec::new();
    for (cluster, result) in results {
        clusters.push(match result {
            Ok(outcome) => ClusterReport { outcome, error: None },
            Err(error) => {
                let steps = reporter.steps(&cluster);
                let message = error.chain();
                errors.push((cluster.clone(), error));
                let outcome = Outcome { cluster, result: "failed".into(), steps, conditions: Vec::new() };
                ClusterReport { outcome, error: Some(message) }
            }
        });
    }
    let error = errors.first().map(|(_, e)| reported(e));
    (Report { clusters, error }, errors)
}

fn print(printer: &Printer, report: &Report) -> Result<(), PrintError> {
    let succeeded = || report.clusters.iter().filter(|c| c.error.is_none()).map(|c| &c.outcome);
    let names: String =
        succeeded().map(|o| format!("managedcluster.cluster.open-cluster-management.io/{}\n", o.cluster)).collect();
    printer.document(report, &names, |_| succeeded().map(text).collect())
}

fn text(outcome: &Outcome) -> String {
    if outcome.steps.is_empty() {
        return format!("{}: {}\n", outcome.cluster, outcome.result);
    }
    let total: f64 = outcome.steps.iter().map(|s| s.seconds).sum();
    format!("{}: {} ({total:.2}s)\n", outcome.cluster, outcome.result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::{LifecycleError, StepRecord};

    #[test]
    fn people_read_the_result_and_the_time_it_took() {
        let step = |seconds| StepRecord { step: "s".into(), seconds };
        let mut outcome = Outcome {
            cluster: "c1".into(),
            result: "imported".into(),
            steps: vec![step(1.5), step(0.25)],
            conditions: Vec::new(),
        };
        assert_eq!(text(&outcome), "c1: imported (1.75s)\n");
        outcome.steps.clear();
        assert_eq!(text(&outcome), "c1: imported\n");
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
        let done =
            Outcome { cluster: "c1".into(), result: "running 0.2.0".into(), steps: Vec::new(), conditions: Vec::new() };
        let timeout =
            LifecycleError::Timeout { what: "c2 to run 0.2.0".into(), after: std::time::Duration::from_secs(1) };
        let results: Results = vec![("c1".into(), Ok(done)), ("c2".into(), Err(timeout.into()))];
        let (report, errors) = build(&reporter, results);
        assert_eq!(errors.len(), 1);
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(json["error"]["exitCode"], 3);
        assert_eq!(json["clusters"][0]["result"], "running 0.2.0");
        assert!(json["clusters"][0].get("error").is_none());
        assert_eq!(json["clusters"][1]["result"], "failed");
        assert_eq!(json["clusters"][1]["steps"][0]["step"], "hub: version recorded");
        assert_eq!(json["clusters"][1]["error"], "timed out after 1s waiting for c2 to run 0.2.0");
    }
}
