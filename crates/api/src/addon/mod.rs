//! Addons. ACM's `KlusterletAddonConfig` (`agent.open-cluster-management.io/v1`, in the cluster
//! namespace) says which addons a cluster gets. OCM's `addon.open-cluster-management.io` group
//! declares an addon hub-wide (`ClusterManagementAddOn`), installs it on one cluster
//! (`ManagedClusterAddOn`, in the cluster namespace) and shapes its agents' deployment
//! (`AddOnDeploymentConfig`).
//!
//! The hub serves that group as upstream OCM's hub does: in [`v1alpha1`], the version it stores
//! and the one fleetctl reads and writes (its types are re-exported here), and in [`v1beta1`],
//! which upstream's newer addon managers and agents use; [`conversion`] turns one into the
//! other.

pub mod conversion;
mod klusterlet_addon_config;
pub mod v1alpha1;
pub mod v1beta1;

pub use klusterlet_addon_config::{
    KlusterletAddonAgentConfigSpec, KlusterletAddonConfig, KlusterletAddonConfigSpec, KlusterletAddonConfigStatus,
    ProxyConfig, ProxyPolicy,
};
pub use v1alpha1::{
    AddOnConfig, AddOnMeta, ConfigCoordinates, ConfigGroupResource, ConfigReference, ConfigSpecHash, HealthCheck,
    HealthCheckMode, KubeClientDriver, ManagedClusterAddOn, ManagedClusterAddOnSpec, ManagedClusterAddOnStatus,
    ObjectReference, RegistrationConfig, Subject,
};

/// The namespace addon agents are installed in on a managed cluster by default.
pub const DEFAULT_ADDON_INSTALL_NAMESPACE: &str = "open-cluster-management-agent-addon";

/// ManagedClusterAddOn of the application manager.
pub const APPLICATION_MANAGER: &str = "application-manager";
/// ManagedClusterAddOn of the certificate policy controller.
pub const CERT_POLICY_CONTROLLER: &str = "cert-policy-controller";
/// ManagedClusterAddOn of the configuration policy controller.
pub const CONFIG_POLICY_CONTROLLER: &str = "config-policy-controller";
/// ManagedClusterAddOn of the governance policy framework.
pub const GOVERNANCE_POLICY_FRAMEWORK: &str = "governance-policy-framework";
/// ManagedClusterAddOn of the search collector.
pub const SEARCH_COLLECTOR: &str = "search-collector";
/// ManagedClusterAddOn of the IAM policy controller (not among upstream's current addon
/// names, which dropped it in ACM 2.11; the KlusterletAddonConfig still has its field).
pub const IAM_POLICY_CONTROLLER: &str = "iam-policy-controller";

/// The addons with an agent in this project.
pub const AGENTS: [&str; 3] = [SEARCH_COLLECTOR, CERT_POLICY_CONTROLLER, IAM_POLICY_CONTROLLER];

/// The kinds the search collector counts: `(group, version, kind, plural)`. Its ClusterRole
/// grants `list` on exactly these.
pub const SEARCH_KINDS: [(&str, &str, &str, &str); 8] = [
    ("", "v1", "Namespace", "namespaces"),
    ("", "v1", "Pod", "pods"),
    ("", "v1", "ConfigMap", "configmaps"),
    ("", "v1", "ServiceAccount", "serviceaccounts"),
    ("", "v1", "Service", "services"),
    ("apps", "v1", "Deployment", "deployments"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings"),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
];

/// The ConfigMap in which an addon agent keeps its report, beside its Lease `<addon>`.
pub fn status_name(addon: &str) -> String {
    format!("{addon}-status")
}
