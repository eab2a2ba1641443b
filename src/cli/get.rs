//! `fleetctl get clusters|addons|clustersets|placements`: the fleet at a glance, from the hub.
//!
//! One list request per kind (two with `-o wide`, which also counts addons), so the command
//! stays fast on a hub with thousands of clusters; nothing is written.

use std::collections::BTreeMap;

use clap::{Args, Subcommand};
use futures::StreamExt;
use jiff::Timestamp;
use kube::api::{Api, ListParams};
use kube::runtime::watcher;
use kube::{Client, Resource, ResourceExt};
use thiserror::Error;

use super::connect::{Role, connect};
use super::exit::{CommandError, ExitStatus, Fault};
use super::flags::{HubFlags, Output, OutputFlags, ReadFlags};
use super::placements;
use super::printer::{self, Cell, Column, Listing, PrintError, Printer, Row, Tone};
use super::report;
use super::signals::{Stop, until_stopped};
use fleetctl_api::conditions as c;
use fleetctl_api::names::VERSION;
use fleetctl_api::names::{KUBE_VERSION_CLAIM, VERSION_CLAIM};
use fleetctl_api::{ManagedCluster, ManagedClusterAddOn, ManagedClusterSet, Placement};
use fleetctl_hub::import::desired_version;
use fleetctl_kube::{KubeError, kube_error};

/// `fleetctl get …`
#[derive(Debug, Args)]
pub struct GetArgs {
    #[command(subcommand)]
    what: What,
    #[command(flatten)]
    hub: HubFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    read: ReadFlags,
    /// After the list, print each change as it happens (until interrupted, or --timeout).
    #[arg(short = 'w', long, global = true)]
    watch: bool,
}

#[derive(Debug, Subcommand)]
enum What {
    /// List managed clusters: accepted by the hub, joined, available, klusterlet version
    /// (running/desired) and age; `-o wide` adds URL, Kubernetes version, CPU, memory,
    /// addons (available/total) and the search collector's object count.
    #[command(
        visible_alias = "mcl",
        aliases = ["cluster", "managedcluster", "managedclusters", "mcls"],
        after_help = super::examples::GET_CLUSTERS
    )]
    Clusters {
        /// Only these clusters (all when none is given).
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// Only clusters whose labels match this selector (e.g. `env=prod,tier!=edge`).
        #[arg(short = 'l', long, value_name = "SELECTOR", conflicts_with = "names", value_parser = super::selector::parse)]
        selector: Option<String>,
    },
    /// List ManagedClusterAddOns of one cluster, or of all: whether each is available, and why.
    #[command(
        visible_alias = "mca",
        aliases = ["addon", "managedclusteraddon", "managedclusteraddons", "mcas"],
        after_help = super::examples::GET_ADDONS
    )]
    Addons {
        /// Only the addons of this cluster.
        #[arg(value_name = "CLUSTER")]
        cluster: Option<String>,
        /// Only addons whose labels match this selector.
        #[arg(short = 'l', long, value_name = "SELECTOR", value_parser = super::selector::parse)]
        selector: Option<String>,
    },
    /// List ManagedClusterSets: whether each is empty and how many clusters it holds; `-o wide`
    /// adds how it selects them and the namespaces it is bound into.
    #[command(
        visible_alias = "mclset",
        aliases = ["clusterset", "managedclusterset", "managedclustersets", "mclsets"],
        after_help = super::examples::GET_CLUSTERSETS
    )]
    Clustersets {
        /// Only these sets (all when none is given).
        #[arg(value_name = "NAME")]
        names: Vec<String>,
    },
    /// List Placements: whether each is satisfied, why, and how many clusters it selected;
    /// `-o wide` adds its cluster sets, its PlacementDecisions and whether it is misconfigured.
    #[command(aliases = ["placement"], after_help = super::examples::GET_PLACEMENTS)]
    Placements {
        /// Only these Placements (all when none is given).
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// The namespace of the Placements.
        #[arg(
            short = 'n',
            long,
            value_name = "NAMESPACE",
            default_value = "default",
            conflicts_with = "all_namespaces"
        )]
        namespace: String,
        /// The Placements of every namespace.
        #[arg(short = 'A', long)]
        all_namespaces: bool,
    },
}

/// Why reading from the hub failed.
#[derive(Debug, Error)]
pub enum ReadError {
    /// Clusters asked for by name do not exist.
    #[error("{} not found on the hub — list clusters with `fleetctl get clusters`", quoted_clusters(.0))]
    ClustersNotFound(Vec<String>),
    /// Objects asked for by name do not exist.
    #[error("{kind} {} not found on the hub — list them with `{list}`", names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", "))]
    NotFound {
        /// What they are.
        kind: &'static str,
        /// Their names.
        names: Vec<String>,
        /// The command that lists them.
        list: &'static str,
    },
    /// The hub has no CRD for the kind.
    #[error("hub is not initialised (it does not serve {0}) — run `fleetctl hub install`")]
    NotInitialised(&'static str),
    /// The hub refused the credentials or the read (401/403).
    #[error("{0}")]
    Forbidden(String),
    /// A watch of `get -w` ended.
    #[error("watching {0}")]
    Watch(&'static str, #[source] watcher::Error),
    /// A request failed.
    #[error(transparent)]
    Kube(#[from] KubeError),
    /// What was read could not be shown.
    #[error(transparent)]
    Print(#[from] PrintError),
}

/// A cluster that is not there and a hub without the CRDs are what `upgrade` and `import`
/// refuse too: the same code here.
impl Fault for ReadError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::ClustersNotFound(_) | Self::NotFound { .. } | Self::NotInitialised(_) | Self::Forbidden(_) => {
                ExitStatus::Refused
            }
            Self::Kube(_) | Self::Print(_) | Self::Watch(..) => ExitStatus::Failure,
        }
    }
}

fn quoted_clusters(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.as_slice() {
        [one] => format!("cluster {one}"),
        many => format!("clusters {}", many.join(", ")),
    }
}

/// Turns a failed list into [`ReadError`]: a 404 on a list means the kind is not served.
pub(super) fn list_error(kind: &'static str, action: impl Into<String>) -> impl FnOnce(kube::Error) -> ReadError {
    move |source| match &source {
        kube::Error::Api(status) if status.code == 404 => ReadError::NotInitialised(kind),
        _ => read_error("list", kind, action)(source),
    }
}

/// Turns a failed read into [`ReadError`]: a refusal names what was asked.
pub(super) fn read_error(
    verb: &'static str,
    resource: &'static str,
    action: impl Into<String>,
) -> impl FnOnce(kube::Error) -> ReadError {
    move |source| match crate::lifecycle::refusal("hub", verb, resource, &source) {
        Some(message) => ReadError::Forbidden(message),
        None => kube_error(action)(source).into(),
    }
}

/// Reads one cluster; a missing one is [`ReadError::ClustersNotFound`].
pub(super) async fn cluster(client: &Client, name: &str) -> Result<ManagedCluster, ReadError> {
    Api::<ManagedCluster>::all(client.clone())
        .get_opt(name)
        .await
        .map_err(read_error("get", "managedclusters", format!("reading cluster {name}")))?
        .ok_or_else(|| ReadError::ClustersNotFound(vec![name.to_string()]))
}

/// Runs a `get` subcommand. With `-o json|yaml`, a failure prints the list of what was
/// found with the error beside it (`{"kind": "List", "items": [...], "error": {...}}`).
pub async fn run(args: GetArgs, printer: &Printer) -> Result<(), CommandError> {
    let printer = printer.with_flags(&args.output);
    let read = async {
        let (client, _) = connect(&args.hub.selection(), Role::Hub).await?;
        let listing = match &args.what {
            What::Clusters { names, selector } => {
                clusters(&client, names, selector.as_deref(), printer.output() == &Output::Wide).await?
            }
            What::Addons { cluster: name, selector } => {
                if let Some(name) = &name {
                    cluster(&client, name).await?;
                }
                addons(&client, name.as_deref(), selector.as_deref()).await?
            }
            What::Clustersets { names } => placements::cluster_sets(&client, names).await?,
            What::Placements { names, namespace, all_namespaces } => {
                let namespace = (!all_namespaces).then_some(namespace.as_str());
                placements::placements(&client, namespace, names).await?
            }
        };
        Ok::<_, CommandError>((client, listing))
    };
    let (client, listing) = match until_stopped(read).await {
        Ok(Ok(read)) => read,
        Ok(Err(error)) => return report::fail_with(&printer, &printer::list_document(Vec::new()), error),
        Err(stop) => {
            return report::fail_with(&printer, &printer::list_document(Vec::new()), report::interrupted(stop));
        }
    };
    if listing.rows.is_empty() && printer.output() != &Output::Name {
        printer.note("No resources found.");
    }
    printer.list(&listing)?;
    if !args.watch {
        return Ok(());
    }
    // Until interrupted or the --timeout asked for: both are how a watch is meant to end.
    let watched = match &args.what {
        What::Clusters { names, selector } => {
            let api: Api<ManagedCluster> = Api::all(client.clone());
            let row = move |cluster: &ManagedCluster| cluster_row(cluster, None, Timestamp::now());
            until_stopped(watch(&printer, api, selector.as_deref(), &listing, "clusters", names.clone(), row)).await
        }
        What::Addons { cluster: name, selector } => {
            let api: Api<ManagedClusterAddOn> = match name {
                Some(cluster) => Api::namespaced(client.clone(), cluster),
                None => Api::all(client.clone()),
            };
            let row = |addon: &ManagedClusterAddOn| addon_row(addon, Timestamp::now());
            until_stopped(watch(&printer, api, selector.as_deref(), &listing, "addons", Vec::new(), row)).await
        }
        What::Clustersets { names } => {
            let api: Api<ManagedClusterSet> = Api::all(client.clone());
            let row = |set: &ManagedClusterSet| placements::cluster_set_row(set, None, Timestamp::now());
            until_stopped(watch(&printer, api, None, &listing, "cluster sets", names.clone(), row)).await
        }
        What::Placements { names, namespace, all_namespaces } => {
            let api: Api<Placement> =
                if *all_namespaces { Api::all(client.clone()) } else { Api::namespaced(client.clone(), namespace) };
            let row = |placement: &Placement| placements::placement_row(placement, Timestamp::now());
            until_stopped(watch(&printer, api, None, &listing, "placements", names.clone(), row)).await
        }
    };
    match watched {
        Ok(result) => Ok(result?),
        Err(Stop::Deadline(_)) => Ok(()),
        Err(stop) => Err(report::interrupted(stop)),
    }
}

/// `get -w`: each change after the list, as one more row of the same columns (no header),
/// or one more document; `names` (when given) limits it to those objects.
async fn watch<K>(
    printer: &Printer,
    api: Api<K>,
    selector: Option<&str>,
    listing: &Listing,
    what: &'static str,
    names: Vec<String>,
    row: impl Fn(&K) -> Result<Row, PrintError>,
) -> Result<(), ReadError>
where
    K: Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    let mut config = watcher::Config::default();
    if let Some(selector) = selector {
        config = config.labels(selector);
    }
    let mut events = watcher(api, config).boxed();
    let mut initial = true;
    let printer = printer.without_headers();
    let listed = listing.rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    while let Some(event) = events.next().await {
        let object = match event.map_err(|e| ReadError::Watch(what, e))? {
            watcher::Event::Init => continue,
            watcher::Event::InitDone => {
                initial = false;
                continue;
            }
            // The list printed them already.
            watcher::Event::InitApply(object) if initial && listed.contains(&object.name_any()) => continue,
            watcher::Event::InitApply(object) | watcher::Event::Apply(object) | watcher::Event::Delete(object) => {
                object
            }
        };
        if !names.is_empty() && !names.contains(&object.name_any()) {
            continue;
        }
        printer.list(&Listing { rows: vec![row(&object)?], single: true, ..listing.clone() })?;
    }
    Ok(())
}

async fn clusters(client: &Client, names: &[String], selector: Option<&str>, wide: bool) -> Result<Listing, ReadError> {
    let api: Api<ManagedCluster> = Api::all(client.clone());
    let items = async {
        if names.is_empty() {
            let mut params = ListParams::default();
            if let Some(selector) = selector {
                params = params.labels(selector);
            }
            return Ok(api.list(&params).await.map_err(list_error("managedclusters", "listing clusters"))?.items);
        }
        let found = futures::future::try_join_all(names.iter().map(|name| {
            let api = api.clone();
            async move { api.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}"))) }
        }))
        .await?;
        let missing: Vec<String> =
            names.iter().zip(&found).filter(|(_, found)| found.is_none()).map(|(n, _)| n.clone()).collect();
        if !missing.is_empty() {
            return Err(ReadError::ClustersNotFound(missing));
        }
        Ok(found.into_iter().flatten().collect::<Vec<_>>())
    };
    // `-o wide` costs one more list, made at the same time as the first.
    let addons = async { if wide { addon_counts(client).await } else { Ok(BTreeMap::new()) } };
    let (items, addons) = tokio::try_join!(items, addons)?;
    let now = Timestamp::now();
    Ok(Listing {
        resource: "managedcluster.cluster.open-cluster-management.io",
        columns: CLUSTER_COLUMNS.to_vec(),
        rows: items
            .iter()
            .map(|cluster| cluster_row(cluster, addons.get(&cluster.name_any()), now))
            .collect::<Result<_, _>>()?,
        single: names.len() == 1,
    })
}

/// The addons of one cluster at a glance.
#[derive(Debug, Clone, Default, PartialEq)]
struct AddonCounts {
    available: usize,
    total: usize,
    /// What the search collector counted (the head of its summary), if it reports.
    objects: Option<String>,
}

/// The addons of each cluster namespace. A hub without the addon CRD has none.
async fn addon_counts(client: &Client) -> Result<BTreeMap<String, AddonCounts>, ReadError> {
    let api: Api<ManagedClusterAddOn> = Api::all(client.clone());
    let list = match api.list(&ListParams::default()).await {
        Ok(list) => list.items,
        Err(kube::Error::Api(status)) if status.code == 404 => Vec::new(),
        Err(source) => return Err(kube_error("listing addons")(source).into()),
    };
    let mut counts = BTreeMap::new();
    for addon in &list {
        // The server files every ManagedClusterAddOn in its cluster's namespace; one
        // without a namespace belongs to no cluster.
        let Some(cluster) = addon.namespace() else { continue };
        let entry: &mut AddonCounts = counts.entry(cluster).or_default();
        entry.available += usize::from(addon.is_available());
        entry.total += 1;
        if addon.name_any() == fleetctl_api::addon::SEARCH_COLLECTOR && addon.is_available() {
            // "N objects in M namespaces: Kind=n …": the head fits a column.
            let message = c::find(addon.conditions(), c::ADDON_AVAILABLE).map(|c| c.message.as_str());
            entry.objects = message.and_then(|m| m.split(':').next()).map(str::to_string);
        }
    }
    Ok(counts)
}

const CLUSTER_COLUMNS: [Column; 12] = [
    Column::normal("NAME"),
    Column::normal("ACCEPTED"),
    Column::normal("JOINED"),
    Column::normal("AVAILABLE"),
    Column::normal("VERSION"),
    Column::normal("AGE"),
    Column::wide("URL"),
    Column::wide("KUBERNETES"),
    Column::wide("CPU"),
    Column::wide("MEMORY"),
    Column::wide("ADDONS"),
    Column::wide("OBJECTS"),
];

/// The klusterlet version the cluster's agent reports running, if it reported one.
pub(super) fn running_version(cluster: &ManagedCluster) -> Option<&str> {
    claim(cluster, VERSION_CLAIM)
}

fn claim<'a>(cluster: &'a ManagedCluster, name: &str) -> Option<&'a str> {
    let claims = &cluster.status.as_ref()?.cluster_claims;
    claims.iter().find(|c| c.name == name).map(|c| c.value.as_str()).filter(|v| !v.is_empty())
}

/// The Kubernetes version the agent reports (the status field, else the upstream claim).
pub(super) fn kubernetes_version(cluster: &ManagedCluster) -> Option<&str> {
    let reported = cluster.status.as_ref().map(|s| s.version.kubernetes.as_str()).filter(|v| !v.is_empty());
    reported.or_else(|| claim(cluster, KUBE_VERSION_CLAIM))
}

/// The klusterlet version the hub wants the cluster to run.
pub(super) fn wanted_version(cluster: &ManagedCluster) -> &str {
    desired_version(cluster, VERSION)
}

/// The status of a condition, for a cell.
pub(super) fn condition_status<'a>(
    conditions: &'a [k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition],
    type_: &str,
) -> Option<&'a str> {
    c::find(conditions, type_).map(|c| c.status.as_str())
}

/// The capacity the agent reports for a resource (`cpu`, `memory`), if it reported one.
pub(super) fn capacity<'a>(cluster: &'a ManagedCluster, resource: &str) -> Option<&'a str> {
    Some(cluster.status.as_ref()?.capacity.get(resource)?.0.as_str())
}

/// One row of `get clusters`; pure, so the columns are unit-tested.
fn cluster_row(cluster: &ManagedCluster, addons: Option<&AddonCounts>, now: Timestamp) -> Result<Row, PrintError> {
    let conditions = cluster.conditions();
    let running = running_version(cluster);
    let desired = wanted_version(cluster);
    // Yellow while an upgrade (or the first report) is outstanding.
    let version_tone = if running == Some(desired) { Tone::Plain } else { Tone::Warn };
    let url = cluster.spec.managed_cluster_client_configs.first().map(|c| c.url.clone());
    let cells = vec![
        Cell::plain(cluster.name_any()),
        Cell::status(condition_status(conditions, c::MANAGED_CLUSTER_HUB_ACCEPTED)),
        Cell::status(condition_status(conditions, c::MANAGED_CLUSTER_JOINED)),
        Cell::status(condition_status(conditions, c::MANAGED_CLUSTER_AVAILABLE)),
        Cell::toned(format!("{}/{desired}", running.unwrap_or(printer::NONE)), version_tone),
        Cell::plain(created_age(cluster, now)),
        Cell::plain(url.unwrap_or_else(|| printer::NONE.into())),
        Cell::plain(kubernetes_version(cluster).unwrap_or(printer::NONE)),
        Cell::plain(capacity(cluster, "cpu").unwrap_or(printer::NONE)),
        Cell::plain(capacity(cluster, "memory").map_or(printer::NONE.into(), printer::memory)),
        Cell::plain(addons.map_or(printer::NONE.into(), |a| format!("{}/{}", a.available, a.total))),
        Cell::plain(addons.and_then(|a| a.objects.clone()).unwrap_or_else(|| printer::NONE.into())),
    ];
    Ok(Row { name: cluster.name_any(), cells, object: printer::for_output(cluster)? })
}

/// The age of an object, `-` when the server set no creation time.
pub(super) fn created_age<K: Resource>(object: &K, now: Timestamp) -> String {
    object.meta().creation_timestamp.as_ref().map_or(printer::NONE.into(), |t| printer::age(t.0, now))
}

async fn addons(client: &Client, cluster: Option<&str>, selector: Option<&str>) -> Result<Listing, ReadError> {
    let api: Api<ManagedClusterAddOn> = match cluster {
        Some(cluster) => Api::namespaced(client.clone(), cluster),
        None => Api::all(client.clone()),
    };
    let mut params = ListParams::default();
    if let Some(selector) = selector {
        params = params.labels(selector);
    }
    let mut items = api.list(&params).await.map_err(list_error("managedclusteraddons", "listing addons"))?.items;
    items.sort_by_key(|a| (a.namespace(), a.name_any()));
    let now = Timestamp::now();
    Ok(Listing {
        resource: "managedclusteraddon.addon.open-cluster-management.io",
        columns: ADDON_COLUMNS.to_vec(),
        rows: items.iter().map(|addon| addon_row(addon, now)).collect::<Result<_, _>>()?,
        single: false,
    })
}

const ADDON_COLUMNS: [Column; 8] = [
    Column::normal("CLUSTER"),
    Column::normal("NAME"),
    Column::normal("AVAILABLE"),
    Column::normal("REASON"),
    Column::normal("AGE"),
    Column::wide("DEGRADED"),
    Column::wide("PROGRESSING"),
    Column::wide("MESSAGE"),
];

/// One row of `get addons`.
fn addon_row(addon: &ManagedClusterAddOn, now: Timestamp) -> Result<Row, PrintError> {
    let conditions = addon.conditions();
    let available = c::find(conditions, c::ADDON_AVAILABLE);
    let text = |s: Option<&str>| s.filter(|s| !s.is_empty()).unwrap_or(printer::NONE).to_string();
    let cells = vec![
        Cell::plain(addon.namespace().unwrap_or_else(|| printer::NONE.into())),
        Cell::plain(addon.name_any()),
        Cell::status(available.map(|c| c.status.as_str())),
        Cell::plain(text(available.map(|c| c.reason.as_str()))),
        Cell::plain(created_age(addon, now)),
        Cell::status(condition_status(conditions, c::ADDON_DEGRADED)),
        Cell::status(condition_status(conditions, c::ADDON_PROGRESSING)),
        Cell::plain(text(available.map(|c| c.message.as_str()))),
    ];
    Ok(Row { name: addon.name_any(), cells, object: printer::for_output(addon)? })
}

impl GetArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> Option<std::time::Duration> {
        if self.watch { self.read.timeout } else { Some(self.read.timeout()) }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use serde_json::json;

    use super::*;
    use crate::cli::Cli;

    fn cluster(value: serde_json::Value) -> ManagedCluster {
        serde_json::from_value(value).unwrap()
    }

    fn texts(row: &Row) -> Vec<&str> {
        row.cells.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn a_reporting_cluster_fills_every_column() {
        let c1 = cluster(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
            "metadata": {"name": "c1", "creationTimestamp": "2025-01-01T00:00:00Z",
                         "annotations": {"fleetctl.io/klusterlet-version": "0.2.0"}},
            "spec": {"hubAcceptsClient": true, "managedClusterClientConfigs": [{"url": "https://c1:6443"}]},
            "status": {
                "conditions": [
                    {"type": "HubAcceptedManagedCluster", "status": "True", "reason": "r", "message": "", "lastTransitionTime": "2025-01-01T00:00:00Z"},
                    {"type": "ManagedClusterJoined", "status": "True", "reason": "r", "message": "", "lastTransitionTime": "2025-01-01T00:00:00Z"},
                    {"type": "ManagedClusterConditionAvailable", "status": "Unknown", "reason": "r", "message": "", "lastTransitionTime": "2025-01-01T00:00:00Z"}
                ],
                "capacity": {"cpu": "8", "memory": "32Gi"},
                "clusterClaims": [
                    {"name": "klusterlet-version.fleetctl.io", "value": "0.1.0"},
                    {"name": "kubeversion.open-cluster-management.io", "value": "v1.33.1"}
                ]
            }
        }));
        let now: Timestamp = "2025-01-01T00:05:30Z".parse().unwrap();
        let counts = AddonCounts { available: 1, total: 2, objects: Some("12 objects in 3 namespaces".into()) };
        let row = cluster_row(&c1, Some(&counts), now).unwrap();
        assert_eq!(
            texts(&row),
            [
                "c1",
                "True",
                "True",
                "Unknown",
                "0.1.0/0.2.0",
                "5m30s",
                "https://c1:6443",
                "v1.33.1",
                "8",
                "32Gi",
                "1/2",
                "12 objects in 3 namespaces"
            ]
        );
        assert_eq!(row.cells[4].tone, Tone::Warn);
        assert_eq!(row.cells[3].tone, Tone::Warn);
    }

    #[test]
    fn a_new_cluster_shows_dashes_and_the_hub_version() {
        let c1 = cluster(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
            "metadata": {"name": "new"}, "spec": {}
        }));
        let row = cluster_row(&c1, None, Timestamp::now()).unwrap();
        let desired = format!("-/{VERSION}");
        assert_eq!(texts(&row), ["new", "-", "-", "-", desired.as_str(), "-", "-", "-", "-", "-", "-", "-"]);
        assert_eq!(row.cells.len(), CLUSTER_COLUMNS.len());
    }

    #[test]
    fn an_addon_row_shows_availability_and_why() {
        let addon: ManagedClusterAddOn = serde_json::from_value(json!({
            "apiVersion": "addon.open-cluster-management.io/v1alpha1", "kind": "ManagedClusterAddOn",
            "metadata": {"name": "search-collector", "namespace": "c1"},
            "spec": {},
            "status": {"conditions": [{"type": "Available", "status": "False", "reason": "ManagedClusterAddOnLeaseNotFound",
                                       "message": "no lease", "lastTransitionTime": "2025-01-01T00:00:00Z"}]}
        }))
        .unwrap();
        let row = addon_row(&addon, Timestamp::now()).unwrap();
        assert_eq!(
            texts(&row),
            ["c1", "search-collector", "False", "ManagedClusterAddOnLeaseNotFound", "-", "-", "-", "no lease"]
        );
    }

    #[test]
    fn missing_clusters_are_named_with_the_way_to_list_them() {
        let one = ReadError::ClustersNotFound(vec!["nope".into()]).to_string();
        assert_eq!(one, "cluster \"nope\" not found on the hub — list clusters with `fleetctl get clusters`");
        let two = ReadError::ClustersNotFound(vec!["a".into(), "b".into()]).to_string();
        assert!(two.starts_with("clusters \"a\", \"b\" not found"), "{two}");
    }

    #[test]
    fn get_mcl_is_get_clusters_and_a_selector_excludes_names() {
        let parsed = |args: &[&str]| format!("{:?}", Cli::try_parse_from(args).expect("parses").command);
        let clusters = parsed(&["fleetctl", "get", "clusters", "-l", "env=prod"]);
        for alias in ["mcl", "cluster", "managedcluster", "managedclusters", "mcls"] {
            assert_eq!(parsed(&["fleetctl", "get", alias, "-l", "env=prod"]), clusters, "{alias}");
        }
        assert!(clusters.contains("env=prod"), "{clusters}");
        let both = Cli::try_parse_from(["fleetctl", "get", "clusters", "c1", "-l", "env=prod"]).expect_err("refused");
        assert_eq!(both.kind(), clap::error::ErrorKind::ArgumentConflict);
    }
}
