//! Fleets as code on `dev up`: `plan` shows what `apply` would do and changes nothing;
//! `apply` imports, relabels and (with `--prune`, confirmed) detaches only the clusters
//! the fleet imported that the file no longer lists — never one imported by hand; a rerun plans nothing; a bad file is
//! refused naming its line and field before anything changes; an apply killed half-way
//! is finished by running it again.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::ResourceExt;
use kube::api::{Api, PostParams};
use serde_json::Value;

use super::DevUp;
use fleetctl::lifecycle::upgrade::running_version;
use fleetctl_api::ManagedCluster;

/// A fleet file of `clusters` (name, labels, more of its fields) in a folder of its own,
/// on the hub of `dev up`.
fn write_fleet(dir: &Path, clusters: &[(&str, &str, &str)]) -> PathBuf {
    let mut text = String::from(
        "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\nmetadata: {name: dev-fleet}\nhub:\n  context: hub\ndefaults:\n  \
         labels:\n    env: dev\nclusters:\n",
    );
    for (name, labels, more) in clusters {
        text.push_str(&format!("  - name: {name}\n    labels: {{{labels}}}\n"));
        for line in more.lines() {
            text.push_str(&format!("    {line}\n"));
        }
    }
    let path = dir.join("fleet.yaml");
    std::fs::write(&path, text).expect("fleet file");
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("one JSON document on stdout ({e}): {}", text(&output.stderr)))
}

/// The (cluster, action) pairs of `plan -o json`.
fn planned(env: &DevUp, file: &Path, extra: &[&str]) -> Vec<(String, String)> {
    let file = file.to_string_lossy();
    let output = env.fleetctl(&[&["plan", "-f", &file, "-o", "json"][..], extra].concat());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let plan = json_of(&output);
    plan["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| (c["cluster"].as_str().expect("cluster").into(), c["action"].as_str().expect("action").into()))
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Starts `fleetctl apply ARGS` (stdout piped) and reads its progress on stderr until a line
/// satisfies `until`: the running child, and the lines read.
fn apply_until(env: &DevUp, args: &[&str], until: impl Fn(&str) -> bool) -> (std::process::Child, Vec<String>) {
    // Without a terminal, -v says the steps and waves as they go.
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(["apply", "-v"])
        .args(args)
        .env("KUBECONFIG", env.kubeconfig())
        .env_remove("FLEETCTL_HUB_KUBECONFIG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("apply starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut seen = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("stderr line");
        let reached = until(&line);
        seen.push(line);
        if reached {
            break;
        }
    }
    (child, seen)
}

async fn cluster_names(env: &DevUp) -> Vec<String> {
    let list = Api::<ManagedCluster>::all(env.client("hub").await).list(&Default::default()).await.expect("list");
    list.items.iter().map(|c| c.name_any()).collect()
}

#[tokio::test]
async fn apply_makes_the_hub_match_the_file_and_a_rerun_plans_nothing_and_prune_detaches_only_when_asked() {
    let env = DevUp::start(3);
    let dir = tempfile::tempdir().expect("tempdir");
    // cluster3 is imported by the hub, with its context handed over (as `import --auto`).
    let three = [("cluster1", "tier: \"1\"", ""), ("cluster2", "", ""), ("cluster3", "", "autoImport: {}")];
    let file = write_fleet(dir.path(), &three);
    let file_arg = file.to_string_lossy().to_string();

    // The plan shows the imports and changes nothing.
    let imports = pairs(&[("cluster1", "import"), ("cluster2", "import"), ("cluster3", "import")]);
    assert_eq!(planned(&env, &file, &[]), imports);
    let table = env.fleetctl(&["plan", "-f", &file_arg]);
    let table = text(&table.stdout);
    let header: Vec<&str> = table.lines().next().expect("header").split_whitespace().collect();
    assert_eq!(header, ["CLUSTER", "ACTION", "DETAIL"], "{table}");
    assert!(table.contains("through context cluster1; labels env=dev,tier=1"), "{table}");
    assert!(table.contains("by the hub, through context cluster3"), "{table}");
    assert!(cluster_names(&env).await.is_empty(), "plan changed nothing");

    let report_path = dir.path().join("report.json");
    let report_arg = report_path.to_string_lossy().to_string();
    let output = env.fleetctl(&["apply", "-f", &file_arg, "--parallel", "3", "-o", "json", "--report", &report_arg]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report = json_of(&output);
    let results: Vec<&str> =
        report["clusters"].as_array().expect("clusters").iter().filter_map(|c| c["result"].as_str()).collect();
    assert_eq!(results, ["imported", "imported", "imported"], "{report}");
    let saved: Value = serde_json::from_slice(&std::fs::read(&report_path).expect("report file")).expect("JSON");
    assert_eq!(saved["plan"]["changes"].as_array().map(Vec::len), Some(3), "{saved}");
    assert_eq!(saved["clusters"], report["clusters"], "the file holds what -o json printed");
    let hub = Api::<ManagedCluster>::all(env.client("hub").await);
    let cluster1 = hub.get("cluster1").await.expect("cluster1");
    assert_eq!(cluster1.labels().get("tier").map(String::as_str), Some("1"));
    assert_eq!(cluster1.labels().get("env").map(String::as_str), Some("dev"));

    // Applied, the hub matches: the plan is empty, and so is a second apply.
    assert_eq!(planned(&env, &file, &["--prune"]), []);
    let again = env.fleetctl(&["apply", "-f", &file_arg]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(text(&again.stderr).contains("no changes: the hub matches the fleet file"), "{}", text(&again.stderr));

    // A label changed in the file is changed on the hub, and only that.
    let three = [("cluster1", "tier: \"2\"", ""), ("cluster2", "", ""), ("cluster3", "", "autoImport: {}")];
    let file = write_fleet(dir.path(), &three);
    assert_eq!(planned(&env, &file, &[]), pairs(&[("cluster1", "relabel")]));
    let output = env.fleetctl(&["apply", "-f", &file_arg, "-o", "json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(json_of(&output)["clusters"][0]["result"], "already imported; labels updated");
    let cluster1 = hub.get("cluster1").await.expect("cluster1");
    assert_eq!(cluster1.labels().get("tier").map(String::as_str), Some("2"));

    // A version in the file is an upgrade, through the rollout.
    let old = running_version(&hub.get("cluster2").await.expect("cluster2")).expect("a version").to_string();
    let three =
        [("cluster1", "tier: \"2\"", ""), ("cluster2", "", "version: 0.2.0"), ("cluster3", "", "autoImport: {}")];
    let file = write_fleet(dir.path(), &three);
    let table = text(&env.fleetctl(&["plan", "-f", &file_arg]).stdout);
    assert!(table.contains(&format!("{old} → 0.2.0")), "{table}");
    let output = env.fleetctl(&["apply", "-f", &file_arg, "-o", "json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report = json_of(&output);
    assert_eq!(report["clusters"][0]["result"], "running 0.2.0", "{report}");
    assert_eq!(report["rollout"]["waves"], serde_json::json!([["cluster2"]]), "{report}");
    assert_eq!(running_version(&hub.get("cluster2").await.expect("cluster2")), Some("0.2.0"));
    assert_eq!(planned(&env, &file, &[]), []);

    // cluster3 leaves the file: without --prune it stays; --prune asks first, and detaches it.
    let file = write_fleet(dir.path(), &[("cluster1", "tier: \"2\"", ""), ("cluster2", "", "version: 0.2.0")]);
    let kept = env.fleetctl(&["apply", "-f", &file_arg]);
    assert!(kept.status.success(), "{}", text(&kept.stderr));
    assert!(text(&kept.stderr).contains("left alone without --prune: cluster3"), "{}", text(&kept.stderr));
    assert!(cluster_names(&env).await.contains(&"cluster3".to_string()));
    assert_eq!(planned(&env, &file, &["--prune"]), pairs(&[("cluster3", "detach")]));
    let unconfirmed = env.fleetctl(&["apply", "-f", &file_arg, "--prune"]);
    assert_eq!(unconfirmed.status.code(), Some(2), "no terminal to ask: {}", text(&unconfirmed.stderr));
    assert!(text(&unconfirmed.stderr).contains("pass --yes"), "{}", text(&unconfirmed.stderr));
    assert!(cluster_names(&env).await.contains(&"cluster3".to_string()), "nothing changed");
    let pruned = env.fleetctl(&["apply", "-f", &file_arg, "--prune", "--yes", "-o", "json"]);
    assert!(pruned.status.success(), "{}", text(&pruned.stderr));
    assert_eq!(json_of(&pruned)["clusters"][0]["result"], "detached");
    assert_eq!(cluster_names(&env).await, ["cluster1", "cluster2"]);
    assert_eq!(planned(&env, &file, &["--prune"]), []);

    // A cluster imported by hand is not the fleet's: the plan names it as left alone, and
    // --prune does not touch it.
    let by_hand = env.fleetctl(&["import", "cluster3", "--hub-context", "hub"]);
    assert!(by_hand.status.success(), "{}", text(&by_hand.stderr));
    let output = env.fleetctl(&["plan", "-f", &file_arg, "--prune", "-o", "json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let plan = json_of(&output);
    assert_eq!(plan["changes"], serde_json::json!([]), "{plan}");
    assert_eq!(plan["unmanaged"], serde_json::json!(["cluster3"]), "{plan}");
    let table = env.fleetctl(&["plan", "-f", &file_arg, "--prune"]);
    assert!(text(&table.stderr).contains("not managed by this fleet file"), "{}", text(&table.stderr));
    let pruned = env.fleetctl(&["apply", "-f", &file_arg, "--prune", "--yes"]);
    assert!(pruned.status.success(), "{}", text(&pruned.stderr));
    assert!(cluster_names(&env).await.contains(&"cluster3".to_string()), "the hand-made import stays");
}

#[tokio::test]
async fn a_bad_fleet_file_is_refused_naming_its_line_and_field_and_a_killed_apply_is_finished_by_a_rerun() {
    let env = DevUp::start(2);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("fleet.yaml");
    let file_arg = file.to_string_lossy().to_string();
    let head = "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\nhub: {context: hub}\nclusters:\n";
    for (body, want) in [
        ("- name: cluster1\n  lables: {env: dev}\n", "fleet.yaml:6:3: clusters[0]: unknown field `lables`"),
        ("- name: cluster1\n  labels:\n    env: two words\n", "fleet.yaml:7:5: clusters[0].labels: invalid value"),
    ] {
        std::fs::write(&file, format!("{head}{body}")).expect("fleet file");
        for command in ["plan", "apply"] {
            let output = env.fleetctl(&[command, "-f", &file_arg]);
            assert_eq!(output.status.code(), Some(2), "{command}: a usage error: {}", text(&output.stderr));
            let stderr = text(&output.stderr);
            assert!(stderr.contains(want), "{command}: {stderr}");
        }
        // The pipeline's report says so too.
        let report_path = dir.path().join("report.json");
        let output = env.fleetctl(&["apply", "-f", &file_arg, "--report", &report_path.to_string_lossy()]);
        assert_eq!(output.status.code(), Some(2));
        let saved: Value = serde_json::from_slice(&std::fs::read(&report_path).expect("report")).expect("JSON");
        assert_eq!(saved["error"]["exitCode"], 2, "{saved}");
        assert!(saved["error"]["message"].as_str().is_some_and(|m| m.contains(want)), "{saved}");
        assert!(saved.get("plan").is_none(), "nothing was planned: {saved}");
    }
    assert!(cluster_names(&env).await.is_empty(), "a bad file changes nothing");

    // Killed once the first cluster's hub objects are written, the apply leaves a half-done
    // fleet; the same apply again finishes it.
    // cluster2 is imported by the hub, from a copy of a Secret on the hub that holds its
    // kubeconfig: apply never reaches it.
    let hub = env.client("hub").await;
    let kubeconfig = fleetctl_kube::kubeconfig::to_yaml(
        &fleetctl_kube::standalone(&fleetctl_kube::Selection::new(Some(env.kubeconfig()), Some("cluster2".into())))
            .expect("cluster2's kubeconfig"),
    );
    let namespace = Namespace {
        metadata: ObjectMeta { name: Some("creds".into()), ..ObjectMeta::default() },
        ..Namespace::default()
    };
    Api::<Namespace>::all(hub.clone()).create(&PostParams::default(), &namespace).await.expect("namespace");
    let credentials = Secret {
        metadata: ObjectMeta { name: Some("cluster2-admin".into()), ..ObjectMeta::default() },
        type_: Some("auto-import/kubeconfig".into()),
        data: Some(fleetctl_kube::kubeconfig::secret_data([("kubeconfig".to_string(), kubeconfig)].into())),
        ..Secret::default()
    };
    Api::<Secret>::namespaced(hub.clone(), "creds").create(&PostParams::default(), &credentials).await.expect("secret");
    let by_hub = "autoImport: {secretRef: {namespace: creds, name: cluster2-admin}}";
    let file = write_fleet(dir.path(), &[("cluster1", "", ""), ("cluster2", "", by_hub)]);
    let table = text(&env.fleetctl(&["plan", "-f", &file.to_string_lossy()]).stdout);
    assert!(table.contains("by the hub, with secret creds/cluster2-admin"), "{table}");
    let file_arg = file.to_string_lossy();
    let (mut child, seen) =
        apply_until(&env, &["-f", &file_arg, "--parallel", "1"], |line| line.starts_with("✓ cluster1 hub:"));
    assert!(seen.last().is_some_and(|l| l.starts_with("✓ cluster1 hub:")), "{seen:?}");
    child.kill().expect("kill apply");
    child.wait().expect("apply ends");
    assert!(cluster_names(&env).await.contains(&"cluster1".to_string()), "the kill came after the hub objects");
    assert!(!planned(&env, &file, &[]).is_empty(), "the killed apply left work to do");

    let output = env.fleetctl(&["apply", "-f", &file.to_string_lossy(), "-o", "json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report = json_of(&output);
    let clusters: Vec<&str> =
        report["clusters"].as_array().expect("clusters").iter().filter_map(|c| c["cluster"].as_str()).collect();
    assert_eq!(clusters, ["cluster1", "cluster2"], "{report}");
    assert_eq!(planned(&env, &file, &[]), [], "finished: nothing left to do");
    let clusters = Api::<ManagedCluster>::all(hub.clone());
    for name in ["cluster1", "cluster2"] {
        assert!(clusters.get(name).await.expect(name).is_available(), "{name}");
    }
    let steps = report["clusters"][1]["steps"].as_array().expect("steps").iter().filter_map(|s| s["step"].as_str());
    let steps: Vec<&str> = steps.collect();
    assert!(steps.contains(&"hub: auto-import secret written"), "cluster2 was the hub's to import: {steps:?}");
    assert!(!steps.iter().any(|s| s.starts_with("target:")), "{steps:?}");
}

#[tokio::test]
async fn an_apply_stopped_during_its_rollout_says_so_for_the_clusters_it_imported_and_a_rerun_finishes() {
    let env = DevUp::start(2);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("fleet.yaml");
    let file_arg = file.to_string_lossy().to_string();
    // Both imported by this apply, then upgraded: a canary, soaked for longer than the test.
    let fleet = "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\nhub: {context: hub}\ndefaults:\n  version: 0.2.0\n  \
                 rollout: {canary: 1, soak: 10m}\nclusters:\n- name: cluster1\n- name: cluster2\n";
    std::fs::write(&file, fleet).expect("fleet file");
    // Progress goes to stderr only without -o json: the report goes to a file.
    let report_path = dir.path().join("report.json");
    let report_arg = report_path.to_string_lossy();
    let (child, seen) =
        apply_until(&env, &["-f", &file_arg, "--report", &report_arg], |line| line.contains("canary wave 1: soaking"));
    assert!(seen.last().is_some_and(|l| l.contains("soaking")), "{seen:?}");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
    let output = child.wait_with_output().expect("apply ends");
    assert_eq!(output.status.code(), Some(130), "stopped, not done: {}", text(&output.stdout));
    let report: Value = serde_json::from_slice(&std::fs::read(&report_path).expect("report")).expect("JSON");
    assert_eq!(report["error"]["exitCode"], 130, "{report}");
    for (i, name) in ["cluster1", "cluster2"].iter().enumerate() {
        let cluster = &report["clusters"][i];
        assert_eq!(
            (cluster["cluster"].as_str(), cluster["result"].as_str()),
            (Some(*name), Some("interrupted")),
            "{report}"
        );
        let error = cluster["error"].as_str().expect("error");
        assert!(error.contains("stopped by SIGINT"), "its upgrade did not finish: {error}");
    }

    // cluster1 runs the new version already; the rerun upgrades cluster2 alone, one wave
    // and so no soak, and then nothing is left to do.
    assert_eq!(planned(&env, &file, &[]), pairs(&[("cluster2", "upgrade")]));
    let output = env.fleetctl(&["apply", "-f", &file_arg, "-o", "json"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(json_of(&output)["clusters"][0]["result"], "running 0.2.0");
    assert_eq!(planned(&env, &file, &[]), []);
}
