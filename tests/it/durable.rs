//! The durable store (`dev serve --store DIR`): a restart resumes with the same objects
//! and resourceVersions (watches resume from its start on, as kube-apiserver's do), and a
//! crash (SIGKILL) at any moment loses no acknowledged write and leaves no write half done.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, PostParams, WatchEvent, WatchParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, ResourceExt};
use serde_json::json;

use crate::support::cluster::TestCluster;
use fleetctl_apiserver::Settings;

/// SIGKILLs in the crash test.
const KILLS: usize = 24;
/// Concurrent writers, each with its own objects.
const WRITERS: usize = 4;
/// How long a restarted server may take to write its kubeconfig.
const READY_WITHIN: Duration = Duration::from_secs(10);
/// The latest moment of a kill after the writers start.
const KILL_WITHIN_MS: u64 = 200;
const NAMESPACE: &str = "default";

// ---------------------------------------------------------------------------------
// In process: what a clean restart keeps

#[tokio::test]
async fn a_restart_keeps_objects_resource_versions_and_crds_and_expires_watches_from_before_it_as_a_watch_cache_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = Settings { store: Some(dir.path().join("store")), ..Settings::default() };

    let c = TestCluster::with_settings(settings.clone()).await;
    let cms: Api<ConfigMap> = Api::namespaced(c.client.clone(), NAMESPACE);
    let first = cms.create(&PostParams::default(), &config_map("a", "1")).await.expect("create a");
    let rv_first = first.resource_version().expect("rv");
    let mut changed = first.clone();
    changed.data = Some(BTreeMap::from([("v".to_string(), "2".to_string())]));
    let changed = cms.replace("a", &PostParams::default(), &changed).await.expect("update a");
    cms.create(&PostParams::default(), &config_map("b", "1")).await.expect("create b");
    cms.delete("b", &DeleteParams::default()).await.expect("delete b");
    let crds: Api<CustomResourceDefinition> = Api::all(c.client.clone());
    crds.create(&PostParams::default(), &gadgets_crd()).await.expect("create crd");
    let gadget: DynamicObject = serde_json::from_value(
        json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"n": 1}}),
    )
    .expect("gadget");
    gadgets(&c.client).create(&PostParams::default(), &gadget).await.expect("create gadget");
    let namespaces_before = Api::<Namespace>::all(c.client.clone()).list(&ListParams::default()).await.expect("ns");
    let rv_before = cms.list(&ListParams::default()).await.expect("list").metadata.resource_version.expect("rv");
    c.server.shutdown().await;

    let c = TestCluster::with_settings(settings).await;
    let cms: Api<ConfigMap> = Api::namespaced(c.client.clone(), NAMESPACE);
    let a = cms.get("a").await.expect("a survives");
    assert_eq!(a.data, changed.data);
    assert_eq!(a.resource_version(), changed.resource_version(), "same resourceVersion");
    assert_eq!(a.uid(), first.uid());
    assert!(cms.get_opt("b").await.expect("get b").is_none(), "the deletion survives");
    let namespaces_after = Api::<Namespace>::all(c.client.clone()).list(&ListParams::default()).await.expect("ns");
    let names =
        |l: &kube::core::ObjectList<Namespace>| l.items.iter().map(|n| (n.name_any(), n.uid())).collect::<Vec<_>>();
    assert_eq!(names(&namespaces_after), names(&namespaces_before), "the seeded namespaces are not seeded again");
    let g = gadgets(&c.client).get("g").await.expect("the CRD is served again");
    assert_eq!(g.data["spec"]["n"], 1);

    // A watch from before the restart is expired, as from a kube-apiserver whose watch
    // cache starts with a list at its start; its client relists and watches from there.
    let mut stale = cms.watch(&WatchParams::default().timeout(5), &rv_first).await.expect("watch").boxed();
    let first = tokio::time::timeout(Duration::from_secs(5), stale.next()).await.expect("event in time");
    match first.expect("an event").expect("event") {
        WatchEvent::Error(e) => assert_eq!((e.code, e.reason.as_str()), (410, "Expired"), "{e:?}"),
        other => panic!("a watch from before the restart must be expired, got {other:?}"),
    }
    let relisted = cms.list(&ListParams::default()).await.expect("list").metadata.resource_version.expect("rv");
    let mut stream = cms.watch(&WatchParams::default().timeout(5), &relisted).await.expect("watch").boxed();
    cms.create(&PostParams::default(), &config_map("after", "1")).await.expect("create after");
    let next = tokio::time::timeout(Duration::from_secs(5), stream.next()).await.expect("event in time");
    match next.expect("an event").expect("event") {
        WatchEvent::Added(o) => assert_eq!(o.name_any(), "after"),
        other => panic!("expected the creation, got {other:?}"),
    }

    // The counter goes on from where it was.
    let next = cms.create(&PostParams::default(), &config_map("c", "1")).await.expect("create c");
    assert!(rv(&next) > rv_before.parse::<u64>().expect("number"), "{} after {rv_before}", rv(&next));
    c.server.shutdown().await;
}

#[tokio::test]
async fn after_a_restart_the_collector_finishes_what_it_had_not_done() {
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = Settings { store: Some(dir.path().join("store")), ..Settings::default() };
    let c = TestCluster::with_settings(settings.clone()).await;
    let cms: Api<ConfigMap> = Api::namespaced(c.client.clone(), NAMESPACE);
    // A dependent whose owner is gone, as a crash between the owner's deletion and the
    // collector's work would leave it.
    let mut orphan = config_map("orphan", "1");
    orphan.metadata.owner_references = Some(vec![k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: "gone".into(),
        uid: "00000000-0000-0000-0000-00000000dead".into(),
        ..Default::default()
    }]);
    cms.create(&PostParams::default(), &orphan).await.expect("create orphan");
    c.server.shutdown().await;

    let c = TestCluster::with_settings(settings).await;
    let cms: Api<ConfigMap> = Api::namespaced(c.client.clone(), NAMESPACE);
    let collected = kube::runtime::wait::await_condition(cms, "orphan", |o: Option<&ConfigMap>| o.is_none());
    tokio::time::timeout(crate::support::PATIENCE, collected)
        .await
        .expect("the dependent of a missing owner is collected after the restart")
        .expect("watch");
    c.server.shutdown().await;
}

/// kube-controller-manager's CSR cleaner sweeps when it starts: a request denied two hours
/// ago goes, one pending since just now stays.
#[tokio::test]
async fn after_a_restart_the_csr_cleaner_removes_requests_decided_over_an_hour_ago() {
    use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = Settings { store: Some(dir.path().join("store")), ..Settings::default() };
    let c = TestCluster::with_settings(settings.clone()).await;
    let csrs: Api<CertificateSigningRequest> = Api::all(c.client.clone());
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name.push(rcgen::DnType::CommonName, "someone");
    let request = params.serialize_request(&key).expect("csr").pem().expect("pem");
    for name in ["denied-long-ago", "pending"] {
        let csr: CertificateSigningRequest = serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {"request": base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &request),
                "signerName": "kubernetes.io/kube-apiserver-client", "usages": ["client auth"]},
        }))
        .expect("csr");
        csrs.create(&PostParams::default(), &csr).await.expect("create");
    }
    let stamp =
        (jiff::Timestamp::now() - jiff::SignedDuration::from_hours(2)).strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut denied = csrs.get("denied-long-ago").await.expect("get");
    denied.status.get_or_insert_with(Default::default).conditions = Some(vec![
        serde_json::from_value(json!({
            "type": "Denied", "status": "True", "reason": "Test", "message": "no",
            "lastUpdateTime": stamp, "lastTransitionTime": stamp,
        }))
        .expect("condition"),
    ]);
    csrs.replace_subresource("approval", "denied-long-ago", &PostParams::default(), &denied).await.expect("deny");
    c.server.shutdown().await;

    let c = TestCluster::with_settings(settings).await;
    let csrs: Api<CertificateSigningRequest> = Api::all(c.client.clone());
    let gone = kube::runtime::wait::await_condition(
        csrs.clone(),
        "denied-long-ago",
        |c: Option<&CertificateSigningRequest>| c.is_none(),
    );
    tokio::time::timeout(Duration::from_secs(10), gone).await.expect("cleaned up").expect("watch");
    assert!(csrs.get_opt("pending").await.expect("read").is_some(), "a pending request stays for a day");
    c.server.shutdown().await;
}

fn gadgets_crd() -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .expect("crd")
}

fn gadgets(client: &Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("example.com", "v1", "Gadget");
    Api::namespaced_with(client.clone(), NAMESPACE, &ApiResource::from_gvk_with_plural(&gvk, "gadgets"))
}

// ---------------------------------------------------------------------------------
// `dev serve --rotate-ca`: a CA rotation, a step per restart

/// The CA bundle a kubeconfig file trusts, as the certificates' DER.
fn trusted(kubeconfig: &Path) -> std::collections::BTreeSet<Vec<u8>> {
    let config = Kubeconfig::read_from(kubeconfig).expect("kubeconfig");
    fleetctl_kube::certs::bundle_certificates(&fleetctl_kube::kubeconfig::endpoint(&config).expect("endpoint").ca_pem)
}

/// A client of the server a kubeconfig file names that trusts only `ca_pem`.
async fn trusting_only(kubeconfig: &Path, ca_pem: &str) -> Client {
    use base64::Engine;
    let mut config = Kubeconfig::read_from(kubeconfig).expect("kubeconfig");
    for cluster in config.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        cluster.certificate_authority_data = Some(base64::engine::general_purpose::STANDARD.encode(ca_pem));
    }
    let config = kube::Config::from_custom_kubeconfig(config, &KubeConfigOptions::default()).await.expect("config");
    Client::try_from(config).expect("client")
}

/// Kubernetes' manual CA rotation, on `dev serve --store`: `trust` adds a new CA beside the
/// old one, which still serves (a client trusting only the old CA still connects); `serve`
/// switches the serving certificate (only a client trusting the bundle connects); `retire`
/// drops the old CA. A second rotation cannot begin before the first is finished.
#[tokio::test]
async fn dev_serve_rotates_its_ca_a_step_per_restart_and_only_clients_of_the_bundle_follow_the_switch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, kubeconfig, log) = (dir.path().join("store"), dir.path().join("kubeconfig"), dir.path().join("log"));
    let step = async |args: &[&str]| {
        let mut child = spawn_with(&store, &kubeconfig, &log, args);
        let client = wait_ready(&mut child, &kubeconfig, &log).await;
        (child, client)
    };
    let lists = async |client: &Client| Api::<Namespace>::all(client.clone()).list(&ListParams::default()).await;

    let (mut child, _) = step(&[]).await;
    let old = trusted(&kubeconfig);
    assert_eq!(old.len(), 1);
    let old_ca = fleetctl_kube::certs::pem_of_der(old.first().expect("the CA"));
    child.kill().expect("stop");
    child.wait().expect("reaped");

    let (mut child, client) = step(&["--rotate-ca", "trust"]).await;
    let bundle = trusted(&kubeconfig);
    assert_eq!(bundle.len(), 2, "old and new CA trusted");
    assert!(bundle.is_superset(&old));
    lists(&client).await.expect("a client of the bundle connects");
    lists(&trusting_only(&kubeconfig, &old_ca).await).await.expect("the old CA still serves");
    child.kill().expect("stop");
    child.wait().expect("reaped");

    let again = Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(["dev", "serve", "--port", "0", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg("--store")
        .arg(&store)
        .args(["--rotate-ca", "trust"])
        .output()
        .expect("runs");
    assert_eq!(again.status.code(), Some(4), "refused: {}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already rotating"));

    let (mut child, client) = step(&["--rotate-ca", "serve"]).await;
    assert_eq!(trusted(&kubeconfig), bundle, "both still trusted");
    lists(&client).await.expect("a client of the bundle follows the switch");
    match lists(&trusting_only(&kubeconfig, &old_ca).await).await {
        Err(kube::Error::Api(status)) => panic!("a client trusting only the old CA got an answer: {status:?}"),
        Err(_) => {}
        Ok(_) => panic!("a client trusting only the old CA still connects"),
    }
    child.kill().expect("stop");
    child.wait().expect("reaped");

    let (mut child, client) = step(&["--rotate-ca", "retire"]).await;
    let retired = trusted(&kubeconfig);
    assert_eq!(retired.len(), 1);
    assert!(retired.is_disjoint(&old), "the old CA is no longer trusted");
    lists(&client).await.expect("serves");
    child.kill().expect("stop");
    child.wait().expect("reaped");
}

// ---------------------------------------------------------------------------------
// A child process killed at random moments

/// What the test knows of one object: its data and resourceVersion when present.
type State = Option<(String, u64)>;

/// One writer's objects: the state acknowledged for each, and the write that was in
/// flight when the server died (its outcome unknown: it may or may not have committed).
#[derive(Default)]
struct Model {
    acked: BTreeMap<String, State>,
    in_flight: Option<(String, Option<String>)>,
    /// Writes acknowledged in total.
    writes: usize,
    /// Writes cut off by a kill that turned out committed, and that turned out not.
    cut_committed: usize,
    cut_lost: usize,
    next_name: usize,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_write_is_lost_when_the_server_is_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("store");
    let kubeconfig = dir.path().join("kubeconfig");
    let seed = std::env::var("DURABLE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(time_seed);
    eprintln!("crash test seed {seed} (set DURABLE_SEED to replay the same kill moments)");
    let mut rng = XorShift::new(seed);
    let mut models: Vec<Model> = (0..WRITERS).map(|_| Model::default()).collect();
    let started = Instant::now();
    let mut max_rv = 0;
    for round in 0..=KILLS {
        let log = dir.path().join(format!("serve-{round}.log"));
        let mut child = spawn(&store, &kubeconfig, &log);
        let client = wait_ready(&mut child, &kubeconfig, &log).await;
        let cms: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
        // Every object parses as a ConfigMap (nothing half-written), and matches what
        // was acknowledged.
        let list = cms.list(&ListParams::default()).await.unwrap_or_else(|e| panic!("round {round}: list: {e}"));
        let list_rv: u64 = list.metadata.resource_version.as_deref().and_then(|v| v.parse().ok()).expect("list rv");
        assert!(list_rv >= max_rv, "round {round}: the resourceVersion went back from {max_rv} to {list_rv}");
        let actual: BTreeMap<String, (String, u64)> = list
            .items
            .iter()
            .filter(|cm| cm.name_any().starts_with('w'))
            .map(|cm| (cm.name_any(), (value(cm), rv(cm))))
            .collect();
        for (w, model) in models.iter_mut().enumerate() {
            check(round, w, model, &actual);
        }
        if round == KILLS {
            // Stop cleanly at the end; the last check above was of the last crash.
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        let writers: Vec<_> = std::mem::take(&mut models)
            .into_iter()
            .enumerate()
            .map(|(w, model)| tokio::spawn(write_until_failure(cms.clone(), w, model, seed ^ (round * 31 + w) as u64)))
            .collect();
        tokio::time::sleep(Duration::from_millis(rng.below(KILL_WITHIN_MS + 1))).await;
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        for writer in writers {
            models.push(writer.await.expect("writer task"));
        }
        max_rv = models.iter().flat_map(|m| m.acked.values().flatten().map(|(_, rv)| *rv)).fold(max_rv, u64::max);
    }
    let writes: usize = models.iter().map(|m| m.writes).sum();
    let live: usize = models.iter().map(|m| m.acked.values().filter(|s| s.is_some()).count()).sum();
    let committed: usize = models.iter().map(|m| m.cut_committed).sum();
    let lost: usize = models.iter().map(|m| m.cut_lost).sum();
    eprintln!(
        "{KILLS} SIGKILLs, {writes} acknowledged writes checked, {live} objects at the end; writes cut off by a kill: \
         {committed} had committed, {lost} had not; {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(writes > KILLS, "too few writes were acknowledged ({writes}) for the test to mean anything");
}

/// Checks one writer's objects against what the restarted server holds, then takes the
/// outcome of the write that was in flight as the new truth.
fn check(round: usize, w: usize, model: &mut Model, actual: &BTreeMap<String, (String, u64)>) {
    let prefix = format!("w{w}-");
    let in_flight = model.in_flight.take();
    for (name, state) in actual.range(prefix.clone()..).take_while(|(n, _)| n.starts_with(&prefix)) {
        if !model.acked.contains_key(name) && in_flight.as_ref().is_none_or(|(n, _)| n != name) {
            panic!("round {round}: {name} exists but was never written: {state:?}");
        }
    }
    let mut adopted = false;
    for (name, expected) in &mut model.acked {
        let found = actual.get(name).cloned();
        let same = match (&*expected, &found) {
            (None, None) => true,
            (Some((data, rv)), Some((got, got_rv))) => data == got && rv == got_rv,
            _ => false,
        };
        if same {
            continue;
        }
        // Only the write in flight may have changed an object since its last acknowledgment.
        match &in_flight {
            Some((n, outcome)) if n == name && outcome.as_ref() == found.as_ref().map(|(d, _)| d) => {
                *expected = found;
                adopted = true;
            }
            _ => panic!(
                "round {round}: {name} should be {expected:?} (in flight: {in_flight:?}), the server has {found:?}"
            ),
        }
    }
    if adopted {
        model.cut_committed += 1;
    } else if let Some((name, Some(data))) = &in_flight
        && !model.acked.contains_key(name)
        && let Some(found) = actual.get(name)
    {
        // A create in flight that did commit.
        assert_eq!(&found.0, data, "round {round}: {name} holds what was never sent");
        model.acked.insert(name.clone(), Some(found.clone()));
        model.cut_committed += 1;
    } else if in_flight.is_some() {
        model.cut_lost += 1;
    }
}

/// The model as a request left it that the kill cut off. A killed server cannot answer, so
/// only a transport error (the connection refused, reset or cut mid-answer) is a kill; an
/// answer — a 409, a 500, or a body that is not the object — is a wrong one, and the test
/// fails on it.
fn cut_off(model: Model, error: &kube::Error) -> Model {
    match error {
        kube::Error::HyperError(_) | kube::Error::Service(_) => model,
        kube::Error::Api(status) => panic!(
            "the server answered {} {:?} ({}) where only a kill may stop a write",
            status.code, status.reason, status.message
        ),
        other => panic!("a write ended in {other} where only a kill (a transport error) may stop it"),
    }
}

/// Creates, updates and deletes its own ConfigMaps until a request fails (the server
/// was killed); acknowledged outcomes go into the model.
async fn write_until_failure(api: Api<ConfigMap>, w: usize, mut model: Model, seed: u64) -> Model {
    let mut rng = XorShift::new(seed);
    loop {
        let present: Vec<(String, u64)> =
            model.acked.iter().filter_map(|(n, s)| s.as_ref().map(|(_, rv)| (n.clone(), *rv))).collect();
        let roll = rng.below(10);
        // Values of up to a few KiB, so that a write spans more than one page.
        let data = format!("{}-{}", model.writes, "x".repeat(rng.below(4096) as usize));
        if present.is_empty() || roll < 5 {
            let name = format!("w{w}-{}", model.next_name);
            model.next_name += 1;
            model.in_flight = Some((name.clone(), Some(data.clone())));
            match api.create(&PostParams::default(), &config_map(&name, &data)).await {
                Ok(created) => model.acked.insert(name, Some((data, rv(&created)))),
                Err(e) => return cut_off(model, &e),
            };
        } else {
            let (name, current_rv) = present[rng.below(present.len() as u64) as usize].clone();
            if roll < 8 {
                let mut cm = config_map(&name, &data);
                cm.metadata.resource_version = Some(current_rv.to_string());
                model.in_flight = Some((name.clone(), Some(data.clone())));
                match api.replace(&name, &PostParams::default(), &cm).await {
                    Ok(updated) => model.acked.insert(name, Some((data, rv(&updated)))),
                    Err(e) => return cut_off(model, &e),
                };
            } else {
                model.in_flight = Some((name.clone(), None));
                match api.delete(&name, &DeleteParams::default()).await {
                    Ok(_) => model.acked.insert(name, None),
                    Err(e) => return cut_off(model, &e),
                };
            }
        }
        model.in_flight = None;
        model.writes += 1;
    }
}

fn spawn(store: &Path, kubeconfig: &Path, log: &Path) -> Child {
    spawn_with(store, kubeconfig, log, &[])
}

fn spawn_with(store: &Path, kubeconfig: &Path, log: &Path, args: &[&str]) -> Child {
    // The kubeconfig appears once the server is ready: the previous one must go first.
    let _ = std::fs::remove_file(kubeconfig);
    let log = std::fs::File::create(log).expect("log file");
    Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(["dev", "serve", "--port", "0", "--kubeconfig"])
        .arg(kubeconfig)
        .arg("--store")
        .arg(store)
        .args(args)
        .env("FLEETCTL_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("fleetctl dev serve starts")
}

/// Waits for the kubeconfig (written once the server serves) and returns a client
/// built from it.
async fn wait_ready(child: &mut Child, kubeconfig: &Path, log: &Path) -> Client {
    let deadline = Instant::now() + READY_WITHIN;
    loop {
        if let Some(status) = child.try_wait().expect("child status") {
            panic!("dev serve stopped ({status}) before it was ready; it logged:\n{}", read_log(log));
        }
        if kubeconfig.exists() {
            break;
        }
        assert!(Instant::now() < deadline, "dev serve was not ready within {READY_WITHIN:?}:\n{}", read_log(log));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let kubeconfig = Kubeconfig::read_from(kubeconfig).expect("kubeconfig parses");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await.expect("config");
    Client::try_from(config).expect("client")
}

fn read_log(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn config_map(name: &str, value: &str) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.to_string());
    cm.data = Some(BTreeMap::from([("v".to_string(), value.to_string())]));
    cm
}

fn value(cm: &ConfigMap) -> String {
    cm.data.as_ref().and_then(|d| d.get("v")).cloned().unwrap_or_default()
}

fn rv(cm: &ConfigMap) -> u64 {
    cm.resource_version().and_then(|v| v.parse().ok()).expect("a numeric resourceVersion")
}

fn time_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos());
    (nanos as u64) | 1
}

/// A small xorshift generator: enough to spread kill moments and operations.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}
