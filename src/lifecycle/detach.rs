//! Act III, driven from outside: delete the ManagedCluster and follow the hub's cleanup
//! until the namespace is gone; when the target cannot take part, clean the hub by force
//! and say what is left on the target — or remove it there directly.

use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use super::{LifecycleError, Observer, Outcome, Progress, kube_error, step, wait_for};
use fleetctl_api::names::AGENT_NAMESPACE;
use fleetctl_api::{AppliedManifestWork, Klusterlet, ManagedCluster, conditions as c};

/// How to detach.
#[derive(Debug, Clone)]
pub struct DetachOptions {
    /// The cluster.
    pub name: String,
    /// Follow the cleanup to the end.
    pub wait: bool,
    /// When the agents do not take part within the timeout, clean the hub anyway.
    pub force: bool,
    /// How long to wait for the agents.
    pub timeout: Duration,
}

async fn delete_ignoring_absent<K>(api: &Api<K>, name: &str) -> Result<(), LifecycleError>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("deleting {name}"))(e)),
    }
}

/// Detaches one cluster.
pub async fn detach(
    hub: &Client,
    target: Option<&Client>,
    options: &DetachOptions,
    observer: Observer<'_>,
) -> Result<Outcome, LifecycleError> {
    let name = options.name.as_str();
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
        return Err(LifecycleError::Refused(format!(
            "cluster {name} not found — list them with `fleetctl get clusters`"
        )));
    };
    let uid = cluster.uid().unwrap_or_default();
    let mut steps = Vec::new();
    step(observer, &mut steps, name, "hub: ManagedCluster deleted", delete_ignoring_absent(&clusters, name)).await?;
    if !options.wait {
        return Ok(Outcome {
            cluster: name.to_string(),
            result: "detach started".into(),
            steps,
            conditions: Vec::new(),
        });
    }
    let gone =
        move |uid: String| move |c: Option<&ManagedCluster>| c.is_none_or(|c| c.uid().as_deref() != Some(uid.as_str()));
    let what = format!("the agents of {name} to leave and the hub to clean up");
    let graceful = step(
        observer,
        &mut steps,
        name,
        "agents removed, hub cleaned",
        wait_for(clusters.clone(), name, &what, options.timeout, gone(uid.clone())),
    )
    .await;
    let mut target_cleaned = false;
    match graceful {
        Ok(_) => target_cleaned = true,
        Err(LifecycleError::Timeout { .. }) if options.force => {
            observer(Progress::Note {
                cluster: name.to_string(),
                message: "the agents did not answer in time: cleaning the hub by force".into(),
            });
            if let Some(target) = target {
                step(
                    observer,
                    &mut steps,
                    name,
                    "target: klusterlet removed directly",
                    unjoin(target, options.timeout),
                )
                .await?;
                target_cleaned = true;
            }
            step(
                observer,
                &mut steps,
                name,
                "hub: cleaned by force",
                force_hub(&clusters, name, &uid, options.timeout),
            )
            .await?;
        }
        Err(e) => return Err(e),
    }
    let namespaces: Api<Namespace> = Api::all(hub.clone());
    let what = format!("namespace {name} to be deleted");
    step(observer, &mut steps, name, "hub: namespace removed", async {
        wait_for(namespaces, name, &what, options.timeout, |n: Option<&Namespace>| n.is_none()).await.map(|_| ())
    })
    .await?;
    let result = if target_cleaned {
        "detached".to_string()
    } else {
        let hint = format!(
            "the klusterlet may still run on the target: remove it with `fleetctl detach {name} --force --cluster-kubeconfig FILE` against the target"
        );
        observer(Progress::Note { cluster: name.to_string(), message: hint.clone() });
        format!("hub cleaned; {hint}")
    };
    Ok(Outcome { cluster: name.to_string(), result, steps, conditions: Vec::new() })
}

/// Marks the cluster unavailable so the hub takes its force path, and waits for it to go.
async fn force_hub(
    clusters: &Api<ManagedCluster>,
    name: &str,
    uid: &str,
    timeout: Duration,
) -> Result<(), LifecycleError> {
    if let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? {
        let mut conditions = cluster.conditions().to_vec();
        c::set_condition(
            &mut conditions,
            c::new_condition(
                c::MANAGED_CLUSTER_AVAILABLE,
                c::UNKNOWN,
                c::REASON_LEASE_UPDATE_STOPPED,
                "Detached by force: the agents did not answer",
            ),
        );
        let patch = json!({"status": {"conditions": conditions}});
        match clusters.patch_status(name, &PatchParams::default(), &Patch::Merge(patch)).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.code == 404 => return Ok(()),
            Err(e) => return Err(kube_error(format!("marking {name} unavailable"))(e)),
        }
    }
    let uid = uid.to_string();
    let what = format!("the hub to clean up {name}");
    wait_for(clusters.clone(), name, &what, timeout, move |c: Option<&ManagedCluster>| {
        c.is_none_or(|c| c.uid().as_deref() != Some(uid.as_str()))
    })
    .await
    .map(|_| ())
}

/// Removes the klusterlet from the target directly, as `clusteradm unjoin` does: the
/// Klusterlet (its operator cleans up if it can), then whatever remains.
pub async fn unjoin(target: &Client, timeout: Duration) -> Result<(), LifecycleError> {
    let klusterlets: Api<Klusterlet> = Api::all(target.clone());
    match klusterlets.get_opt("klusterlet").await {
        Ok(Some(_)) => {
            delete_ignoring_absent(&klusterlets, "klusterlet").await?;
            let cleaned = wait_for(
                klusterlets.clone(),
                "klusterlet",
                "the klusterlet to be removed",
                timeout,
                |k: Option<&Klusterlet>| k.is_none(),
            )
            .await;
            if cleaned.is_err() {
                // The operator is not there to finish: release the Klusterlet ourselves.
                let release = Patch::Merge(json!({"metadata": {"finalizers": null}}));
                let _ = klusterlets.patch("klusterlet", &PatchParams::default(), &release).await;
            }
        }
        Ok(None) | Err(kube::Error::Api(_)) => {}
        Err(e) => return Err(kube_error("reading the target's klusterlet")(e)),
    }
    let applied: Api<AppliedManifestWork> = Api::all(target.clone());
    if let Ok(list) = applied.list(&ListParams::default()).await {
        for work in list.items {
            let release = Patch::Merge(json!({"metadata": {"finalizers": null}}));
            let _ = applied.patch(&work.name_any(), &PatchParams::default(), &release).await;
            delete_ignoring_absent(&applied, &work.name_any()).await?;
        }
    }
    let namespaces: Api<Namespace> = Api::all(target.clone());
    for namespace in [AGENT_NAMESPACE, "open-cluster-management-agent-addon"] {
        delete_ignoring_absent(&namespaces, namespace).await?;
    }
    for role in ["klusterlet", "klusterlet-bootstrap-kubeconfig", "open-cluster-management:klusterlet-work"] {
        delete_ignoring_absent(&Api::<ClusterRoleBinding>::all(target.clone()), role).await?;
        delete_ignoring_absent(&Api::<ClusterRole>::all(target.clone()), role).await?;
    }
    let crds: Api<CustomResourceDefinition> = Api::all(target.clone());
    for crd in
        ["klusterlets.operator.open-cluster-management.io", "appliedmanifestworks.work.open-cluster-management.io"]
    {
        delete_ignoring_absent(&crds, crd).await?;
    }
    Ok(())
}
