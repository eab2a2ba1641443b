//! The registration agent between an in-process hub (its controllers running) and an
//! in-process managed cluster, reached through a proxy the tests can cut: every way its
//! hub credentials can go — deleted, corrupted, for another cluster, refused by the hub,
//! due for renewal (also while the hub is unreachable) — heals with exactly one new CSR;
//! and the operator's `HubConnectionDegraded` says what it finds.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use fleetctl_agent::Clusters;
use fleetctl_agent::operator::{OperatorSettings, controller as operator};
use fleetctl_agent::registration::credentials::{Expected, judge};
use fleetctl_agent::registration::{Identity, Settings, agent};
use fleetctl_api::conditions::{self as c, LABEL_CLUSTER_NAME};
use fleetctl_api::names::{AGENT_NAMESPACE, BOOTSTRAP_SECRET, CLUSTER_LEASE, HUB_KUBECONFIG_SECRET};
use fleetctl_api::{Klusterlet, KlusterletSpec};
use fleetctl_hub::HubAddress;
use fleetctl_kube::kubeconfig::{self, Credentials, Names, secret_data};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use kube::{CustomResourceExt, ResourceExt};
use serde_json::{Value, json};

use crate::hub::Hub;
use crate::support::cluster::TestCluster;
use crate::support::proxy::Proxy;

const WAIT: Duration = Duration::from_secs(20);
const CLUSTER: &str = "c1";
const AGENT_ID: &str = "agent1";

/// A hub behind a proxy, a managed cluster holding the bootstrap secret of the hub's
/// import, and the registration agent between them.
struct Fleet {
    hub: Hub,
    proxy: Proxy,
    managed: TestCluster,
    bootstrap: Secret,
    agent: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        if let Some(agent) = self.agent.take() {
            agent.abort();
        }
    }
}

impl Fleet {
    /// Everything, the agent joined (its first CSR issued, the cluster Available).
    async fn joined() -> Self {
        let mut proxy = None;
        let hub = Hub::with(|config| {
            let HubAddress::External { url, ca_pem } = &config.address else { panic!("an external address") };
            let target = url.strip_prefix("https://").expect("https").parse().expect("address");
            let forwarder = Proxy::start(target);
            config.address = HubAddress::External { url: forwarder.url(), ca_pem: ca_pem.clone() };
            proxy = Some(forwarder);
        })
        .await;
        let proxy = proxy.expect("proxy");
        hub.create_cluster(CLUSTER, true).await;
        let bootstrap = bootstrap_secret(&hub.import_secret(CLUSTER).await["import.yaml"]);
        let managed = TestCluster::start().await;
        let mut namespace = Namespace::default();
        namespace.metadata.name = Some(AGENT_NAMESPACE.into());
        Api::<Namespace>::all(managed.client.clone()).create(&PostParams::default(), &namespace).await.expect("ns");
        Api::<CustomResourceDefinition>::all(managed.client.clone())
            .create(&PostParams::default(), &Klusterlet::crd())
            .await
            .expect("klusterlet crd");
        let mut fleet = Self { hub, proxy, managed, bootstrap, agent: None };
        fleet.write_bootstrap().await;
        fleet.start_agent(Settings::default());
        fleet.wait_healthy().await;
        assert_eq!(fleet.csrs().await.len(), 1, "one CSR to join");
        fleet
    }

    fn start_agent(&mut self, settings: Settings) {
        if let Some(agent) = self.agent.take() {
            agent.abort();
        }
        let identity =
            Identity { cluster: CLUSTER.into(), agent_id: AGENT_ID.into(), namespace: AGENT_NAMESPACE.into() };
        self.agent = Some(tokio::spawn(agent(Clusters::one(self.managed.client.clone()), identity, settings)));
    }

    fn stop_agent(&mut self) {
        // Aborted, as a killed process.
        if let Some(agent) = self.agent.take() {
            agent.abort();
        }
    }

    fn secrets(&self) -> Api<Secret> {
        Api::namespaced(self.managed.client.clone(), AGENT_NAMESPACE)
    }

    async fn write_bootstrap(&self) {
        self.secrets()
            .patch(BOOTSTRAP_SECRET, &PatchParams::apply("test").force(), &Patch::Apply(&self.bootstrap))
            .await
            .expect("bootstrap secret");
    }

    /// The cluster's CSRs on the hub.
    async fn csrs(&self) -> Vec<CertificateSigningRequest> {
        let ours = ListParams::default().labels(&format!("{LABEL_CLUSTER_NAME}={CLUSTER}"));
        Api::<CertificateSigningRequest>::all(self.hub.cluster.client.clone()).list(&ours).await.expect("csrs").items
    }

    /// Waits until the stored hub kubeconfig is one the agent would use, issued after
    /// `after` (a resourceVersion), and the hub sees the cluster joined and available.
    async fn wait_healed_after(&self, after: Option<String>) -> Secret {
        let fits = move |s: Option<&Secret>| {
            s.is_some_and(|s| {
                s.resource_version() != after
                    && judge(Some(s), Expected { cluster: CLUSTER, agent_id: AGENT_ID }, None, jiff::Timestamp::now())
                        .is_ok()
            })
        };
        let secret = tokio::time::timeout(WAIT, await_condition(self.secrets(), HUB_KUBECONFIG_SECRET, fits))
            .await
            .expect("the hub kubeconfig heals in time")
            .expect("watch")
            .expect("secret");
        self.hub.wait_cluster(CLUSTER, |c| c.is_joined() && c.is_available()).await;
        secret
    }

    async fn wait_healthy(&self) -> Secret {
        self.wait_healed_after(None).await
    }

    /// Writes `hub-kubeconfig-secret` as the agent would, with the given certificate;
    /// returns the resourceVersion written.
    async fn write_hub_secret(&self, cert_pem: &str, key_pem: &str) -> Option<String> {
        let credentials = Credentials::Certificate { cert_pem: cert_pem.into(), key_pem: key_pem.into() };
        let config =
            kubeconfig::single(Names::same("hub"), &self.proxy.url(), self.hub.cluster.server.ca_pem(), credentials);
        let values = BTreeMap::from([
            ("kubeconfig".to_string(), kubeconfig::to_yaml(&config)),
            ("tls.crt".to_string(), cert_pem.to_string()),
            ("tls.key".to_string(), key_pem.to_string()),
            ("cluster-name".to_string(), CLUSTER.to_string()),
            ("agent-name".to_string(), AGENT_ID.to_string()),
        ]);
        let mut secret = Secret { data: Some(secret_data(values)), ..Secret::default() };
        secret.metadata.name = Some(HUB_KUBECONFIG_SECRET.into());
        let written = self
            .secrets()
            .patch(HUB_KUBECONFIG_SECRET, &PatchParams::apply("test").force(), &Patch::Apply(&secret))
            .await
            .expect("write the hub secret");
        written.resource_version()
    }

    async fn patch_hub_secret(&self, key: &str, value: &str) -> Option<String> {
        let patch = json!({"data": {key: BASE64.encode(value)}});
        let patched = self
            .secrets()
            .patch(HUB_KUBECONFIG_SECRET, &PatchParams::default(), &Patch::Merge(patch))
            .await
            .expect("patch the hub secret");
        patched.resource_version()
    }
}

/// The `bootstrap-hub-kubeconfig` Secret inside an import secret's `import.yaml`.
fn bootstrap_secret(import_yaml: &str) -> Secret {
    let docs: Vec<Value> = serde_yaml::Deserializer::from_str(import_yaml)
        .map(|d| serde::Deserialize::deserialize(d).expect("yaml"))
        .collect();
    let doc = docs.into_iter().find(|d| d["metadata"]["name"] == BOOTSTRAP_SECRET).expect("bootstrap secret");
    let mut secret: Secret = serde_json::from_value(doc).expect("secret");
    secret.metadata.namespace = Some(AGENT_NAMESPACE.into());
    secret
}

/// The agent's CN, and a fresh key with a CSR for it.
fn agent_request() -> (String, rcgen::KeyPair) {
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, format!("system:open-cluster-management:{CLUSTER}:{AGENT_ID}"));
    params
        .distinguished_name
        .push(rcgen::DnType::OrganizationName, format!("system:open-cluster-management:{CLUSTER}"));
    params
        .distinguished_name
        .push(rcgen::DnType::CustomDnType(vec![2, 5, 4, 10]), "system:open-cluster-management:managed-clusters");
    let csr = params.serialize_request(&key).expect("csr").pem().expect("pem");
    (csr, key)
}

fn requester(csr: &CertificateSigningRequest) -> String {
    csr.spec.username.clone().unwrap_or_default()
}

/// The CSR written last (creation times have seconds only; resourceVersions are ordered).
fn newest(csrs: &[CertificateSigningRequest]) -> &CertificateSigningRequest {
    let version = |c: &CertificateSigningRequest| c.resource_version().and_then(|v| v.parse::<u64>().ok());
    csrs.iter().max_by_key(|c| version(c)).expect("a csr")
}

const BOOTSTRAP_USER: &str = "system:serviceaccount:c1:c1-bootstrap-sa";

#[tokio::test]
async fn a_deleted_hub_kubeconfig_secret_is_bootstrapped_again_with_one_csr() {
    let fleet = Fleet::joined().await;
    fleet.secrets().delete(HUB_KUBECONFIG_SECRET, &DeleteParams::default()).await.expect("delete");
    fleet.wait_healed_after(None).await;
    let csrs = fleet.csrs().await;
    assert_eq!(csrs.len(), 2, "one new CSR");
    assert_eq!(requester(newest(&csrs)), BOOTSTRAP_USER, "made with the bootstrap identity");
    let note = rebootstrap_event(&fleet).await;
    assert!(note.contains(&newest(&csrs).name_any()), "{note}");
}

/// Waits for the hub's Event that a joined cluster bootstraps again; returns its note.
async fn rebootstrap_event(fleet: &Fleet) -> String {
    use futures::TryStreamExt;
    use k8s_openapi::api::events::v1::Event;
    use kube::runtime::WatchStreamExt;
    let events: Api<Event> = Api::namespaced(fleet.hub.cluster.client.clone(), "default");
    let config = kube::runtime::watcher::Config::default().fields(&format!("regarding.name={CLUSTER}"));
    let found = kube::runtime::watcher(events, config)
        .applied_objects()
        .try_filter(|e| futures::future::ready(e.reason.as_deref() == Some("ClusterRebootstrapping")));
    let mut found = std::pin::pin!(found);
    let event = tokio::time::timeout(WAIT, found.try_next()).await.expect("event in time").expect("watch");
    event.expect("event").note.unwrap_or_default()
}

#[tokio::test]
async fn a_corrupted_or_foreign_hub_kubeconfig_secret_is_bootstrapped_again_with_one_csr_each() {
    let fleet = Fleet::joined().await;
    let mut expected = 1;
    // Unparseable certificate, key and kubeconfig; then a secret naming another cluster.
    for (key, value) in
        [("tls.crt", "not a certificate"), ("tls.key", "not a key"), ("kubeconfig", "{]"), ("cluster-name", "c2")]
    {
        let broken = fleet.patch_hub_secret(key, value).await;
        fleet.wait_healed_after(broken).await;
        expected += 1;
        assert_eq!(fleet.csrs().await.len(), expected, "one new CSR after breaking {key}");
        assert_eq!(requester(newest(&fleet.csrs().await)), BOOTSTRAP_USER);
    }
}

#[tokio::test]
async fn a_certificate_the_hub_refuses_401_is_replaced_through_the_bootstrap_identity() {
    let fleet = Fleet::joined().await;
    // Right subject and key, but issued by a CA the hub does not trust: the hub answers 401.
    let foreign = fleet.managed.server.client_certificate(
        &format!("system:open-cluster-management:{CLUSTER}:{AGENT_ID}"),
        &[&format!("system:open-cluster-management:{CLUSTER}"), "system:open-cluster-management:managed-clusters"],
    );
    let foreign = foreign.expect("certificate");
    let written = fleet.write_hub_secret(&foreign.cert_pem, &foreign.key_pem).await;
    let healed = fleet.wait_healed_after(written).await;
    assert_ne!(kubeconfig::secret_text(&healed)["tls.crt"], foreign.cert_pem);
    let csrs = fleet.csrs().await;
    assert_eq!(csrs.len(), 2, "one new CSR");
    assert_eq!(requester(newest(&csrs)), BOOTSTRAP_USER);
}

#[tokio::test]
async fn a_bootstrap_kubeconfig_trusting_a_new_ca_bundle_makes_the_agent_bootstrap_against_it() {
    let mut fleet = Fleet::joined().await;
    // The hub's CA rotating: the bootstrap kubeconfig now trusts a bundle of the old CA and
    // a new one (the cross-signing step of a rotation); the stored hub kubeconfig trusts
    // only the old one.
    let text = kubeconfig::secret_text(&fleet.bootstrap);
    let mut config: Value = serde_yaml::from_str(&text["kubeconfig"]).expect("kubeconfig");
    let bundle = format!("{}{}", fleet.hub.cluster.server.ca_pem(), fleet.managed.server.ca_pem());
    config["clusters"][0]["cluster"]["certificate-authority-data"] = json!(BASE64.encode(&bundle));
    let rotated = serde_yaml::to_string(&config).expect("yaml");
    fleet.bootstrap.data = Some(secret_data(BTreeMap::from([("kubeconfig".to_string(), rotated)])));
    let before = fleet.secrets().get(HUB_KUBECONFIG_SECRET).await.expect("secret").resource_version();
    fleet.write_bootstrap().await;
    let healed = fleet.wait_healed_after(before).await;
    let parsed = kube::config::Kubeconfig::from_yaml(&kubeconfig::secret_text(&healed)["kubeconfig"]).expect("parse");
    assert_eq!(kubeconfig::endpoint(&parsed).expect("endpoint").ca_pem.trim(), bundle.trim());
    let csrs = fleet.csrs().await;
    assert_eq!(csrs.len(), 2, "one new CSR");
    assert_eq!(requester(newest(&csrs)), BOOTSTRAP_USER);
}

/// A certificate of the agent from the hub's CA with 60 s left of a 360 s life (the
/// signer backdates by 300 s): past the 80 % mark, so due for renewal at once.
fn nearly_due(fleet: &Fleet) -> (String, String) {
    let (csr, key) = agent_request();
    let pki = &fleet.hub.cluster.server.state().security.pki;
    (pki.sign_client_csr(&csr, Duration::from_secs(60)).expect("sign"), key.serialize_pem())
}

#[tokio::test]
async fn a_certificate_past_80_percent_of_its_life_is_renewed_by_the_agent_itself() {
    let fleet = Fleet::joined().await;
    let (cert, key) = nearly_due(&fleet);
    let written = fleet.write_hub_secret(&cert, &key).await;
    let renewed = fleet.wait_healed_after(written).await;
    assert_ne!(kubeconfig::secret_text(&renewed)["tls.crt"], cert);
    let csrs = fleet.csrs().await;
    assert_eq!(csrs.len(), 2, "one new CSR");
    assert_eq!(
        requester(newest(&csrs)),
        format!("system:open-cluster-management:{CLUSTER}:{AGENT_ID}"),
        "a renewal is requested with the agent's own certificate, not the bootstrap identity"
    );
}

#[tokio::test]
async fn a_renewal_due_while_the_hub_is_unreachable_happens_when_it_is_back() {
    let fleet = Fleet::joined().await;
    let (cert, key) = nearly_due(&fleet);
    fleet.proxy.cut();
    let written = fleet.write_hub_secret(&cert, &key).await;
    // The agent keeps trying (with backoff) while the hub is away …
    tokio::time::timeout(WAIT, fleet.proxy.until_refused(2)).await.expect("the agent tries to reach the hub");
    assert_eq!(fleet.csrs().await.len(), 1, "no CSR could be made meanwhile");
    // … and renews once it is back.
    fleet.proxy.restore();
    let renewed = fleet.wait_healed_after(written).await;
    assert_ne!(kubeconfig::secret_text(&renewed)["tls.crt"], cert);
    let csrs = fleet.csrs().await;
    assert_eq!(csrs.len(), 2, "one new CSR");
    assert_eq!(requester(newest(&csrs)), format!("system:open-cluster-management:{CLUSTER}:{AGENT_ID}"));
}

/// Upstream's registration agent renews at the period its ManagedCluster names now; the
/// default period is 60 s and a tick is at least half of it away, so only an agent that
/// follows the change (not one that waits for its old-period tick) renews with the new
/// period within the test's wait.
#[tokio::test]
async fn a_changed_lease_duration_is_renewed_with_at_once_not_after_the_old_periods_tick() {
    let fleet = Fleet::joined().await;
    let leases: Api<Lease> = Api::namespaced(fleet.hub.cluster.client.clone(), CLUSTER);
    let renewed_with = |seconds: i32| {
        move |l: Option<&Lease>| l.and_then(|l| l.spec.as_ref()).and_then(|s| s.lease_duration_seconds) == Some(seconds)
    };
    tokio::time::timeout(WAIT, await_condition(leases.clone(), CLUSTER_LEASE, renewed_with(60)))
        .await
        .expect("renewed with the default period")
        .expect("watch");
    fleet
        .hub
        .clusters()
        .patch(CLUSTER, &PatchParams::default(), &Patch::Merge(json!({"spec": {"leaseDurationSeconds": 5}})))
        .await
        .expect("shorten the lease");
    tokio::time::timeout(WAIT, await_condition(leases, CLUSTER_LEASE, renewed_with(5)))
        .await
        .expect("the agent renews with the new period at once")
        .expect("watch");
}

#[tokio::test]
async fn a_requested_lifetime_is_asked_for_in_the_csr_and_honoured_by_the_signer() {
    let mut fleet = Fleet::joined().await;
    fleet.start_agent(Settings { client_cert_expiration: Some(Duration::from_secs(600)), ..Settings::default() });
    fleet.secrets().delete(HUB_KUBECONFIG_SECRET, &DeleteParams::default()).await.expect("delete");
    let secret = fleet.wait_healed_after(None).await;
    let csrs = fleet.csrs().await;
    assert_eq!(newest(&csrs).spec.expiration_seconds, Some(600));
    let life = life_seconds(&kubeconfig::secret_text(&secret)["tls.crt"]);
    assert_eq!(life, 600 + 300, "600 s asked for, plus the signer's 300 s backdating");
}

/// The life of a PEM certificate, in seconds.
fn life_seconds(pem: &str) -> i64 {
    let der = crate::support::cluster::der_of(pem);
    let (_, cert) = x509_parser::parse_x509_certificate(&der).expect("parse");
    cert.validity().not_after.timestamp() - cert.validity().not_before.timestamp()
}

/// The Klusterlet's HubConnectionDegraded as `(status, reason)` once it satisfies `check`.
async fn wait_degraded(fleet: &Fleet, check: impl Fn(&str, &str) -> bool + Send + 'static) -> (String, String) {
    let klusterlets: Api<Klusterlet> = Api::all(fleet.managed.client.clone());
    let found = await_condition(klusterlets, "klusterlet", move |k: Option<&Klusterlet>| {
        k.and_then(|k| k.status.as_ref())
            .and_then(|s| c::find(&s.conditions, c::KLUSTERLET_HUB_CONNECTION_DEGRADED))
            .is_some_and(|condition| check(&condition.status, &condition.reason))
    });
    let klusterlet = tokio::time::timeout(WAIT, found).await.expect("condition in time").expect("watch").expect("k");
    let status = klusterlet.status.expect("status");
    let condition = c::find(&status.conditions, c::KLUSTERLET_HUB_CONNECTION_DEGRADED).expect("condition");
    (condition.status.clone(), condition.reason.clone())
}

#[tokio::test]
async fn the_operator_reports_hub_connection_degraded_with_upstreams_reasons() {
    let mut fleet = Fleet::joined().await;
    let klusterlet =
        Klusterlet::new("klusterlet", KlusterletSpec { cluster_name: CLUSTER.into(), ..Default::default() });
    Api::<Klusterlet>::all(fleet.managed.client.clone())
        .create(&PostParams::default(), &klusterlet)
        .await
        .expect("klusterlet");
    let client = fleet.managed.client.clone();
    let settings = OperatorSettings { namespace: AGENT_NAMESPACE.into(), ..OperatorSettings::default() };
    let operator = tokio::spawn(operator(client, settings));
    let _stop = AbortOnDrop(operator);

    let functional = wait_degraded(&fleet, |status, _| status == c::FALSE).await;
    assert_eq!(functional.1, "HubConnectionFunctional");

    // Without the agent, a missing hub kubeconfig stays missing; the bootstrap one works.
    fleet.stop_agent();
    fleet.secrets().delete(HUB_KUBECONFIG_SECRET, &DeleteParams::default()).await.expect("delete");
    let missing = wait_degraded(&fleet, |status, _| status == c::TRUE).await;
    assert_eq!(missing.1, "BootstrapSecretFunctional,HubKubeConfigSecretMissing");

    // A certificate the hub does not trust, and no bootstrap secret to heal with.
    fleet.secrets().delete(BOOTSTRAP_SECRET, &DeleteParams::default()).await.expect("delete bootstrap");
    let foreign = fleet
        .managed
        .server
        .client_certificate(&format!("system:open-cluster-management:{CLUSTER}:{AGENT_ID}"), &[])
        .expect("certificate");
    fleet.write_hub_secret(&foreign.cert_pem, &foreign.key_pem).await;
    let refused = wait_degraded(&fleet, |_, reason| reason.ends_with("Unauthorized")).await;
    assert_eq!(refused, (c::TRUE.to_string(), "BootstrapSecretMissing,HubKubeConfigUnauthorized".to_string()));

    // The agent heals once the bootstrap secret is back; the operator sees it.
    fleet.write_bootstrap().await;
    fleet.start_agent(Settings::default());
    let healed = wait_degraded(&fleet, |status, _| status == c::FALSE).await;
    assert_eq!(healed.1, "HubConnectionFunctional");
}

/// The hub sees what the operator sees: the registration agent copies the Klusterlet's
/// HubConnectionDegraded (here written as the operator would, for an identity the hub
/// refuses some of what the agents need while it may still report) onto its
/// ManagedCluster, on the change rather than at the next lease period (60 s, longer than
/// the wait), and follows it back to False.
#[tokio::test]
async fn the_hub_sees_the_operators_hub_connection_degraded_on_the_managed_cluster() {
    let fleet = Fleet::joined().await;
    let klusterlets: Api<Klusterlet> = Api::all(fleet.managed.client.clone());
    let klusterlet =
        Klusterlet::new("klusterlet", KlusterletSpec { cluster_name: CLUSTER.into(), ..Default::default() });
    klusterlets.create(&PostParams::default(), &klusterlet).await.expect("klusterlet");
    let operator_says = |status: &str, reason: &str| {
        let condition = json!({"type": c::KLUSTERLET_HUB_CONNECTION_DEGRADED, "status": status, "reason": reason,
            "message": format!("{reason} (test)"), "lastTransitionTime": "2026-01-01T00:00:00Z"});
        let klusterlets = klusterlets.clone();
        async move {
            let status = json!({"status": {"conditions": [condition]}});
            klusterlets
                .patch_status("klusterlet", &PatchParams::default(), &Patch::Merge(status))
                .await
                .expect("status");
        }
    };
    let on_hub = |status: &'static str, reason: &'static str| {
        move |cluster: &fleetctl_api::ManagedCluster| {
            c::find(cluster.conditions(), c::KLUSTERLET_HUB_CONNECTION_DEGRADED)
                .is_some_and(|d| d.status == status && d.reason == reason && d.message == format!("{reason} (test)"))
        }
    };
    let refused = "BootstrapSecretFunctional,HubKubeConfigUnauthorized";
    operator_says(c::TRUE, refused).await;
    let degraded = fleet.hub.wait_cluster(CLUSTER, on_hub(c::TRUE, refused)).await;
    assert!(degraded.is_available(), "still Available: the agent reports, it only lacks some rights");
    operator_says(c::FALSE, "HubConnectionFunctional").await;
    fleet.hub.wait_cluster(CLUSTER, on_hub(c::FALSE, "HubConnectionFunctional")).await;
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Upstream's registration agent picks its agent id from `--agent-id`, else from the
/// `agent-name` of its hub kubeconfig secret, else makes a random one of five letters; the
/// operator starts it without one, so an agent that replaces another klusterlet's keeps that
/// agent's id — and with it its certificate and registration.
#[tokio::test]
async fn an_agent_started_without_an_id_keeps_its_secrets_agent_name_else_makes_one_as_upstreams_agent_picks_it() {
    use fleetctl_agent::registration::identity;
    let managed = TestCluster::start().await;
    let client = managed.client.clone();
    let namespace: Namespace = serde_json::from_value(json!({"metadata": {"name": AGENT_NAMESPACE}})).unwrap();
    Api::<Namespace>::all(client.clone()).create(&PostParams::default(), &namespace).await.unwrap();
    let given = identity(&client, CLUSTER.into(), AGENT_NAMESPACE.into(), Some("given".into())).await;
    assert_eq!(given.agent_id, "given");
    let made = identity(&client, CLUSTER.into(), AGENT_NAMESPACE.into(), None).await;
    assert_eq!(made.agent_id.len(), 5, "{made:?}");
    assert!(made.agent_id.bytes().all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)), "{made:?}");
    let secret = Secret {
        metadata: kube::api::ObjectMeta {
            name: Some(HUB_KUBECONFIG_SECRET.into()),
            namespace: Some(AGENT_NAMESPACE.into()),
            ..Default::default()
        },
        data: Some(secret_data(BTreeMap::from([("agent-name".to_string(), "upstr".to_string())]))),
        ..Secret::default()
    };
    Api::<Secret>::namespaced(client.clone(), AGENT_NAMESPACE).create(&PostParams::default(), &secret).await.unwrap();
    let kept = identity(&client, CLUSTER.into(), AGENT_NAMESPACE.into(), None).await;
    assert_eq!(kept.agent_id, "upstr", "the id upstream's agent registered with");
    assert_eq!((kept.cluster.as_str(), kept.namespace.as_str()), (CLUSTER, AGENT_NAMESPACE));
}
