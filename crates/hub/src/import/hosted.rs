//! Hosted mode, as ACM's import controller runs it: a cluster annotated
//! `klusterlet-deploy-mode: Hosted` has its agents run on another managed cluster of this hub,
//! the one `import.open-cluster-management.io/hosting-cluster-name` names. The hub writes two
//! works into the hosting cluster's namespace: `<c>-hosted-klusterlet` (the Hosted Klusterlet
//! `klusterlet-<c>` and its bootstrap kubeconfig, which the hosting cluster's operator deploys)
//! and, from the cluster's `auto-import-secret`, `<c>-hosted-kubeconfig` (the managed cluster's
//! kubeconfig for that Klusterlet). The cluster is imported once the Klusterlet reports
//! `ReadyToApply` through the work's status feedback; the auto-import secret then goes unless
//! it is to be kept.

use fleetctl_api::ManagedCluster;
use fleetctl_api::ManifestWork;
use fleetctl_api::names::{
    ANNOTATION_HOSTING_CLUSTER, ANNOTATION_KEEPING_AUTO_IMPORT_SECRET, AUTO_IMPORT_KEY_KUBECONFIG, AUTO_IMPORT_SECRET,
    hosted_klusterlet_work,
};
use fleetctl_kube::kube_error;
use fleetctl_kube::kubeconfig::secret_text;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams};
use serde_json::Value;

use crate::context::{Ctx, HUB, HubError};
use crate::works;

/// How far the import of a hosted cluster has come.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Progress {
    /// Its works are written; the message says what it waits for.
    Importing(&'static str),
    /// The hosting cluster runs its Klusterlet, which reaches the managed cluster.
    Imported,
}

/// The hosting cluster of a Hosted-mode cluster, checked: named, not the cluster itself, a
/// managed cluster of this hub that is not being deleted. [`HubError::Hosting`] says what to
/// fix.
pub(super) async fn hosting_cluster(ctx: &Ctx, cluster: &ManagedCluster) -> Result<String, HubError> {
    let name = cluster.name_any();
    let refuse = |why: String| HubError::Hosting { cluster: name.clone(), why };
    let hosting = cluster.hosting_cluster().ok_or_else(|| {
        refuse(format!(
            "it asks for Hosted mode without naming the managed cluster its agents run on: annotate it with \
             {ANNOTATION_HOSTING_CLUSTER}"
        ))
    })?;
    if hosting == name {
        return Err(refuse(format!("{ANNOTATION_HOSTING_CLUSTER} names the cluster itself: name another cluster")));
    }
    let found = Api::<ManagedCluster>::all(ctx.client.clone())
        .get_opt(hosting)
        .await
        .map_err(kube_error(format!("reading the hosting cluster {hosting}")))?;
    match found {
        None => {
            Err(refuse(format!("its hosting cluster {hosting} is not a managed cluster of this hub: import it first")))
        }
        Some(found) if found.metadata.deletion_timestamp.is_some() => {
            Err(refuse(format!("its hosting cluster {hosting} is being deleted")))
        }
        Some(_) => Ok(hosting.to_string()),
    }
}

/// Writes the hosted cluster's works into its hosting cluster's namespace and says how far
/// the import has come; once imported, deletes the auto-import secret (unless kept).
pub(super) async fn import(
    ctx: &Ctx,
    cluster: &str,
    hosting: &str,
    import_objects: Vec<Value>,
    owner: &OwnerReference,
) -> Result<Progress, HubError> {
    let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), hosting);
    let klusterlet_work = works::hosted_klusterlet_work(cluster, hosting, import_objects, owner);
    ctx.written.apply(HUB, &works_api, &klusterlet_work).await?;
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), cluster);
    let auto_import = secrets
        .get_opt(AUTO_IMPORT_SECRET)
        .await
        .map_err(kube_error(format!("reading secret {cluster}/{AUTO_IMPORT_SECRET}")))?;
    if let Some(secret) = &auto_import {
        let kubeconfig = secret_text(secret).remove(AUTO_IMPORT_KEY_KUBECONFIG).ok_or_else(|| HubError::Hosting {
            cluster: cluster.to_string(),
            why: format!(
                "secret {cluster}/{AUTO_IMPORT_SECRET} has no {AUTO_IMPORT_KEY_KUBECONFIG} key, which Hosted mode \
                 hands to the hosting cluster: write the managed cluster's kubeconfig there"
            ),
        })?;
        let kubeconfig_work = works::hosted_kubeconfig_work(cluster, hosting, kubeconfig, owner);
        ctx.written.apply(HUB, &works_api, &kubeconfig_work).await?;
    }
    let name = hosted_klusterlet_work(cluster);
    let written = works_api.get_opt(&name).await.map_err(kube_error(format!("reading the work {hosting}/{name}")))?;
    let progress = progress(written.as_ref());
    if progress == Progress::Imported
        && let Some(secret) =
            auto_import.filter(|s| !s.annotations().contains_key(ANNOTATION_KEEPING_AUTO_IMPORT_SECRET))
    {
        fleetctl_kube::reconcile::delete(&secrets, &secret.name_any(), &DeleteParams::default()).await?;
        tracing::info!(%cluster, "hosted: the managed cluster's kubeconfig is on the hosting cluster, the auto-import secret deleted");
    }
    Ok(progress)
}

/// How far the import has come, as the hosted klusterlet work says (ACM's messages).
fn progress(work: Option<&ManifestWork>) -> Progress {
    let Some(work) = work.filter(|w| w.is_applied()) else {
        return Progress::Importing("Wait for importing resources to be available on the hosting cluster");
    };
    let ready = work.status.iter().flat_map(|s| &s.resource_status.manifests).any(|manifest| {
        manifest.resource_meta.kind == "Klusterlet"
            && manifest.status_feedback.values.iter().any(|value| {
                value.name == works::ready_to_apply_feedback()
                    && value.value.string.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("true"))
            })
    });
    match ready {
        true => Progress::Imported,
        false => Progress::Importing("Wait for the user to provide the external managed kubeconfig"),
    }
}

#[cfg(test)]
mod tests {
    use fleetctl_api::work::{
        FeedbackValue, FieldValue, ManifestCondition, ManifestResourceMeta, ManifestResourceStatus, ManifestWorkStatus,
        ValueType,
    };
    use fleetctl_api::{conditions as c, conditions::new_condition};

    use super::*;

    fn work(ready: Option<&str>) -> ManifestWork {
        let mut work = ManifestWork::for_cluster("c1", "c2-hosted-klusterlet", Vec::new());
        work.metadata.generation = Some(1);
        let values = ready
            .map(|status| FeedbackValue {
                name: "ReadyToApply-status".into(),
                value: FieldValue { type_: ValueType::String, string: Some(status.into()), ..FieldValue::default() },
            })
            .into_iter()
            .collect();
        let manifest = ManifestCondition {
            resource_meta: ManifestResourceMeta { kind: "Klusterlet".into(), ..ManifestResourceMeta::default() },
            status_feedback: fleetctl_api::work::StatusFeedbackResult { values },
            conditions: Vec::new(),
        };
        let applied = k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
            observed_generation: Some(1),
            ..new_condition(c::WORK_APPLIED, c::TRUE, "AppliedManifestWorkComplete", "applied")
        };
        work.status = Some(ManifestWorkStatus {
            conditions: vec![applied],
            resource_status: ManifestResourceStatus { manifests: vec![manifest] },
        });
        work
    }

    #[test]
    fn a_hosted_cluster_is_imported_once_its_klusterlet_reports_ready_to_apply_as_acm_reads_it() {
        assert!(matches!(progress(None), Progress::Importing(m) if m.contains("hosting cluster")));
        assert!(
            matches!(progress(Some(&work(None))), Progress::Importing(m) if m.contains("external managed kubeconfig"))
        );
        assert!(matches!(progress(Some(&work(Some("False")))), Progress::Importing(_)));
        assert_eq!(progress(Some(&work(Some("True")))), Progress::Imported);
        let mut unapplied = work(Some("True"));
        unapplied.metadata.generation = Some(2);
        assert!(matches!(progress(Some(&unapplied)), Progress::Importing(_)), "applied at an older generation");
    }
}
