//! The import manifests of one managed cluster, in the objects and order upstream's
//! import controller renders: the agent namespace first, then RBAC, the bootstrap
//! kubeconfig, the ServiceAccount and the operator Deployment, and the Klusterlet last.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

use fleetctl_api::names::{AGENT_NAMESPACE, BOOTSTRAP_SECRET, KLUSTERLET};
/// Claim suffixes the registration agent reserves, as upstream's import controller sets.
const RESERVED_CLAIM_SUFFIXES: [&str; 2] = ["openshift.io", "open-cluster-management.io"];

/// What the manifests of one cluster depend on.
#[derive(Debug, Clone)]
pub struct ImportInputs<'a> {
    /// The managed cluster's name.
    pub cluster: &'a str,
    /// The hub API server URL the agents dial.
    pub hub_url: &'a str,
    /// The hub CA bundle, PEM.
    pub hub_ca_pem: &'a str,
    /// The bootstrap token (TokenRequest of `<cluster>-bootstrap-sa`).
    pub token: &'a str,
    /// The fleetctl image the operator and the agents run.
    pub image: &'a str,
}

/// The bootstrap kubeconfig, shaped as upstream's (`default-cluster`, `default-auth`,
/// `default-context`).
pub fn bootstrap_kubeconfig(hub_url: &str, hub_ca_pem: &str, token: &str) -> String {
    let config = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "default-cluster", "cluster": {"server": hub_url, "certificate-authority-data": BASE64.encode(hub_ca_pem)}}],
        "users": [{"name": "default-auth", "user": {"token": token}}],
        "contexts": [{"name": "default-context", "context": {"cluster": "default-cluster", "user": "default-auth", "namespace": "default"}}],
        "current-context": "default-context",
    });
    serde_yaml::to_string(&config).unwrap_or_default()
}

/// The objects of `import.yaml`, in order.
pub fn objects(inputs: &ImportInputs<'_>) -> Vec<Value> {
    let kubeconfig = bootstrap_kubeconfig(inputs.hub_url, inputs.hub_ca_pem, inputs.token);
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": AGENT_NAMESPACE, "annotations": {"workload.openshift.io/allowed": "management"}}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": KLUSTERLET}, "rules": operator_rules()}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": KLUSTERLET},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": KLUSTERLET},
               "subjects": [{"kind": "ServiceAccount", "name": KLUSTERLET, "namespace": AGENT_NAMESPACE}]}),
        json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": {"name": BOOTSTRAP_SECRET, "namespace": AGENT_NAMESPACE},
               "data": {"kubeconfig": BASE64.encode(kubeconfig)}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": KLUSTERLET, "namespace": AGENT_NAMESPACE}}),
        operator_deployment(inputs.image),
        klusterlet(inputs),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "klusterlet-bootstrap-kubeconfig"},
               "rules": [{"apiGroups": [""], "resources": ["secrets"], "resourceNames": [BOOTSTRAP_SECRET], "verbs": ["get", "update"]}]}),
    ]
}

/// The operator's permissions: it creates the agent namespace, their ServiceAccounts,
/// RBAC and Deployments, the AppliedManifestWork CRD, and cleans all of it up.
fn operator_rules() -> Value {
    json!([
        {"apiGroups": [""], "resources": ["namespaces", "serviceaccounts", "secrets", "configmaps"], "verbs": ["create", "get", "list", "watch", "update", "patch", "delete"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch", "update"]},
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create", "get", "list", "watch", "update", "patch", "delete"]},
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles", "clusterrolebindings", "roles", "rolebindings"],
         "verbs": ["create", "get", "list", "watch", "update", "patch", "delete", "escalate", "bind"]},
        {"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": ["create", "get", "list", "watch", "update", "patch", "delete"]},
        {"apiGroups": ["operator.open-cluster-management.io"], "resources": ["klusterlets", "klusterlets/status", "klusterlets/finalizers"],
         "verbs": ["get", "list", "watch", "update", "patch", "delete"]},
        {"apiGroups": ["work.open-cluster-management.io"], "resources": ["appliedmanifestworks", "appliedmanifestworks/finalizers"],
         "verbs": ["get", "list", "watch", "update", "patch", "delete"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create", "get", "list", "watch", "update", "patch", "delete"]},
    ])
}

fn operator_deployment(image: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": KLUSTERLET, "namespace": AGENT_NAMESPACE, "labels": {"app": KLUSTERLET}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": KLUSTERLET}},
            "template": {
                "metadata": {"labels": {"app": KLUSTERLET}},
                "spec": {
                    "serviceAccountName": KLUSTERLET,
                    "containers": [{
                        "name": KLUSTERLET,
                        "image": image,
                        "args": ["agent", "operator"],
                        "env": [{"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}],
                        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8443}, "initialDelaySeconds": 2, "periodSeconds": 10},
                        "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8443}, "initialDelaySeconds": 2},
                        "resources": {"requests": {"cpu": "2m", "memory": "16Mi"}},
                        "securityContext": {"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true,
                                            "capabilities": {"drop": ["ALL"]}},
                    }],
                },
            },
        },
    })
}

fn klusterlet(inputs: &ImportInputs<'_>) -> Value {
    json!({
        "apiVersion": "operator.open-cluster-management.io/v1", "kind": "Klusterlet",
        "metadata": {"name": KLUSTERLET},
        "spec": {
            "deployOption": {"mode": "Default"},
            "registrationImagePullSpec": inputs.image,
            "workImagePullSpec": inputs.image,
            "imagePullSpec": inputs.image,
            "clusterName": inputs.cluster,
            "namespace": AGENT_NAMESPACE,
            "registrationConfiguration": {"clusterClaimConfiguration": {"reservedClusterClaimSuffixes": RESERVED_CLAIM_SUFFIXES}},
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> ImportInputs<'static> {
        ImportInputs {
            cluster: "c1",
            hub_url: "https://hub:6443",
            hub_ca_pem: "CA",
            token: "t0k",
            image: "quay.io/fleetctl/fleetctl:0.1.0",
        }
    }

    #[test]
    fn import_objects_come_in_upstream_order_with_the_klusterlet_after_the_operator() {
        let kinds: Vec<String> = objects(&inputs())
            .iter()
            .map(|o| format!("{}/{}", o["kind"].as_str().unwrap_or(""), o["metadata"]["name"].as_str().unwrap_or("")))
            .collect();
        assert_eq!(
            kinds,
            [
                "Namespace/open-cluster-management-agent",
                "ClusterRole/klusterlet",
                "ClusterRoleBinding/klusterlet",
                "Secret/bootstrap-hub-kubeconfig",
                "ServiceAccount/klusterlet",
                "Deployment/klusterlet",
                "Klusterlet/klusterlet",
                "ClusterRole/klusterlet-bootstrap-kubeconfig",
            ]
        );
    }

    #[test]
    fn the_bootstrap_kubeconfig_carries_the_hub_url_ca_and_token() {
        let secret = &objects(&inputs())[3];
        let raw = BASE64.decode(secret["data"]["kubeconfig"].as_str().unwrap_or("")).expect("base64");
        let config: Value = serde_yaml::from_slice(&raw).expect("yaml");
        assert_eq!(config["clusters"][0]["cluster"]["server"], "https://hub:6443");
        assert_eq!(config["users"][0]["user"]["token"], "t0k");
        assert_eq!(config["current-context"], "default-context");
    }

    #[test]
    fn the_operator_runs_fleetctl_agent_operator_from_the_image() {
        let deployment = &objects(&inputs())[5];
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["image"], "quay.io/fleetctl/fleetctl:0.1.0");
        assert_eq!(container["args"], json!(["agent", "operator"]));
        assert_eq!(objects(&inputs())[6]["spec"]["clusterName"], "c1");
    }
}
