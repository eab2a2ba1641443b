//! The addon controller: KlusterletAddonConfig `<c>` → ManagedClusterAddOn `<addon>` in
//! `<c>` → ManifestWork `addon-<addon>-deploy-0`, which deploys the addon agent
//! (`fleetctl addon <addon>`, the cluster's klusterlet image) into
//! `open-cluster-management-agent-addon` with only the rights that addon needs.
//!
//! Disabling an addon deletes its work first and, once the work is gone (so the work
//! agent has removed the agent from the cluster), its ManagedClusterAddOn. The work is
//! owned by the ManagedClusterAddOn, so deleting the addon (as detach does) removes the
//! work too. Availability is not decided here: the registration agent relays the addon's
//! lease and report to the ManagedClusterAddOn status.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::Api;
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use super::context::{Ctx, HubError, apply, delete, kube_error};
use super::import::desired_version;
use crate::addon::{EXECUTABLE as ADDON_EXECUTABLE, IAM_POLICY_CONTROLLER, status_name};
use crate::api::addon::{CERT_POLICY_CONTROLLER, DEFAULT_ADDON_INSTALL_NAMESPACE, SEARCH_COLLECTOR};
use crate::api::conditions::LABEL_ADDON_NAME;
use crate::api::{KlusterletAddonConfig, ManagedCluster, ManagedClusterAddOn, ManagedClusterAddOnSpec, Manifest};
use crate::api::{ManifestWork, addon::KlusterletAddonConfigSpec};

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

/// The addons with an agent, and whether the config enables each.
pub fn wanted(spec: &KlusterletAddonConfigSpec) -> [(&'static str, bool); 3] {
    [
        (SEARCH_COLLECTOR, spec.search_collector.enabled),
        (CERT_POLICY_CONTROLLER, spec.cert_policy_controller.enabled),
        (IAM_POLICY_CONTROLLER, spec.iam_policy_controller.enabled),
    ]
}

/// What an addon may read cluster-wide: exactly what it reports on.
fn read_rules(addon: &str) -> Value {
    match addon {
        SEARCH_COLLECTOR => {
            let mut by_group: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for (group, _, _, plural) in crate::addon::search::KINDS {
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

/// The manifests of one addon agent: ServiceAccount, its rights (its own lease and status
/// ConfigMap in the addon namespace; its reads cluster-wide) and the Deployment. The addon
/// namespace itself belongs to the klusterlet operator, so removing one addon never
/// removes the others' namespace.
pub fn manifests(addon: &str, image: &str) -> Vec<Value> {
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
                        "command": [ADDON_EXECUTABLE],
                        "args": [addon],
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
pub fn work(cluster: &str, addon: &str, image: &str, owner: OwnerReference) -> ManifestWork {
    let mut work = ManifestWork::for_cluster(
        cluster,
        &work_name(addon),
        manifests(addon, image).into_iter().map(Manifest).collect(),
    );
    work.metadata.labels = Some(BTreeMap::from([(LABEL_ADDON_NAME.to_string(), addon.to_string())]));
    work.metadata.owner_references = Some(vec![owner]);
    work
}

/// One pass over one cluster's KlusterletAddonConfig.
pub async fn reconcile(config: Arc<KlusterletAddonConfig>, ctx: Ctx) -> Result<Action, HubError> {
    let Some(cluster_name) = config.namespace() else { return Ok(Action::await_change()) };
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    let cluster =
        clusters.get_opt(&cluster_name).await.map_err(kube_error(format!("reading cluster {cluster_name}")))?;
    // Nothing is installed before the cluster joins, and nothing is recreated while it
    // is detached (the cleanup controller removes the addons then).
    let Some(cluster) = cluster.filter(|c| c.meta().deletion_timestamp.is_none() && c.is_joined()) else {
        return Ok(Action::await_change());
    };
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(ctx.client.clone(), &cluster_name);
    let works: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &cluster_name);
    let image = ctx.config.image(desired_version(&cluster, &ctx.config.default_version));
    for (addon, enabled) in wanted(&config.spec) {
        if enabled {
            let mut object = ManagedClusterAddOn::for_cluster(&cluster_name, addon);
            object.spec = ManagedClusterAddOnSpec {
                install_namespace: DEFAULT_ADDON_INSTALL_NAMESPACE.to_string(),
                ..ManagedClusterAddOnSpec::default()
            };
            let applied = apply(&addons, &object).await?;
            if applied.meta().deletion_timestamp.is_some() {
                // Re-enabled while going: build again once it is gone.
                continue;
            }
            let Some(owner) = applied.controller_owner_ref(&()) else { continue };
            apply(&works, &work(&cluster_name, addon, &image, owner)).await?;
        } else {
            let work = works
                .get_opt(&work_name(addon))
                .await
                .map_err(kube_error(format!("reading work {cluster_name}/{}", work_name(addon))))?;
            if work.is_some() {
                // The addon object goes only after the agent is gone from the cluster; the
                // work's removal brings us back here.
                delete(&works, &work_name(addon)).await?;
            } else {
                delete(&addons, addon).await?;
            }
        }
    }
    Ok(Action::await_change())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_addon_work_deploys_the_agent_with_its_own_rights() {
        let owner = OwnerReference { name: "search-collector".into(), uid: "u".into(), ..OwnerReference::default() };
        let work = work("c1", SEARCH_COLLECTOR, "quay.io/x/fleetctl:v1", owner);
        assert_eq!(work.metadata.name.as_deref(), Some("addon-search-collector-deploy-0"));
        assert_eq!(work.metadata.labels.as_ref().unwrap()[LABEL_ADDON_NAME], "search-collector");
        let manifests: Vec<&Value> = work.spec.workload.manifests.iter().map(|m| &m.0).collect();
        let kinds: Vec<&str> = manifests.iter().filter_map(|m| m["kind"].as_str()).collect();
        assert_eq!(kinds, ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "Deployment"]);
        let deployment = manifests[5];
        assert_eq!(deployment["metadata"]["namespace"], "open-cluster-management-agent-addon");
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["command"], json!(["fleetctl-addon"]));
        assert_eq!(container["args"], json!(["search-collector"]));
        assert_eq!(container["image"], "quay.io/x/fleetctl:v1");
        // Reads only, and only the kinds it counts.
        let rules = manifests[3]["rules"].as_array().unwrap();
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
