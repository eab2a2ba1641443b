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

use super::{LifecycleError, Observer, Outcome, Progress, step, wait_for};
use fleetctl_api::names::{AGENT_NAMESPACE, KLUSTERLET};
use fleetctl_api::{AppliedManifestWork, Klusterlet, ManagedCluster, conditions as c};
use fleetctl_kube::kube_error;
use fleetctl_kube::reconcile::{delete, strip_finalizers};

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
    // The server sets a uid on every object it stores; the check is for a hub that does not.
    let uid = cluster
        .uid()
        .ok_or_else(|| LifecycleError::Failed(format!("the hub returned cluster {name} without a uid")))?;
    let mut steps = Vec::new();
    step(observer, &mut steps, name, "hub: ManagedCluster deleted", async {
        Ok(delete(&clusters, name, &DeleteParams::background()).await?)
    })
    .await?;
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
            Err(e) => return Err(kube_error(format!("marking {name} unavailable"))(e).into()),
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
    let gone = DeleteParams::background();
    let klusterlets: Api<Klusterlet> = Api::all(target.clone());
    match klusterlets.get_opt(KLUSTERLET).await {
        Ok(Some(_)) => {
            delete(&klusterlets, KLUSTERLET, &gone).await?;
            let cleaned = wait_for(
                klusterlets.clone(),
                KLUSTERLET,
                "the klusterlet to be removed",
                timeout,
                |k: Option<&Klusterlet>| k.is_none(),
            )
            .await;
            match cleaned {
                Ok(_) => {}
                // The operator is not there to finish: release the Klusterlet ourselves.
                Err(LifecycleError::Timeout { .. }) => strip_finalizers(&klusterlets, KLUSTERLET).await?,
                Err(e) => return Err(e),
            }
        }
        Ok(None) => {}
        // No Klusterlet CRD: the operator was never installed, or is gone already.
        Err(kube::Error::Api(status)) if status.code == 404 => {}
        Err(e) => return Err(kube_error("reading the target's klusterlet")(e).into()),
    }
    let applied: Api<AppliedManifestWork> = Api::all(target.clone());
    let works = match applied.list(&ListParams::default()).await {
        Ok(list) => list.items,
        // No AppliedManifestWork CRD: no work agent ever applied anything here.
        Err(kube::Error::Api(status)) if status.code == 404 => Vec::new(),
        Err(e) => return Err(kube_error("listing the target's applied works")(e).into()),
    };
    for work in works {
        let name = work.name_any();
        strip_finalizers(&applied, &name).await?;
        delete(&applied, &name, &gone).await?;
    }
    let namespaces: Api<Namespace> = Api::all(target.clone());
    for namespace in [AGENT_NAMESPACE, "open-cluster-management-agent-addon"] {
        delete(&namespaces, namespace, &gone).await?;
    }
    for role in [KLUSTERLET, "klusterlet-bootstrap-kubeconfig", "open-cluster-management:klusterlet-work"] {
        delete(&Api::<ClusterRoleBinding>::all(target.clone()), role, &gone).await?;
        delete(&Api::<ClusterRole>::all(target.clone()), role, &gone).await?;
    }
    let crds: Api<CustomResourceDefinition> = Api::all(target.clone());
    for crd in
        ["klusterlets.operator.open-cluster-management.io", "appliedmanifestworks.work.open-cluster-management.io"]
    {
        delete(&crds, crd, &gone).await?;
    }
    Ok(())
}
