//! The hub installation: the OCM CRDs, the hub namespace, least-privilege RBAC and the
//! Deployment running `fleetctld hub`.

use fleetctl_api::names::{HUB_CONTROLLER, HUB_NAMESPACE};
use serde_json::{Value, json};

/// Port of `/healthz`, `/readyz` and `/metrics`.
pub const HEALTH_PORT: u16 = 8000;

/// What the hub controllers may do, and nothing more. They grant each agent its own
/// RBAC, so they hold what they grant (and `bind`/`escalate` on roles).
fn rules() -> Value {
    let rw = json!(["create", "get", "list", "watch", "update", "patch", "delete"]);
    json!([
        {"apiGroups": ["cluster.open-cluster-management.io"], "resources": ["managedclusters", "managedclusters/status", "managedclusters/finalizers"], "verbs": rw},
        {"apiGroups": ["work.open-cluster-management.io"], "resources": ["manifestworks", "manifestworks/status", "manifestworks/finalizers"], "verbs": rw},
        {"apiGroups": ["agent.open-cluster-management.io"], "resources": ["klusterletaddonconfigs"], "verbs": ["get", "list", "watch", "update", "patch"]},
        {"apiGroups": ["addon.open-cluster-management.io"], "resources": ["managedclusteraddons", "managedclusteraddons/status", "managedclusteraddons/finalizers"], "verbs": rw},
        {"apiGroups": [""], "resources": ["namespaces", "secrets", "serviceaccounts"], "verbs": rw},
        {"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch", "update"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": rw},
        {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests/approval"], "verbs": ["update", "patch"]},
        {"apiGroups": ["certificates.k8s.io"], "resources": ["signers"], "resourceNames": ["kubernetes.io/kube-apiserver-client"], "verbs": ["approve"]},
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles", "clusterrolebindings", "roles", "rolebindings"],
         "verbs": ["create", "get", "list", "watch", "update", "patch", "delete", "bind", "escalate"]},
        {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]},
    ])
}

/// Everything `fleetctl hub install` applies, in order: CRDs first.
pub fn objects(crds: Vec<Value>, image: &str) -> Vec<Value> {
    let mut objects = crds;
    objects.extend([
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": HUB_NAMESPACE}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": HUB_CONTROLLER, "namespace": HUB_NAMESPACE}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": HUB_CONTROLLER}, "rules": rules()}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": HUB_CONTROLLER},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": HUB_CONTROLLER},
               "subjects": [{"kind": "ServiceAccount", "name": HUB_CONTROLLER, "namespace": HUB_NAMESPACE}]}),
        deployment(image),
    ]);
    objects
}

fn deployment(image: &str) -> Value {
    let probe = |path: &str| json!({"httpGet": {"path": path, "port": HEALTH_PORT}, "periodSeconds": 10});
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": HUB_CONTROLLER, "namespace": HUB_NAMESPACE, "labels": {"app": HUB_CONTROLLER}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": HUB_CONTROLLER}},
            "template": {
                "metadata": {"labels": {"app": HUB_CONTROLLER}},
                "spec": {
                    "serviceAccountName": HUB_CONTROLLER,
                    "containers": [{
                        "name": "controller",
                        "image": image,
                        "args": ["hub"],
                        "env": [
                            {"name": "FLEETCTL_HEALTH_ADDR", "value": format!("0.0.0.0:{HEALTH_PORT}")},
                            {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
                        ],
                        "ports": [{"name": "health", "containerPort": HEALTH_PORT}],
                        "livenessProbe": probe("/healthz"),
                        "readinessProbe": probe("/readyz"),
                        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}},
                        "securityContext": {"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true,
                                            "capabilities": {"drop": ["ALL"]}},
                    }],
                },
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hub_install_puts_crds_first_and_the_controller_last() {
        let objects = objects(vec![json!({"kind": "CustomResourceDefinition", "metadata": {"name": "x"}})], "img:1");
        let kinds: Vec<&str> = objects.iter().filter_map(|o| o["kind"].as_str()).collect();
        assert_eq!(
            kinds,
            [
                "CustomResourceDefinition",
                "Namespace",
                "ServiceAccount",
                "ClusterRole",
                "ClusterRoleBinding",
                "Deployment"
            ]
        );
        let container = &objects[5]["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["args"][0], "hub");
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz");
    }

    #[test]
    fn the_controller_cannot_read_everything() {
        let rules = rules();
        let wildcard = rules
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["resources"] == json!(["*"]) || r["apiGroups"] == json!(["*"]));
        assert!(!wildcard, "no wildcards in the hub controller's role");
    }
}
