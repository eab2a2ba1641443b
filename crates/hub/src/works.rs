//! The klusterlet ManifestWorks: `<c>-klusterlet-crds` (the Klusterlet CRD) and
//! `<c>-klusterlet` (everything of `import.yaml`), which keep the managed side's
//! bootstrap secret fresh and carry upgrades.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde_json::Value;

use fleetctl_api::conditions::KLUSTERLET_READY_TO_APPLY as READY_TO_APPLY;
use fleetctl_api::conditions::{ANNOTATION_CLEANUP_PRIORITY, LABEL_KLUSTERLET_WORKS};
use fleetctl_api::names::{
    EXTERNAL_MANAGED_KUBECONFIG, LABEL_HOSTED_CLUSTER, hosted_klusterlet,
    hosted_klusterlet_work as hosted_klusterlet_work_name, hosted_kubeconfig_work as hosted_kubeconfig_work_name,
    klusterlet_crds_work, klusterlet_work,
};
use fleetctl_api::work::{
    DeleteOption, DeletePropagationPolicy, FeedbackRule, FeedbackType, JsonPath, ManifestConfigOption,
    ResourceIdentifier,
};
use fleetctl_api::{Manifest, ManifestWork, OPERATOR_GROUP};
use fleetctl_kube::objects::{self, document, namespaced_meta};

/// The klusterlet work's name, under the path the CLI's `describe` reads it from (the name
/// is [`fleetctl_api::names::klusterlet_work`]).
pub use fleetctl_api::names::klusterlet_work as klusterlet_work_name;

/// The field of the hosted Klusterlet's `ReadyToApply` condition its feedback reports.
const READY_TO_APPLY_STATUS: &str = "status";

fn work(cluster: &str, name: String, manifests: Vec<Value>, owner: &OwnerReference) -> ManifestWork {
    let mut work = ManifestWork::for_cluster(cluster, &name, manifests.into_iter().map(Manifest).collect());
    work.metadata.labels = Some(BTreeMap::from([(LABEL_KLUSTERLET_WORKS.to_string(), "true".to_string())]));
    work.metadata.owner_references = Some(vec![owner.clone()]);
    work
}

/// The two klusterlet works of `cluster`: the CRD work (deleted last; removing it
/// removes the Klusterlet CRD and so the Klusterlet), and the klusterlet work, which
/// orphans what it applied when it is deleted so detach can order the teardown.
pub fn klusterlet_works(
    cluster: &str,
    crds: Vec<Value>,
    import: Vec<Value>,
    owner: &OwnerReference,
) -> [ManifestWork; 2] {
    let mut crds_work = work(cluster, klusterlet_crds_work(cluster), crds, owner);
    crds_work.metadata.annotations =
        Some(BTreeMap::from([(ANNOTATION_CLEANUP_PRIORITY.to_string(), "100".to_string())]));
    let mut import_work = work(cluster, klusterlet_work(cluster), import, owner);
    import_work.spec.delete_option =
        Some(DeleteOption { propagation_policy: DeletePropagationPolicy::Orphan, ..DeleteOption::default() });
    [crds_work, import_work]
}

/// The work in the hosting cluster's namespace that carries a hosted cluster's klusterlet (the
/// Hosted `import.yaml` but its namespace, which the hosting cluster's operator makes and
/// removes last), as ACM's import controller writes it: deleted last among the hosted
/// cluster's works and in the foreground — the Klusterlet's cleanup runs before the work is
/// gone — with the Klusterlet's `ReadyToApply` condition fed back.
pub fn hosted_klusterlet_work(
    cluster: &str,
    hosting: &str,
    import: Vec<Value>,
    owner: &OwnerReference,
) -> ManifestWork {
    let manifests = import.into_iter().filter(|object| object["kind"] != "Namespace").collect();
    let mut work = hosted(cluster, hosting, hosted_klusterlet_work_name(cluster), manifests, owner);
    work.metadata.annotations = Some(BTreeMap::from([(ANNOTATION_CLEANUP_PRIORITY.to_string(), "100".to_string())]));
    work.spec.delete_option =
        Some(DeleteOption { propagation_policy: DeletePropagationPolicy::Foreground, ..DeleteOption::default() });
    let feedback = |name: &str, field: &str| JsonPath {
        name: format!("{READY_TO_APPLY}-{name}"),
        path: format!(r#".status.conditions[?(@.type=="{READY_TO_APPLY}")].{field}"#),
        ..JsonPath::default()
    };
    work.spec.manifest_configs = vec![ManifestConfigOption {
        resource_identifier: ResourceIdentifier {
            group: OPERATOR_GROUP.into(),
            resource: "klusterlets".into(),
            name: hosted_klusterlet(cluster),
            namespace: String::new(),
        },
        feedback_rules: vec![FeedbackRule {
            type_: FeedbackType::JsonPaths,
            json_paths: vec![
                feedback("reason", "reason"),
                feedback(READY_TO_APPLY_STATUS, "status"),
                feedback("message", "message"),
            ],
        }],
        ..ManifestConfigOption::default()
    }];
    work
}

/// The name of the feedback value that holds the hosted Klusterlet's `ReadyToApply` status
/// (ACM's `ReadyToApply-status`).
pub fn ready_to_apply_feedback() -> String {
    format!("{READY_TO_APPLY}-{READY_TO_APPLY_STATUS}")
}

/// The work in the hosting cluster's namespace that carries the managed cluster's kubeconfig
/// to the hosted Klusterlet's namespace. It orphans the Secret when deleted: the Klusterlet's
/// cleanup needs it, and its operator deletes it with that namespace.
pub fn hosted_kubeconfig_work(
    cluster: &str,
    hosting: &str,
    kubeconfig: String,
    owner: &OwnerReference,
) -> ManifestWork {
    let secret = objects::opaque_secret(
        namespaced_meta(&hosted_klusterlet(cluster), EXTERNAL_MANAGED_KUBECONFIG),
        BTreeMap::from([("kubeconfig".to_string(), kubeconfig)]),
    );
    let mut work = hosted(cluster, hosting, hosted_kubeconfig_work_name(cluster), vec![document(&secret)], owner);
    work.spec.delete_option =
        Some(DeleteOption { propagation_policy: DeletePropagationPolicy::Orphan, ..DeleteOption::default() });
    work
}

/// A work of `cluster` in the namespace of its hosting cluster, labelled with the cluster.
fn hosted(cluster: &str, hosting: &str, name: String, manifests: Vec<Value>, owner: &OwnerReference) -> ManifestWork {
    let mut work = ManifestWork::for_cluster(hosting, &name, manifests.into_iter().map(Manifest).collect());
    work.metadata.labels = Some(BTreeMap::from([(LABEL_HOSTED_CLUSTER.to_string(), cluster.to_string())]));
    work.metadata.owner_references = Some(vec![owner.clone()]);
    work
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_klusterlet_works_carry_the_upstream_label_and_owner() {
        let owner = OwnerReference { name: "c1".into(), uid: "u".into(), ..OwnerReference::default() };
        let [crds, klusterlet] = klusterlet_works(
            "c1",
            vec![json!({"kind": "CustomResourceDefinition"})],
            vec![json!({"kind": "Namespace"})],
            &owner,
        );
        assert_eq!(crds.metadata.name.as_deref(), Some("c1-klusterlet-crds"));
        assert_eq!(klusterlet.metadata.name.as_deref(), Some("c1-klusterlet"));
        assert_eq!(klusterlet.metadata.namespace.as_deref(), Some("c1"));
        for w in [&crds, &klusterlet] {
            assert_eq!(
                w.metadata.labels.as_ref().expect("labels")["import.open-cluster-management.io/klusterlet-works"],
                "true"
            );
            assert_eq!(w.metadata.owner_references.as_ref().expect("owner")[0].name, "c1");
        }
        let json = serde_json::to_value(&klusterlet).expect("json");
        assert_eq!(json["spec"]["deleteOption"]["propagationPolicy"], "Orphan");
    }

    #[test]
    fn a_hosted_clusters_works_live_in_its_hosting_clusters_namespace_as_acms_import_controller_writes_them() {
        let owner = OwnerReference { name: "c2".into(), uid: "u".into(), ..OwnerReference::default() };
        let import = vec![
            json!({"kind": "Namespace", "metadata": {"name": "klusterlet-c2"}}),
            json!({"kind": "Klusterlet", "metadata": {"name": "klusterlet-c2"}}),
        ];
        let klusterlet = serde_json::to_value(hosted_klusterlet_work("c2", "c1", import, &owner)).expect("json");
        assert_eq!(klusterlet["metadata"]["namespace"], "c1");
        assert_eq!(klusterlet["metadata"]["name"], "c2-hosted-klusterlet");
        assert_eq!(klusterlet["metadata"]["labels"]["import.open-cluster-management.io/hosted-cluster"], "c2");
        assert_eq!(klusterlet["metadata"]["annotations"]["open-cluster-management.io/cleanup-priority"], "100");
        assert_eq!(klusterlet["spec"]["deleteOption"]["propagationPolicy"], "Foreground");
        let manifests = klusterlet["spec"]["workload"]["manifests"].as_array().expect("manifests");
        assert_eq!(manifests.len(), 1, "the namespace is the hosting operator's: {manifests:?}");
        let config = &klusterlet["spec"]["manifestConfigs"][0];
        assert_eq!(config["resourceIdentifier"]["name"], "klusterlet-c2");
        assert_eq!(config["feedbackRules"][0]["jsonPaths"][1]["name"], ready_to_apply_feedback());
        assert_eq!(
            config["feedbackRules"][0]["jsonPaths"][1]["path"],
            r#".status.conditions[?(@.type=="ReadyToApply")].status"#
        );
        let kubeconfig = serde_json::to_value(hosted_kubeconfig_work("c2", "c1", "k".into(), &owner)).expect("json");
        assert_eq!(kubeconfig["metadata"]["name"], "c2-hosted-kubeconfig");
        assert_eq!(kubeconfig["spec"]["deleteOption"]["propagationPolicy"], "Orphan");
        let secret = &kubeconfig["spec"]["workload"]["manifests"][0];
        assert_eq!(secret["metadata"]["namespace"], "klusterlet-c2");
        assert_eq!(secret["metadata"]["name"], "external-managed-kubeconfig");
    }
}
