//! The CLI does what the user meant (issue 38) on `dev up`: an import without a context
//! reaches the context of the cluster's name and never the hub; `--timeout` bounds every
//! command, connecting included, against a stopped hub or target; two identical upgrades
//! started together are one upgrade, and `get clusters` shows, at every read, a version the
//! agents' pods run; failures keep the document's shape; dry runs change nothing.

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kube::Api;
use serde_json::Value;

use super::DevUp;
use fleetctl_api::names::AGENT_NAMESPACE;
use fleetctl_api::{Klusterlet, ManagedCluster};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn import_without_a_cluster_context_targets_the_context_named_like_the_cluster_and_never_the_hub() {
    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());

    // The kubeconfig's current-context is the hub's: the old default imported the hub.
    let output = env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "-o", "json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let target = env.client("cluster1").await;
    let klusterlet = Api::<Klusterlet>::all(target).get_opt("klusterlet").await.expect("read");
    assert!(klusterlet.is_some_and(|k| k.spec.cluster_name == "cluster1"), "the klusterlet went to cluster1");
    let on_hub = Api::<Klusterlet>::all(hub.clone()).get_opt("klusterlet").await;
    assert!(!matches!(on_hub, Ok(Some(_))), "nothing of the klusterlet on the hub");
    let cluster1 = clusters.get("cluster1").await.expect("cluster1");
    let url = &cluster1.spec.managed_cluster_client_configs.first().expect("a client config").url;
    assert_eq!(url.trim_end_matches('/'), env.server("cluster1").trim_end_matches('/'), "-o wide has its URL");

    // The hub as a target is refused unless asked for; a name with no context of its own
    // is refused naming the fix; neither changes anything.
    for (args, says) in [
        (&["import", "c9", "--hub-context", "hub", "--cluster-context", "hub"][..], "--allow-hub-as-target"),
        (&["import", "cluster2", "--hub-context", "hub"], "pass --cluster-context CONTEXT"),
    ] {
        let output = env.fleetctl(args);
        assert_eq!(output.status.code(), Some(4), "{args:?}: {}", text(&output.stderr));
        assert!(text(&output.stderr).contains(says), "{args:?}: {}", text(&output.stderr));
    }
    for name in ["c9", "cluster2"] {
        assert!(clusters.get_opt(name).await.expect("read").is_none(), "{name} was not imported");
    }

    // Flags before the command; kubectl's jsonpath; a dry run writes nothing and says what it would.
    let names = env.fleetctl(&["--hub-context", "hub", "get", "clusters", "-o", "jsonpath={.items[*].metadata.name}"]);
    assert_eq!(text(&names.stdout), "cluster1", "{}", text(&names.stderr));
    let before = clusters.get("cluster1").await.expect("cluster1").metadata.resource_version;
    let output = env.fleetctl(&["detach", "cluster1", "--dry-run", "-o", "json", "--hub-context", "hub"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).expect("a report");
    assert_eq!(report["clusters"][0]["result"], "would detach", "{report}");
    assert!(report["clusters"][0]["writes"][0].as_str().is_some_and(|w| w.contains("delete ManagedCluster cluster1")));
    let output =
        env.fleetctl(&["upgrade", "cluster1", "--to", "0.2.0", "--dry-run", "-o", "json", "--hub-context", "hub"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("a report");
    assert_eq!(report["clusters"][0]["result"], "would upgrade to 0.2.0", "{report}");
    let after = clusters.get("cluster1").await.expect("cluster1");
    assert_eq!(after.metadata.resource_version, before, "the dry runs wrote nothing");

    // `detach --all` as `upgrade --all` (a dry run here); `get -w` prints each change after
    // the list, until its --timeout.
    let output = env.fleetctl(&["detach", "--all", "--dry-run", "--hub-context", "hub", "-o", "json"]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("a report");
    assert_eq!(report["clusters"][0]["cluster"], "cluster1", "{report}");
    let watching = env
        .fleetctl_command(&["get", "clusters", "-w", "--timeout", "4s", "--hub-context", "hub"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("get -w runs");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let label = serde_json::json!({"metadata": {"labels": {"watched": "yes"}}});
    clusters.patch("cluster1", &Default::default(), &kube::api::Patch::Merge(label)).await.expect("label");
    let watched = tokio::task::spawn_blocking(move || watching.wait_with_output()).await.expect("join").expect("wait");
    assert!(watched.status.success(), "a watch ends at its --timeout: {}", text(&watched.stderr));
    let rows: Vec<String> = text(&watched.stdout).lines().map(str::to_string).collect();
    assert!(rows.len() >= 3 && rows[0].starts_with("NAME"), "the list, then the change: {rows:?}");
    assert!(rows[1..].iter().all(|r| r.starts_with("cluster1")), "{rows:?}");

    // On failure, -o json keeps the document's shape, with the error beside it.
    let output = env.fleetctl(&["get", "clusters", "cluster1", "nosuch", "-o", "json", "--hub-context", "hub"]);
    assert_eq!(output.status.code(), Some(4));
    let list: Value = serde_json::from_slice(&output.stdout).expect("a list on failure");
    assert_eq!((&list["kind"], &list["error"]["exitCode"]), (&Value::from("List"), &Value::from(4)), "{list}");
    let output = env.fleetctl(&["describe", "cluster", "nosuch", "-o", "json", "--hub-context", "hub"]);
    assert_eq!(output.status.code(), Some(4));
    let described: Value = serde_json::from_slice(&output.stdout).expect("a document on failure");
    assert_eq!((&described["name"], &described["error"]["exitCode"]), (&Value::from("nosuch"), &Value::from(4)));
}

/// The pid of a dev cluster's API server process.
fn server_pid(env: &DevUp, name: &str) -> nix::unistd::Pid {
    let state: Value =
        serde_json::from_slice(&std::fs::read(env.dir.path().join("state.json")).expect("state")).expect("json");
    let clusters = state["clusters"].as_array().expect("clusters");
    let pid = clusters.iter().find(|c| c["name"] == name).expect("cluster")["pid"].as_u64().expect("pid");
    nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid"))
}

/// Stops (SIGSTOP) a dev cluster's API server until dropped: it accepts connections and
/// answers nothing, as a hung server.
struct Stopped(nix::unistd::Pid);

impl Stopped {
    fn new(env: &DevUp, name: &str) -> Self {
        let pid = server_pid(env, name);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).expect("SIGSTOP");
        Self(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(self.0, nix::sys::signal::Signal::SIGCONT);
    }
}

#[tokio::test]
async fn the_timeout_bounds_every_command_connecting_included_against_a_stopped_hub_or_target() {
    let env = DevUp::start(1);
    let imported = env.fleetctl(&["import", "cluster1", "--hub-context", "hub"]);
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    let dir = tempfile::tempdir().expect("tempdir");
    let fleet = dir.path().join("fleet.yaml");
    std::fs::write(
        &fleet,
        "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\nhub: {context: hub}\nclusters:\n- name: cluster1\n",
    )
    .expect("fleet");
    let fleet = fleet.to_string_lossy().into_owned();
    let timeout = ["--timeout", "3s"];
    let bound = Duration::from_secs(4);
    let mut slow = Vec::new();
    let mut timed = |args: &[&str], codes: &[i32]| {
        let started = Instant::now();
        let output = env.fleetctl(&[args, &timeout].concat());
        let took = started.elapsed();
        if took > bound || !output.status.code().is_some_and(|c| codes.contains(&c)) {
            slow.push(format!("{args:?}: {took:?}, exit {:?}: {}", output.status.code(), text(&output.stderr)));
        }
    };
    {
        let _target = Stopped::new(&env, "cluster1");
        // Nothing changed: the target did not answer in time.
        timed(&["import", "cluster1", "--hub-context", "hub"], &[4]);
        // The hub is cleaned by force in the time left; the target is said to hold what is left.
        timed(
            &["detach", "cluster1", "--yes", "--force", "--cluster-context", "cluster1", "--hub-context", "hub"],
            &[0, 3],
        );
    }
    let hub_commands: [&[&str]; 7] = [
        &["import", "cluster1", "--hub-context", "hub"],
        &["upgrade", "cluster1", "--to", "0.2.0", "--hub-context", "hub"],
        &["detach", "cluster1", "--yes", "--hub-context", "hub"],
        &["get", "clusters", "--hub-context", "hub"],
        &["describe", "cluster", "cluster1", "--hub-context", "hub"],
        &["plan", "-f", &fleet],
        &["apply", "-f", &fleet],
    ];
    {
        let _hub = Stopped::new(&env, "hub");
        for args in hub_commands {
            timed(args, &[4]);
        }
    }
    assert!(slow.is_empty(), "each within --timeout 3s and a second, refused (exit 4) or timed out: {slow:#?}");
}

/// The image tags the pods of the klusterlet's agents run on `cluster`.
async fn running_tags(pods: &Api<Pod>) -> BTreeSet<String> {
    let Ok(list) = pods.list(&Default::default()).await else { return BTreeSet::new() };
    let running = list.items.into_iter().filter(|p| {
        !p.status.as_ref().and_then(|s| s.phase.as_deref()).is_some_and(|p| matches!(p, "Succeeded" | "Failed"))
    });
    running
        .flat_map(|p| p.status.and_then(|s| s.container_statuses).unwrap_or_default())
        .filter_map(|c| Some(c.image.rsplit_once(':')?.1.to_string()))
        .collect()
}

/// One read of `get clusters`, between two reads of the pods.
struct Sample {
    at: Instant,
    shown: BTreeSet<String>,
    pods: BTreeSet<String>,
}

/// How long the hub may lag what the pods run: the registration agent reports a change of
/// the pods as it sees it, but when it is itself the pod being replaced, the next one
/// reports once it has started.
const LAG: Duration = Duration::from_secs(3);

#[tokio::test(flavor = "multi_thread")]
async fn two_identical_upgrades_started_together_are_one_upgrade_and_get_agrees_with_the_pods_at_every_read() {
    let rounds: usize = std::env::var("FLEETCTL_UPGRADE_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(2);
    let env = DevUp::start(1);
    let imported = env.fleetctl(&["import", "cluster1", "--hub-context", "hub"]);
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    let pods: Api<Pod> = Api::namespaced(env.client("cluster1").await, AGENT_NAMESPACE);
    let jsonpath = r#"jsonpath={.status.clusterClaims[?(@.name=="klusterlet-version.fleetctl.io")].value}"#;
    let mut samples: Vec<Sample> = Vec::new();
    let mut rollbacks = Vec::new();
    for round in 0..rounds {
        let version = if round % 2 == 0 { "0.2.0" } else { "0.1.0" };
        let upgrade = |_: usize| {
            tokio::process::Command::new(env!("CARGO_BIN_EXE_fleetctl"))
                .args(["upgrade", "cluster1", "--to", version, "-o", "json", "--timeout", "2m", "--hub-context", "hub"])
                .env("KUBECONFIG", env.kubeconfig())
                .env_remove("FLEETCTL_HUB_KUBECONFIG")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output()
        };
        let both = tokio::spawn(futures::future::join(upgrade(1), upgrade(2)));
        while !both.is_finished() {
            let before = running_tags(&pods).await;
            let shown = env.fleetctl(&["get", "clusters", "cluster1", "--hub-context", "hub", "-o", jsonpath]);
            let after = running_tags(&pods).await;
            let shown: BTreeSet<String> =
                text(&shown.stdout).split(',').filter(|v| !v.is_empty()).map(str::to_string).collect();
            samples.push(Sample { at: Instant::now(), shown, pods: before.union(&after).cloned().collect() });
        }
        let (first, second) = both.await.expect("the upgrades' task");
        for output in [first, second] {
            let output = output.expect("fleetctl runs");
            assert!(output.status.success(), "round {round}: {}", text(&output.stderr));
            let report: Value = serde_json::from_slice(&output.stdout).expect("a report");
            let result = report["clusters"][0]["result"].as_str().unwrap_or_default().to_string();
            assert!(
                result == format!("running {version}") || result == format!("already running {version}"),
                "{report}"
            );
            if report.to_string().contains("rollback") {
                rollbacks.push(report);
            }
        }
    }
    assert!(rollbacks.is_empty(), "two identical upgrades are one upgrade, never a rollback: {rollbacks:#?}");
    // Every version `get` showed ran in an agent's pod at that read or just before it.
    let mut disagreements = Vec::new();
    for sample in &samples {
        let seen: BTreeSet<&String> = samples
            .iter()
            .filter(|s| s.at <= sample.at && sample.at.duration_since(s.at) <= LAG)
            .flat_map(|s| &s.pods)
            .collect();
        if !sample.shown.iter().all(|v| seen.contains(v)) {
            disagreements.push(format!("shown {:?}, pods ran {seen:?}", sample.shown));
        }
    }
    let exact = samples.iter().filter(|s| s.shown.iter().all(|v| s.pods.contains(v))).count();
    eprintln!(
        "{} reads of get clusters during {rounds} rounds of two identical upgrades: {exact} name only versions the \
         pods ran at that read, the rest versions they ran less than {LAG:?} before",
        samples.len()
    );
    assert!(disagreements.is_empty(), "{} of {} reads: {disagreements:#?}", disagreements.len(), samples.len());
}
