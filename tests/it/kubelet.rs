//! The node simulator as a kubelet: restart back-off, probes, and the order in which a
//! terminating Pod and its credentials go.

use std::time::Duration;

use fleetctl_nodesim::Timing;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use serde_json::json;
use tokio::time::Instant;

use crate::dev_env::{IMAGE, container, deployment, fake_runner, next, simulated_with, wait_event, wait_pods};
use crate::support::cluster::TestCluster;

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
        grace: Duration::from_millis(500),
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
