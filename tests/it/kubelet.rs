//! The node simulator as a kubelet: restart back-off, probes, and the order in which a
//! terminating Pod and its credentials go.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fleetctl_nodesim::process::Isolation;
use fleetctl_nodesim::{InProcessCommand, RunMode, Timing};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authentication::v1::TokenRequest;
use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use kube::api::{Api, DeleteParams, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::json;
use tokio::time::Instant;

use crate::dev_env::{
    IMAGE, container, deployment, env_of, fake_runner, next, running, simulated_with, wait_event, wait_pods,
};
use crate::support::cluster::{TestCluster, raw};

/// `pkg/kubelet/kubelet.go`: `backOffPeriod` 10 s, `MaxContainerBackOff` 300 s, and
/// `flowcontrol.Backoff` forgets a container after twice the maximum.
#[test]
fn the_default_restart_back_off_is_the_kubelets() {
    let timing = Timing::default();
    assert_eq!(
        (timing.backoff_start, timing.backoff_max, timing.backoff_reset),
        (Duration::from_secs(10), Duration::from_secs(300), Duration::from_secs(600))
    );
}

/// `kuberuntime_manager.doBackOff`: the first exit restarts at once; each later one waits
/// the back-off (here shortened to 500 ms, doubling to 2 s), in `CrashLoopBackOff`, with
/// how the last run ended in `lastState.terminated`.
#[tokio::test]
async fn a_crashing_container_restarts_at_once_then_after_a_doubling_back_off_as_kubelet() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mode, mut fake) = fake_runner();
    let timing = Timing {
        shutdown_grace: Duration::from_millis(500),
        backoff_start: Duration::from_millis(500),
        backoff_max: Duration::from_secs(2),
        ..Timing::default()
    };
    let simulator = simulated_with(&c, dir.path(), mode, timing).await;
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("crashing", IMAGE, json!(["hub"]), json!({})))
        .await
        .unwrap();
    next(&mut fake.started, "the container starts").await;

    let mut measured = Vec::new();
    for _ in 0..5 {
        let crashed = Instant::now();
        fake.crash.notify_one();
        next(&mut fake.started, "the container starts again").await;
        measured.push(crashed.elapsed());
    }
    eprintln!("restart delays after each crash: {measured:?}");
    let expected = [0, 500, 1000, 2000, 2000].map(Duration::from_millis);
    for (delay, expected) in measured.iter().zip(expected) {
        assert!(*delay >= expected && *delay < expected + Duration::from_millis(900), "{measured:?}");
    }

    // One more crash: the container waits in CrashLoopBackOff, the last run's end recorded.
    fake.crash.notify_one();
    let waiting = wait_pods(&pods, "crashing", "CrashLoopBackOff", |p| {
        p.len() == 1 && container(&p[0])["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    })
    .await;
    let status = container(&waiting[0]);
    let message = status["state"]["waiting"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("back-off 2s restarting failed container=main pod=crashing-"), "{status}");
    let last = &status["lastState"]["terminated"];
    assert_eq!((last["exitCode"].as_i64(), last["reason"].as_str()), (Some(1), Some("Error")), "{status}");
    assert!(last["startedAt"].is_string() && last["finishedAt"].is_string(), "{status}");
    assert_eq!(status["restartCount"], 5);
    wait_event(&c, "BackOff", "Back-off restarting failed container main in pod crashing-").await;
    next(&mut fake.started, "it starts once the back-off is over").await;
    wait_pods(&pods, "crashing", "running, restartCount 6", |p| {
        p.len() == 1 && container(&p[0])["state"]["running"].is_object() && container(&p[0])["restartCount"] == 6
    })
    .await;
    simulator.shutdown().await;
}

/// Serves HTTPS on `addr` with a self-signed certificate for a name nobody dials, answering
/// 200, or 503 while `failing` is set.
async fn https_health(addr: std::net::SocketAddr, failing: Arc<AtomicBool>) {
    let key = rcgen::KeyPair::generate().unwrap();
    let cert =
        rcgen::CertificateParams::new(vec!["not-this-pod.example".to_string()]).unwrap().self_signed(&key).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(key.serialize_der()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    loop {
        let (tcp, _) = listener.accept().await.unwrap();
        let (acceptor, failing) = (acceptor.clone(), failing.clone());
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else { return };
            let service = hyper::service::service_fn(move |_request| {
                let status = if failing.load(Ordering::SeqCst) { 503 } else { 200 };
                let response =
                    hyper::Response::builder().status(status).body(http_body_util::Empty::<bytes::Bytes>::new());
                async move { response }
            });
            let io = hyper_util::rt::TokioIo::new(tls);
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
        });
    }
}

/// `pkg/probe/http`: an HTTPS probe dials TLS without verifying the certificate (the
/// kubelet's `InsecureSkipVerify`), and its answer counts as an HTTP probe's does.
#[tokio::test]
async fn an_https_probe_skips_certificate_verification_as_kubelet() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let failing = Arc::new(AtomicBool::new(false));
    let serving = failing.clone();
    let runner = Arc::new(move |command: InProcessCommand| {
        let failing = serving.clone();
        Box::pin(async move {
            let addr = env_of(&command, "FLEETCTL_HEALTH_ADDR").unwrap().parse().unwrap();
            https_health(addr, failing).await;
            0
        }) as futures::future::BoxFuture<'static, i32>
    });
    let simulator = simulated_with(&c, dir.path(), RunMode::InProcess(runner), Timing::default()).await;
    let mut secure = serde_json::to_value(deployment("secure", IMAGE, json!(["hub"]), json!({}))).unwrap();
    secure["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = json!({
        "httpGet": {"path": "/readyz", "port": 8000, "scheme": "HTTPS"}, "periodSeconds": 1, "failureThreshold": 1,
    });
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    deployments.create(&PostParams::default(), &serde_json::from_value(secure).unwrap()).await.unwrap();
    wait_pods(&pods, "secure", "ready through an HTTPS probe", running).await;

    failing.store(true, Ordering::SeqCst);
    wait_event(&c, "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503").await;
    wait_pods(&pods, "secure", "unready", |p| p.len() == 1 && container(&p[0])["ready"] == false).await;
    simulator.shutdown().await;
}

/// `pkg/probe/exec`: an exec probe runs its command with the container's environment, in
/// its working directory; exit code 0 passes; a failing liveness probe restarts it.
#[tokio::test]
async fn exec_probes_run_in_the_containers_environment_and_directory_as_kubelet() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    // The image's entrypoint is a shell: the container works in `WORK` and touches `healthy`.
    let mode = RunMode::Process { program: "/bin/sh".into(), isolation: Isolation::Kubeconfig };
    let simulator = simulated_with(&c, dir.path(), mode, Timing::default()).await;
    let script = r#"cd "$WORK" && touch healthy && exec sleep 600"#;
    let mut probed = serde_json::to_value(deployment("exec", IMAGE, json!(["-c", script]), json!({}))).unwrap();
    let main = &mut probed["spec"]["template"]["spec"]["containers"][0];
    main["env"].as_array_mut().unwrap().extend([
        json!({"name": "WORK", "value": work.path().to_str().unwrap()}),
        json!({"name": "READY_FILE", "value": "ready"}),
    ]);
    main["readinessProbe"] = json!({"exec": {"command": ["sh", "-c", "test -f \"$READY_FILE\""]}, "periodSeconds": 1, "failureThreshold": 1});
    main["livenessProbe"] = json!({"exec": {"command": ["cat", "healthy"]}, "periodSeconds": 1, "failureThreshold": 2});
    let deployments: Api<Deployment> = Api::namespaced(c.client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    deployments.create(&PostParams::default(), &serde_json::from_value(probed).unwrap()).await.unwrap();

    wait_event(&c, "Unhealthy", "Readiness probe failed").await;
    let pod = &wait_pods(&pods, "exec", "running, not ready", |p| {
        p.len() == 1 && container(&p[0])["state"]["running"].is_object()
    })
    .await[0];
    assert_eq!(container(pod)["ready"], false, "no `ready` file in its directory yet");
    std::fs::write(work.path().join("ready"), "").unwrap();
    wait_pods(&pods, "exec", "ready once the file is there", running).await;

    // (Its Unhealthy events are one series, kube-rs's recorder keeps the first one's note.)
    std::fs::remove_file(work.path().join("healthy")).unwrap();
    wait_event(&c, "Killing", "Container main failed liveness probe, will be restarted").await;
    wait_pods(&pods, "exec", "restarted, healthy and ready again", |p| {
        running(p) && container(&p[0])["restartCount"] == 1
    })
    .await;
    simulator.shutdown().await;
}

/// A SelfSubjectReview with `token`: the answer's status and the user it names.
async fn who_am_i(c: &TestCluster, token: &str) -> (u16, String) {
    let client = c.client_with_token(token).await;
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
    let path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    let (code, answer) = raw(&client, "POST", path, "application/json", body.to_string().into_bytes()).await;
    (code, answer["status"]["userInfo"]["username"].as_str().unwrap_or_default().to_string())
}

/// kube-apiserver's `serviceaccount.validator`: a token bound to a Pod (`boundObjectRef`)
/// is refused once the Pod is gone, though its ServiceAccount lives on; TokenRequest checks
/// the uid and the ServiceAccount the Pod runs as.
#[tokio::test]
async fn a_token_bound_to_a_pod_dies_with_the_pod_as_kube_apiserver_validates_it() {
    let c = TestCluster::start().await;
    let accounts: Api<ServiceAccount> = Api::namespaced(c.client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    let sa: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": "agent"}})).unwrap();
    accounts.create(&PostParams::default(), &sa).await.unwrap();
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "p"},
        "spec": {"serviceAccountName": "agent", "containers": [{"name": "c", "image": "x"}]}}))
    .unwrap();
    let pod = pods.create(&PostParams::default(), &pod).await.unwrap();
    let request = |uid: &str| -> TokenRequest {
        serde_json::from_value(
            json!({"spec": {"boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": uid}}}),
        )
        .unwrap()
    };
    let uid = pod.metadata.uid.clone().unwrap();
    let issued = accounts.create_token_request("agent", &PostParams::default(), &request(&uid)).await.unwrap();
    let token = issued.status.unwrap().token;
    assert_eq!(who_am_i(&c, &token).await, (201, "system:serviceaccount:default:agent".to_string()));

    let refused = accounts.create_token_request("agent", &PostParams::default(), &request("another-uid")).await;
    assert!(matches!(refused, Err(kube::Error::Api(s)) if s.code == 400), "a uid that is not the Pod's");
    let refused = accounts.create_token_request("default", &PostParams::default(), &request(&uid)).await;
    assert!(matches!(refused, Err(kube::Error::Api(s)) if s.code == 400), "a Pod that runs as another account");

    // Bound to no node, the Pod goes at once; its token with it, the ServiceAccount stays.
    pods.delete("p", &DeleteParams::default()).await.unwrap();
    assert_eq!(who_am_i(&c, &token).await.0, 401);
    assert!(accounts.get_opt("agent").await.unwrap().is_some());
}

/// The namespace controller's ordered deletion (KEP-5080) and the kubelet: a terminating
/// Pod keeps its ServiceAccount, its token and its mounted files until its containers have
/// stopped, so a container that calls the API server on SIGTERM still gets through; the
/// namespace's other content goes after the Pods.
#[tokio::test]
async fn a_terminating_pod_keeps_its_credentials_until_its_containers_stopped_as_kubelet() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mode = RunMode::Process { program: "/bin/sh".into(), isolation: Isolation::Kubeconfig };
    let timing = Timing::default();
    let simulator = simulated_with(&c, dir.path(), mode, timing).await;
    let namespaces: Api<Namespace> = Api::all(c.client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": "leaving"}})).unwrap();
    namespaces.create(&PostParams::default(), &ns).await.unwrap();
    let accounts: Api<ServiceAccount> = Api::namespaced(c.client.clone(), "leaving");
    let sa: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": "agent"}})).unwrap();
    accounts.create(&PostParams::default(), &sa).await.unwrap();

    // On SIGTERM it waits a moment (the namespace controller runs meanwhile), then asks the
    // API server who it is with its token, and only then exits.
    let script = r#"
        on_term() {
            sleep 1
            TOKEN=$(sed -n 's/^ *token: *//p' "$KUBECONFIG")
            curl -sk -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
                -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' \
                -w '\n%{http_code}' "$SERVER/apis/authentication.k8s.io/v1/selfsubjectreviews" > "$OUT.tmp"
            mv "$OUT.tmp" "$OUT"
            exit 0
        }
        trap on_term TERM
        echo up > "$OUT.up"
        while :; do sleep 0.1; done
    "#;
    let out = work.path().join("on-term");
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "cleaner", "labels": {"app": "cleaner"}},
        "spec": {"nodeName": "node1", "serviceAccountName": "agent", "containers": [{
            "name": "main", "image": IMAGE, "args": ["-c", script],
            "env": [{"name": "OUT", "value": out.to_str().unwrap()}, {"name": "SERVER", "value": c.server.url()}],
            "readinessProbe": {"exec": {"command": ["sh", "-c", "test -f \"$OUT.up\""]}, "periodSeconds": 1},
        }]},
    }))
    .unwrap();
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "leaving");
    pods.create(&PostParams::default(), &pod).await.unwrap();
    wait_pods(&pods, "cleaner", "ready: its trap is set", running).await;

    namespaces.delete("leaving", &DeleteParams::default()).await.unwrap();
    let gone = await_condition(namespaces.clone(), "leaving", |ns: Option<&Namespace>| ns.is_none());
    tokio::time::timeout(Duration::from_secs(20), gone).await.expect("the namespace goes").unwrap();
    let answer = std::fs::read_to_string(&out).expect("the container called the API server on SIGTERM");
    let (body, code) = answer.rsplit_once('\n').unwrap();
    assert_eq!(code, "201", "its token still worked while it stopped: {body}");
    assert!(body.contains("system:serviceaccount:leaving:agent"), "{body}");
    assert!(!dir.path().join("pods/node1/leaving_cleaner").exists(), "its files go once it has stopped");
    simulator.shutdown().await;
}

/// A bare Pod on `node1` running `script` in `/bin/sh` with `$OUT` set, ready once the
/// script has written `$OUT.up`, with `extra` merged into its container.
fn shell_pod(name: &str, out: &std::path::Path, grace_seconds: i64, script: &str, extra: serde_json::Value) -> Pod {
    let mut main = json!({
        "name": "main", "image": IMAGE, "args": ["-c", script],
        "env": [{"name": "OUT", "value": out.to_str().unwrap()}],
        "readinessProbe": {"exec": {"command": ["sh", "-c", "test -f \"$OUT.up\""]}, "periodSeconds": 1},
    });
    main.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"nodeName": "node1", "terminationGracePeriodSeconds": grace_seconds, "containers": [main]},
    }))
    .unwrap()
}

/// Deletes a Pod as a client does (no grace period of its own) and returns how long it took
/// to be gone: its containers stopped, the simulator then deleting it for good.
async fn delete_and_time(pods: &Api<Pod>, name: &str) -> Duration {
    let started = Instant::now();
    pods.delete(name, &DeleteParams::default()).await.unwrap();
    let gone = await_condition(pods.clone(), name, |p: Option<&Pod>| p.is_none());
    tokio::time::timeout(Duration::from_secs(40), gone).await.expect("the pod goes").unwrap();
    started.elapsed()
}

/// `kuberuntime_container.killContainer`: a deleted Pod's containers get its
/// `deletionGracePeriodSeconds` (from `spec.terminationGracePeriodSeconds`) between SIGTERM
/// and SIGKILL — not the simulator's own shutdown grace, nor the 30 s default.
#[tokio::test]
async fn a_container_that_ignores_sigterm_is_killed_when_the_pods_grace_period_ends_as_kubelet() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mode = RunMode::Process { program: "/bin/sh".into(), isolation: Isolation::Kubeconfig };
    let simulator = simulated_with(&c, dir.path(), mode, Timing::default()).await;
    let out = work.path().join("stubborn");
    let script = r#"trap 'echo term > "$OUT.term"' TERM; echo up > "$OUT.up"; while :; do sleep 0.1; done"#;
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    pods.create(&PostParams::default(), &shell_pod("stubborn", &out, 3, script, json!({}))).await.unwrap();
    wait_pods(&pods, "stubborn", "ready: its trap is set", running).await;

    let took = delete_and_time(&pods, "stubborn").await;
    assert!(out.with_extension("term").exists(), "it got SIGTERM first");
    assert!(took >= Duration::from_millis(2900) && took < Duration::from_millis(4500), "killed after 3 s: {took:?}");
    simulator.shutdown().await;
}

/// `killContainer`: the preStop hook runs before SIGTERM, and within the same grace period —
/// a hook of 1 s leaves a container that ignores SIGTERM 3 s of a 4 s grace period.
#[tokio::test]
async fn a_pre_stop_hook_runs_before_sigterm_within_the_grace_period() {
    let c = TestCluster::start().await;
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mode = RunMode::Process { program: "/bin/sh".into(), isolation: Isolation::Kubeconfig };
    let simulator = simulated_with(&c, dir.path(), mode, Timing::default()).await;
    let out = work.path().join("hooked");
    // On SIGTERM it says whether the hook had run, and stays.
    let script = r#"
        trap 'if [ -f "$OUT.hook" ]; then echo after > "$OUT.term"; else echo before > "$OUT.term"; fi' TERM
        echo up > "$OUT.up"
        while :; do sleep 0.1; done
    "#;
    let hook =
        json!({"lifecycle": {"preStop": {"exec": {"command": ["sh", "-c", "sleep 1; echo ran > \"$OUT.hook\""]}}}});
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    pods.create(&PostParams::default(), &shell_pod("hooked", &out, 4, script, hook)).await.unwrap();
    wait_pods(&pods, "hooked", "ready: its trap is set", running).await;

    let took = delete_and_time(&pods, "hooked").await;
    assert_eq!(std::fs::read_to_string(out.with_extension("hook")).unwrap(), "ran\n");
    assert_eq!(std::fs::read_to_string(out.with_extension("term")).unwrap(), "after\n", "SIGTERM after the hook");
    assert!(
        took >= Duration::from_millis(3900) && took < Duration::from_millis(4900),
        "hook and SIGTERM share 4 s: {took:?}"
    );
    simulator.shutdown().await;
}

/// kube-apiserver's graceful Pod deletion: `deletionGracePeriodSeconds` is
/// `spec.terminationGracePeriodSeconds` (defaulted to 30), DeleteOptions'
/// `gracePeriodSeconds` shortens it, and 0 deletes the Pod at once.
#[tokio::test]
async fn a_deleted_pods_grace_period_is_its_specs_or_the_delete_options_as_kube_apiserver() {
    let c = TestCluster::start().await;
    let pods: Api<Pod> = Api::namespaced(c.client.clone(), "default");
    // Bound to a node no kubelet runs: the Pod stays marked.
    let pod: Pod = serde_json::from_value(
        json!({"metadata": {"name": "p"}, "spec": {"nodeName": "nowhere", "containers": [{"name": "c", "image": "x"}]}}),
    )
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let grace = |pod: Pod| pod.metadata.deletion_grace_period_seconds;
    let marked = pods.delete("p", &DeleteParams::default()).await.unwrap().left().unwrap();
    assert_eq!(grace(marked), Some(30), "the defaulted spec's 30 s");
    let shorter = DeleteParams { grace_period_seconds: Some(5), ..DeleteParams::default() };
    assert_eq!(grace(pods.delete("p", &shorter).await.unwrap().left().unwrap()), Some(5));
    pods.delete("p", &DeleteParams { grace_period_seconds: Some(0), ..DeleteParams::default() }).await.unwrap();
    assert!(pods.get_opt("p").await.unwrap().is_none(), "a grace period of 0 deletes it at once");
}
