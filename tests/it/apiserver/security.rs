//! Identity: TLS, client certificates, ServiceAccount tokens, RBAC, access reviews
//! and the CSR signer.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use k8s_openapi::api::authentication::v1::{SelfSubjectReview, TokenRequest};
use k8s_openapi::api::authorization::v1::SubjectAccessReview;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret, ServiceAccount};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::{Value, json};

use crate::support::cluster::{TestCluster, client_from};
use fleetctl_kube::kubeconfig::Credentials;

async fn apply(c: &TestCluster, objects: Value) {
    for object in objects.as_array().expect("objects") {
        let kind = object["kind"].as_str().expect("kind");
        let (group, plural) = match kind {
            "Namespace" => ("", "namespaces"),
            "ServiceAccount" => ("", "serviceaccounts"),
            "Role" => ("rbac.authorization.k8s.io", "roles"),
            "ClusterRole" => ("rbac.authorization.k8s.io", "clusterroles"),
            "RoleBinding" => ("rbac.authorization.k8s.io", "rolebindings"),
            "ClusterRoleBinding" => ("rbac.authorization.k8s.io", "clusterrolebindings"),
            other => panic!("unexpected kind {other}"),
        };
        let namespace = object["metadata"]["namespace"].as_str();
        let base = if group.is_empty() { "/api/v1".to_string() } else { format!("/apis/{group}/v1") };
        let path = match namespace {
            Some(ns) => format!("{base}/namespaces/{ns}/{plural}"),
            None => format!("{base}/{plural}"),
        };
        let (status, body) =
            crate::support::cluster::raw(&c.client, "POST", &path, "application/json", object.to_string().into_bytes())
                .await;
        assert_eq!(status, 201, "{body}");
    }
}

fn binding(kind: &str, name: &str, namespace: Option<&str>, role_kind: &str, role: &str, subject: Value) -> Value {
    let mut meta = json!({"name": name});
    if let Some(ns) = namespace {
        meta["namespace"] = json!(ns);
    }
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role}, "subjects": [subject]})
}

fn user(name: &str) -> Value {
    json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name})
}

fn group(name: &str) -> Value {
    json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": name})
}

/// Namespaces a and b, and roles bound to alice, bob, carol, dave, group ops, group
/// viewers and ServiceAccount b/agent.
async fn rbac_fixture(c: &TestCluster) {
    let cluster_role = |name: &str, rules: Value| json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules});
    apply(c, json!([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "agent", "namespace": "b"}},
        cluster_role("cm-reader", json!([{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}])),
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "secret-one", "namespace": "a"},
         "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "update"], "resourceNames": ["s1"]}]},
        cluster_role("deploy-status", json!([{"apiGroups": ["apps"], "resources": ["deployments/status"], "verbs": ["update", "patch"]}])),
        cluster_role("leases-all", json!([{"apiGroups": ["coordination.k8s.io"], "resources": ["*"], "verbs": ["*"]}])),
        cluster_role("ns-lister", json!([{"apiGroups": [""], "resources": ["namespaces"], "verbs": ["list"]}])),
        cluster_role("cm-sweeper", json!([{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["deletecollection"]}])),
        cluster_role("metrics", json!([{"nonResourceURLs": ["/metrics", "/debug/*"], "verbs": ["get"]}])),
        binding("RoleBinding", "alice-reads", Some("a"), "ClusterRole", "cm-reader", user("alice")),
        binding("RoleBinding", "bob-secret", Some("a"), "Role", "secret-one", user("bob")),
        binding("ClusterRoleBinding", "ops-status", None, "ClusterRole", "deploy-status", group("ops")),
        binding("RoleBinding", "agent-leases", Some("b"), "ClusterRole", "leases-all",
                json!({"kind": "ServiceAccount", "name": "agent", "namespace": "b"})),
        binding("ClusterRoleBinding", "viewers-ns", None, "ClusterRole", "ns-lister", group("viewers")),
        binding("RoleBinding", "carol-sweeps", Some("b"), "ClusterRole", "cm-sweeper", user("carol")),
        binding("ClusterRoleBinding", "dave-metrics", None, "ClusterRole", "metrics", user("dave")),
    ]))
    .await;
}

/// Asks the server (as admin) whether `who` may act; `who` is (user, groups).
async fn may(c: &TestCluster, who: (&str, &[&str]), attributes: Value) -> bool {
    let review: SubjectAccessReview = serde_json::from_value(json!({
        "spec": {"user": who.0, "groups": who.1, "resourceAttributes": attributes.get("resource"), "nonResourceAttributes": attributes.get("path")}
    }))
    .expect("review");
    let api: Api<SubjectAccessReview> = Api::all(c.client.clone());
    api.create(&PostParams::default(), &review).await.expect("review").status.expect("status").allowed
}

fn res(verb: &str, group: &str, resource: &str, namespace: &str, name: &str, sub: &str) -> Value {
    json!({"resource": {"verb": verb, "group": group, "resource": resource, "namespace": namespace, "name": name, "subresource": sub}})
}

/// Why, who (user, groups), what, and whether it is allowed.
type Case<'a> = (&'a str, (&'a str, &'a [&'a str]), Value, bool);

#[tokio::test]
async fn the_rbac_matrix_allows_exactly_what_the_bindings_grant() {
    let c = TestCluster::start().await;
    rbac_fixture(&c).await;
    let authed: &[&str] = &["system:authenticated"];
    let sa = "system:serviceaccount:b:agent";
    let sa_groups: &[&str] = &["system:serviceaccounts", "system:serviceaccounts:b", "system:authenticated"];
    let cases: Vec<Case> = vec![
        (
            "a ClusterRole bound by a RoleBinding grants in its namespace",
            ("alice", authed),
            res("get", "", "configmaps", "a", "x", ""),
            true,
        ),
        ("… list too", ("alice", authed), res("list", "", "configmaps", "a", "", ""), true),
        ("… watch too", ("alice", authed), res("watch", "", "configmaps", "a", "", ""), true),
        ("… but not in another namespace", ("alice", authed), res("get", "", "configmaps", "b", "x", ""), false),
        ("… nor cluster-wide", ("alice", authed), res("list", "", "configmaps", "", "", ""), false),
        ("… nor other verbs", ("alice", authed), res("create", "", "configmaps", "a", "", ""), false),
        ("… nor other resources", ("alice", authed), res("get", "", "secrets", "a", "x", ""), false),
        ("resourceNames grant the named object", ("bob", authed), res("get", "", "secrets", "a", "s1", ""), true),
        ("… for update too", ("bob", authed), res("update", "", "secrets", "a", "s1", ""), true),
        ("… not another object", ("bob", authed), res("get", "", "secrets", "a", "s2", ""), false),
        ("… never list", ("bob", authed), res("list", "", "secrets", "a", "", ""), false),
        ("… never an unnamed create", ("bob", authed), res("create", "", "secrets", "a", "", ""), false),
        (
            "a subresource rule grants the subresource",
            ("erin", &["ops", "system:authenticated"]),
            res("patch", "apps", "deployments", "x", "d", "status"),
            true,
        ),
        (
            "… in any namespace through a ClusterRoleBinding",
            ("erin", &["ops"]),
            res("update", "apps", "deployments", "y", "d", "status"),
            true,
        ),
        ("… not the main resource", ("erin", &["ops"]), res("patch", "apps", "deployments", "x", "d", ""), false),
        (
            "… not another group's resource",
            ("erin", &["ops"]),
            res("patch", "", "deployments", "x", "d", "status"),
            false,
        ),
        ("groups are matched by name", ("frank", &["viewers"]), res("list", "", "namespaces", "", "", ""), true),
        (
            "… and a user outside the group is denied",
            ("frank", &["other"]),
            res("list", "", "namespaces", "", "", ""),
            false,
        ),
        (
            "a ServiceAccount subject matches its user",
            (sa, sa_groups),
            res("create", "coordination.k8s.io", "leases", "b", "", ""),
            true,
        ),
        ("… wildcard verbs", (sa, sa_groups), res("delete", "coordination.k8s.io", "leases", "b", "l", ""), true),
        (
            "… wildcard resources include subresources",
            (sa, sa_groups),
            res("update", "coordination.k8s.io", "leases", "b", "l", "status"),
            true,
        ),
        (
            "… only in its namespace",
            (sa, sa_groups),
            res("create", "coordination.k8s.io", "leases", "a", "", ""),
            false,
        ),
        ("… only its API group", (sa, sa_groups), res("get", "", "configmaps", "b", "x", ""), false),
        (
            "a ServiceAccount of another namespace does not match",
            ("system:serviceaccount:a:agent", authed),
            res("create", "coordination.k8s.io", "leases", "b", "", ""),
            false,
        ),
        (
            "deletecollection is its own verb",
            ("carol", authed),
            res("deletecollection", "", "configmaps", "b", "", ""),
            true,
        ),
        ("… which does not grant delete", ("carol", authed), res("delete", "", "configmaps", "b", "x", ""), false),
        ("nonResourceURLs match exactly", ("dave", authed), json!({"path": {"path": "/metrics", "verb": "get"}}), true),
        (
            "… or by a trailing wildcard",
            ("dave", authed),
            json!({"path": {"path": "/debug/pprof", "verb": "get"}}),
            true,
        ),
        ("… and only with their verbs", ("dave", authed), json!({"path": {"path": "/metrics", "verb": "post"}}), false),
        (
            "discovery is open to the authenticated",
            ("nobody", authed),
            json!({"path": {"path": "/apis/apps/v1", "verb": "get"}}),
            true,
        ),
        (
            "… but not to the unauthenticated",
            ("nobody", &["system:unauthenticated"]),
            json!({"path": {"path": "/apis", "verb": "get"}}),
            false,
        ),
        (
            "basic-user may review itself",
            ("nobody", authed),
            res("create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""),
            true,
        ),
        (
            "system:masters may do anything",
            ("root", &["system:masters"]),
            res("delete", "", "nodes", "", "n", ""),
            true,
        ),
        ("nobody else may by default", ("nobody", authed), res("get", "", "secrets", "default", "x", ""), false),
    ];
    let mut wrong = Vec::new();
    for (why, who, attributes, expected) in &cases {
        if may(&c, *who, attributes.clone()).await != *expected {
            wrong.push(format!("{why}: expected {expected}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn real_requests_are_authorized_and_denials_read_as_upstream() {
    let c = TestCluster::start().await;
    rbac_fixture(&c).await;
    let alice = c.client_as("alice", &[]).await;
    let in_a: Api<ConfigMap> = Api::namespaced(alice.clone(), "a");
    assert!(in_a.list(&Default::default()).await.is_ok());
    let in_b: Api<ConfigMap> = Api::namespaced(alice.clone(), "b");
    let kube::Error::Api(denied) = in_b.list(&Default::default()).await.expect_err("denied") else { panic!() };
    assert_eq!(denied.code, 403);
    assert_eq!(
        denied.message,
        "configmaps is forbidden: User \"alice\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"b\""
    );
    let secrets: Api<Secret> = Api::namespaced(alice, "a");
    let kube::Error::Api(denied) = secrets.get("s1").await.expect_err("denied") else { panic!() };
    assert_eq!(
        denied.message,
        "secrets \"s1\" is forbidden: User \"alice\" cannot get resource \"secrets\" in API group \"\" in the namespace \"a\""
    );
    let who = Api::<SelfSubjectReview>::all(c.client_as("erin", &["ops"]).await)
        .create(&PostParams::default(), &serde_json::from_value(json!({})).expect("review"))
        .await
        .expect("whoami");
    let info = who.status.expect("status").user_info.expect("user info");
    assert_eq!(info.username.as_deref(), Some("erin"));
    assert_eq!(info.groups, Some(vec!["ops".to_string(), "system:authenticated".to_string()]));
}

#[tokio::test]
async fn requests_without_credentials_are_system_anonymous_and_forbidden_except_health_and_version() {
    let c = TestCluster::start().await;
    let mut config = kube::Config::new(c.server.url().parse().expect("url"));
    config.root_cert = Some(vec![crate::support::cluster::der_of(c.server.ca_pem())]);
    let anonymous = kube::Client::try_from(config).expect("client");
    let kube::Error::Api(status) =
        Api::<ConfigMap>::namespaced(anonymous.clone(), "default").list(&Default::default()).await.expect_err("403")
    else {
        panic!()
    };
    // kube-apiserver's --anonymous-auth: authenticated as system:anonymous, refused by RBAC.
    assert_eq!(status.code, 403, "{status:?}");
    assert!(status.message.contains(r#"User "system:anonymous" cannot list resource "configmaps""#), "{status:?}");
    assert!(anonymous.apiserver_version().await.is_ok(), "/version is public");
    let (code, _) = crate::support::cluster::raw(&anonymous, "GET", "/readyz", "", Vec::new()).await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn a_client_certificate_from_another_ca_is_refused() {
    let c = TestCluster::start().await;
    let other = TestCluster::start().await;
    let foreign = other.server.client_certificate("mallory", &["system:masters"]).expect("cert");
    let credentials = Credentials::Certificate { cert_pem: foreign.cert_pem, key_pem: foreign.key_pem };
    let mallory = client_from(&c.server.kubeconfig_as("test", credentials)).await;
    let kube::Error::Api(status) =
        Api::<ConfigMap>::namespaced(mallory, "default").list(&Default::default()).await.expect_err("401")
    else {
        panic!("expected an API error")
    };
    assert_eq!(status.code, 401);
}

async fn token_for(c: &TestCluster, namespace: &str, name: &str, spec: Value) -> String {
    let request: TokenRequest = serde_json::from_value(json!({"spec": spec})).expect("token request");
    let sas: Api<ServiceAccount> = Api::namespaced(c.client.clone(), namespace);
    let issued = sas.create_token_request(name, &PostParams::default(), &request).await.expect("token");
    issued.status.expect("status").token
}

#[tokio::test]
async fn service_account_tokens_authenticate_until_tampered_or_orphaned() {
    let c = TestCluster::start().await;
    rbac_fixture(&c).await;
    let token = token_for(&c, "b", "agent", json!({"expirationSeconds": 600})).await;
    let agent = c.client_with_token(&token).await;
    let leases: Api<Lease> = Api::namespaced(agent.clone(), "b");
    let lease: Lease =
        serde_json::from_value(json!({"metadata": {"name": "l"}, "spec": {"holderIdentity": "me"}})).expect("lease");
    leases.create(&PostParams::default(), &lease).await.expect("the agent may create leases in b");
    let kube::Error::Api(denied) =
        Api::<ConfigMap>::namespaced(agent, "b").list(&Default::default()).await.expect_err("denied")
    else {
        panic!()
    };
    assert_eq!(denied.code, 403);
    assert!(denied.message.contains("User \"system:serviceaccount:b:agent\" cannot list"), "{}", denied.message);

    let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
    let mut claims: Value =
        serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&parts[1]).expect("b64"))
            .expect("claims");
    claims["sub"] = json!("system:serviceaccount:kube-system:admin");
    parts[1] = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims.to_string());
    let forged = c.client_with_token(&parts.join(".")).await;
    let kube::Error::Api(status) =
        Api::<Lease>::namespaced(forged, "b").list(&Default::default()).await.expect_err("401")
    else {
        panic!()
    };
    assert_eq!(status.code, 401);

    let other_audience = token_for(&c, "b", "agent", json!({"audiences": ["vault"]})).await;
    let vault = c.client_with_token(&other_audience).await;
    let kube::Error::Api(status) =
        Api::<Lease>::namespaced(vault, "b").list(&Default::default()).await.expect_err("401")
    else {
        panic!()
    };
    assert_eq!(status.code, 401, "a token for another audience does not authenticate to the API");

    Api::<ServiceAccount>::namespaced(c.client.clone(), "b")
        .delete("agent", &DeleteParams::default())
        .await
        .expect("delete sa");
    let orphan = c.client_with_token(&token).await;
    let kube::Error::Api(status) =
        Api::<Lease>::namespaced(orphan, "b").list(&Default::default()).await.expect_err("401")
    else {
        panic!()
    };
    assert_eq!(status.code, 401, "a token dies with its ServiceAccount");
}

#[tokio::test]
async fn a_token_request_shorter_than_ten_minutes_is_invalid() {
    let c = TestCluster::start().await;
    let request: TokenRequest =
        serde_json::from_value(json!({"spec": {"expirationSeconds": 60}})).expect("token request");
    let sas: Api<ServiceAccount> = Api::namespaced(c.client.clone(), "default");
    let kube::Error::Api(status) =
        sas.create_token_request("default", &PostParams::default(), &request).await.expect_err("invalid")
    else {
        panic!()
    };
    assert_eq!(status.code, 422);
}

fn csr_pem(common_name: &str, groups: &[&str]) -> (String, String) {
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(rcgen::DnType::CommonName, common_name);
    if let Some(first) = groups.first() {
        params.distinguished_name.push(rcgen::DnType::OrganizationName, *first);
    }
    let csr = params.serialize_request(&key).expect("csr").pem().expect("pem");
    (csr, key.serialize_pem())
}

async fn submit(client: &kube::Client, name: &str, csr: &str, usages: &[&str]) -> Api<CertificateSigningRequest> {
    let api: Api<CertificateSigningRequest> = Api::all(client.clone());
    let object: CertificateSigningRequest = serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"request": BASE64.encode(csr), "signerName": "kubernetes.io/kube-apiserver-client", "usages": usages,
                 "expirationSeconds": 3600, "username": "forged"}
    }))
    .expect("csr");
    api.create(&PostParams::default(), &object).await.expect("create csr");
    api
}

async fn approve(api: &Api<CertificateSigningRequest>, name: &str) {
    let approval = json!({"status": {"conditions": [{"type": "Approved", "status": "True", "reason": "Test", "message": "approved by the test"}]}});
    api.patch_approval(name, &PatchParams::default(), &Patch::Merge(approval)).await.expect("approve");
}

async fn settled(api: &Api<CertificateSigningRequest>, name: &str) -> CertificateSigningRequest {
    let done = await_condition(api.clone(), name, |o: Option<&CertificateSigningRequest>| {
        o.and_then(|c| c.status.as_ref())
            .is_some_and(|s| s.certificate.is_some() || s.conditions.iter().flatten().any(|c| c.type_ == "Failed"))
    });
    tokio::time::timeout(Duration::from_secs(5), done).await.expect("settled in time").expect("watch").expect("exists")
}

#[tokio::test]
async fn an_approved_csr_yields_a_certificate_that_authenticates_with_its_rbac() {
    let c = TestCluster::start().await;
    rbac_fixture(&c).await;
    let requester = c.client_as("requester", &[]).await;
    let (csr, key) = csr_pem("carol", &["viewers"]);
    let admin_view: Api<CertificateSigningRequest> = Api::all(c.client.clone());
    let cluster_role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "csr-maker"},
        "rules": [{"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests"], "verbs": ["create", "get", "list", "watch"]}]});
    apply(
        &c,
        json!([
            cluster_role,
            binding("ClusterRoleBinding", "requester-csr", None, "ClusterRole", "csr-maker", user("requester"))
        ]),
    )
    .await;
    submit(&requester, "carol-1", &csr, &["digital signature", "client auth"]).await;
    let stored = admin_view.get("carol-1").await.expect("csr");
    assert_eq!(
        stored.spec.username.as_deref(),
        Some("requester"),
        "the server records who asked, not what the body says"
    );
    approve(&admin_view, "carol-1").await;
    let signed = settled(&admin_view, "carol-1").await;
    let cert = signed.status.expect("status").certificate.expect("certificate").0;
    let credentials = Credentials::Certificate { cert_pem: String::from_utf8(cert).expect("PEM"), key_pem: key };
    let carol = client_from(&c.server.kubeconfig_as("test", credentials)).await;
    Api::<Namespace>::all(carol.clone()).list(&Default::default()).await.expect("group viewers may list namespaces");
    Api::<ConfigMap>::namespaced(carol.clone(), "b")
        .delete_collection(&DeleteParams::default(), &Default::default())
        .await
        .expect("carol may sweep b");
    assert!(
        crate::support::forbidden(Api::<ConfigMap>::namespaced(carol, "a").list(&Default::default()).await),
        "nothing more"
    );
}

#[tokio::test]
async fn the_signer_fails_csrs_it_must_not_honour() {
    let c = TestCluster::start().await;
    let (csr, _) = csr_pem("mallory", &[]);
    // Left unapproved; the signer sees it before the others, which settle below.
    submit(&c.client, "pending", &csr, &["client auth"]).await;
    let api = submit(&c.client, "server-usage", &csr, &["digital signature", "server auth"]).await;
    approve(&api, "server-usage").await;
    let failed = settled(&api, "server-usage").await;
    let condition = failed
        .status
        .expect("status")
        .conditions
        .expect("conditions")
        .into_iter()
        .find(|c| c.type_ == "Failed")
        .expect("Failed");
    assert_eq!(condition.message.as_deref(), Some("invalid usage for client certificate: server auth"));

    let (masters, _) = csr_pem("mallory", &["system:masters"]);
    submit(&c.client, "masters", &masters, &["client auth"]).await;
    approve(&api, "masters").await;
    let failed = settled(&api, "masters").await;
    assert!(failed.status.expect("status").certificate.is_none());
    assert!(
        api.get("pending").await.expect("csr").status.and_then(|s| s.certificate).is_none(),
        "unapproved CSRs are never signed"
    );
}

#[tokio::test]
async fn the_approval_subresource_changes_only_approved_and_denied() {
    let c = TestCluster::start().await;
    let (csr, _) = csr_pem("x", &[]);
    let api = submit(&c.client, "x", &csr, &["client auth"]).await;
    let other =
        json!({"status": {"conditions": [{"type": "Failed", "status": "True", "reason": "Nope", "message": "no"}]}});
    let kube::Error::Api(status) =
        api.patch_approval("x", &PatchParams::default(), &Patch::Merge(other)).await.expect_err("refused")
    else {
        panic!()
    };
    assert_eq!(status.code, 422);
    let deny =
        json!({"status": {"conditions": [{"type": "Denied", "status": "True", "reason": "No", "message": "denied"}]}});
    let denied = api.patch_approval("x", &PatchParams::default(), &Patch::Merge(deny)).await.expect("deny");
    assert_eq!(denied.status.expect("status").conditions.expect("conditions")[0].type_, "Denied");
}
