//! Act III, driven from outside: delete the ManagedCluster and follow the hub's cleanup
//! until the namespace is gone; when the target cannot take part, clean the hub by force
//! and say what is left on the target — or remove it there directly.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use super::hosted;
use super::import::runs_import_controller;
use super::{DryRun, LifecycleError, Observer, Outcome, Progress, join, step, wait_for};
use fleetctl_agent::operator::cleanup::BOOTSTRAP_KUBECONFIG_ROLE;
use fleetctl_agent::operator::render::{REGISTRATION_CLUSTER_ROLE, WORK_ROLE};
use fleetctl_api::names::{AGENT_NAMESPACE, BOOTSTRAP_SECRET, KLUSTERLET, import_secret};
use fleetctl_api::{AppliedManifestWork, Klusterlet, ManagedCluster, conditions as c};
use fleetctl_hub::cleanup::deletes_namespace;
use fleetctl_hub::import::manifests;
use fleetctl_kube::reconcile::{delete, strip_finalizers};
use fleetctl_kube::{ApplyOptions, delete_all, kube_error, parse_documents};

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
    /// Say the writes instead of making them.
    pub dry_run: Option<DryRun>,
}

/// What the klusterlet leaves on a managed cluster, which [`unjoin`] removes: the agent
/// namespaces (the agents, their hub credentials and private key), its cluster-wide RBAC,
/// and its CRDs (the Klusterlet is removed first, so that its operator can clean up).
pub(super) const TARGET_NAMESPACES: [&str; 2] = [AGENT_NAMESPACE, "open-cluster-management-agent-addon"];
pub(super) const TARGET_CLUSTER_RBAC: [&str; 4] =
    [KLUSTERLET, BOOTSTRAP_KUBECONFIG_ROLE, REGISTRATION_CLUSTER_ROLE, WORK_ROLE];
pub(super) const TARGET_CRDS: [&str; 2] =
    ["klusterlets.operator.open-cluster-management.io", "appliedmanifestworks.work.open-cluster-management.io"];

/// The time kept, at the end of a detach's timeout, to read and name what the target still
/// holds (so the command says it before its own deadline ends it).
const NAMING: Duration = Duration::from_secs(1);

/// The leftovers on a target detach could not reach, and how to remove them.
fn leftovers_hint(name: &str) -> String {
    format!(
        "left on the target, which did not answer: the Klusterlet {KLUSTERLET}, namespaces {} (the agents and \
         their hub credentials), ClusterRoles and ClusterRoleBindings {}, CRDs {} — remove them with \
         `fleetctl detach {name} --cluster-kubeconfig FILE` against the target",
        TARGET_NAMESPACES.join(", "),
        TARGET_CLUSTER_RBAC.join(", "),
        TARGET_CRDS.join(", ")
    )
}

/// Detaches one cluster. A cluster the hub no longer knows (after a forced detach) is
/// removed from the target alone, when the target is given.
pub async fn detach(
    hub: &Client,
    target: Option<&Client>,
    options: &DetachOptions,
    observer: Observer<'_>,
) -> Result<Outcome, LifecycleError> {
    let started = std::time::Instant::now();
    let name = options.name.as_str();
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
        return match target {
            Some(_) if options.dry_run.is_some() => Ok(Outcome::dry_run(
                name,
                "would remove the klusterlet from the target".into(),
                vec![format!("target: delete the Klusterlet, {}, their RBAC and CRDs", TARGET_NAMESPACES.join(", "))],
            )),
            Some(target) => leave_target(target, name, options, observer).await,
            None => Err(LifecycleError::Refused(format!(
                "cluster {name} not found — list them with `fleetctl get clusters`"
            ))),
        };
    };
    // The server sets a uid on every object it stores; the check is for a hub that does not.
    let uid = cluster
        .uid()
        .ok_or_else(|| LifecycleError::Failed(format!("the hub returned cluster {name} without a uid")))?;
    // Before anything goes: whether the target is this cluster, to watch it leave; and
    // whether the hub will delete the cluster namespace (one it made for the cluster).
    // A target that does not answer soon (stopped, say) is not waited for: it gets a quarter
    // of the timeout, and the hub tells the rest.
    let probe = async {
        match target {
            Some(target) => {
                tokio::time::timeout(options.timeout / 4, holds_klusterlet_of(target, name)).await.ok().flatten()
            }
            None => None,
        }
    };
    let holds = probe.await;
    let watched = target.filter(|_| holds == Some(true));
    // A target that did not answer is not cleaned directly either: it would not answer then.
    let reachable = target.filter(|_| holds.is_some());
    let namespaces: Api<Namespace> = Api::all(hub.clone());
    let namespace = namespaces.get_opt(name).await.map_err(kube_error(format!("reading namespace {name}")))?;
    let namespace_goes = namespace.as_ref().is_some_and(|ns| deletes_namespace(&cluster, ns));
    // On a hub without an import controller (plain OCM) nothing removes the klusterlet from
    // the target: detach does, as `clusteradm unjoin` would.
    let unjoins = !runs_import_controller(hub).await?;
    if let Some(dry_run) = options.dry_run {
        if dry_run.sends() {
            let params = DeleteParams { dry_run: true, ..DeleteParams::background() };
            clusters.delete(name, &params).await.map_err(kube_error(format!("deleting cluster {name} (dry run)")))?;
        }
        let mut writes = vec![format!(
            "hub: delete ManagedCluster {name}; the hub then removes its works (the klusterlet leaves the target), \
             the agents' rights, lease and import secret"
        )];
        if namespace_goes {
            writes.push(format!("hub: namespace {name} goes with the cluster (it was made for it)"));
        }
        if unjoins && target.is_some() {
            writes.push("target: once the works are gone, remove the klusterlet (as clusteradm unjoin)".to_string());
        }
        return Ok(Outcome::dry_run(name, "would detach".into(), writes));
    }
    // What the import applied on the target, read while the hub still holds it.
    let imported = match watched.filter(|_| !unjoins) {
        Some(_) => imported_objects(hub, name).await.unwrap_or_else(|why| {
            observer(Progress::Note { cluster: name.to_string(), message: why });
            Vec::new()
        }),
        None => Vec::new(),
    };
    let mut steps = Vec::new();
    // On a hub clusters join, the registration agent would join again with its bootstrap
    // kubeconfig once the hub lets go of the cluster (the hub's token lives an hour): that
    // kubeconfig goes first, which the import wrote.
    if let Some(target) = watched.filter(|_| unjoins) {
        let secrets: Api<Secret> = Api::namespaced(target.clone(), AGENT_NAMESPACE);
        step(observer, &mut steps, name, "target: bootstrap kubeconfig removed", async {
            Ok(delete(&secrets, BOOTSTRAP_SECRET, &DeleteParams::background()).await?)
        })
        .await?;
    }
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
            writes: Vec::new(),
        });
    }
    if let Some(target) = watched.filter(|_| unjoins) {
        let works = join::works_gone(hub, name, options.timeout);
        step(observer, &mut steps, name, "hub: the cluster's works removed", works).await?;
        step(
            observer,
            &mut steps,
            name,
            "target: klusterlet removed (as clusteradm unjoin)",
            unjoin(target, options.timeout),
        )
        .await?;
    }
    let gone =
        move |uid: String| move |c: Option<&ManagedCluster>| c.is_none_or(|c| c.uid().as_deref() != Some(uid.as_str()));
    let graceful = step(
        observer,
        &mut steps,
        name,
        "agents removed, hub cleaned",
        agents_leave(&clusters, name, gone(uid.clone()), watched, options.timeout),
    )
    .await;
    let mut target_cleaned = false;
    match graceful {
        // The hub let go; with the target in hand, the cluster is detached once the target
        // holds nothing of the klusterlet either (an operator that died mid-cleanup leaves
        // its Klusterlet on its finalizer for good).
        Ok(()) => {
            // Hosted: the hosting cluster's operator has cleaned the target with the access
            // the import made there, which goes now.
            if let Some(target) = reachable.filter(|_| cluster.is_hosted()) {
                let budget = options.timeout.saturating_sub(started.elapsed());
                let left = hosted::leave(target, name, budget);
                step(observer, &mut steps, name, "target: the hosting cluster's access removed", left).await?;
            }
            if let Some(target) = watched {
                // What the hub left of the timeout, less the time to name what is left.
                let budget = options.timeout.saturating_sub(started.elapsed()).saturating_sub(NAMING);
                let left = target_left(target, name, options, budget);
                step(observer, &mut steps, name, "target: klusterlet gone", left).await?;
                step(observer, &mut steps, name, "target: what the import applied removed", async {
                    Ok(delete_all(target, &imported, &ApplyOptions::default()).await?)
                })
                .await?;
            }
            target_cleaned = true;
        }
        Err(LifecycleError::Timeout { .. }) if options.force => {
            let note = |message: String| observer(Progress::Note { cluster: name.to_string(), message });
            note("the agents did not answer in time: cleaning the hub by force".into());
            if let Some(target) = reachable {
                let removed = step(
                    observer,
                    &mut steps,
                    name,
                    "target: klusterlet removed directly",
                    unjoin(target, options.timeout),
                )
                .await;
                match removed {
                    Ok(()) => target_cleaned = true,
                    Err(e) => note(format!("the target could not be cleaned: {}", fleetctl_kube::errors::chain(&e))),
                }
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
    if namespace_goes {
        let what = format!("namespace {name} to be deleted");
        step(observer, &mut steps, name, "hub: namespace removed", async {
            wait_for(namespaces, name, &what, options.timeout, |n: Option<&Namespace>| n.is_none()).await.map(|_| ())
        })
        .await?;
    } else if namespace.is_some() {
        let message = format!("namespace {name} is kept: it was not made for the cluster, or the cluster retains it");
        observer(Progress::Note { cluster: name.to_string(), message });
    }
    let result = if target_cleaned {
        "detached".to_string()
    } else {
        let hint = leftovers_hint(name);
        observer(Progress::Note { cluster: name.to_string(), message: hint.clone() });
        format!("hub cleaned; {hint}")
    };
    Ok(Outcome { cluster: name.to_string(), result, steps, conditions: Vec::new(), writes: Vec::new() })
}

/// Removes the klusterlet of a cluster the hub no longer knows from the target — refusing
/// a target that is joined as another cluster.
async fn leave_target(
    target: &Client,
    name: &str,
    options: &DetachOptions,
    observer: Observer<'_>,
) -> Result<Outcome, LifecycleError> {
    let joined_as = match target_klusterlet(target).await {
        // Without one (or its CRD), parts of a klusterlet may remain.
        Ok(klusterlet) => klusterlet.map(|k| k.spec.cluster_name),
        Err(source) => return Err(LifecycleError::NotAnswering { cluster: "target cluster", source }),
    };
    if let Some(other) = joined_as.filter(|joined| joined != name) {
        return Err(LifecycleError::Refused(format!(
            "the hub does not know cluster {name}, and the target is joined as cluster {other:?}: \
             is this the right kubeconfig?"
        )));
    }
    let mut steps = Vec::new();
    step(observer, &mut steps, name, "target: klusterlet removed directly", unjoin(target, options.timeout)).await?;
    Ok(Outcome {
        cluster: name.to_string(),
        result: format!("removed from the target (the hub had no cluster {name})"),
        steps,
        conditions: Vec::new(),
        writes: Vec::new(),
    })
}

/// Waits for the agents to leave and the hub to clean up. Holding the target (`watched`:
/// one that held the cluster's klusterlet when the detach began), it need not wait for the
/// hub to notice a registration agent that died: once the target holds nothing of the
/// klusterlet, it tells the hub (as the agent would have), which then finishes at once
/// rather than after the lease grace.
async fn agents_leave(
    clusters: &Api<ManagedCluster>,
    name: &str,
    gone: impl Fn(Option<&ManagedCluster>) -> bool + Send + 'static,
    watched: Option<&Client>,
    timeout: Duration,
) -> Result<(), LifecycleError> {
    let what = format!("the agents of {name} to leave and the hub to clean up");
    let hub_done = wait_for(clusters.clone(), name, &what, timeout, gone);
    let Some(target) = watched else { return hub_done.await.map(|_| ()) };
    tokio::pin!(hub_done);
    tokio::select! {
        done = &mut hub_done => return done.map(|_| ()),
        () = target_clean(target, timeout) => {}
    }
    tracing::info!("the target holds nothing of the klusterlet: telling the hub");
    mark_unavailable(
        clusters,
        name,
        c::FALSE,
        c::REASON_KLUSTERLET_REMOVED,
        "The klusterlet was removed from the managed cluster (seen by fleetctl detach)",
    )
    .await?;
    hub_done.await.map(|_| ())
}

/// Whether the target holds the klusterlet of cluster `name`: only then can detach see it
/// leave (a target without it may be another cluster); `None` when it does not answer,
/// which tells nothing.
async fn holds_klusterlet_of(target: &Client, name: &str) -> Option<bool> {
    match target_klusterlet(target).await {
        Ok(klusterlet) => Some(klusterlet.is_some_and(|k| k.spec.cluster_name == name)),
        Err(e) => {
            tracing::debug!("cannot read the target's klusterlet: {e}");
            None
        }
    }
}

/// Resolves once the target holds nothing of the klusterlet any more. If the target stops
/// answering, it never resolves: then only the hub can tell.
async fn target_clean(target: &Client, timeout: Duration) {
    if let Err(e) = klusterlet_gone(target, timeout).await {
        tracing::debug!("cannot see the target clean itself: {}", fleetctl_kube::errors::chain(&e));
        std::future::pending::<()>().await;
    }
}

/// Waits until the target holds nothing of the klusterlet: the Klusterlet gone (its
/// operator has removed the agents), then the agent namespace gone — not merely going: the
/// import manifests applied into a namespace still terminating are refused, so an import
/// right after a detach would fail.
async fn klusterlet_gone(target: &Client, timeout: Duration) -> Result<(), LifecycleError> {
    let klusterlets: Api<Klusterlet> = Api::all(target.clone());
    let namespaces: Api<Namespace> = Api::all(target.clone());
    let started = tokio::time::Instant::now();
    match wait_for(klusterlets, KLUSTERLET, "the klusterlet to go", timeout, |k| k.is_none()).await {
        Ok(_) => {}
        // Its CRD went too (a CRD's objects go first): the watch cannot start or ends.
        Err(LifecycleError::Watch { .. }) if matches!(target_klusterlet(target).await, Ok(None)) => {}
        Err(e) => return Err(e),
    }
    let left = timeout.saturating_sub(started.elapsed());
    wait_for(namespaces, AGENT_NAMESPACE, "the agent namespace to go", left, |n: Option<&Namespace>| n.is_none())
        .await
        .map(|_| ())
}

/// The target's Klusterlet; `None` too when the target does not serve Klusterlets (its
/// CRD never installed, or gone already).
async fn target_klusterlet(target: &Client) -> Result<Option<Klusterlet>, kube::Error> {
    match Api::<Klusterlet>::all(target.clone()).get_opt(KLUSTERLET).await {
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(None),
        other => other,
    }
}

/// After the hub let go of the cluster: waits for the target to clean itself; when it does
/// not in time, removes the klusterlet there directly under `--force`, and otherwise names
/// what is left (a rerun of the same command removes it: the hub no longer knows the
/// cluster, so detach goes to the target alone).
async fn target_left(
    target: &Client,
    name: &str,
    options: &DetachOptions,
    budget: Duration,
) -> Result<(), LifecycleError> {
    match klusterlet_gone(target, budget).await {
        Ok(()) => Ok(()),
        Err(LifecycleError::Timeout { .. }) if options.force => unjoin(target, options.timeout).await,
        Err(LifecycleError::Timeout { after, .. }) => {
            Err(LifecycleError::LeftOnTarget { cluster: name.to_string(), left: leftovers(target).await, after })
        }
        Err(e) => Err(e),
    }
}

/// The objects the import applied on the target, as the import secret on the hub lists
/// them (`crds.yaml`, `import.yaml`): their identities only — the secret's credentials are
/// not kept — and no Namespaces (the klusterlet operator removes the agents' own, and one
/// that existed before the import is not the import's). A detach removes what of them is
/// left once the klusterlet has cleaned up: under ACM, whose klusterlet work orphans them,
/// its ClusterRoles and bindings stay otherwise. Says why when the secret cannot be read.
async fn imported_objects(hub: &Client, name: &str) -> Result<Vec<serde_json::Value>, String> {
    let secret_name = import_secret(name);
    let unreadable = |why: String| {
        format!(
            "cannot read the import secret {name}/{secret_name} ({why}): what the import applied on the target beyond \
             the klusterlet stays there"
        )
    };
    let secret = Api::<Secret>::namespaced(hub.clone(), name)
        .get_opt(&secret_name)
        .await
        .map_err(|e| unreadable(e.to_string()))?
        .ok_or_else(|| unreadable("not found".into()))?;
    let (crds, import) = manifests(&secret).ok_or_else(|| unreadable("not rendered".into()))?;
    let mut identities = Vec::new();
    for text in [crds, import] {
        for object in parse_documents(&text).map_err(|e| unreadable(e.to_string()))? {
            let Some(kind) = object["kind"].as_str().filter(|kind| *kind != "Namespace") else { continue };
            let mut metadata = json!({"name": object["metadata"]["name"]});
            if let Some(namespace) = object["metadata"]["namespace"].as_str() {
                metadata["namespace"] = json!(namespace);
            }
            identities.push(json!({"apiVersion": object["apiVersion"], "kind": kind, "metadata": metadata}));
        }
    }
    Ok(identities)
}

/// What of the klusterlet the target still holds, in words (a Klusterlet with the
/// finalizers that hold it).
async fn leftovers(target: &Client) -> Vec<String> {
    let mut left = Vec::new();
    match target_klusterlet(target).await {
        Ok(Some(klusterlet)) if klusterlet.finalizers().is_empty() => left.push(format!("Klusterlet {KLUSTERLET}")),
        Ok(Some(klusterlet)) => left.push(format!(
            "Klusterlet {KLUSTERLET} (held by its finalizers {}: no operator is there to release them)",
            klusterlet.finalizers().join(", ")
        )),
        Ok(None) => {}
        Err(e) => left.push(format!("Klusterlet {KLUSTERLET} (cannot read it: {e})")),
    }
    for namespace in TARGET_NAMESPACES {
        match Api::<Namespace>::all(target.clone()).get_opt(namespace).await {
            Ok(Some(ns)) if ns.metadata.deletion_timestamp.is_none() => left.push(format!("namespace {namespace}")),
            Ok(Some(_)) => left.push(format!("namespace {namespace} (still being deleted)")),
            Ok(None) => {}
            Err(e) => left.push(format!("namespace {namespace} (cannot read it: {e})")),
        }
    }
    for crd in TARGET_CRDS {
        match Api::<CustomResourceDefinition>::all(target.clone()).get_opt(crd).await {
            Ok(Some(_)) => left.push(format!("CRD {crd}")),
            Ok(None) => {}
            Err(e) => left.push(format!("CRD {crd} (cannot read it: {e})")),
        }
    }
    left
}

/// Sets the cluster's Available condition as its agent would (a cluster already gone is
/// fine: there is nothing left to tell).
async fn mark_unavailable(
    clusters: &Api<ManagedCluster>,
    name: &str,
    status: &str,
    reason: &str,
    message: &str,
) -> Result<(), LifecycleError> {
    let Some(cluster) = clusters.get_opt(name).await.map_err(kube_error(format!("reading cluster {name}")))? else {
        return Ok(());
    };
    let mut conditions = cluster.conditions().to_vec();
    c::set_condition(&mut conditions, c::new_condition(c::MANAGED_CLUSTER_AVAILABLE, status, reason, message));
    let patch = json!({"status": {"conditions": conditions}});
    match clusters.patch_status(name, &PatchParams::default(), &Patch::Merge(patch)).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(kube_error(format!("marking {name} unavailable"))(e).into()),
    }
}

/// Marks the cluster unavailable so the hub takes its force path, and waits for it to go.
pub(super) async fn force_hub(
    clusters: &Api<ManagedCluster>,
    name: &str,
    uid: &str,
    timeout: Duration,
) -> Result<(), LifecycleError> {
    let message = "Detached by force: the agents did not answer";
    mark_unavailable(clusters, name, c::UNKNOWN, c::REASON_LEASE_UPDATE_STOPPED, message).await?;
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
    match target_klusterlet(target).await {
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
    for namespace in TARGET_NAMESPACES {
        delete(&namespaces, namespace, &gone).await?;
    }
    for role in TARGET_CLUSTER_RBAC {
        delete(&Api::<ClusterRoleBinding>::all(target.clone()), role, &gone).await?;
        delete(&Api::<ClusterRole>::all(target.clone()), role, &gone).await?;
    }
    let crds: Api<CustomResourceDefinition> = Api::all(target.clone());
    for crd in TARGET_CRDS {
        delete(&crds, crd, &gone).await?;
    }
    Ok(())
}
