//! `fleetctl describe cluster NAME`: everything the hub knows about one cluster — conditions
//! with reasons and ages, the agent's lease, the ManifestWorks and addons of its namespace,
//! recent Events (CSR refusals among them), and a timeline of the three acts (import, upgrade,
//! detach) pieced together from condition and object timestamps.
//!
//! `-o json|yaml` prints the same facts with absolute times instead of ages.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use clap::{Args, Subcommand};
use jiff::Timestamp;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::api::{Api, ListParams};
use kube::{Client, Resource, ResourceExt};
use serde::{Deserialize, Serialize};

use super::connect::{Role, connect};
use super::exit::CommandError;
use super::flags::{HubFlags, OneClusterFlags, OutputFlags, ReadFlags};
use super::get::{self, ReadError, condition_status};
use super::printer::{self, Cell, NONE, Printer};
use super::report;
use super::signals::until_stopped;
use fleetctl_api::conditions as c;
use fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION;
use fleetctl_api::names::CLUSTER_LEASE;
use fleetctl_api::operator::KLUSTERLET_NAME;
use fleetctl_api::{Klusterlet, ManagedCluster, ManagedClusterAddOn, ManifestWork};
use fleetctl_hub::works::klusterlet_work_name;
use fleetctl_kube::{KubeError, kube_error};

/// ManagedCluster conditions in the order a cluster's life sets them.
const CONDITION_ORDER: [&str; 7] = [
    c::MANAGED_CLUSTER_HUB_ACCEPTED,
    c::MANAGED_CLUSTER_JOINED,
    c::MANAGED_CLUSTER_AVAILABLE,
    c::KLUSTERLET_HUB_CONNECTION_DEGRADED,
    c::MANAGED_CLUSTER_IMPORT_SUCCEEDED,
    c::MANAGED_CLUSTER_CLOCK_SYNCED,
    c::MANAGED_CLUSTER_DELETING,
];

/// How many of the most recent Events are shown.
const RECENT_EVENTS: usize = 15;

/// `fleetctl describe …`
#[derive(Debug, Args)]
pub struct DescribeArgs {
    #[command(subcommand)]
    what: What,
    #[command(flatten)]
    hub: HubFlags,
    /// With the cluster's own kubeconfig or context, the managed side's view is shown too.
    #[command(flatten)]
    cluster: OneClusterFlags,
    #[command(flatten)]
    output: OutputFlags,
    #[command(flatten)]
    read: ReadFlags,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Describe one managed cluster: conditions, lease, works, addons, recent Events and the
    /// timeline of its import, upgrades and detach.
    #[command(
        visible_alias = "mcl",
        aliases = ["clusters", "managedcluster", "managedclusters"],
        after_help = super::examples::DESCRIBE
    )]
    Cluster {
        /// The cluster.
        name: String,
    },
}

/// Runs a `describe` subcommand.
/// With `-o json|yaml`, a failure prints `{"name": NAME, "error": {...}}`.
pub async fn run(args: DescribeArgs, printer: &Printer) -> Result<(), CommandError> {
    let What::Cluster { name } = &args.what;
    let printer = printer.with_flags(&args.output);
    let read = async {
        let (client, _) = connect(&args.hub.selection(), Role::Hub).await?;
        let mut description = describe(&client, name).await?;
        if let Some(selection) = args.cluster.selection(&args.hub) {
            let (target, _) = connect(&selection, Role::Target).await?;
            description.managed = Some(managed_side(&target).await?);
        }
        Ok::<_, CommandError>(description)
    };
    let failed = serde_json::json!({"name": name});
    let description = match until_stopped(read).await {
        Ok(Ok(description)) => description,
        Ok(Err(error)) => return report::fail_with(&printer, &failed, error),
        Err(stop) => return report::fail_with(&printer, &failed, report::interrupted(stop)),
    };
    let now = Timestamp::now();
    let resource_name = format!("managedcluster.cluster.open-cluster-management.io/{name}");
    printer.document(&description, &resource_name, |p| render(&description, p, now))?;
    Ok(())
}

/// What `describe cluster` shows, as `-o json|yaml` prints it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Description {
    /// The cluster name.
    pub name: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// Its annotations.
    pub annotations: BTreeMap<String, String>,
    /// When the ManagedCluster was created.
    pub created: Option<Time>,
    /// When its deletion (detach) was requested.
    pub deleting: Option<Time>,
    /// `spec.hubAcceptsClient`.
    pub hub_accepts_client: bool,
    /// The first API server URL the cluster registered.
    pub url: Option<String>,
    /// The Kubernetes version the agent reports.
    pub kubernetes_version: Option<String>,
    /// The klusterlet version the agent runs.
    pub running_version: Option<String>,
    /// The klusterlet version the hub wants.
    pub desired_version: String,
    /// Capacity of the cluster's nodes.
    pub capacity: BTreeMap<String, String>,
    /// Conditions, as stored.
    pub conditions: Vec<Condition>,
    /// The agent's lease on the hub.
    pub lease: Option<LeaseState>,
    /// ManifestWorks of the cluster namespace.
    pub works: Vec<WorkState>,
    /// ManagedClusterAddOns of the cluster namespace.
    pub addons: Vec<AddonState>,
    /// Recent Events about the cluster, its namespace and its CSRs, oldest first.
    pub events: Vec<EventState>,
    /// The three acts, as far as the hub's records tell them.
    pub timeline: Vec<Moment>,
    /// What the managed cluster says, when its kubeconfig was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed: Option<ManagedSide>,
}

/// The managed side's view: the Klusterlet's conditions (`HubConnectionDegraded` says
/// whether the agents' hub credentials work).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedSide {
    /// Whether the Klusterlet `klusterlet` exists on the cluster.
    pub klusterlet: bool,
    /// Its conditions.
    pub conditions: Vec<Condition>,
}

/// Reads the Klusterlet from the managed cluster; a cluster without the Klusterlet kind
/// or object has no klusterlet.
async fn managed_side(target: &Client) -> Result<ManagedSide, ReadError> {
    let klusterlets: Api<Klusterlet> = Api::all(target.clone());
    let klusterlet = match klusterlets.get_opt(KLUSTERLET_NAME).await {
        Ok(klusterlet) => klusterlet,
        Err(kube::Error::Api(status)) if status.code == 404 => None,
        Err(source) => return Err(kube_error("reading the klusterlet on the managed cluster")(source).into()),
    };
    let conditions = klusterlet.as_ref().and_then(|k| k.status.as_ref()).map(|s| s.conditions.clone());
    Ok(ManagedSide { klusterlet: klusterlet.is_some(), conditions: conditions.unwrap_or_default() })
}

/// The agent's lease.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseState {
    /// `managed-cluster-lease`.
    pub name: String,
    /// When the agent last renewed it.
    pub renewed: Option<Time>,
    /// How often the agent should renew it, in seconds.
    pub period_seconds: u64,
}

/// One ManifestWork.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkState {
    /// Its name.
    pub name: String,
    /// Applied condition status.
    pub applied: Option<String>,
    /// Available condition status.
    pub available: Option<String>,
    /// Degraded condition status.
    pub degraded: Option<String>,
    /// How many manifests it carries.
    pub manifests: usize,
    /// When it was created.
    pub created: Option<Time>,
}

/// One ManagedClusterAddOn.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddonState {
    /// The addon name.
    pub name: String,
    /// Available condition status.
    pub available: Option<String>,
    /// Its reason.
    pub reason: Option<String>,
    /// Its message.
    pub message: Option<String>,
    /// Progressing condition reason (`Completed` once the addon runs its current settings).
    pub progressing: Option<String>,
    /// Why the addon's settings did not roll out (Progressing `Failed` or
    /// `ConfigurationUnsupported`), naming the fix.
    pub problem: Option<String>,
}

/// One Event; what it does not say is `null`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventState {
    /// When it (last) happened.
    pub time: Option<Time>,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: Option<String>,
    /// Why, in one word.
    pub reason: Option<String>,
    /// `kind/name` of the object it is about.
    pub object: Option<String>,
    /// Who reported it.
    pub from: Option<String>,
    /// What happened.
    pub note: Option<String>,
    /// How many times it happened.
    pub count: i32,
}

/// The acts of a cluster's life on the hub.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Act {
    /// Act I.
    Import,
    /// Act II.
    Upgrade,
    /// Act III.
    Detach,
}

impl Act {
    fn title(self) -> &'static str {
        match self {
            Self::Import => "Act I — import",
            Self::Upgrade => "Act II — upgrade",
            Self::Detach => "Act III — detach",
        }
    }
}

/// One step of the timeline; `at` is `None` for a state that has no recorded time.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Moment {
    /// Which act.
    pub act: Act,
    /// When.
    pub at: Option<Time>,
    /// What happened.
    pub what: String,
}

/// Reads everything about cluster `name` from the hub. Reads of the optional parts go out
/// together so describe costs one round trip more than `get`.
async fn describe(client: &Client, name: &str) -> Result<Description, ReadError> {
    let cluster = get::cluster(client, name).await?;
    let leases: Api<Lease> = Api::namespaced(client.clone(), name);
    let works: Api<ManifestWork> = Api::namespaced(client.clone(), name);
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(client.clone(), name);
    let local_events: Api<Event> = Api::namespaced(client.clone(), name);
    // kube-runtime's Recorder files Events about cluster-scoped objects (the ManagedCluster,
    // its CSRs) in `default`.
    let default_events: Api<Event> = Api::namespaced(client.clone(), "default");
    let csrs: Api<CertificateSigningRequest> = Api::all(client.clone());
    let all = ListParams::default();
    let csr_params = ListParams::default().labels(&format!("{}={name}", c::LABEL_CLUSTER_NAME));
    let (lease, works, addons, local_events, default_events, csrs) = tokio::try_join!(
        async {
            match leases.get_opt(CLUSTER_LEASE).await {
                // As the lists describe can do without: left out for a user who may not read it.
                Err(kube::Error::Api(status)) if status.code == 403 => {
                    tracing::warn!("reading lease {name}/{CLUSTER_LEASE}: {}; left out", status.message);
                    Ok(None)
                }
                read => read.map_err(kube_error(format!("reading lease {name}/{CLUSTER_LEASE}"))),
            }
        },
        optional_list(&works, &all, "listing works"),
        optional_list(&addons, &all, "listing addons"),
        optional_list(&local_events, &all, "listing events"),
        optional_list(&default_events, &all, "listing events"),
        optional_list(&csrs, &csr_params, "listing certificate signing requests"),
    )?;
    let csr_names: BTreeSet<String> = csrs.iter().map(ResourceExt::name_any).collect();
    let about_cluster = |event: &Event| {
        event.regarding.as_ref().is_some_and(|r| match (r.kind.as_deref(), r.name.as_deref()) {
            (Some("ManagedCluster"), Some(n)) => n == name,
            (Some("CertificateSigningRequest"), Some(n)) => csr_names.contains(n),
            _ => false,
        })
    };
    let events: Vec<Event> = local_events
        .into_iter()
        .chain(default_events.into_iter().filter(about_cluster))
        .filter(|event| of_this_cluster(event, &cluster))
        .collect();
    Ok(build(&cluster, lease.as_ref(), &works, &addons, &events))
}

/// Whether an Event is about this cluster rather than an earlier one of the same name: an
/// Event about the ManagedCluster names its uid, and none is older than the cluster.
fn of_this_cluster(event: &Event, cluster: &ManagedCluster) -> bool {
    let regarding_uid =
        event.regarding.as_ref().filter(|r| r.kind.as_deref() == Some("ManagedCluster")).and_then(|r| r.uid.as_deref());
    if let (Some(uid), Some(ours)) = (regarding_uid, cluster.uid()) {
        return uid == ours;
    }
    let created = cluster.meta().creation_timestamp.as_ref().map(|t| t.0);
    let at = event.metadata.creation_timestamp.as_ref().map(|t| t.0);
    match (created, at) {
        (Some(created), Some(at)) => at >= created,
        _ => true,
    }
}

/// A list that describe can do without: a kind the hub does not serve, or may not be read
/// by this user, is shown as empty (with a log line) rather than failing the whole command.
async fn optional_list<K>(api: &Api<K>, params: &ListParams, action: &str) -> Result<Vec<K>, KubeError>
where
    K: Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match api.list(params).await {
        Ok(list) => Ok(list.items),
        Err(kube::Error::Api(status)) if matches!(status.code, 403 | 404) => {
            tracing::warn!(code = status.code, "{action}: {}; left out", status.message);
            Ok(Vec::new())
        }
        Err(source) => Err(kube_error(action)(source)),
    }
}

/// The description of a cluster from what was read; pure.
fn build(
    cluster: &ManagedCluster,
    lease: Option<&Lease>,
    works: &[ManifestWork],
    addons: &[ManagedClusterAddOn],
    events: &[Event],
) -> Description {
    let mut works: Vec<WorkState> = works
        .iter()
        .map(|work| WorkState {
            name: work.name_any(),
            applied: condition_status(work.conditions(), c::WORK_APPLIED).map(str::to_string),
            available: condition_status(work.conditions(), c::WORK_AVAILABLE).map(str::to_string),
            degraded: condition_status(work.conditions(), c::WORK_DEGRADED).map(str::to_string),
            manifests: work.spec.workload.manifests.len(),
            created: work.meta().creation_timestamp.clone(),
        })
        .collect();
    works.sort_by(|a, b| a.name.cmp(&b.name));
    let mut addons: Vec<AddonState> = addons
        .iter()
        .map(|addon| {
            let available = c::find(addon.conditions(), c::ADDON_AVAILABLE);
            let progressing = c::find(addon.conditions(), c::ADDON_PROGRESSING);
            let failed = [c::REASON_ADDON_FAILED, c::REASON_CONFIGURATION_UNSUPPORTED];
            AddonState {
                name: addon.name_any(),
                available: available.map(|c| c.status.clone()),
                reason: available.map(|c| c.reason.clone()).filter(|s| !s.is_empty()),
                message: available.map(|c| c.message.clone()).filter(|s| !s.is_empty()),
                progressing: progressing.map(|c| c.reason.clone()).filter(|s| !s.is_empty()),
                problem: progressing.filter(|p| failed.contains(&p.reason.as_str())).map(|p| p.message.clone()),
            }
        })
        .collect();
    addons.sort_by(|a, b| a.name.cmp(&b.name));
    let mut events = aggregate(events.iter().map(event_state));
    events.sort_by_key(|e| e.time.as_ref().map(|t| t.0));
    let recent = events.len().saturating_sub(RECENT_EVENTS);
    events.drain(..recent);
    Description {
        name: cluster.name_any(),
        labels: cluster.labels().clone(),
        annotations: cluster.annotations().clone(),
        created: cluster.meta().creation_timestamp.clone(),
        deleting: cluster.meta().deletion_timestamp.clone(),
        hub_accepts_client: cluster.spec.hub_accepts_client,
        url: cluster.spec.managed_cluster_client_configs.first().map(|c| c.url.clone()),
        kubernetes_version: get::kubernetes_version(cluster).map(str::to_string),
        running_version: get::running_version(cluster).map(str::to_string),
        desired_version: get::wanted_version(cluster).to_string(),
        capacity: cluster.status.iter().flat_map(|s| &s.capacity).map(|(k, v)| (k.clone(), v.0.clone())).collect(),
        conditions: cluster.conditions().to_vec(),
        lease: lease.map(|lease| LeaseState {
            name: lease.name_any(),
            renewed: lease.spec.as_ref().and_then(|s| s.renew_time.as_ref()).map(|t| Time(t.0)),
            period_seconds: cluster.spec.lease_duration().as_secs(),
        }),
        timeline: timeline(cluster, &works),
        managed: None,
        works,
        addons,
        events,
    }
}

/// Folds repeats of one Event (same type, reason, object, reporter and note) into one entry
/// with their total count and the latest time: a controller that re-judges a pending CSR on
/// every cluster change says the same thing many times.
fn aggregate(events: impl Iterator<Item = EventState>) -> Vec<EventState> {
    type Key = (Option<String>, Option<String>, Option<String>, Option<String>, Option<String>);
    let mut folded: BTreeMap<Key, EventState> = BTreeMap::new();
    for event in events {
        let key =
            (event.type_.clone(), event.reason.clone(), event.object.clone(), event.from.clone(), event.note.clone());
        match folded.get_mut(&key) {
            Some(seen) => {
                seen.count += event.count;
                if event.time.as_ref().map(|t| t.0) > seen.time.as_ref().map(|t| t.0) {
                    seen.time = event.time;
                }
            }
            None => {
                folded.insert(key, event);
            }
        }
    }
    folded.into_values().collect()
}

fn event_state(event: &Event) -> EventState {
    let time = event
        .series
        .as_ref()
        .map(|s| s.last_observed_time.0)
        .or_else(|| event.event_time.as_ref().map(|t| t.0))
        .or_else(|| event.deprecated_last_timestamp.as_ref().map(|t| t.0))
        .or_else(|| event.metadata.creation_timestamp.as_ref().map(|t| t.0));
    let object = event.regarding.as_ref().and_then(|r| Some(format!("{}/{}", r.kind.as_deref()?, r.name.as_deref()?)));
    EventState {
        time: time.map(Time),
        type_: event.type_.clone(),
        reason: event.reason.clone(),
        object,
        from: event.reporting_controller.clone(),
        note: event.note.clone(),
        count: event.series.as_ref().map_or(1, |s| s.count),
    }
}

/// The three acts from the hub's records: condition transitions for import and detach, the
/// desired-version annotation, the klusterlet work and the reported version for upgrade.
fn timeline(cluster: &ManagedCluster, works: &[WorkState]) -> Vec<Moment> {
    let conditions = cluster.conditions();
    let mut moments = Vec::new();
    let mut add = |act, at: Option<&Time>, what: String| moments.push(Moment { act, at: at.cloned(), what });
    let condition = |type_: &str| c::find(conditions, type_);
    let because = |cond: &Condition| if cond.reason.is_empty() { String::new() } else { format!(" ({})", cond.reason) };

    // Act I — import.
    add(Act::Import, cluster.meta().creation_timestamp.as_ref(), "registered on the hub".into());
    if let Some(accepted) = condition(c::MANAGED_CLUSTER_HUB_ACCEPTED) {
        let what = if accepted.status == c::TRUE { "accepted by the hub" } else { "not accepted by the hub" };
        add(Act::Import, Some(&accepted.last_transition_time), format!("{what}{}", because(accepted)));
    } else if !cluster.spec.hub_accepts_client {
        add(Act::Import, None, "waiting for the hub admin to accept it (hubAcceptsClient: false)".into());
    }
    match condition(c::MANAGED_CLUSTER_JOINED) {
        Some(joined) if joined.status == c::TRUE => {
            add(Act::Import, Some(&joined.last_transition_time), format!("agent joined{}", because(joined)));
        }
        Some(joined) => add(Act::Import, Some(&joined.last_transition_time), format!("agent left{}", because(joined))),
        None if cluster.spec.hub_accepts_client => add(Act::Import, None, "waiting for the agent to join".into()),
        None => {}
    }
    if let Some(available) = condition(c::MANAGED_CLUSTER_AVAILABLE) {
        let what = match available.status.as_str() {
            c::TRUE => "available".to_string(),
            c::FALSE => "unavailable".to_string(),
            other => format!("availability {other}"),
        };
        add(Act::Import, Some(&available.last_transition_time), format!("{what}{}", because(available)));
    }
    let import = condition(c::MANAGED_CLUSTER_IMPORT_SUCCEEDED);
    let detaching = [c::REASON_DETACHING, c::REASON_FORCE_DETACHING];
    if let Some(import) = import.filter(|i| !detaching.contains(&i.reason.as_str())) {
        let what = if import.status == c::TRUE { "import succeeded" } else { "importing" };
        add(Act::Import, Some(&import.last_transition_time), format!("{what}{}", because(import)));
    }

    // Act II — upgrade.
    let desired = get::wanted_version(cluster);
    let running = get::running_version(cluster);
    if cluster.annotations().contains_key(ANNOTATION_KLUSTERLET_VERSION) {
        add(
            Act::Upgrade,
            annotation_written(cluster, ANNOTATION_KLUSTERLET_VERSION).as_ref(),
            format!("{desired} requested"),
        );
    }
    if let Some(work) = works.iter().find(|w| w.name == klusterlet_work_name(&cluster.name_any())) {
        let state = work.applied.as_deref().map_or("not applied yet".to_string(), |s| format!("Applied={s}"));
        add(Act::Upgrade, work.created.as_ref(), format!("klusterlet work {}: {state}", work.name));
    }
    let now = match running {
        Some(running) if running == desired => format!("agent runs {running}, as desired"),
        Some(running) => format!("agent runs {running}, hub wants {desired}"),
        None => format!("agent has not reported its version; hub wants {desired}"),
    };
    add(Act::Upgrade, None, now);

    // Act III — detach.
    match &cluster.meta().deletion_timestamp {
        Some(at) => add(Act::Detach, Some(at), "detach requested (ManagedCluster deleted)".into()),
        None => add(Act::Detach, None, "not requested".into()),
    }
    if let Some(import) = import.filter(|i| detaching.contains(&i.reason.as_str())) {
        add(Act::Detach, Some(&import.last_transition_time), format!("detaching{}", because(import)));
    }
    if let Some(deleting) = condition(c::MANAGED_CLUSTER_DELETING) {
        let what = format!("cleanup{}: {}", because(deleting), deleting.message);
        add(Act::Detach, Some(&deleting.last_transition_time), what);
    }

    // Within an act, in time order; states without a time come last.
    moments.sort_by_key(|m| (m.act, m.at.is_none(), m.at.as_ref().map(|t| t.0)));
    moments
}

/// When an annotation was last written, from `metadata.managedFields` (the only record of it).
fn annotation_written(cluster: &ManagedCluster, key: &str) -> Option<Time> {
    let field = format!("f:{key}");
    cluster
        .meta()
        .managed_fields
        .iter()
        .flatten()
        .filter(|entry| {
            entry
                .fields_v1
                .as_ref()
                .is_some_and(|f| f.0.pointer("/f:metadata/f:annotations").and_then(|a| a.get(&field)).is_some())
        })
        .filter_map(|entry| entry.time.clone())
        .max_by_key(|t| t.0)
}

/// The description as text; pure (the caller passes the clock).
fn render(d: &Description, printer: &Printer, now: Timestamp) -> String {
    let ago = |t: &Option<Time>| t.as_ref().map_or(NONE.to_string(), |t| printer::age(t.0, now));
    let mut out = String::new();
    let mut field = |label: &str, value: String| {
        let _ = writeln!(out, "{:<14}{value}", format!("{label}:"));
    };
    field("Name", d.name.clone());
    field("Labels", joined(&d.labels));
    field("Annotations", joined(&d.annotations));
    field(
        "Created",
        d.created.as_ref().map_or(NONE.to_string(), |t| format!("{} ({} ago)", rfc3339(t), printer::age(t.0, now))),
    );
    if let Some(t) = &d.deleting {
        field("Deleting", format!("{} ({} ago)", rfc3339(t), printer::age(t.0, now)));
    }
    field("Hub accepts", d.hub_accepts_client.to_string());
    field("URL", d.url.clone().unwrap_or_else(|| NONE.into()));
    field("Kubernetes", d.kubernetes_version.clone().unwrap_or_else(|| NONE.into()));
    field(
        "Klusterlet",
        format!("{} running, {} desired", d.running_version.as_deref().unwrap_or(NONE), d.desired_version),
    );
    let capacity: Vec<String> = d
        .capacity
        .iter()
        .map(|(k, v)| if k == "memory" { format!("{k} {}", printer::memory(v)) } else { format!("{k} {v}") })
        .collect();
    field("Capacity", if capacity.is_empty() { NONE.into() } else { capacity.join(", ") });
    let lease = d.lease.as_ref().map_or("none (the hub creates it when it accepts the cluster)".to_string(), |l| {
        let renewed = l
            .renewed
            .as_ref()
            .map_or("never renewed".to_string(), |t| format!("renewed {} ago", printer::age(t.0, now)));
        format!("{} {renewed} (every {}s)", l.name, l.period_seconds)
    });
    field("Lease", lease);

    // The lifecycle order rather than the order of writes, which races between hub and agent.
    let mut conditions: Vec<&Condition> = d.conditions.iter().collect();
    conditions.sort_by_key(|cond| {
        let rank = CONDITION_ORDER.iter().position(|t| *t == cond.type_).unwrap_or(CONDITION_ORDER.len());
        (rank, cond.type_.clone())
    });
    section(
        &mut out,
        "Conditions",
        printer,
        &CONDITION_HEADER,
        conditions.into_iter().map(|cond| condition_row(cond, now)),
    );
    section(
        &mut out,
        "Works",
        printer,
        &["NAME", "APPLIED", "AVAILABLE", "DEGRADED", "MANIFESTS", "AGE"],
        d.works.iter().map(|w| {
            vec![
                Cell::plain(&w.name),
                Cell::status(w.applied.as_deref()),
                Cell::status(w.available.as_deref()),
                Cell::status(w.degraded.as_deref()),
                Cell::plain(w.manifests.to_string()),
                Cell::plain(ago(&w.created)),
            ]
        }),
    );
    section(
        &mut out,
        "Addons",
        printer,
        &["NAME", "AVAILABLE", "REASON", "PROGRESSING", "MESSAGE"],
        d.addons.iter().map(|a| {
            vec![
                Cell::plain(&a.name),
                Cell::status(a.available.as_deref()),
                Cell::plain(a.reason.as_deref().unwrap_or(NONE)),
                Cell::plain(a.progressing.as_deref().unwrap_or(NONE)),
                // A settings problem is what needs doing; otherwise, what the addon reports.
                Cell::plain(a.problem.as_deref().or(a.message.as_deref()).unwrap_or(NONE)),
            ]
        }),
    );
    section(
        &mut out,
        "Events",
        printer,
        &["AGE", "TYPE", "REASON", "OBJECT", "FROM", "MESSAGE"],
        d.events.iter().map(|e| {
            let age = match e.count {
                n if n > 1 => format!("{} (x{n})", ago(&e.time)),
                _ => ago(&e.time),
            };
            let type_ = or_none_if_absent(&e.type_);
            vec![
                Cell::plain(age),
                Cell::toned(type_, if type_ == "Warning" { printer::Tone::Warn } else { printer::Tone::Plain }),
                Cell::plain(or_none_if_absent(&e.reason)),
                Cell::plain(or_none_if_absent(&e.object)),
                Cell::plain(or_none_if_absent(&e.from)),
                Cell::plain(or_none_if_absent(&e.note)),
            ]
        }),
    );

    out.push_str("\nTimeline:\n");
    let mut act = None;
    for moment in &d.timeline {
        if act != Some(moment.act) {
            act = Some(moment.act);
            let _ = writeln!(out, "  {}", moment.act.title());
        }
        let _ = writeln!(out, "    {:<6}  {}", ago(&moment.at), moment.what);
    }
    if let Some(managed) = &d.managed {
        if managed.klusterlet {
            section(
                &mut out,
                "Managed side (Klusterlet klusterlet)",
                printer,
                &CONDITION_HEADER,
                managed.conditions.iter().map(|cond| condition_row(cond, now)),
            );
        } else {
            out.push_str(
                "
Managed side:
  no Klusterlet on the cluster
",
            );
        }
    }
    out
}

/// The columns of a conditions table.
const CONDITION_HEADER: [&str; 5] = ["TYPE", "STATUS", "REASON", "AGE", "MESSAGE"];

fn condition_row(cond: &Condition, now: Timestamp) -> Vec<Cell> {
    vec![
        Cell::plain(&cond.type_),
        Cell::status(Some(&cond.status)),
        Cell::plain(or_none(&cond.reason)),
        Cell::plain(printer::age(cond.last_transition_time.0, now)),
        Cell::plain(or_none(&cond.message)),
    ]
}

/// A titled table indented under its title, or `<none>` when empty.
fn section(out: &mut String, title: &str, printer: &Printer, header: &[&str], rows: impl Iterator<Item = Vec<Cell>>) {
    let rows: Vec<Vec<Cell>> = rows.collect();
    let _ = writeln!(out, "\n{title}:");
    if rows.is_empty() {
        out.push_str("  <none>\n");
        return;
    }
    for line in printer.table(header, &rows).lines() {
        let _ = writeln!(out, "  {line}");
    }
}

fn joined(map: &BTreeMap<String, String>) -> String {
    if map.is_empty() {
        return "<none>".into();
    }
    map.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

fn or_none(text: &str) -> &str {
    if text.is_empty() { NONE } else { text }
}

fn or_none_if_absent(text: &Option<String>) -> &str {
    text.as_deref().map_or(NONE, or_none)
}

fn rfc3339(t: &Time) -> String {
    t.0.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

impl DescribeArgs {
    /// How long the command may take.
    pub fn timeout(&self) -> std::time::Duration {
        self.read.timeout()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn events_of_an_earlier_cluster_of_the_same_name_are_left_out() {
        let cluster: ManagedCluster = serde_json::from_value(serde_json::json!({
            "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
            "metadata": {"name": "c1", "uid": "new", "creationTimestamp": "2025-01-02T00:00:00Z"}, "spec": {}
        }))
        .unwrap();
        let event = |uid: Option<&str>, at: &str| -> Event {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "e", "namespace": "c1", "creationTimestamp": at},
                "eventTime": null,
                "regarding": {"kind": "ManagedCluster", "name": "c1", "uid": uid},
            }))
            .unwrap()
        };
        assert!(of_this_cluster(&event(Some("new"), "2025-01-01T00:00:00Z"), &cluster), "its uid says so");
        assert!(!of_this_cluster(&event(Some("old"), "2025-01-03T00:00:00Z"), &cluster), "another cluster's uid");
        assert!(!of_this_cluster(&event(None, "2025-01-01T00:00:00Z"), &cluster), "older than the cluster");
        assert!(of_this_cluster(&event(None, "2025-01-02T00:00:01Z"), &cluster));
    }
    use crate::cli::flags::Output;

    fn sample() -> ManagedCluster {
        serde_json::from_value(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
            "metadata": {
                "name": "c1", "creationTimestamp": "2025-01-01T00:00:00Z", "labels": {"env": "prod"},
                "annotations": {"fleetctl.io/klusterlet-version": "0.2.0"},
                "managedFields": [{"manager": "fleetctl", "operation": "Apply", "time": "2025-01-01T00:03:00Z",
                                   "fieldsType": "FieldsV1",
                                   "fieldsV1": {"f:metadata": {"f:annotations": {"f:fleetctl.io/klusterlet-version": {}}}}}]
            },
            "spec": {"hubAcceptsClient": true},
            "status": {
                "conditions": [
                    {"type": "HubAcceptedManagedCluster", "status": "True", "reason": "HubClusterAdminAccepted",
                     "message": "Accepted by hub cluster admin", "lastTransitionTime": "2025-01-01T00:00:10Z"},
                    {"type": "ManagedClusterJoined", "status": "True", "reason": "ManagedClusterJoined",
                     "message": "Managed cluster joined", "lastTransitionTime": "2025-01-01T00:01:00Z"},
                    {"type": "ManagedClusterConditionAvailable", "status": "True", "reason": "ManagedClusterAvailable",
                     "message": "Managed cluster is available", "lastTransitionTime": "2025-01-01T00:01:05Z"},
                    {"type": "ManagedClusterImportSucceeded", "status": "True", "reason": "ManagedClusterImported",
                     "message": "Import succeeded", "lastTransitionTime": "2025-01-01T00:02:00Z"}
                ],
                "capacity": {"cpu": "4", "memory": "16Gi"},
                "clusterClaims": [{"name": "klusterlet-version.fleetctl.io", "value": "0.1.0"}]
            }
        }))
        .unwrap()
    }

    #[test]
    fn the_managed_sides_hub_connection_is_shown_only_when_the_cluster_was_read() {
        let now: Timestamp = "2025-01-01T01:00:00Z".parse().unwrap();
        let printer = Printer::with(Output::Table, false);
        let mut d = build(&sample(), None, &[], &[], &[]);
        assert!(!render(&d, &printer, now).contains("Managed side"));
        let mut degraded = c::new_condition(
            c::KLUSTERLET_HUB_CONNECTION_DEGRADED,
            c::TRUE,
            "BootstrapSecretFunctional,HubKubeConfigSecretMissing",
            "secret open-cluster-management-agent/hub-kubeconfig-secret does not exist",
        );
        degraded.last_transition_time = Time("2025-01-01T00:59:00Z".parse().unwrap());
        d.managed = Some(ManagedSide { klusterlet: true, conditions: vec![degraded] });
        let text = render(&d, &printer, now);
        let section = &text[text.find("Managed side (Klusterlet klusterlet):").expect("the section")..];
        let row = section.lines().find(|l| l.contains("HubConnectionDegraded")).expect("the condition");
        assert!(row.contains("True") && row.contains("BootstrapSecretFunctional,HubKubeConfigSecretMissing"), "{row}");
        d.managed = Some(ManagedSide { klusterlet: false, conditions: Vec::new() });
        assert!(render(&d, &printer, now).contains("no Klusterlet on the cluster"));
    }

    #[test]
    fn the_timeline_tells_the_three_acts_in_order() {
        let d = build(&sample(), None, &[], &[], &[]);
        let story: Vec<(Act, &str)> = d.timeline.iter().map(|m| (m.act, m.what.as_str())).collect();
        assert_eq!(
            story,
            [
                (Act::Import, "registered on the hub"),
                (Act::Import, "accepted by the hub (HubClusterAdminAccepted)"),
                (Act::Import, "agent joined (ManagedClusterJoined)"),
                (Act::Import, "available (ManagedClusterAvailable)"),
                (Act::Import, "import succeeded (ManagedClusterImported)"),
                (Act::Upgrade, "0.2.0 requested"),
                (Act::Upgrade, "agent runs 0.1.0, hub wants 0.2.0"),
                (Act::Detach, "not requested"),
            ]
        );
        let requested = d.timeline.iter().find(|m| m.what == "0.2.0 requested").unwrap();
        assert_eq!(requested.at.as_ref().unwrap().0, "2025-01-01T00:03:00Z".parse::<Timestamp>().unwrap());
    }

    #[test]
    fn a_detaching_cluster_moves_to_act_three() {
        let mut cluster = sample();
        cluster.metadata.deletion_timestamp = Some(Time("2025-01-01T01:00:00Z".parse().unwrap()));
        let status = cluster.status.as_mut().unwrap();
        status.conditions.retain(|c| c.type_ != c::MANAGED_CLUSTER_IMPORT_SUCCEEDED);
        status.conditions.push(c::new_condition(
            c::MANAGED_CLUSTER_IMPORT_SUCCEEDED,
            c::FALSE,
            c::REASON_DETACHING,
            "m",
        ));
        status.conditions.push(c::new_condition(
            c::MANAGED_CLUSTER_DELETING,
            c::FALSE,
            c::REASON_RESOURCE_REMAINING,
            "2 works left",
        ));
        let d = build(&cluster, None, &[], &[], &[]);
        let detach: Vec<&str> = d.timeline.iter().filter(|m| m.act == Act::Detach).map(|m| m.what.as_str()).collect();
        assert_eq!(
            detach,
            [
                "detach requested (ManagedCluster deleted)",
                "detaching (ManagedClusterDetaching)",
                "cleanup (ResourceRemaining): 2 works left"
            ]
        );
    }

    #[test]
    fn repeated_events_fold_into_one_with_a_count() {
        let event = |name: &str, time: &str| -> Event {
            serde_json::from_value(json!({
                "metadata": {"name": name, "namespace": "default"}, "eventTime": time,
                "reason": "CSRNotApproved", "type": "Warning", "note": "same", "reportingController": "hub",
                "reportingInstance": "", "regarding": {"kind": "CertificateSigningRequest", "name": "c1-abc"}
            }))
            .unwrap()
        };
        let events = [
            event("e1", "2025-01-01T00:01:00.000000Z"),
            event("e2", "2025-01-01T00:04:00.000000Z"),
            event("e3", "2025-01-01T00:02:00.000000Z"),
        ];
        let d = build(&sample(), None, &[], &[], &events);
        assert_eq!(d.events.len(), 1);
        assert_eq!(d.events[0].count, 3);
        let now: Timestamp = "2025-01-01T00:05:00Z".parse().unwrap();
        let text = render(&d, &Printer::with(Output::Table, false), now);
        assert!(text.contains("  60s (x3)   Warning "), "{text}");
    }

    #[test]
    fn the_text_has_every_section_and_ages() {
        let events: Vec<Event> = vec![
            serde_json::from_value(json!({
                "metadata": {"name": "e1", "namespace": "default"},
                "eventTime": "2025-01-01T00:04:00.000000Z",
                "reason": "CSRNotApproved", "type": "Warning", "note": "signer x is not y",
                "reportingController": "fleetctl-hub", "reportingInstance": "",
                "regarding": {"kind": "CertificateSigningRequest", "name": "c1-abc"}
            }))
            .unwrap(),
        ];
        let d = build(&sample(), None, &[], &[], &events);
        let now: Timestamp = "2025-01-01T00:05:00Z".parse().unwrap();
        let text = render(&d, &Printer::with(Output::Table, false), now);
        for expected in [
            "Name:         c1\n",
            "Labels:       env=prod\n",
            "Created:      2025-01-01T00:00:00Z (5m ago)\n",
            "Klusterlet:   0.1.0 running, 0.2.0 desired\n",
            "Capacity:     cpu 4, memory 16Gi\n",
            "Lease:        none",
            "\nConditions:\n  TYPE ",
            "  ManagedClusterJoined               True     ManagedClusterJoined      4m      Managed cluster joined\n",
            "\nWorks:\n  <none>\n",
            "  60s   Warning   CSRNotApproved   CertificateSigningRequest/c1-abc   fleetctl-hub   signer x is not y\n",
            "\nTimeline:\n  Act I — import\n    5m      registered on the hub\n",
            "  Act III — detach\n    -       not requested\n",
        ] {
            assert!(text.contains(expected), "{expected:?} missing from\n{text}");
        }
    }
}
