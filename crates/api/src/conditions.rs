//! The names OCM and ACM agree on across the cluster lifecycle — condition types and reasons,
//! finalizers, labels and annotations — and small helpers for `metav1.Condition` lists.

use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

// ---------------------------------------------------------------------------------------------
// Condition status values
// ---------------------------------------------------------------------------------------------

/// `status: "True"`.
pub const TRUE: &str = "True";
/// `status: "False"`.
pub const FALSE: &str = "False";
/// `status: "Unknown"`.
pub const UNKNOWN: &str = "Unknown";

// ---------------------------------------------------------------------------------------------
// ManagedCluster
// ---------------------------------------------------------------------------------------------

/// The hub admin accepted (or denied) the cluster: `spec.hubAcceptsClient`.
pub const MANAGED_CLUSTER_HUB_ACCEPTED: &str = "HubAcceptedManagedCluster";
/// The hub admin denied the cluster (an older condition type some hubs still show).
pub const MANAGED_CLUSTER_HUB_DENIED: &str = "HubDeniedManagedCluster";
/// The registration agent joined the hub with a signed client certificate.
pub const MANAGED_CLUSTER_JOINED: &str = "ManagedClusterJoined";
/// The cluster's API server is healthy and its agent renews the lease.
pub const MANAGED_CLUSTER_AVAILABLE: &str = "ManagedClusterConditionAvailable";
/// The agent's clock agrees with the hub's.
pub const MANAGED_CLUSTER_CLOCK_SYNCED: &str = "ManagedClusterConditionClockSynced";
/// ACM's import progress (set by the import controller).
pub const MANAGED_CLUSTER_IMPORT_SUCCEEDED: &str = "ManagedClusterImportSucceeded";
/// The cluster is being deleted and the hub reports what is left in its namespace.
pub const MANAGED_CLUSTER_DELETING: &str = "Deleting";

/// HubAccepted=True: the hub admin accepted the cluster.
pub const REASON_HUB_CLUSTER_ADMIN_ACCEPTED: &str = "HubClusterAdminAccepted";
/// The message upstream writes with [`REASON_HUB_CLUSTER_ADMIN_ACCEPTED`].
pub const MESSAGE_HUB_CLUSTER_ADMIN_ACCEPTED: &str = "Accepted by hub cluster admin";
/// HubAccepted=False: the hub admin set `hubAcceptsClient: false`.
pub const REASON_HUB_CLUSTER_ADMIN_DENIED: &str = "HubClusterAdminDenied";
/// HubAccepted=False: accepting failed.
pub const REASON_ERROR: &str = "Error";
/// Joined=True.
pub const REASON_MANAGED_CLUSTER_JOINED: &str = "ManagedClusterJoined";
/// Available=True: the cluster's `/livez` (or `/healthz`) answers ok.
pub const REASON_MANAGED_CLUSTER_AVAILABLE: &str = "ManagedClusterAvailable";
/// Available=False: the registration agent says its klusterlet is being removed (fleetctl
/// detach says it for an agent that could not).
pub const REASON_KLUSTERLET_REMOVED: &str = "KlusterletRemoved";
/// Available=False: the cluster's API server health check has failed for a while.
pub const REASON_KUBE_APISERVER_UNAVAILABLE: &str = "ManagedClusterKubeAPIServerUnavailable";
/// Available=Unknown: the agent's lease is older than the grace period.
pub const REASON_LEASE_UPDATE_STOPPED: &str = "ManagedClusterLeaseUpdateStopped";
/// The message upstream writes with [`REASON_LEASE_UPDATE_STOPPED`].
pub const MESSAGE_LEASE_UPDATE_STOPPED: &str = "Registration agent stopped updating its lease.";
/// ClockSynced=True.
pub const REASON_CLOCK_SYNCED: &str = "ManagedClusterClockSynced";
/// ClockSynced=False.
pub const REASON_CLOCK_OUT_OF_SYNC: &str = "ManagedClusterClockOutOfSync";
/// The message upstream writes with [`REASON_CLOCK_SYNCED`].
pub const MESSAGE_CLOCK_SYNCED: &str = "The clock of the managed cluster is synced with the hub.";
/// The message upstream writes with [`REASON_CLOCK_OUT_OF_SYNC`].
pub const MESSAGE_CLOCK_OUT_OF_SYNC: &str =
    "The clock of hub and agent is out of sync. This may cause the Unknown status and affect agent functionalities.";
/// ImportSucceeded=False: the import secret is ready, waiting for it to be applied.
pub const REASON_WAIT_FOR_IMPORTING: &str = "ManagedClusterWaitForImporting";
/// ImportSucceeded=False: the import manifests are being applied.
pub const REASON_IMPORTING: &str = "ManagedClusterImporting";
/// ImportSucceeded=False: importing failed.
pub const REASON_IMPORT_FAILED: &str = "ManagedClusterImportFailed";
/// ImportSucceeded=True: the klusterlet work is available.
pub const REASON_IMPORTED: &str = "ManagedClusterImported";
/// ImportSucceeded=False: the cluster is being detached with its agent reachable.
pub const REASON_DETACHING: &str = "ManagedClusterDetaching";
/// ImportSucceeded=False: the cluster is being detached without waiting for its agent.
pub const REASON_FORCE_DETACHING: &str = "ManagedClusterForceDetaching";
/// Deleting: resources remain in the cluster namespace.
pub const REASON_RESOURCE_REMAINING: &str = "ResourceRemaining";
/// Deleting: nothing is left in the cluster namespace.
pub const REASON_NO_RESOURCE: &str = "NoResource";
/// Deleting: cleaning up failed.
pub const REASON_DELETING_ERROR: &str = "DeletingError";

// ---------------------------------------------------------------------------------------------
// ManifestWork and its manifests
// ---------------------------------------------------------------------------------------------

/// Every manifest was applied.
pub const WORK_APPLIED: &str = "Applied";
/// Every applied resource exists on the managed cluster.
pub const WORK_AVAILABLE: &str = "Available";
/// The resources have not matched the desired state for a while.
pub const WORK_DEGRADED: &str = "Degraded";
/// The work is being applied.
pub const WORK_PROGRESSING: &str = "Progressing";
/// Every completable manifest has completed.
pub const WORK_COMPLETE: &str = "Complete";
/// The work agent is deleting what the work applied.
pub const WORK_DELETING: &str = "Deleting";

/// Work Applied=True.
pub const REASON_APPLIED_MANIFEST_WORK_COMPLETE: &str = "AppliedManifestWorkComplete";
/// Work Applied=False.
pub const REASON_APPLIED_MANIFEST_WORK_FAILED: &str = "AppliedManifestWorkFailed";
/// Manifest Applied=True.
pub const REASON_APPLIED_MANIFEST_COMPLETE: &str = "AppliedManifestComplete";
/// Manifest Applied=False.
pub const REASON_APPLIED_MANIFEST_FAILED: &str = "AppliedManifestFailed";
/// Manifest Applied=False: its ignoreFields could not be processed.
pub const REASON_APPLIED_MANIFEST_IGNORE_FIELD_ERROR: &str = "AppliedManifestSSAIgnoreFieldError";
/// Work Available=True.
pub const REASON_RESOURCES_AVAILABLE: &str = "ResourcesAvailable";
/// Work Available=False: some resources are missing.
pub const REASON_RESOURCES_NOT_AVAILABLE: &str = "ResourcesNotAvailable";
/// Work Available=Unknown.
pub const REASON_RESOURCES_STATUS_UNKNOWN: &str = "ResourcesStatusUnknown";
/// Manifest Available=True.
pub const REASON_RESOURCE_AVAILABLE: &str = "ResourceAvailable";
/// Manifest Available=False.
pub const REASON_RESOURCE_NOT_AVAILABLE: &str = "ResourceNotAvailable";
/// Progressing=True.
pub const REASON_APPLYING: &str = "Applying";
/// Progressing=False: applied and available.
pub const REASON_COMPLETED: &str = "Completed";
/// Progressing=False: applying failed.
pub const REASON_FAILED: &str = "Failed";
/// Deleting=True on a work the agent is cleaning up.
pub const REASON_WORK_DELETING: &str = "WorkDeleting";

// ---------------------------------------------------------------------------------------------
// Klusterlet
// ---------------------------------------------------------------------------------------------

/// The operator applied the agent's resources.
pub const KLUSTERLET_APPLIED: &str = "Applied";
/// The agent deployments are available.
pub const KLUSTERLET_AVAILABLE: &str = "Available";
/// The agent cannot reach the hub with its credential.
pub const KLUSTERLET_HUB_CONNECTION_DEGRADED: &str = "HubConnectionDegraded";
/// The registration agent is not serving.
pub const KLUSTERLET_REGISTRATION_DESIRED_DEGRADED: &str = "RegistrationDesiredDegraded";
/// The work agent is not serving.
pub const KLUSTERLET_WORK_DESIRED_DEGRADED: &str = "WorkDesiredDegraded";

/// Klusterlet Applied=True.
pub const REASON_KLUSTERLET_APPLIED: &str = "KlusterletApplied";
/// Klusterlet condition of a Hosted Klusterlet: whether the managed cluster's kubeconfig is
/// there and usable (ACM's import controller reads it back through status feedback).
pub const KLUSTERLET_READY_TO_APPLY: &str = "ReadyToApply";
/// `ReadyToApply` reasons: the managed cluster can be reached, or cannot.
pub const REASON_KLUSTERLET_PREPARED: &str = "KlusterletPrepared";
/// See [`REASON_KLUSTERLET_PREPARED`].
pub const REASON_KLUSTERLET_PREPARE_FAILED: &str = "KlusterletPrepareFailed";
/// Klusterlet Applied=False.
pub const REASON_KLUSTERLET_APPLY_FAILED: &str = "KlusterletApplyFailed";
/// Klusterlet Available=True.
pub const REASON_KLUSTERLET_AVAILABLE: &str = "KlusterletAvailable";
/// The agent deployments are functional (the `*DesiredDegraded` conditions are False).
pub const REASON_DEPLOYMENTS_FUNCTIONAL: &str = "DeploymentsFunctional";
/// Some agent pods are unavailable.
pub const REASON_UNAVAILABLE_PODS: &str = "UnavailablePods";
/// No agent pod is available.
pub const REASON_NO_AVAILABLE_PODS: &str = "NoAvailablePods";
/// The agent deployments could not be read.
pub const REASON_GET_DEPLOYMENT_FAILED: &str = "GetDeploymentFailed";
/// HubConnectionDegraded=False.
pub const REASON_HUB_CONNECTION_FUNCTIONAL: &str = "HubConnectionFunctional";
/// The secret `hub-kubeconfig-secret` is missing.
pub const REASON_HUB_KUBECONFIG_SECRET_MISSING: &str = "HubKubeConfigSecretMissing";
/// The hub credential is refused.
pub const REASON_HUB_KUBECONFIG_UNAUTHORIZED: &str = "HubKubeConfigUnauthorized";
/// `hub-kubeconfig-secret` has no `kubeconfig` (the agent has not been issued one yet).
pub const REASON_HUB_KUBECONFIG_MISSING: &str = "HubKubeConfigMissing";
/// No client could be made from `hub-kubeconfig-secret`, or the hub could not be asked.
pub const REASON_HUB_KUBECONFIG_ERROR: &str = "HubKubeConfigError";
/// The bootstrap kubeconfig works.
pub const REASON_BOOTSTRAP_SECRET_FUNCTIONAL: &str = "BootstrapSecretFunctional";
/// The secret `bootstrap-hub-kubeconfig` is missing.
pub const REASON_BOOTSTRAP_SECRET_MISSING: &str = "BootstrapSecretMissing";
/// No client could be made from the bootstrap secret, or the hub could not be asked.
pub const REASON_BOOTSTRAP_SECRET_ERROR: &str = "BootstrapSecretError";
/// The bootstrap identity may not do what bootstrapping needs.
pub const REASON_BOOTSTRAP_SECRET_UNAUTHORIZED: &str = "BootstrapSecretUnauthorized";

// ---------------------------------------------------------------------------------------------
// ManagedClusterAddOn
// ---------------------------------------------------------------------------------------------

/// The addon agent runs on the managed cluster.
pub const ADDON_AVAILABLE: &str = "Available";
/// The addon agent gives degraded service.
pub const ADDON_DEGRADED: &str = "Degraded";
/// The addon agent is being configured or upgraded.
pub const ADDON_PROGRESSING: &str = "Progressing";
/// The addon's manifests were applied.
pub const ADDON_MANIFEST_APPLIED: &str = "ManifestApplied";
/// The addon's registration (CSR and RBAC) is set up.
pub const ADDON_REGISTRATION_APPLIED: &str = "RegistrationApplied";

/// ManifestApplied=True: the work agent applied the addon's work.
pub const REASON_ADDON_MANIFEST_APPLIED: &str = "AddonManifestApplied";
/// ManifestApplied=False: the work agent could not apply the addon's work.
pub const REASON_ADDON_MANIFEST_APPLIED_FAILED: &str = "AddonManifestAppliedFailed";
/// ManifestApplied=False: the hub could not write the addon's work.
pub const REASON_MANIFEST_WORK_APPLY_FAILED: &str = "ManifestWorkApplyFailed";
/// Addon Progressing=True: its work is not applied and available yet.
pub const REASON_ADDON_PROGRESSING: &str = "Progressing";
/// Addon Progressing=False: its work is applied and available.
pub const REASON_ADDON_COMPLETED: &str = "Completed";
/// Addon Progressing=False: its work failed to apply.
pub const REASON_ADDON_FAILED: &str = "Failed";
/// Addon Progressing=False: its configuration (the values annotation) cannot be used.
pub const REASON_CONFIGURATION_UNSUPPORTED: &str = "ConfigurationUnsupported";

/// Addon Available=True from a fresh lease.
pub const REASON_ADDON_LEASE_UPDATED: &str = "ManagedClusterAddOnLeaseUpdated";
/// Addon Available=Unknown: the lease went stale.
pub const REASON_ADDON_LEASE_UPDATE_STOPPED: &str = "ManagedClusterAddOnLeaseUpdateStopped";
/// Addon Available=False: no lease.
pub const REASON_ADDON_LEASE_NOT_FOUND: &str = "ManagedClusterAddOnLeaseNotFound";

// ---------------------------------------------------------------------------------------------
// Finalizers
// ---------------------------------------------------------------------------------------------

/// On an accepted ManagedCluster until the hub removed the cluster's RBAC.
pub const FINALIZER_API_RESOURCE_CLEANUP: &str = "cluster.open-cluster-management.io/api-resource-cleanup";
/// On a ManagedCluster until the cluster namespace's resources are cleaned up (OCM gc).
pub const FINALIZER_RESOURCE_CLEANUP: &str = "cluster.open-cluster-management.io/resource-cleanup";
/// On a ManagedCluster until the import controller has cleaned up.
pub const FINALIZER_IMPORT_CLEANUP: &str = "managedcluster-import-controller.open-cluster-management.io/cleanup";
/// On a ManagedCluster while its klusterlet works exist.
pub const FINALIZER_MANIFESTWORK_CLEANUP: &str =
    "managedcluster-import-controller.open-cluster-management.io/manifestwork-cleanup";
/// On a hub ManifestWork (and the work RoleBinding) until the agent removed what it applied.
pub const FINALIZER_MANIFEST_WORK_CLEANUP: &str = "cluster.open-cluster-management.io/manifest-work-cleanup";
/// On a managed-side AppliedManifestWork until its resources are deleted.
pub const FINALIZER_APPLIED_MANIFEST_WORK_CLEANUP: &str =
    "cluster.open-cluster-management.io/applied-manifest-work-cleanup";
/// On the Klusterlet until the operator removed the agents.
pub const FINALIZER_KLUSTERLET_CLEANUP: &str = "operator.open-cluster-management.io/klusterlet-cleanup";
/// On a Hosted-mode Klusterlet until the operator removed the agents.
pub const FINALIZER_KLUSTERLET_HOSTED_CLEANUP: &str = "operator.open-cluster-management.io/klusterlet-hosted-cleanup";

// ---------------------------------------------------------------------------------------------
// Labels
// ---------------------------------------------------------------------------------------------

/// Names the cluster a hub object belongs to (namespace, lease, CSR).
pub const LABEL_CLUSTER_NAME: &str = "open-cluster-management.io/cluster-name";
/// Names the cluster on its hub namespace (set by the import controller).
pub const LABEL_MANAGED_CLUSTER: &str = "cluster.open-cluster-management.io/managedCluster";
/// `name=<cluster>` on a ManagedCluster.
pub const LABEL_NAME: &str = "name";
/// `"true"` on the `<c>-klusterlet` and `<c>-klusterlet-crds` ManifestWorks.
pub const LABEL_KLUSTERLET_WORKS: &str = "import.open-cluster-management.io/klusterlet-works";
/// On the `<c>-import` secret.
pub const LABEL_IMPORT_SECRET: &str = "managedcluster-import-controller.open-cluster-management.io/import-secret";
/// Names the addon a hub object belongs to.
pub const LABEL_ADDON_NAME: &str = "open-cluster-management.io/addon-name";
/// On a ManagedClusterAddOn the hub wrote because the cluster's KlusterletAddonConfig enables
/// the addon: the config disabling it takes it away. One without it (written by hand, by
/// `clusteradm addon enable`, by an install strategy) is its writer's to remove.
pub const LABEL_ADDON_ENABLED_BY_CONFIG: &str = "fleetctl.io/enabled-by-klusterletaddonconfig";

// ---------------------------------------------------------------------------------------------
// Annotations
// ---------------------------------------------------------------------------------------------

/// How a ManagedCluster was created: `other`, `hive`, `assisted-installer`, `discovery`,
/// `hypershift`.
pub const ANNOTATION_CREATED_VIA: &str = "open-cluster-management/created-via";
/// Deletion order of the objects in a cluster namespace, `0`..=`100`, lower first.
pub const ANNOTATION_CLEANUP_PRIORITY: &str = "open-cluster-management.io/cleanup-priority";
/// `Default` or `Hosted` on a ManagedCluster.
pub const ANNOTATION_KLUSTERLET_DEPLOY_MODE: &str = "import.open-cluster-management.io/klusterlet-deploy-mode";
/// Overrides the agent namespace of a ManagedCluster's klusterlet.
pub const ANNOTATION_KLUSTERLET_NAMESPACE: &str = "import.open-cluster-management.io/klusterlet-namespace";
/// Stops auto-import (and makes the klusterlet manifests read-only in the work).
pub const ANNOTATION_DISABLE_AUTO_IMPORT: &str = "import.open-cluster-management.io/disable-auto-import";
/// Asks for one auto-import now; set to `Completed` when done.
pub const ANNOTATION_IMMEDIATE_IMPORT: &str = "import.open-cluster-management.io/immediate-import";
/// Keeps `auto-import-secret` after a successful auto-import.
pub const ANNOTATION_KEEPING_AUTO_IMPORT_SECRET: &str =
    "managedcluster-import-controller.open-cluster-management.io/keeping-auto-import-secret";
/// Keeps the cluster namespace when the cluster is detached.
pub const ANNOTATION_RETAIN_NAMESPACE: &str = "open-cluster-management.io/retain-namespace";
/// Helm-style values of an addon, on a ManagedClusterAddOn.
pub const ANNOTATION_ADDON_VALUES: &str = "addon.open-cluster-management.io/values";
/// On a ManagedClusterAddOn read as v1beta1, which has no install namespace: v1alpha1's
/// `spec.installNamespace`, restored from it (and removed) on the way back to v1alpha1.
pub const ANNOTATION_V1ALPHA1_INSTALL_NAMESPACE: &str = "addon.open-cluster-management.io/v1alpha1-install-namespace";
/// When the operator gave up reaching an unreachable managed cluster during cleanup.
pub const ANNOTATION_MANAGED_RESOURCES_EVICTION_TIMESTAMP: &str =
    "operator.open-cluster-management.io/managed-resources-eviction-timestamp";

// ---------------------------------------------------------------------------------------------
// Taints
// ---------------------------------------------------------------------------------------------

/// The hub taints a cluster whose Available condition is False.
pub const TAINT_UNAVAILABLE: &str = "cluster.open-cluster-management.io/unavailable";
/// The hub taints a cluster whose Available condition is Unknown or missing.
pub const TAINT_UNREACHABLE: &str = "cluster.open-cluster-management.io/unreachable";

// ---------------------------------------------------------------------------------------------
// Cluster sets and placement
// ---------------------------------------------------------------------------------------------

/// Whether a ManagedClusterSet holds no cluster.
pub const CLUSTER_SET_EMPTY: &str = "ClusterSetEmpty";
/// ClusterSetEmpty=True: no cluster is a member.
pub const REASON_NO_CLUSTER_MATCHED: &str = "NoClusterMatched";
/// ClusterSetEmpty=False: some clusters are members.
pub const REASON_CLUSTERS_SELECTED: &str = "ClustersSelected";
/// Whether a ManagedClusterSetBinding's set exists.
pub const CLUSTER_SET_BINDING_BOUND: &str = "Bound";
/// Bound=True.
pub const REASON_CLUSTER_SET_BOUND: &str = "ClusterSetBound";
/// Bound=False.
pub const REASON_CLUSTER_SET_NOT_FOUND: &str = "ClusterSetNotFound";
/// Whether a Placement has all the clusters it asks for.
pub const PLACEMENT_SATISFIED: &str = "PlacementSatisfied";
/// Whether a Placement cannot be scheduled as written.
pub const PLACEMENT_MISCONFIGURED: &str = "PlacementMisconfigured";
/// PlacementSatisfied=False: no set is bound into the namespace.
pub const REASON_NO_BINDINGS: &str = "NoManagedClusterSetBindings";
/// PlacementSatisfied=False: none of the Placement's sets is bound.
pub const REASON_NO_INTERSECTION: &str = "NoIntersection";
/// PlacementSatisfied=False: the eligible sets hold no cluster.
pub const REASON_ALL_SETS_EMPTY: &str = "AllManagedClusterSetsEmpty";
/// PlacementSatisfied=False: no cluster passes the predicates.
pub const REASON_NO_CLUSTER_MATCHED_PREDICATES: &str = "NoManagedClusterMatched";
/// PlacementSatisfied=True.
pub const REASON_ALL_DECISIONS_SCHEDULED: &str = "AllDecisionsScheduled";
/// PlacementSatisfied=False: fewer clusters than numberOfClusters.
pub const REASON_NOT_ALL_DECISIONS_SCHEDULED: &str = "NotAllDecisionsScheduled";
/// PlacementMisconfigured=True.
pub const REASON_MISCONFIGURED: &str = "Misconfigured";
/// PlacementMisconfigured=False (upstream's spelling).
pub const REASON_SUCCEEDCONFIGURED: &str = "Succeedconfigured";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A condition stamped now (to the second, as the API stores it).
pub fn new_condition(type_: &str, status: &str, reason: &str, message: impl Into<String>) -> Condition {
    Condition {
        type_: type_.to_owned(),
        status: status.to_owned(),
        reason: reason.to_owned(),
        message: message.into(),
        observed_generation: None,
        last_transition_time: now(),
    }
}

/// The current time, truncated to whole seconds like `metav1.Time` on the wire.
pub fn now() -> Time {
    let now = Timestamp::now();
    Time(Timestamp::from_second(now.as_second()).unwrap_or(now))
}

/// An object with status conditions (for code that updates the conditions of any kind).
pub trait HasConditions {
    /// The status conditions, empty when there is no status yet.
    fn status_conditions(&self) -> &[Condition];
}

/// The condition of the given type, if present.
pub fn find<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Whether the condition of the given type is present with status True.
pub fn is_true(conditions: &[Condition], type_: &str) -> bool {
    has_status(conditions, type_, TRUE)
}

/// Whether the condition of the given type is present with status False.
pub fn is_false(conditions: &[Condition], type_: &str) -> bool {
    has_status(conditions, type_, FALSE)
}

/// Whether the condition of the given type is present with the given status.
pub fn has_status(conditions: &[Condition], type_: &str, status: &str) -> bool {
    find(conditions, type_).is_some_and(|c| c.status == status)
}

/// Sets each of `wanted` (see [`set_condition`]); whether anything changed.
pub fn set_conditions(conditions: &mut Vec<Condition>, wanted: &[Condition]) -> bool {
    wanted.iter().fold(false, |changed, condition| set_condition(conditions, condition.clone()) | changed)
}

/// Adds or updates the condition of `condition.type_`, as apimachinery's `SetStatusCondition`:
/// the existing `lastTransitionTime` is kept unless the status changes. Returns whether
/// anything changed, so a caller can skip a status write.
pub fn set_condition(conditions: &mut Vec<Condition>, condition: Condition) -> bool {
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == condition.type_) else {
        conditions.push(condition);
        return true;
    };
    let mut changed = false;
    if existing.status != condition.status {
        existing.status = condition.status;
        existing.last_transition_time = condition.last_transition_time;
        changed = true;
    }
    if existing.reason != condition.reason {
        existing.reason = condition.reason;
        changed = true;
    }
    if existing.message != condition.message {
        existing.message = condition.message;
        changed = true;
    }
    if existing.observed_generation != condition.observed_generation {
        existing.observed_generation = condition.observed_generation;
        changed = true;
    }
    changed
}

/// Removes the condition of the given type; returns whether it was there.
pub fn remove_condition(conditions: &mut Vec<Condition>, type_: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.type_ != type_);
    conditions.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(second: i64) -> Time {
        Time(Timestamp::from_second(second).unwrap())
    }

    fn condition(status: &str, reason: &str, second: i64) -> Condition {
        Condition { last_transition_time: at(second), ..new_condition(MANAGED_CLUSTER_AVAILABLE, status, reason, "") }
    }

    #[test]
    fn set_condition_appends_a_new_type() {
        let mut conditions = vec![];
        assert!(set_condition(&mut conditions, condition(TRUE, REASON_MANAGED_CLUSTER_AVAILABLE, 10)));
        assert_eq!(conditions.len(), 1);
        assert!(is_true(&conditions, MANAGED_CLUSTER_AVAILABLE));
        assert!(!is_false(&conditions, MANAGED_CLUSTER_AVAILABLE));
        assert!(!is_true(&conditions, MANAGED_CLUSTER_JOINED));
    }

    #[test]
    fn set_condition_keeps_the_transition_time_when_the_status_stays() {
        let mut conditions = vec![condition(TRUE, REASON_MANAGED_CLUSTER_AVAILABLE, 10)];
        let mut update = condition(TRUE, REASON_MANAGED_CLUSTER_AVAILABLE, 20);
        update.message = "still fine".into();
        assert!(set_condition(&mut conditions, update));
        let kept = find(&conditions, MANAGED_CLUSTER_AVAILABLE).unwrap();
        assert_eq!(kept.last_transition_time, at(10));
        assert_eq!(kept.message, "still fine");
    }

    #[test]
    fn set_condition_moves_the_transition_time_when_the_status_changes() {
        let mut conditions = vec![condition(TRUE, REASON_MANAGED_CLUSTER_AVAILABLE, 10)];
        assert!(set_condition(&mut conditions, condition(UNKNOWN, REASON_LEASE_UPDATE_STOPPED, 20)));
        let changed = find(&conditions, MANAGED_CLUSTER_AVAILABLE).unwrap();
        assert_eq!(changed.last_transition_time, at(20));
        assert_eq!(changed.reason, REASON_LEASE_UPDATE_STOPPED);
        assert!(has_status(&conditions, MANAGED_CLUSTER_AVAILABLE, UNKNOWN));
    }

    #[test]
    fn set_condition_reports_no_change_for_the_same_condition() {
        let mut conditions = vec![condition(FALSE, REASON_KUBE_APISERVER_UNAVAILABLE, 10)];
        assert!(!set_condition(&mut conditions, condition(FALSE, REASON_KUBE_APISERVER_UNAVAILABLE, 30)));
        assert_eq!(conditions[0].last_transition_time, at(10));
    }

    #[test]
    fn remove_condition_drops_only_that_type() {
        let mut conditions = vec![
            condition(TRUE, REASON_MANAGED_CLUSTER_AVAILABLE, 10),
            new_condition(MANAGED_CLUSTER_JOINED, TRUE, REASON_MANAGED_CLUSTER_JOINED, "joined"),
        ];
        assert!(remove_condition(&mut conditions, MANAGED_CLUSTER_AVAILABLE));
        assert!(!remove_condition(&mut conditions, MANAGED_CLUSTER_AVAILABLE));
        assert_eq!(conditions.len(), 1);
        assert!(is_true(&conditions, MANAGED_CLUSTER_JOINED));
    }

    #[test]
    fn now_is_whole_seconds() {
        assert_eq!(now().0.subsec_nanosecond(), 0);
    }
}
