//! The addon work: what `addon-<addon>-deploy-0` deploys on the managed cluster.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde_json::{Value, json};

use fleetctl_api::addon::{CERT_POLICY_CONTROLLER, DEFAULT_ADDON_INSTALL_NAMESPACE, SEARCH_COLLECTOR, status_name};
use fleetctl_api::conditions::LABEL_ADDON_NAME;
use fleetctl_api::{Manifest, ManifestWork};

/// The name of the work deploying an addon (upstream addon framework's naming).
pub fn work_name(addon: &str) -> String {
    format!("addon-{addon}-deploy-0")
}

/// The ServiceAccount of an addon agent.
pub fn service_account(addon: &str) -> String {
    format!("{addon}-sa")
}

/// The ClusterRole (and binding) of an addon agent's cluster-wide reads.
pub fn cluster_role(addon: &str) -> String {
    format!("open-cluster-management:addon:{addon}")
}

/// What an addon may read cluster-wide: exactly what it reports on.
fn read_rules(addon: &str) -> Value {
    match addon {
        SEARCH_COLLECTOR => {
            let mut by_group: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for (group, _, _, plural) in fleetctl_api::addon::SEARCH_KINDS {
                by_group.entry(group).or_default().push(plural);
            }
            by_group
                .into_iter()
                .map(|(group, plurals)| json!({"apiGroups": [group], "resources": plurals, "verbs": ["list"]}))
                .collect()
        }
        CERT_POLICY_CONTROLLER => json!([{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list", "watch"]}]),
        _ => json!([{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterrolebindings"],
                     "verbs": ["list", "watch"]}]),
    }
}

/// The in-cluster executable's command line for an addon agent.
fn agent_args(addon: &str, settings: &[String]) -> Vec<String> {
    ["addon", addon].into_iter().map(str::to_string).chain(settings.iter().cloned()).collect()
}

/// The manifests of one addon agent: ServiceAccount, its rights (its own lease and status
/// ConfigMap in the addon namespace; its reads cluster-wide) and the Deployment. The addon
/// namespace itself belongs to the klusterlet operator, so removing one addon never
/// removes the others' namespace.
pub fn manifests(addon: &str, image: &str, settings: &[String]) -> Vec<Value> {
    let ns = DEFAULT_ADDON_INSTALL_NAMESPACE;
    let sa = service_account(addon);
    let role = cluster_role(addon);
    let labels = json!({LABEL_ADDON_NAME: addon});
    let rbac = "rbac.authorization.k8s.io/v1";
    let subjects = json!([{"kind": "ServiceAccount", "name": sa, "namespace": ns}]);
    let status = status_name(addon);
    vec![
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": sa, "namespace": ns, "labels": labels}}),
        json!({"apiVersion": rbac, "kind": "Role", "metadata": {"name": role, "namespace": ns, "labels": labels},
        "rules": [
            // create cannot be confined to a name; everything else can.
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "resourceNames": [addon],
             "verbs": ["get", "update", "patch"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]},
            {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [status],
             "verbs": ["get", "update", "patch"]},
        ]}),
        json!({"apiVersion": rbac, "kind": "RoleBinding", "metadata": {"name": role, "namespace": ns, "labels": labels},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
               "subjects": subjects}),
        json!({"apiVersion": rbac, "kind": "ClusterRole", "metadata": {"name": role, "labels": labels},
               "rules": read_rules(addon)}),
        json!({"apiVersion": rbac, "kind": "ClusterRoleBinding", "metadata": {"name": role, "labels": labels},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
               "subjects": subjects}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": addon, "namespace": ns, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": addon}},
            "template": {
                "metadata": {"labels": {"app": addon, LABEL_ADDON_NAME: addon}},
                "spec": {
                    "serviceAccountName": sa,
                    "containers": [{
                        "name": addon,
                        "image": image,
                        "args": agent_args(addon, settings),
                        "env": [{"name": "POD_NAMESPACE",
                                 "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}}],
                        "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
                    }],
                },
            },
        }}),
    ]
}

/// The work of one addon, owned by its ManagedClusterAddOn.
pub fn work(cluster: &str, addon: &str, image: &str, settings: &[String], owner: OwnerReference) -> ManifestWork {
    let mut work = ManifestWork::for_cluster(
        cluster,
        &work_name(addon),
        manifests(addon, image, settings).into_iter().map(Manifest).collect(),
    );
    work.metadata.labels = Some(BTreeMap::from([(LABEL_ADDON_NAME.to_string(), addon.to_string())]));
    work.metadata.owner_references = Some(vec![owner]);
    work
}

#[cfg(test)]
mod tests {
    use super::*;
    use fleetctl_api::addon::IAM_POLICY_CONTROLLER;

    #[test]
    fn an_addon_work_deploys_the_agent_with_its_own_rights() {
        let owner =
            OwnerReference { name: CERT_POLICY_CONTROLLER.into(), uid: "u".into(), ..OwnerReference::default() };
        let work = work("c1", CERT_POLICY_CONTROLLER, "quay.io/x/fleetctl:v1", &["--window=7d".into()], owner);
        assert_eq!(work.metadata.name.as_deref(), Some("addon-cert-policy-controller-deploy-0"));
        assert_eq!(work.metadata.labels.as_ref().unwrap()[LABEL_ADDON_NAME], "cert-policy-controller");
        let manifests: Vec<&Value> = work.spec.workload.manifests.iter().map(|m| &m.0).collect();
        let kinds: Vec<&str> = manifests.iter().filter_map(|m| m["kind"].as_str()).collect();
        assert_eq!(kinds, ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "Deployment"]);
        let deployment = manifests[5];
        assert_eq!(deployment["metadata"]["namespace"], "open-cluster-management-agent-addon");
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container.get("command"), None, "the image's entrypoint, fleetctld, runs it");
        assert_eq!(container["args"], json!(["addon", "cert-policy-controller", "--window=7d"]));
        assert_eq!(container["image"], "quay.io/x/fleetctl:v1");
        assert_eq!(manifests[3]["rules"], read_rules(CERT_POLICY_CONTROLLER));
        // The search collector reads only, and only the kinds it counts.
        let search = read_rules(SEARCH_COLLECTOR);
        let rules = search.as_array().unwrap();
        assert!(rules.iter().all(|r| r["verbs"] == json!(["list"])));
        assert!(!rules.iter().any(|r| r["resources"].as_array().unwrap().contains(&json!("secrets"))));
    }

    #[test]
    fn the_policy_addons_read_only_what_they_check() {
        let cert = read_rules(CERT_POLICY_CONTROLLER);
        assert_eq!(cert, json!([{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list", "watch"]}]));
        let iam = read_rules(IAM_POLICY_CONTROLLER);
        assert_eq!(iam[0]["resources"], json!(["clusterrolebindings"]));
    }
}
