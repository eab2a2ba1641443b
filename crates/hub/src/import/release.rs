//! A cluster the hub imported, handed back its klusterlet ([`ANNOTATION_OWN_KLUSTERLET`]
//! set to `true` by whoever manages it): the hub lets go without touching the managed side
//! but for its klusterlet operator. The klusterlet works are told to orphan what they
//! applied — the CRDs, the Klusterlet, the agents' namespace, credentials and RBAC — but the
//! operator's Deployment; once the work agent has seen that, they are deleted (so the work
//! agent removes only the operator, and the agents keep running, registered); once they are
//! gone, the import finalizer and condition go. Another klusterlet operator (`clusteradm
//! join`'s) can then take the Klusterlet over; the cluster stays, Available, with its
//! identity. Each pass takes one step, retriggered by the works' changes, so a restarted hub
//! resumes where it stopped.

use fleetctl_api::conditions::{self as c, FINALIZER_IMPORT_CLEANUP};
use fleetctl_api::names::{
    AGENT_NAMESPACE, ANNOTATION_OWN_KLUSTERLET, KLUSTERLET, klusterlet_crds_work, klusterlet_work,
};
use fleetctl_api::work::{DeleteOption, DeletePropagationPolicy, OrphaningRule, SelectivelyOrphan};
use fleetctl_api::{ManagedCluster, ManifestWork};
use fleetctl_kube::{kube_error, update_conditions};
use kube::api::{Api, ApiResource, DeleteParams, GroupVersionKind, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde_json::json;

use crate::context::{Ctx, HubError};

/// One step of letting go of `cluster`'s klusterlet.
pub async fn release(clusters: &Api<ManagedCluster>, cluster: &ManagedCluster, ctx: &Ctx) -> Result<Action, HubError> {
    let name = cluster.name_any();
    let works: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &name);
    let mut left = 0;
    for work_name in [klusterlet_work(&name), klusterlet_crds_work(&name)] {
        let Some(work) = works.get_opt(&work_name).await.map_err(kube_error(format!("reading work {work_name}")))?
        else {
            continue;
        };
        left += 1;
        if work.meta().deletion_timestamp.is_some() {
            continue;
        }
        let orphaning = orphaning(&work);
        if work.spec.delete_option.as_ref() != Some(&orphaning) {
            let patch = json!({"metadata": {"resourceVersion": work.resource_version()},
                               "spec": {"deleteOption": orphaning}});
            works
                .patch(&work_name, &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .map_err(kube_error(format!("telling work {work_name} to orphan the klusterlet")))?;
            tracing::info!(cluster = %name, work = %work_name, "the klusterlet is handed back: its work orphans it");
        } else if work.is_applied() {
            // The work agent has seen what to orphan: deleting the work now removes the
            // operator alone.
            works
                .delete(&work_name, &DeleteParams::background())
                .await
                .map_err(kube_error(format!("deleting work {work_name}")))?;
        }
    }
    if left > 0 {
        // The works' changes bring the cluster back.
        return Ok(Action::await_change());
    }
    update_conditions(clusters, cluster, |conditions| {
        c::remove_condition(conditions, c::MANAGED_CLUSTER_IMPORT_SUCCEEDED)
    })
    .await?;
    let finalizers: Vec<&String> = cluster.finalizers().iter().filter(|f| *f != FINALIZER_IMPORT_CLEANUP).collect();
    let patch = json!({"metadata": {"resourceVersion": cluster.resource_version(), "finalizers": finalizers}});
    clusters
        .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(kube_error(format!("removing the import finalizer of {name}")))?;
    ctx.written.forget(&name, &[]);
    tracing::info!(cluster = %name, "the klusterlet is the cluster's own again: the hub let go of it");
    Ok(Action::await_change())
}

/// Whether the hub is letting go of (or has let go of) a cluster's klusterlet.
pub fn handed_back(cluster: &ManagedCluster) -> bool {
    cluster.annotations().get(ANNOTATION_OWN_KLUSTERLET).is_some_and(|v| v == "true")
}

/// The delete option under which deleting a klusterlet work removes the operator's
/// Deployment and nothing else it applied.
fn orphaning(work: &ManifestWork) -> DeleteOption {
    let rules = work.spec.workload.manifests.iter().filter_map(|manifest| rule(&manifest.0)).collect();
    DeleteOption {
        propagation_policy: DeletePropagationPolicy::SelectivelyOrphan,
        selectively_orphans: Some(SelectivelyOrphan { orphaning_rules: rules }),
        ..DeleteOption::default()
    }
}

/// The orphaning rule of one manifest; none for the operator's Deployment (and for a
/// manifest without a kind, which names nothing the work agent applied).
fn rule(manifest: &serde_json::Value) -> Option<OrphaningRule> {
    let kind = manifest["kind"].as_str()?;
    let (group, version) = match manifest["apiVersion"].as_str()?.split_once('/') {
        Some((group, version)) => (group, version),
        None => ("", manifest["apiVersion"].as_str()?),
    };
    let name = manifest["metadata"]["name"].as_str()?;
    let namespace = manifest["metadata"]["namespace"].as_str().unwrap_or("");
    if (group, kind, namespace, name) == ("apps", "Deployment", AGENT_NAMESPACE, KLUSTERLET) {
        return None;
    }
    let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind)).plural;
    Some(OrphaningRule { group: group.into(), resource, namespace: namespace.into(), name: name.into() })
}

#[cfg(test)]
mod tests {
    use fleetctl_api::Manifest;

    use super::*;

    #[test]
    fn a_handed_back_klusterlet_work_orphans_everything_but_the_operator_deployment() {
        let manifests = [
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": AGENT_NAMESPACE}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "klusterlet"}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": KLUSTERLET, "namespace": AGENT_NAMESPACE}}),
            json!({"apiVersion": "operator.open-cluster-management.io/v1", "kind": "Klusterlet", "metadata": {"name": "klusterlet"}}),
        ];
        let work = ManifestWork::for_cluster("c1", "c1-klusterlet", manifests.into_iter().map(Manifest).collect());
        let option = orphaning(&work);
        assert_eq!(option.propagation_policy, DeletePropagationPolicy::SelectivelyOrphan);
        let rules = option.selectively_orphans.expect("rules").orphaning_rules;
        let named: Vec<String> =
            rules.iter().map(|r| format!("{}/{}/{}/{}", r.group, r.resource, r.namespace, r.name)).collect();
        assert_eq!(
            named,
            [
                "/namespaces//open-cluster-management-agent",
                "rbac.authorization.k8s.io/clusterroles//klusterlet",
                "operator.open-cluster-management.io/klusterlets//klusterlet",
            ]
        );
    }
}
