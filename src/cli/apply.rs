//! `fleetctl apply -f FLEET [--prune] [--yes] [--report FILE]`: makes the hub match the
//! fleet file, carrying out its plan in order — imports (`--parallel` at a time), label and
//! addon updates, upgrades as the file's rollout, then (with `--prune`, confirmed) the
//! detaches. Every step is idempotent: an interrupted apply is finished by running it again.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::Args;
use thiserror::Error;

use super::connect::{self, Role};
use super::detach::confirm;
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{DryRunFlags, HubFlags, OutputFlags, WaitFlags};
use super::many;
use super::plan::{FleetFlags, Planned, note_unlisted, planned};
use super::printer::Printer;
use super::progress::Reporter;
use super::report::{self, Report, Results};
use super::signals::until_stopped;
use super::targets;
use crate::fleet::apply::target_selection;
use crate::fleet::apply::{ApplyReport, import_options, rollout_of, upgrades};
use crate::fleet::file::{Desired, Reach};
use crate::fleet::plan::{Action, Plan};
use crate::lifecycle::Outcome;
use crate::lifecycle::detach::{DetachOptions, detach};
use crate::lifecycle::import::{AutoImport, ImportOptions, Imported, import};
use crate::lifecycle::rollout::{RolloutResult, RolloutSummary, rollout};
use crate::lifecycle::upgrade::UpgradeOptions;

/// `fleetctl apply …`
#[derive(Debug, Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    fleet: FleetFlags,
    /// Do not ask before detaching (needed with --prune when not on a terminal).
    #[arg(long, short = 'y')]
    yes: bool,
    /// Write the JSON report of what was done to this file too (also on failure).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// How many clusters to import or detach at once.
    #[arg(long, value_name = "N", default_value = "5", value_parser = super::flags::parallel)]
    parallel: NonZeroUsize,
    /// Override the file's hub.
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    wait: WaitFlags,
    #[command(flatten)]
    dry_run: DryRunFlags,
}

/// The report file could not be written.
#[derive(Debug, Error)]
#[error("writing the report to {path}")]
struct ReportFileError {
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

impl Fault for ReportFileError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Failure
    }
}

/// Runs `apply`.
pub async fn run(args: ApplyArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let prepared = async {
        let planned = planned(&args.fleet, &args.hub).await?;
        // Every cluster the plan imports from here is reached, and every right the plan
        // needs checked, before the first write.
        let routes = planned.import_routes();
        let hub_config = (&planned.hub, &planned.hub_config);
        let clients = targets::reach_all(&routes, hub_config, false, &super::import::TARGET_RIGHTS).await?;
        if args.dry_run.dry_run.is_none() {
            let rights = [&super::import::HUB_RIGHTS[..], &super::detach::HUB_RIGHTS[..]].concat();
            connect::check_rights(&planned.hub, Role::Hub, None, &rights).await?;
        }
        let clients: BTreeMap<String, kube::Client> =
            routes.into_iter().zip(clients).map(|(route, (client, _))| (route.name, client)).collect();
        Ok::<_, CommandError>((planned, clients))
    };
    let (planned, clients) = match until_stopped(prepared).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(error)) => return report::fail_keeping(&printer, error, keeper(&args, None)),
        Err(stop) => return report::fail_keeping(&printer, report::interrupted(stop), keeper(&args, None)),
    };
    note_unlisted(&printer, &planned.plan, args.fleet.prune);
    if planned.plan.changes.is_empty() {
        printer.note("no changes: the hub matches the fleet file");
    }
    let detaching = planned.plan.clusters(Action::Detach);
    if !detaching.is_empty()
        && !args.yes
        && args.dry_run.dry_run.is_none()
        && let Err(error) = confirm(&printer, &detaching)
    {
        return report::fail_keeping(&printer, error, keeper(&args, Some(&planned.plan)));
    }
    let reporter = Reporter::new(&printer);
    let (results, rollouts) = carry_out(&args, &planned, &clients, &reporter).await;
    let results = merge(results);
    reporter.finish();
    let rollout = merge_rollouts(rollouts);
    report::finish_keeping(&printer, &reporter, results, rollout, keeper(&args, Some(&planned.plan)))
}

/// What keeps the report: `--report FILE`, with the plan carried out (if there was one).
fn keeper<'a>(args: &'a ApplyArgs, plan: Option<&'a Plan>) -> impl FnOnce(&Report) -> Result<(), CommandError> + 'a {
    move |report: &Report| match &args.report {
        None => Ok(()),
        Some(path) => write_report(path, &ApplyReport { file: args.fleet.file.clone(), plan, result: report }),
    }
}

fn write_report<R: serde::Serialize>(path: &PathBuf, report: &ApplyReport<'_, R>) -> Result<(), CommandError> {
    let text = serde_json::to_string_pretty(report).map_err(std::io::Error::other);
    text.and_then(|text| std::fs::write(path, text + "\n"))
        .map_err(|source| ReportFileError { path: path.clone(), source }.into())
}

/// Whether a phase was stopped by a signal, so that the later ones do not start.
fn stopped(results: &Results) -> bool {
    results
        .iter()
        .any(|(_, r)| r.as_ref().is_err_and(|e| matches!(e.status(), ExitStatus::Interrupted | ExitStatus::Terminated)))
}

/// The phases of the plan, in order; each cluster's results (one entry per phase it took
/// part in), and the rollouts' summaries. A phase a signal stopped is the last.
async fn carry_out(
    args: &ApplyArgs,
    planned: &Planned,
    clients: &BTreeMap<String, kube::Client>,
    reporter: &Reporter,
) -> (Results, Vec<RolloutSummary>) {
    let Planned { fleet, hub, hub_url, plan, .. } = planned;
    let dry_run = args.dry_run.dry_run;
    let desired: BTreeMap<String, Desired> = fleet.desired().into_iter().map(|d| (d.name.clone(), d)).collect();
    let timeout = args.wait.timeout;
    let observer = |event| reporter.show(event);
    let mut results: Results = Vec::new();
    let mut rollouts = Vec::new();

    // Imports, each target reached from here.
    let importing = plan.clusters(Action::Import);
    let imported = many::each(&importing, args.parallel, reporter, |i| {
        let (cluster, observer) = (&desired[&importing[i]], &observer);
        async move {
            let mut options = ImportOptions { dry_run, ..import_options(fleet, cluster, timeout) };
            let selection = target_selection(cluster, planned.hub_kubeconfig.as_deref());
            let target = match &cluster.reach {
                Reach::Context => clients.get(&cluster.name).cloned(),
                Reach::HubWithContext => {
                    let kubeconfig = fleetctl_kube::standalone(&selection)
                        .map_err(|source| connect::ConnectError::Config { role: Role::Target, source })?;
                    options.auto_import = Some(AutoImport::Kubeconfig(kubeconfig));
                    clients.get(&cluster.name).cloned()
                }
                Reach::HubWithSecret(secret) => {
                    let (namespace, name) = (secret.namespace.clone(), secret.name.clone());
                    options.auto_import = Some(AutoImport::Copy { namespace, name });
                    None
                }
            };
            outcome(import(hub, hub_url, target.as_ref(), &options, observer).await?)
        }
    })
    .await;
    let failed: Vec<String> = imported.iter().filter(|(_, r)| r.is_err()).map(|(n, _)| n.clone()).collect();
    let interrupted = stopped(&imported);
    results.extend(imported);
    if interrupted {
        return (results, rollouts);
    }

    // Labels and addons: the hub side of an import, which writes only when something differs.
    let mut updating = plan.clusters(Action::Relabel);
    for cluster in plan.clusters(Action::Addons) {
        if !updating.contains(&cluster) {
            updating.push(cluster);
        }
    }
    let updated = many::each(&updating, args.parallel, reporter, |i| {
        let (cluster, observer) = (&desired[&updating[i]], &observer);
        async move {
            let options = ImportOptions { dry_run, ..import_options(fleet, cluster, timeout) };
            outcome(import(hub, hub_url, None, &options, observer).await?)
        }
    })
    .await;
    let interrupted = stopped(&updated);
    results.extend(updated);
    if interrupted {
        return (results, rollouts);
    }

    // Upgrades as the file's rollout, one version at a time.
    let shape = rollout_of(fleet);
    let deadline = fleet.defaults.rollout.progress_deadline.unwrap_or(timeout);
    for (version, names) in upgrades(fleet, plan, &failed) {
        let options =
            UpgradeOptions { version, wait: dry_run.is_none(), timeout: deadline, dry_run, adopt_klusterlet: false };
        let mut done = RolloutResult::planned(&names, &shape);
        let result = until_stopped(rollout(hub, &options, &shape, timeout, &observer, &mut done)).await;
        rollouts.push(done.summary());
        // Of this rollout: a cluster imported or relabelled above has a result of that phase.
        let unfinished = done.unfinished();
        results.extend(done.clusters.into_iter().map(|(name, r)| (name, r.map_err(CommandError::from))));
        match result {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                let error = CommandError::from(error);
                let message = error.chain();
                results.extend(unfinished.into_iter().map(|n| (n, Err(Failed(message.clone()).into()))));
            }
            Err(stop) => {
                results.extend(report::stopped(reporter, &unfinished, stop));
                return (results, rollouts);
            }
        }
    }

    // Detaches last, once the file's clusters are as it says.
    let detaching = plan.clusters(Action::Detach);
    let detached = many::each(&detaching, args.parallel, reporter, |i| {
        let (name, observer) = (detaching[i].clone(), &observer);
        async move {
            let options = DetachOptions { name, wait: true, force: false, timeout, dry_run };
            Ok(detach(hub, None, &options, observer).await?)
        }
    })
    .await;
    results.extend(detached);
    (results, rollouts)
}

/// A rollout that could not start for its clusters (the hub refused), said of each.
#[derive(Debug, Error)]
#[error("{0}")]
struct Failed(String);

impl Fault for Failed {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Failure
    }
}

fn outcome(imported: Imported) -> Result<Outcome, CommandError> {
    match imported {
        Imported::Already(outcome) | Imported::Done(outcome) => Ok(outcome),
        // Apply never asks for the paste command.
        Imported::Command(_) => {
            Err(Failed("the import returned a command to paste instead of importing".into()).into())
        }
    }
}

/// One result per cluster, in the order they first appear: the steps of every phase it
/// took part in and its results joined (`imported; running 0.2.0`), or its first error.
fn merge(results: Results) -> Results {
    let mut merged: Results = Vec::new();
    for (name, result) in results {
        let Some((_, kept)) = merged.iter_mut().find(|(n, _)| *n == name) else {
            merged.push((name, result));
            continue;
        };
        if let (Ok(first), Ok(then)) = (kept.as_mut(), &result) {
            first.result = format!("{}; {}", first.result, then.result);
            first.steps.extend(then.steps.iter().cloned());
            first.conditions.clone_from(&then.conditions);
        } else if kept.is_ok() {
            *kept = result;
        }
    }
    merged
}

/// The rollouts of several versions as one summary: their waves in order, and the stops.
fn merge_rollouts(rollouts: Vec<RolloutSummary>) -> Option<RolloutSummary> {
    let mut all = rollouts.into_iter();
    let mut first = all.next()?;
    for next in all {
        first.waves.extend(next.waves);
        first.stopped = match (first.stopped, next.stopped) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
    }
    Some(first)
}

impl ApplyArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> std::time::Duration {
        self.wait.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::{LifecycleError, StepRecord};

    fn done(cluster: &str, result: &str, step: &str) -> Result<Outcome, CommandError> {
        let steps = vec![StepRecord { step: step.into(), seconds: 1.0 }];
        Ok(Outcome {
            cluster: cluster.into(),
            result: result.into(),
            steps,
            conditions: Vec::new(),
            writes: Vec::new(),
        })
    }

    #[test]
    fn each_cluster_reports_once_with_the_results_of_all_its_phases_or_its_error() {
        let results: Results = vec![
            ("a".into(), done("a", "imported", "import")),
            ("b".into(), done("b", "imported", "import")),
            ("a".into(), done("a", "running 0.2.0", "upgrade")),
            ("b".into(), Err(LifecycleError::Failed("boom".into()).into())),
        ];
        let merged = merge(results);
        assert_eq!(merged.len(), 2);
        let (name, a) = &merged[0];
        let a = a.as_ref().expect("a succeeded");
        assert_eq!((name.as_str(), a.result.as_str(), a.steps.len()), ("a", "imported; running 0.2.0", 2));
        assert_eq!(merged[1].1.as_ref().expect_err("b failed").chain(), "boom");
    }

    #[test]
    fn the_waves_of_each_version_add_up_in_one_summary() {
        let summary = |waves: &[&str], stopped: Option<&str>| RolloutSummary {
            waves: waves.iter().map(|w| vec![w.to_string()]).collect(),
            stopped: stopped.map(str::to_string),
        };
        let merged = merge_rollouts(vec![summary(&["a"], None), summary(&["b", "c"], Some("max"))]).expect("some");
        assert_eq!(merged.waves, [["a"], ["b"], ["c"]]);
        assert_eq!(merged.stopped.as_deref(), Some("max"));
        assert!(merge_rollouts(Vec::new()).is_none());
    }
}
