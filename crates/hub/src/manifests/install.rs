//! The hub installation: the OCM CRDs, the hub namespace, least-privilege RBAC and the
//! Deployment running `fleetctld hub`.

use std::collections::BTreeMap;

use fleetctl_api::names::{
    BOOTSTRAP_CLUSTER_ROLE, BOOTSTRAP_CLUSTER_ROLE_BINDING, BOOTSTRAP_SERVICE_ACCOUNT, HUB_CONTROLLER, HUB_NAMESPACE,
    OCM_NAMESPACE, ROOT_CA_CONFIGMAP, WEBHOOK_PORT, WEBHOOK_SERVICE, split_image,
};

use super::admission;
use fleetctl_api::addon::{AGENTS, AddOnMeta, CERT_POLICY_CONTROLLER, SEARCH_COLLECTOR};
use fleetctl_api::addon_management::{ClusterManagementAddOn, ClusterManagementAddOnSpec};
use fleetctl_api::clusterset::DEFAULT_CLUSTER_SET;
use fleetctl_api::{ADDON_GROUP, AGENT_GROUP, CLUSTER_GROUP, WORK_GROUP, crds};
use fleetctl_kube::objects::{self, MetaExt, document, labels, meta, named_rule, namespaced_meta, rule};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Container, LocalObjectReference, PodSpec, Service, ServicePort, ServiceSpec};
use k8s_openapi::api::rbac::v1::PolicyRule;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

/// Port of `/healthz`, `/readyz` and `/metrics`.
pub const HEALTH_PORT: u16 = 8000;
/// The name of the controller's webhook port.
const WEBHOOK_PORT_NAME: &str = "webhook";

/// The CRDs whose conversion webhook is the hub's (the addon API's).
fn converted_crds() -> Vec<String> {
    crds::hub()
        .into_iter()
        .filter(|crd| crd.spec.conversion.as_ref().is_some_and(|c| c.strategy == "Webhook"))
        .filter_map(|crd| crd.metadata.name)
        .collect()
}

/// What the hub controllers may do, and nothing more. They grant each agent its own
/// RBAC, so they hold what they grant (and `bind`/`escalate` on roles).
fn rules() -> Vec<PolicyRule> {
    const RW: &[&str] = &["create", "get", "list", "watch", "update", "patch", "delete"];
    vec![
        rule(&[CLUSTER_GROUP], &["managedclusters", "managedclusters/status", "managedclusters/finalizers"], RW),
        rule(&[WORK_GROUP], &["manifestworks", "manifestworks/status", "manifestworks/finalizers"], RW),
        // ManifestWorkReplicaSets: read, their finalizer patched in and out, their status
        // patched (their works are ManifestWorks, above).
        rule(&[WORK_GROUP], &["manifestworkreplicasets"], &["get", "list", "watch", "patch"]),
        rule(&[WORK_GROUP], &["manifestworkreplicasets/status"], &["patch"]),
        rule(&[AGENT_GROUP], &["klusterletaddonconfigs"], &["get", "list", "watch", "update", "patch", "delete"]),
        rule(
            &[ADDON_GROUP],
            &["managedclusteraddons", "managedclusteraddons/status", "managedclusteraddons/finalizers"],
            RW,
        ),
        // Install strategies and deployment configs: the addons' ClusterManagementAddOns and
        // AddOnDeploymentConfigs read.
        rule(&[ADDON_GROUP], &["clustermanagementaddons", "addondeploymentconfigs"], &["get", "list", "watch"]),
        // Cluster sets: the default sets kept, the sets' and bindings' status reported, and
        // clusters without a set labelled into `default` (which the join policy checks).
        rule(&[CLUSTER_GROUP], &["managedclustersets"], &["create", "get", "list", "watch", "patch"]),
        rule(&[CLUSTER_GROUP], &["managedclustersetbindings"], &["get", "list", "watch"]),
        rule(
            &[CLUSTER_GROUP],
            &["managedclustersets/status", "managedclustersetbindings/status"],
            &["update", "patch"],
        ),
        named_rule(&[CLUSTER_GROUP], &["managedclustersets/join"], &[DEFAULT_CLUSTER_SET], &["create"]),
        // Placement: read Placements and scores, write the decisions and the status.
        rule(&[CLUSTER_GROUP], &["placements", "addonplacementscores"], &["get", "list", "watch"]),
        rule(&[CLUSTER_GROUP], &["placements/status", "placementdecisions/status"], &["update", "patch"]),
        rule(&[CLUSTER_GROUP], &["placementdecisions"], RW),
        rule(&[""], &["namespaces", "secrets", "serviceaccounts"], RW),
        rule(&[""], &["serviceaccounts/token"], &["create"]),
        // The CA bundle the hub publishes, which bootstrap kubeconfigs follow.
        named_rule(&[""], &["configmaps"], &[ROOT_CA_CONFIGMAP], &["get", "list", "watch"]),
        // kube-runtime's Recorder writes events.k8s.io/v1 Events.
        rule(&["", "events.k8s.io"], &["events"], &["create", "patch", "update"]),
        rule(&["coordination.k8s.io"], &["leases"], RW),
        rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["get", "list", "watch"]),
        rule(&["certificates.k8s.io"], &["certificatesigningrequests/approval"], &["update", "patch"]),
        named_rule(&["certificates.k8s.io"], &["signers"], &["kubernetes.io/kube-apiserver-client"], &["approve"]),
        // The approved CSRs of a detached cluster go with it.
        rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["delete", "deletecollection"]),
        rule(
            &["admissionregistration.k8s.io"],
            &["validatingadmissionpolicies", "validatingadmissionpolicybindings"],
            &["get", "list", "watch"],
        ),
        rule(
            &[objects::RBAC_GROUP],
            &["clusterroles", "clusterrolebindings", "roles", "rolebindings"],
            &["create", "get", "list", "watch", "update", "patch", "delete", "bind", "escalate"],
        ),
        rule(&["authorization.k8s.io"], &["subjectaccessreviews"], &["create"]),
        // The conversion webhook's CA bundle, in the CRDs it converts.
        rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["get", "list", "watch"]),
        PolicyRule {
            resource_names: Some(converted_crds()),
            ..rule(&["apiextensions.k8s.io"], &["customresourcedefinitions"], &["patch"])
        },
    ]
}

/// What a hub installation depends on.
#[derive(Debug, Clone)]
pub struct Install<'a> {
    /// The fleetctl image the hub controller runs; the klusterlets it imports run the
    /// same repository, at the tag each cluster asks for (this tag by default).
    pub image: &'a str,
    /// The hub's API server URL as managed clusters reach it, for bootstrap kubeconfigs.
    pub hub_url: &'a str,
    /// The CA bundle (PEM) that verifies it, when it is not the one the hub publishes in
    /// `kube-root-ca.crt` (empty: the controller follows that one, through rotations).
    pub hub_ca_pem: &'a str,
    /// A `kubernetes.io/dockerconfigjson` Secret in the hub namespace that the controller
    /// pulls its image with and hands on to every klusterlet, if the registry needs one.
    pub image_pull_secret: Option<&'a str>,
}

/// Everything `fleetctl hub install` applies, in order: CRDs and the admission policies
/// first, the controller last.
pub fn objects(install: &Install<'_>) -> Vec<Value> {
    let mut objects: Vec<Value> = crds::hub().iter().map(document).collect();
    // Before any cluster can be created, the rules that guard it.
    let (policies, bindings) = admission::objects();
    objects.extend(policies.iter().map(document).chain(bindings.iter().map(document)));
    let controller = [objects::service_account_subject(HUB_NAMESPACE, HUB_CONTROLLER)];
    let bootstrap = [objects::service_account_subject(OCM_NAMESPACE, BOOTSTRAP_SERVICE_ACCOUNT)];
    objects.extend([
        document(&objects::namespace(meta(HUB_NAMESPACE))),
        document(&objects::service_account(namespaced_meta(HUB_NAMESPACE, HUB_CONTROLLER))),
        document(&objects::cluster_role(meta(HUB_CONTROLLER), rules())),
        document(&objects::cluster_role_binding(meta(HUB_CONTROLLER), HUB_CONTROLLER, controller.to_vec())),
        // OCM's hub-wide bootstrap identity, for clusters that join by themselves.
        document(&objects::namespace(meta(OCM_NAMESPACE))),
        document(&objects::service_account(namespaced_meta(OCM_NAMESPACE, BOOTSTRAP_SERVICE_ACCOUNT))),
        document(&objects::cluster_role(meta(BOOTSTRAP_CLUSTER_ROLE), bootstrap_rules())),
        document(&objects::cluster_role_binding(
            meta(BOOTSTRAP_CLUSTER_ROLE_BINDING),
            BOOTSTRAP_CLUSTER_ROLE,
            bootstrap.to_vec(),
        )),
        // `clusteradm join` reads the hub's address and CA there with the bootstrap token
        // (`cluster-info`, else the CA bundle every namespace holds).
        document(&objects::role(
            namespaced_meta(CLUSTER_INFO_NAMESPACE, BOOTSTRAP_CLUSTER_ROLE),
            vec![named_rule(&[""], &["configmaps"], &[CLUSTER_INFO, ROOT_CA_CONFIGMAP], &["get"])],
        )),
        document(&objects::role_binding(
            namespaced_meta(CLUSTER_INFO_NAMESPACE, BOOTSTRAP_CLUSTER_ROLE_BINDING),
            BOOTSTRAP_CLUSTER_ROLE,
            bootstrap.to_vec(),
        )),
    ]);
    objects.extend(cluster_management_addons().iter().map(document));
    objects.push(document(&webhook_service()));
    objects.push(document(&deployment(install)));
    objects
}

/// The Service of the conversion webhook: the controller's Pods, every replica.
fn webhook_service() -> Service {
    Service {
        metadata: namespaced_meta(HUB_NAMESPACE, WEBHOOK_SERVICE),
        spec: Some(ServiceSpec {
            selector: Some(labels([("app", HUB_CONTROLLER)])),
            ports: Some(vec![ServicePort {
                name: Some(WEBHOOK_PORT_NAME.into()),
                port: i32::from(WEBHOOK_PORT),
                target_port: Some(IntOrString::String(WEBHOOK_PORT_NAME.into())),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    }
}

/// The addons with an agent, declared as any OCM addon is, so that `clusteradm get addon`
/// and the addon framework's readers know them. Installed by hand (`Manual`): a cluster's
/// KlusterletAddonConfig says which it gets, and the addon controller writes their
/// ManagedClusterAddOns.
fn cluster_management_addons() -> Vec<ClusterManagementAddOn> {
    let described = |name: &str| match name {
        SEARCH_COLLECTOR => ("Search Collector", "Counts the objects of a managed cluster for the hub's search."),
        CERT_POLICY_CONTROLLER => {
            ("Certificate Policy Controller", "Reports certificates of a managed cluster that are about to expire.")
        }
        _ => ("IAM Policy Controller", "Reports cluster-admin role bindings of a managed cluster."),
    };
    AGENTS
        .iter()
        .map(|name| {
            let (display_name, description) = described(name);
            let meta = AddOnMeta { display_name: display_name.into(), description: description.into() };
            ClusterManagementAddOn::new(name, ClusterManagementAddOnSpec { add_on_meta: meta, ..Default::default() })
        })
        .collect()
}

/// Where a hub publishes its address and CA for bootstrapping (kubeadm's `cluster-info`).
const CLUSTER_INFO_NAMESPACE: &str = "kube-public";
/// The ConfigMap of the hub's address and CA in [`CLUSTER_INFO_NAMESPACE`].
const CLUSTER_INFO: &str = "cluster-info";

/// What a cluster's agent may do with the hub-wide bootstrap token (`clusteradm get token`,
/// `clusteradm join`) until it is accepted: ask for a client certificate, create its
/// ManagedCluster and read it, and join a cluster set — upstream's bootstrap role, whose
/// read of every ConfigMap is narrowed to `cluster-info` and `kube-root-ca.crt` in
/// `kube-public` (a Role there).
fn bootstrap_rules() -> Vec<PolicyRule> {
    vec![
        rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["create", "get", "list", "watch"]),
        rule(&[CLUSTER_GROUP], &["managedclusters"], &["get", "create", "list", "watch"]),
        rule(&[CLUSTER_GROUP], &["managedclustersets/join"], &["create"]),
    ]
}

fn deployment(install: &Install<'_>) -> Deployment {
    let probe = |path: &str| objects::http_probe(path, HEALTH_PORT, None, 10);
    let container = Container {
        env: Some(vec![
            objects::env("FLEETCTL_HEALTH_ADDR", &format!("0.0.0.0:{HEALTH_PORT}")),
            objects::env_from_field("POD_NAMESPACE", "metadata.namespace"),
            objects::env("FLEETCTL_HUB_URL", install.hub_url),
            objects::env("FLEETCTL_HUB_CA", install.hub_ca_pem),
            // The webhook listens on the Pod's own address, as its Service's endpoints name it.
            objects::env_from_field("POD_IP", "status.podIP"),
            objects::env("FLEETCTL_WEBHOOK_ADDR", &format!("$(POD_IP):{WEBHOOK_PORT}")),
        ]),
        ports: Some(vec![
            objects::container_port("health", HEALTH_PORT),
            objects::container_port(WEBHOOK_PORT_NAME, WEBHOOK_PORT),
        ]),
        liveness_probe: Some(probe("/healthz")),
        readiness_probe: Some(probe("/readyz")),
        resources: Some(objects::requests("10m", "32Mi")),
        ..objects::container("controller", install.image, controller_args(install))
    };
    let pod = PodSpec {
        service_account_name: Some(HUB_CONTROLLER.into()),
        containers: vec![container],
        image_pull_secrets: install.image_pull_secret.map(|name| vec![LocalObjectReference { name: name.into() }]),
        ..PodSpec::default()
    };
    let meta = namespaced_meta(HUB_NAMESPACE, HUB_CONTROLLER).with_labels(labels([("app", HUB_CONTROLLER)]));
    objects::deployment(meta, HUB_CONTROLLER, BTreeMap::new(), pod)
}

/// `fleetctld hub`, told to give the klusterlets its own image repository and tag, and
/// the registry credentials.
fn controller_args(install: &Install<'_>) -> Vec<String> {
    let mut args = vec!["hub".to_string()];
    if let Some((repository, tag)) = split_image(install.image) {
        args.extend(["--image-repository".into(), repository.into(), "--klusterlet-version".into(), tag.into()]);
    }
    if let Some(secret) = install.image_pull_secret {
        args.extend(["--image-pull-secret".into(), secret.into()]);
    }
    args
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_hub_install_puts_crds_and_admission_policies_first_and_the_controller_last() {
        let objects = objects(&Install {
            image: "registry.example/fleetctl:1",
            hub_url: "https://hub:6443",
            hub_ca_pem: "CA",
            image_pull_secret: None,
        });
        let kinds: Vec<&str> = objects.iter().filter_map(|o| o["kind"].as_str()).collect();
        let crds = crds::hub().len();
        assert!(kinds[..crds].iter().all(|k| *k == "CustomResourceDefinition"), "{kinds:?}");
        let policies = ["ValidatingAdmissionPolicy"; 4];
        let bindings = ["ValidatingAdmissionPolicyBinding"; 4];
        assert_eq!(kinds[crds..crds + 8], [policies, bindings].concat());
        let rest = crds + 8;
        let identity = ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding"];
        let cluster_info = ["Role", "RoleBinding"];
        let addons = ["ClusterManagementAddOn"; 3];
        assert_eq!(
            kinds[rest..],
            [&identity[..], &identity[..], &cluster_info[..], &addons[..], &["Service", "Deployment"]].concat()
        );
        let declared: Vec<&str> =
            objects[rest + 10..rest + 13].iter().filter_map(|o| o["metadata"]["name"].as_str()).collect();
        assert_eq!(declared, ["search-collector", "cert-policy-controller", "iam-policy-controller"]);
        assert_eq!(objects[rest + 10]["spec"]["addOnMeta"]["displayName"], "Search Collector");
        assert_eq!(objects[rest + 8]["rules"][0]["resourceNames"], json!(["cluster-info", "kube-root-ca.crt"]));
        let bootstrap = &objects[rest + 4..rest + 8];
        assert_eq!(
            bootstrap[1]["metadata"],
            json!({"name": "agent-registration-bootstrap", "namespace": "open-cluster-management"})
        );
        assert_eq!(bootstrap[3]["metadata"]["name"], "open-cluster-management:bootstrap:agent-registration");
        assert_eq!(bootstrap[3]["roleRef"]["name"], "open-cluster-management:bootstrap");
        let service = &objects[rest + 13];
        assert_eq!(
            service["metadata"],
            json!({"name": "fleetctl-hub-webhook", "namespace": "open-cluster-management-hub"})
        );
        assert_eq!(service["spec"]["ports"][0]["targetPort"], "webhook");
        let container = &objects[rest + 14]["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(
            container["args"],
            json!(["hub", "--image-repository", "registry.example/fleetctl", "--klusterlet-version", "1"])
        );
        let env = container["env"].as_array().unwrap();
        assert!(env.contains(&json!({"name": "FLEETCTL_HUB_URL", "value": "https://hub:6443"})), "{env:?}");
        assert!(env.contains(&json!({"name": "FLEETCTL_HUB_CA", "value": "CA"})), "{env:?}");
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
        assert!(env.contains(&json!({"name": "FLEETCTL_WEBHOOK_ADDR", "value": "$(POD_IP):9443"})), "{env:?}");
        assert!(objects[rest + 14]["spec"]["template"]["spec"].get("imagePullSecrets").is_none());
    }

    #[test]
    fn the_controller_pulls_with_the_image_pull_secret_and_hands_it_on() {
        let objects = objects(&Install {
            image: "registry.example/fleetctl:1",
            hub_url: "https://hub:6443",
            hub_ca_pem: "CA",
            image_pull_secret: Some("registry-creds"),
        });
        let pod = &objects.last().unwrap()["spec"]["template"]["spec"];
        assert_eq!(pod["imagePullSecrets"], json!([{"name": "registry-creds"}]));
        let args = pod["containers"][0]["args"].as_array().unwrap();
        assert_eq!(args[args.len() - 2..], [json!("--image-pull-secret"), json!("registry-creds")]);
    }

    #[test]
    fn the_controller_cannot_read_everything() {
        let star = |list: &Option<Vec<String>>| list.iter().flatten().any(|item| item == "*");
        for rules in [rules(), bootstrap_rules()] {
            let wildcard =
                rules.iter().any(|r| star(&r.resources) || star(&r.api_groups) || r.verbs.iter().any(|v| v == "*"));
            assert!(!wildcard, "no wildcards in the hub controller's or the bootstrap role");
        }
    }
}
