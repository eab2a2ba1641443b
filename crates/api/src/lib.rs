//! The OCM API types fleetctl reads and writes, wire-compatible with upstream
//! (`open-cluster-management-io/api`, `stolostron/klusterlet-addon-controller`), and the CRDs
//! generated from them. Types only: nothing here does I/O.
//!
//! Collections and strings that upstream marks `omitempty` are plain values here, left out of
//! the JSON when empty; numbers whose zero means "the default" keep Go's meaning (see each
//! field). String enums keep values they do not know (`Other`), so an object written by a newer
//! hub still reads.

pub mod addon;
pub mod addon_management;
pub mod cluster;
pub mod clusterset;
pub mod conditions;
pub mod crds;
mod fields;
pub mod names;
pub mod operator;
pub mod placement;
pub mod quantity;
pub mod rollout;
pub mod selector;
mod specless;
pub mod work;
pub mod work_replica_set;

pub use addon::{
    KlusterletAddonConfig, KlusterletAddonConfigSpec, KlusterletAddonConfigStatus, ManagedClusterAddOn,
    ManagedClusterAddOnSpec, ManagedClusterAddOnStatus,
};
pub use addon_management::ClusterManagementAddOn;
pub use cluster::{ManagedCluster, ManagedClusterSpec, ManagedClusterStatus};
pub use clusterset::{ManagedClusterSet, ManagedClusterSetBinding};
pub use operator::{Klusterlet, KlusterletSpec, KlusterletStatus};
pub use placement::{AddOnPlacementScore, Placement, PlacementDecision};
pub use work::{
    AppliedManifestWork, AppliedManifestWorkSpec, AppliedManifestWorkStatus, Manifest, ManifestWork, ManifestWorkSpec,
    ManifestWorkStatus,
};
pub use work_replica_set::{ManifestWorkReplicaSet, ManifestWorkReplicaSetSpec, ManifestWorkReplicaSetStatus};

/// API group of ManagedCluster.
pub const CLUSTER_GROUP: &str = "cluster.open-cluster-management.io";
/// API group of ManifestWork, AppliedManifestWork and ManifestWorkReplicaSet.
pub const WORK_GROUP: &str = "work.open-cluster-management.io";
/// API group of Klusterlet.
pub const OPERATOR_GROUP: &str = "operator.open-cluster-management.io";
/// API group of KlusterletAddonConfig.
pub const AGENT_GROUP: &str = "agent.open-cluster-management.io";
/// API group of ManagedClusterAddOn, ClusterManagementAddOn and AddOnDeploymentConfig.
pub const ADDON_GROUP: &str = "addon.open-cluster-management.io";
/// API group of the `managedclusters/accept` and `managedclusters/clientcertificates` virtual
/// subresources that hub RBAC grants.
pub const REGISTER_GROUP: &str = "register.open-cluster-management.io";
