//! Registration on the hub: accepting a cluster (condition, finalizer, the RBAC that
//! confines its agent, its lease) and approving exactly the CSRs its agent may make
//! ([`approval`]).
//!
//! The accept controller follows the clusters and the admission rule that guards
//! acceptance (the policy and its binding named [`ACCEPT_POLICY`]): a cluster is accepted
//! only while the rule is in place, and a change of the rule judges every cluster again.

mod addon_csr;
pub mod approval;

use std::sync::Arc;

use fleetctl_api::conditions::{
    self as c, FINALIZER_API_RESOURCE_CLEANUP, FINALIZER_IMPORT_CLEANUP, LABEL_CLUSTER_NAME,
};
use fleetctl_api::names::{CLUSTER_LEASE, agent_group, agent_namespaced_roles, agent_role};
use fleetctl_api::{ADDON_GROUP, CLUSTER_GROUP, ManagedCluster, REGISTER_GROUP, WORK_GROUP};
use fleetctl_kube::objects::{self, MetaExt, labels, meta, named_rule, namespaced_meta, rule};
use fleetctl_kube::reconcile::delete;
use fleetctl_kube::{controller, kube_error, update_conditions};
use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, DeleteParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Resource, ResourceExt};

pub use approval::PendingCsrs;

use super::context::{Ctx, HUB, HubError, set};
use super::watches::{Followed, bounded, known, watch_one};
use crate::manifests::admission::{ACCEPT_POLICY, accept_rule_problem};

/// The name the accept controller's metrics and logs go by.
pub const CONTROLLER: &str = "registration";

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
    let role = agent_role(cluster);
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
    let [registration, work] = agent_namespaced_roles(cluster);
    let namespaced = [
        (
            registration,
            vec![
                // As upstream's hub grants: the agent renews with get and update.
                rule(&["coordination.k8s.io"], &["leases"], &["get", "list", "watch", "update"]),
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

/// The admission rule that guards acceptance, as watched.
struct Guard {
    policy: Store<ValidatingAdmissionPolicy>,
    binding: Store<ValidatingAdmissionPolicyBinding>,
}

impl Guard {
    /// Why the rule does not hold on this hub, if it does not (see [`accept_rule_problem`]).
    fn problem(&self) -> Option<String> {
        let policy = self.policy.get(&ObjectRef::new(ACCEPT_POLICY));
        let binding = self.binding.get(&ObjectRef::new(ACCEPT_POLICY));
        accept_rule_problem(policy.as_deref(), binding.as_deref())
    }
}

/// What the accept controller and the CSR approver of one hub share.
pub struct Registration {
    guard: Guard,
    /// The CSRs the approver left pending, by cluster (a detached cluster's are forgotten).
    pending_csrs: Arc<PendingCsrs>,
}

/// Runs the accept controller on the clusters it follows until the returned future is
/// dropped. It starts once the admission rule's state is known (a hub without the policy
/// API never lists it: after a wait, nothing is accepted); `pending_csrs` is the approver's.
pub async fn controller(ctx: Ctx, clusters: Followed, pending_csrs: Arc<PendingCsrs>) {
    let (policy, policy_watch, policy_changes) =
        watch_one(Api::<ValidatingAdmissionPolicy>::all(ctx.client.clone()), ACCEPT_POLICY);
    let (binding, binding_watch, binding_changes) =
        watch_one(Api::<ValidatingAdmissionPolicyBinding>::all(ctx.client.clone()), ACCEPT_POLICY);
    let controller = Controller::for_stream(clusters.changes, clusters.store)
        .with_config(bounded())
        .reconcile_all_on(futures::stream::select(policy_changes, binding_changes));
    let run = async {
        tokio::join!(known(&policy), known(&binding));
        let registration = Arc::new(Registration { guard: Guard { policy, binding }, pending_csrs });
        let reconcile = move |cluster, ctx| accept(cluster, ctx, registration.clone());
        controller::run(controller, CONTROLLER, &ctx.metrics, reconcile, ctx.clone()).await;
    };
    tokio::join!(policy_watch, binding_watch, run);
}

/// Registration of one cluster, behind the finalizer
/// `cluster.open-cluster-management.io/api-resource-cleanup`: an accepted cluster gets
/// HubAccepted, the agent RBAC and its lease; a cluster the admin does not accept is told
/// so; a cluster being deleted keeps its agent's rights until the import controller has
/// finished the detach (the agents need them to remove themselves), then loses them.
async fn accept(
    cluster: Arc<ManagedCluster>,
    ctx: Ctx,
    registration: Arc<Registration>,
) -> Result<Action, finalizer::Error<HubError>> {
    let clusters: Api<ManagedCluster> = Api::all(ctx.client.clone());
    if !cluster.spec.hub_accepts_client && cluster.meta().deletion_timestamp.is_none() {
        return deny(&clusters, &cluster).await.map_err(finalizer::Error::ApplyFailed);
    }
    finalizer(&clusters, FINALIZER_API_RESOURCE_CLEANUP, cluster, |event| async {
        match event {
            finalizer::Event::Apply(cluster) => admit(&clusters, &cluster, &ctx, &registration.guard).await,
            finalizer::Event::Cleanup(cluster) => revoke(&cluster, &ctx, &registration.pending_csrs).await,
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

async fn admit(
    clusters: &Api<ManagedCluster>,
    cluster: &ManagedCluster,
    ctx: &Ctx,
    guard: &Guard,
) -> Result<Action, HubError> {
    let name = cluster.name_any();
    // Defence in depth: `hubAcceptsClient` means "accepted by someone allowed to" only
    // while the admission rule enforces it; without it, nobody is accepted.
    if let Some(problem) = guard.problem() {
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
    super::namespace::ensure(ctx, &name).await?;
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
async fn revoke(cluster: &ManagedCluster, ctx: &Ctx, pending_csrs: &PendingCsrs) -> Result<Action, HubError> {
    if cluster.finalizers().iter().any(|f| f == FINALIZER_IMPORT_CLEANUP) {
        return Err(HubError::Waiting(format!("cluster {} is still being detached", cluster.name_any())));
    }
    let name = cluster.name_any();
    let client = &ctx.client;
    let background = DeleteParams::background();
    let role = agent_role(&name);
    let (cluster_roles, cluster_bindings) =
        (Api::<ClusterRole>::all(client.clone()), Api::<ClusterRoleBinding>::all(client.clone()));
    let (roles, bindings) =
        (Api::<Role>::namespaced(client.clone(), &name), Api::<RoleBinding>::namespaced(client.clone(), &name));
    let leases = Api::<Lease>::namespaced(client.clone(), &name);
    let namespaced = agent_namespaced_roles(&name);
    futures::try_join!(
        delete(&cluster_bindings, &role, &background),
        delete(&cluster_roles, &role, &background),
        futures::future::try_join_all(namespaced.iter().map(|role| delete(&bindings, role, &background))),
        futures::future::try_join_all(namespaced.iter().map(|role| delete(&roles, role, &background))),
        delete(&leases, CLUSTER_LEASE, &background),
    )?;
    // The hub's last step for this cluster: nothing remembered of it may outlive it.
    ctx.forget_cluster(&name);
    pending_csrs.forget(&name);
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
