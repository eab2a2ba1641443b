//! Admission: ValidatingAdmissionPolicies with CEL (`object`, `oldObject`, `request`,
//! `params`, `authorizer`), their bindings' actions and failure policies, and
//! NamespaceLifecycle — all on a made-up group, as any cluster's policies would be.

use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams};
use kube::{Client, Error};
use serde_json::{Value, json};

use crate::support::cluster::TestCluster;

const GROUP: &str = "gadgets.example.test";

/// `gadgets.gadgets.example.test`: cluster-scoped, `spec.flag` and `spec.size`, a status subresource.
async fn install_gadgets(c: &TestCluster) {
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": format!("gadgets.{GROUP}")},
        "spec": {"group": GROUP, "scope": "Cluster",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"flag": {"type": "boolean"}, "size": {"type": "integer"}}},
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]}
    }))
    .expect("crd");
    Api::<CustomResourceDefinition>::all(c.client.clone())
        .create(&PostParams::default(), &crd)
        .await
        .expect("create crd");
}

fn gadgets(client: &Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(GROUP, "v1", "Gadget");
    Api::all_with(client.clone(), &ApiResource::from_gvk_with_plural(&gvk, "gadgets"))
}

fn gadget(name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(
        json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Gadget", "metadata": {"name": name}, "spec": spec}),
    )
    .expect("gadget")
}

/// A policy on gadgets (CREATE and UPDATE of the main resource and `/status`) and its
/// binding with `actions`.
async fn install_policy(c: &TestCluster, name: &str, spec: Value, actions: &[&str]) {
    let mut spec = spec;
    if spec.get("matchConstraints").is_none() {
        spec["matchConstraints"] = json!({"resourceRules": [{"apiGroups": [GROUP], "apiVersions": ["*"],
            "operations": ["CREATE", "UPDATE"], "resources": ["gadgets", "gadgets/status"]}]});
    }
    let policy: ValidatingAdmissionPolicy =
        serde_json::from_value(json!({"metadata": {"name": name}, "spec": spec})).expect("policy");
    Api::<ValidatingAdmissionPolicy>::all(c.client.clone())
        .create(&PostParams::default(), &policy)
        .await
        .expect("policy");
    let binding: ValidatingAdmissionPolicyBinding = serde_json::from_value(json!({
        "metadata": {"name": format!("{name}-binding")},
        "spec": {"policyName": name, "validationActions": actions}
    }))
    .expect("binding");
    Api::<ValidatingAdmissionPolicyBinding>::all(c.client.clone())
        .create(&PostParams::default(), &binding)
        .await
        .expect("binding");
}

/// A ClusterRole with `rules` bound to `user`.
async fn grant(c: &TestCluster, user: &str, rules: Value) {
    let role: ClusterRole = serde_json::from_value(json!({"metadata": {"name": user}, "rules": rules})).expect("role");
    Api::<ClusterRole>::all(c.client.clone()).create(&PostParams::default(), &role).await.expect("role");
    let binding: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": {"name": user},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]
    }))
    .expect("binding");
    Api::<ClusterRoleBinding>::all(c.client.clone()).create(&PostParams::default(), &binding).await.expect("binding");
}

fn denial(result: Result<DynamicObject, Error>) -> kube::core::Status {
    match result {
        Err(Error::Api(status)) => *status,
        other => panic!("expected a denial, got {other:?}"),
    }
}

/// `spec.flag: true` needs `update` on `gadgets/approve` for that gadget, asked of the
/// server's authorizer through CEL's `authorizer` library — the shape of OCM's
/// `hubAcceptsClient` rule, on a made-up group.
const FLAG_NEEDS_APPROVE: &str = "!has(object.spec.flag) || !object.spec.flag || (oldObject != null && has(oldObject.spec.flag) && oldObject.spec.flag) || \
    authorizer.group('gadgets.example.test').resource('gadgets').subresource('approve').name(object.metadata.name).check('update').allowed()";

#[tokio::test]
async fn a_policy_denies_setting_a_flag_unless_the_authorizer_allows_a_subresource_verb() {
    let c = TestCluster::start().await;
    install_gadgets(&c).await;
    let edit = json!([{"apiGroups": [GROUP], "resources": ["gadgets"], "verbs": ["*"]}]);
    grant(&c, "dev", edit.clone()).await;
    let mut approver = edit.as_array().cloned().unwrap_or_default();
    approver.push(
        json!({"apiGroups": [GROUP], "resources": ["gadgets/approve"], "verbs": ["update"], "resourceNames": ["g1"]}),
    );
    grant(&c, "approver", Value::Array(approver)).await;
    install_policy(
        &c,
        "flag-needs-approve",
        json!({"validations": [{"expression": FLAG_NEEDS_APPROVE, "reason": "Forbidden",
            "messageExpression": "'setting spec.flag on ' + object.metadata.name + ' needs update on gadgets/approve'"}]}),
        &["Deny"],
    )
    .await;
    let dev = gadgets(&c.client_as("dev", &[]).await);
    let approver = gadgets(&c.client_as("approver", &[]).await);

    dev.create(&PostParams::default(), &gadget("g0", json!({"flag": false}))).await.expect("flag false is anyone's");
    let status = denial(dev.create(&PostParams::default(), &gadget("g1", json!({"flag": true}))).await);
    assert_eq!((status.code, status.reason.as_str()), (403, "Forbidden"));
    assert_eq!(
        status.message,
        "gadgets.gadgets.example.test \"g1\" is forbidden: ValidatingAdmissionPolicy 'flag-needs-approve' with binding \
         'flag-needs-approve-binding' denied request: setting spec.flag on g1 needs update on gadgets/approve"
    );
    approver.create(&PostParams::default(), &gadget("g1", json!({"flag": true}))).await.expect("the approver may");
    dev.create(&PostParams::default(), &gadget("g2", json!({}))).await.expect("no flag");
    let patch = Patch::Merge(json!({"spec": {"flag": true}}));
    let status = denial(dev.patch("g2", &PatchParams::default(), &patch).await);
    assert_eq!(status.code, 403, "an update that sets the flag is checked too");
    let status = denial(approver.patch("g2", &PatchParams::default(), &patch).await);
    assert_eq!(status.code, 403, "the approver may approve g1 only: resourceNames narrow the check");
    dev.patch("g1", &PatchParams::default(), &Patch::Merge(json!({"spec": {"size": 3}})))
        .await
        .expect("a flag already set stays set without a new check");
}

/// Members of `example:agents` may change only `status`: the policy compares `object`
/// with `oldObject` for requests whose `request.userInfo.groups` hold the group.
const STATUS_ONLY_FOR_AGENTS: &str = "!('example:agents' in request.userInfo.groups) || request.subResource == 'status' || \
    (object.spec == oldObject.spec && (has(object.metadata.labels) ? object.metadata.labels : {}) == (has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}))";

#[tokio::test]
async fn a_policy_lets_a_group_change_only_status() {
    let c = TestCluster::start().await;
    install_gadgets(&c).await;
    grant(&c, "agent", json!([{"apiGroups": [GROUP], "resources": ["gadgets", "gadgets/status"], "verbs": ["*"]}]))
        .await;
    let mut spec =
        json!({"validations": [{"expression": STATUS_ONLY_FOR_AGENTS, "message": "agents may change only status"}]});
    spec["matchConstraints"] = json!({"resourceRules": [{"apiGroups": [GROUP], "apiVersions": ["v1"],
        "operations": ["UPDATE"], "resources": ["gadgets", "gadgets/status"]}]});
    install_policy(&c, "agents-write-status", spec, &["Deny"]).await;
    gadgets(&c.client).create(&PostParams::default(), &gadget("g", json!({"size": 1}))).await.expect("admin creates");
    let agent = gadgets(&c.client_as("agent", &["example:agents"]).await);

    let status = json!({"status": {"ready": true}});
    let written = agent.patch_status("g", &PatchParams::default(), &Patch::Merge(status)).await.expect("status");
    assert_eq!(written.data["status"]["ready"], json!(true));
    let status = denial(agent.patch("g", &PatchParams::default(), &Patch::Merge(json!({"spec": {"size": 2}}))).await);
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"), "Invalid is the default reason");
    assert!(status.message.ends_with("denied request: agents may change only status"), "{}", status.message);
    let labels = Patch::Merge(json!({"metadata": {"labels": {"owner": "agent"}}}));
    denial(agent.patch("g", &PatchParams::default(), &labels).await);
    let other = gadgets(&c.client_as("agent", &[]).await);
    other.patch("g", &PatchParams::default(), &labels).await.expect("outside the group the policy does not apply");
}

#[tokio::test]
async fn the_failure_policy_decides_about_expressions_that_fail() {
    let c = TestCluster::start().await;
    install_gadgets(&c).await;
    // `object.spec.size` does not exist on a gadget without a size: evaluation fails.
    let failing =
        |policy: &str| json!({"failurePolicy": policy, "validations": [{"expression": "object.spec.size < 10"}]});
    install_policy(&c, "ignored", failing("Ignore"), &["Deny"]).await;
    let api = gadgets(&c.client);
    api.create(&PostParams::default(), &gadget("g0", json!({}))).await.expect("Ignore lets errors through");
    install_policy(&c, "failing", failing("Fail"), &["Deny"]).await;
    let status = denial(api.create(&PostParams::default(), &gadget("g1", json!({}))).await);
    assert!(
        status.message.contains("ValidatingAdmissionPolicy 'failing' with binding 'failing-binding' denied request: expression 'object.spec.size < 10' resulted in error"),
        "{}",
        status.message
    );
    let status = denial(api.create(&PostParams::default(), &gadget("g2", json!({"size": 12}))).await);
    assert!(status.message.ends_with("denied request: failed expression: object.spec.size < 10"), "{}", status.message);
    api.create(&PostParams::default(), &gadget("g3", json!({"size": 3}))).await.expect("valid");
}

#[tokio::test]
async fn warn_bindings_let_the_request_through_with_a_warning_and_match_conditions_narrow_a_policy() {
    let c = TestCluster::start().await;
    install_gadgets(&c).await;
    let spec = json!({
        "matchConditions": [{"name": "big-only", "expression": "has(object.spec.size) && object.spec.size > 100"}],
        "validations": [{"expression": "false", "message": "big gadgets are discouraged"}]});
    install_policy(&c, "warn-big", spec.clone(), &["Warn"]).await;
    let api = gadgets(&c.client);
    api.create(&PostParams::default(), &gadget("big", json!({"size": 500}))).await.expect("Warn does not deny");
    install_policy(&c, "deny-big", spec, &["Deny"]).await;
    api.create(&PostParams::default(), &gadget("small", json!({"size": 5}))).await.expect("the condition excludes it");
    let status = denial(api.create(&PostParams::default(), &gadget("huge", json!({"size": 900}))).await);
    assert!(status.message.ends_with("big gadgets are discouraged"), "{}", status.message);
}

#[tokio::test]
async fn params_come_from_the_object_the_binding_names() {
    let c = TestCluster::start().await;
    install_gadgets(&c).await;
    let limits: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "limits"}, "data": {"max": "5"}})).expect("cm");
    limits.create(&PostParams::default(), &cm).await.expect("params");
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({"metadata": {"name": "max-size"}, "spec": {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": {"resourceRules": [{"apiGroups": [GROUP], "apiVersions": ["*"], "operations": ["CREATE"], "resources": ["gadgets"]}]},
        "validations": [{"expression": "object.spec.size <= int(params.data.max)", "messageExpression": "'size must be at most ' + params.data.max"}]}}))
    .expect("policy");
    Api::<ValidatingAdmissionPolicy>::all(c.client.clone())
        .create(&PostParams::default(), &policy)
        .await
        .expect("policy");
    let binding = |name: &str, param: &str, action: &str| -> ValidatingAdmissionPolicyBinding {
        serde_json::from_value(
            json!({"metadata": {"name": name}, "spec": {"policyName": "max-size", "validationActions": ["Deny"],
            "paramRef": {"name": param, "namespace": "default", "parameterNotFoundAction": action}}}),
        )
        .expect("binding")
    };
    let bindings = Api::<ValidatingAdmissionPolicyBinding>::all(c.client.clone());
    bindings.create(&PostParams::default(), &binding("with-limits", "limits", "Deny")).await.expect("binding");
    let api = gadgets(&c.client);
    api.create(&PostParams::default(), &gadget("g1", json!({"size": 5}))).await.expect("within the limit");
    let status = denial(api.create(&PostParams::default(), &gadget("g2", json!({"size": 6}))).await);
    assert!(status.message.ends_with("denied request: size must be at most 5"), "{}", status.message);
    bindings.delete("with-limits", &DeleteParams::default()).await.expect("unbind");
    bindings.create(&PostParams::default(), &binding("missing", "nope", "Deny")).await.expect("binding");
    let status = denial(api.create(&PostParams::default(), &gadget("g3", json!({"size": 1}))).await);
    assert!(status.message.contains("no params found"), "{}", status.message);
}

#[tokio::test]
async fn namespace_lifecycle_protects_the_default_namespaces() {
    let c = TestCluster::start().await;
    let namespaces: Api<Namespace> = Api::all(c.client.clone());
    for name in ["default", "kube-system", "kube-public"] {
        let Err(Error::Api(status)) = namespaces.delete(name, &DeleteParams::default()).await else {
            panic!("{name} was deleted")
        };
        assert_eq!(status.code, 403);
        assert_eq!(status.message, format!("namespaces \"{name}\" is forbidden: this namespace may not be deleted"));
    }
    let missing: Api<ConfigMap> = Api::namespaced(c.client.clone(), "nowhere");
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "x"}})).expect("cm");
    let Err(Error::Api(status)) = missing.create(&PostParams::default(), &cm).await else { panic!("created") };
    assert_eq!((status.code, status.message.as_str()), (404, "namespaces \"nowhere\" not found"));
}
