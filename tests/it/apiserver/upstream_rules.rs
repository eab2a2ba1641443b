//! Rules of kube-apiserver that upstream's own clients (OCM's operators and integration
//! suites, ACM's import controller, controller-runtime) found missing: each test names the
//! rule it checks.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::core::v1::{ConfigMap, Node, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::rbac::v1::{ClusterRole, Role, RoleBinding};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use kube::core::PartialObjectMeta;
use serde_json::json;

use crate::support::cluster::{TestCluster, raw};

fn post() -> PostParams {
    PostParams::default()
}

fn refusal<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> kube::core::Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// A ServiceAccount `team/manager` allowed to write Roles and RoleBindings in `team` (and
/// read ConfigMaps there), with a client authenticating as it.
async fn role_manager(c: &TestCluster, extra_verbs: &[&str]) -> kube::Client {
    let mut verbs = vec!["create", "update", "get"];
    verbs.extend_from_slice(extra_verbs);
    let role: Role = serde_json::from_value(json!({"metadata": {"name": "manager", "namespace": "team"}, "rules": [
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"], "verbs": verbs},
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]}))
    .unwrap();
    let binding: RoleBinding = serde_json::from_value(json!({"metadata": {"name": "manager", "namespace": "team"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "manager"},
        "subjects": [{"kind": "ServiceAccount", "name": "manager", "namespace": "team"}]}))
    .unwrap();
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(c.client.clone());
    namespaces.create(&post(), &serde_json::from_value(json!({"metadata": {"name": "team"}})).unwrap()).await.unwrap();
    Api::<ServiceAccount>::namespaced(c.client.clone(), "team")
        .create(&post(), &serde_json::from_value(json!({"metadata": {"name": "manager"}})).unwrap())
        .await
        .unwrap();
    Api::<Role>::namespaced(c.client.clone(), "team").create(&post(), &role).await.unwrap();
    Api::<RoleBinding>::namespaced(c.client.clone(), "team").create(&post(), &binding).await.unwrap();
    c.client_as("system:serviceaccount:team:manager", &["system:serviceaccounts", "system:serviceaccounts:team"]).await
}

fn secrets_role(name: &str) -> Role {
    serde_json::from_value(json!({"metadata": {"name": name, "namespace": "team"},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["*"]}]}))
    .unwrap()
}

fn binding_to(name: &str, kind: &str, role: &str) -> RoleBinding {
    serde_json::from_value(json!({"metadata": {"name": name, "namespace": "team"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": "manager", "namespace": "team"}]}))
    .unwrap()
}

#[tokio::test]
async fn rbac_refuses_a_role_or_binding_that_grants_rights_its_writer_does_not_hold_unless_it_may_escalate_or_bind() {
    let c = TestCluster::start().await;
    let manager = role_manager(&c, &[]).await;
    let roles: Api<Role> = Api::namespaced(manager.clone(), "team");
    let bindings: Api<RoleBinding> = Api::namespaced(manager.clone(), "team");

    let refused = refusal(roles.create(&post(), &secrets_role("steal")).await);
    assert_eq!(refused.code, 403, "{refused:?}");
    assert!(refused.message.contains("is attempting to grant RBAC permissions not currently held"), "{refused:?}");
    assert!(refused.message.contains(r#"{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}"#), "{refused:?}");
    // Binding itself to a role that reads secrets (the admin made it) is refused the same way.
    Api::<Role>::namespaced(c.client.clone(), "team").create(&post(), &secrets_role("secrets")).await.unwrap();
    let refused = refusal(bindings.create(&post(), &binding_to("steal", "Role", "secrets")).await);
    assert_eq!(refused.code, 403, "{refused:?}");
    let refused = refusal(bindings.create(&post(), &binding_to("admin", "ClusterRole", "admin")).await);
    assert_eq!(refused.code, 403, "{refused:?}");
    // A role that does not exist has no rules to check: upstream answers 404.
    let refused = refusal(bindings.create(&post(), &binding_to("ghost", "Role", "nope")).await);
    assert_eq!(refused.code, 404, "{refused:?}");

    // Rules it holds itself it may grant.
    let readers: Role = serde_json::from_value(json!({"metadata": {"name": "readers", "namespace": "team"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]}))
    .unwrap();
    roles.create(&post(), &readers).await.expect("a subset of its own rights");

    // `escalate` on roles and `bind` on the role lift the check.
    let trusted = role_manager_with_more(&c).await;
    Api::<Role>::namespaced(trusted.clone(), "team").create(&post(), &secrets_role("granted")).await.expect("escalate");
    Api::<RoleBinding>::namespaced(trusted, "team")
        .create(&post(), &binding_to("granted", "Role", "secrets"))
        .await
        .expect("bind");
}

/// The same ServiceAccount, once its role also grants `escalate` and `bind`.
async fn role_manager_with_more(c: &TestCluster) -> kube::Client {
    let role: Role = serde_json::from_value(json!({"metadata": {"name": "manager", "namespace": "team"}, "rules": [
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"], "verbs": ["create", "update", "get", "escalate", "bind"]},
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]}))
    .unwrap();
    let roles: Api<Role> = Api::namespaced(c.client.clone(), "team");
    let mut current = roles.get("manager").await.unwrap();
    current.rules = role.rules;
    roles.replace("manager", &post(), &current).await.unwrap();
    c.client_as("system:serviceaccount:team:manager", &["system:serviceaccounts", "system:serviceaccounts:team"]).await
}

#[tokio::test]
async fn the_user_facing_cluster_roles_exist_and_aggregate_the_roles_labelled_for_them() {
    let c = TestCluster::start().await;
    let roles: Api<ClusterRole> = Api::all(c.client.clone());
    let extra: ClusterRole = serde_json::from_value(json!({
        "metadata": {"name": "widgets-view", "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}]}))
    .unwrap();
    roles.create(&post(), &extra).await.unwrap();
    let holds = |role: &ClusterRole, resource: &str| {
        role.rules.iter().flatten().any(|r| r.resources.iter().flatten().any(|x| x == resource))
    };
    // The aggregation controller writes the rules: view's reach edit, edit's reach admin.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (view, edit, admin) =
            (roles.get("view").await.unwrap(), roles.get("edit").await.unwrap(), roles.get("admin").await.unwrap());
        let done = holds(&view, "widgets") && holds(&view, "configmaps") && !holds(&view, "secrets");
        let done = done && holds(&edit, "widgets") && holds(&edit, "secrets") && !holds(&edit, "roles");
        if done && holds(&admin, "widgets") && holds(&admin, "secrets") && holds(&admin, "roles") {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not aggregated: view {view:?}\nedit {edit:?}\nadmin {admin:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_node_registered_with_its_status_keeps_it_as_kubelets_register() {
    let c = TestCluster::start().await;
    let nodes: Api<Node> = Api::all(c.client.clone());
    let node: Node = serde_json::from_value(json!({"metadata": {"name": "n1"},
        "status": {"capacity": {"cpu": "4"}, "conditions": [{"type": "Ready", "status": "True"}]}}))
    .unwrap();
    let created = nodes.create(&post(), &node).await.unwrap();
    let status = created.status.expect("status kept");
    assert_eq!(status.capacity.unwrap()["cpu"].0, "4");
    // Other kinds with a status subresource still start without one.
    let daemonsets: Api<DaemonSet> = Api::namespaced(c.client.clone(), "default");
    let ds: DaemonSet = serde_json::from_value(json!({"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}},
        "status": {"numberReady": 3, "currentNumberScheduled": 3, "desiredNumberScheduled": 3, "numberMisscheduled": 0}}))
    .unwrap();
    let created = daemonsets.create(&post(), &ds).await.unwrap();
    assert!(created.status.is_none_or(|s| s.number_ready == 0), "a create does not set a DaemonSet's status");
}

#[tokio::test]
async fn a_token_request_answer_carries_the_time_its_token_was_issued() {
    let c = TestCluster::start().await;
    let accounts: Api<ServiceAccount> = Api::namespaced(c.client.clone(), "default");
    accounts.create(&post(), &serde_json::from_value(json!({"metadata": {"name": "bot"}})).unwrap()).await.unwrap();
    let request: TokenRequest =
        serde_json::from_value(json!({"spec": {"audiences": [], "expirationSeconds": 3600}})).unwrap();
    let answer: TokenRequest = accounts.create_subresource("token", "bot", &post(), &request).await.unwrap();
    let created = answer.metadata.creation_timestamp.expect("creationTimestamp").0;
    let expires = answer.status.expect("status").expiration_timestamp.0;
    assert_eq!(expires.duration_since(created).as_secs(), 3600, "the token lives an hour from its creation");
}

#[tokio::test]
async fn kube_apiserver_publishes_its_client_ca_in_extension_apiserver_authentication() {
    let c = TestCluster::start().await;
    let maps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "kube-system");
    let published = maps.get("extension-apiserver-authentication").await.unwrap();
    let bundle = &published.data.unwrap()["client-ca-file"];
    assert!(bundle.contains(c.server.ca_pem().trim()), "the cluster CA signs the client certificates it accepts");
}

#[tokio::test]
async fn a_metadata_only_watch_gets_its_bookmarks_as_partial_object_metadata() {
    let c = TestCluster::with_settings(fleetctl_apiserver::Settings {
        bookmark_interval: Duration::from_millis(100),
        ..Default::default()
    })
    .await;
    let maps: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let params = kube::api::WatchParams::default();
    let mut events = maps.watch_metadata(&params, "0").await.unwrap().boxed();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let event = tokio::time::timeout_at(deadline, events.next()).await.expect("a bookmark in time");
        match event.expect("open").expect("decodes as PartialObjectMetadata") {
            kube::api::WatchEvent::Bookmark(bookmark) => {
                assert_eq!(bookmark.types.kind, "PartialObjectMetadata");
                assert_eq!(bookmark.types.api_version, "meta.k8s.io/v1");
                break;
            }
            kube::api::WatchEvent::<PartialObjectMeta<ConfigMap>>::Error(e) => panic!("{e:?}"),
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_null_in_a_custom_resource_field_that_is_not_nullable_is_pruned_on_create_update_and_status() {
    let c = TestCluster::start().await;
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "note": {"type": "string", "nullable": true}}},
                    "status": {"type": "object", "properties": {"conditions": {"type": "array", "items": {"type": "object",
                        "x-kubernetes-preserve-unknown-fields": true}}}}}}}}]}});
    let (code, body) = raw(
        &c.client,
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        "application/json",
        crd.to_string().into_bytes(),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Gadget");
    let gadgets: Api<DynamicObject> =
        Api::namespaced_with(c.client.clone(), "default", &ApiResource::from_gvk_with_plural(&gvk, "gadgets"));
    let gadget: DynamicObject = serde_json::from_value(json!({"apiVersion": "example.com/v1", "kind": "Gadget",
        "metadata": {"name": "g"}, "spec": {"size": null, "note": null}}))
    .unwrap();
    let created = gadgets.create(&post(), &gadget).await.expect("a null is pruned, not refused");
    assert_eq!(created.data["spec"], json!({"note": null}), "nullable nulls stay");
    let mut with_status = created.clone();
    with_status.data["status"] = json!({"conditions": null});
    let status = gadgets.replace_status("g", &post(), &with_status).await.expect("a status null is pruned too");
    assert!(status.data.get("status").is_none_or(|s| s.get("conditions").is_none()), "{:?}", status.data);
    let mut next = status.clone();
    next.data["spec"]["size"] = json!(2);
    gadgets.replace("g", &post(), &next).await.expect("later updates are not refused for a stored null");
}

#[tokio::test]
async fn kube_apiserver_1_32s_workload_and_network_apis_are_served() {
    let c = TestCluster::start().await;
    let policies: Api<NetworkPolicy> = Api::namespaced(c.client.clone(), "default");
    let policy: NetworkPolicy = serde_json::from_value(
        json!({"metadata": {"name": "deny"}, "spec": {"podSelector": {}, "policyTypes": ["Ingress"]}}),
    )
    .unwrap();
    let created = policies.create(&post(), &policy).await.expect("networkpolicies are served");
    assert_eq!(created.metadata.generation, Some(1));
    let (code, body) = raw(&c.client, "GET", "/apis/apiregistration.k8s.io/v1/apiservices", "", Vec::new()).await;
    assert_eq!(code, 200, "{body}");
    let (code, body) = raw(&c.client, "GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", "", Vec::new()).await;
    assert_eq!(code, 200, "{body}");
}

/// kube-apiserver decodes every write of a built-in kind into its Go type and encodes it back:
/// a zero `metav1.Time` is written as `null`. OCM's work suite ("Status feedback with
/// RawJsonString enabled") writes a Deployment condition without times through `/status`
/// and expects the work agent's JSON-path feedback to read `"lastUpdateTime":null` after the
/// agent's next server-side apply of the Deployment.
#[tokio::test]
async fn a_zero_time_written_through_status_reads_back_null_after_writes_of_the_main_resource() {
    let c = TestCluster::with_settings(fleetctl_apiserver::Settings {
        controller_manager: false,
        ..fleetctl_apiserver::Settings::default()
    })
    .await;
    let path = "/apis/apps/v1/namespaces/default/deployments/d";
    let deployment = |image: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": image}]}}}})
    };
    let apply_path = format!("{path}?fieldManager=agent&force=true");
    let apply = |image: &str| {
        let body = deployment(image).to_string().into_bytes();
        raw(&c.client, "PATCH", &apply_path, "application/apply-patch+yaml", body)
    };
    let (code, created) = apply("i1").await;
    assert_eq!(code, 201, "{created}");
    let mut with_status = created.clone();
    with_status["status"] = json!({"conditions": [
        {"type": "Available", "status": "True", "lastUpdateTime": null, "lastTransitionTime": null}]});
    let (code, written) =
        raw(&c.client, "PUT", &format!("{path}/status"), "application/json", with_status.to_string().into_bytes())
            .await;
    assert_eq!(code, 200, "{written}");
    let expected = json!([{"lastTransitionTime": null, "lastUpdateTime": null, "status": "True", "type": "Available"}]);
    assert_eq!(written["status"]["conditions"], expected);

    // The main resource's defaulting rewrites the whole object: the nulls stay.
    let (code, applied) = apply("i2").await;
    assert_eq!(code, 200, "{applied}");
    assert_eq!(applied["status"]["conditions"], expected, "after a server-side apply");
    let merge = json!({"metadata": {"labels": {"x": "y"}}}).to_string().into_bytes();
    let (code, patched) = raw(&c.client, "PATCH", path, "application/merge-patch+json", merge).await;
    assert_eq!(code, 200, "{patched}");
    let (_, read) = raw(&c.client, "GET", path, "", Vec::new()).await;
    assert_eq!(read["status"]["conditions"], expected, "after a merge patch");
    assert_eq!(read["spec"]["template"]["spec"]["containers"][0]["image"], "i2");
}
