//! The names fleetctl's parts agree on — objects, labels, annotations, claims, images —
//! that are not upstream API fields. Upstream's own labels, annotations, finalizers and
//! condition types live in [`crate::conditions`].

/// The project's own prefix for labels and annotations no upstream has.
pub const PREFIX: &str = "fleetctl.io";

/// The version of this build: the default image tag and klusterlet version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The image repository every in-cluster role runs from.
pub const DEFAULT_REPOSITORY: &str = "quay.io/fleetctl/fleetctl";

/// The in-cluster executable, the image's entrypoint.
pub const INCLUSTER_EXECUTABLE: &str = "fleetctld";

/// The image `hub install` deploys unless told otherwise: this build's version.
pub fn default_image() -> String {
    image(DEFAULT_REPOSITORY, VERSION)
}

/// `repository:tag` for a version (a leading `v` is kept as given).
pub fn image(repository: &str, version: &str) -> String {
    format!("{repository}:{version}")
}

/// The repository and tag of `repository:tag` (a registry's port is not a tag); `None`
/// for an image without a tag, or pinned by digest.
pub fn split_image(image: &str) -> Option<(&str, &str)> {
    if image.contains('@') {
        return None;
    }
    let (repository, tag) = image.rsplit_once(':')?;
    (!tag.contains('/') && !tag.is_empty() && !repository.is_empty()).then_some((repository, tag))
}

// ---------------------------------------------------------------------------------------------
// The hub
// ---------------------------------------------------------------------------------------------

/// The ConfigMap in every namespace that holds the cluster's CA bundle (key `ca.crt`), as
/// kube-controller-manager's root-ca-cert-publisher keeps it.
pub const ROOT_CA_CONFIGMAP: &str = "kube-root-ca.crt";

/// Namespace of the hub controller.
pub const HUB_NAMESPACE: &str = "open-cluster-management-hub";
/// The hub controller's Deployment, ServiceAccount and RBAC.
pub const HUB_CONTROLLER: &str = "fleetctl-hub-controller";
/// The Service (in [`HUB_NAMESPACE`]) of the hub's webhooks, such as the conversion webhook
/// of the addon kinds' v1beta1.
pub const WEBHOOK_SERVICE: &str = "fleetctl-hub-webhook";
/// The port of [`WEBHOOK_SERVICE`].
pub const WEBHOOK_PORT: u16 = 9443;
/// The path on [`WEBHOOK_SERVICE`] that converts objects between versions (`ConversionReview`s).
pub const WEBHOOK_PATH: &str = "/convert";
/// Lease that elects the active hub controller (in [`HUB_NAMESPACE`]).
pub const LEADER_LEASE: &str = "fleetctl-hub-controller";
/// The Lease in a cluster's namespace that its registration agent renews.
pub const CLUSTER_LEASE: &str = "managed-cluster-lease";
/// On a cluster namespace of the hub that fleetctl created for that cluster (the value is
/// the cluster's name): only such a namespace is deleted when the cluster is detached.
pub const ANNOTATION_CREATED_FOR_CLUSTER: &str = "fleetctl.io/created-for-cluster";

/// Namespaces a detach never deletes, whatever they carry.
pub fn is_protected_namespace(name: &str) -> bool {
    name == "default" || name.starts_with("kube-") || name.starts_with("open-cluster-management")
}

/// Label domains OCM and fleetctl write themselves (`open-cluster-management.io`,
/// `cluster.open-cluster-management.io`, … and `fleetctl.io`): people may not set them.
const RESERVED_LABEL_DOMAINS: [&str; 2] = ["open-cluster-management.io", PREFIX];

/// Whether a label key is in a domain OCM or fleetctl reserves (subdomains included).
pub fn is_reserved_label(key: &str) -> bool {
    let Some((prefix, _)) = key.split_once('/') else { return false };
    RESERVED_LABEL_DOMAINS
        .iter()
        .any(|domain| prefix == *domain || prefix.strip_suffix(domain).is_some_and(|sub| sub.ends_with('.')))
}

/// On a ManagedCluster: the klusterlet version the cluster should run.
pub const ANNOTATION_KLUSTERLET_VERSION: &str = "fleetctl.io/klusterlet-version";
/// Annotation an upgrade writes with the desired version it replaces, in the same write:
/// the version a failed upgrade rolls back to, whichever run (a second one, or a rerun
/// after a kill) finds the upgrade under way.
pub const ANNOTATION_KLUSTERLET_VERSION_FROM: &str = "fleetctl.io/klusterlet-version-from";
/// On a ManagedCluster that registered itself through the hub-wide bootstrap identity
/// (`clusteradm join`, then `clusteradm accept`), set by the hub when it first sees it
/// accepted: the cluster keeps the klusterlet it was joined with, and the hub writes no
/// import secret, klusterlet works or import condition for it. Removing it lets the hub
/// import the cluster (and replace its klusterlet with fleetctl's).
pub const ANNOTATION_OWN_KLUSTERLET: &str = "fleetctl.io/own-klusterlet";

/// The namespace of OCM's hub-wide bootstrap identity (`clusteradm init` makes it too).
pub const OCM_NAMESPACE: &str = "open-cluster-management";
/// The ServiceAccount whose tokens `clusteradm get token` hands out for `clusteradm join`.
pub const BOOTSTRAP_SERVICE_ACCOUNT: &str = "agent-registration-bootstrap";
/// The ClusterRole of bootstrap identities: ask for a certificate, create the cluster.
pub const BOOTSTRAP_CLUSTER_ROLE: &str = "open-cluster-management:bootstrap";
/// Binds [`BOOTSTRAP_CLUSTER_ROLE`] to [`BOOTSTRAP_SERVICE_ACCOUNT`] (clusteradm's name).
pub const BOOTSTRAP_CLUSTER_ROLE_BINDING: &str = "open-cluster-management:bootstrap:agent-registration";

/// Whether a CSR's requester is a hub-wide bootstrap identity, as `clusteradm accept`
/// recognises them: the bootstrap ServiceAccount, or a bootstrap token's user.
pub fn is_hub_bootstrap_user(user: &str) -> bool {
    user == format!("system:serviceaccount:{OCM_NAMESPACE}:{BOOTSTRAP_SERVICE_ACCOUNT}")
        || user.starts_with("system:bootstrap:")
}

/// Annotation on a ManagedCluster that a fleet file's `apply` imported: the fleet's
/// identity. `apply --prune` detaches only clusters whose annotation names its fleet.
pub const ANNOTATION_FLEET: &str = "fleetctl.io/fleet";

// ---------------------------------------------------------------------------------------------
// A cluster's objects and identities on the hub, named after the cluster as upstream's import
// controller and registration hub name them
// ---------------------------------------------------------------------------------------------

/// The Secret in the cluster's namespace holding its `crds.yaml` and `import.yaml`.
pub fn import_secret(cluster: &str) -> String {
    format!("{cluster}-import")
}

/// The ServiceAccount in the cluster's namespace whose token bootstraps its agent
/// (upstream truncates names over 63 characters).
pub fn bootstrap_service_account(cluster: &str) -> String {
    let mut name = format!("{cluster}-bootstrap-sa");
    name.truncate(63);
    name
}

/// The user the bootstrap ServiceAccount authenticates as.
pub fn bootstrap_user(cluster: &str) -> String {
    format!("system:serviceaccount:{cluster}:{}", bootstrap_service_account(cluster))
}

/// The ClusterRole and ClusterRoleBinding of the bootstrap ServiceAccount.
pub fn bootstrap_role(cluster: &str) -> String {
    format!("system:open-cluster-management:managedcluster:bootstrap:{cluster}")
}

/// The signer agents ask for their client certificates.
pub const AGENT_SIGNER: &str = "kubernetes.io/kube-apiserver-client";

/// The group every agent certificate carries.
pub const MANAGED_CLUSTERS_GROUP: &str = "system:open-cluster-management:managed-clusters";

/// The group of a cluster's agents (their certificates' organization).
pub fn agent_group(cluster: &str) -> String {
    format!("system:open-cluster-management:{cluster}")
}

/// The user of a cluster's agent `agent_id` (its certificate's common name).
pub fn agent_user(cluster: &str, agent_id: &str) -> String {
    format!("{}:{agent_id}", agent_group(cluster))
}

/// The ClusterRole and ClusterRoleBinding confining a cluster's agents on the hub.
pub fn agent_role(cluster: &str) -> String {
    format!("open-cluster-management:managedcluster:{cluster}")
}

/// The Roles (and their RoleBindings) of a cluster's registration and work agents in the
/// cluster's namespace.
pub fn agent_namespaced_roles(cluster: &str) -> [String; 2] {
    let role = agent_role(cluster);
    [format!("{role}:registration"), format!("{role}:work")]
}

/// On a ManagedCluster being moved to another hub (`fleetctl move`): the new hub's URL. The
/// hub then hands the klusterlet the new hub's bootstrap kubeconfig ([`move_secret`]).
pub const ANNOTATION_MOVING_TO: &str = "fleetctl.io/moving-to";

/// The Secret in a moving cluster's namespace on its old hub that holds the new hub's
/// bootstrap kubeconfig (key `kubeconfig`).
pub fn move_secret(cluster: &str) -> String {
    format!("{cluster}-move")
}

/// The Secret in a cluster's namespace on its hub that holds the bootstrap kubeconfig of the
/// fleet's recovery hub for that cluster (`fleetctl hub backup --recovery-hub-context`),
/// which the hub hands the klusterlet as [`RECOVERY_HUB_SECRET`].
pub fn recovery_secret(cluster: &str) -> String {
    format!("{cluster}-recovery")
}

/// The Secret in the agent namespace with the recovery hub's bootstrap kubeconfig: the
/// registration agent bootstraps with it once its hub has not answered for
/// [`ANNOTATION_RECOVER_AFTER`].
pub const RECOVERY_HUB_SECRET: &str = "recovery-hub-kubeconfig";
/// On a ManagedCluster whose klusterlet is handed a recovery hub: that hub's URL (the hub
/// reads the cluster's [`recovery_secret`] only then).
pub const ANNOTATION_RECOVERY_HUB: &str = "fleetctl.io/recovery-hub";
/// On the recovery Secrets: how long the hub may stay silent before the klusterlet turns to
/// the recovery hub (a duration: `10m`).
pub const ANNOTATION_RECOVER_AFTER: &str = "fleetctl.io/recover-after";

/// The ManifestWork that carries everything of `import.yaml` to a joined cluster.
pub fn klusterlet_work(cluster: &str) -> String {
    format!("{cluster}-klusterlet")
}

/// The ManifestWork that carries the Klusterlet CRD to a joined cluster.
pub fn klusterlet_crds_work(cluster: &str) -> String {
    format!("{cluster}-klusterlet-crds")
}

// ---------------------------------------------------------------------------------------------
// Hosted mode: a cluster's agents run on another managed cluster of the hub, the hosting
// cluster (the names of ACM's import controller)
// ---------------------------------------------------------------------------------------------

/// On a ManagedCluster in Hosted mode: the managed cluster its agents run on.
pub const ANNOTATION_HOSTING_CLUSTER: &str = "import.open-cluster-management.io/hosting-cluster-name";
/// On the works of a hosted cluster in its hosting cluster's namespace: the hosted cluster.
pub const LABEL_HOSTED_CLUSTER: &str = "import.open-cluster-management.io/hosted-cluster";
/// The Secret in a Hosted Klusterlet's namespace that holds the managed cluster's kubeconfig.
pub const EXTERNAL_MANAGED_KUBECONFIG: &str = "external-managed-kubeconfig";
/// Upstream's cap on the length of a hosted klusterlet's namespace on the managed cluster.
const HOSTED_NAMESPACE_MAX: usize = 57;

/// The work in the hosting cluster's namespace that carries a hosted cluster's Klusterlet
/// and bootstrap kubeconfig.
pub fn hosted_klusterlet_work(cluster: &str) -> String {
    format!("{cluster}-hosted-klusterlet")
}

/// The work in the hosting cluster's namespace that carries a hosted cluster's kubeconfig
/// ([`EXTERNAL_MANAGED_KUBECONFIG`]).
pub fn hosted_kubeconfig_work(cluster: &str) -> String {
    format!("{cluster}-hosted-kubeconfig")
}

/// A hosted cluster's Klusterlet on the hosting cluster, also the namespace its agents run in.
pub fn hosted_klusterlet(cluster: &str) -> String {
    format!("klusterlet-{cluster}")
}

/// A hosted cluster's klusterlet namespace on the managed cluster (its agents' accounts).
pub fn hosted_klusterlet_namespace(cluster: &str) -> String {
    let mut namespace = format!("open-cluster-management-{cluster}");
    namespace.truncate(HOSTED_NAMESPACE_MAX);
    namespace
}

// ---------------------------------------------------------------------------------------------
// Auto-import: the Secret upstream's managedcluster-import-controller reads in a cluster's
// namespace to import the cluster itself (ACM's `auto-import-secret`)
// ---------------------------------------------------------------------------------------------

/// The Secret in the cluster namespace whose credentials let the hub import the cluster.
pub const AUTO_IMPORT_SECRET: &str = "auto-import-secret";
/// Its type when it holds a kubeconfig (`kubeconfig`).
pub const AUTO_IMPORT_TYPE_KUBECONFIG: &str = "auto-import/kubeconfig";
/// Its type when it holds an API server and a token (`server`, `token`).
pub const AUTO_IMPORT_TYPE_KUBETOKEN: &str = "auto-import/kubetoken";
/// The key of the target's kubeconfig.
pub const AUTO_IMPORT_KEY_KUBECONFIG: &str = "kubeconfig";
/// The key of the target's API server URL.
pub const AUTO_IMPORT_KEY_SERVER: &str = "server";
/// The key of the bearer token for it.
pub const AUTO_IMPORT_KEY_TOKEN: &str = "token";
/// The key of the CA bundle (PEM) that verifies `server` (fleetctl's: upstream never
/// verifies a token secret's server).
pub const AUTO_IMPORT_KEY_CA: &str = "ca.crt";
/// The key that, set to `"true"`, says to reach `server` without verifying it (fleetctl's:
/// without `ca.crt` it must be said).
pub const AUTO_IMPORT_KEY_INSECURE: &str = "insecure-skip-tls-verify";
/// On the auto-import Secret: keep it once the cluster is imported (else it is deleted).
pub const ANNOTATION_KEEPING_AUTO_IMPORT_SECRET: &str =
    "managedcluster-import-controller.open-cluster-management.io/keeping-auto-import-secret";
/// On a ManagedCluster: the hub never applies its import manifests itself.
pub const ANNOTATION_DISABLE_AUTO_IMPORT: &str = "import.open-cluster-management.io/disable-auto-import";
/// On a ManagedCluster, empty: import it again now, although it was imported; the hub sets
/// it to [`IMMEDIATE_IMPORT_COMPLETED`] when done.
pub const ANNOTATION_IMMEDIATE_IMPORT: &str = "import.open-cluster-management.io/immediate-import";
/// The value of [`ANNOTATION_IMMEDIATE_IMPORT`] once the import it asked for is done.
pub const IMMEDIATE_IMPORT_COMPLETED: &str = "Completed";

// ---------------------------------------------------------------------------------------------
// The managed side
// ---------------------------------------------------------------------------------------------

/// Namespace of the klusterlet agents.
pub const AGENT_NAMESPACE: &str = "open-cluster-management-agent";
/// Secret holding the bootstrap kubeconfig from the import manifests.
pub const BOOTSTRAP_SECRET: &str = "bootstrap-hub-kubeconfig";
/// Secret (`kubernetes.io/dockerconfigjson`) of the registry credentials the klusterlet
/// and its agents pull their image with, as upstream's import manifests name it.
pub const IMAGE_PULL_SECRET: &str = "open-cluster-management-image-pull-credentials";
/// Secret holding the agent's hub credentials (`kubeconfig`, `tls.crt`, `tls.key`,
/// `cluster-name`, `agent-name`).
pub const HUB_KUBECONFIG_SECRET: &str = "hub-kubeconfig-secret";
/// The operator's Deployment, ServiceAccount and RBAC, and the Klusterlet.
pub const KLUSTERLET: &str = "klusterlet";
/// Deployment of the registration agent.
pub const REGISTRATION_DEPLOYMENT: &str = "klusterlet-registration-agent";
/// Deployment of the work agent.
pub const WORK_DEPLOYMENT: &str = "klusterlet-work-agent";
/// Deployment (and `app` label) of the one agent of a Singleton-mode Klusterlet, which
/// runs registration and work in one process (upstream's `klusterlet-agent`).
pub const SINGLETON_DEPLOYMENT: &str = "klusterlet-agent";
/// The `app` label that selects the work agent's Pods: upstream's, so that either operator
/// updates the other's Deployment in place (a Deployment's selector is immutable).
pub const WORK_AGENT_APP: &str = "klusterlet-manifestwork-agent";
/// Set to `"true"` on the Klusterlet by the registration agent once it has told the hub
/// the cluster is going (Available=False); the operator waits for it before removing the
/// agents, so detach does not wait out the hub's lease grace.
pub const ANNOTATION_HUB_NOTIFIED: &str = "fleetctl.io/hub-notified";
/// The cluster claim with the klusterlet version the agents run.
pub const VERSION_CLAIM: &str = "klusterlet-version.fleetctl.io";
/// The cluster claim with the managed cluster's Kubernetes version (upstream's name).
pub const KUBE_VERSION_CLAIM: &str = "kubeversion.open-cluster-management.io";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ocm_and_fleetctl_label_domains_are_reserved_with_their_subdomains() {
        for reserved in [
            "open-cluster-management.io/cluster-name",
            "cluster.open-cluster-management.io/clusterset",
            "feature.open-cluster-management.io/addon-x",
            "fleetctl.io/anything",
        ] {
            assert!(is_reserved_label(reserved), "{reserved}");
        }
        for free in ["env", "name", "example.com/x", "notopen-cluster-management.io/x", "myfleetctl.io/x"] {
            assert!(!is_reserved_label(free), "{free}");
        }
    }

    #[test]
    fn the_hub_wide_bootstrap_identities_are_those_clusteradm_accept_recognises() {
        assert!(is_hub_bootstrap_user("system:serviceaccount:open-cluster-management:agent-registration-bootstrap"));
        assert!(is_hub_bootstrap_user("system:bootstrap:abcdef"));
        // A cluster's own bootstrap identity, which an import hands out, is not hub-wide.
        assert!(!is_hub_bootstrap_user("system:serviceaccount:cluster1:cluster1-bootstrap-sa"));
        assert!(!is_hub_bootstrap_user("system:open-cluster-management:cluster1:agent1"));
    }

    #[test]
    fn a_clusters_hub_objects_are_named_as_upstream_names_them() {
        assert_eq!(import_secret("c1"), "c1-import");
        assert_eq!(bootstrap_user("c1"), "system:serviceaccount:c1:c1-bootstrap-sa");
        assert_eq!(bootstrap_role("c1"), "system:open-cluster-management:managedcluster:bootstrap:c1");
        assert_eq!(agent_user("c1", "a1"), "system:open-cluster-management:c1:a1");
        assert_eq!(
            agent_namespaced_roles("c1"),
            [
                "open-cluster-management:managedcluster:c1:registration",
                "open-cluster-management:managedcluster:c1:work"
            ]
        );
        assert_eq!(
            (klusterlet_work("c1"), klusterlet_crds_work("c1")),
            ("c1-klusterlet".into(), "c1-klusterlet-crds".into())
        );
        let long = "c".repeat(60);
        assert_eq!(bootstrap_service_account(&long).len(), 63, "truncated as upstream truncates it");
    }

    #[test]
    fn an_image_splits_into_repository_and_tag_but_a_registry_port_is_not_a_tag() {
        assert_eq!(split_image("quay.io/fleetctl/fleetctl:0.1.0"), Some(("quay.io/fleetctl/fleetctl", "0.1.0")));
        assert_eq!(split_image("localhost:5000/fleetctl:v2"), Some(("localhost:5000/fleetctl", "v2")));
        for untagged in ["localhost:5000/fleetctl", "fleetctl", "quay.io/x/fleetctl@sha256:abc", "x:"] {
            assert_eq!(split_image(untagged), None, "{untagged}");
        }
    }
}
