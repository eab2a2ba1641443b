//! Registration on the hub: accepting a cluster (condition, finalizer, the RBAC that
//! confines its agent, its lease) and approving exactly the CSRs its agent may make.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use fleetctl_api::conditions::{
    self as c, FINALIZER_API_RESOURCE_CLEANUP, FINALIZER_IMPORT_CLEANUP, LABEL_CLUSTER_NAME,
};
use fleetctl_kube::objects::{self, MetaExt, labels, meta, named_rule, namespaced_meta, rule};
use fleetctl_kube::reconcile::delete;
use fleetctl_kube::{kube_error, update_conditions};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::reflector::ObjectRef;
use kube::{Resource, ResourceExt};
use parking_lot::Mutex;
use serde_json::json;

use super::context::{Ctx, HUB, HubError, set};
use fleetctl_api::names::CLUSTER_LEASE;
use fleetctl_api::{ADDON_GROUP, CLUSTER_GROUP, ManagedCluster, REGISTER_GROUP, WORK_GROUP};

/// The signer agents ask for.
pub const SIGNER: &str = "kubernetes.io/kube-apiserver-client";
/// The group every agent certificate carries.
pub const MANAGED_CLUSTERS_GROUP: &str = "system:open-cluster-management:managed-clusters";
/// The reason of our approvals, as upstream's import controller writes it.
pub const APPROVED_REASON: &str = "AutoApprovedByCSRController";

/// The group of a cluster's agent.
pub fn agent_group(cluster: &str) -> String {
    format!("system:open-cluster-management:{cluster}")
}

/// The ClusterRole and ClusterRoleBinding confining a cluster's agent on the hub.
pub fn agent_role_name(cluster: &str) -> String {
    format!("open-cluster-management:managedcluster:{cluster}")
}

fn role_binding_names(cluster: &str) -> [String; 2] {
    [format!("{}:registration", agent_role_name(cluster)), format!("{}:work", agent_role_name(cluster))]
}

fn agent_subject(cluster: &str) -> Vec<Subject> {
    vec![objects::group_subject(&agent_group(cluster))]
}

/// The RBAC of one agent: cluster-wide role and binding, and the namespaced pairs.
pub struct AgentRbac {
    /// Its own ManagedCluster and CSRs.
    pub cluster_role: ClusterRole,
    /// Binds the agent's group to `cluster_role`.
    pub cluster_binding: ClusterRoleBinding,
    /// Registration and work roles in the cluster's namespace, with their bindings.
    pub roles: Vec<(Role, RoleBinding)>,
}

/// The agent's RBAC: its own ManagedCluster (and status) cluster-wide; in its namespace
/// leases, events, its ManifestWorks (with status and finalizers) and addons.
pub fn agent_rbac(cluster: &str) -> AgentRbac {
    const READ_WRITE: &[&str] = &["get", "list", "watch", "update", "patch"];
    const STATUS: &[&str] = &["get", "update", "patch"];
    const EVENTS: &[&str] = &["create", "patch", "update"];
    let role = agent_role_name(cluster);
    let ours = || labels([(LABEL_CLUSTER_NAME, cluster)]);
    let cluster_role = objects::cluster_role(
        meta(&role).with_labels(ours()),
        vec![
            // `update` as upstream grants it: the admission policy keeps the agent off the
            // fields that are the hub's (labels, acceptance, lease, taints).
            named_rule(&[CLUSTER_GROUP], &["managedclusters"], &[cluster], &["get", "list", "watch", "update"]),
            named_rule(&[CLUSTER_GROUP], &["managedclusters/status"], &[cluster], STATUS),
            rule(&["certificates.k8s.io"], &["certificatesigningrequests"], &["create", "get", "list", "watch"]),
            named_rule(&[REGISTER_GROUP], &["managedclusters/clientcertificates"], &[cluster], &["renew"]),
        ],
    );
    let cluster_binding = objects::cluster_role_binding(meta(&role).with_labels(ours()), &role, agent_subject(cluster));
    let [registration, work] = role_binding_names(cluster);
    let namespaced = [
        (
            registration,
            vec![
                rule(&["coordination.k8s.io"], &["leases"], READ_WRITE),
                rule(&["", "events.k8s.io"], &["events"], EVENTS),
                rule(&[ADDON_GROUP], &["managedclusteraddons"], &["get", "list", "watch"]),
                rule(&[ADDON_GROUP], &["managedclusteraddons/status"], STATUS),
            ],
        ),
        (
            work,
            vec![
                rule(&[WORK_GROUP], &["manifestworks"], READ_WRITE),
                rule(&[WORK_GROUP], &["manifestworks/status"], STATUS),
                rule(&[WORK_GROUP], &["manifestworks/finalizers"], &["update"]),
                rule(&["", "events.k8s.io"], &["events"], EVENTS),
            ],
        ),
    ];
    let roles = namespaced
        .into_iter()
        .map(|(name, rules)| {
            let meta = || namespaced_meta(cluster, &name).with_labels(ours());
            (objects::role(meta(), rules), objects::role_binding(meta(), &name, agent_subject(cluster)))
        })
        .collect();
    AgentRbac { cluster_role, cluster_binding, roles }
}

/// Registration of one cluster, behind the finalizer
/// `cluster.open-cluster-management.io/api-resource-cleanup`: an accepted cluster gets
/// HubAccepted, the agent RBAC and its lease; a cluster the admin does not accept is told
/// so; a cluster being deleted keeps its agent's rights until the import controller has
/// finished the detach (the agents need them to remove themselves), then loses them.
pub async fn accept(cluster: Arc<ManagedCluster>, ctx: Ctx) -> Result<Action, finalizer::Error<HubError>> {
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    if !cluster.spec.hub_accepts_client && cluster.meta().deletion_timestamp.is_none() {
        return deny(&clusters, &cluster).await.map_err(finalizer::Error::ApplyFailed);
    }
    finalizer(&clusters, FINALIZER_API_RESOURCE_CLEANUP, cluster, |event| async {
        match event {
            finalizer::Event::Apply(cluster) => admit(&clusters, &cluster, &ctx).await,
            finalizer::Event::Cleanup(cluster) => revoke(&cluster, &ctx).await,
        }
    })
    .await
}

async fn deny(clusters: &Api<ManagedCluster>, cluster: &ManagedCluster) -> Result<Action, HubError> {
    update_conditions(clusters, cluster, |conditions| {
        set(
            conditions,
            c::MANAGED_CLUSTER_HUB_ACCEPTED,
            c::FALSE,
            c::REASON_HUB_CLUSTER_ADMIN_DENIED,
            "Denied by hub cluster admin",
        )
    })
    .await?;
    Ok(Action::await_change())
}

async fn admit(clusters: &Api<ManagedCluster>, cluster: &ManagedCluster, ctx: &Ctx) -> Result<Action, HubError> {
    let name = cluster.name_any();
    // Defence in depth: `hubAcceptsClient` means "accepted by someone allowed to" only
    // while the admission rule enforces it; without it, nobody is accepted.
    if let Some(problem) = ctx.accept_rule_problem() {
        let message = format!(
            "not accepted: {problem} (the admission rule that makes accepting a cluster need the right to update \
             managedclusters/accept) — run `fleetctl hub install`"
        );
        update_conditions(clusters, cluster, |conditions| {
            set(conditions, c::MANAGED_CLUSTER_HUB_ACCEPTED, c::FALSE, c::REASON_ERROR, &message)
        })
        .await?;
        return Ok(Action::await_change());
    }
    // The namespaced roles need the cluster namespace; the import controller makes it
    // too, whichever runs first.
    super::import::ensure_namespace(ctx, &name).await?;
    let rbac = agent_rbac(&name);
    let (written, client) = (&ctx.written, &ctx.client);
    // Independent writes go out together: a binding may name a role not yet written, as
    // RBAC resolves the role when it authorizes.
    let (roles, bindings): (Vec<_>, Vec<_>) = rbac.roles.into_iter().unzip();
    let (cluster_roles, cluster_bindings) =
        (Api::<ClusterRole>::all(client.clone()), Api::<ClusterRoleBinding>::all(client.clone()));
    let namespaced_roles = Api::<Role>::namespaced(client.clone(), &name);
    let namespaced_bindings = Api::<RoleBinding>::namespaced(client.clone(), &name);
    let rbac_written = async {
        futures::try_join!(
            written.apply(HUB, &cluster_roles, &rbac.cluster_role),
            written.apply(HUB, &cluster_bindings, &rbac.cluster_binding),
            futures::future::try_join_all(roles.iter().map(|role| written.apply(HUB, &namespaced_roles, role))),
            futures::future::try_join_all(bindings.iter().map(|b| written.apply(HUB, &namespaced_bindings, b))),
        )?;
        Ok::<(), HubError>(())
    };
    futures::try_join!(rbac_written, ensure_lease(ctx, &name))?;
    update_conditions(clusters, cluster, |conditions| {
        set(
            conditions,
            c::MANAGED_CLUSTER_HUB_ACCEPTED,
            c::TRUE,
            c::REASON_HUB_CLUSTER_ADMIN_ACCEPTED,
            c::MESSAGE_HUB_CLUSTER_ADMIN_ACCEPTED,
        )
    })
    .await?;
    Ok(Action::await_change())
}

/// Takes the agent's rights and lease away once the import controller's cleanup is done.
async fn revoke(cluster: &ManagedCluster, ctx: &Ctx) -> Result<Action, HubError> {
    if cluster.finalizers().iter().any(|f| f == FINALIZER_IMPORT_CLEANUP) {
        return Err(HubError::Waiting(format!("cluster {} is still being detached", cluster.name_any())));
    }
    let name = cluster.name_any();
    let client = &ctx.client;
    let background = DeleteParams::background();
    let role = agent_role_name(&name);
    let (cluster_roles, cluster_bindings) =
        (Api::<ClusterRole>::all(client.clone()), Api::<ClusterRoleBinding>::all(client.clone()));
    let (roles, bindings) =
        (Api::<Role>::namespaced(client.clone(), &name), Api::<RoleBinding>::namespaced(client.clone(), &name));
    let leases = Api::<Lease>::namespaced(client.clone(), &name);
    let namespaced = role_binding_names(&name);
    futures::try_join!(
        delete(&cluster_bindings, &role, &background),
        delete(&cluster_roles, &role, &background),
        futures::future::try_join_all(namespaced.iter().map(|role| delete(&bindings, role, &background))),
        futures::future::try_join_all(namespaced.iter().map(|role| delete(&roles, role, &background))),
        delete(&leases, CLUSTER_LEASE, &background),
    )?;
    // The hub's last step for this cluster: nothing remembered of it may outlive it.
    ctx.forget_cluster(&name);
    ctx.pending_csrs.forget(&name);
    Ok(Action::await_change())
}

/// Creates the lease if absent; the agent renews it, so an existing one is left alone.
async fn ensure_lease(ctx: &Ctx, cluster: &str) -> Result<(), HubError> {
    let leases: Api<Lease> = Api::namespaced(ctx.client.clone(), cluster);
    if leases
        .get_opt(CLUSTER_LEASE)
        .await
        .map_err(kube_error(format!("reading lease {cluster}/{CLUSTER_LEASE}")))?
        .is_some()
    {
        return Ok(());
    }
    let lease = Lease {
        metadata: namespaced_meta(cluster, CLUSTER_LEASE).with_labels(labels([(LABEL_CLUSTER_NAME, cluster)])),
        spec: Some(LeaseSpec { renew_time: Some(MicroTime(jiff::Timestamp::now())), ..LeaseSpec::default() }),
    };
    match leases.create(&Default::default(), &lease).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
        Err(e) => Err(kube_error(format!("creating lease {cluster}/{CLUSTER_LEASE}"))(e).into()),
    }
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

/// Judges a CSR against the rules, given whether its cluster exists and accepts clients.
pub fn judge(csr: &CertificateSigningRequest, cluster_accepts: Option<bool>) -> Verdict {
    let Some(cluster) = csr.labels().get(LABEL_CLUSTER_NAME).cloned() else { return Verdict::Ignore };
    if decided(csr) {
        return Verdict::Ignore;
    }
    match check(csr, &cluster, cluster_accepts) {
        Ok(()) => Verdict::Approve,
        Err(why) => Verdict::Refuse(why),
    }
}

fn check(csr: &CertificateSigningRequest, cluster: &str, cluster_accepts: Option<bool>) -> Result<(), String> {
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
    let requester = spec.username.clone().unwrap_or_default();
    let bootstrap = format!("system:serviceaccount:{cluster}:{}", super::bootstrap::service_account_name(cluster));
    let renewal = requester == subject.common_name && spec.groups.iter().flatten().any(|g| *g == agent_group(cluster));
    if requester != bootstrap && !renewal {
        return Err(format!(
            "requester {requester:?} is neither {bootstrap} nor the agent renewing its own certificate"
        ));
    }
    match cluster_accepts {
        None => Err(format!("managed cluster {cluster} does not exist")),
        Some(false) => Err(format!("managed cluster {cluster} is not accepted by the hub")),
        Some(true) => Ok(()),
    }
}

/// Approves or refuses one CSR.
pub async fn approve(csr: Arc<CertificateSigningRequest>, ctx: Ctx) -> Result<Action, HubError> {
    let Some(cluster) = csr.labels().get(LABEL_CLUSTER_NAME).cloned() else { return Ok(Action::await_change()) };
    let name = csr.name_any();
    if decided(&csr) {
        ctx.pending_csrs.note(&cluster, &name, false);
        return Ok(Action::await_change());
    }
    // Pending from before its cluster is read: a change of the cluster while it is judged
    // (accepted just then) brings it back, rather than falling between the read and the note.
    ctx.pending_csrs.note(&cluster, &name, true);
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    let managed = clusters.get_opt(&cluster).await.map_err(kube_error(format!("reading cluster {cluster}")))?;
    let accepts = managed.as_ref().map(|c| c.spec.hub_accepts_client && c.meta().deletion_timestamp.is_none());
    let verdict = judge(&csr, accepts);
    if !matches!(verdict, Verdict::Refuse(_)) {
        ctx.pending_csrs.note(&cluster, &name, false);
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
            let bootstrap =
                format!("system:serviceaccount:{cluster}:{}", super::bootstrap::service_account_name(&cluster));
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
