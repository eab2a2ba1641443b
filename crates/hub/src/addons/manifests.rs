//! The addon work: what `addon-<addon>-deploy-0` deploys on the managed cluster.

use std::collections::BTreeMap;

use fleetctl_kube::objects::{self, MetaExt, document, labels, meta, named_rule, namespaced_meta, rule};
use k8s_openapi::api::core::v1::{Container, PodSpec};
use k8s_openapi::api::rbac::v1::PolicyRule;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde_json::Value;

use fleetctl_api::addon::v1alpha1::NodePlacement;
use fleetctl_api::addon::{
    CERT_POLICY_CONTROLLER, DEFAULT_ADDON_INSTALL_NAMESPACE, SEARCH_COLLECTOR, SEARCH_KINDS, status_name,
};
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
fn read_rules(addon: &str) -> Vec<PolicyRule> {
    match addon {
        SEARCH_COLLECTOR => {
            let mut by_group: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for (group, _, _, plural) in SEARCH_KINDS {
                by_group.entry(group).or_default().push(plural);
            }
            by_group.into_iter().map(|(group, plurals)| rule(&[group], &plurals, &["list"])).collect()
        }
        CERT_POLICY_CONTROLLER => vec![rule(&[""], &["secrets"], &["list", "watch"])],
        _ => vec![rule(&[objects::RBAC_GROUP], &["clusterrolebindings"], &["list", "watch"])],
    }
}

/// The in-cluster executable's command line for an addon agent.
fn agent_args(addon: &str, settings: &[String]) -> Vec<String> {
    ["addon", addon].into_iter().map(str::to_string).chain(settings.iter().cloned()).collect()
}

/// How an addon's agent runs.
#[derive(Debug, Clone, Default)]
pub struct Agent<'a> {
    /// Its image.
    pub image: &'a str,
    /// Its settings, as flags.
    pub settings: Vec<String>,
    /// Where its Pods go (its deployment config's `nodePlacement`).
    pub placement: Option<&'a NodePlacement>,
}

/// The manifests of one addon agent: ServiceAccount, its rights (its own lease and status
/// ConfigMap in the addon namespace; its reads cluster-wide) and the Deployment. The addon
/// namespace itself belongs to the klusterlet operator, so removing one addon never
/// removes the others' namespace.
pub fn manifests(addon: &str, agent: &Agent<'_>) -> Vec<Value> {
    let ns = DEFAULT_ADDON_INSTALL_NAMESPACE;
    let sa = service_account(addon);
    let role = cluster_role(addon);
    let ours = || labels([(LABEL_ADDON_NAME, addon)]);
    let subjects = || vec![objects::service_account_subject(ns, &sa)];
    let status = status_name(addon);
    let own_objects = vec![
        // create cannot be confined to a name; everything else can.
        rule(&["coordination.k8s.io"], &["leases"], &["create"]),
        named_rule(&["coordination.k8s.io"], &["leases"], &[addon], &["get", "update", "patch"]),
        rule(&[""], &["configmaps"], &["create"]),
        named_rule(&[""], &["configmaps"], &[&status], &["get", "update", "patch"]),
    ];
    let container = Container {
        env: Some(vec![objects::env_from_field("POD_NAMESPACE", "metadata.namespace")]),
        resources: Some(objects::requests("10m", "16Mi")),
        ..objects::container(addon, agent.image, agent_args(addon, &agent.settings))
    };
    let pod = PodSpec {
        service_account_name: Some(sa.clone()),
        containers: vec![container],
        node_selector: agent.placement.map(|p| p.node_selector.clone()).filter(|s| !s.is_empty()),
        tolerations: agent.placement.map(|p| p.tolerations.clone()).filter(|t| !t.is_empty()),
        ..PodSpec::default()
    };
    vec![
        document(&objects::service_account(namespaced_meta(ns, &sa).with_labels(ours()))),
        document(&objects::role(namespaced_meta(ns, &role).with_labels(ours()), own_objects)),
        document(&objects::role_binding(namespaced_meta(ns, &role).with_labels(ours()), &role, subjects())),
        document(&objects::cluster_role(meta(&role).with_labels(ours()), read_rules(addon))),
        document(&objects::cluster_role_binding(meta(&role).with_labels(ours()), &role, subjects())),
        document(&objects::deployment(namespaced_meta(ns, addon).with_labels(ours()), addon, ours(), pod)),
    ]
}

/// The work of one addon, owned by its ManagedClusterAddOn.
pub fn work(cluster: &str, addon: &str, agent: &Agent<'_>, owner: OwnerReference) -> ManifestWork {
    let mut work = ManifestWork::for_cluster(
        cluster,
        &work_name(addon),
        manifests(addon, agent).into_iter().map(Manifest).collect(),
    );
    work.metadata.labels = Some(BTreeMap::from([(LABEL_ADDON_NAME.to_string(), addon.to_string())]));
    work.metadata.owner_references = Some(vec![owner]);
    work
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use fleetctl_api::addon::IAM_POLICY_CONTROLLER;

    #[test]
    fn an_addon_work_deploys_the_agent_with_its_own_rights() {
        let owner =
            OwnerReference { name: CERT_POLICY_CONTROLLER.into(), uid: "u".into(), ..OwnerReference::default() };
        let placement: NodePlacement = serde_json::from_value(json!({
            "nodeSelector": {"node-role.kubernetes.io/infra": ""},
            "tolerations": [{"key": "infra", "operator": "Exists", "effect": "NoSchedule"}],
        }))
        .unwrap();
        let agent =
            Agent { image: "quay.io/x/fleetctl:v1", settings: vec!["--window=7d".into()], placement: Some(&placement) };
        let work = work("c1", CERT_POLICY_CONTROLLER, &agent, owner);
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
        let pod = &deployment["spec"]["template"]["spec"];
        assert_eq!(pod["nodeSelector"], json!({"node-role.kubernetes.io/infra": ""}), "its config's node placement");
        assert_eq!(pod["tolerations"][0]["key"], "infra");
        assert_eq!(
            manifests[3]["rules"],
            json!([{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list", "watch"]}])
        );
        assert_eq!(deployment["spec"]["template"]["metadata"]["labels"][LABEL_ADDON_NAME], "cert-policy-controller");
        // The search collector reads only, and only the kinds it counts.
        let search = read_rules(SEARCH_COLLECTOR);
        assert!(search.iter().all(|r| r.verbs == ["list"]));
        assert!(!search.iter().any(|r| r.resources.iter().flatten().any(|res| res == "secrets")));
    }

    #[test]
    fn the_policy_addons_read_only_what_they_check() {
        let cert = read_rules(CERT_POLICY_CONTROLLER);
        assert_eq!(cert, [rule(&[""], &["secrets"], &["list", "watch"])]);
        let iam = read_rules(IAM_POLICY_CONTROLLER);
        assert_eq!(iam[0].resources, Some(vec!["clusterrolebindings".to_string()]));
    }
}
