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
//! - [`JOIN_POLICY`]: setting, changing or removing a ManagedCluster's
//!   `cluster.open-cluster-management.io/clusterset` label needs `create` on the
//!   subresource `managedclustersets/join` of the set it leaves and of the set it joins, as
//!   upstream's ManagedCluster webhook checks. (The hub controller holds it for `default`
//!   only: it labels a cluster without a set into `default`.)
//! - [`BIND_POLICY`]: a ManagedClusterSetBinding must be named after its set, and creating
//!   or changing one needs `create` on `managedclustersets/bind` of that set, as upstream's
//!   ManagedClusterSetBinding webhook checks.

use fleetctl_api::CLUSTER_GROUP;
use fleetctl_api::clusterset::CLUSTER_SET_LABEL;
use fleetctl_api::names::MANAGED_CLUSTERS_GROUP;
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
/// The policy (and its binding) guarding the cluster-set label of ManagedClusters.
pub const JOIN_POLICY: &str = "fleetctl.io-managedclusterset-join";
/// The policy (and its binding) guarding ManagedClusterSetBindings.
pub const BIND_POLICY: &str = "fleetctl.io-managedclusterset-bind";

fn managed_clusters(operations: &[&str]) -> MatchResources {
    cluster_resources("managedclusters", operations)
}

fn cluster_resources(resource: &str, operations: &[&str]) -> MatchResources {
    MatchResources {
        resource_rules: Some(vec![NamedRuleWithOperations {
            api_groups: Some(vec![CLUSTER_GROUP.into()]),
            api_versions: Some(vec!["*".into()]),
            operations: Some(operations.iter().map(|o| o.to_string()).collect()),
            resources: Some(vec![resource.into()]),
            ..NamedRuleWithOperations::default()
        }]),
        ..MatchResources::default()
    }
}

/// Whether the requester may `create` on the `subresource` of the ManagedClusterSet named by
/// the CEL expression `set`.
fn may_on_set(subresource: &str, set: &str) -> String {
    format!(
        "authorizer.group('{CLUSTER_GROUP}').resource('managedclustersets').subresource('{subresource}')\
         .name({set}).check('create').allowed()"
    )
}

fn variable(name: &str, expression: &str) -> Variable {
    Variable { name: name.into(), expression: expression.into() }
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

/// What the accept policy checks.
fn accept_validations() -> Vec<Validation> {
    let turns_on = "has(object.spec.hubAcceptsClient) && object.spec.hubAcceptsClient && \
        (request.operation == 'CREATE' || !has(oldObject.spec.hubAcceptsClient) || !oldObject.spec.hubAcceptsClient)";
    let may_accept = "authorizer.group('register.open-cluster-management.io').resource('managedclusters')\
        .subresource('accept').name(object.metadata.name).check('update').allowed()";
    vec![validation(
        &format!("!({turns_on}) || {may_accept}"),
        "setting spec.hubAcceptsClient to true needs the right to update managedclusters/accept \
         (register.open-cluster-management.io): ask a hub admin to accept the cluster",
    )]
}

fn accept_policy() -> ValidatingAdmissionPolicy {
    policy(
        ACCEPT_POLICY,
        ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".into()),
            match_constraints: Some(managed_clusters(&["CREATE", "UPDATE"])),
            validations: Some(accept_validations()),
            ..ValidatingAdmissionPolicySpec::default()
        },
    )
}

fn join_policy() -> ValidatingAdmissionPolicy {
    let label = |object: &str| {
        format!(
            "has({object}.metadata.labels) && '{CLUSTER_SET_LABEL}' in {object}.metadata.labels ? \
             {object}.metadata.labels['{CLUSTER_SET_LABEL}'] : ''"
        )
    };
    let old = format!("request.operation == 'UPDATE' ? ({}) : ''", label("oldObject"));
    let unchanged = "variables.set == variables.oldSet";
    policy(
        JOIN_POLICY,
        ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".into()),
            match_constraints: Some(managed_clusters(&["CREATE", "UPDATE"])),
            variables: Some(vec![variable("set", &label("object")), variable("oldSet", &old)]),
            validations: Some(vec![
                validation(
                    &format!("{unchanged} || variables.set == '' || {}", may_on_set("join", "variables.set")),
                    "adding a ManagedCluster to a ManagedClusterSet needs the right to create managedclustersets/join \
                     of that set",
                ),
                validation(
                    &format!("{unchanged} || variables.oldSet == '' || {}", may_on_set("join", "variables.oldSet")),
                    "taking a ManagedCluster out of a ManagedClusterSet needs the right to create \
                     managedclustersets/join of that set",
                ),
            ]),
            ..ValidatingAdmissionPolicySpec::default()
        },
    )
}

fn bind_policy() -> ValidatingAdmissionPolicy {
    policy(
        BIND_POLICY,
        ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".into()),
            match_constraints: Some(cluster_resources("managedclustersetbindings", &["CREATE", "UPDATE"])),
            validations: Some(vec![
                validation(
                    "object.metadata.name == object.spec.clusterSet",
                    "a ManagedClusterSetBinding must be named after its ManagedClusterSet (spec.clusterSet)",
                ),
                validation(
                    &may_on_set("bind", "object.spec.clusterSet"),
                    "binding a ManagedClusterSet into a namespace needs the right to create managedclustersets/bind \
                     of that set",
                ),
            ]),
            ..ValidatingAdmissionPolicySpec::default()
        },
    )
}

fn agent_policy() -> ValidatingAdmissionPolicy {
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

/// Why the accept rule is not enforced as `fleetctl hub install` makes it, given the
/// policy and binding named [`ACCEPT_POLICY`] as the hub holds them; `None` when it is
/// (the policy denies with fleetctl's validations, under `failurePolicy: Fail`, and the
/// binding binds that policy with the `Deny` action). A policy edited to let everything
/// through, or a binding that only warns, counts as missing.
pub fn accept_rule_problem(
    policy: Option<&ValidatingAdmissionPolicy>,
    binding: Option<&ValidatingAdmissionPolicyBinding>,
) -> Option<String> {
    let Some(policy) = policy.and_then(|p| p.spec.as_ref()) else {
        return Some(format!("the admission policy {ACCEPT_POLICY} is not installed"));
    };
    let Some(binding) = binding.and_then(|b| b.spec.as_ref()) else {
        return Some(format!("the admission policy binding {ACCEPT_POLICY} is not installed"));
    };
    let expressions = policy.validations.iter().flatten().map(|v| v.expression.as_str());
    let ours = accept_validations();
    let same_checks = expressions.eq(ours.iter().map(|v| v.expression.as_str()));
    // An absent failure policy is Fail, the API's default.
    if !same_checks || policy.failure_policy.as_deref().is_some_and(|f| f != "Fail") {
        return Some(format!("the admission policy {ACCEPT_POLICY} is not the one fleetctl installs"));
    }
    if binding.policy_name.as_deref() != Some(ACCEPT_POLICY) {
        return Some(format!("the admission policy binding {ACCEPT_POLICY} does not bind the policy {ACCEPT_POLICY}"));
    }
    if !binding.validation_actions.iter().flatten().any(|action| action == "Deny") {
        return Some(format!("the admission policy binding {ACCEPT_POLICY} does not deny"));
    }
    None
}

/// The policies, then their bindings.
pub fn objects() -> (Vec<ValidatingAdmissionPolicy>, Vec<ValidatingAdmissionPolicyBinding>) {
    (
        vec![accept_policy(), agent_policy(), join_policy(), bind_policy()],
        vec![binding(ACCEPT_POLICY), binding(AGENT_POLICY), binding(JOIN_POLICY), binding(BIND_POLICY)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accept_rule_counts_only_as_installed_enforcing() {
        let (policies, bindings) = objects();
        let (policy, binding) = (&policies[0], &bindings[0]);
        assert_eq!(accept_rule_problem(Some(policy), Some(binding)), None);
        let problem = |p: Option<&ValidatingAdmissionPolicy>, b: Option<&ValidatingAdmissionPolicyBinding>| {
            accept_rule_problem(p, b).expect("a problem")
        };
        assert!(problem(None, Some(binding)).contains("policy fleetctl.io-managedcluster-accept is not installed"));
        assert!(problem(Some(policy), None).contains("binding fleetctl.io-managedcluster-accept is not installed"));
        let mut lenient = policy.clone();
        if let Some(spec) = lenient.spec.as_mut() {
            spec.validations = Some(vec![validation("true", "anything goes")]);
        }
        assert!(problem(Some(&lenient), Some(binding)).contains("not the one fleetctl installs"));
        let mut ignoring = policy.clone();
        if let Some(spec) = ignoring.spec.as_mut() {
            spec.failure_policy = Some("Ignore".into());
        }
        assert!(problem(Some(&ignoring), Some(binding)).contains("not the one fleetctl installs"));
        let mut warning = binding.clone();
        if let Some(spec) = warning.spec.as_mut() {
            spec.validation_actions = Some(vec!["Warn".into()]);
        }
        assert!(problem(Some(policy), Some(&warning)).contains("does not deny"));
        let mut elsewhere = binding.clone();
        if let Some(spec) = elsewhere.spec.as_mut() {
            spec.policy_name = Some(AGENT_POLICY.into());
        }
        assert!(problem(Some(policy), Some(&elsewhere)).contains("does not bind"));
    }
}
