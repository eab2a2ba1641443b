//! Fleets at once on `dev up`: many imports in one command (`--contexts`, `--all-contexts`,
//! `NAME=CONTEXT`), one result per cluster and the gravest exit status, detach by selector,
//! a progressive upgrade whose second wave fails, is rolled back and stops the rollout, and
//! one whose failing cluster holds only its own slot.

use k8s_openapi::api::admissionregistration::v1::{ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding};
use kube::ResourceExt;
use kube::api::{Api, PostParams};
use kube::runtime::wait::await_condition;
use serde_json::{Value, json};

use super::DevUp;
use fleetctl::lifecycle::upgrade::running_version;
use fleetctl_api::ManagedCluster;
use fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION;

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("one JSON document on stdout ({e}): {}", String::from_utf8_lossy(&output.stderr)))
}

fn results(report: &Value) -> Vec<(String, String)> {
    let clusters = report["clusters"].as_array().expect("clusters");
    clusters
        .iter()
        .map(|c| (c["cluster"].as_str().expect("name").to_string(), c["result"].as_str().expect("result").to_string()))
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[tokio::test]
async fn many_clusters_import_in_one_command_each_with_its_result_and_detach_by_selector() {
    let env = DevUp::start(3);
    let hub = ["--hub-context", "hub"];
    let output = env.fleetctl(
        &[
            &["import", "--contexts", "cluster1,cluster2", "--parallel", "2", "--label", "env=dev", "-o", "json"][..],
            &hub,
        ]
        .concat(),
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = json_of(&output);
    assert_eq!(results(&report), pairs(&[("cluster1", "imported"), ("cluster2", "imported")]), "{report}");

    // A cluster whose context cannot be used refuses the whole command before anything
    // changes: cluster3 is not imported either.
    let output = env
        .fleetctl(&[&["import", "cluster3", "ghost=nowhere", "--label", "env=dev", "-o", "json"][..], &hub].concat());
    assert_eq!(output.status.code(), Some(4), "{}", String::from_utf8_lossy(&output.stderr));
    let report = json_of(&output);
    assert_eq!(report["error"]["exitCode"], 4);
    let message = report["error"]["message"].as_str().expect("message");
    assert!(message.starts_with("cluster ghost: choosing the target cluster"), "{message}");
    assert!(message.ends_with("nothing was changed"), "{message}");
    let clusters = Api::<ManagedCluster>::all(env.client("hub").await);
    assert!(clusters.get_opt("cluster3").await.expect("read").is_none(), "cluster3 was not imported");

    // Every context of the file but the hub's: the two imported already, cluster3 now.
    let kubeconfig = env.kubeconfig().to_string_lossy().to_string();
    let all = ["import", "--all-contexts", "--cluster-kubeconfig", &kubeconfig, "--label", "env=dev"];
    let output = env.fleetctl(&[&all[..], &hub].concat());
    let (stdout, stderr) =
        (String::from_utf8_lossy(&output.stdout).to_string(), String::from_utf8_lossy(&output.stderr).to_string());
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("skipping context hub: it is the hub"), "{stderr}");
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(rows[0].split_whitespace().collect::<Vec<_>>(), ["CLUSTER", "RESULT", "TIME"], "{stdout}");
    assert!(rows[1].starts_with("cluster1") && rows[1].contains("already imported"), "{stdout}");
    assert!(rows[2].starts_with("cluster2") && rows[2].contains("already imported"), "{stdout}");
    assert!(rows[3].starts_with("cluster3") && rows[3].contains(" imported"), "{stdout}");

    // Clusters without a context are reached through the contexts of their names.
    let output = env.fleetctl(&[&["import", "a", "b"][..], &hub].concat());
    assert_eq!(output.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&output.stderr).contains("through the context of its name"));

    let output =
        env.fleetctl(&[&["detach", "-l", "env=dev", "--yes", "--parallel", "3", "-o", "json"][..], &hub].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = json_of(&output);
    let detached = pairs(&[("cluster1", "detached"), ("cluster2", "detached"), ("cluster3", "detached")]);
    assert_eq!(results(&report), detached, "{report}");
    let left = Api::<ManagedCluster>::all(env.client("hub").await).list(&Default::default()).await.expect("list");
    assert!(left.items.is_empty(), "every cluster detached");
    let output = env.fleetctl(&[&["detach", "-l", "env=dev", "--yes"][..], &hub].concat());
    assert_eq!(output.status.code(), Some(4), "a selector that matches none is refused");
}

/// Freezes the klusterlet Deployments' images on a target (a ValidatingAdmissionPolicy that
/// refuses a new image), so that its agents never run a new version.
async fn freeze_agent_images(env: &DevUp, context: &str) {
    let target = env.client(context).await;
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": "freeze-agent-images"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{
                "apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": ["deployments"]
            }]},
            "validations": [{
                "expression": "object.metadata.namespace != 'open-cluster-management-agent' || \
                    object.spec.template.spec.containers[0].image == oldObject.spec.template.spec.containers[0].image",
                "message": "agent images are frozen on this cluster"
            }]
        }
    }))
    .expect("policy");
    Api::<ValidatingAdmissionPolicy>::all(target.clone())
        .create(&PostParams::default(), &policy)
        .await
        .expect("policy");
    let binding: ValidatingAdmissionPolicyBinding = serde_json::from_value(json!({
        "metadata": {"name": "freeze-agent-images"},
        "spec": {"policyName": "freeze-agent-images", "validationActions": ["Deny"]}
    }))
    .expect("binding");
    Api::<ValidatingAdmissionPolicyBinding>::all(target)
        .create(&PostParams::default(), &binding)
        .await
        .expect("binding");
}

/// A dev environment whose three clusters are imported.
fn three_imported() -> DevUp {
    let env = DevUp::start(3);
    let import = ["import", "--contexts", "cluster1,cluster2,cluster3", "--parallel", "3", "--hub-context", "hub"];
    let output = env.fleetctl(&import);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    env
}

#[tokio::test]
async fn a_progressive_upgrade_stops_at_max_failures_and_rolls_the_failed_cluster_back() {
    let env = three_imported();
    let hub = ["--hub-context", "hub"];
    let clusters = Api::<ManagedCluster>::all(env.client("hub").await);
    let before = clusters.get("cluster2").await.expect("cluster2");
    let old = running_version(&before).expect("a version").to_string();
    freeze_agent_images(&env, "cluster2").await;

    let upgrade = [
        "upgrade",
        "cluster1",
        "cluster2",
        "cluster3",
        "--to",
        "0.2.0",
        "--canary",
        "1",
        "--wave-size",
        "1",
        "--max-failures",
        "0",
        "--progress-deadline",
        "10s",
        "-o",
        "json",
    ];
    let output = env.fleetctl(&[&upgrade[..], &hub].concat());
    let report = json_of(&output);
    assert_eq!(output.status.code(), Some(3), "cluster2 timed out: {report}");
    assert_eq!(report["rollout"]["waves"], json!([["cluster1"], ["cluster2"], ["cluster3"]]), "{report}");
    let stopped = report["rollout"]["stopped"].as_str().expect("stopped");
    assert!(stopped.contains("more than --max-failures 0"), "{stopped}");
    assert_eq!(
        results(&report),
        pairs(&[
            ("cluster1", "running 0.2.0"),
            ("cluster2", "timed out"),
            ("cluster3", "not upgraded: the rollout stopped after wave 2")
        ])
    );
    let error = report["clusters"][1]["error"].as_str().expect("error");
    assert!(error.contains(&format!("upgrade failed and was rolled back to {old}")), "{error}");
    let steps: Vec<&str> =
        report["clusters"][1]["steps"].as_array().expect("steps").iter().filter_map(|s| s["step"].as_str()).collect();
    assert!(steps.iter().any(|s| s.starts_with("rollback: desired version")), "{steps:?}");
    let after = clusters.get("cluster2").await.expect("cluster2");
    assert_eq!(running_version(&after), Some(old.as_str()));
    assert!(after.is_available());
    assert_eq!(after.metadata.annotations, before.metadata.annotations, "its desired version restored");
    let untouched = clusters.get("cluster3").await.expect("cluster3");
    assert_eq!(running_version(&untouched), Some(old.as_str()), "the stopped rollout left cluster3 alone");
}

/// Upstream's progressive rollout keeps `maxConcurrency` clusters in progress and starts the
/// next as one ends: a cluster that cannot upgrade holds its own slot until its deadline,
/// and the clusters after it upgrade meanwhile.
#[tokio::test]
async fn a_cluster_that_cannot_upgrade_holds_one_slot_of_the_rollout_not_the_clusters_after_it() {
    let env = three_imported();
    let hub = ["--hub-context", "hub"];
    freeze_agent_images(&env, "cluster1").await;
    let clusters = Api::<ManagedCluster>::all(env.client("hub").await);

    let upgrade = [
        "upgrade",
        "cluster1",
        "cluster2",
        "cluster3",
        "--to",
        "0.2.0",
        "--wave-size",
        "2",
        "--max-failures",
        "1",
        "--progress-deadline",
        "40s",
        "-o",
        "json",
    ];
    let mut command = env.fleetctl_command(&[&upgrade[..], &hub].concat());
    let upgrading = tokio::task::spawn_blocking(move || command.output().expect("fleetctl runs"));
    // cluster3, of the second wave, takes the slot cluster2 left while cluster1 still
    // waits for its deadline.
    let upgraded = await_condition(clusters.clone(), "cluster3", |c: Option<&ManagedCluster>| {
        c.is_some_and(|c| running_version(c) == Some("0.2.0"))
    });
    tokio::time::timeout(std::time::Duration::from_secs(35), upgraded)
        .await
        .expect("cluster3 upgraded before cluster1's deadline")
        .expect("watch");
    let held = clusters.get("cluster1").await.expect("cluster1");
    assert_eq!(
        held.annotations().get(ANNOTATION_KLUSTERLET_VERSION).map(String::as_str),
        Some("0.2.0"),
        "cluster1 is still being upgraded, not yet rolled back"
    );

    let output = upgrading.await.expect("the upgrade's thread");
    let report = json_of(&output);
    assert_eq!(output.status.code(), Some(3), "cluster1 timed out: {report}");
    assert_eq!(report["rollout"]["stopped"], Value::Null, "one failure is within --max-failures 1: {report}");
    assert_eq!(
        results(&report),
        pairs(&[("cluster1", "timed out"), ("cluster2", "running 0.2.0"), ("cluster3", "running 0.2.0")])
    );
}
