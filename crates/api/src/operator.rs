//! `Klusterlet` (`operator.open-cluster-management.io/v1`, cluster-scoped, on the managed
//! cluster): what the klusterlet operator deploys — the registration and work agents — and how.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fields::{self, string_enum};

/// The name of the one Klusterlet of a managed cluster in Default mode.
pub const KLUSTERLET_NAME: &str = "klusterlet";

/// The agent namespace when `spec.namespace` is unset.
pub const DEFAULT_AGENT_NAMESPACE: &str = "open-cluster-management-agent";

/// The default limit on custom cluster claims.
pub const DEFAULT_MAX_CUSTOM_CLUSTER_CLAIMS: i32 = 20;

/// Desired deployment of the klusterlet agents.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "operator.open-cluster-management.io",
    version = "v1",
    kind = "Klusterlet",
    plural = "klusterlets",
    status = "KlusterletStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "The agents of a managed cluster, as the klusterlet operator deploys them (cluster-scoped). The \
           agents register with the hub using the secret `bootstrap-hub-kubeconfig` in the agent namespace."
)]
#[serde(rename_all = "camelCase")]
pub struct KlusterletSpec {
    /// Agent namespace, `open-cluster-management-agent` when unset; addons go to `<namespace>-addon`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 57), pattern(r"^open-cluster-management-[-a-z0-9]*[a-z0-9]$"))]
    pub namespace: String,

    /// Image of the registration agent.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub registration_image_pull_spec: String,

    /// Image of the work agent.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub work_image_pull_spec: String,

    /// Image of the single agent in Singleton mode.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub image_pull_spec: String,

    /// Name of the ManagedCluster to register as.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(length(max = 63), pattern(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"))]
    pub cluster_name: String,

    /// API server addresses of this cluster that the hub can reach.
    #[serde(rename = "externalServerURLs", default, skip_serializing_if = "Vec::is_empty")]
    pub external_server_urls: Vec<ServerUrl>,

    /// Where the agent pods are scheduled.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub node_placement: NodePlacement,

    /// How the agents are deployed.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub deploy_option: KlusterletDeployOption,

    /// Options of the registration agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_configuration: Option<RegistrationConfiguration>,

    /// Options of the work agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_configuration: Option<WorkAgentConfiguration>,

    /// A hosts entry for the hub API server in the agent pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub_api_server_host_alias: Option<HubApiServerHostAlias>,

    /// Resource requests and limits of the agent containers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_requirement: Option<ResourceRequirement>,

    /// PriorityClass of the agent pods, when the cluster has the PriorityClass API.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub priority_class_name: String,
}

/// An API server address of this cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerUrl {
    /// URL of the API server.
    pub url: String,

    /// CA bundle to verify it with; the system roots when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::byte_string")]
    pub ca_bundle: Option<ByteString>,
}

/// Scheduling of the agent pods.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodePlacement {
    /// Node labels the pods require.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,

    /// Taints the pods tolerate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::tolerations")]
    pub tolerations: Vec<Toleration>,
}

/// How the klusterlet is deployed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KlusterletDeployOption {
    /// Default, Hosted, Singleton or SingletonHosted; do not change it once applied.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub mode: InstallMode,
}

string_enum! {
    /// Where and how the agents run.
    pub enum InstallMode(open) {
        /// Registration and work agents as two deployments on the managed cluster.
        Default = "Default",
        /// The agents run on a management cluster and reach this one through a kubeconfig.
        Hosted = "Hosted",
        /// One agent deployment that does registration and work.
        Singleton = "Singleton",
        /// Singleton, run on a management cluster.
        SingletonHosted = "SingletonHosted",
    }
    default = Default;
}

/// Options of the registration agent.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistrationConfiguration {
    /// Requested lifetime of the agent's client certificate; the hub's default when zero.
    #[serde(default, skip_serializing_if = "fields::is_zero")]
    pub client_cert_expiration_seconds: i32,

    /// Feature gates of the registration agent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub feature_gates: Vec<FeatureGate>,

    /// Annotations (prefix `agent.open-cluster-management.io`) put on the ManagedCluster when it
    /// is created.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cluster_annotations: BTreeMap<String, String>,

    /// Labels put on the ManagedCluster when it is created.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cluster_labels: BTreeMap<String, String>,

    /// Request rate limit towards this cluster's API server; 50 when zero.
    #[serde(rename = "kubeAPIQPS", default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 50))]
    pub kube_api_qps: i32,

    /// Request burst towards this cluster's API server; 100 when zero.
    #[serde(rename = "kubeAPIBurst", default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 100))]
    pub kube_api_burst: i32,

    /// Bootstrap kubeconfigs to try in order when the agent re-bootstraps.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub bootstrap_kube_configs: BootstrapKubeConfigs,

    /// How the agent authenticates to the hub.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub registration_driver: RegistrationDriver,

    /// How addons with a kube client registration authenticate to the hub.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_on_kube_client_registration_driver: Option<AddOnRegistrationDriver>,

    /// Limits of cluster claims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_claim_configuration: Option<ClusterClaimConfiguration>,
}

/// One feature gate.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeatureGate {
    /// The feature, such as `ClusterClaim`.
    pub feature: String,

    /// Enable or Disable.
    #[serde(default)]
    pub mode: FeatureGateMode,
}

string_enum! {
    /// Whether a feature gate is on.
    pub enum FeatureGateMode(closed) {
        /// On.
        Enable = "Enable",
        /// Off.
        Disable = "Disable",
    }
    default = Disable;
}

/// Ordered bootstrap kubeconfigs.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BootstrapKubeConfigs {
    /// None, or LocalSecrets to use `localSecretsConfig`.
    #[serde(rename = "type", default)]
    pub type_: BootstrapKubeConfigsType,

    /// Secrets holding the kubeconfigs, in order.
    #[serde(rename = "localSecretsConfig", default, skip_serializing_if = "Option::is_none")]
    pub local_secrets: Option<LocalSecretsConfig>,
}

string_enum! {
    /// Where ordered bootstrap kubeconfigs come from.
    pub enum BootstrapKubeConfigsType(closed) {
        /// Only `bootstrap-hub-kubeconfig`.
        None = "None",
        /// The secrets of `localSecretsConfig`.
        LocalSecrets = "LocalSecrets",
    }
    default = None;
}

/// Secrets with bootstrap kubeconfigs, in the agent namespace.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocalSecretsConfig {
    /// The secrets, in order.
    #[serde(deserialize_with = "fields::null_as_default")]
    pub kube_config_secrets: Vec<KubeConfigSecret>,

    /// Seconds without reaching the hub before the agent re-bootstraps; 600 when zero.
    #[serde(default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 600), range(min = 180))]
    pub hub_connection_timeout_seconds: i32,
}

/// A secret holding a kubeconfig.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubeConfigSecret {
    /// Secret name.
    pub name: String,
}

/// How the agent authenticates to the hub.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistrationDriver {
    /// csr (client certificates), awsirsa or grpc.
    #[serde(default)]
    pub auth_type: RegistrationAuthType,

    /// EKS details (for awsirsa).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aws_irsa: Option<AwsIrsa>,
}

string_enum! {
    /// How an agent authenticates to the hub.
    pub enum RegistrationAuthType(closed) {
        /// A client certificate from an approved CSR.
        Csr = "csr",
        /// AWS IAM roles for service accounts.
        AwsIrsa = "awsirsa",
        /// The gRPC registration server.
        Grpc = "grpc",
    }
    default = Csr;
}

/// EKS clusters of an awsirsa registration.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AwsIrsa {
    /// ARN of the hub's EKS cluster.
    #[schemars(length(min = 1), pattern(r"^arn:aws:eks:([a-zA-Z0-9-]+):(\d{12}):cluster/([a-zA-Z0-9-]+)$"))]
    pub hub_cluster_arn: String,

    /// ARN of this EKS cluster.
    #[schemars(length(min = 1), pattern(r"^arn:aws:eks:([a-zA-Z0-9-]+):(\d{12}):cluster/([a-zA-Z0-9-]+)$"))]
    pub managed_cluster_arn: String,
}

/// How addons with a kube client registration authenticate to the hub.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOnRegistrationDriver {
    /// csr or token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "AddOnAuthType")]
    pub auth_type: Option<AddOnAuthType>,

    /// Token options (for token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<TokenConfig>,
}

string_enum! {
    /// How an addon authenticates to the hub.
    pub enum AddOnAuthType(closed) {
        /// A client certificate from an approved CSR.
        Csr = "csr",
        /// A service account token.
        Token = "token",
    }
    default = Csr;
}

/// Token options of addon registration.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenConfig {
    /// Token lifetime in seconds; the hub's default when zero.
    #[serde(default, skip_serializing_if = "fields::is_zero")]
    pub expiration_seconds: i64,
}

/// Limits of cluster claims.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterClaimConfiguration {
    /// How many custom claims the agent reports.
    #[serde(default = "default_max_custom_cluster_claims")]
    pub max_custom_cluster_claims: i32,

    /// Claim name suffixes reserved like the built-in ones (such as `openshift.io`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 10), inner(length(min = 1, max = 64)))]
    pub reserved_cluster_claim_suffixes: Vec<String>,
}

impl Default for ClusterClaimConfiguration {
    fn default() -> Self {
        Self {
            max_custom_cluster_claims: DEFAULT_MAX_CUSTOM_CLUSTER_CLAIMS,
            reserved_cluster_claim_suffixes: Vec::new(),
        }
    }
}

fn default_max_custom_cluster_claims() -> i32 {
    DEFAULT_MAX_CUSTOM_CLUSTER_CLAIMS
}

/// Options of the work agent.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkAgentConfiguration {
    /// Feature gates of the work agent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub feature_gates: Vec<FeatureGate>,

    /// Request rate limit towards this cluster's API server; 50 when zero.
    #[serde(rename = "kubeAPIQPS", default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 50))]
    pub kube_api_qps: i32,

    /// Request burst towards this cluster's API server; 100 when zero.
    #[serde(rename = "kubeAPIBurst", default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 100))]
    pub kube_api_burst: i32,

    /// Request rate limit towards the hub; 50 when zero.
    #[serde(rename = "hubKubeAPIQPS", default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 50))]
    pub hub_kube_api_qps: i32,

    /// Request burst towards the hub; 100 when zero.
    #[serde(rename = "hubKubeAPIBurst", default, skip_serializing_if = "fields::is_zero")]
    #[schemars(extend("default" = 100))]
    pub hub_kube_api_burst: i32,

    /// How long an AppliedManifestWork whose work is gone from the hub is kept, such as `60m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern("^([0-9]+(s|m|h))+$"))]
    pub applied_manifest_work_eviction_grace_period: Option<String>,

    /// How often the agent checks the status of applied resources, such as `30s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern("^([0-9]+(s|m|h))+$"))]
    pub status_sync_interval: Option<String>,
}

/// A hosts-file entry for the hub API server.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubApiServerHostAlias {
    /// IPv4 address.
    #[schemars(pattern(
        r"^(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)$"
    ))]
    pub ip: String,

    /// Host name of the hub API server.
    #[schemars(pattern(
        r"^(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]*[a-zA-Z0-9])\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9])$"
    ))]
    pub hostname: String,
}

/// Resources of the agent containers.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRequirement {
    /// Default (the manifests' requests), BestEffort (none) or ResourceRequirement (below).
    #[serde(rename = "type", default)]
    pub type_: ResourceQosClass,

    /// Requests and limits (for ResourceRequirement).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::resource_requirements")]
    pub resource_requirements: Option<ResourceRequirements>,
}

string_enum! {
    /// QoS of the agent pods.
    pub enum ResourceQosClass(closed) {
        /// The requests of the shipped manifests, no limits.
        Default = "Default",
        /// No requests and no limits.
        BestEffort = "BestEffort",
        /// `resourceRequirements`.
        ResourceRequirement = "ResourceRequirement",
    }
    default = Default;
}

/// What the operator reports about the klusterlet.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KlusterletStatus {
    /// The generation the operator last acted on.
    #[serde(default, skip_serializing_if = "fields::is_zero")]
    pub observed_generation: i64,

    /// Applied, Available, HubConnectionDegraded, RegistrationDesiredDegraded,
    /// WorkDesiredDegraded and others.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,

    /// Generations of the resources the operator applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generations: Vec<GenerationStatus>,

    /// The resources the operator manages for this klusterlet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_resources: Vec<RelatedResourceMeta>,
}

/// The last applied generation of one resource.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GenerationStatus {
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace, empty for a cluster-scoped resource.
    #[serde(default)]
    pub namespace: String,
    /// Name.
    pub name: String,
    /// The generation the operator applied last.
    pub last_generation: i64,
}

/// A resource the operator manages.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelatedResourceMeta {
    /// API group.
    pub group: String,
    /// API version.
    pub version: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace, empty for a cluster-scoped resource.
    #[serde(default)]
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl Klusterlet {
    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }
}

impl KlusterletSpec {
    /// The agent namespace: `spec.namespace`, or the default.
    pub fn agent_namespace(&self) -> &str {
        if self.namespace.is_empty() { DEFAULT_AGENT_NAMESPACE } else { &self.namespace }
    }
}

#[cfg(test)]
mod tests {
    use kube::{CustomResourceExt, Resource};
    use serde_json::json;

    use super::*;

    /// The Klusterlet the import controller renders into `import.yaml`, with an operator status.
    fn upstream_sample() -> serde_json::Value {
        json!({
            "apiVersion": "operator.open-cluster-management.io/v1",
            "kind": "Klusterlet",
            "metadata": {"name": "klusterlet", "generation": 2},
            "spec": {
                "deployOption": {"mode": "Singleton"},
                "registrationImagePullSpec": "quay.io/stolostron/registration:2.14.0",
                "workImagePullSpec": "quay.io/stolostron/work:2.14.0",
                "imagePullSpec": "quay.io/stolostron/registration-operator:2.14.0",
                "clusterName": "cluster1",
                "namespace": "open-cluster-management-agent",
                "externalServerURLs": [{"url": "https://cluster1.example.com:6443", "caBundle": "Y2E="}],
                "nodePlacement": {
                    "nodeSelector": {"node-role.kubernetes.io/infra": ""},
                    "tolerations": [
                        {"key": "node-role.kubernetes.io/infra", "operator": "Exists", "effect": "NoSchedule"}
                    ]
                },
                "registrationConfiguration": {
                    "clientCertExpirationSeconds": 31536000,
                    "featureGates": [{"feature": "ClusterClaim", "mode": "Enable"}],
                    "clusterAnnotations": {"agent.open-cluster-management.io/origin": "fleetctl"},
                    "clusterLabels": {"env": "dev"},
                    "kubeAPIQPS": 50,
                    "kubeAPIBurst": 100,
                    "bootstrapKubeConfigs": {
                        "type": "LocalSecrets",
                        "localSecretsConfig": {
                            "kubeConfigSecrets": [{"name": "hub1-kubeconfig"}, {"name": "hub2-kubeconfig"}],
                            "hubConnectionTimeoutSeconds": 600
                        }
                    },
                    "registrationDriver": {
                        "authType": "awsirsa",
                        "awsIrsa": {
                            "hubClusterArn": "arn:aws:eks:us-west-2:123456789012:cluster/hub",
                            "managedClusterArn": "arn:aws:eks:us-west-2:123456789012:cluster/cluster1"
                        }
                    },
                    "addOnKubeClientRegistrationDriver": {"authType": "token", "token": {"expirationSeconds": 3600}},
                    "clusterClaimConfiguration": {
                        "maxCustomClusterClaims": 20,
                        "reservedClusterClaimSuffixes": ["openshift.io", "open-cluster-management.io"]
                    }
                },
                "workConfiguration": {
                    "featureGates": [{"feature": "ExecutorValidatingCaches", "mode": "Disable"}],
                    "hubKubeAPIQPS": 50,
                    "hubKubeAPIBurst": 100,
                    "appliedManifestWorkEvictionGracePeriod": "876000h",
                    "statusSyncInterval": "30s"
                },
                "hubApiServerHostAlias": {"ip": "10.0.0.10", "hostname": "api.hub.example.com"},
                "resourceRequirement": {
                    "type": "ResourceRequirement",
                    "resourceRequirements": {"requests": {"cpu": "2m", "memory": "16Mi"}, "limits": {"memory": "2Gi"}}
                },
                "priorityClassName": "klusterlet-critical"
            },
            "status": {
                "observedGeneration": 2,
                "conditions": [{
                    "type": "HubConnectionDegraded", "status": "False", "reason": "HubConnectionFunctional",
                    "message": "Consumer Config is valid", "lastTransitionTime": "2025-10-17T00:05:30Z"
                }],
                "generations": [{
                    "group": "apps", "version": "v1", "resource": "deployments",
                    "namespace": "open-cluster-management-agent", "name": "klusterlet-agent", "lastGeneration": 1
                }],
                "relatedResources": [{
                    "group": "", "version": "v1", "resource": "namespaces",
                    "namespace": "", "name": "open-cluster-management-agent"
                }]
            }
        })
    }

    #[test]
    fn an_upstream_klusterlet_round_trips() {
        let sample = upstream_sample();
        let klusterlet: Klusterlet = serde_json::from_value(sample.clone()).unwrap();
        assert_eq!(klusterlet.spec.deploy_option.mode, InstallMode::Singleton);
        let registration = klusterlet.spec.registration_configuration.as_ref().unwrap();
        assert_eq!(registration.bootstrap_kube_configs.type_, BootstrapKubeConfigsType::LocalSecrets);
        assert_eq!(registration.cluster_claim_configuration.as_ref().unwrap().reserved_cluster_claim_suffixes.len(), 2);
        assert_eq!(klusterlet.spec.node_placement.tolerations[0].operator.as_deref(), Some("Exists"));
        assert_eq!(klusterlet.conditions().len(), 1);
        assert_eq!(serde_json::to_value(&klusterlet).unwrap(), sample);
    }

    #[test]
    fn the_go_zero_mode_reads_as_default() {
        let klusterlet: Klusterlet = serde_json::from_value(json!({
            "apiVersion": "operator.open-cluster-management.io/v1",
            "kind": "Klusterlet",
            "metadata": {"name": "klusterlet"},
            "spec": {
                "deployOption": {"mode": ""},
                "clusterName": "c1",
                "registrationConfiguration": {"registrationDriver": {"authType": "csr"}, "bootstrapKubeConfigs": {}}
            },
            "status": {"conditions": null}
        }))
        .unwrap();
        assert_eq!(klusterlet.spec.deploy_option.mode, InstallMode::Default);
        assert_eq!(klusterlet.spec.agent_namespace(), DEFAULT_AGENT_NAMESPACE);
        let registration = klusterlet.spec.registration_configuration.as_ref().unwrap();
        assert_eq!(registration.registration_driver.auth_type, RegistrationAuthType::Csr);
        assert_eq!(
            serde_json::to_value(&klusterlet.spec).unwrap(),
            json!({"clusterName": "c1", "registrationConfiguration": {}})
        );
    }

    #[test]
    fn a_cluster_claim_configuration_defaults_to_twenty_claims() {
        let config: ClusterClaimConfiguration = serde_json::from_value(json!({})).unwrap();
        assert_eq!(config, ClusterClaimConfiguration::default());
        assert_eq!(config.max_custom_cluster_claims, 20);
    }

    #[test]
    fn the_crd_matches_upstream_names() {
        let crd = Klusterlet::crd();
        assert_eq!(crd.metadata.name.as_deref(), Some("klusterlets.operator.open-cluster-management.io"));
        assert_eq!(crd.spec.scope, "Cluster");
        assert_eq!(Klusterlet::group(&()), super::super::OPERATOR_GROUP);
        assert!(crd.spec.versions[0].subresources.as_ref().unwrap().status.is_some());
        let schema = serde_json::to_value(crd.spec.versions[0].schema.as_ref().unwrap()).unwrap();
        let spec = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"];
        assert_eq!(
            spec["deployOption"]["properties"]["mode"],
            json!({"description": spec["deployOption"]["properties"]["mode"]["description"], "type": "string"})
        );
        let claims = &spec["registrationConfiguration"]["properties"]["clusterClaimConfiguration"]["properties"];
        assert_eq!(claims["maxCustomClusterClaims"]["default"], 20);
    }
}
