//! Act I, driven from outside: preflight, the hub objects, the import secret, the
//! manifests applied to the target, and the wait until the cluster is Available.
//! Every step is idempotent, so a rerun after an interruption finishes the job.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta};
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::config::Kubeconfig;
use kube::{Client, ResourceExt};

use super::detach::{TARGET_CLUSTER_RBAC, TARGET_CRDS, TARGET_NAMESPACES};
use super::hosted::{self, ACCESS};
use super::{DryRun, LifecycleError, Observer, Outcome, Progress, hub_read, join, refuse_if_leaving, step, wait_for};
use fleetctl_api::addon::{KlusterletAddonAgentConfigSpec, ProxyConfig, ProxyPolicy};
use fleetctl_api::clusterset::CLUSTER_SET_LABEL;
use fleetctl_api::conditions::{ANNOTATION_KLUSTERLET_DEPLOY_MODE, ANNOTATION_RETAIN_NAMESPACE};
use fleetctl_api::names::{
    AGENT_NAMESPACE, ANNOTATION_CREATED_FOR_CLUSTER, ANNOTATION_FLEET, ANNOTATION_HOSTING_CLUSTER,
    AUTO_IMPORT_KEY_KUBECONFIG, AUTO_IMPORT_SECRET, AUTO_IMPORT_TYPE_KUBECONFIG, BOOTSTRAP_SECRET,
    BOOTSTRAP_SERVICE_ACCOUNT, KLUSTERLET, OCM_NAMESPACE, hosted_klusterlet_work, import_secret,
    is_protected_namespace, is_reserved_label, klusterlet_crds_work, klusterlet_work,
};
use fleetctl_api::operator::InstallMode;
use fleetctl_api::placement::PLACEMENT_LABEL;
use fleetctl_api::{
    KlusterletAddonConfig, KlusterletAddonConfigSpec, ManagedCluster, ManifestWork, Placement, PlacementDecision,
};
use fleetctl_kube::kubeconfig::{self, secret_text};
use fleetctl_kube::{ApplyOptions, FIELD_MANAGER, apply_yaml, kube_error, parse_documents, validation};

/// The addons `--addons` may name: those fleetctl has agents for.
pub const ADDONS: [&str; 3] = ["cert-policy-controller", "iam-policy-controller", "search-collector"];

/// What to import and how.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The cluster's name on the hub.
    pub name: String,
    /// Labels of the ManagedCluster.
    pub labels: BTreeMap<String, String>,
    /// Addons to enable.
    pub addons: Vec<String>,
    /// Their proxy settings (none: no proxy).
    pub addon_settings: AddonSettings,
    /// Wait until the cluster is Available (else stop once the manifests are applied).
    pub wait: bool,
    /// Stop after the import secret and return the command to paste on the target.
    pub print_command: bool,
    /// Let the hub apply the import manifests itself, with these credentials in the
    /// cluster's auto-import secret.
    pub auto_import: Option<AutoImport>,
    /// Import even if the target is joined to another hub.
    pub force: bool,
    /// Use a hub namespace of the cluster's name that exists already (detach then keeps it).
    pub adopt_namespace: bool,
    /// How the klusterlet runs its agents: Default (registration and work), Singleton (one
    /// agent) or Hosted (on another managed cluster, [`Self::hosting`]), asked of the hub with
    /// ACM's annotation of the deploy mode.
    pub klusterlet_mode: InstallMode,
    /// In Hosted mode, the cluster the agents run on and how it reaches this one.
    pub hosting: Option<Hosting>,
    /// How long to wait.
    pub timeout: Duration,
    /// Say the writes instead of making them.
    pub dry_run: Option<DryRun>,
    /// The identity of the fleet file whose `apply` imports the cluster (it then owns it).
    pub fleet: Option<String>,
    /// The target's API server as this command reaches it, recorded on the ManagedCluster
    /// (`spec.managedClusterClientConfigs`) for `get clusters -o wide`.
    pub url: Option<String>,
}

impl ImportOptions {
    /// The plain import of `name`: no labels or addons, applied from here, waited for.
    pub fn new(name: &str, timeout: Duration) -> Self {
        Self {
            name: name.to_string(),
            labels: BTreeMap::new(),
            addons: Vec::new(),
            addon_settings: AddonSettings::default(),
            wait: true,
            print_command: false,
            auto_import: None,
            force: false,
            adopt_namespace: false,
            klusterlet_mode: InstallMode::Default,
            hosting: None,
            timeout,
            dry_run: None,
            fleet: None,
            url: None,
        }
    }
}

/// Where a Hosted-mode cluster's agents run.
#[derive(Debug, Clone)]
pub struct Hosting {
    /// The managed cluster of the hub they run on.
    pub cluster: String,
    /// The cluster being imported as this command reaches it (its server and CA, for the
    /// kubeconfig the hosting cluster gets; its credentials are not handed on).
    pub reach: Kubeconfig,
}

/// The credentials an auto-import hands the hub.
#[derive(Debug, Clone)]
pub enum AutoImport {
    /// The target's own kubeconfig (its Debug output hides the credentials).
    Kubeconfig(Kubeconfig),
    /// A copy of a Secret on the hub that holds them (a `kubeconfig`, or `server` and
    /// `token`), so that they never pass through here.
    Copy {
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
    },
}

/// How the addon agents reach the network: the proxy policy of each (absent: none), and
/// the proxy of those with `CustomProxy`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AddonSettings {
    /// Proxy policies by addon.
    pub policies: BTreeMap<String, ProxyPolicy>,
    /// The proxy of agents with `CustomProxy`.
    pub proxy: ProxyConfig,
}

/// Checks a cluster name: a DNS-1123 label (it names the hub namespace too) that is not
/// the name of a system namespace.
pub fn check_name(name: &str) -> Result<(), String> {
    validation::dns1123_label(name).map_err(|why| format!("invalid cluster name {name:?}: a cluster name {why}"))?;
    if is_protected_namespace(name) {
        return Err(format!("cluster name {name:?} is the name of a system namespace: choose another name"));
    }
    Ok(())
}

/// Checks a label asked for on the ManagedCluster: Kubernetes' rules for keys and values,
/// and no key in a domain OCM or fleetctl write themselves — but the cluster-set label, which
/// is the user's to set in OCM (the join policy checks the right to).
pub fn check_label(key: &str, value: &str) -> Result<(), String> {
    validation::label_key(key).map_err(|why| format!("invalid label key {key:?}: {why}"))?;
    validation::label_value(value).map_err(|why| format!("invalid value {value:?} for label {key}: it {why}"))?;
    if is_reserved_label(key) && key != CLUSTER_SET_LABEL {
        return Err(format!(
            "label {key} is reserved: OCM and fleetctl set the labels of open-cluster-management.io and fleetctl.io \
             themselves; use a prefix of your own"
        ));
    }
    Ok(())
}

/// What preflight found on the hub.
struct Found {
    /// The ManagedCluster, if it exists.
    cluster: Option<ManagedCluster>,
    /// Whether the cluster namespace is fleetctl's to make (and so a detach's to delete):
    /// absent, or made for this cluster before.
    namespace_ours: bool,
    /// Its KlusterletAddonConfig, if it has one.
    addons: Option<KlusterletAddonConfig>,
    /// With `--force`: the cluster and hub the target was joined to, which still lists it.
    left_behind: Option<(String, String)>,
    /// The hub runs no import controller but has OCM's bootstrap identity (plain OCM): the
    /// cluster joins the clusteradm way ([`super::join`]).
    joins: bool,
}

impl Found {
    /// Whether the ManagedCluster keeps its namespace on detach: asked now, or before.
    fn retains_namespace(&self, options: &ImportOptions) -> bool {
        options.adopt_namespace
            || self.cluster.as_ref().is_some_and(|c| c.annotations().contains_key(ANNOTATION_RETAIN_NAMESPACE))
    }
}

/// How the labels fleetctl set on a ManagedCluster change with this import.
#[derive(Debug, Default, PartialEq)]
pub struct LabelChanges {
    /// Labels set or given a new value.
    pub set: BTreeMap<String, String>,
    /// Labels an earlier import set that this one leaves out, and so removes.
    pub removed: Vec<String>,
}

impl LabelChanges {
    /// Compares the labels asked for with those the existing cluster has from fleetctl.
    pub fn of(cluster: &ManagedCluster, asked: &BTreeMap<String, String>) -> Self {
        let current = cluster.labels();
        let set = asked.iter().filter(|(k, v)| current.get(*k) != Some(*v)).map(|(k, v)| (k.clone(), v.clone()));
        let owned = owned_labels(cluster);
        let removed = owned.into_iter().filter(|k| !asked.contains_key(k)).collect();
        Self { set: set.collect(), removed }
    }

    /// Whether nothing changes.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.removed.is_empty()
    }

    /// The changes in words.
    pub fn describe(&self, cluster: &str) -> String {
        let mut parts = Vec::new();
        if !self.set.is_empty() {
            let set: Vec<String> = self.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
            parts.push(format!("set {}", set.join(", ")));
        }
        if !self.removed.is_empty() {
            parts.push(format!("removed {} (set by an earlier import)", self.removed.join(", ")));
        }
        format!("labels of cluster {cluster} updated: {}", parts.join("; "))
    }
}

/// The managed-fields entries of fleetctl's own server-side applies (an import's).
fn applied_by_fleetctl(cluster: &ManagedCluster) -> impl Iterator<Item = &ManagedFieldsEntry> {
    let entries = cluster.metadata.managed_fields.iter().flatten();
    entries.filter(|e| e.manager.as_deref() == Some(FIELD_MANAGER) && e.operation.as_deref() == Some("Apply"))
}

/// The label keys fleetctl's own server-side applies own on the cluster.
fn owned_labels(cluster: &ManagedCluster) -> Vec<String> {
    applied_by_fleetctl(cluster)
        .filter_map(|e| e.fields_v1.as_ref())
        .filter_map(|fields| fields.0.pointer("/f:metadata/f:labels").and_then(|l| l.as_object()).cloned())
        .flat_map(|labels| labels.into_iter().filter_map(|(k, _)| k.strip_prefix("f:").map(str::to_string)))
        .collect()
}

/// How an import ended.
#[derive(Debug)]
pub enum Imported {
    /// It was imported and Available already; nothing was done.
    Already(Outcome),
    /// The command a person runs on the target.
    Command(String),
    /// Imported now.
    Done(Outcome),
}

/// The target's view of its klusterlet: the cluster it joins as, and the hub its bootstrap
/// kubeconfig names (`None` when there is no bootstrap kubeconfig, or none that names a hub).
async fn target_membership(target: &Client) -> Result<Option<(String, Option<String>)>, LifecycleError> {
    let klusterlets: Api<fleetctl_api::Klusterlet> = Api::all(target.clone());
    let klusterlet = match klusterlets.get_opt(KLUSTERLET).await {
        Ok(k) => k,
        // No Klusterlet CRD: never imported anywhere.
        Err(kube::Error::Api(status)) if status.code == 404 => None,
        Err(e) => return Err(kube_error("reading the target's klusterlet")(e).into()),
    };
    let Some(klusterlet) = klusterlet else { return Ok(None) };
    let secrets: Api<Secret> = Api::namespaced(target.clone(), AGENT_NAMESPACE);
    let secret = secrets
        .get_opt(BOOTSTRAP_SECRET)
        .await
        .map_err(kube_error(format!("reading the target's secret {AGENT_NAMESPACE}/{BOOTSTRAP_SECRET}")))?;
    let hub = secret.and_then(|secret| bootstrap_hub(&secret));
    Ok(Some((klusterlet.spec.cluster_name.clone(), hub)))
}

/// The hub a bootstrap secret points at. A secret whose kubeconfig cannot be read names no
/// hub: the membership check then goes by the cluster name alone (and says so in the log).
fn bootstrap_hub(secret: &Secret) -> Option<String> {
    let text = secret_text(secret).remove("kubeconfig")?;
    let parsed = match fleetctl_kube::kubeconfig::parse(&text) {
        Ok(parsed) => parsed,
        Err(e) => {
            tracing::warn!("the target's bootstrap kubeconfig is not a kubeconfig: {e}");
            return None;
        }
    };
    match kubeconfig::endpoint(&parsed) {
        Ok(endpoint) => Some(endpoint.server),
        Err(e) => {
            tracing::warn!("the target's bootstrap kubeconfig names no hub: {e}");
            None
        }
    }
}

/// Something of a klusterlet that is leaving the target: a detach that returned once the
/// hub was clean may leave the klusterlet operator's last steps running there. Applying
/// the import manifests meanwhile would be refused (a terminating namespace takes no new
/// content) or undone (what the leaving operator handed to the garbage collector — owned
/// by the Klusterlet — goes, and a CRD being deleted takes its custom resources with it).
#[derive(Debug, Clone, Copy)]
enum Leaving {
    Klusterlet,
    Namespace(&'static str),
    ClusterRole(&'static str),
    ClusterRoleBinding(&'static str),
    Crd(&'static str),
}

/// Whether an object is going: being deleted, or handed by a leaving klusterlet operator to
/// the garbage collector (owned by a Klusterlet). A kind the target does not serve holds
/// nothing that goes.
async fn going<K>(api: Api<K>, name: &str) -> Result<bool, LifecycleError>
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned,
{
    let object = match api.get_opt(name).await {
        Ok(object) => object,
        Err(kube::Error::Api(status)) if status.code == 404 => None,
        Err(e) => return Err(kube_error(format!("reading the target's {name}"))(e).into()),
    };
    let owned_by_klusterlet = |o: &K| o.owner_references().iter().any(|r| r.kind == "Klusterlet");
    Ok(object.is_some_and(|o| o.meta().deletion_timestamp.is_some() || owned_by_klusterlet(&o)))
}

/// Waits until an object is gone (a kind the target stops serving meanwhile is gone too).
async fn gone<K>(api: Api<K>, name: &str, what: String, timeout: Duration) -> Result<(), LifecycleError>
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static,
{
    use kube::runtime::{wait, watcher};
    match wait_for(api, name, &what, timeout, |o| o.is_none()).await {
        Ok(_) => Ok(()),
        Err(LifecycleError::Watch {
            source: wait::Error::ProbeFailed(watcher::Error::InitialListFailed(kube::Error::Api(status))),
            ..
        }) if status.code == 404 => Ok(()),
        Err(e) => Err(e),
    }
}

impl Leaving {
    /// The first thing found leaving the target, if any.
    async fn find(target: &Client) -> Result<Option<Self>, LifecycleError> {
        if going(Api::<fleetctl_api::Klusterlet>::all(target.clone()), KLUSTERLET).await? {
            return Ok(Some(Self::Klusterlet));
        }
        for namespace in TARGET_NAMESPACES {
            if going(Api::<Namespace>::all(target.clone()), namespace).await? {
                return Ok(Some(Self::Namespace(namespace)));
            }
        }
        for name in TARGET_CLUSTER_RBAC {
            if going(Api::<ClusterRoleBinding>::all(target.clone()), name).await? {
                return Ok(Some(Self::ClusterRoleBinding(name)));
            }
            if going(Api::<ClusterRole>::all(target.clone()), name).await? {
                return Ok(Some(Self::ClusterRole(name)));
            }
        }
        for crd in TARGET_CRDS {
            if going(Api::<CustomResourceDefinition>::all(target.clone()), crd).await? {
                return Ok(Some(Self::Crd(crd)));
            }
        }
        Ok(None)
    }

    /// Waits until it is gone.
    async fn gone(self, target: &Client, timeout: Duration) -> Result<(), LifecycleError> {
        let what = |kind: &str, name: &str| format!("the leaving klusterlet's {kind} {name} to go");
        let client = target.clone();
        match self {
            Self::Klusterlet => {
                gone(Api::<fleetctl_api::Klusterlet>::all(client), KLUSTERLET, what("Klusterlet", KLUSTERLET), timeout)
                    .await
            }
            Self::Namespace(name) => gone(Api::<Namespace>::all(client), name, what("namespace", name), timeout).await,
            Self::ClusterRole(name) => {
                gone(Api::<ClusterRole>::all(client), name, what("ClusterRole", name), timeout).await
            }
            Self::ClusterRoleBinding(name) => {
                gone(Api::<ClusterRoleBinding>::all(client), name, what("ClusterRoleBinding", name), timeout).await
            }
            Self::Crd(name) => {
                gone(Api::<CustomResourceDefinition>::all(client), name, what("CRD", name), timeout).await
            }
        }
    }
}

/// Waits until nothing of a leaving klusterlet is on the target, looking again after each
/// thing it saw go (the leaving operator's steps follow one another).
async fn leaving_klusterlet_gone(target: &Client, first: Leaving, timeout: Duration) -> Result<(), LifecycleError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut next = Some(first);
    while let Some(leaving) = next {
        leaving.gone(target, deadline.saturating_duration_since(tokio::time::Instant::now())).await?;
        next = Leaving::find(target).await?;
    }
    Ok(())
}

/// Checks everything that can be checked without changing anything.
async fn preflight(
    hub: &Client,
    hub_url: &str,
    target: Option<&Client>,
    options: &ImportOptions,
) -> Result<Found, LifecycleError> {
    let name = options.name.as_str();
    check_name(name).map_err(LifecycleError::Usage)?;
    if let Some(why) = options.labels.iter().find_map(|(k, v)| check_label(k, v).err()) {
        return Err(LifecycleError::Usage(why));
    }
    if let Some(bad) = options.addons.iter().find(|a| !ADDONS.contains(&a.as_str())) {
        return Err(LifecycleError::Usage(format!("unknown addon {bad:?}: choose from {}", ADDONS.join(", "))));
    }
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    // A list answers 404 when the hub does not serve ManagedClusters (a get would read
    // as "no such cluster").
    match clusters.list(&ListParams::default().limit(1)).await {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 404 => return Err(LifecycleError::NotInitialised),
        Err(source) => return Err(hub_read("list", "managedclusters")(source)),
    }
    let joins = !runs_import_controller(hub).await?;
    if joins {
        if !join::has_bootstrap_identity(hub).await? {
            return Err(LifecycleError::NoImportController);
        }
        refuse_what_joining_cannot(options)?;
    }
    match (&options.hosting, options.klusterlet_mode == InstallMode::Hosted) {
        (Some(hosting), true) => hosted::check_hosting(hub, name, &hosting.cluster).await?,
        (None, false) => {}
        _ => {
            return Err(LifecycleError::Usage(
                "Hosted mode is asked with the hosting cluster (--hosting-cluster)".into(),
            ));
        }
    }
    let existing = clusters.get_opt(&options.name).await.map_err(hub_read("get", "managedclusters"))?;
    if let Some(cluster) = &existing {
        refuse_if_leaving(name, cluster)?;
        let owner = cluster.annotations().get(ANNOTATION_FLEET);
        if let (Some(owner), Some(fleet)) = (owner, &options.fleet)
            && owner != fleet
        {
            return Err(LifecycleError::Refused(format!(
                "cluster {name} belongs to fleet {owner:?} (annotation {ANNOTATION_FLEET}), not to {fleet:?}: list it \
                 in one fleet file only"
            )));
        }
    }
    let namespace = Api::<Namespace>::all(hub.clone()).get_opt(name).await.map_err(hub_read("get", "namespaces"))?;
    let addons = match &existing {
        Some(_) => Api::<KlusterletAddonConfig>::namespaced(hub.clone(), name)
            .get_opt(name)
            .await
            .map_err(hub_read("get", "klusterletaddonconfigs"))?,
        None => None,
    };
    let mut found = Found {
        namespace_ours: namespace
            .as_ref()
            .is_none_or(|ns| ns.annotations().get(ANNOTATION_CREATED_FOR_CLUSTER).is_some_and(|c| c == name)),
        cluster: existing,
        addons,
        left_behind: None,
        joins,
    };
    // On a hub clusters join, the cluster namespace is the hub's own (its registration
    // controller makes it once the cluster is accepted): an import neither makes nor
    // deletes it, so finding it — on a rerun, say — refuses nothing.
    if !found.namespace_ours && !found.retains_namespace(options) && !found.joins {
        return Err(LifecycleError::Refused(format!(
            "namespace {name} exists on the hub and was not created for cluster {name}, so a detach would delete \
             what it holds: choose another cluster name, or pass --adopt-namespace to use it (detach then keeps it)"
        )));
    }
    if let Some(target) = target {
        target
            .apiserver_version()
            .await
            .map_err(|source| LifecycleError::NotAnswering { cluster: "target cluster", source })?;
        if let Some((cluster, hub)) = target_membership(target).await? {
            let same_hub = hub.as_deref().is_none_or(|hub| hub.trim_end_matches('/') == hub_url.trim_end_matches('/'));
            let same = cluster == options.name && same_hub;
            let hub = hub.unwrap_or_else(|| "an unknown address".to_string());
            if !same && !options.force {
                return Err(LifecycleError::Refused(format!(
                    "the target is already joined as cluster {cluster:?} to the hub at {hub}: detach it there first, or pass --force"
                )));
            }
            if !same {
                found.left_behind = Some((cluster, hub));
            }
        }
    }
    Ok(found)
}

/// Whether the hub runs an import controller: fleetctl's hub and ACM's serve
/// KlusterletAddonConfigs beside theirs; plain OCM does not, and nothing there would import
/// what an import writes. Discovery, which every user may read, tells.
pub(super) async fn runs_import_controller(hub: &Client) -> Result<bool, LifecycleError> {
    let group = <KlusterletAddonConfig as kube::Resource>::api_version(&());
    match hub.list_api_group_resources(&group).await {
        Ok(resources) => {
            Ok(resources.resources.iter().any(|r| r.name == <KlusterletAddonConfig as kube::Resource>::plural(&())))
        }
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(false),
        Err(source) => Err(hub_read("discover", "klusterletaddonconfigs")(source)),
    }
}

/// On a hub clusters join (no import controller), what only an import controller does:
/// addons (no KlusterletAddonConfigs), auto-import and the pasted command (no one there
/// would accept the cluster afterwards).
fn refuse_what_joining_cannot(options: &ImportOptions) -> Result<(), LifecycleError> {
    let needs_controller = [
        (!options.addons.is_empty(), "--addons"),
        (options.auto_import.is_some(), "--auto-import"),
        (options.print_command, "--print-command"),
        (options.hosting.is_some(), "--hosting-cluster"),
    ];
    match needs_controller.iter().find(|(asked, _)| *asked) {
        Some((_, flag)) => Err(LifecycleError::Refused(format!(
            "{flag} needs an import controller, and this hub runs none (plain OCM): import with the target's \
             context alone (--cluster-context or --cluster-kubeconfig), which joins the cluster the clusteradm way"
        ))),
        None => Ok(()),
    }
}

/// The KlusterletAddonConfig of a cluster with `addons` on, with their settings.
pub fn addon_config(name: &str, addons: &[String], settings: &AddonSettings) -> KlusterletAddonConfig {
    let on = |addon: &str| {
        if addons.iter().any(|a| a == addon) {
            let proxy_policy = settings.policies.get(addon).cloned().unwrap_or_default();
            KlusterletAddonAgentConfigSpec { enabled: true, proxy_policy }
        } else {
            KlusterletAddonAgentConfigSpec::default()
        }
    };
    let mut config = KlusterletAddonConfig::new(
        name,
        KlusterletAddonConfigSpec {
            cluster_name: name.to_string(),
            cluster_namespace: name.to_string(),
            search_collector: on("search-collector"),
            policy_controller: on("config-policy-controller"),
            application_manager: on("application-manager"),
            cert_policy_controller: on("cert-policy-controller"),
            iam_policy_controller: on("iam-policy-controller"),
            proxy_config: settings.proxy.clone(),
            ..KlusterletAddonConfigSpec::default()
        },
    );
    config.metadata.namespace = Some(name.to_string());
    config
}

/// Each addon's part of a KlusterletAddonConfig, by addon name.
fn agents(spec: &KlusterletAddonConfigSpec) -> [(&'static str, &KlusterletAddonAgentConfigSpec); 5] {
    [
        ("application-manager", &spec.application_manager),
        ("cert-policy-controller", &spec.cert_policy_controller),
        ("config-policy-controller", &spec.policy_controller),
        ("iam-policy-controller", &spec.iam_policy_controller),
        ("search-collector", &spec.search_collector),
    ]
}

/// How the addons of a cluster change from `current` (`None`: it has no KlusterletAddonConfig
/// yet) to `desired`, in words: empty when nothing changes.
pub fn addon_changes(current: Option<&KlusterletAddonConfigSpec>, desired: &KlusterletAddonConfigSpec) -> Vec<String> {
    let none = KlusterletAddonConfigSpec::default();
    let current = current.unwrap_or(&none);
    let mut changes = Vec::new();
    for ((addon, was), (_, wanted)) in agents(current).into_iter().zip(agents(desired)) {
        match (was.enabled, wanted.enabled) {
            (false, true) => changes.push(format!("enable {addon}")),
            (true, false) => changes.push(format!("disable {addon}")),
            (true, true) if was.proxy_policy != wanted.proxy_policy => {
                changes.push(format!("{addon} proxy policy {}", wanted.proxy_policy));
            }
            _ => {}
        }
    }
    if current.proxy_config != desired.proxy_config {
        changes.push("addon proxy settings".into());
    }
    changes
}

/// Writes the namespace, the ManagedCluster and its KlusterletAddonConfig. A namespace
/// fleetctl makes is marked as made for the cluster, so that only it is deleted on detach.
async fn hub_objects(hub: &Client, options: &ImportOptions, found: &Found) -> Result<Vec<String>, LifecycleError> {
    let name = &options.name;
    let mut ssa = PatchParams::apply(FIELD_MANAGER).force();
    if let Some(dry_run) = options.dry_run {
        ssa = dry_run.patch_params(ssa);
    }
    let sends = options.dry_run.is_none_or(DryRun::sends);
    let mut writes = Vec::new();
    let mut namespace = Namespace {
        metadata: ObjectMeta { name: Some(name.clone()), ..ObjectMeta::default() },
        ..Namespace::default()
    };
    let mut namespace_annotations = BTreeMap::new();
    if found.namespace_ours {
        namespace_annotations.insert(ANNOTATION_CREATED_FOR_CLUSTER.to_string(), name.clone());
    }
    // ACM's import controller keeps a detached cluster's namespace only when the Namespace
    // itself says so; fleetctl's hub reads it from the ManagedCluster as well.
    if found.retains_namespace(options) {
        namespace_annotations.insert(ANNOTATION_RETAIN_NAMESPACE.to_string(), "true".to_string());
    }
    if !namespace_annotations.is_empty() {
        namespace.metadata.annotations = Some(namespace_annotations);
    }
    // On a hub clusters join, its registration controller makes the cluster namespace.
    if !found.joins {
        writes.push(format!("hub: apply Namespace {name}"));
    }
    if sends && !found.joins {
        Api::<Namespace>::all(hub.clone())
            .patch(name, &ssa, &Patch::Apply(&namespace))
            .await
            .map_err(kube_error(format!("writing namespace {name}")))?;
    }
    let mut cluster = ManagedCluster::accepted(name);
    cluster.metadata.labels = Some(options.labels.clone());
    let mut annotations = BTreeMap::new();
    if found.retains_namespace(options) {
        annotations.insert(ANNOTATION_RETAIN_NAMESPACE.to_string(), "true".to_string());
    }
    // A cluster a fleet file lists is the fleet's once it applies it, imported by hand before or not.
    if let Some(fleet) = &options.fleet {
        annotations.insert(ANNOTATION_FLEET.to_string(), fleet.clone());
    }
    if options.klusterlet_mode != InstallMode::Default {
        annotations.insert(ANNOTATION_KLUSTERLET_DEPLOY_MODE.to_string(), options.klusterlet_mode.to_string());
    }
    if let Some(hosting) = &options.hosting {
        annotations.insert(ANNOTATION_HOSTING_CLUSTER.to_string(), hosting.cluster.clone());
    }
    if !annotations.is_empty() {
        cluster.metadata.annotations = Some(annotations);
    }
    if let Some(url) = &options.url {
        cluster.spec.managed_cluster_client_configs =
            vec![fleetctl_api::cluster::ClientConfig { url: url.clone(), ..Default::default() }];
    }
    let labels: Vec<String> = options.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    writes.push(format!("hub: apply ManagedCluster {name} (hubAcceptsClient: true; labels: {})", none_or(&labels)));
    if sends {
        Api::<ManagedCluster>::all(hub.clone())
            .patch(name, &ssa, &Patch::Apply(&cluster))
            .await
            .map_err(kube_error(format!("writing ManagedCluster {name}")))?;
    }
    if found.joins {
        return Ok(writes);
    }
    let config = addon_config(name, &options.addons, &options.addon_settings);
    writes.push(format!("hub: apply KlusterletAddonConfig {name}/{name} (addons: {})", none_or(&options.addons)));
    if sends {
        Api::<KlusterletAddonConfig>::namespaced(hub.clone(), name)
            .patch(name, &ssa, &Patch::Apply(&config))
            .await
            .map_err(kube_error(format!("writing KlusterletAddonConfig {name}/{name}")))?;
    }
    Ok(writes)
}

/// A list in words, `none` when empty.
fn none_or(items: &[String]) -> String {
    if items.is_empty() { "none".into() } else { items.join(", ") }
}

/// The import secret's `crds.yaml` and `import.yaml`, once the hub has rendered it.
async fn import_manifests(hub: &Client, name: &str, timeout: Duration) -> Result<(String, String), LifecycleError> {
    let secrets: Api<Secret> = Api::namespaced(hub.clone(), name);
    let secret_name = import_secret(name);
    let what = format!("secret {name}/{secret_name} (is the hub controller running?)");
    let secret = wait_for(secrets, &secret_name, &what, timeout, |s: Option<&Secret>| {
        s.and_then(fleetctl_hub::import::manifests).is_some()
    })
    .await?;
    secret
        .as_ref()
        .and_then(fleetctl_hub::import::manifests)
        .ok_or_else(|| LifecycleError::Failed(format!("{what} vanished")))
}

/// The bootstrap kubeconfig the hub rendered for cluster `name` (its import secret's), once
/// it has: what a klusterlet moving to this hub, or recovering on it, is handed.
pub(super) async fn rendered_bootstrap(hub: &Client, name: &str, timeout: Duration) -> Result<String, LifecycleError> {
    let (_, import_yaml) = import_manifests(hub, name, timeout).await?;
    let what = format!("the import secret {name}/{}", import_secret(name));
    let documents =
        parse_documents(&import_yaml).map_err(|e| LifecycleError::Failed(format!("{what} does not parse: {e}")))?;
    documents
        .into_iter()
        .filter(|o| o["kind"] == "Secret" && o["metadata"]["name"] == BOOTSTRAP_SECRET)
        .filter_map(|o| serde_json::from_value::<Secret>(o).ok())
        .find_map(|secret| secret_text(&secret).remove("kubeconfig"))
        .ok_or_else(|| LifecycleError::Failed(format!("{what} carries no bootstrap kubeconfig")))
}

/// Writes the cluster's auto-import secret: the hub applies the import manifests itself,
/// and deletes the secret once it has.
async fn write_auto_import(hub: &Client, name: &str, auto: &AutoImport) -> Result<(), LifecycleError> {
    let (type_, data) = match auto {
        AutoImport::Kubeconfig(kubeconfig) => {
            let text = kubeconfig::to_yaml(kubeconfig);
            let data = kubeconfig::secret_data(BTreeMap::from([(AUTO_IMPORT_KEY_KUBECONFIG.to_string(), text)]));
            (Some(AUTO_IMPORT_TYPE_KUBECONFIG.to_string()), data)
        }
        AutoImport::Copy { namespace, name: source } => {
            let found = Api::<Secret>::namespaced(hub.clone(), namespace)
                .get_opt(source)
                .await
                .map_err(kube_error(format!("reading secret {namespace}/{source}")))?
                .ok_or_else(|| {
                    LifecycleError::Refused(format!(
                        "secret {namespace}/{source}, which holds the credentials of cluster {name}, does not exist on \
                         the hub"
                    ))
                })?;
            let data = found.data.filter(|d| !d.is_empty()).ok_or_else(|| {
                LifecycleError::Refused(format!("secret {namespace}/{source} holds no credentials for cluster {name}"))
            })?;
            (found.type_, data)
        }
    };
    let secret = Secret {
        metadata: ObjectMeta {
            name: Some(AUTO_IMPORT_SECRET.into()),
            namespace: Some(name.to_string()),
            ..ObjectMeta::default()
        },
        type_,
        data: Some(data),
        ..Secret::default()
    };
    Api::<Secret>::namespaced(hub.clone(), name)
        .patch(AUTO_IMPORT_SECRET, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(&secret))
        .await
        .map_err(kube_error(format!("writing secret {name}/{AUTO_IMPORT_SECRET}")))?;
    Ok(())
}

/// The one-line command a person pastes on the target (as the ACM console builds it, but
/// waiting for the Klusterlet CRD to be Established instead of sleeping two seconds).
pub fn paste_command(crds: &str, import: &str) -> String {
    format!(
        "echo \"{}\" | base64 -d | kubectl apply -f - && kubectl wait --for=condition=Established --timeout=60s crd/{} \
         && echo \"{}\" | base64 -d | kubectl apply -f -",
        BASE64.encode(crds),
        <fleetctl_api::Klusterlet as kube::CustomResourceExt>::crd_name(),
        BASE64.encode(import)
    )
}

/// Whether the cluster carries the fleet annotation the import asks for.
fn owned_by(cluster: &ManagedCluster, options: &ImportOptions) -> bool {
    cluster.annotations().get(ANNOTATION_FLEET) == options.fleet.as_ref()
}

/// The fleet a cluster belongs to (the identity of the fleet file whose `apply` imported it).
pub fn fleet_of(cluster: &ManagedCluster) -> Option<&str> {
    cluster.annotations().get(ANNOTATION_FLEET).map(String::as_str)
}

/// Whether the cluster has done Act I.
pub fn imported(cluster: &ManagedCluster) -> bool {
    cluster.is_hub_accepted() && cluster.is_joined() && cluster.is_available()
}

/// Runs Act I for one cluster.
pub async fn import(
    hub: &Client,
    hub_url: &str,
    target: Option<&Client>,
    options: &ImportOptions,
    observer: Observer<'_>,
) -> Result<Imported, LifecycleError> {
    let name = options.name.as_str();
    let found = preflight(hub, hub_url, target.filter(|_| !options.print_command), options).await?;
    let changes = found.cluster.as_ref().map(|c| LabelChanges::of(c, &options.labels)).unwrap_or_default();
    if !changes.is_empty() {
        observer(Progress::Note { cluster: name.to_string(), message: changes.describe(name) });
    }
    let desired_addons = addon_config(name, &options.addons, &options.addon_settings);
    let addons_changed = match &found.cluster {
        Some(_) => addon_changes(found.addons.as_ref().map(|c| &c.spec), &desired_addons.spec),
        None => Vec::new(),
    };
    if !addons_changed.is_empty() {
        let message = format!("addons of cluster {name} updated: {}", addons_changed.join(", "));
        observer(Progress::Note { cluster: name.to_string(), message });
    }
    if let Some((cluster, hub)) = &found.left_behind {
        let message = format!(
            "the target leaves cluster {cluster:?} of the hub at {hub}, which still lists it (and will show it \
             unavailable): remove it there with `fleetctl detach {cluster} --yes --force` against that hub"
        );
        observer(Progress::Note { cluster: name.to_string(), message });
    }
    let mut steps = Vec::new();
    // A hub clusters join gets only the ManagedCluster: it makes the namespace itself.
    let hub_objects_step =
        if found.joins { "hub: ManagedCluster" } else { "hub: namespace, ManagedCluster, KlusterletAddonConfig" };
    if options.dry_run.is_some() {
        let already = found.cluster.as_ref().is_some_and(imported);
        if already && changes.is_empty() && addons_changed.is_empty() {
            return Ok(Imported::Already(Outcome::unchanged(name, "already imported: nothing to write".into())));
        }
        let mut writes = hub_objects(hub, options, &found).await?;
        if !already && found.joins {
            writes.extend([
                format!(
                    "hub: ask a token of {OCM_NAMESPACE}/{BOOTSTRAP_SERVICE_ACCOUNT} (an hour, as clusteradm get token)"
                ),
                "target: apply fleetctl's klusterlet with a bootstrap kubeconfig of that token".to_string(),
                format!("hub: approve cluster {name}'s first CSR, as clusteradm accept does"),
            ]);
        } else if !already {
            writes.push(match (&options.auto_import, options.print_command) {
                _ if let Some(hosting) = &options.hosting => format!(
                    "target: make ServiceAccount and ClusterRoleBinding {ACCESS} (cluster-admin) for the agents on {}; \
                     hub: apply Secret {name}/{AUTO_IMPORT_SECRET} with a kubeconfig of its token, which the hub \
                     hands to {} with the klusterlet",
                    hosting.cluster, hosting.cluster
                ),
                (Some(_), _) => {
                    format!("hub: apply Secret {name}/{AUTO_IMPORT_SECRET}; the hub then imports the cluster")
                }
                (None, true) => "print the command that applies the import manifests on the target".to_string(),
                (None, false) => format!(
                    "target: apply the crds.yaml and import.yaml of secret {name}/{name}-import, which the hub renders \
                     once the ManagedCluster exists"
                ),
            });
        }
        let result = if already { "would update" } else { "would import" };
        return Ok(Imported::Done(Outcome::dry_run(name, result.into(), writes)));
    }
    if let Some(cluster) = found.cluster.as_ref().filter(|c| imported(c)) {
        observer(Progress::Note {
            cluster: name.to_string(),
            message: format!("cluster {name} is already imported and available"),
        });
        if !changes.is_empty() || !addons_changed.is_empty() {
            step(observer, &mut steps, name, hub_objects_step, hub_objects(hub, options, &found)).await?;
        } else if options.fleet.is_some() && !found.cluster.as_ref().is_some_and(|c| owned_by(c, options)) {
            // Listed in the fleet file: the fleet takes it over (its annotation), nothing else changes.
            step(observer, &mut steps, name, hub_objects_step, hub_objects(hub, options, &found)).await?;
        }
        let result = match (changes.is_empty(), addons_changed.is_empty()) {
            (true, true) => "already imported",
            (false, true) => "already imported; labels updated",
            (true, false) => "already imported; addons updated",
            (false, false) => "already imported; labels and addons updated",
        };
        return Ok(Imported::Already(Outcome {
            cluster: name.to_string(),
            result: result.into(),
            steps,
            conditions: cluster.conditions().to_vec(),
            writes: Vec::new(),
        }));
    }
    step(observer, &mut steps, name, hub_objects_step, hub_objects(hub, options, &found)).await?;
    if found.joins {
        let target = target.ok_or_else(|| {
            LifecycleError::Usage(
                "the target cluster is needed to join it to a hub without an import controller".into(),
            )
        })?;
        let rendered = join::manifests(hub, hub_url, name, options.klusterlet_mode.clone());
        let (crds, manifests) = step(observer, &mut steps, name, "hub: bootstrap token issued", rendered).await?;
        apply_klusterlet(target, &crds, &manifests, options, observer, &mut steps).await?;
        let accepted = join::approve_csr(hub, name, options.timeout);
        step(observer, &mut steps, name, "hub: the cluster's CSR approved", accepted).await?;
    } else if let Some(hosting) = &options.hosting {
        let target = target.ok_or_else(|| {
            LifecycleError::Usage(
                "the target cluster is needed to give the hosting cluster's agents access to it".into(),
            )
        })?;
        let access = hosted::access(target, &hosting.reach);
        let step_name = format!("target: access for the agents on {}", hosting.cluster);
        let (kubeconfig, expires) = step(observer, &mut steps, name, &step_name, access).await?;
        let message = format!(
            "the agents on {} reach {name} with a token that expires at {expires}: import {name} again before then",
            hosting.cluster
        );
        observer(Progress::Note { cluster: name.to_string(), message });
        let auto = AutoImport::Kubeconfig(kubeconfig);
        let write = write_auto_import(hub, name, &auto);
        step(observer, &mut steps, name, "hub: the kubeconfig for the hosting cluster written", write).await?;
    } else if let Some(auto) = &options.auto_import {
        let write = write_auto_import(hub, name, auto);
        step(observer, &mut steps, name, "hub: auto-import secret written", write).await?;
    } else {
        let rendered = import_manifests(hub, name, options.timeout);
        let (crds, manifests) = step(observer, &mut steps, name, "hub: import secret rendered", rendered).await?;
        if options.print_command {
            return Ok(Imported::Command(paste_command(&crds, &manifests)));
        }
        let target = target.ok_or_else(|| {
            LifecycleError::Usage("the target cluster is needed to apply the import manifests".into())
        })?;
        if let Some(leaving) = Leaving::find(target).await? {
            let left = leaving_klusterlet_gone(target, leaving, options.timeout);
            step(observer, &mut steps, name, "target: the klusterlet that was leaving is gone", left).await?;
        }
        apply_klusterlet(target, &crds, &manifests, options, observer, &mut steps).await?;
    }
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    if options.wait {
        let joined = format!("cluster {name} to join");
        step(observer, &mut steps, name, "cluster joined", async {
            wait_for(clusters.clone(), name, &joined, options.timeout, |o: Option<&ManagedCluster>| {
                o.is_some_and(|c| c.is_hub_accepted() && c.is_joined())
            })
            .await
            .map(|_| ())
        })
        .await?;
        let available = format!("cluster {name} to be available");
        step(observer, &mut steps, name, "cluster available", async {
            wait_for(clusters.clone(), name, &available, options.timeout, |o: Option<&ManagedCluster>| {
                o.is_some_and(imported)
            })
            .await
            .map(|_| ())
        })
        .await?;
        // A hub clusters join renders no klusterlet works.
        if !found.joins {
            let works = match &options.hosting {
                Some(hosting) => vec![(hosting.cluster.clone(), hosted_klusterlet_work(name))],
                None => [klusterlet_crds_work(name), klusterlet_work(name)].map(|w| (name.to_string(), w)).to_vec(),
            };
            step(observer, &mut steps, name, "klusterlet works applied", wait_works(hub, works, options.timeout))
                .await?;
        }
        if !options.addons.is_empty() {
            step(
                observer,
                &mut steps,
                name,
                "addons available",
                wait_addons(hub, name, &options.addons, options.timeout),
            )
            .await?;
        }
    }
    let cluster = clusters.get(name).await.map_err(kube_error(format!("reading cluster {name}")))?;
    Ok(Imported::Done(Outcome {
        cluster: name.to_string(),
        result: if options.wait { "imported".into() } else { "manifests applied".into() },
        steps,
        conditions: cluster.conditions().to_vec(),
        writes: Vec::new(),
    }))
}

/// Applies the klusterlet's CRD, once Established its manifests, on the target.
async fn apply_klusterlet(
    target: &Client,
    crds: &str,
    manifests: &str,
    options: &ImportOptions,
    observer: Observer<'_>,
    steps: &mut Vec<super::StepRecord>,
) -> Result<(), LifecycleError> {
    let name = options.name.as_str();
    let apply_options = ApplyOptions { crd_timeout: options.timeout, ..ApplyOptions::default() };
    step(observer, steps, name, "target: klusterlet CRD established", async {
        apply_yaml(target, crds, &apply_options).await.map_err(LifecycleError::from)
    })
    .await?;
    step(observer, steps, name, "target: import manifests applied", async {
        apply_yaml(target, manifests, &apply_options).await.map_err(LifecycleError::from)
    })
    .await
    .map(|_| ())
}

/// Waits until each work, (namespace, name), is applied.
async fn wait_works(hub: &Client, works: Vec<(String, String)>, timeout: Duration) -> Result<(), LifecycleError> {
    for (namespace, work) in works {
        let what = format!("work {namespace}/{work} to be applied");
        let api: Api<ManifestWork> = Api::namespaced(hub.clone(), &namespace);
        wait_for(api, &work, &what, timeout, |w: Option<&ManifestWork>| w.is_some_and(ManifestWork::is_applied))
            .await?;
    }
    Ok(())
}

async fn wait_addons(hub: &Client, name: &str, addons: &[String], timeout: Duration) -> Result<(), LifecycleError> {
    let api: Api<fleetctl_api::ManagedClusterAddOn> = Api::namespaced(hub.clone(), name);
    for addon in addons {
        let what = format!("addon {name}/{addon} to be available");
        wait_for(api.clone(), addon, &what, timeout, |a: Option<&fleetctl_api::ManagedClusterAddOn>| {
            a.is_some_and(|a| a.is_available())
        })
        .await?;
    }
    Ok(())
}

/// The clusters matching a label selector (for commands that take `-l`).
pub async fn select(hub: &Client, selector: &str) -> Result<Vec<String>, LifecycleError> {
    let list = match Api::<ManagedCluster>::all(hub.clone()).list(&ListParams::default().labels(selector)).await {
        Ok(list) => list,
        Err(kube::Error::Api(status)) if status.code == 404 => return Err(LifecycleError::NotInitialised),
        Err(e) => {
            return Err(match super::refusal("hub", "list", "managedclusters", &e) {
                Some(message) => LifecycleError::Forbidden(message),
                None => kube_error(format!("listing clusters matching {selector:?}"))(e).into(),
            });
        }
    };
    Ok(list.items.iter().map(|c| c.name_any()).collect())
}

/// The clusters a Placement selected: those its PlacementDecisions name (labelled
/// `cluster.open-cluster-management.io/placement=<name>` in its namespace), in their order,
/// each once. A Placement that does not exist is refused.
pub async fn placed(hub: &Client, namespace: &str, placement: &str) -> Result<Vec<String>, LifecycleError> {
    fn refused(
        verb: &'static str,
        resource: &'static str,
        action: String,
    ) -> impl FnOnce(kube::Error) -> LifecycleError {
        move |e| match super::refusal("hub", verb, resource, &e) {
            Some(message) => LifecycleError::Forbidden(message),
            None => kube_error(action)(e).into(),
        }
    }
    let placements: Api<Placement> = Api::namespaced(hub.clone(), namespace);
    match placements.get_opt(placement).await {
        Ok(Some(_)) => {}
        Ok(None) => {
            return Err(LifecycleError::Refused(format!(
                "placement {namespace}/{placement} not found: list placements with `fleetctl get placements -n {namespace}`"
            )));
        }
        Err(kube::Error::Api(status)) if status.code == 404 => return Err(LifecycleError::NotInitialised),
        Err(e) => return Err(refused("get", "placements", format!("reading placement {namespace}/{placement}"))(e)),
    }
    let decisions: Api<PlacementDecision> = Api::namespaced(hub.clone(), namespace);
    let params = ListParams::default().labels(&format!("{PLACEMENT_LABEL}={placement}"));
    let mut list = decisions
        .list(&params)
        .await
        .map_err(refused("list", "placementdecisions", format!("listing the decisions of placement {placement}")))?
        .items;
    list.sort_by_key(|d| d.name_any());
    let mut names = Vec::new();
    for name in list.iter().flat_map(|d| d.cluster_names()) {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1;
    use serde_json::json;

    use super::*;

    fn entry(manager: &str, operation: &str, keys: &[&str]) -> ManagedFieldsEntry {
        let labels: serde_json::Map<String, serde_json::Value> =
            keys.iter().map(|k| (format!("f:{k}"), json!({}))).collect();
        ManagedFieldsEntry {
            manager: Some(manager.into()),
            operation: Some(operation.into()),
            fields_v1: Some(FieldsV1(json!({"f:metadata": {"f:labels": labels}}))),
            ..ManagedFieldsEntry::default()
        }
    }

    /// A cluster whose `ours` labels an import applied; `team` was set by others (by
    /// `kubectl label`, or by fleetctl through an update), which an apply never drops.
    fn cluster(labels: &[(&str, &str)], ours: &[&str]) -> ManagedCluster {
        let mut cluster = ManagedCluster::accepted("c1");
        cluster.metadata.labels = Some(asked(labels));
        cluster.metadata.managed_fields = Some(vec![
            entry(FIELD_MANAGER, "Apply", ours),
            entry("kubectl-label", "Update", &["team"]),
            entry(FIELD_MANAGER, "Update", &["team"]),
        ]);
        cluster
    }

    fn asked(labels: &[(&str, &str)]) -> BTreeMap<String, String> {
        labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn a_reimport_with_the_same_labels_changes_nothing() {
        let existing = cluster(&[("env", "prod"), ("team", "a")], &["env"]);
        assert!(LabelChanges::of(&existing, &asked(&[("env", "prod")])).is_empty());
    }

    #[test]
    fn a_reimport_sets_new_values_and_removes_only_labels_an_import_set() {
        let existing = cluster(&[("env", "prod"), ("tier", "1"), ("team", "a")], &["env", "tier"]);
        let changes = LabelChanges::of(&existing, &asked(&[("env", "dev")]));
        assert!(!changes.is_empty(), "a change, which the import applies and says");
        assert_eq!(changes.set, asked(&[("env", "dev")]));
        assert_eq!(changes.removed, vec!["tier".to_string()], "team was set by someone else");
        assert_eq!(
            changes.describe("c1"),
            "labels of cluster c1 updated: set env=dev; removed tier (set by an earlier import)"
        );
    }

    #[test]
    fn labels_follow_kubernetes_rules_and_keep_out_of_reserved_domains() {
        assert!(check_label("example.com/env", "prod").is_ok());
        assert!(check_label("env", "").is_ok());
        let message = check_label("cluster.open-cluster-management.io/other", "x").expect_err("reserved");
        assert!(message.contains("reserved"), "{message}");
        assert!(check_label("cluster.open-cluster-management.io/clusterset", "prod").is_ok(), "the set is the user's");
        assert!(check_label("env", &"v".repeat(64)).expect_err("too long").contains("63"));
        assert!(check_label("-env", "x").expect_err("bad key").contains("invalid label key"));
    }
}
