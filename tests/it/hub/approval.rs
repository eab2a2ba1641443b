//! CSR approval: exactly the agent's own certificate requests are approved; everything
//! else stays pending with an Event saying why.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use fleetctl_api::{ManagedCluster, ManifestWork};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::json;

use super::{Hub, bootstrap_token};
use crate::support::cluster::client_from;
use fleetctl_kube::kubeconfig::Credentials;

pub(super) struct Request<'a> {
    name: &'a str,
    cluster: &'a str,
    common_name: String,
    organizations: Vec<String>,
    usages: Vec<&'a str>,
    signer: &'a str,
    /// The addon it is for (`open-cluster-management.io/addon-name`), if any.
    addon: Option<&'a str>,
}

pub(super) fn agent_request<'a>(name: &'a str, cluster: &'a str) -> Request<'a> {
    Request {
        name,
        cluster,
        common_name: format!("system:open-cluster-management:{cluster}:agent1"),
        organizations: vec![
            format!("system:open-cluster-management:{cluster}"),
            "system:open-cluster-management:managed-clusters".into(),
        ],
        usages: vec!["digital signature", "key encipherment", "client auth"],
        signer: "kubernetes.io/kube-apiserver-client",
        addon: None,
    }
}

/// Submits the request as `client`; returns the private key PEM.
pub(super) async fn submit(client: &kube::Client, request: &Request<'_>) -> String {
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(rcgen::DnType::CommonName, request.common_name.as_str());
    let o_types = [rcgen::DnType::OrganizationName, rcgen::DnType::CustomDnType(vec![2, 5, 4, 10])];
    for (ty, o) in o_types.into_iter().zip(&request.organizations) {
        params.distinguished_name.push(ty, o.as_str());
    }
    let csr = params.serialize_request(&key).expect("csr").pem().expect("pem");
    let mut labels = json!({"open-cluster-management.io/cluster-name": request.cluster});
    if let Some(addon) = request.addon {
        labels["open-cluster-management.io/addon-name"] = json!(addon);
    }
    let object: CertificateSigningRequest = serde_json::from_value(json!({
        "metadata": {"name": request.name, "labels": labels},
        "spec": {"request": BASE64.encode(csr), "signerName": request.signer, "usages": request.usages}
    }))
    .expect("csr");
    Api::<CertificateSigningRequest>::all(client.clone())
        .create(&PostParams::default(), &object)
        .await
        .expect("submit csr");
    key.serialize_pem()
}

pub(super) async fn bootstrap_client(hub: &Hub, cluster: &str) -> kube::Client {
    hub.cluster.client_with_token(&bootstrap_token(&hub.import_secret(cluster).await["import.yaml"])).await
}

/// Waits for the refusal Event of a CSR and returns its message.
async fn refusal(hub: &Hub, name: &str) -> String {
    use futures::TryStreamExt;
    use kube::runtime::WatchStreamExt;
    let events: Api<Event> = Api::namespaced(hub.cluster.client.clone(), "default");
    let config = kube::runtime::watcher::Config::default().fields(&format!("regarding.name={name}"));
    let refusals = kube::runtime::watcher(events, config)
        .applied_objects()
        .try_filter(|e| futures::future::ready(e.reason.as_deref() == Some("CSRNotApproved")));
    let mut refusals = std::pin::pin!(refusals);
    let event = tokio::time::timeout(Duration::from_secs(10), refusals.try_next())
        .await
        .expect("a refusal event in time")
        .expect("watch")
        .expect("an event");
    let csr = Api::<CertificateSigningRequest>::all(hub.cluster.client.clone()).get(name).await.expect("csr");
    let approved = csr.status.and_then(|s| s.conditions).is_some_and(|c| c.iter().any(|c| c.type_ == "Approved"));
    assert!(!approved, "{name} must stay pending");
    event.note.unwrap_or_default()
}

pub(super) async fn approved_certificate(hub: &Hub, name: &str) -> String {
    let api = Api::<CertificateSigningRequest>::all(hub.cluster.client.clone());
    let issued = await_condition(api, name, |c: Option<&CertificateSigningRequest>| {
        c.and_then(|c| c.status.as_ref()).and_then(|s| s.certificate.as_ref()).is_some()
    });
    let csr = tokio::time::timeout(Duration::from_secs(10), issued)
        .await
        .expect("issued in time")
        .expect("watch")
        .expect("csr");
    let status = csr.status.expect("status");
    let approved =
        status.conditions.expect("conditions").into_iter().find(|c| c.type_ == "Approved").expect("approved");
    assert_eq!(approved.reason.as_deref(), Some("AutoApprovedByCSRController"));
    String::from_utf8(status.certificate.expect("certificate").0).expect("pem")
}

/// A client with the certificate the hub approves for `cluster`'s agent.
pub(super) async fn agent_client(hub: &Hub, cluster: &str) -> kube::Client {
    let bootstrap = bootstrap_client(hub, cluster).await;
    let name = format!("{cluster}-agent");
    let key = submit(&bootstrap, &agent_request(&name, cluster)).await;
    let cert = approved_certificate(hub, &name).await;
    let credentials = Credentials::Certificate { cert_pem: cert, key_pem: key };
    client_from(&hub.cluster.server.kubeconfig_as("agent", credentials)).await
}

#[tokio::test]
async fn the_agent_csr_is_approved_and_its_identity_is_confined_to_its_cluster() {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.create_cluster("c2", true).await;
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    let bootstrap = bootstrap_client(&hub, "c1").await;
    let key = submit(&bootstrap, &agent_request("c1-agent", "c1")).await;
    let cert = approved_certificate(&hub, "c1-agent").await;
    let credentials = Credentials::Certificate { cert_pem: cert, key_pem: key };
    let agent = client_from(&hub.cluster.server.kubeconfig_as("agent", credentials)).await;
    let clusters: Api<ManagedCluster> = Api::all(agent.clone());
    clusters.get("c1").await.expect("its own cluster");
    clusters
        .patch_status(
            "c1",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"version": {"kubernetes": "v1.32.0"}}})),
        )
        .await
        .expect("its own status");
    Api::<ManifestWork>::namespaced(agent.clone(), "c1").list(&Default::default()).await.expect("its works");
    Api::<k8s_openapi::api::coordination::v1::Lease>::namespaced(agent.clone(), "c1")
        .get("managed-cluster-lease")
        .await
        .expect("its lease");
    assert!(crate::support::forbidden(clusters.get("c2").await), "not another cluster");
    assert!(
        crate::support::forbidden(Api::<ManifestWork>::namespaced(agent.clone(), "c2").list(&Default::default()).await),
        "not another cluster's works"
    );
    assert!(
        crate::support::forbidden(
            Api::<k8s_openapi::api::core::v1::Secret>::namespaced(agent, "c1").list(&Default::default()).await
        ),
        "no secrets"
    );
}

#[tokio::test]
async fn every_other_csr_is_left_pending_with_an_event_saying_why() {
    let hub = Hub::start().await;
    for name in ["c1", "c2", "c3"] {
        hub.create_cluster(name, true).await;
        hub.wait_cluster(name, |c| c.is_hub_accepted()).await;
    }
    let c1 = bootstrap_client(&hub, "c1").await;
    let c3 = bootstrap_client(&hub, "c3").await;

    submit(&hub.cluster.client, &agent_request("wrong-requester", "c1")).await;
    assert!(refusal(&hub, "wrong-requester").await.contains("requester \"kubernetes-admin\""));

    let mut other_cn = agent_request("other-cn", "c1");
    other_cn.common_name = "system:open-cluster-management:c2:agent1".into();
    submit(&c1, &other_cn).await;
    assert!(refusal(&hub, "other-cn").await.contains("common name"));

    let mut other_o = agent_request("other-o", "c1");
    other_o.organizations[0] = "system:open-cluster-management:c2".into();
    submit(&c1, &other_o).await;
    assert!(refusal(&hub, "other-o").await.contains("organizations"));

    let mut extra_usage = agent_request("extra-usage", "c1");
    extra_usage.usages.push("server auth");
    submit(&c1, &extra_usage).await;
    assert!(refusal(&hub, "extra-usage").await.contains("server auth"));

    let mut other_signer = agent_request("other-signer", "c1");
    other_signer.signer = "example.com/signer";
    submit(&c1, &other_signer).await;
    assert!(refusal(&hub, "other-signer").await.contains("signer"));

    let mut other_label = agent_request("other-label", "c2");
    other_label.common_name = "system:open-cluster-management:c2:agent1".into();
    submit(&c1, &other_label).await;
    assert!(refusal(&hub, "other-label").await.contains("requester"), "c1's token cannot ask for c2");

    hub.clusters()
        .patch("c3", &PatchParams::default(), &Patch::Merge(json!({"spec": {"hubAcceptsClient": false}})))
        .await
        .expect("deny");
    submit(&c3, &agent_request("not-accepted", "c3")).await;
    assert!(refusal(&hub, "not-accepted").await.contains("not accepted"));

    // A cluster that does not exist, asked for by a ServiceAccount named like its bootstrap one.
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(hub.cluster.client.clone());
    namespaces
        .create(&PostParams::default(), &serde_json::from_value(json!({"metadata": {"name": "ghost"}})).expect("ns"))
        .await
        .expect("ns");
    let sas: Api<ServiceAccount> = Api::namespaced(hub.cluster.client.clone(), "ghost");
    sas.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": "ghost-bootstrap-sa"}})).expect("sa"),
    )
    .await
    .expect("sa");
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "ghost-csr"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:open-cluster-management:managedcluster:bootstrap:c1"},
        "subjects": [{"kind": "ServiceAccount", "name": "ghost-bootstrap-sa", "namespace": "ghost"}]});
    crate::support::cluster::raw(
        &hub.cluster.client,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        "application/json",
        binding.to_string().into_bytes(),
    )
    .await;
    let token = sas
        .create_token_request(
            "ghost-bootstrap-sa",
            &PostParams::default(),
            &serde_json::from_value(json!({"spec": {}})).expect("tr"),
        )
        .await
        .expect("token")
        .status
        .expect("status")
        .token;
    let ghost = hub.cluster.client_with_token(&token).await;
    submit(&ghost, &agent_request("missing-cluster", "ghost")).await;
    assert!(refusal(&hub, "missing-cluster").await.contains("does not exist"));

    // Already decided CSRs are left exactly as they are: made while c1 does not accept
    // clients (so they wait), decided by an admin, then judged again once it accepts.
    let accepts = |on: bool| Patch::Merge(json!({"spec": {"hubAcceptsClient": on}}));
    hub.clusters().patch("c1", &PatchParams::default(), &accepts(false)).await.expect("c1 no longer accepts");
    submit(&c1, &agent_request("denied", "c1")).await;
    assert!(refusal(&hub, "denied").await.contains("not accepted"));
    let api = Api::<CertificateSigningRequest>::all(hub.cluster.client.clone());
    let deny =
        json!({"status": {"conditions": [{"type": "Denied", "status": "True", "reason": "Admin", "message": "no"}]}});
    api.patch_approval("denied", &PatchParams::default(), &Patch::Merge(deny)).await.expect("deny");
    submit(&c1, &agent_request("pre-approved", "c1")).await;
    let approve =
        json!({"status": {"conditions": [{"type": "Approved", "status": "True", "reason": "Admin", "message": "ok"}]}});
    api.patch_approval("pre-approved", &PatchParams::default(), &Patch::Merge(approve)).await.expect("approve");
    hub.clusters().patch("c1", &PatchParams::default(), &accepts(true)).await.expect("c1 accepts again");
    // The valid one settles last: by then the earlier ones were judged again.
    submit(&c1, &agent_request("valid", "c1")).await;
    approved_certificate(&hub, "valid").await;
    let denied = api.get("denied").await.expect("denied").status.expect("status").conditions.expect("conditions");
    assert_eq!(denied.iter().map(|c| c.type_.as_str()).collect::<Vec<_>>(), ["Denied"]);
    let pre = api.get("pre-approved").await.expect("pre").status.expect("status").conditions.expect("conditions");
    assert_eq!(
        pre.iter().map(|c| c.reason.clone().unwrap_or_default()).collect::<Vec<_>>(),
        ["Admin"],
        "not approved again"
    );
}

/// The request a cluster's registration agent makes for an addon's agent: the addon
/// framework's default identity (upstream's `DefaultUser`, `DefaultGroups`).
fn addon_agent_request<'a>(name: &'a str, cluster: &'a str, addon: &'a str) -> Request<'a> {
    Request {
        common_name: format!("system:open-cluster-management:cluster:{cluster}:addon:{addon}:agent:{addon}-agent"),
        organizations: vec![
            format!("system:open-cluster-management:cluster:{cluster}:addon:{addon}"),
            format!("system:open-cluster-management:addon:{addon}"),
        ],
        addon: Some(addon),
        ..agent_request(name, cluster)
    }
}

#[tokio::test]
async fn an_addon_agents_csr_asked_by_its_clusters_agent_is_approved_as_upstreams_default_approver_once_the_cluster_has_the_addon()
 {
    let hub = Hub::start().await;
    hub.create_cluster("c1", true).await;
    hub.wait_cluster("c1", |c| c.is_hub_accepted()).await;
    let agent = agent_client(&hub, "c1").await;

    submit(&agent, &addon_agent_request("hello-early", "c1", "hello")).await;
    assert!(refusal(&hub, "hello-early").await.contains("has no addon hello"));

    let addon: fleetctl_api::ManagedClusterAddOn =
        serde_json::from_value(json!({"metadata": {"name": "hello", "namespace": "c1"}, "spec": {}})).unwrap();
    Api::<fleetctl_api::ManagedClusterAddOn>::namespaced(hub.cluster.client.clone(), "c1")
        .create(&PostParams::default(), &addon)
        .await
        .unwrap();
    submit(&agent, &addon_agent_request("hello", "c1", "hello")).await;
    let certificate = approved_certificate(&hub, "hello").await;
    assert!(certificate.contains("BEGIN CERTIFICATE"));

    // Only the agent of the cluster asks for its addons.
    let bootstrap = bootstrap_client(&hub, "c1").await;
    submit(&bootstrap, &addon_agent_request("hello-from-bootstrap", "c1", "hello")).await;
    assert!(refusal(&hub, "hello-from-bootstrap").await.contains("requester"));
}
