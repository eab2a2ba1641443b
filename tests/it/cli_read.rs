//! `fleetctl get` and `fleetctl describe`: the built binary against a hub with clusters in
//! different states — exit codes, machine output that is nothing but the document, and
//! snapshots of what people see (tests/it/snapshots, volatile ages and times normalised;
//! `FLEETCTL_UPDATE_SNAPSHOTS=1` rewrites them). Also the exit codes every command shares:
//! the same fault gives the same code in each, and a flag a command does not honour is
//! refused.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use fleetctl_api::clusterset::CLUSTER_SET_LABEL;
use fleetctl_api::{ManagedClusterAddOn, ManifestWork};
use futures::TryStreamExt;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::wait::await_condition;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::hub::{Hub, report};
use crate::support::cluster::TestCluster;

const WAIT: Duration = Duration::from_secs(10);

/// A hub with three clusters:
/// - `alpha` (env=prod): accepted, joined, available, imported, klusterlet 0.1.0, two addons;
/// - `beta` (env=staging): joined, lease stopped, upgrade to 0.2.0 pending;
/// - `gamma`: not accepted, with a refused CSR.
struct Fleet {
    hub: Hub,
    kubeconfig: PathBuf,
    _dir: TempDir,
}

fn condition(type_: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": type_, "status": status, "reason": reason, "message": message})
}

impl Fleet {
    async fn start() -> Self {
        let hub = Hub::start().await;
        let (dir, kubeconfig) = write_kubeconfig(&hub.cluster);
        let fleet = Self { hub, kubeconfig, _dir: dir };
        tokio::join!(fleet.alpha(), fleet.beta(), fleet.gamma());
        // The hub puts each cluster without a set into `default`, as upstream's: the
        // snapshots show that label, so it is awaited.
        for name in ["alpha", "beta", "gamma"] {
            fleet
                .hub
                .wait_cluster(name, |c| c.metadata.labels.as_ref().is_some_and(|l| l.contains_key(CLUSTER_SET_LABEL)))
                .await;
        }
        fleet
    }

    async fn alpha(&self) {
        let hub = &self.hub;
        hub.create_cluster("alpha", true).await;
        self.patch_cluster(
            "alpha",
            json!({"metadata": {"labels": {"env": "prod"}},
                   "spec": {"managedClusterClientConfigs": [{"url": "https://alpha.example.com:6443"}]}}),
        )
        .await;
        hub.wait_cluster("alpha", |c| c.is_hub_accepted()).await;
        self.agent_status("alpha", "0.1.0").await;
        report(
            hub,
            "alpha",
            json!([
                condition("ManagedClusterJoined", "True", "ManagedClusterJoined", "Managed cluster joined"),
                condition(
                    "ManagedClusterConditionAvailable",
                    "True",
                    "ManagedClusterAvailable",
                    "Managed cluster is available"
                ),
            ]),
        )
        .await;
        // Play the work agent: both klusterlet works applied and available.
        let works: Api<ManifestWork> = Api::namespaced(hub.cluster.client.clone(), "alpha");
        for name in ["alpha-klusterlet-crds", "alpha-klusterlet"] {
            let present = await_condition(works.clone(), name, |w: Option<&ManifestWork>| w.is_some());
            tokio::time::timeout(WAIT, present).await.expect("work in time").expect("watch");
            let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
            let status = json!({"status": {"conditions": [
                {"type": "Applied", "status": "True", "reason": "AppliedManifestWorkComplete", "message": "Apply manifest work complete", "lastTransitionTime": now},
                {"type": "Available", "status": "True", "reason": "ResourcesAvailable", "message": "All resources are available", "lastTransitionTime": now},
            ]}});
            works.patch_status(name, &PatchParams::default(), &Patch::Merge(status)).await.expect("work status");
        }
        self.addon(
            "alpha",
            "application-manager",
            &[
                ("Available", "True", "ManagedClusterAddOnLeaseUpdated", "application-manager add-on is available."),
                ("Progressing", "False", "Completed", "completed with no errors."),
            ],
        )
        .await;
        self.addon(
            "alpha",
            "search-collector",
            &[
                (
                    "Available",
                    "False",
                    "ManagedClusterAddOnLeaseNotFound",
                    "The status of search-collector add-on is unknown.",
                ),
                (
                    "Progressing",
                    "False",
                    "ConfigurationUnsupported",
                    "search-collector has no setting \"x\" (it takes none)",
                ),
            ],
        )
        .await;
        hub.wait_cluster("alpha", |c| {
            c.is_joined()
                && c.is_available()
                && fleetctl_api::conditions::is_true(c.conditions(), "ManagedClusterImportSucceeded")
                && fleetctl_api::conditions::is_true(c.conditions(), "ManagedClusterConditionClockSynced")
        })
        .await;
    }

    async fn beta(&self) {
        let hub = &self.hub;
        hub.create_cluster("beta", true).await;
        self.patch_cluster(
            "beta",
            json!({"metadata": {"labels": {"env": "staging"},
                                "annotations": {fleetctl_api::names::ANNOTATION_KLUSTERLET_VERSION: "0.2.0"}}}),
        )
        .await;
        hub.wait_cluster("beta", |c| c.is_hub_accepted()).await;
        self.agent_status("beta", "0.1.0").await;
        report(
            hub,
            "beta",
            json!([
                condition("ManagedClusterJoined", "True", "ManagedClusterJoined", "Managed cluster joined"),
                condition(
                    "ManagedClusterConditionAvailable",
                    "Unknown",
                    "ManagedClusterLeaseUpdateStopped",
                    "Registration agent stopped updating its lease."
                ),
            ]),
        )
        .await;
        self.addon("beta", "application-manager", &[]).await;
        hub.wait_cluster("beta", |c| {
            c.is_joined()
                && fleetctl_api::conditions::find(c.conditions(), "ManagedClusterImportSucceeded")
                    .is_some_and(|i| i.reason == "ManagedClusterImporting")
        })
        .await;
    }

    async fn gamma(&self) {
        let hub = &self.hub;
        hub.create_cluster("gamma", false).await;
        hub.wait_cluster("gamma", |c| fleetctl_api::conditions::is_false(c.conditions(), "HubAcceptedManagedCluster"))
            .await;
        refused_csr(hub, "gamma-csr1", "gamma").await;
    }

    async fn patch_cluster(&self, name: &str, patch: Value) {
        self.hub.clusters().patch(name, &PatchParams::default(), &Patch::Merge(patch)).await.expect("patch cluster");
    }

    /// What the registration agent reports besides conditions.
    async fn agent_status(&self, name: &str, klusterlet: &str) {
        let status = json!({"status": {
            "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "allocatable": {"cpu": "7500m", "memory": "31Gi", "pods": "110"},
            "version": {"kubernetes": "v1.33.1"},
            "clusterClaims": [
                {"name": "klusterlet-version.fleetctl.io", "value": klusterlet},
                {"name": "kubeversion.open-cluster-management.io", "value": "v1.33.1"},
            ],
        }});
        self.hub.clusters().patch_status(name, &PatchParams::default(), &Patch::Merge(status)).await.expect("status");
    }

    /// An addon with conditions `(type, status, reason, message)`.
    async fn addon(&self, cluster: &str, name: &str, conditions: &[(&str, &str, &str, &str)]) {
        let api: Api<ManagedClusterAddOn> = Api::namespaced(self.hub.cluster.client.clone(), cluster);
        api.create(&PostParams::default(), &ManagedClusterAddOn::for_cluster(cluster, name)).await.expect("addon");
        if !conditions.is_empty() {
            let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
            let conditions: Vec<_> = conditions
                .iter()
                .map(|(type_, status, reason, message)| {
                    json!({"type": type_, "status": status, "reason": reason, "message": message, "lastTransitionTime": now})
                })
                .collect();
            let patch = json!({"status": {"conditions": conditions}});
            api.patch_status(name, &PatchParams::default(), &Patch::Merge(patch)).await.expect("addon status");
        }
    }

    async fn run(&self, args: &[&str]) -> Output {
        fleetctl(&self.kubeconfig, args).await
    }
}

/// Writes the admin kubeconfig of `cluster` to a temporary file.
pub(crate) fn write_kubeconfig(cluster: &TestCluster) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("hub.kubeconfig");
    std::fs::write(&path, serde_json::to_vec(&cluster.server.kubeconfig("hub")).expect("json")).expect("write");
    (dir, path)
}

/// Runs the built binary against the hub.
pub(crate) async fn fleetctl(kubeconfig: &Path, args: &[&str]) -> Output {
    let hub = ["--hub-kubeconfig", kubeconfig.to_str().expect("a UTF-8 path")];
    run(&[args, &hub].concat()).await
}

/// Runs the built binary. The server lives on this test's runtime, so the child is awaited
/// rather than waited for on the runtime's only thread.
async fn run(args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("FLEETCTL_LOG")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("fleetctl runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 stdout")
}

pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub(crate) fn succeeded(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(output));
    let out = stdout(output);
    assert!(!out.contains('\u{1b}'), "no colours when stdout is not a terminal: {out:?}");
    out
}

/// A CSR for `cluster` from a signer the hub never approves for: the hub leaves it pending
/// with a `CSRNotApproved` Event. Returns once the Event exists.
async fn refused_csr(hub: &Hub, name: &str, cluster: &str) {
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, format!("system:open-cluster-management:{cluster}:agent1"));
    let pem = params.serialize_request(&key).expect("csr").pem().expect("pem");
    let csr: CertificateSigningRequest = serde_json::from_value(json!({
        "metadata": {"name": name, "labels": {"open-cluster-management.io/cluster-name": cluster}},
        "spec": {"request": BASE64.encode(pem), "signerName": "example.com/not-a-kube-signer", "usages": ["client auth"]}
    }))
    .expect("csr");
    Api::<CertificateSigningRequest>::all(hub.cluster.client.clone())
        .create(&PostParams::default(), &csr)
        .await
        .expect("submit csr");
    let events: Api<Event> = Api::namespaced(hub.cluster.client.clone(), "default");
    let config = kube::runtime::watcher::Config::default().fields(&format!("regarding.name={name}"));
    let refusals = kube::runtime::watcher(events, config).applied_objects();
    let mut refusals = std::pin::pin!(refusals);
    tokio::time::timeout(WAIT, refusals.try_next()).await.expect("refusal in time").expect("watch").expect("event");
}

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

/// Compares `actual` (normalised) with `tests/it/snapshots/<name>.txt`, or rewrites that file
/// when `FLEETCTL_UPDATE_SNAPSHOTS` is set.
fn assert_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/snapshots").join(format!("{name}.txt"));
    let actual = normalise(actual);
    if std::env::var_os("FLEETCTL_UPDATE_SNAPSHOTS").is_some() {
        assert!(
            std::env::var_os("CI").is_none(),
            "FLEETCTL_UPDATE_SNAPSHOTS is set under CI: the test would rewrite {name} instead of checking it"
        );
        std::fs::create_dir_all(path.parent().expect("parent")).expect("snapshot dir");
        std::fs::write(&path, &actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "snapshot {name} differs (rewrite with FLEETCTL_UPDATE_SNAPSHOTS=1 cargo nextest run --test it cli_read)\n\
         --- expected\n{expected}\n--- actual\n{actual}"
    );
}

/// Ages become `<age>` and timestamps `<time>`; runs of spaces (column padding, which an age
/// of another width shifts) become two spaces.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = without_repeat_counts(line);
        let line = line.as_str();
        let mut normal = String::new();
        let mut rest = line;
        while !rest.is_empty() {
            let spaces = rest.len() - rest.trim_start_matches(' ').len();
            if spaces > 0 {
                normal.push_str(if spaces > 1 && !normal.is_empty() { "  " } else { &rest[..spaces] });
                rest = &rest[spaces..];
                continue;
            }
            let end = rest.find(' ').unwrap_or(rest.len());
            normal.push_str(&normalise_word(&rest[..end]));
            rest = &rest[end..];
        }
        out.push_str(&normal);
        out.push('\n');
    }
    out
}

/// Drops the ` (xN)` after an Event's age: how often a controller repeated itself depends on
/// timing.
fn without_repeat_counts(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(" (x") {
        let tail = &rest[at + 3..];
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..at]);
        if digits > 0 && tail[digits..].starts_with(')') {
            rest = &tail[digits + 1..];
        } else {
            out.push_str(" (x");
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn normalise_word(word: &str) -> String {
    let core = word.trim_matches(|c| matches!(c, '(' | ')' | ','));
    let replacement = if is_age(core) {
        "<age>"
    } else if is_time(core) {
        "<time>"
    } else {
        return word.to_string();
    };
    word.replacen(core, replacement, 1)
}

/// `45s`, `5m30s`, `2d4h`, `<invalid>`: what `HumanDuration` prints.
fn is_age(word: &str) -> bool {
    if word == "<invalid>" {
        return true;
    }
    let mut digits = 0;
    let mut units = 0;
    for c in word.chars() {
        match c {
            '0'..='9' => digits += 1,
            's' | 'm' | 'h' | 'd' | 'y' if digits > 0 => {
                digits = 0;
                units += 1;
            }
            _ => return false,
        }
    }
    units > 0 && digits == 0
}

fn is_time(word: &str) -> bool {
    word.len() >= 20 && word.as_bytes()[4] == b'-' && word.contains('T') && word.ends_with('Z')
}

#[test]
fn normalising_hides_ages_and_times_but_keeps_the_rest() {
    assert_eq!(
        normalise("NAME   AGE   VERSION\nalpha  5m30s   0.1.0/0.1.0\nCreated:   2025-01-01T00:00:00Z (45s ago)\n"),
        "NAME  AGE  VERSION\nalpha  <age>  0.1.0/0.1.0\nCreated:  <time> (<age> ago)\n"
    );
    assert_eq!(normalise("  5m (x12)   Warning   CSRNotApproved\n"), "  <age>  Warning  CSRNotApproved\n");
    assert_eq!(normalise("  5m   Warning   (x)\n"), "  <age>  Warning  (x)\n");
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn get_clusters_shows_each_cluster_state_as_a_table() {
    let fleet = Fleet::start().await;
    let table = succeeded(&fleet.run(&["get", "clusters"]).await);
    assert_snapshot("get_clusters", &table);
    let wide = succeeded(&fleet.run(&["get", "clusters", "-o", "wide"]).await);
    assert_snapshot("get_clusters_wide", &wide);
    assert!(wide.contains("https://alpha.example.com:6443") && wide.contains("1/2"), "{wide}");
}

#[tokio::test]
async fn machine_output_is_the_document_and_nothing_else() {
    let fleet = Fleet::start().await;
    let json_out = fleet.run(&["get", "clusters", "-o", "json"]).await;
    // The whole of stdout parses as one JSON document.
    let list: Value = serde_json::from_slice(&json_out.stdout).expect("stdout is one JSON document");
    assert_eq!(json_out.status.code(), Some(0));
    assert_eq!(list["kind"], "List");
    let names: Vec<&str> =
        list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma"]);
    assert_eq!(list["items"][0]["spec"]["hubAcceptsClient"], true);
    assert!(list["items"][0]["metadata"].get("managedFields").is_none());

    let one = fleet.run(&["get", "clusters", "beta", "-o", "json"]).await;
    let beta: Value = serde_json::from_slice(&one.stdout).expect("one JSON document");
    assert_eq!(beta["kind"], "ManagedCluster");
    assert_eq!(beta["metadata"]["annotations"]["fleetctl.io/klusterlet-version"], "0.2.0");

    let yaml_out = fleet.run(&["get", "clusters", "-o", "yaml"]).await;
    let list: Value = serde_yaml::from_slice(&yaml_out.stdout).expect("stdout is one YAML document");
    assert_eq!(list["items"].as_array().unwrap().len(), 3);

    let names = succeeded(&fleet.run(&["get", "clusters", "-o", "name"]).await);
    assert_eq!(
        names,
        "managedcluster.cluster.open-cluster-management.io/alpha\n\
         managedcluster.cluster.open-cluster-management.io/beta\n\
         managedcluster.cluster.open-cluster-management.io/gamma\n"
    );

    let description = fleet.run(&["describe", "cluster", "beta", "-o", "json"]).await;
    let beta: Value = serde_json::from_slice(&description.stdout).expect("one JSON document");
    assert_eq!(beta["runningVersion"], "0.1.0");
    assert_eq!(beta["desiredVersion"], "0.2.0");
    let upgrade: Vec<&str> = beta["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["act"] == "upgrade")
        .map(|m| m["what"].as_str().unwrap())
        .collect();
    assert!(upgrade.contains(&"agent runs 0.1.0, hub wants 0.2.0"), "{upgrade:?}");
}

#[tokio::test]
async fn clusters_are_picked_by_name_or_label() {
    let fleet = Fleet::start().await;
    let alpha = succeeded(&fleet.run(&["get", "clusters", "alpha"]).await);
    assert_eq!(alpha.lines().count(), 2, "{alpha}");
    assert!(alpha.lines().nth(1).unwrap().starts_with("alpha "), "{alpha}");

    let prod = succeeded(&fleet.run(&["get", "mcl", "-l", "env=prod", "-o", "name"]).await);
    assert_eq!(prod, "managedcluster.cluster.open-cluster-management.io/alpha\n");
    let not_prod = succeeded(&fleet.run(&["get", "mcl", "-l", "env!=prod", "-o", "name"]).await);
    assert!(not_prod.contains("/beta\n") && not_prod.contains("/gamma\n") && !not_prod.contains("alpha"));

    let none = fleet.run(&["get", "clusters", "-l", "env=nowhere"]).await;
    assert_eq!(succeeded(&none), "");
    assert!(stderr(&none).contains("No resources found"), "{}", stderr(&none));
}

#[tokio::test]
async fn describe_cluster_tells_conditions_works_addons_events_and_the_timeline() {
    let fleet = Fleet::start().await;
    let alpha = succeeded(&fleet.run(&["describe", "cluster", "alpha"]).await);
    assert_snapshot("describe_alpha", &alpha);
    let gamma = succeeded(&fleet.run(&["describe", "mcl", "gamma"]).await);
    assert_snapshot("describe_gamma", &gamma);
    assert!(gamma.contains("CSRNotApproved") && gamma.contains("CertificateSigningRequest/gamma-csr1"), "{gamma}");
}

#[tokio::test]
async fn get_addons_lists_availability_and_reason() {
    let fleet = Fleet::start().await;
    let all = succeeded(&fleet.run(&["get", "addons"]).await);
    assert_snapshot("get_addons", &all);
    let alpha = succeeded(&fleet.run(&["get", "addons", "alpha", "-o", "wide"]).await);
    assert_snapshot("get_addons_alpha_wide", &alpha);
    let json_out = fleet.run(&["get", "addons", "beta", "-o", "json"]).await;
    let list: Value = serde_json::from_slice(&json_out.stdout).expect("one JSON document");
    assert_eq!(list["items"][0]["metadata"]["name"], "application-manager");
}

#[tokio::test]
async fn an_unknown_cluster_fails_naming_it_and_how_to_list_clusters() {
    let fleet = Fleet::start().await;
    for args in [
        &["get", "clusters", "nope"][..],
        &["get", "clusters", "alpha", "nope", "-o", "json"],
        &["describe", "cluster", "nope"],
        &["get", "addons", "nope"],
    ] {
        let output = fleet.run(args).await;
        assert_eq!(output.status.code(), Some(4), "{args:?}: refused, as upgrade and detach refuse it");
        if args.contains(&"json") {
            // Machines get the document of a success, with the error beside it.
            let list: Value = serde_json::from_slice(&output.stdout).expect("one JSON document on failure too");
            assert_eq!((&list["kind"], &list["error"]["exitCode"]), (&json!("List"), &json!(4)), "{list}");
        } else {
            assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout, got {}", stdout(&output));
        }
        let message = stderr(&output);
        assert!(message.contains("\"nope\" not found"), "{args:?}: {message}");
        assert!(message.contains("fleetctl get clusters"), "{args:?}: {message}");
    }
}

#[tokio::test]
async fn a_hub_without_the_crds_says_to_install_it() {
    let cluster = TestCluster::start().await;
    let (_dir, kubeconfig) = write_kubeconfig(&cluster);
    for args in [&["get", "clusters"][..], &["get", "addons"]] {
        let output = fleetctl(&kubeconfig, args).await;
        assert_eq!(output.status.code(), Some(4), "{args:?}: refused, as import refuses it");
        assert!(stderr(&output).contains("fleetctl hub install"), "{args:?}: {}", stderr(&output));
    }
}

/// Every command that talks to the hub, with the arguments it needs besides the hub.
const HUB_COMMANDS: [&[&str]; 6] = [
    &["get", "clusters"],
    &["describe", "cluster", "alpha"],
    &["import", "delta"],
    &["upgrade", "alpha", "--to", "0.2.0"],
    &["detach", "alpha", "--yes"],
    &["hub", "install"],
];

#[tokio::test]
async fn an_unusable_hub_is_refused_with_the_same_code_by_every_command() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let missing = dir.path().join("missing.kubeconfig");
    let unreachable = dir.path().join("unreachable.kubeconfig");
    std::fs::write(
        &unreachable,
        "apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: 'https://127.0.0.1:1'}}]\n\
         users: [{name: x, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: x, user: x}}]\ncurrent-context: x\n",
    )
    .expect("write");
    let faults = [
        (&missing, vec!["no such file — pass --hub-kubeconfig"]),
        (&unreachable, vec!["the hub at https://127.0.0.1:1/ does not answer"]),
    ];
    let mut wrong = Vec::new();
    for (kubeconfig, messages) in &faults {
        for command in HUB_COMMANDS {
            let output = fleetctl(kubeconfig, command).await;
            let message = stderr(&output);
            if output.status.code() != Some(4)
                || !output.stdout.is_empty()
                || !messages.iter().all(|m| message.contains(m))
            {
                wrong.push(format!(
                    "{command:?} with {}: exit {:?}, stderr {message:?}",
                    kubeconfig.display(),
                    output.status.code()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test]
async fn an_unusable_target_is_refused_before_anything_changes() {
    let fleet = Fleet::start().await;
    for command in [&["import", "delta"][..], &["detach", "alpha", "--yes"]] {
        let output = fleet.run(&[command, &["--cluster-kubeconfig", "/nonexistent/kubeconfig"]].concat()).await;
        assert_eq!(output.status.code(), Some(4), "{command:?}: {}", stderr(&output));
        let message = stderr(&output);
        assert!(
            message.contains("choosing the target cluster: kubeconfig /nonexistent/kubeconfig: no such file"),
            "{message}"
        );
        assert!(message.contains("pass --cluster-kubeconfig"), "{command:?} names the flag: {message}");
    }
    let names = succeeded(&fleet.run(&["get", "clusters", "-o", "name"]).await);
    assert!(names.contains("/alpha\n") && !names.contains("delta"), "nothing changed: {names}");
}

#[tokio::test]
async fn a_flag_is_refused_by_a_command_that_does_not_honour_it() {
    for args in [
        &["completion", "bash", "-o", "json"][..],
        &["dev", "status", "--cluster-context", "x"],
        &["version", "--timeout", "5m"],
        &["upgrade", "alpha", "--to", "0.2.0", "--cluster-kubeconfig", "/k"],
    ] {
        let output = run(args).await;
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(output.stdout.is_empty(), "{args:?} did nothing: {}", stdout(&output));
        assert!(stderr(&output).contains("unexpected argument"), "{args:?}: {}", stderr(&output));
    }
}
