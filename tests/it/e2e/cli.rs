//! The built `fleetctl` binary on `dev up`: the three acts, JSON output, interrupted
//! imports, a dead cluster, and a catalogue of bad input.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use super::DevUp;
use crate::support::until;

fn text(output: &Output) -> (String, String) {
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

fn ok(output: Output) -> String {
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "failed ({:?}): {stderr}", output.status.code());
    stdout
}

/// What a command could write on a target — namespaces, CRDs, Deployments, Secrets and
/// ServiceAccounts — with their resourceVersions. (Not the store's revision: the node
/// simulator renews its Node's Lease every 10 s, as a kubelet does.)
async fn target_objects(env: &DevUp, context: &str) -> Vec<String> {
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::{Namespace, Secret, ServiceAccount};
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::ResourceExt;
    async fn named<K>(client: &kube::Client, what: &str) -> Vec<String>
    where
        K: kube::Resource<DynamicType = ()> + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let list = kube::Api::<K>::all(client.clone()).list(&Default::default()).await.expect("list");
        list.items
            .iter()
            .map(|o| {
                format!(
                    "{what}/{}/{}@{}",
                    o.namespace().unwrap_or_default(),
                    o.name_any(),
                    o.resource_version().unwrap_or_default()
                )
            })
            .collect()
    }
    let client = env.client(context).await;
    let mut out = named::<Namespace>(&client, "ns").await;
    out.extend(named::<CustomResourceDefinition>(&client, "crd").await);
    out.extend(named::<Deployment>(&client, "deploy").await);
    out.extend(named::<Secret>(&client, "secret").await);
    out.extend(named::<ServiceAccount>(&client, "sa").await);
    out.sort();
    out
}

/// The clusters, namespaces and import objects on the hub, with their resourceVersions.
async fn hub_objects(env: &DevUp) -> Vec<String> {
    use kube::ResourceExt;
    let hub = env.client("hub").await;
    let mut out: Vec<String> = kube::Api::<fleetctl_api::ManagedCluster>::all(hub.clone())
        .list(&Default::default())
        .await
        .expect("clusters")
        .items
        .iter()
        .map(|c| format!("mcl/{}@{} {:?}", c.name_any(), c.spec.hub_accepts_client, c.labels()))
        .collect();
    let namespaces = kube::Api::<k8s_openapi::api::core::v1::Namespace>::all(hub.clone())
        .list(&Default::default())
        .await
        .expect("ns");
    out.extend(namespaces.items.iter().map(|n| format!("ns/{}", n.name_any())));
    let configs =
        kube::Api::<fleetctl_api::KlusterletAddonConfig>::all(hub).list(&Default::default()).await.expect("kac");
    out.extend(
        configs.items.iter().map(|k| format!("kac/{}@{}", k.name_any(), k.resource_version().unwrap_or_default())),
    );
    out.sort();
    out
}

/// The labels of a cluster on the hub.
async fn labels_of(env: &DevUp, name: &str) -> std::collections::BTreeMap<String, String> {
    let hub = env.client("hub").await;
    let cluster = kube::Api::<fleetctl_api::ManagedCluster>::all(hub).get(name).await.expect("cluster");
    cluster.metadata.labels.unwrap_or_default()
}

/// The three acts through the CLI with `-o json`: an import waited for and one with
/// `--no-wait` (which the cluster finishes on its own); a re-import that changes nothing,
/// and one with other labels, which updates them and says so; an upgrade of the clusters a
/// label selects, then of all; and the detach of each.
#[tokio::test]
async fn the_cli_imports_upgrades_and_detaches_two_clusters_with_json_results() {
    use fleetctl::lifecycle::upgrade::running_version;
    use fleetctl_api::ManagedCluster;
    let env = DevUp::start(2);
    let hub = ["--hub-context", "hub"];
    let import = |name: &'static str, more: &[&'static str]| {
        [&["import", name, "--cluster-context", name, "-o", "json"][..], more, &hub].concat()
    };
    let stdout = ok(env.fleetctl(&import("cluster1", &["--label", "env=prod", "--label", "tier=gold"])));
    let report: Value = serde_json::from_str(&stdout).expect("only JSON on stdout");
    assert!(report.get("error").is_none(), "{report}");
    let result = &report["clusters"][0];
    assert_eq!(result["cluster"], "cluster1");
    assert_eq!(result["result"], "imported");
    assert!(result["steps"].as_array().expect("steps").len() >= 5);
    let available = result["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .any(|c| c["type"] == "ManagedClusterConditionAvailable" && c["status"] == "True");
    assert!(available, "{result}");

    // --no-wait: the manifests are applied and the command returns; the cluster joins alone.
    let stdout = ok(env.fleetctl(&import("cluster2", &["--no-wait", "--label", "env=dev"])));
    let report: Value = serde_json::from_str(&stdout).expect("only JSON on stdout");
    let result = &report["clusters"][0];
    assert_eq!(result["result"], "manifests applied", "{report}");
    let steps: Vec<&str> =
        result["steps"].as_array().expect("steps").iter().filter_map(|s| s["step"].as_str()).collect();
    assert!(!steps.iter().any(|s| s.starts_with("cluster ")), "nothing waited for: {steps:?}");
    let clusters = kube::Api::<ManagedCluster>::all(env.client("hub").await);
    fleetctl::lifecycle::wait_for(
        clusters.clone(),
        "cluster2",
        "cluster2 imported",
        super::WAIT,
        |c: Option<&ManagedCluster>| c.is_some_and(fleetctl::lifecycle::import::imported),
    )
    .await
    .expect("cluster2 imported on its own");

    // Importing again says so and changes nothing.
    let before = hub_objects(&env).await;
    let again = ok(env.fleetctl(&import("cluster1", &["--label", "env=prod", "--label", "tier=gold"])));
    let again: Value = serde_json::from_str(&again).expect("JSON");
    assert_eq!(again["clusters"][0]["result"], "already imported", "{again}");
    assert_eq!(hub_objects(&env).await, before);
    // With other labels it updates those an import set (not others'), and says so.
    let others = serde_json::json!({"metadata": {"labels": {"team": "a"}}});
    clusters.patch("cluster1", &Default::default(), &kube::api::Patch::Merge(others)).await.expect("label");
    let output = env.fleetctl(
        &[&["import", "cluster1", "--cluster-context", "cluster1", "--label", "env=staging"][..], &hub].concat(),
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("already imported; labels updated"), "{stdout}");
    assert!(
        stderr.contains("labels of cluster cluster1 updated: set env=staging; removed tier (set by an earlier import)"),
        "{stderr}"
    );
    let labels = labels_of(&env, "cluster1").await;
    assert_eq!(labels.get("env").map(String::as_str), Some("staging"), "{labels:?}");
    assert!(!labels.contains_key("tier"), "{labels:?}");
    assert_eq!(labels.get("team").map(String::as_str), Some("a"), "someone else's label stays: {labels:?}");

    // -l selects the clusters to upgrade.
    let old = running_version(&clusters.get("cluster1").await.expect("cluster1")).expect("version").to_string();
    let stdout = ok(env.fleetctl(&[&["upgrade", "-l", "env=dev", "--to", "0.2.0", "-o", "json"][..], &hub].concat()));
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let results = report["clusters"].as_array().expect("clusters");
    assert_eq!(results.len(), 1, "{report}");
    assert_eq!((&results[0]["cluster"], &results[0]["result"]), (&json!("cluster2"), &json!("running 0.2.0")));
    let cluster1 = clusters.get("cluster1").await.expect("cluster1");
    assert_eq!(running_version(&cluster1), Some(old.as_str()), "not selected, not upgraded");

    let stdout =
        ok(env.fleetctl(&[&["upgrade", "--all", "--to", "0.2.0", "--parallel", "2", "-o", "json"][..], &hub].concat()));
    let report: Value = serde_json::from_str(&stdout).expect("one JSON document");
    let results = report["clusters"].as_array().expect("clusters");
    assert_eq!(results.len(), 2);
    // cluster2 runs it already: nothing to do there.
    let said: Vec<&Value> = results.iter().map(|r| &r["result"]).collect();
    assert_eq!(said, [&json!("running 0.2.0"), &json!("already running 0.2.0")], "{report}");

    for name in ["cluster1", "cluster2"] {
        let stdout =
            ok(env.fleetctl(&[&["detach", name, "--yes", "--cluster-context", name, "-o", "json"][..], &hub].concat()));
        let report: Value = serde_json::from_str(&stdout).expect("json");
        assert_eq!(report["clusters"][0]["result"], "detached");
    }
    let names = ok(env.fleetctl(&[&["get", "clusters", "-o", "name"][..], &hub].concat()));
    assert!(names.trim().is_empty(), "{names}");
}

#[tokio::test]
async fn an_import_killed_after_any_step_finishes_when_run_again() {
    let env = DevUp::start(1);
    // Without a terminal, -v says each step as it finishes.
    let args = ["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1", "-v"];
    let mut killed_after = Vec::new();
    loop {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fleetctl"))
            .args(args)
            .env("KUBECONFIG", env.kubeconfig())
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let stderr = child.stderr.take().expect("stderr");
        let mut finished = 0;
        let mut killed = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with('✓') {
                finished += 1;
                if finished > killed_after.len() {
                    let _ = child.kill();
                    killed_after.push(line);
                    killed = true;
                    break;
                }
            }
        }
        let status = child.wait().expect("wait");
        if !killed {
            assert!(status.success(), "the last run finishes");
            break;
        }
    }
    assert!(killed_after.len() >= 5, "killed after each step: {killed_after:?}");
    let hub = env.client("hub").await;
    let target = env.client("cluster1").await;
    let clusters =
        kube::Api::<fleetctl_api::ManagedCluster>::all(hub.clone()).list(&Default::default()).await.expect("list");
    assert_eq!(clusters.items.len(), 1);
    assert!(clusters.items[0].is_available());
    let deployments =
        kube::Api::<k8s_openapi::api::apps::v1::Deployment>::namespaced(target, "open-cluster-management-agent")
            .list(&Default::default())
            .await
            .expect("deployments");
    let mut names: Vec<String> = deployments.items.iter().filter_map(|d| d.metadata.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["klusterlet", "klusterlet-registration-agent", "klusterlet-work-agent"], "no duplicates");
}

/// Whether process `pid` catches signal number `signal` (its `SigCgt` mask says so).
pub fn catches(pid: u32, signal: i32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let mask = status.lines().find_map(|l| l.strip_prefix("SigCgt:")).map(str::trim).unwrap_or("0");
    u64::from_str_radix(mask, 16).is_ok_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// Starts `fleetctl` with `args`, waits until it catches `signal` and, unless `ready` is
/// `None`, until a line of its stderr contains `ready` (with `-o json` nothing is printed
/// there), sends it `signal`, and returns its output.
async fn signalled(env: &DevUp, args: &[&str], ready: Option<&str>, signal: nix::sys::signal::Signal) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(args)
        .env("KUBECONFIG", env.kubeconfig())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = Vec::new();
    let pid = child.id();
    until(&format!("fleetctl catches {signal}"), || catches(pid, signal as i32)).await;
    if let Some(ready) = ready {
        for line in lines.by_ref().map_while(Result::ok) {
            let found = line.contains(ready);
            seen.push(line);
            if found {
                break;
            }
        }
        assert!(seen.last().is_some_and(|l| l.contains(ready)), "{ready:?} in {seen:?}");
    }
    let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid"));
    nix::sys::signal::kill(pid, signal).expect("signal");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let mut output = child.wait_with_output().expect("wait");
    output.stderr = [seen, rest].concat().join("\n").into_bytes();
    output
}

#[tokio::test]
async fn a_dead_cluster_fails_with_a_report_stops_on_signals_and_detaches_with_force() {
    let env = DevUp::start(1);
    ok(env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let state: Value =
        serde_json::from_slice(&std::fs::read(env.dir.path().join("state.json")).expect("state")).expect("json");
    let pid = state["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .find(|c| c["name"] == "cluster1")
        .expect("cluster1")["pid"]
        .as_u64()
        .expect("pid");
    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();

    // A failed upgrade still reports, on stdout, what it did and why it failed.
    let output = env.fleetctl(&[
        "upgrade",
        "cluster1",
        "--to",
        "0.2.0",
        "--hub-context",
        "hub",
        "--timeout",
        "2s",
        "-o",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(3), "{}", text(&output).1);
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report on failure");
    assert_eq!(report["error"]["exitCode"], 3, "{report}");
    assert_eq!(report["clusters"][0]["result"], "timed out");
    assert!(
        !report["clusters"][0]["steps"].as_array().expect("steps").is_empty(),
        "the version was recorded: {report}"
    );

    // SIGINT stops a waiting detach at once, says what is done and how to go on.
    let detach = ["detach", "cluster1", "--yes", "--hub-context", "hub", "--timeout", "120s", "-v"];
    // (Exit 130, not 3: stopped by the signal, not at --timeout.)
    let deleted = Some("✓ cluster1 hub: ManagedCluster deleted");
    let output = signalled(&env, &detach, deleted, nix::sys::signal::Signal::SIGINT).await;
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopped by SIGINT after cluster1: hub: ManagedCluster deleted: run the same command again"),
        "{stderr}"
    );
    // SIGTERM, with a report for machines.
    let json = [&detach[..], &["-o", "json"]].concat();
    let output = signalled(&env, &json, None, nix::sys::signal::Signal::SIGTERM).await;
    assert_eq!(output.status.code(), Some(143), "{}", text(&output).1);
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report when stopped");
    assert_eq!(report["error"]["exitCode"], 143, "{report}");

    let output = env.fleetctl(&["detach", "cluster1", "--yes", "--hub-context", "hub", "--timeout", "3s"]);
    assert_eq!(output.status.code(), Some(3), "timed out without --force: {}", text(&output).1);
    // --force gives the agents half of --timeout; the rest covers the hub's cleanup, whose
    // namespace goes only after kube-controller-manager's 5 s namespace deletion grace.
    let output = env.fleetctl(&["detach", "cluster1", "--yes", "--force", "--hub-context", "hub", "--timeout", "16s"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("remove them with `fleetctl detach cluster1 --cluster-kubeconfig FILE`"), "{stdout}");
    let names = ok(env.fleetctl(&["get", "clusters", "-o", "name", "--hub-context", "hub"]));
    assert!(names.trim().is_empty());
}

#[tokio::test]
async fn bad_input_is_refused_with_its_exit_code_and_changes_nothing() {
    let env = DevUp::start(2);
    ok(env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let garbage = env.dir.path().join("garbage.kubeconfig");
    std::fs::write(&garbage, "this: [is not a kubeconfig").expect("write");
    let unreachable = env.dir.path().join("unreachable.kubeconfig");
    std::fs::write(
        &unreachable,
        "apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: x, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: x, user: x}}]\ncurrent-context: x\n",
    )
    .expect("write");
    // A namespace someone else made, with data in it, that an import must not take over.
    let hub = env.client("hub").await;
    let namespace: k8s_openapi::api::core::v1::Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": "team-data"}})).expect("namespace");
    kube::Api::all(hub.clone()).create(&Default::default(), &namespace).await.expect("create team-data");
    // A context whose user the kubeconfig does not define.
    let mut config = kube::config::Kubeconfig::read_from(env.kubeconfig()).expect("kubeconfig");
    config.contexts.push(kube::config::NamedContext {
        name: "no-user".into(),
        context: Some(kube::config::Context {
            cluster: "hub".into(),
            user: Some("nobody".into()),
            ..Default::default()
        }),
        ..Default::default()
    });
    std::fs::write(env.kubeconfig(), serde_yaml::to_string(&config).expect("yaml")).expect("write kubeconfig");
    let long_value = format!("env={}", "v".repeat(64));
    let g = garbage.to_string_lossy().to_string();
    let u = unreachable.to_string_lossy().to_string();
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (
            vec!["import", "Bad_Name", "--hub-context", "hub", "--cluster-context", "cluster2"],
            2,
            "invalid cluster name",
        ),
        (vec!["import", "kube-system", "--hub-context", "hub", "--cluster-context", "cluster2"], 2, "system namespace"),
        (
            vec!["import", "team-data", "--hub-context", "hub", "--cluster-context", "cluster2"],
            4,
            "pass --adopt-namespace",
        ),
        (vec!["import", "c9", "--label", "bad key=x", "--hub-context", "hub"], 2, "invalid label key"),
        (vec!["import", "c9", "--label", &long_value, "--hub-context", "hub"], 2, "at most 63 characters"),
        (vec!["import", "c9", "--label", "fleetctl.io/x=y", "--hub-context", "hub"], 2, "is reserved"),
        (
            vec!["import", "c9", "--label", "cluster.open-cluster-management.io/other=x", "--hub-context", "hub"],
            2,
            "is reserved",
        ),
        (
            vec!["import", "c9", "--label", "env=-bad", "--hub-context", "hub"],
            2,
            "invalid value \"-bad\" for label env",
        ),
        (vec!["import", "c9", "--label", "Example.com/env=x", "--hub-context", "hub"], 2, "the prefix \"Example.com\""),
        (vec!["import", "c9", "--label", "open-cluster-management.io/x=y", "--hub-context", "hub"], 2, "is reserved"),
        (vec!["import", "c9", "--label", "team.fleetctl.io/x=y", "--hub-context", "hub"], 2, "is reserved"),
        (
            vec!["import", "c9", "-l", "env=prod", "--hub-context", "hub"],
            2,
            "label the clusters you import with --label",
        ),
        (vec!["get", "clusters", "-l", "!!!", "--hub-context", "hub"], 2, "invalid label selector"),
        (vec!["upgrade", "-l", "env in prod", "--to", "0.2.0", "--hub-context", "hub"], 2, "parentheses"),
        (vec!["get", "clusters", "-o", "jsonpath={.items", "--hub-context", "hub"], 2, "unclosed"),
        (vec!["import", "c9", "--hub-context", "hub", "--timeout", "0s"], 2, "greater than zero"),
        (vec!["detach", "cluster1", "--yes", "--hub-context", "hub", "--timeout", "0s"], 2, "greater than zero"),
        (vec!["detach", "cluster1", "--yes", "--parallel", "0", "--hub-context", "hub"], 2, "--parallel"),
        (vec!["hub", "install", "--image-registry", "https://x", "--hub-context", "hub"], 2, "--image-registry"),
        (vec!["import", "c9", "--hub-context", "no-user"], 4, "names user \"nobody\""),
        (vec!["get", "clusters", "--hub-kubeconfig", &g], 4, "not a valid kubeconfig"),
        (vec!["hub", "uninstall", "--hub-kubeconfig", &g], 4, "not a valid kubeconfig"),
        (vec!["upgrade", "--all", "--to", "0.2.0", "--parallel", "0", "--hub-context", "hub"], 2, "invalid wave size"),
        (vec!["import", "c9", "--parallel", "0", "--hub-context", "hub"], 2, "--parallel"),
        (vec!["import", "c9", "c10", "--hub-context", "hub"], 4, "reached through the context of its name"),
        (vec!["import", "c9=cluster1", "c9=cluster2", "--hub-context", "hub"], 2, "named twice"),
        (vec!["import", "--all-contexts", "--hub-context", "hub"], 2, "--cluster-kubeconfig"),
        (vec!["upgrade", "--all", "--to", "0.2.0", "--timeout", "0s", "--hub-context", "hub"], 2, "greater than zero"),
        (vec!["get", "clusters", "--hub-context", "no-user"], 4, "names user \"nobody\""),
        (vec!["detach", "cluster1", "--yes", "--hub-kubeconfig", &g], 4, "not a valid kubeconfig"),
        (vec!["upgrade", "cluster1", "--to", "0.2.0", "--hub-kubeconfig", &g], 4, "not a valid kubeconfig"),
        (vec!["describe", "cluster", "cluster1", "--hub-kubeconfig", &g], 4, "not a valid kubeconfig"),
        (vec!["hub", "install", "--hub-kubeconfig", &g], 4, "not a valid kubeconfig"),
        (vec!["hub", "install", "--image-pull-secret", "no-such-creds", "--hub-context", "hub"], 4, "does not exist"),
        (vec!["hub", "install", "--image-pull-secret", "Bad_Name", "--hub-context", "hub"], 2, "--image-pull-secret"),
        (vec!["import", "c9", "--hub-kubeconfig", "/nonexistent/kubeconfig"], 4, "no such file"),
        (vec!["import", "c9", "--hub-kubeconfig", &g], 4, "kubeconfig"),
        (vec!["import", "c9", "--hub-context", "nope"], 4, "context \"nope\" not found"),
        (vec!["import", "c9", "--hub-kubeconfig", &u], 4, "does not answer"),
        (
            vec!["import", "c9", "--hub-context", "hub", "--cluster-kubeconfig", &u, "--cluster-context", "x"],
            4,
            "does not answer",
        ),
        (vec!["import", "c9", "--hub-context", "cluster2", "--cluster-context", "cluster1"], 4, "fleetctl hub install"),
        (vec!["import", "c9", "--hub-context", "hub", "--cluster-context", "hub"], 4, "--allow-hub-as-target"),
        (
            vec!["import", "other", "--hub-context", "hub", "--cluster-context", "cluster1"],
            4,
            "already joined as cluster \"cluster1\"",
        ),
        (
            vec!["import", "c9", "--hub-context", "hub", "--cluster-context", "cluster2", "--addons", "nope"],
            2,
            "unknown addon",
        ),
        (vec!["upgrade", "ghost", "--to", "0.2.0", "--hub-context", "hub"], 4, "cluster ghost not found"),
        (vec!["upgrade", "--all", "--to", "0.2.0", "--hub-context", "cluster2"], 4, "fleetctl hub install"),
        (vec!["detach", "ghost", "--yes", "--hub-context", "hub"], 4, "cluster ghost not found"),
        (vec!["get", "clusters", "--hub-kubeconfig", &u], 4, "does not answer"),
        (vec!["get", "clusters", "--hub-context", "cluster2"], 4, "fleetctl hub install"),
        (vec!["upgrade", "cluster1", "--to", "latest", "--hub-context", "hub"], 2, "invalid version"),
        (vec!["import", "c9", "--hub-context", "hub", "--timeout", "5x"], 2, "invalid duration"),
        (vec!["detach", "cluster1", "--hub-context", "hub"], 2, "pass --yes"),
        (vec!["import", "c9", "--label", "novalue", "--hub-context", "hub"], 2, "key=value"),
        (vec!["--hub-context", "hub", "completion", "bash"], 2, "unexpected argument '--hub-context'"),
    ];
    // The hub keeps renewing leases; what must not change is what the commands write.
    let hub_before = hub_objects(&env).await;
    let target_before = target_objects(&env, "cluster2").await;
    let mut wrong = Vec::new();
    for (args, code, message) in &cases {
        let output = Command::new(env!("CARGO_BIN_EXE_fleetctl"))
            .args(args)
            .env("KUBECONFIG", env.kubeconfig())
            .stdin(Stdio::null())
            .output()
            .expect("run");
        let (_, stderr) = text(&output);
        if output.status.code() != Some(*code) || !stderr.contains(message) {
            wrong.push(format!(
                "{args:?}: exit {:?}, stderr {stderr:?}; expected {code} and {message:?}",
                output.status.code()
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Asked for -o json|yaml, a refused command prints its report on stdout as well, whether
    // clap or the command's preflight refused it.
    let reported: [(&[&str], i32); 5] = [
        (&["import", "c9", "--label", "fleetctl.io/x=y", "-o", "json", "--hub-context", "hub"], 2),
        (&["detach", "cluster1", "--yes", "--timeout", "0s", "-o", "json", "--hub-context", "hub"], 2),
        (&["upgrade", "--all", "--to", "0.2.0", "--parallel", "0", "-o", "yaml", "--hub-context", "hub"], 2),
        (&["import", "Bad_Name", "-o", "json", "--hub-context", "hub", "--cluster-context", "cluster2"], 2),
        (&["detach", "ghost", "--yes", "-o", "json", "--hub-context", "hub"], 4),
    ];
    for (args, code) in reported {
        let output = env.fleetctl(args);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {}", text(&output).1);
        let report: serde_yaml::Value = serde_yaml::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: a report on stdout ({e}): {:?}", text(&output)));
        assert_eq!(report["error"]["exitCode"].as_i64(), Some(i64::from(code)), "{args:?}: {report:?}");
        assert!(report["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{args:?}: {report:?}");
    }
    assert_eq!(hub_objects(&env).await, hub_before, "nothing written on the hub");
    assert_eq!(target_objects(&env, "cluster2").await, target_before, "nothing written on the target");

    // A proxy from the environment is honoured as kubectl honours it: used unless NO_PROXY
    // names the host.
    let proxied = |no_proxy: &str| {
        Command::new(env!("CARGO_BIN_EXE_fleetctl"))
            .args(["get", "clusters", "--hub-context", "hub"])
            .env("KUBECONFIG", env.kubeconfig())
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("NO_PROXY", no_proxy)
            .output()
            .expect("run")
    };
    let bypassed = proxied("127.0.0.1,localhost");
    assert!(bypassed.status.success(), "NO_PROXY bypasses the proxy: {}", text(&bypassed).1);
    let through = proxied("example.invalid");
    let (_, through_stderr) = text(&through);
    assert_eq!(through.status.code(), Some(4), "{through_stderr}");
    assert!(through_stderr.contains("tunnel error"), "the dead proxy is used: {through_stderr}");
    assert!(!through_stderr.contains("kube_client"), "the failure is said once, by fleetctl: {through_stderr}");

    // Asked explicitly, the import uses the namespace, and the detach keeps it.
    let adopt = ["import", "team-data", "--adopt-namespace", "--hub-context", "hub", "--cluster-context", "cluster2"];
    ok(env.fleetctl(&adopt));
    let output =
        env.fleetctl(&["detach", "team-data", "--yes", "--hub-context", "hub", "--cluster-context", "cluster2"]);
    let (_, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("namespace team-data is kept"), "{stderr}");
    let kept =
        kube::Api::<k8s_openapi::api::core::v1::Namespace>::all(hub.clone()).get("team-data").await.expect("kept");
    assert!(kept.metadata.deletion_timestamp.is_none());
    // ACM's import controller keeps a detached cluster's namespace only on the Namespace's own word.
    let retained =
        kept.metadata.annotations.as_ref().and_then(|a| a.get("open-cluster-management.io/retain-namespace"));
    assert_eq!(retained.map(String::as_str), Some("true"), "{:?}", kept.metadata);
    let configs = kube::Api::<fleetctl_api::KlusterletAddonConfig>::namespaced(hub, "team-data");
    assert!(configs.get_opt("team-data").await.expect("get").is_none(), "what import made there is gone");
}

#[test]
fn the_demo_plays_the_three_acts_and_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .arg("demo")
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .output()
        .expect("run the demo");
    let stdout = ok(output);
    let acts = ["Act I", "Act II", "Act III"].map(|act| stdout.find(act).unwrap_or_else(|| panic!("{act}: {stdout}")));
    assert!(acts.windows(2).all(|w| w[0] < w[1]), "the acts in order: {stdout}");
    for line in
        ["cluster1 joined", "cluster2 joined", "cluster1 detached", "cluster2 detached", "dev environment stopped"]
    {
        assert!(stdout.contains(line), "{line:?} in {stdout}");
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("read tmp").collect();
    assert!(left.is_empty(), "the demo's directory is gone: {left:?}");
}

/// The paths taken less often, one after another on one environment: `hub install
/// --dry-run` prints and changes nothing; `import --print-command` does the hub side only,
/// and its command pasted on the target imports it; `upgrade --no-wait` records the version
/// and returns, and the cluster gets there on its own; `hub uninstall` removes the hub
/// controller but keeps the CRDs (and what they hold) unless `--purge-crds`.
#[tokio::test]
async fn dry_run_install_pasted_import_no_wait_upgrade_and_uninstall_with_and_without_crds() {
    use fleetctl::lifecycle::upgrade::running_version;
    use fleetctl::lifecycle::wait_for;
    use fleetctl_api::ManagedCluster;
    use fleetctl_api::names::{HUB_CONTROLLER, HUB_NAMESPACE};
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::Api;

    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    let deployments: Api<Deployment> = Api::namespaced(hub.clone(), HUB_NAMESPACE);
    let image = |d: &Deployment| {
        d.spec.as_ref().and_then(|s| s.template.spec.as_ref()).and_then(|p| p.containers[0].image.clone())
    };
    let installed = image(&deployments.get(HUB_CONTROLLER).await.expect("controller"));

    let other = "example.com/other/fleetctl:9.9.9";
    let printed = ok(env.fleetctl(&["hub", "install", "--dry-run", "--image", other, "--hub-context", "hub"]));
    assert!(printed.contains(&format!("image: {other}")), "the dry run prints the objects: {printed}");
    assert!(printed.contains("kind: CustomResourceDefinition"), "{printed}");
    assert_eq!(image(&deployments.get(HUB_CONTROLLER).await.expect("controller")), installed, "nothing applied");

    let target_before = target_objects(&env, "cluster1").await;
    let command = ok(env.fleetctl(&["import", "cluster1", "--print-command", "--hub-context", "hub"]));
    assert_eq!(command.lines().count(), 1, "one line to paste: {command}");
    assert_eq!(target_objects(&env, "cluster1").await, target_before, "the target is not touched");
    let clusters: Api<ManagedCluster> = Api::all(hub.clone());
    assert!(clusters.get_opt("cluster1").await.expect("read").is_some(), "the hub side is done");
    if crate::support::kubectl::kubectl_available() {
        let pasted = Command::new("sh")
            .args(["-c", command.trim()])
            .env("KUBECONFIG", env.dir.path().join("cluster1.kubeconfig"))
            .output()
            .expect("sh");
        assert!(pasted.status.success(), "the pasted command: {}", text(&pasted).1);
    } else {
        ok(env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    }
    wait_for(clusters.clone(), "cluster1", "cluster1 imported", super::WAIT, |c: Option<&ManagedCluster>| {
        c.is_some_and(fleetctl::lifecycle::import::imported)
    })
    .await
    .expect("imported");

    let report =
        ok(env.fleetctl(&["upgrade", "cluster1", "--to", "0.2.0", "--no-wait", "--hub-context", "hub", "-o", "json"]));
    let report: Value = serde_json::from_str(&report).expect("JSON");
    assert!(report.get("error").is_none(), "{report}");
    let upgraded = |c: Option<&ManagedCluster>| c.is_some_and(|c| running_version(c) == Some("0.2.0"));
    wait_for(clusters.clone(), "cluster1", "cluster1 at 0.2.0", super::WAIT, upgraded).await.expect("upgraded");

    ok(env.fleetctl(&["detach", "cluster1", "--yes", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let crds: Api<CustomResourceDefinition> = Api::all(hub.clone());
    let managed_clusters = <ManagedCluster as kube::CustomResourceExt>::crd_name();
    ok(env.fleetctl(&["hub", "uninstall", "--hub-context", "hub"]));
    wait_for(deployments, HUB_CONTROLLER, "the hub controller to go", super::WAIT, |d: Option<&Deployment>| {
        d.is_none()
    })
    .await
    .expect("no controller");
    assert!(crds.get_opt(managed_clusters).await.expect("read").is_some(), "the CRDs stay without --purge-crds");
    ok(env.fleetctl(&["hub", "uninstall", "--purge-crds", "--hub-context", "hub"]));
    wait_for(crds, managed_clusters, "the CRDs to go", super::WAIT, |c: Option<&CustomResourceDefinition>| c.is_none())
        .await
        .expect("no CRD");
}

/// Runs `fleetctl args` in a pseudo-terminal (util-linux `script`), answers `answer` once
/// the terminal shows `question`, and returns the exit code and what the terminal showed;
/// `None` (with a notice) where `script` is missing.
/// Whether util-linux `script` can give a command a terminal.
pub fn terminal_available() -> bool {
    Command::new("script").arg("--version").output().is_ok()
}

fn in_terminal(env: &DevUp, args: &[&str], question: &str, answer: &str) -> Option<(Option<i32>, String)> {
    use std::io::{Read, Write};
    if !terminal_available() {
        crate::support::skip("the prompt test needs util-linux `script` for a terminal");
        return None;
    }
    let command = [env!("CARGO_BIN_EXE_fleetctl")].iter().chain(args).copied().collect::<Vec<_>>().join(" ");
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("KUBECONFIG", env.kubeconfig())
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("script");
    let mut terminal = child.stdout.take().expect("stdout");
    let mut shown = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&shown).contains(question) {
        let read = terminal.read(&mut chunk).expect("read the terminal");
        assert!(read > 0, "the terminal closed before asking {question:?}: {}", String::from_utf8_lossy(&shown));
        shown.extend_from_slice(&chunk[..read]);
    }
    let mut keys = child.stdin.take().expect("stdin");
    keys.write_all(answer.as_bytes()).expect("answer");
    terminal.read_to_end(&mut shown).expect("the rest");
    let status = child.wait().expect("wait");
    drop(keys);
    Some((status.code(), String::from_utf8_lossy(&shown).into_owned()))
}

/// A person at a terminal is asked before a detach; "no" changes nothing (exit 4), "yes"
/// detaches.
#[tokio::test]
async fn detach_at_a_terminal_asks_and_a_no_changes_nothing() {
    use fleetctl_api::ManagedCluster;
    let env = DevUp::start(1);
    ok(env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let detach = ["detach", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"];
    let question = "Detach cluster cluster1 from the hub, removing its klusterlet?";
    let Some((code, shown)) = in_terminal(&env, &detach, question, "n") else { return };
    assert_eq!(code, Some(4), "declined: {shown}");
    assert!(shown.contains("not confirmed: nothing changed"), "{shown}");
    let clusters: kube::Api<ManagedCluster> = kube::Api::all(env.client("hub").await);
    let kept = clusters.get("cluster1").await.expect("still there");
    assert!(kept.metadata.deletion_timestamp.is_none(), "not being deleted");

    let Some((code, shown)) = in_terminal(&env, &detach, question, "y") else { return };
    assert_eq!(code, Some(0), "confirmed: {shown}");
    assert!(clusters.get_opt("cluster1").await.expect("read").is_none(), "detached: {shown}");
}

/// As upstream's import controller auto-detects the hub's CA from `kube-root-ca.crt`, `hub
/// install` leaves the hub's own CA to the controller (which then follows it through
/// rotations) and records a CA only when the hub does not publish it: one `--hub-ca-file`
/// names for a `--hub-url` served by another CA.
#[tokio::test]
async fn hub_install_records_only_a_ca_the_hub_does_not_publish_itself() {
    use fleetctl_api::names::{HUB_CONTROLLER, HUB_NAMESPACE};
    use k8s_openapi::api::apps::v1::Deployment;
    use kube::Api;

    let env = DevUp::start(0);
    let deployments: Api<Deployment> = Api::namespaced(env.client("hub").await, HUB_NAMESPACE);
    let recorded = async || {
        let controller = deployments.get(HUB_CONTROLLER).await.expect("controller");
        let container = controller.spec.and_then(|s| s.template.spec).expect("pod").containers.remove(0);
        let env = container.env.unwrap_or_default();
        env.into_iter().find(|e| e.name == "FLEETCTL_HUB_CA").and_then(|e| e.value).unwrap_or_default()
    };
    ok(env.fleetctl(&["hub", "install", "--hub-context", "hub"]));
    assert_eq!(recorded().await, "", "the hub's own CA is the controller's to follow");

    let other = rcgen::CertificateParams::default().self_signed(&rcgen::KeyPair::generate().expect("key"));
    let other = other.expect("ca").pem();
    let file = env.dir.path().join("lb-ca.pem");
    std::fs::write(&file, &other).expect("ca file");
    let file = file.to_string_lossy().into_owned();
    let url = "https://hub.example:6443";
    ok(env.fleetctl(&["hub", "install", "--hub-url", url, "--hub-ca-file", &file, "--hub-context", "hub"]));
    assert_eq!(recorded().await, other, "a CA the hub does not publish is recorded");
}
