//! The node simulator's volumes and env, as kubelet makes them: Secrets, ConfigMaps and the
//! ServiceAccount projection mounted into a process container, a Secret change reaching the
//! mounted file, env from Secrets, ConfigMaps and the Pod's fields, and a missing Secret
//! keeping a container waiting with kubelet's reason.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fleetctl_nodesim::process::Isolation;
use fleetctl_nodesim::{InProcessCommand, RunMode};
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::dev_env::{simulated, wait_event};
use crate::support::cluster::TestCluster;
use crate::support::{PATIENCE, until};

const IMAGE: &str = "quay.io/fleetctl/fleetctl:0.1.0";
/// Kubelet's sync period: a changed Secret reaches its mounted files within it.
const SYNC_PERIOD: Duration = Duration::from_secs(60);

/// A runner whose containers report their command and run until stopped.
fn reporting_runner() -> (RunMode, mpsc::UnboundedReceiver<InProcessCommand>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let runner = Arc::new(move |command: InProcessCommand| {
        let _ = tx.send(command);
        Box::pin(std::future::pending::<i32>()) as futures::future::BoxFuture<'static, i32>
    });
    (RunMode::InProcess(runner), rx)
}

async fn create<K>(client: &kube::Client, object: Value) -> K
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + serde::de::DeserializeOwned
        + serde::Serialize
        + std::fmt::Debug,
    K::DynamicType: Default,
{
    let api: Api<K> = Api::namespaced(client.clone(), "default");
    api.create(&PostParams::default(), &serde_json::from_value(object).unwrap()).await.unwrap()
}

fn pod(name: &str, container: Value, volumes: Value) -> Value {
    let mut container = container;
    container["name"] = json!("main");
    container["image"] = json!(IMAGE);
    json!({
        "metadata": {"name": name, "labels": {"app": name}, "annotations": {"team": "fleet"}},
        "spec": {"nodeName": "node1", "containers": [container], "volumes": volumes},
    })
}

/// Waits until the Pod satisfies `cond` (woken by each watch event).
async fn wait_pod(c: &TestCluster, name: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let waited = await_condition(pods, name, move |p: Option<&Pod>| {
        p.is_some_and(|p| cond(&serde_json::to_value(p).unwrap()["status"]["containerStatuses"][0]))
    });
    let pod = tokio::time::timeout(PATIENCE, waited).await.unwrap_or_else(|_| panic!("timed out: {what}")).unwrap();
    serde_json::to_value(pod.unwrap()).unwrap()
}

/// The folder of a Pod on the node (`<namespace>_<name>_<uid>`).
fn pod_dir(dir: &Path, pod: &Value) -> PathBuf {
    let (name, uid) = (pod["metadata"]["name"].as_str().unwrap(), pod["metadata"]["uid"].as_str().unwrap());
    dir.join("pods/node1").join(format!("default_{name}_{uid}"))
}

fn volume_file(dir: &Path, pod: &Value, volume: &str, file: &str) -> PathBuf {
    pod_dir(dir, pod).join("volumes").join(volume).join(file)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// A process container (a shell, as the image's entrypoint) reads its Secret, ConfigMap and
/// ServiceAccount projection at their mount paths — bound there in its own mount namespace
/// when the simulator may make one, else named through the paths its env gives, rewritten
/// to the volumes' directories — and a Secret change reaches the mounted file.
#[tokio::test]
async fn a_secret_change_reaches_the_mounted_file_within_a_sync_period() {
    mounted_files_are_read_and_follow_changes(Isolation::best()).await;
}

/// Without a mount namespace (the simulator not running as root), the paths in the
/// container's env that fall under a mount path name the volume's directory instead.
#[tokio::test]
async fn a_process_without_a_mount_namespace_reads_its_volumes_through_rewritten_paths() {
    mounted_files_are_read_and_follow_changes(Isolation::Kubeconfig).await;
}

async fn mounted_files_are_read_and_follow_changes(isolation: Isolation) {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mode = RunMode::Process { program: PathBuf::from("/bin/sh"), isolation };
    let simulator = simulated(&c, dir.path(), mode).await;
    create::<Secret>(&c.client, json!({"metadata": {"name": "creds"}, "stringData": {"user": "admin-1"}})).await;
    create::<ConfigMap>(&c.client, json!({"metadata": {"name": "settings"}, "data": {"mode": "fast"}})).await;
    let script =
        r#"cat "$CFG"; echo; cat "$NS_FILE"; echo; while :; do echo "user=$(cat "$USER_FILE")"; sleep 0.05; done"#;
    // Mount paths that do not exist on this machine (the test's own folder, so that the
    // empty mount points a mount namespace needs go with it).
    let mnt = dir.path().join("mnt").display().to_string();
    let container = json!({
        "args": ["-c", script],
        "env": [
            {"name": "USER_FILE", "value": format!("{mnt}/creds/user")},
            {"name": "CFG", "value": format!("{mnt}/app/settings.conf")},
            {"name": "NS_FILE", "value": "/var/run/secrets/kubernetes.io/serviceaccount/namespace"},
        ],
        "volumeMounts": [
            {"name": "creds", "mountPath": format!("{mnt}/creds"), "readOnly": true},
            {"name": "settings", "mountPath": format!("{mnt}/app")},
        ],
    });
    let volumes = json!([
        {"name": "creds", "secret": {"secretName": "creds", "defaultMode": 0o400}},
        {"name": "settings", "configMap": {"name": "settings", "items": [{"key": "mode", "path": "settings.conf"}]}},
    ]);
    create::<Pod>(&c.client, pod("reader", container, volumes)).await;
    let reader = wait_pod(&c, "reader", "running", |s| s["state"]["running"].is_object()).await;

    let log = dir.path().join("logs/node1/default_reader.log");
    until("the container read its mounted files", || {
        let text = read(&log);
        text.contains("fast") && text.contains("default") && text.contains("user=admin-1")
    })
    .await;
    if isolation == Isolation::MountNamespace {
        let mount_point = Path::new(&mnt).join("creds");
        assert_eq!(std::fs::read_dir(&mount_point).unwrap().count(), 0, "bound in the container's namespace only");
    }
    let user = volume_file(dir.path(), &reader, "creds", "user");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&user).unwrap().permissions().mode() & 0o777, 0o400, "defaultMode");
    assert!(std::fs::read_link(user.parent().unwrap().join("..data")).is_ok(), "written through the ..data link");

    let secrets: Api<Secret> = Api::namespaced(c.client.clone(), "default");
    let changed = Instant::now();
    let patch = Patch::Merge(json!({"stringData": {"user": "admin-2"}}));
    secrets.patch("creds", &PatchParams::default(), &patch).await.unwrap();
    until("the file holds the new value", || read(&user) == "admin-2").await;
    let to_file = changed.elapsed();
    until("the container reads the new value", || read(&log).contains("user=admin-2")).await;
    let to_container = changed.elapsed();
    eprintln!(
        "{isolation:?}: a secret change reached the mounted file in {to_file:?}, the container's reads in {to_container:?}"
    );
    assert!(to_file < SYNC_PERIOD, "{to_file:?}");

    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    pods.delete("reader", &Default::default()).await.unwrap();
    let pod_dir = pod_dir(dir.path(), &reader);
    let gone = await_condition(pods, "reader", |p: Option<&Pod>| p.is_none());
    tokio::time::timeout(PATIENCE, gone).await.expect("the pod is deleted").unwrap();
    until("the volumes go with the pod", || !pod_dir.exists()).await;
    simulator.shutdown().await;
}

/// `envFrom` then `env`: a Secret's and a ConfigMap's keys, the Pod's fields, a container's
/// resources, and `$(VAR)` references in env, command and args.
#[tokio::test]
async fn env_comes_from_secrets_config_maps_and_the_pods_fields_as_kubelet_makes_it() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mode, mut started) = reporting_runner();
    let simulator = simulated(&c, dir.path(), mode).await;
    create::<Secret>(&c.client, json!({"metadata": {"name": "creds"}, "stringData": {"token": "t0k"}})).await;
    create::<ConfigMap>(&c.client, json!({"metadata": {"name": "settings"}, "data": {"mode": "fast", "level": "3"}}))
        .await;
    let container = json!({
        "args": ["--mode=$(CFG_mode)", "$$(HOME)"],
        "resources": {"limits": {"memory": "64Mi"}},
        "envFrom": [{"configMapRef": {"name": "settings"}, "prefix": "CFG_"}, {"secretRef": {"name": "nope", "optional": true}}],
        "env": [
            {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token"}}},
            {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "mode"}}},
            {"name": "MAYBE", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "x", "optional": true}}},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "POD_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}},
            {"name": "TEAM", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['team']"}}},
            {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
            {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
            {"name": "SA", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}},
            {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
            {"name": "MEMORY_MI", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
            {"name": "GREETING", "value": "$(POD_NAME) in $(NODE) says $(MODE)"},
        ],
    });
    let created: Pod = create(&c.client, pod("envy", container, json!([]))).await;
    let command = tokio::time::timeout(PATIENCE, started.recv()).await.expect("the container starts").unwrap();
    let env = |name: &str| command.env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let uid = created.metadata.uid.unwrap();
    let expected = [
        ("CFG_mode", "fast"),
        ("CFG_level", "3"),
        ("TOKEN", "t0k"),
        ("MODE", "fast"),
        ("POD_NAME", "envy"),
        ("POD_UID", uid.as_str()),
        ("TEAM", "fleet"),
        ("APP", "envy"),
        ("NODE", "node1"),
        ("SA", "default"),
        ("MEMORY_MI", "64"),
        ("GREETING", "envy in node1 says fast"),
    ];
    for (name, value) in expected {
        assert_eq!(env(name), Some(value), "{name}");
    }
    assert_eq!(env("MAYBE"), None, "an optional key that is missing is left out");
    let ip: std::net::Ipv4Addr = env("IP").expect("status.podIP").parse().expect("an IPv4 address");
    assert!(
        ip.is_loopback() && ip != std::net::Ipv4Addr::LOCALHOST,
        "a Pod on the host's network has a loopback address of its own: {ip}"
    );
    assert_eq!(command.args, ["--mode=fast", "$(HOME)"]);
    simulator.shutdown().await;
}

/// kubelet's reasons: a container whose env names a missing Secret waits with
/// `CreateContainerConfigError` (and a `Failed` Event); one whose volume does waits in
/// `ContainerCreating` (and a `FailedMount` Event). Both start once the Secret exists.
#[tokio::test]
async fn a_missing_secret_keeps_the_container_waiting_with_the_kubelet_reason() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mode, mut started) = reporting_runner();
    let simulator = simulated(&c, dir.path(), mode).await;
    let from_env = json!({"env": [{"name": "T", "valueFrom": {"secretKeyRef": {"name": "later", "key": "token"}}}]});
    create::<Pod>(&c.client, pod("by-env", from_env, json!([]))).await;
    let mounted = json!({"volumeMounts": [{"name": "s", "mountPath": "/etc/s"}]});
    create::<Pod>(&c.client, pod("by-volume", mounted, json!([{"name": "s", "secret": {"secretName": "later"}}])))
        .await;

    let waiting = |reason: &'static str| move |s: &Value| s["state"]["waiting"]["reason"] == reason;
    wait_pod(&c, "by-env", "waiting on its env", waiting("CreateContainerConfigError")).await;
    wait_event(&c, "Failed", "Error: secret \"later\" not found").await;
    wait_pod(&c, "by-volume", "waiting on its volume", waiting("ContainerCreating")).await;
    wait_event(&c, "FailedMount", "MountVolume.SetUp failed for volume \"s\" : secret \"later\" not found").await;
    assert!(started.try_recv().is_err(), "neither container starts without the secret");

    create::<Secret>(&c.client, json!({"metadata": {"name": "later"}, "stringData": {"token": "t"}})).await;
    for _ in 0..2 {
        tokio::time::timeout(PATIENCE, started.recv()).await.expect("both start once it exists").unwrap();
    }
    wait_pod(&c, "by-env", "running", |s| s["state"]["running"].is_object()).await;
    let by_volume = wait_pod(&c, "by-volume", "running", |s| s["state"]["running"].is_object()).await;
    assert_eq!(read(&volume_file(dir.path(), &by_volume, "s", "token")), "t");
    simulator.shutdown().await;
}

/// A Pod deleted at once and created again under its name (a StatefulSet's, or a forced
/// delete) has files of its own: the old one's removal, which follows its containers'
/// stop, leaves the new one's volumes alone.
#[tokio::test]
async fn a_pod_recreated_under_its_name_keeps_its_volumes_when_the_old_one_is_removed() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mode, mut started) = reporting_runner();
    let simulator = simulated(&c, dir.path(), mode).await;
    create::<ConfigMap>(&c.client, json!({"metadata": {"name": "settings"}, "data": {"mode": "fast"}})).await;
    let spec = || {
        let mounted = json!({"volumeMounts": [{"name": "cfg", "mountPath": "/etc/cfg"}]});
        pod("again", mounted, json!([{"name": "cfg", "configMap": {"name": "settings"}}]))
    };
    create::<Pod>(&c.client, spec()).await;
    let first = wait_pod(&c, "again", "the first runs", |s| s["state"]["running"].is_object()).await;
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    pods.delete("again", &kube::api::DeleteParams { grace_period_seconds: Some(0), ..Default::default() })
        .await
        .unwrap();
    let recreated: Pod = create(&c.client, spec()).await;
    let second = serde_json::to_value(&recreated).unwrap();
    for _ in 0..2 {
        tokio::time::timeout(PATIENCE, started.recv()).await.expect("both start").unwrap();
    }
    wait_pod(&c, "again", "the second runs", |s| s["state"]["running"].is_object()).await;
    until("the first pod's files are removed", || !pod_dir(dir.path(), &first).exists()).await;
    assert_eq!(read(&volume_file(dir.path(), &second, "cfg", "mode")), "fast");
    simulator.shutdown().await;
}

/// The payload of a JWT (its claims).
fn claims(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

/// The projected volume kubelet makes: a ServiceAccount token through TokenRequest with the
/// audience and lifetime asked for, the cluster CA from `kube-root-ca.crt`, downward API
/// items; and the `kube-api-access-*` volume admission adds, whose token authenticates as
/// the Pod's ServiceAccount.
#[tokio::test]
async fn a_projected_volume_holds_a_token_for_its_audience_the_ca_and_the_pods_fields() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mode, mut started) = reporting_runner();
    let simulator = simulated(&c, dir.path(), mode).await;
    let projected = json!([{"name": "bundle", "projected": {"sources": [
        {"serviceAccountToken": {"audience": "vault", "expirationSeconds": 7200, "path": "vault-token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [
            {"path": "uid", "fieldRef": {"fieldPath": "metadata.uid"}},
            {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
            {"path": "team", "fieldRef": {"fieldPath": "metadata.annotations['team']"}},
        ]}},
    ]}}]);
    let mounted = json!({"volumeMounts": [{"name": "bundle", "mountPath": "/var/run/bundle"}]});
    let created: Pod = create(&c.client, pod("projected", mounted, projected)).await;
    tokio::time::timeout(PATIENCE, started.recv()).await.expect("the container starts").unwrap();
    let running = wait_pod(&c, "projected", "running", |s| s["state"]["running"].is_object()).await;

    let file = |volume: &str, name: &str| read(&volume_file(dir.path(), &running, volume, name));
    let vault = claims(&file("bundle", "vault-token"));
    assert_eq!(vault["aud"], json!(["vault"]), "{vault}");
    assert_eq!(vault["exp"].as_i64().unwrap() - vault["iat"].as_i64().unwrap(), 7200, "{vault}");
    assert_eq!(file("bundle", "ca.crt"), c.server.ca_pem());
    assert_eq!(file("bundle", "uid"), created.metadata.uid.unwrap());
    assert_eq!(file("bundle", "labels"), "app=\"projected\"");
    assert_eq!(file("bundle", "team"), "fleet");

    let access = created.spec.unwrap().volumes.unwrap().into_iter().find(|v| v.name.starts_with("kube-api-access-"));
    let access = access.expect("admission adds the service-account volume").name;
    assert_eq!(file(&access, "namespace"), "default");
    let as_pod = c.client_with_token(&file(&access, "token")).await;
    let denied = Api::<Pod>::namespaced(as_pod, "kube-system").list(&Default::default()).await.unwrap_err();
    match denied {
        kube::Error::Api(status) => {
            assert!(status.message.contains("system:serviceaccount:default:default"), "{}", status.message);
        }
        other => panic!("{other:?}"),
    }
    simulator.shutdown().await;
}
