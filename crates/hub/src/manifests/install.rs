//! The hub installation: the OCM CRDs, the hub namespace, least-privilege RBAC and the
//! Deployment running `fleetctld hub`.

use std::collections::BTreeMap;

use fleetctl_api::names::{HUB_CONTROLLER, HUB_NAMESPACE};
use fleetctl_api::{ADDON_GROUP, AGENT_GROUP, CLUSTER_GROUP, WORK_GROUP, crds};
use fleetctl_kube::objects::{self, MetaExt, document, labels, meta, named_rule, namespaced_meta, rule};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Container, PodSpec};
use k8s_openapi::api::rbac::v1::PolicyRule;
use serde_json::Value;

/// Port of `/healthz`, `/readyz` and `/metrics`.
pub const HEALTH_PORT: u16 = 8000;

/// What the hub controllers may do, and nothing more. They grant each agent its own
/// RBAC, so they hold what they grant (and `bind`/`escalate` on roles).
fn rules() -> Vec<PolicyRule> {
    const RW: &[&str] = &["create", "get", "list", "watch", "update", "patch", "delete"];
    vec![
        rule(&[CLUSTER_GROUP], &["managedclusters", "managedclusters/status", "managedclusters/finalizers"], RW),
        rule(&[WORK_GROUP], &["manifestworks", "manifestworks/status", "manifestworks/finalizers"], RW),
        rule(&[AGENT_GROUP], &["klusterletaddonconfigs"], &["get", "list", "watch", "update", "patch"]),
        rule(
            &[ADDON_GROUP],
            &["managedclusteraddons", "managedclusteraddons/status", "managedclusteraddons/finalizers"],
            RW,
        ),
        rule(&[""], &["namespaces", "secrets", "serviceaccounts"], RW),
        rule(&[""], &["serviceaccounts/token"], &["create"]),
        rule(&[""], &["events"], &["create", "patch", "update"]),
        rule(&["coordination.k8s.io"], &["leases"], RW),
        rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["get", "list", "watch"]),
        rule(&["certificates.k8s.io"], &["certificatesigningrequests/approval"], &["update", "patch"]),
        named_rule(&["certificates.k8s.io"], &["signers"], &["kubernetes.io/kube-apiserver-client"], &["approve"]),
        rule(
            &[objects::RBAC_GROUP],
            &["clusterroles", "clusterrolebindings", "roles", "rolebindings"],
            &["create", "get", "list", "watch", "update", "patch", "delete", "bind", "escalate"],
        ),
        rule(&["authorization.k8s.io"], &["subjectaccessreviews"], &["create"]),
    ]
}

/// Everything `fleetctl hub install` applies, in order: CRDs first.
pub fn objects(image: &str) -> Vec<Value> {
    let mut objects: Vec<Value> = crds::hub().iter().map(document).collect();
    let controller = [objects::service_account_subject(HUB_NAMESPACE, HUB_CONTROLLER)];
    objects.extend([
        document(&objects::namespace(meta(HUB_NAMESPACE))),
        document(&objects::service_account(namespaced_meta(HUB_NAMESPACE, HUB_CONTROLLER))),
        document(&objects::cluster_role(meta(HUB_CONTROLLER), rules())),
        document(&objects::cluster_role_binding(meta(HUB_CONTROLLER), HUB_CONTROLLER, controller.to_vec())),
        document(&deployment(image)),
    ]);
    objects
}

fn deployment(image: &str) -> Deployment {
    let probe = |path: &str| objects::http_probe(path, HEALTH_PORT, None, 10);
    let container = Container {
        env: Some(vec![
            objects::env("FLEETCTL_HEALTH_ADDR", &format!("0.0.0.0:{HEALTH_PORT}")),
            objects::env_from_field("POD_NAMESPACE", "metadata.namespace"),
        ]),
        ports: Some(vec![objects::container_port("health", HEALTH_PORT)]),
        liveness_probe: Some(probe("/healthz")),
        readiness_probe: Some(probe("/readyz")),
        resources: Some(objects::requests("10m", "32Mi")),
        ..objects::container("controller", image, vec!["hub".into()])
    };
    let pod = PodSpec {
        service_account_name: Some(HUB_CONTROLLER.into()),
        containers: vec![container],
        ..PodSpec::default()
    };
    let meta = namespaced_meta(HUB_NAMESPACE, HUB_CONTROLLER).with_labels(labels([("app", HUB_CONTROLLER)]));
    objects::deployment(meta, HUB_CONTROLLER, BTreeMap::new(), pod)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hub_install_puts_crds_first_and_the_controller_last() {
        let objects = objects("img:1");
        let kinds: Vec<&str> = objects.iter().filter_map(|o| o["kind"].as_str()).collect();
        let crds = crds::hub().len();
        assert!(kinds[..crds].iter().all(|k| *k == "CustomResourceDefinition"), "{kinds:?}");
        assert_eq!(kinds[crds..], ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment"]);
        let container = &objects[crds + 4]["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["args"][0], "hub");
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
    }

    #[test]
    fn the_controller_cannot_read_everything() {
        let star = |list: &Option<Vec<String>>| list.iter().flatten().any(|item| item == "*");
        let wildcard =
            rules().iter().any(|r| star(&r.resources) || star(&r.api_groups) || r.verbs.iter().any(|v| v == "*"));
        assert!(!wildcard, "no wildcards in the hub controller's role");
    }
}
