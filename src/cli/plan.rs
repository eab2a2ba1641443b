//! `fleetctl plan -f FLEET [--prune]`: what `apply` would change to make the hub match the
//! fleet file, as a table (or `-o json|yaml|name`); nothing changes.

use std::path::PathBuf;

use clap::Args;
use kube::Client;
use thiserror::Error;

use super::connect::{Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{HubFlags, OutputFlags, ReadFlags};
use super::printer::{Cell, Printer};
use super::report;
use super::signals::until_stopped;
use super::targets::Route;
use crate::fleet::apply::target_selection;
use crate::fleet::file::{self, Fleet, Reach};
use crate::fleet::plan::{self, Action, Plan};

/// The fleet file and what to do with clusters it does not list.
#[derive(Debug, Clone, Args)]
pub struct FleetFlags {
    /// The fleet file (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`; see examples/fleet.yaml).
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: PathBuf,
    /// Detach the clusters this fleet owns (its `metadata.name` is on them: its `apply`
    /// imported them) that the file no longer lists; nothing else is touched.
    #[arg(long)]
    pub prune: bool,
}

/// `--prune` of a fleet file without a name: the fleet owns no cluster to prune.
#[derive(Debug, Error)]
#[error(
    "--prune detaches the clusters the fleet owns, which are marked with its name: give the fleet file \
     `metadata: {{name: NAME}}` (apply then marks the clusters it lists as the fleet's)"
)]
struct Unnamed;

impl Fault for Unnamed {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Usage
    }
}

/// `fleetctl plan …`
#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(flatten)]
    fleet: FleetFlags,
    /// Override the file's hub.
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    read: ReadFlags,
}

/// A fleet file read, its hub reached, and the plan that makes the hub match it.
pub struct Planned {
    /// The fleet.
    pub fleet: Fleet,
    /// The hub.
    pub hub: Client,
    /// Its API server, as its kubeconfig names it.
    pub hub_url: String,
    /// Its configuration.
    pub hub_config: kube::Config,
    /// The hub's kubeconfig, which the clusters' contexts are in unless the file says otherwise.
    pub hub_kubeconfig: Option<PathBuf>,
    /// The plan.
    pub plan: Plan,
}

/// Reads the fleet file (a bad one is a usage error, before the hub is asked anything),
/// connects to its hub (the flags override the file's) and plans.
pub async fn planned(flags: &FleetFlags, hub: &HubFlags) -> Result<Planned, CommandError> {
    let fleet = file::load(&flags.file)?;
    if flags.prune && fleet.name().is_none() {
        return Err(Unnamed.into());
    }
    let selection = hub.selection_over(fleet.hub.kubeconfig.clone(), fleet.hub.context.clone());
    let (client, config) = connect(&selection, Role::Hub).await?;
    let state = plan::read(&client).await?;
    let plan = plan::diff(&fleet, &state, flags.prune);
    let hub_url = config.cluster_url.to_string();
    let planned = Planned { fleet, hub: client, hub_url, hub_config: config, hub_kubeconfig: selection.path, plan };
    // Every context the imports need exists, before anything is planned as doable.
    let mut unknown = Vec::new();
    for route in planned.import_routes() {
        if let Err(source) = fleetctl_kube::config(&route.selection).await {
            unknown.push(CommandError::from(source).of_cluster(&route.name).chain());
        }
    }
    if !unknown.is_empty() {
        return Err(UnknownContexts(unknown).into());
    }
    Ok(planned)
}

/// Contexts of the fleet file's clusters that cannot be used: nothing was changed.
#[derive(Debug, Error)]
#[error("{}: nothing was changed (fix the file's contexts and kubeconfigs, or the cluster's entry)", .0.join("; "))]
struct UnknownContexts(Vec<String>);

impl Fault for UnknownContexts {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Refused
    }
}

impl Planned {
    /// How each cluster the plan imports from here is reached (those the hub imports with a
    /// secret it holds are not).
    pub fn import_routes(&self) -> Vec<Route> {
        let desired = self.fleet.desired();
        let importing = self.plan.clusters(Action::Import);
        desired
            .iter()
            .filter(|d| importing.contains(&d.name) && !matches!(d.reach, Reach::HubWithSecret(_)))
            .map(|d| Route {
                name: d.name.clone(),
                selection: target_selection(d, self.hub_kubeconfig.as_deref()),
                defaulted: false,
            })
            .collect()
    }
}

/// Runs `plan`.
pub async fn run(args: PlanArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let planned = match until_stopped(planned(&args.fleet, &args.hub)).await {
        Ok(Ok(planned)) => planned,
        Ok(Err(error)) => return report::fail_with(&printer, &Plan::default(), error),
        Err(stop) => return report::fail_with(&printer, &Plan::default(), report::interrupted(stop)),
    };
    note_unlisted(&printer, &planned.plan, args.fleet.prune);
    print(&printer, &planned.plan)
}

/// Says which clusters `--prune` would detach, when it was not given, and which it never
/// touches.
pub fn note_unlisted(printer: &Printer, plan: &Plan, prune: bool) {
    if !prune && !plan.unlisted.is_empty() {
        printer
            .note(&format!("the fleet's, not in its file, left alone without --prune: {}", plan.unlisted.join(", ")));
    }
    if !plan.unmanaged.is_empty() {
        printer.note(&format!(
            "not managed by this fleet file (imported by hand or by another fleet), left alone: {}",
            plan.unmanaged.join(", ")
        ));
    }
}

/// Prints the plan: a row per change, or a line saying there is none.
pub fn print(printer: &Printer, plan: &Plan) -> Result<(), CommandError> {
    let names: String = plan
        .changes
        .iter()
        .map(|c| format!("managedcluster.cluster.open-cluster-management.io/{}\n", c.cluster))
        .collect();
    printer.document(plan, names.trim_end(), |printer| table(printer, plan))?;
    Ok(())
}

fn table(printer: &Printer, plan: &Plan) -> String {
    if plan.changes.is_empty() {
        return "No changes: the hub matches the fleet file.\n".into();
    }
    let rows: Vec<Vec<Cell>> = plan
        .changes
        .iter()
        .map(|c| vec![Cell::plain(&c.cluster), Cell::plain(c.action.as_str()), Cell::plain(&c.detail)])
        .collect();
    printer.table(&["CLUSTER", "ACTION", "DETAIL"], &rows)
}

impl PlanArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> std::time::Duration {
        self.read.timeout()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::flags::Output;
    use crate::fleet::plan::{Action, Change};

    #[test]
    fn people_read_a_row_per_change_or_that_there_is_none() {
        let printer = Printer::with(Output::Table, false);
        let change =
            |cluster: &str, action, detail: &str| Change { cluster: cluster.into(), action, detail: detail.into() };
        let plan = Plan {
            changes: vec![
                change("c1", Action::Import, "through context c1"),
                change("c2", Action::Upgrade, "0.1.0 → 0.2.0"),
            ],
            unlisted: Vec::new(),
            unmanaged: Vec::new(),
        };
        assert_eq!(
            table(&printer, &plan),
            "CLUSTER   ACTION    DETAIL\nc1        import    through context c1\nc2        upgrade   0.1.0 → 0.2.0\n"
        );
        assert_eq!(table(&printer, &Plan::default()), "No changes: the hub matches the fleet file.\n");
    }
}
