//! Registration on the hub: accepting a cluster (condition, finalizer, the RBAC that
//! confines its agent, its lease) and approving exactly the CSRs its agent may make.

use std::sync::Arc;

use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType};
use kube::{Resource, ResourceExt};
use serde_json::{Value, json};

use super::context::{Ctx, HubError, add_finalizers, apply, kube_error, set, update_conditions};
use fleetctl_api::conditions::{self as c, FINALIZER_API_RESOURCE_CLEANUP, LABEL_CLUSTER_NAME};
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

fn agent_subject(cluster: &str) -> Value {
    json!([{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": agent_group(cluster)}])
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
pub fn agent_rbac(cluster: &str) -> Result<AgentRbac, serde_json::Error> {
    let role = agent_role_name(cluster);
    let labels = json!({LABEL_CLUSTER_NAME: cluster});
    let cluster_role: ClusterRole = serde_json::from_value(json!({
        "metadata": {"name": role, "labels": labels},
        "rules": [
            {"apiGroups": [CLUSTER_GROUP], "resources": ["managedclusters"], "resourceNames": [cluster], "verbs": ["get", "list", "watch", "update", "patch"]},
            {"apiGroups": [CLUSTER_GROUP], "resources": ["managedclusters/status"], "resourceNames": [cluster], "verbs": ["get", "update", "patch"]},
            {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests"], "verbs": ["create", "get", "list", "watch"]},
            {"apiGroups": [REGISTER_GROUP], "resources": ["managedclusters/clientcertificates"], "resourceNames": [cluster], "verbs": ["renew"]},
        ],
    }))?;
    let cluster_binding: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": {"name": role, "labels": labels},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": agent_subject(cluster),
    }))?;
    let [registration, work] = role_binding_names(cluster);
    let rw = json!(["get", "list", "watch", "update", "patch"]);
    let namespaced = [
        (
            registration,
            json!([
                {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "list", "watch", "update", "patch"]},
                {"apiGroups": ["", "events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch", "update"]},
                {"apiGroups": [ADDON_GROUP], "resources": ["managedclusteraddons"], "verbs": ["get", "list", "watch"]},
                {"apiGroups": [ADDON_GROUP], "resources": ["managedclusteraddons/status"], "verbs": ["get", "update", "patch"]},
            ]),
        ),
        (
            work,
            json!([
                {"apiGroups": [WORK_GROUP], "resources": ["manifestworks"], "verbs": rw},
                {"apiGroups": [WORK_GROUP], "resources": ["manifestworks/status"], "verbs": ["get", "update", "patch"]},
                {"apiGroups": [WORK_GROUP], "resources": ["manifestworks/finalizers"], "verbs": ["update"]},
                {"apiGroups": ["", "events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch", "update"]},
            ]),
        ),
    ];
    let mut roles = Vec::new();
    for (name, rules) in namespaced {
        let meta = json!({"name": name, "namespace": cluster, "labels": labels});
        roles.push((
            serde_json::from_value(json!({"metadata": meta, "rules": rules}))?,
            serde_json::from_value(json!({"metadata": meta,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name}, "subjects": agent_subject(cluster)}))?,
        ));
    }
    Ok(AgentRbac { cluster_role, cluster_binding, roles })
}

/// Accepts an accepted cluster: HubAccepted, the cleanup finalizer, agent RBAC, lease.
pub async fn accept(cluster: Arc<ManagedCluster>, ctx: Ctx) -> Result<Action, HubError> {
    if cluster.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let name = cluster.name_any();
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    if !cluster.spec.hub_accepts_client {
        update_conditions(&clusters, &cluster, |conditions| {
            set(
                conditions,
                c::MANAGED_CLUSTER_HUB_ACCEPTED,
                c::FALSE,
                c::REASON_HUB_CLUSTER_ADMIN_DENIED,
                "Denied by hub cluster admin",
            )
        })
        .await?;
        return Ok(Action::await_change());
    }
    add_finalizers(&clusters, &cluster, &[FINALIZER_API_RESOURCE_CLEANUP]).await?;
    // The namespaced roles need the cluster namespace; the import controller makes it
    // too, whichever runs first.
    super::import::ensure_namespace(&ctx, &name).await?;
    let rbac = agent_rbac(&name).map_err(|e| HubError::Render(format!("the agent RBAC: {e}")))?;
    apply(&Api::<ClusterRole>::all(ctx.client.clone()), &rbac.cluster_role).await?;
    apply(&Api::<ClusterRoleBinding>::all(ctx.client.clone()), &rbac.cluster_binding).await?;
    for (role, binding) in rbac.roles {
        apply(&Api::<Role>::namespaced(ctx.client.clone(), &name), &role).await?;
        apply(&Api::<RoleBinding>::namespaced(ctx.client.clone(), &name), &binding).await?;
    }
    ensure_lease(&ctx, &name).await?;
    update_conditions(&clusters, &cluster, |conditions| {
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
    let lease: Lease = serde_json::from_value(json!({
        "metadata": {"name": CLUSTER_LEASE, "namespace": cluster, "labels": {LABEL_CLUSTER_NAME: cluster}},
        "spec": {"renewTime": jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string()},
    }))
    .map_err(|e| HubError::Render(format!("the lease: {e}")))?;
    match leases.create(&Default::default(), &lease).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
        Err(e) => Err(kube_error(format!("creating lease {cluster}/{CLUSTER_LEASE}"))(e)),
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

/// Judges a CSR against the rules, given whether its cluster exists and accepts clients.
pub fn judge(csr: &CertificateSigningRequest, cluster_accepts: Option<bool>) -> Verdict {
    let Some(cluster) = csr.labels().get(LABEL_CLUSTER_NAME).cloned() else { return Verdict::Ignore };
    let decided = csr.status.as_ref().and_then(|s| s.conditions.as_ref()).is_some_and(|conditions| {
        conditions.iter().any(|c| matches!(c.type_.as_str(), "Approved" | "Denied" | "Failed"))
    });
    if decided {
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
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    let accepts = clusters
        .get_opt(&cluster)
        .await
        .map_err(kube_error(format!("reading cluster {cluster}")))?
        .map(|c| c.spec.hub_accepts_client && c.meta().deletion_timestamp.is_none());
    let name = csr.name_any();
    match judge(&csr, accepts) {
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
