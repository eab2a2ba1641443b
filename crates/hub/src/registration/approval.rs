//! CSR approval: the hub approves a CSR only if it is from its cluster's bootstrap
//! identity (or the agent renewing its own certificate), asks the kube-apiserver-client
//! signer for exactly the agent's subject and usages, and its cluster accepts clients — or
//! is an addon agent's, asked by the cluster's agent for that addon's identity
//! ([`super::addon_csr`]); anything else is left pending with an Event saying why. A CSR left pending waits on its
//! cluster: a change of that cluster judges it again.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use fleetctl_api::conditions::{LABEL_ADDON_NAME, LABEL_CLUSTER_NAME};
use fleetctl_api::names::{AGENT_SIGNER as SIGNER, MANAGED_CLUSTERS_GROUP, agent_group, bootstrap_user};
use fleetctl_api::{ManagedCluster, ManagedClusterAddOn};
use fleetctl_kube::{controller, kube_error};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Resource, ResourceExt};
use parking_lot::Mutex;
use serde_json::json;

use super::addon_csr::addon_request;
use crate::context::{Ctx, HubError};
use crate::watches::Followed;

/// The name the approver's metrics and logs go by.
pub const CONTROLLER: &str = "csr";
/// The reason of our approvals, as upstream's import controller writes it.
pub const APPROVED_REASON: &str = "AutoApprovedByCSRController";

/// Runs the approver on the cluster CSRs, and on the clusters it follows for the CSRs
/// left pending, until the returned future is dropped.
pub async fn controller(ctx: Ctx, clusters: Followed, pending: Arc<PendingCsrs>) {
    let csrs = Api::<CertificateSigningRequest>::all(ctx.client.clone());
    let waiting = pending.clone();
    let controller = Controller::new(csrs, watcher::Config::default().labels(LABEL_CLUSTER_NAME))
        .watches_stream(clusters.changes, move |cluster: ManagedCluster| waiting.of(&cluster.name_any()));
    let reconcile = move |csr, ctx| approve(csr, ctx, pending.clone());
    controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()).await;
}

/// What the approver decides for a CSR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Already decided, or not a cluster CSR: nothing to do, nothing to say.
    Ignore,
    /// Approve it.
    Approve,
    /// Leave it pending, and say why in an Event.
    Refuse(String),
}

/// Whether a CSR was approved, denied or failed already.
fn decided(csr: &CertificateSigningRequest) -> bool {
    csr.status.as_ref().and_then(|s| s.conditions.as_ref()).is_some_and(|conditions| {
        conditions.iter().any(|c| matches!(c.type_.as_str(), "Approved" | "Denied" | "Failed"))
    })
}

/// The CSRs left pending, by cluster: a change of its cluster (accepted at last, say)
/// judges a CSR again, and only the CSRs of that cluster.
#[derive(Debug, Default)]
pub struct PendingCsrs(Mutex<HashMap<String, BTreeSet<String>>>);

impl PendingCsrs {
    /// The pending CSRs of `cluster`.
    pub fn of(&self, cluster: &str) -> Vec<ObjectRef<CertificateSigningRequest>> {
        self.0.lock().get(cluster).map_or_else(Vec::new, |csrs| csrs.iter().map(|csr| ObjectRef::new(csr)).collect())
    }

    /// Notes whether `csr` of `cluster` is left pending.
    fn note(&self, cluster: &str, csr: &str, pending: bool) {
        let mut by_cluster = self.0.lock();
        if pending {
            by_cluster.entry(cluster.to_string()).or_default().insert(csr.to_string());
        } else if let Some(csrs) = by_cluster.get_mut(cluster) {
            csrs.remove(csr);
            if csrs.is_empty() {
                by_cluster.remove(cluster);
            }
        }
    }

    /// Forgets the CSRs of a cluster that is detached (its CSRs are deleted with it).
    pub fn forget(&self, cluster: &str) {
        self.0.lock().remove(cluster);
    }
}

/// What the approver read of a CSR's cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    /// Whether the cluster exists (`None`: it does not) and accepts clients.
    pub cluster_accepts: Option<bool>,
    /// For an addon's CSR, whether the cluster has that addon (its ManagedClusterAddOn).
    pub addon_present: bool,
}

/// Judges a CSR against the rules, given what is known of its cluster.
pub fn judge(csr: &CertificateSigningRequest, known: Known) -> Verdict {
    let Some(cluster) = csr.labels().get(LABEL_CLUSTER_NAME).cloned() else { return Verdict::Ignore };
    if decided(csr) {
        return Verdict::Ignore;
    }
    match check(csr, &cluster, known) {
        Ok(()) => Verdict::Approve,
        Err(why) => Verdict::Refuse(why),
    }
}

fn check(csr: &CertificateSigningRequest, cluster: &str, known: Known) -> Result<(), String> {
    if let Some(addon) = csr.labels().get(LABEL_ADDON_NAME) {
        addon_request(csr, cluster, addon)?;
        if !known.addon_present {
            return Err(format!("managed cluster {cluster} has no addon {addon}"));
        }
    } else {
        let subject = agent_request(csr, cluster)?;
        let spec = &csr.spec;
        let requester = spec.username.clone().unwrap_or_default();
        let bootstrap = bootstrap_user(cluster);
        let renewal =
            requester == subject.common_name && spec.groups.iter().flatten().any(|g| *g == agent_group(cluster));
        if requester != bootstrap && !renewal {
            return Err(format!(
                "requester {requester:?} is neither {bootstrap} nor the agent renewing its own certificate"
            ));
        }
    }
    let cluster_accepts = known.cluster_accepts;
    match cluster_accepts {
        None => Err(format!("managed cluster {cluster} does not exist")),
        Some(false) => Err(format!("managed cluster {cluster} is not accepted by the hub")),
        Some(true) => Ok(()),
    }
}

/// Checks that a CSR asks for what a registration agent of `cluster` may have — a client
/// certificate of the hub's API server signer, CN `system:open-cluster-management:<cluster>:<agent id>`,
/// O the cluster's agent group and the managed clusters' group, client usages only —
/// whoever asked for it; its subject if so.
pub fn agent_request(
    csr: &CertificateSigningRequest,
    cluster: &str,
) -> Result<fleetctl_kube::certs::CsrSubject, String> {
    let spec = &csr.spec;
    if spec.signer_name != SIGNER {
        return Err(format!("signer {} is not {SIGNER}", spec.signer_name));
    }
    let pem = String::from_utf8(spec.request.0.clone()).map_err(|_| "the request is not PEM".to_string())?;
    let subject = fleetctl_kube::certs::parse_csr(&pem).map_err(|e| e.to_string())?;
    let prefix = format!("{}:", agent_group(cluster));
    let agent_id = subject.common_name.strip_prefix(&prefix).unwrap_or_default();
    if agent_id.is_empty() || agent_id.contains(':') {
        return Err(format!("common name {:?} is not {prefix}<agent id>", subject.common_name));
    }
    let mut organizations = subject.organizations.clone();
    organizations.sort();
    let mut expected = vec![agent_group(cluster), MANAGED_CLUSTERS_GROUP.to_string()];
    expected.sort();
    if organizations != expected {
        return Err(format!("organizations {:?} are not {expected:?}", subject.organizations));
    }
    let usages = spec.usages.clone().unwrap_or_default();
    let allowed = ["digital signature", "key encipherment", "client auth"];
    if let Some(bad) = usages.iter().find(|u| !allowed.contains(&u.as_str())) {
        return Err(format!("usage {bad:?} is not allowed for an agent certificate"));
    }
    if !usages.iter().any(|u| u == "client auth") {
        return Err("the usages lack client auth".into());
    }
    Ok(subject)
}

/// Approves or refuses one CSR.
async fn approve(csr: Arc<CertificateSigningRequest>, ctx: Ctx, pending: Arc<PendingCsrs>) -> Result<Action, HubError> {
    let Some(cluster) = csr.labels().get(LABEL_CLUSTER_NAME).cloned() else { return Ok(Action::await_change()) };
    let name = csr.name_any();
    if decided(&csr) {
        pending.note(&cluster, &name, false);
        return Ok(Action::await_change());
    }
    // Pending from before its cluster is read: a change of the cluster while it is judged
    // (accepted just then) brings it back, rather than falling between the read and the note.
    pending.note(&cluster, &name, true);
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    let managed = clusters.get_opt(&cluster).await.map_err(kube_error(format!("reading cluster {cluster}")))?;
    let accepts = managed.as_ref().map(|c| c.spec.hub_accepts_client && c.meta().deletion_timestamp.is_none());
    let addon_present = match csr.labels().get(LABEL_ADDON_NAME) {
        Some(addon) => Api::<ManagedClusterAddOn>::namespaced(ctx.client.clone(), &cluster)
            .get_opt(addon)
            .await
            .map_err(kube_error(format!("reading addon {addon} of cluster {cluster}")))?
            .is_some_and(|a| a.meta().deletion_timestamp.is_none()),
        None => false,
    };
    let verdict = judge(&csr, Known { cluster_accepts: accepts, addon_present });
    if !matches!(verdict, Verdict::Refuse(_)) {
        pending.note(&cluster, &name, false);
    }
    match verdict {
        Verdict::Ignore => {}
        Verdict::Approve => {
            let approval = json!({"status": {"conditions": [{
                "type": "Approved", "status": "True", "reason": APPROVED_REASON,
                "message": format!("Approved by the fleetctl hub for managed cluster {cluster}"),
                "lastUpdateTime": jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            }]}});
            Api::<CertificateSigningRequest>::all(ctx.client.clone())
                .patch_approval(&name, &PatchParams::default(), &Patch::Merge(approval))
                .await
                .map_err(kube_error(format!("approving csr {name}")))?;
            tracing::info!(csr = %name, cluster = %cluster, "approved");
            // A joined cluster's agent asking with the bootstrap identity lost or was refused
            // its certificate, or follows a moved hub or a rotated CA: the hub's record of it says so (best effort: the approval
            // stands whether or not the Event can be written).
            let bootstrap = bootstrap_user(&cluster);
            if let Some(joined) = managed.filter(|m| m.is_joined())
                && csr.spec.username.as_deref() == Some(bootstrap.as_str())
            {
                let event = Event {
                    type_: EventType::Warning,
                    reason: "ClusterRebootstrapping".into(),
                    note: Some(format!(
                        "the agent of joined cluster {cluster} bootstraps again (csr {name}): its hub credentials were \
                         lost, corrupted or refused, or its bootstrap kubeconfig names another hub or CA"
                    )),
                    action: "Approve".into(),
                    secondary: Some(csr.object_ref(&())),
                };
                if let Err(error) = ctx.recorder.publish(&event, &joined.object_ref(&())).await {
                    tracing::warn!(%cluster, error = %fleetctl_kube::errors::chain(&error), "recording a rebootstrap event");
                }
            }
        }
        Verdict::Refuse(why) => {
            tracing::info!(csr = %name, cluster = %cluster, %why, "left pending");
            let event = Event {
                type_: EventType::Warning,
                reason: "CSRNotApproved".into(),
                note: Some(why),
                action: "Approve".into(),
                secondary: None,
            };
            ctx.recorder
                .publish(&event, &csr.object_ref(&()))
                .await
                .map_err(kube_error(format!("recording an event for csr {name}")))?;
        }
    }
    Ok(Action::await_change())
}
