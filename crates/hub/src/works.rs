//! The klusterlet ManifestWorks: `<c>-klusterlet-crds` (the Klusterlet CRD) and
//! `<c>-klusterlet` (everything of `import.yaml`), which keep the managed side's
//! bootstrap secret fresh and carry upgrades.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde_json::Value;

use fleetctl_api::conditions::{ANNOTATION_CLEANUP_PRIORITY, LABEL_KLUSTERLET_WORKS};
use fleetctl_api::names::{klusterlet_crds_work, klusterlet_work};
use fleetctl_api::work::{DeleteOption, DeletePropagationPolicy};
use fleetctl_api::{Manifest, ManifestWork};

/// The klusterlet work's name, under the path the CLI's `describe` reads it from (the name
/// is [`fleetctl_api::names::klusterlet_work`]).
pub use fleetctl_api::names::klusterlet_work as klusterlet_work_name;

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
}
