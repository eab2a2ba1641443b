//! `fleetctl import NAME…`: Act I from the command line, for one cluster or many at once
//! (`--contexts`, `--all-contexts`), `--parallel` at a time.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use clap::Args;
use thiserror::Error;

use super::connect::{self, Right, Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{ClusterFlags, DryRunFlags, HubFlags, OutputFlags, WaitFlags};
use super::printer::Printer;
use super::progress::Reporter;
use super::report;
use super::targets::{self, Named, Reach, Route, Target};
use super::{many, signals::until_stopped};
use crate::lifecycle::Outcome;
use crate::lifecycle::import::{AddonSettings, AutoImport, Hosting, ImportOptions, Imported, check_label, import};
use fleetctl_api::operator::InstallMode;

/// `fleetctl import …`
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The clusters' names on the hub (DNS-1123 labels), each reached through the context
    /// `--cluster-context` gives it, or NAME=CONTEXT.
    #[arg(value_name = "NAME[=CONTEXT]", required_unless_present_any = ["contexts", "all_contexts"])]
    names: Vec<String>,
    /// Import the clusters of these contexts, each named as its context (NAME=CONTEXT to
    /// name it otherwise), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "CONTEXT", conflicts_with_all = ["names", "all_contexts"])]
    contexts: Vec<String>,
    /// Import the cluster of every context of --cluster-kubeconfig but the hub's, each named
    /// as its context.
    #[arg(long, requires = "cluster_kubeconfig", conflicts_with = "names")]
    all_contexts: bool,
    /// How many clusters to import at once.
    #[arg(long, value_name = "N", default_value = "5", value_parser = super::flags::parallel)]
    parallel: NonZeroUsize,
    /// A label for the ManagedClusters (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    labels: Vec<(String, String)>,
    /// Refused: import selects no clusters (see --label).
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR", hide = true, value_parser = no_selector)]
    selector: Option<String>,
    /// Import a cluster whose context reaches the hub itself: a hub that manages itself,
    /// as ACM's local-cluster.
    #[arg(long)]
    allow_hub_as_target: bool,
    /// Addons to enable, comma-separated (e.g. search-collector,cert-policy-controller).
    #[arg(long, value_delimiter = ',')]
    addons: Vec<String>,
    /// Stop once the manifests are applied to the targets.
    #[arg(long)]
    no_wait: bool,
    /// Print the one-line command to run on the target instead of applying it (one NAME).
    #[arg(long, conflicts_with_all = ["contexts", "all_contexts"])]
    print_command: bool,
    /// Let the hub apply the import manifests itself: write each target's kubeconfig
    /// (its context alone) into the cluster's auto-import-secret, which the hub deletes
    /// once it has imported the cluster.
    #[arg(long, conflicts_with = "print_command")]
    auto: bool,
    /// Import even if a target is joined to another hub.
    #[arg(long)]
    force: bool,
    /// Use the hub namespace of the cluster's name although it exists already and was not
    /// made for this cluster; detach then keeps it and what it holds.
    #[arg(long)]
    adopt_namespace: bool,
    /// How the klusterlet runs its agents: `default` (a registration and a work agent) or
    /// `singleton` (one agent doing both, upstream's Singleton mode).
    #[arg(long, value_enum, default_value_t = KlusterletMode::Default)]
    klusterlet_mode: KlusterletMode,
    /// Run the klusterlet on another managed cluster of the hub, this one (upstream's Hosted
    /// mode): its agents reach the cluster with a token of a ServiceAccount the import makes
    /// there (kube-system/fleetctl-hosted-klusterlet, cluster-admin), removed on detach.
    #[arg(long, value_name = "CLUSTER", conflicts_with_all = ["print_command", "auto", "klusterlet_mode"])]
    hosting_cluster: Option<String>,
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    cluster: ClusterFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    wait: WaitFlags,
    #[command(flatten)]
    dry_run: DryRunFlags,
}

/// What an import needs on the hub, checked before anything is written.
pub(super) const HUB_RIGHTS: [Right; 6] = [
    Right::new("create", "", "namespaces"),
    Right::new("patch", "", "namespaces"),
    Right::new("create", "cluster.open-cluster-management.io", "managedclusters"),
    Right::new("patch", "cluster.open-cluster-management.io", "managedclusters"),
    Right::new("update", "register.open-cluster-management.io", "managedclusters/accept"),
    Right::new("patch", "agent.open-cluster-management.io", "klusterletaddonconfigs"),
];

/// What an import needs on each target to apply the import manifests.
pub(super) const TARGET_RIGHTS: [Right; 3] = [
    Right::new("create", "apiextensions.k8s.io", "customresourcedefinitions"),
    Right::new("create", "", "namespaces"),
    Right::new("create", "rbac.authorization.k8s.io", "clusterrolebindings"),
];

/// `-l` on import: a selector selects clusters, which import does not; labels are set
/// with `--label`.
fn no_selector(_: &str) -> Result<String, String> {
    Err("import selects no clusters: -l/--selector selects clusters in get, upgrade and detach; label the \
         clusters you import with --label KEY=VALUE"
        .into())
}

/// `--klusterlet-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KlusterletMode {
    /// A registration agent and a work agent.
    Default,
    /// One agent doing both.
    Singleton,
}

impl From<KlusterletMode> for fleetctl_api::operator::InstallMode {
    fn from(mode: KlusterletMode) -> Self {
        match mode {
            KlusterletMode::Default => Self::Default,
            KlusterletMode::Singleton => Self::Singleton,
        }
    }
}

/// `--print-command` for more than one cluster.
#[derive(Debug, Error)]
#[error("--print-command prints the command of one cluster: name only one")]
struct OneCommand;

impl Fault for OneCommand {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::Usage
    }
}

fn parse_label(text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("invalid label {text:?}: write it as key=value"))?;
    check_label(key, value)?;
    Ok((key.to_string(), value.to_string()))
}

/// Runs `import`: every cluster is checked before the first write (its context, that it
/// answers, is not the hub, and that the user may import it), then imported, `--parallel` at
/// a time.
pub async fn run(args: ImportArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let reporter = Reporter::new(&printer);
    let prepared = match until_stopped(prepare(&args, &printer)).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(error)) => return report::fail(&printer, error),
        Err(stop) => return report::fail(&printer, report::interrupted(stop)),
    };
    let Prepared { hub, hub_url, targets, clients } = prepared;
    if args.print_command {
        let [target] = targets.as_slice() else { return report::fail(&printer, OneCommand.into()) };
        let result = until_stopped(import_one(&args, &hub, &hub_url, target, None, &reporter)).await;
        reporter.finish();
        return match result {
            Ok(Ok(Imported::Command(command))) => Ok(printer.data(&format!("{command}\n"))?),
            Ok(Ok(Imported::Already(outcome) | Imported::Done(outcome))) => {
                report::finish(&printer, &reporter, vec![(target.name.clone(), Ok(outcome))])
            }
            Ok(Err(error)) => report::finish(&printer, &reporter, vec![(target.name.clone(), Err(error))]),
            Err(stop) => report::finish(&printer, &reporter, report::stopped(&reporter, &names_of(target), stop)),
        };
    }
    let names = targets::names(&targets);
    let results = many::each(&names, args.parallel, &reporter, |i| {
        let (args, hub, hub_url, reporter, target) = (&args, &hub, &hub_url, &reporter, &targets[i]);
        let client = clients.get(i);
        async move { outcome(import_one(args, hub, hub_url, target, client, reporter).await?) }
    })
    .await;
    reporter.finish();
    report::finish(&printer, &reporter, results)
}

/// The hub, the clusters to import and their clients, all checked.
struct Prepared {
    hub: kube::Client,
    hub_url: String,
    targets: Vec<Target>,
    /// One per target, in order (none with `--print-command`).
    clients: Vec<(kube::Client, kube::Config)>,
}

/// Everything checked before the first write.
async fn prepare(args: &ImportArgs, printer: &Printer) -> Result<Prepared, CommandError> {
    let (hub, hub_config) = connect(&args.hub.selection(), Role::Hub).await?;
    let hub_url = hub_config.cluster_url.to_string();
    let named = Named { names: &args.names, contexts: &args.contexts, all_contexts: args.all_contexts };
    let reach = if args.print_command { Reach::None } else { Reach::Needed };
    let (targets, skipped) = targets::targets(named, &args.cluster, &args.hub, &hub_url, reach)?;
    for context in skipped {
        printer.note(&format!("skipping context {context}: it is the hub"));
    }
    if args.print_command && targets.len() > 1 {
        return Err(OneCommand.into());
    }
    connect::check_rights(&hub, Role::Hub, None, &HUB_RIGHTS).await?;
    let clients = if args.print_command {
        Vec::new()
    } else {
        let routes: Vec<Route> = targets
            .iter()
            .map(|target| Route {
                name: target.name.clone(),
                selection: args.cluster.selection(&args.hub, target.context.clone()),
                defaulted: target.defaulted,
            })
            .collect();
        targets::reach_all(&routes, (&hub, &hub_config), args.allow_hub_as_target, &TARGET_RIGHTS).await?
    };
    Ok(Prepared { hub, hub_url, targets, clients })
}

fn names_of(target: &Target) -> [String; 1] {
    [target.name.clone()]
}

fn outcome(imported: Imported) -> Result<Outcome, CommandError> {
    match imported {
        Imported::Already(outcome) | Imported::Done(outcome) => Ok(outcome),
        // Only `--print-command` asks for the command, and it is run on its own.
        Imported::Command(_) => Err(OneCommand.into()),
    }
}

/// Imports one cluster through its client (none with `--print-command`).
async fn import_one(
    args: &ImportArgs,
    hub: &kube::Client,
    hub_url: &str,
    target: &Target,
    client: Option<&(kube::Client, kube::Config)>,
    reporter: &Reporter,
) -> Result<Imported, CommandError> {
    let standalone = || {
        let selection = args.cluster.selection(&args.hub, target.context.clone());
        fleetctl_kube::standalone(&selection)
            .map_err(|source| connect::ConnectError::Config { role: Role::Target, source })
    };
    let auto_import = match args.auto {
        true => Some(AutoImport::Kubeconfig(standalone()?)),
        false => None,
    };
    let hosting = match &args.hosting_cluster {
        Some(cluster) => Some(Hosting { cluster: cluster.clone(), reach: standalone()? }),
        None => None,
    };
    let klusterlet_mode = match hosting {
        Some(_) => InstallMode::Hosted,
        None => args.klusterlet_mode.into(),
    };
    let options = ImportOptions {
        labels: args.labels.iter().cloned().collect::<BTreeMap<_, _>>(),
        addons: args.addons.clone(),
        addon_settings: AddonSettings::default(),
        wait: !args.no_wait,
        print_command: args.print_command,
        auto_import,
        force: args.force,
        adopt_namespace: args.adopt_namespace,
        klusterlet_mode,
        hosting,
        dry_run: args.dry_run.dry_run,
        url: client.map(|(_, config)| config.cluster_url.to_string()),
        ..ImportOptions::new(&target.name, args.wait.timeout)
    };
    let client = client.map(|(client, _)| client);
    Ok(import(hub, hub_url, client, &options, &|event| reporter.show(event)).await?)
}

impl ImportArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> std::time::Duration {
        self.wait.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_key_value_pairs() {
        assert_eq!(parse_label("env=prod"), Ok(("env".into(), "prod".into())));
        assert_eq!(parse_label("empty="), Ok(("empty".into(), String::new())));
        assert!(parse_label("novalue").is_err());
        assert!(parse_label("=x").is_err());
        assert!(parse_label("bad key=x").is_err());
        assert!(parse_label("env=two words").is_err());
        assert!(parse_label("fleetctl.io/x=y").is_err());
    }
}
