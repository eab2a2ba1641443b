//! The admission rules that protect the hub, as ValidatingAdmissionPolicies (CEL, with the
//! `authorizer` variable) that `fleetctl hub install` applies. They hold on any cluster
//! that serves admissionregistration.k8s.io/v1 (Kubernetes 1.30 and later), the dev
//! cluster included, without the hub controller in the request path:
//!
//! - [`ACCEPT_POLICY`]: `spec.hubAcceptsClient: true` — on create, or an update that turns
//!   it on — needs `update` on the virtual subresource `managedclusters/accept` of
//!   `register.open-cluster-management.io`, as the ManagedCluster API says and upstream's
//!   webhook enforces. A bootstrap token may create its ManagedCluster, never accepted.
//! - [`AGENT_POLICY`]: a cluster's own identities — its agent's certificate (group
//!   `system:open-cluster-management:managed-clusters`) and its bootstrap ServiceAccount —
//!   may not set or change labels, `hubAcceptsClient`, `leaseDurationSeconds` or taints of
//!   a ManagedCluster: those are the hub admin's. (RBAC already confines the agent to its
//!   own cluster's status; this holds even where an admin widens that RBAC.)

use fleetctl_api::CLUSTER_GROUP;
use fleetctl_kube::objects::meta;
use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicyBindingSpec, ValidatingAdmissionPolicySpec, Validation,
    Variable,
};

/// The policy (and its binding) guarding `hubAcceptsClient`.
pub const ACCEPT_POLICY: &str = "fleetctl.io-managedcluster-accept";
/// The policy (and its binding) confining what a cluster's own identities write.
pub const AGENT_POLICY: &str = "fleetctl.io-managedcluster-agent";

/// The group every agent certificate carries.
const MANAGED_CLUSTERS_GROUP: &str = "system:open-cluster-management:managed-clusters";

fn managed_clusters(operations: &[&str]) -> MatchResources {
    MatchResources {
        resource_rules: Some(vec![NamedRuleWithOperations {
            api_groups: Some(vec![CLUSTER_GROUP.into()]),
            api_versions: Some(vec!["*".into()]),
            operations: Some(operations.iter().map(|o| o.to_string()).collect()),
            resources: Some(vec!["managedclusters".into()]),
            ..NamedRuleWithOperations::default()
        }]),
        ..MatchResources::default()
    }
}

fn validation(expression: &str, message: &str) -> Validation {
    Validation {
        expression: expression.into(),
        message: Some(message.into()),
        reason: Some("Forbidden".into()),
        ..Validation::default()
    }
}

fn policy(name: &str, spec: ValidatingAdmissionPolicySpec) -> ValidatingAdmissionPolicy {
    ValidatingAdmissionPolicy { metadata: meta(name), spec: Some(spec), ..ValidatingAdmissionPolicy::default() }
}

/// The binding that makes a policy deny, for every namespace and object it matches.
fn binding(name: &str) -> ValidatingAdmissionPolicyBinding {
    ValidatingAdmissionPolicyBinding {
        metadata: meta(name),
        spec: Some(ValidatingAdmissionPolicyBindingSpec {
            policy_name: Some(name.into()),
            validation_actions: Some(vec!["Deny".into()]),
            ..ValidatingAdmissionPolicyBindingSpec::default()
        }),
    }
}

fn accept_policy() -> ValidatingAdmissionPolicy {
    let turns_on = "has(object.spec.hubAcceptsClient) && object.spec.hubAcceptsClient && \
        (request.operation == 'CREATE' || !has(oldObject.spec.hubAcceptsClient) || !oldObject.spec.hubAcceptsClient)";
    let may_accept = "authorizer.group('register.open-cluster-management.io').resource('managedclusters')\
        .subresource('accept').name(object.metadata.name).check('update').allowed()";
    policy(
        ACCEPT_POLICY,
        ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".into()),
            match_constraints: Some(managed_clusters(&["CREATE", "UPDATE"])),
            validations: Some(vec![validation(
                &format!("!({turns_on}) || {may_accept}"),
                "setting spec.hubAcceptsClient to true needs the right to update managedclusters/accept \
                 (register.open-cluster-management.io): ask a hub admin to accept the cluster",
            )]),
            ..ValidatingAdmissionPolicySpec::default()
        },
    )
}

fn agent_policy() -> ValidatingAdmissionPolicy {
    let variable = |name: &str, expression: &str| Variable { name: name.into(), expression: expression.into() };
    let is_cluster_identity = format!(
        "request.userInfo.groups.exists(g, g == '{MANAGED_CLUSTERS_GROUP}') || \
         (request.userInfo.username.startsWith('system:serviceaccount:') && \
          request.userInfo.username.endsWith('-bootstrap-sa'))"
    );
    let before = |field: &str, absent: &str| {
        format!("request.operation == 'UPDATE' && has(oldObject.{field}) ? oldObject.{field} : {absent}")
    };
    let after = |field: &str, absent: &str| format!("has(object.{field}) ? object.{field} : {absent}");
    policy(
        AGENT_POLICY,
        ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".into()),
            match_constraints: Some(managed_clusters(&["CREATE", "UPDATE"])),
            match_conditions: Some(vec![MatchCondition {
                name: "a-cluster-identity".into(),
                expression: is_cluster_identity,
            }]),
            variables: Some(vec![
                variable("labels", &after("metadata.labels", "{}")),
                variable("oldLabels", &before("metadata.labels", "{}")),
                variable("accepts", &after("spec.hubAcceptsClient", "false")),
                variable("oldAccepts", &before("spec.hubAcceptsClient", "false")),
                variable("lease", &after("spec.leaseDurationSeconds", "60")),
                variable("oldLease", &before("spec.leaseDurationSeconds", "60")),
                variable("taints", &after("spec.taints", "[]")),
                variable("oldTaints", &before("spec.taints", "[]")),
            ]),
            validations: Some(vec![
                validation(
                    "variables.labels == variables.oldLabels",
                    "a managed cluster's agent may not set or change its ManagedCluster's labels",
                ),
                validation(
                    "variables.accepts == variables.oldAccepts",
                    "a managed cluster's agent may not set or change spec.hubAcceptsClient",
                ),
                validation(
                    "variables.lease == variables.oldLease",
                    "a managed cluster's agent may not set or change spec.leaseDurationSeconds",
                ),
                validation(
                    "variables.taints == variables.oldTaints",
                    "a managed cluster's agent may not set or change spec.taints",
                ),
            ]),
            ..ValidatingAdmissionPolicySpec::default()
        },
    )
}

/// The policies, then their bindings.
pub fn objects() -> (Vec<ValidatingAdmissionPolicy>, Vec<ValidatingAdmissionPolicyBinding>) {
    (vec![accept_policy(), agent_policy()], vec![binding(ACCEPT_POLICY), binding(AGENT_POLICY)])
}
