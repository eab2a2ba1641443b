//! The fleet file: a versioned document (`apiVersion: fleetctl.io/v1alpha1`, `kind: Fleet`)
//! that says which clusters the hub manages, how each is reached, and their labels, addons
//! and klusterlet version. Every rule is checked while the file is read, so that a bad file
//! is refused naming its line and field before anything changes; its JSON Schema is
//! generated from these types (`schema`).

use std::collections::BTreeMap;
use std::fmt;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use thiserror::Error;

use crate::lifecycle::import::{check_label, check_name};
use crate::lifecycle::rollout::WaveSize;
use crate::lifecycle::upgrade::valid_version;
use fleetctl_api::clusterset::CLUSTER_SET_LABEL;
use fleetctl_kube::validation;

/// A fleet: the hub, the defaults of its clusters, and the clusters.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "Fleet", description = "A fleet of clusters managed by one hub (fleetctl plan|apply -f FILE).")]
pub struct Fleet {
    /// The version of this document's format.
    pub api_version: ApiVersion,
    /// Always `Fleet`.
    pub kind: Kind,
    /// The fleet's identity on the hub.
    #[serde(default)]
    pub metadata: Metadata,
    /// The hub; the command line's --hub-kubeconfig and --hub-context override it.
    #[serde(default)]
    pub hub: Hub,
    /// What every cluster gets unless it says otherwise.
    #[serde(default)]
    pub defaults: Defaults,
    /// The clusters of the fleet; each name once.
    pub clusters: Clusters,
}

/// The fleet's identity.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Metadata {
    /// The fleet's name on the hub: `apply` marks the clusters it imports (or takes over
    /// from a hand-made import) with it, and `apply --prune` detaches only clusters so
    /// marked — so fleet files of other names, and clusters imported by hand, are left
    /// alone. `--prune` needs it.
    #[serde(default)]
    pub name: Option<ClusterName>,
}

impl Fleet {
    /// The fleet's name on the hub, if the file gives one.
    pub fn name(&self) -> Option<&str> {
        self.metadata.name.as_ref().map(ClusterName::as_str)
    }
}

/// The format version of the fleet file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum ApiVersion {
    /// The first, alpha format.
    #[serde(rename = "fleetctl.io/v1alpha1")]
    V1alpha1,
}

/// The kind of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum Kind {
    /// A fleet.
    Fleet,
}

/// How the hub is reached.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Hub {
    /// The hub's kubeconfig, relative to the fleet file (default: KUBECONFIG, ~/.kube/config).
    #[serde(default)]
    pub kubeconfig: Option<PathBuf>,
    /// The hub's context in it (default: its current-context).
    #[serde(default)]
    pub context: Option<String>,
}

/// What every cluster gets unless it says otherwise.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Defaults {
    /// The kubeconfig the clusters' contexts are in, relative to the fleet file (default:
    /// the hub's).
    #[serde(default)]
    pub kubeconfig: Option<PathBuf>,
    /// The klusterlet version the clusters run (default: whatever the hub deploys).
    #[serde(default)]
    pub version: Option<Version>,
    /// Labels of every ManagedCluster.
    #[serde(default)]
    pub labels: Labels,
    /// Addons every cluster gets, with their settings.
    #[serde(default)]
    #[schemars(schema_with = "addons_schema")]
    pub addons: BTreeMap<Addon, AddonSettings>,
    /// The proxy of the addon agents whose proxyPolicy is CustomProxy (default: none).
    #[serde(default)]
    pub addon_proxy: AddonProxy,
    /// How upgrades roll out over the fleet.
    #[serde(default)]
    pub rollout: RolloutSettings,
}

/// How upgrades roll out: as `fleetctl upgrade`'s flags of the same names.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RolloutSettings {
    /// The size of the first wave, which may not fail at all.
    #[serde(default)]
    pub canary: usize,
    /// Clusters per wave: a number, or a share of the clusters upgraded (`25%`).
    #[serde(default = "one", deserialize_with = "wave_size")]
    #[schemars(schema_with = "wave_size_schema")]
    pub wave_size: WaveSize,
    /// How many clusters may fail before the rollout stops.
    #[serde(default)]
    pub max_failures: usize,
    /// How long a wave's clusters must stay Available before the next starts (`90s`, `5m`).
    #[serde(default, deserialize_with = "duration")]
    #[schemars(schema_with = "duration_schema")]
    pub soak: Option<Duration>,
    /// How long each cluster has to run the new version and be Available (default: --timeout).
    #[serde(default, deserialize_with = "positive_duration")]
    #[schemars(schema_with = "positive_duration_schema")]
    pub progress_deadline: Option<Duration>,
    /// Restore the previous version of a cluster whose upgrade failed.
    #[serde(default = "yes")]
    pub rollback: bool,
}

impl Default for RolloutSettings {
    fn default() -> Self {
        Self { canary: 0, wave_size: one(), max_failures: 0, soak: None, progress_deadline: None, rollback: true }
    }
}

fn one() -> WaveSize {
    WaveSize::Count(NonZeroUsize::MIN)
}

fn yes() -> bool {
    true
}

/// Reads a string and checks it while the reader is at it, so that an error names the
/// string's own line and field (an error raised after reading names the enclosing object's).
struct Checked<T> {
    expecting: &'static str,
    check: fn(&str) -> Result<T, String>,
}

impl<T> Visitor<'_> for Checked<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        (self.check)(text).map_err(E::custom)
    }
}

fn checked<'de, D: Deserializer<'de>, T>(
    deserializer: D,
    expecting: &'static str,
    check: fn(&str) -> Result<T, String>,
) -> Result<T, D::Error> {
    deserializer.deserialize_str(Checked { expecting, check })
}

fn wave_size<'de, D: Deserializer<'de>>(deserializer: D) -> Result<WaveSize, D::Error> {
    checked(deserializer, "a number of clusters or a share of them", WaveSize::parse)
}

fn duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    checked(deserializer, "a duration", |text| fleetctl_kube::duration::parse(text).map(Some))
}

/// A duration above zero, as the command line's `--progress-deadline` takes it.
fn positive_duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    checked(deserializer, "a duration above zero", |text| crate::cli::flags::positive_duration(text).map(Some))
}

fn wave_size_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A number of clusters (3) or a share of them (25%).",
        "type": ["string", "integer"],
        "pattern": "^([1-9][0-9]*|([1-9][0-9]?|100)%)$",
        "minimum": 1
    })
}

/// Addons by name: only those fleetctl has agents for.
fn addons_schema(generator: &mut SchemaGenerator) -> Schema {
    let names = generator.subschema_for::<Addon>();
    let settings = generator.subschema_for::<AddonSettings>();
    json_schema!({"type": "object", "propertyNames": names, "additionalProperties": settings})
}

/// A duration as `fleetctl_kube::duration::parse` reads it: numbers with units, summed.
const DURATION_PATTERN: &str = "^([0-9]+(ms|s|m|h|d))+$";

fn duration_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A duration: 90s, 5m, 1h30m.",
        "type": "string",
        "pattern": DURATION_PATTERN
    })
}

fn positive_duration_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A duration above zero: 90s, 5m, 1h30m.",
        "type": "string",
        "pattern": DURATION_PATTERN,
        "not": {"pattern": "^(0+(ms|s|m|h|d))+$"}
    })
}

/// One cluster of the fleet.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Cluster {
    /// Its name on the hub: a DNS-1123 label, not a system namespace's name.
    pub name: ClusterName,
    /// The kubeconfig that reaches it, relative to the fleet file (default: defaults.kubeconfig,
    /// else the hub's).
    #[serde(default)]
    pub kubeconfig: Option<PathBuf>,
    /// Its context in that kubeconfig (default: the cluster's name).
    #[serde(default)]
    pub context: Option<String>,
    /// Labels of its ManagedCluster, over the defaults' (an empty value is a value).
    #[serde(default)]
    pub labels: Labels,
    /// The ManagedClusterSet it belongs to, written as its
    /// `cluster.open-cluster-management.io/clusterset` label (over one in `labels`); without it,
    /// the hub puts the cluster in `default`.
    #[serde(default)]
    pub cluster_set: Option<ClusterName>,
    /// Its addons, over the defaults' (`enabled: false` turns a default off).
    #[serde(default)]
    #[schemars(schema_with = "addons_schema")]
    pub addons: BTreeMap<Addon, AddonSettings>,
    /// The klusterlet version it runs (default: defaults.version).
    #[serde(default)]
    pub version: Option<Version>,
    /// Let the hub import it itself (its `auto-import-secret`), for hubs that reach their
    /// clusters: with `secretRef`, from a Secret on the hub; else from the kubeconfig and
    /// context above, handed to the hub.
    #[serde(default)]
    pub auto_import: Option<AutoImportSource>,
}

/// Where an auto-import's credentials come from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AutoImportSource {
    /// A Secret on the hub holding a `kubeconfig`, or a `server` and `token` (with `ca.crt`,
    /// or `insecure-skip-tls-verify: "true"`), copied into the cluster's auto-import-secret;
    /// then no kubeconfig or context of the cluster is used.
    #[serde(default)]
    pub secret_ref: Option<SecretRef>,
}

/// A Secret on the hub.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecretRef {
    /// Its namespace.
    #[serde(deserialize_with = "namespace")]
    #[schemars(pattern(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"))]
    pub namespace: String,
    /// Its name.
    #[serde(deserialize_with = "object_name")]
    #[schemars(length(max = 253))]
    pub name: String,
}

fn namespace<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    checked(deserializer, "a namespace", |text| {
        validation::dns1123_label(text).map(|()| text.to_string()).map_err(|why| format!("namespace {text:?} {why}"))
    })
}

fn object_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    checked(deserializer, "a secret name", |text| {
        validation::dns1123_subdomain(text).map(|()| text.to_string()).map_err(|why| format!("name {text:?} {why}"))
    })
}

/// How apply reaches a cluster to import it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// From here, through its kubeconfig and context.
    Context,
    /// By the hub, with its kubeconfig and context handed over.
    HubWithContext,
    /// By the hub, with a copy of a Secret on the hub.
    HubWithSecret(SecretRef),
}

/// A cluster name, checked as `fleetctl import` checks it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, JsonSchema)]
#[schemars(transparent)]
pub struct ClusterName(#[schemars(pattern(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"))] String);

impl<'de> Deserialize<'de> for ClusterName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        checked(deserializer, "a cluster name", |name| check_name(name).map(|()| Self(name.to_string())))
    }
}

impl ClusterName {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A klusterlet release version (`0.2.0`, `v0.2.0`).
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[schemars(transparent)]
pub struct Version(#[schemars(pattern(r"^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$"))] String);

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        checked(deserializer, "a release version", |version| {
            if valid_version(version) {
                Ok(Self(version.to_string()))
            } else {
                Err(format!("invalid version {version:?}: use a release version such as 0.2.0 or v0.2.0"))
            }
        })
    }
}

impl Version {
    /// The version.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Labels, each checked as `fleetctl import -l` checks it.
#[derive(Debug, Clone, Default, PartialEq, JsonSchema)]
#[schemars(transparent)]
pub struct Labels(BTreeMap<String, String>);

impl<'de> Deserialize<'de> for Labels {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = Labels;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("labels: key: value")
            }
            // Each label is checked as it is read, so that an error names the labels' line.
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Labels, A::Error> {
                let mut labels = BTreeMap::new();
                while let Some((key, value)) = map.next_entry::<String, String>()? {
                    check_label(&key, &value).map_err(de::Error::custom)?;
                    labels.insert(key, value);
                }
                Ok(Labels(labels))
            }
        }
        deserializer.deserialize_map(Each)
    }
}

/// An addon fleetctl has an agent for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Addon {
    /// The search collector.
    SearchCollector,
    /// The certificate policy controller.
    CertPolicyController,
    /// The IAM policy controller.
    IamPolicyController,
}

impl Addon {
    /// Its ManagedClusterAddOn name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SearchCollector => fleetctl_api::addon::SEARCH_COLLECTOR,
            Self::CertPolicyController => fleetctl_api::addon::CERT_POLICY_CONTROLLER,
            Self::IamPolicyController => fleetctl_api::addon::IAM_POLICY_CONTROLLER,
        }
    }
}

/// Whether a cluster gets an addon, and how its agent reaches the network.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddonSettings {
    /// Whether the addon is installed (`false` turns off one the defaults turn on).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Which proxy settings its agent gets.
    #[serde(default)]
    pub proxy_policy: ProxyPolicy,
}

/// Which proxy settings an addon agent gets (the KlusterletAddonConfig's proxyPolicy).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum ProxyPolicy {
    /// None.
    #[default]
    Disabled,
    /// The cluster-wide proxy of an OpenShift cluster.
    #[serde(rename = "OCPGlobalProxy")]
    OcpGlobalProxy,
    /// defaults.addonProxy.
    CustomProxy,
}

impl From<ProxyPolicy> for fleetctl_api::addon::ProxyPolicy {
    fn from(policy: ProxyPolicy) -> Self {
        match policy {
            ProxyPolicy::Disabled => Self::Disabled,
            ProxyPolicy::OcpGlobalProxy => Self::OcpGlobalProxy,
            ProxyPolicy::CustomProxy => Self::CustomProxy,
        }
    }
}

/// The proxy of addon agents with proxyPolicy CustomProxy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddonProxy {
    /// Proxy URL for HTTP requests.
    #[serde(default)]
    pub http_proxy: String,
    /// Proxy URL for HTTPS requests.
    #[serde(default)]
    pub https_proxy: String,
    /// Hosts and CIDRs reached without the proxy, comma-separated (include the hub's API server).
    #[serde(default)]
    pub no_proxy: String,
}

/// The clusters, each name once (a name given twice is refused where it is given again).
#[derive(Debug, Clone, Default, PartialEq, JsonSchema)]
#[schemars(transparent)]
pub struct Clusters(Vec<Cluster>);

impl Clusters {
    /// The clusters, in the file's order.
    pub fn iter(&self) -> impl Iterator<Item = &Cluster> {
        self.0.iter()
    }
}

impl<'de> Deserialize<'de> for Clusters {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Unique;
        impl<'de> Visitor<'de> for Unique {
            type Value = Clusters;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of clusters")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Clusters, A::Error> {
                let mut clusters: Vec<Cluster> = Vec::new();
                while let Some(cluster) = seq.next_element::<Cluster>()? {
                    if clusters.iter().any(|c| c.name == cluster.name) {
                        return Err(de::Error::custom(format!("cluster {} is listed twice", cluster.name.0)));
                    }
                    let copied = cluster.auto_import.as_ref().is_some_and(|a| a.secret_ref.is_some());
                    if copied && (cluster.kubeconfig.is_some() || cluster.context.is_some()) {
                        return Err(de::Error::custom(format!(
                            "cluster {}: autoImport.secretRef gives the hub its credentials, so kubeconfig and \
                             context would go unused: remove them, or drop secretRef to hand the hub that context",
                            cluster.name.0
                        )));
                    }
                    clusters.push(cluster);
                }
                Ok(Clusters(clusters))
            }
        }
        deserializer.deserialize_seq(Unique)
    }
}

/// One cluster as the fleet wants it: the defaults applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Desired {
    /// Its name.
    pub name: String,
    /// The kubeconfig that reaches it (`None`: the hub's).
    pub kubeconfig: Option<PathBuf>,
    /// Its context.
    pub context: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// The addons it gets, with their proxy policies.
    pub addons: BTreeMap<String, fleetctl_api::addon::ProxyPolicy>,
    /// The klusterlet version it runs, if the fleet says.
    pub version: Option<String>,
    /// How it is imported.
    pub reach: Reach,
}

impl Fleet {
    /// Each cluster with the defaults applied, in the file's order.
    pub fn desired(&self) -> Vec<Desired> {
        self.clusters.iter().map(|cluster| self.desired_of(cluster)).collect()
    }

    fn desired_of(&self, cluster: &Cluster) -> Desired {
        let defaults = &self.defaults;
        let mut labels = defaults.labels.0.clone();
        labels.extend(cluster.labels.0.clone());
        if let Some(set) = &cluster.cluster_set {
            labels.insert(CLUSTER_SET_LABEL.to_owned(), set.0.clone());
        }
        let mut addons = defaults.addons.clone();
        addons.extend(cluster.addons.clone());
        let addons = addons
            .into_iter()
            .filter(|(_, settings)| settings.enabled)
            .map(|(addon, settings)| (addon.as_str().to_string(), settings.proxy_policy.into()))
            .collect();
        Desired {
            name: cluster.name.0.clone(),
            kubeconfig: cluster.kubeconfig.clone().or_else(|| defaults.kubeconfig.clone()),
            context: cluster.context.clone().unwrap_or_else(|| cluster.name.0.clone()),
            labels,
            addons,
            version: cluster.version.as_ref().or(defaults.version.as_ref()).map(|v| v.0.clone()),
            reach: match &cluster.auto_import {
                None => Reach::Context,
                Some(AutoImportSource { secret_ref: None }) => Reach::HubWithContext,
                Some(AutoImportSource { secret_ref: Some(secret) }) => Reach::HubWithSecret(secret.clone()),
            },
        }
    }

    /// The proxy of addon agents with proxyPolicy CustomProxy.
    pub fn addon_proxy(&self) -> fleetctl_api::addon::ProxyConfig {
        let proxy = self.defaults.addon_proxy.clone();
        fleetctl_api::addon::ProxyConfig {
            http_proxy: proxy.http_proxy,
            https_proxy: proxy.https_proxy,
            no_proxy: proxy.no_proxy,
        }
    }

    /// Paths in the file made relative to the file's folder.
    fn resolve_paths(&mut self, dir: &Path) {
        let resolve = |path: &mut Option<PathBuf>| {
            if let Some(p) = path.as_mut().filter(|p| p.is_relative()) {
                *p = dir.join(&*p);
            }
        };
        resolve(&mut self.hub.kubeconfig);
        resolve(&mut self.defaults.kubeconfig);
        for cluster in &mut self.clusters.0 {
            resolve(&mut cluster.kubeconfig);
        }
    }
}

/// Why a fleet file cannot be used; nothing was changed.
#[derive(Debug, Error)]
pub enum FileError {
    /// It cannot be read.
    #[error("reading fleet file {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is not a valid fleet: `file:line:column: field: why`.
    #[error("{}{}: {message}", path.display(), location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Line and column (1-based), where known.
        location: Option<(usize, usize)>,
        /// The field and what is wrong with it.
        message: String,
    },
}

/// Reads and checks a fleet file; relative paths in it are taken from its folder.
pub fn load(path: &Path) -> Result<Fleet, FileError> {
    let text = std::fs::read_to_string(path).map_err(|source| FileError::Read { path: path.to_path_buf(), source })?;
    let mut fleet = parse(&text).map_err(|error| invalid(path, &error))?;
    fleet.resolve_paths(path.parent().unwrap_or(Path::new(".")));
    Ok(fleet)
}

/// Parses a fleet document.
pub fn parse(text: &str) -> Result<Fleet, serde_yaml::Error> {
    serde_yaml::from_str(text)
}

/// The error of a file that does not parse: its place, then serde_yaml's words without the
/// place it appends itself.
fn invalid(path: &Path, error: &serde_yaml::Error) -> FileError {
    let location = error.location().map(|l| (l.line(), l.column()));
    let mut message = error.to_string();
    if let Some((line, column)) = location {
        let suffix = format!(" at line {line} column {column}");
        if let Some(stripped) = message.strip_suffix(&suffix) {
            message = stripped.to_string();
        }
    }
    FileError::Invalid { path: path.to_path_buf(), location, message }
}

/// The JSON Schema of the fleet file.
pub fn schema() -> serde_json::Value {
    schemars::schema_for!(Fleet).to_value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::import::ADDONS;

    fn error_of(text: &str) -> String {
        let error = parse(text).expect_err("refused");
        invalid(Path::new("fleet.yaml"), &error).to_string()
    }

    const HEAD: &str = "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\n";

    #[test]
    fn the_example_fleet_parses_and_names_only_known_addons() {
        let text = include_str!("../../examples/fleet.yaml");
        let fleet = parse(text).expect("examples/fleet.yaml parses");
        assert!(fleet.clusters.iter().count() >= 2);
        for desired in fleet.desired() {
            assert!(desired.addons.keys().all(|a| ADDONS.contains(&a.as_str())), "{desired:?}");
        }
    }

    #[test]
    fn a_cluster_set_is_written_as_the_cluster_set_label() {
        let text = format!(
            "{HEAD}clusters:\n- name: a\n  clusterSet: prod\n  labels: {{cluster.open-cluster-management.io/clusterset: dev}}\n- \
             name: b\n"
        );
        let fleet = parse(&text).expect("parses");
        let [a, b] = fleet.desired().try_into().expect("two");
        assert_eq!(a.labels.get(CLUSTER_SET_LABEL).map(String::as_str), Some("prod"));
        assert!(!b.labels.contains_key(CLUSTER_SET_LABEL));
        let error = error_of(&format!("{HEAD}clusters:\n- name: a\n  clusterSet: Not_A_Name\n"));
        assert!(error.contains("clusterSet") || error.contains("Not_A_Name"), "{error}");
    }

    #[test]
    fn clusters_take_the_defaults_and_override_them() {
        let text = format!(
            "{HEAD}defaults:\n  version: 0.2.0\n  labels: {{env: prod, tier: \"1\"}}\n  addons:\n    search-collector: {{}}\n    \
             cert-policy-controller: {{proxyPolicy: CustomProxy}}\nclusters:\n- name: a\n- name: b\n  context: ctx-b\n  \
             version: 0.3.0\n  labels: {{tier: \"2\"}}\n  addons:\n    search-collector: {{enabled: false}}\n"
        );
        let fleet = parse(&text).expect("parses");
        let [a, b] = fleet.desired().try_into().expect("two");
        assert_eq!((a.context.as_str(), a.version.as_deref()), ("a", Some("0.2.0")));
        assert_eq!(b.context, "ctx-b");
        assert_eq!(b.version.as_deref(), Some("0.3.0"));
        assert_eq!(b.labels, BTreeMap::from([("env".into(), "prod".into()), ("tier".into(), "2".into())]));
        assert_eq!(a.addons.keys().collect::<Vec<_>>(), ["cert-policy-controller", "search-collector"]);
        assert_eq!(
            b.addons,
            BTreeMap::from([("cert-policy-controller".into(), fleetctl_api::addon::ProxyPolicy::CustomProxy)])
        );
    }

    #[test]
    fn an_unknown_field_is_refused_with_its_file_line_and_path() {
        let error = error_of(&format!("{HEAD}clusters:\n- name: a\n  lables: {{env: prod}}\n"));
        assert!(error.starts_with("fleet.yaml:5:3: clusters[0]: unknown field `lables`, expected one of"), "{error}");
    }

    #[test]
    fn a_bad_label_is_refused_with_the_rule_it_breaks_and_where() {
        let error = error_of(&format!("{HEAD}clusters:\n- name: a\n  labels:\n    env: two words\n"));
        assert!(error.starts_with("fleet.yaml:6:"), "{error}");
        assert!(error.contains("clusters[0].labels: invalid value \"two words\" for label env"), "{error}");
        let error = error_of(&format!("{HEAD}defaults:\n  labels: {{fleetctl.io/x: y}}\nclusters: []\n"));
        assert!(error.contains("defaults.labels: label fleetctl.io/x is reserved"), "{error}");
    }

    #[test]
    fn bad_names_versions_addons_and_repeats_are_refused_where_they_are() {
        let bad_name = error_of(&format!("{HEAD}clusters:\n- name: Bad_Name\n"));
        assert!(bad_name.starts_with("fleet.yaml:4:9: clusters[0].name: invalid cluster name"), "{bad_name}");
        let twice = error_of(&format!("{HEAD}clusters:\n- name: a\n- name: b\n- name: a\n"));
        assert!(twice.contains("cluster a is listed twice"), "{twice}");
        let version = error_of(&format!("{HEAD}defaults: {{version: latest}}\nclusters: []\n"));
        assert!(version.contains("defaults.version: invalid version \"latest\""), "{version}");
        let addon = error_of(&format!("{HEAD}clusters:\n- name: a\n  addons: {{magic: {{}}}}\n"));
        assert!(addon.contains("clusters[0].addons: unknown variant `magic`"), "{addon}");
        let wave = error_of(&format!("{HEAD}defaults: {{rollout: {{waveSize: 0%}}}}\nclusters: []\n"));
        assert!(wave.contains("invalid wave size"), "{wave}");
        let kind = error_of("apiVersion: fleetctl.io/v2\nkind: Fleet\nclusters: []\n");
        assert!(kind.starts_with("fleet.yaml:1:13: apiVersion: unknown variant `fleetctl.io/v2`"), "{kind}");
    }

    #[test]
    fn a_cluster_is_imported_from_here_or_by_the_hub_from_its_context_or_a_hub_secret() {
        let text = format!(
            "{HEAD}clusters:\n- name: a\n- name: b\n  autoImport: {{}}\n- name: c\n  autoImport:\n    secretRef: \
             {{namespace: creds, name: c-admin}}\n"
        );
        let reaches: Vec<Reach> = parse(&text).expect("parses").desired().into_iter().map(|d| d.reach).collect();
        let secret = SecretRef { namespace: "creds".into(), name: "c-admin".into() };
        assert_eq!(reaches, [Reach::Context, Reach::HubWithContext, Reach::HubWithSecret(secret)]);
        let both = error_of(&format!(
            "{HEAD}clusters:\n- name: c\n  context: c\n  autoImport: {{secretRef: {{namespace: n, name: s}}}}\n"
        ));
        assert!(both.contains("kubeconfig and context would go unused"), "{both}");
        let bad = error_of(&format!(
            "{HEAD}clusters:\n- name: c\n  autoImport: {{secretRef: {{namespace: N_s, name: s}}}}\n"
        ));
        assert!(bad.starts_with("fleet.yaml:5:39: "), "{bad}");
        assert!(bad.contains("clusters[0].autoImport.secretRef.namespace: namespace \"N_s\""), "{bad}");
    }

    #[test]
    fn relative_paths_are_taken_from_the_files_folder() {
        let text = format!("{HEAD}hub: {{kubeconfig: hub.yaml}}\nclusters:\n- name: a\n  kubeconfig: /abs/k\n");
        let mut fleet = parse(&text).expect("parses");
        fleet.resolve_paths(Path::new("/fleets"));
        assert_eq!(fleet.hub.kubeconfig, Some(PathBuf::from("/fleets/hub.yaml")));
        assert_eq!(fleet.desired()[0].kubeconfig, Some(PathBuf::from("/abs/k")));
    }

    #[test]
    fn rollout_settings_default_to_one_cluster_at_a_time_with_rollback() {
        let settings = parse(&format!("{HEAD}clusters: []\n")).expect("parses").defaults.rollout;
        assert_eq!(settings, RolloutSettings::default());
        assert_eq!(settings.wave_size, WaveSize::parse("1").expect("1"));
        assert!(settings.rollback);
        let given =
            format!("{HEAD}defaults: {{rollout: {{waveSize: 25%, soak: 1m, rollback: false}}}}\nclusters: []\n");
        let settings = parse(&given).expect("parses").defaults.rollout;
        assert_eq!(
            (settings.wave_size, settings.soak, settings.rollback),
            (WaveSize::Percent(25), Some(Duration::from_secs(60)), false)
        );
        let count = parse(&format!("{HEAD}defaults: {{rollout: {{waveSize: 3}}}}\nclusters: []\n")).expect("parses");
        assert_eq!(count.defaults.rollout.wave_size, WaveSize::parse("3").expect("3"));
        let long =
            parse(&format!("{HEAD}defaults: {{rollout: {{soak: 1h30m, progressDeadline: 2m}}}}\nclusters: []\n"))
                .expect("parses");
        assert_eq!(long.defaults.rollout.soak, Some(Duration::from_secs(5400)));
        assert_eq!(long.defaults.rollout.progress_deadline, Some(Duration::from_secs(120)));
    }

    #[test]
    fn a_progress_deadline_of_zero_is_refused_as_the_flag_refuses_it() {
        let error = error_of(&format!("{HEAD}defaults: {{rollout: {{progressDeadline: 0s}}}}\nclusters: []\n"));
        assert!(error.starts_with("fleet.yaml:3:"), "{error}");
        assert!(error.contains("defaults.rollout.progressDeadline: \"0s\" is no time to wait"), "{error}");
        assert!(parse(&format!("{HEAD}defaults: {{rollout: {{soak: 0s}}}}\nclusters: []\n")).is_ok(), "no soak");
    }

    const SCHEMA_FILE: &str = "docs/fleet.schema.json";

    /// The schema is generated from the types; a stale copy fails here, and
    /// `FLEETCTL_UPDATE_SCHEMA=1` rewrites it (never under CI).
    #[test]
    fn the_checked_in_fleet_schema_matches_the_types() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCHEMA_FILE);
        let fresh = serde_json::to_string_pretty(&schema()).expect("schema as JSON") + "\n";
        let update = std::env::var_os("FLEETCTL_UPDATE_SCHEMA").is_some();
        assert!(
            !(update && std::env::var_os("CI").is_some()),
            "FLEETCTL_UPDATE_SCHEMA is set under CI: the test would rewrite the schema instead of checking it"
        );
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if update && have != fresh {
            std::fs::write(&path, &fresh).expect("write the schema");
            return;
        }
        assert!(
            have == fresh,
            "{SCHEMA_FILE} is stale: run `FLEETCTL_UPDATE_SCHEMA=1 cargo test --lib fleet_schema` to update it"
        );
    }

    #[test]
    fn the_schema_refuses_unknown_fields_and_names_the_addons() {
        let schema = schema();
        assert_eq!(schema["additionalProperties"], false);
        let text = schema.to_string();
        assert!(text.contains("search-collector") && text.contains("fleetctl.io/v1alpha1"), "{text}");
    }
}
