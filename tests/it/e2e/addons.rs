//! Addons end to end on `dev up`: import with the three addons, their reports on the hub,
//! a silent addon turning Unknown and back, disabling one, and detach removing all.

use std::collections::BTreeSet;
use std::time::Duration;

use fleetctl::lifecycle::wait_for;
use fleetctl_agent::registration::addons::REPORT_CONDITION;
use fleetctl_api::conditions as c;
use fleetctl_api::{KlusterletAddonConfig, ManagedClusterAddOn, ManifestWork};
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::{Value, json};

use super::{DevUp, WAIT};
use crate::support::until;

const ADDON_NS: &str = "open-cluster-management-agent-addon";
const SEARCH: &str = "search-collector";
const CERT: &str = "cert-policy-controller";
const IAM: &str = "iam-policy-controller";

fn ok(output: std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "failed ({:?}): {stderr}", output.status.code());
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A TLS Secret whose certificate is valid from `from` to `until` days from now.
fn tls_secret(name: &str, from: i64, until: i64) -> Secret {
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::new(vec![format!("{name}.example.com")]).expect("params");
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now + time::Duration::days(from);
    params.not_after = now + time::Duration::days(until);
    let cert = params.self_signed(&key).expect("cert");
    let mut secret: Secret = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
        "metadata": {"name": name, "namespace": "certs"},
    }))
    .expect("secret");
    secret.data = Some(
        [
            ("tls.crt".to_string(), ByteString(cert.pem().into_bytes())),
            ("tls.key".to_string(), ByteString(key.serialize_pem().into_bytes())),
        ]
        .into(),
    );
    secret
}

fn admin_binding(name: &str, subjects: Value) -> ClusterRoleBinding {
    serde_json::from_value(json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": subjects,
    }))
    .expect("binding")
}

/// Plants what the policy addons must find: one certificate expiring in 3 days, one
/// expired, one valid for a year, and two extra cluster-admin bindings.
async fn plant(target: &Client) {
    let ns: Namespace =
        serde_json::from_value(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "certs"}}))
            .expect("ns");
    Api::<Namespace>::all(target.clone()).create(&PostParams::default(), &ns).await.expect("namespace");
    let secrets: Api<Secret> = Api::namespaced(target.clone(), "certs");
    for secret in [tls_secret("soon", -10, 3), tls_secret("old", -30, -1), tls_secret("fine", -1, 365)] {
        secrets.create(&PostParams::default(), &secret).await.expect("secret");
    }
    let bindings: Api<ClusterRoleBinding> = Api::all(target.clone());
    for binding in [
        admin_binding(
            "extra-admin-alice",
            json!([{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]),
        ),
        admin_binding(
            "extra-admin-ops",
            json!([{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "ops"},
                   {"kind": "ServiceAccount", "name": "robot", "namespace": "certs"}]),
        ),
    ] {
        bindings.create(&PostParams::default(), &binding).await.expect("binding");
    }
}

/// The cluster-admin subjects on the cluster, as the iam addon names them.
async fn admin_subjects(target: &Client) -> BTreeSet<String> {
    let list = Api::<ClusterRoleBinding>::all(target.clone()).list(&ListParams::default()).await.expect("bindings");
    list.items.iter().flat_map(fleetctl_agent::addon::iam::admin_subjects).collect()
}

fn condition<'a>(
    addon: &'a ManagedClusterAddOn,
    type_: &str,
) -> Option<&'a k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition> {
    c::find(addon.conditions(), type_)
}

/// Waits until an addon's Available condition has `status` (and, for True, a report).
async fn wait_addon(hub: &Client, addon: &str, status: &'static str, timeout: Duration) -> ManagedClusterAddOn {
    let api: Api<ManagedClusterAddOn> = Api::namespaced(hub.clone(), "cluster1");
    let what = format!("addon {addon} Available={status}");
    wait_for(api, addon, &what, timeout, move |a: Option<&ManagedClusterAddOn>| {
        a.is_some_and(|a| {
            c::has_status(a.conditions(), c::ADDON_AVAILABLE, status)
                && (status != c::TRUE || condition(a, REPORT_CONDITION).is_some())
        })
    })
    .await
    .expect(&what)
    .expect("present")
}

fn report(addon: &ManagedClusterAddOn) -> Value {
    serde_json::from_str(&condition(addon, REPORT_CONDITION).expect("report").message).expect("report JSON")
}

/// Sets an addon's values annotation.
async fn annotate(addons: &Api<ManagedClusterAddOn>, addon: &str, values: &str) {
    let patch = json!({"metadata": {"annotations": {c::ANNOTATION_ADDON_VALUES: values}}});
    addons.patch(addon, &PatchParams::default(), &Patch::Merge(&patch)).await.expect("annotate");
}

/// Waits until an addon's Progressing condition passes `check`.
async fn wait_progressing(
    addons: &Api<ManagedClusterAddOn>,
    addon: &str,
    check: impl Fn(&k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition) -> bool + Send + 'static,
) -> ManagedClusterAddOn {
    let what = format!("{addon}'s Progressing condition");
    wait_for(addons.clone(), addon, &what, WAIT, move |a: Option<&ManagedClusterAddOn>| {
        a.and_then(|a| condition(a, c::ADDON_PROGRESSING)).is_some_and(&check)
    })
    .await
    .expect(&what)
    .expect("present")
}

/// Sets good values on an addon: its agent is restarted with `flag` and the rollout completes.
async fn values(env: &DevUp, addons: &Api<ManagedClusterAddOn>, addon: &str, values: &str, flag: &str) {
    annotate(addons, addon, values).await;
    let restarted = || {
        let running: Vec<String> = env
            .pids(&["addon", addon])
            .iter()
            .map(|pid| {
                String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
                    .replace('\0', " ")
            })
            .collect();
        running.len() == 1 && running[0].ends_with(&format!(" {flag} "))
    };
    until(&format!("{addon} restarted with {flag}"), restarted).await;
    wait_progressing(addons, addon, |p| p.status == c::FALSE && p.reason == c::REASON_ADDON_COMPLETED).await;
}

/// Waits until an addon reports something that passes `check`.
async fn wait_addon_report(
    hub: &Client,
    addon: &str,
    check: impl Fn(&Value) -> bool + Send + 'static,
) -> ManagedClusterAddOn {
    let api: Api<ManagedClusterAddOn> = Api::namespaced(hub.clone(), "cluster1");
    let what = format!("a new report of {addon}");
    wait_for(api, addon, &what, WAIT, move |a: Option<&ManagedClusterAddOn>| {
        a.and_then(|a| condition(a, REPORT_CONDITION))
            .and_then(|r| serde_json::from_str::<Value>(&r.message).ok())
            .is_some_and(|r| check(&r))
    })
    .await
    .expect(&what)
    .expect("present")
}

fn signal(pid: u32, signal: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid")), signal).expect("signal");
}

#[tokio::test]
async fn addons_report_on_the_hub_recover_disable_and_leave_with_the_cluster() {
    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    let target = env.client("cluster1").await;
    plant(&target).await;

    // Import with the three addons; the CLI waits for every addon to be Available.
    ok(env.fleetctl(&[
        "import",
        "cluster1",
        "--hub-context",
        "hub",
        "--cluster-context",
        "cluster1",
        "--addons",
        "search-collector,cert-policy-controller,iam-policy-controller",
    ]));
    for addon in [SEARCH, CERT, IAM] {
        wait_addon(&hub, addon, c::TRUE, WAIT).await;
    }
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(hub.clone(), "cluster1");

    // Certificates: exactly the expired and the expiring one, by name.
    let cert = addons.get(CERT).await.expect("cert addon");
    let available = condition(&cert, c::ADDON_AVAILABLE).expect("available");
    assert_eq!(available.reason, c::REASON_ADDON_LEASE_UPDATED);
    assert_eq!(available.message, "NonCompliant: expired: certs/old; expiring within 30d: certs/soon");
    let cert_report = report(&cert);
    assert_eq!(cert_report["expired"], json!(["certs/old"]), "{cert_report}");
    assert_eq!(cert_report["expiring"], json!(["certs/soon"]), "{cert_report}");
    assert_eq!(condition(&cert, REPORT_CONDITION).expect("report").reason, "NonCompliant");

    // cluster-admin: exactly the subjects bound on the cluster, the planted ones among them.
    let iam = addons.get(IAM).await.expect("iam addon");
    let iam_report = report(&iam);
    let expected = admin_subjects(&target).await;
    for planted in ["User:alice", "Group:ops", "ServiceAccount:certs/robot"] {
        assert!(expected.contains(planted), "{expected:?}");
    }
    let reported: BTreeSet<String> = serde_json::from_value(iam_report["subjects"].clone()).expect("subjects");
    assert_eq!(reported, expected);
    assert_eq!(condition(&iam, REPORT_CONDITION).expect("report").reason, "NonCompliant");

    // Search: counts by kind and namespace.
    let search = addons.get(SEARCH).await.expect("search addon");
    let search_report = report(&search);
    assert!(search_report["kinds"]["Namespace"].as_u64().unwrap_or(0) >= 4, "{search_report}");
    assert_eq!(search_report["byNamespace"]["Secret"], Value::Null, "secrets are not the collector's to read");
    let summary = &condition(&search, c::ADDON_AVAILABLE).expect("available").message;
    assert!(summary.contains(" objects in ") && summary.contains("Namespace="), "{summary}");

    // The hub's own conditions: each addon's work applied and its rollout complete.
    for addon in [SEARCH, CERT, IAM] {
        let what = format!("{addon} Progressing=False Completed");
        let done = wait_for(addons.clone(), addon, &what, WAIT, |a: Option<&ManagedClusterAddOn>| {
            a.and_then(|a| condition(a, c::ADDON_PROGRESSING)).is_some_and(|p| p.reason == c::REASON_ADDON_COMPLETED)
        })
        .await
        .expect(&what)
        .expect("present");
        let applied = condition(&done, c::ADDON_MANIFEST_APPLIED).expect("ManifestApplied");
        assert_eq!((applied.status.as_str(), applied.reason.as_str()), (c::TRUE, c::REASON_ADDON_MANIFEST_APPLIED));
        assert_eq!(condition(&done, c::ADDON_PROGRESSING).expect("Progressing").status, c::FALSE);
    }

    // The CLI shows them.
    let listed = ok(env.fleetctl(&["get", "addons", "cluster1", "--hub-context", "hub"]));
    for addon in [SEARCH, CERT, IAM] {
        assert!(listed.contains(addon), "{listed}");
    }
    let wide = ok(env.fleetctl(&["get", "clusters", "-o", "wide", "--hub-context", "hub"]));
    assert!(wide.contains("3/3") && wide.contains(" objects in "), "{wide}");
    let described = ok(env.fleetctl(&["describe", "cluster", "cluster1", "--hub-context", "hub"]));
    assert!(described.contains("certs/soon"), "{described}");

    // Per-cluster settings through the values annotation reach the agents.
    values(&env, &addons, CERT, r#"{"minimumDuration": "2d"}"#, "--window=2d").await;
    let cert = wait_addon_report(&hub, CERT, |r| r["expiring"] == json!([])).await;
    assert_eq!(report(&cert)["expired"], json!(["certs/old"]), "the expired one stays");
    let iam_pid = env.pids(&["addon", IAM]);
    annotate(&addons, IAM, r#"{"maxClusterAdmins": 100}"#).await;
    let unsupported = wait_progressing(&addons, IAM, |p| p.reason == c::REASON_CONFIGURATION_UNSUPPORTED).await;
    let message = &condition(&unsupported, c::ADDON_PROGRESSING).expect("Progressing").message;
    assert!(message.contains("\"maxClusterAdmins\"") && message.contains("maxClusterRoleBindingUsers"), "{message}");
    assert_eq!(env.pids(&["addon", IAM]), iam_pid, "a bad setting leaves the running agent alone");
    values(&env, &addons, IAM, r#"{"maxClusterRoleBindingUsers": 100}"#, "--max=100").await;
    let iam = wait_addon_report(&hub, IAM, |r| r["max"] == json!(100)).await;
    assert_eq!(condition(&iam, REPORT_CONDITION).expect("report").reason, "Compliant");

    // The addon agents are the in-cluster executable (their memory: examples/addon_figures.rs).
    for addon in [SEARCH, CERT, IAM] {
        let pids = env.pids(&["addon", addon]);
        assert_eq!(pids.len(), 1, "{addon}: {pids:?}");
        let exe = std::fs::read_link(format!("/proc/{}/exe", pids[0])).expect("exe");
        assert_eq!(
            exe.file_name().and_then(|n| n.to_str()),
            Some("fleetctld"),
            "the in-cluster executable runs addons"
        );
    }

    // A silent addon turns Unknown after its grace, and Available again once it runs.
    let pid = env.pids(&["addon", SEARCH])[0];
    signal(pid, nix::sys::signal::Signal::SIGSTOP);
    let unknown = wait_addon(&hub, SEARCH, c::UNKNOWN, Duration::from_secs(40)).await;
    assert_eq!(condition(&unknown, c::ADDON_AVAILABLE).expect("c").reason, c::REASON_ADDON_LEASE_UPDATE_STOPPED);
    signal(pid, nix::sys::signal::Signal::SIGKILL);
    wait_addon(&hub, SEARCH, c::TRUE, WAIT).await;
    assert_ne!(env.pids(&["addon", SEARCH]), vec![pid], "a new process");

    // Disabling an addon removes its agent from the cluster, then its addon object.
    let configs: Api<KlusterletAddonConfig> = Api::namespaced(hub.clone(), "cluster1");
    let off = json!({"spec": {"certPolicyController": {"enabled": false}}});
    configs.patch("cluster1", &PatchParams::default(), &Patch::Merge(&off)).await.expect("disable");
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), "cluster1");
    wait_for(
        works,
        "addon-cert-policy-controller-deploy-0",
        "the cert work to go",
        WAIT,
        |w: Option<&ManifestWork>| w.is_none(),
    )
    .await
    .expect("work gone");
    let deployments: Api<Deployment> = Api::namespaced(target.clone(), ADDON_NS);
    assert!(deployments.get_opt(CERT).await.expect("read").is_none(), "the agent left the cluster with its work");
    wait_for(addons.clone(), CERT, "the cert addon to go", WAIT, |a: Option<&ManagedClusterAddOn>| a.is_none())
        .await
        .expect("addon gone");
    assert!(deployments.get_opt(SEARCH).await.expect("read").is_some(), "the others stay");
    let roles: Api<ClusterRole> = Api::all(target.clone());
    assert!(roles.get_opt("open-cluster-management:addon:cert-policy-controller").await.expect("read").is_none());

    // Detach removes every addon object on both sides.
    ok(env.fleetctl(&["detach", "cluster1", "--yes", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let left = Api::<ManagedClusterAddOn>::all(hub.clone()).list(&ListParams::default()).await.expect("addons");
    assert!(left.items.is_empty(), "{:?}", left.items.iter().map(|a| a.name_any()).collect::<Vec<_>>());
    let namespaces: Api<Namespace> = Api::all(target.clone());
    wait_for(namespaces, ADDON_NS, "the addon namespace to go", WAIT, |n: Option<&Namespace>| n.is_none())
        .await
        .expect("addon namespace gone");
    let addon_roles = roles.list(&ListParams::default().labels(c::LABEL_ADDON_NAME)).await.expect("roles");
    assert!(addon_roles.items.is_empty(), "{:?}", addon_roles.items.iter().map(|r| r.name_any()).collect::<Vec<_>>());
    until("the addon processes stop", || {
        env.pids(&["addon", SEARCH]).is_empty() && env.pids(&["addon", IAM]).is_empty()
    })
    .await;
}

#[tokio::test]
async fn without_fleetctld_beside_it_the_dev_environment_runs_the_in_cluster_roles_in_process() {
    // `cargo run` builds only fleetctl: the binary alone in a folder stands for that.
    let alone = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("tempdir");
    let program = alone.path().join("fleetctl");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_fleetctl"), &program).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_fleetctl"), &program).expect("copy fleetctl");
    }
    let env = DevUp::start_with(&program, 1);
    assert!(env.stderr.contains("fleetctld is not beside fleetctl"), "dev up says so: {}", env.stderr);
    // The import returns once the klusterlet and the addon are Available, so they ran.
    ok(env.fleetctl(&[
        "import",
        "cluster1",
        "--hub-context",
        "hub",
        "--cluster-context",
        "cluster1",
        "--timeout",
        "30s",
        "--addons",
        SEARCH,
    ]));
    // Nothing but the cluster processes runs: every role is a task of theirs.
    assert!(env.pids(&["fleetctld"]).is_empty(), "no fleetctld process: {:?}", env.pids(&["fleetctld"]));
    let servers = env.pids(&["dev", "serve"]);
    assert_eq!(servers.len(), 2, "the hub and cluster1: {servers:?}");
    let log = std::fs::read_to_string(
        env.dir.path().join("logs/cluster1/open-cluster-management-agent-addon_search-collector.log"),
    )
    .expect("the addon's log");
    assert!(log.contains("task://"), "the addon ran as a task: {log}");
}

/// fleetctl's addons are installed the way any OCM addon is: their ClusterManagementAddOn's
/// `installStrategy: Placements` puts the addon on the clusters a Placement decides (the
/// cluster's KlusterletAddonConfig enabling none), and deploys its agent there; the Placement
/// deciding the cluster no more takes it away.
#[tokio::test]
async fn a_fleetctl_addon_installed_by_placements_runs_on_the_decided_cluster_and_leaves_when_not_decided() {
    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    ok(env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let namespace: Namespace = serde_json::from_value(json!({"metadata": {"name": "addons"}})).expect("ns");
    Api::<Namespace>::all(hub.clone()).create(&PostParams::default(), &namespace).await.expect("namespace");
    let binding: fleetctl_api::clusterset::ManagedClusterSetBinding =
        fleetctl_api::clusterset::ManagedClusterSetBinding::of("addons", "default");
    Api::namespaced(hub.clone(), "addons").create(&PostParams::default(), &binding).await.expect("binding");
    let placement: fleetctl_api::placement::Placement = serde_json::from_value(json!({
        "metadata": {"name": "everywhere", "namespace": "addons"}, "spec": {"clusterSets": ["default"]},
    }))
    .expect("placement");
    Api::namespaced(hub.clone(), "addons").create(&PostParams::default(), &placement).await.expect("placement");

    let cmas: Api<fleetctl_api::addon_management::ClusterManagementAddOn> = Api::all(hub.clone());
    let strategy =
        |placements: Value| json!({"spec": {"installStrategy": {"type": "Placements", "placements": placements}}});
    let everywhere = strategy(json!([{"namespace": "addons", "name": "everywhere"}]));
    cmas.patch(SEARCH, &PatchParams::default(), &Patch::Merge(&everywhere)).await.expect("install strategy");
    let placed = wait_addon(&hub, SEARCH, c::TRUE, WAIT).await;
    assert!(
        placed.metadata.owner_references.iter().flatten().any(|o| o.kind == "ClusterManagementAddOn"),
        "made by its install strategy: {:?}",
        placed.metadata.owner_references
    );
    let config: KlusterletAddonConfig =
        Api::namespaced(hub.clone(), "cluster1").get("cluster1").await.expect("the cluster's config");
    assert!(!config.spec.search_collector.enabled, "the config enables none");
    let deployments: Api<Deployment> = Api::namespaced(env.client("cluster1").await, ADDON_NS);
    deployments.get(SEARCH).await.expect("the addon's agent runs on the cluster");

    cmas.patch(SEARCH, &PatchParams::default(), &Patch::Merge(&strategy(json!([])))).await.expect("no placement");
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(hub.clone(), "cluster1");
    wait_for(addons, SEARCH, "the addon gone", WAIT, |a: Option<&ManagedClusterAddOn>| a.is_none())
        .await
        .expect("uninstalled");
    wait_for(deployments, SEARCH, "the agent gone from the cluster", WAIT, |d: Option<&Deployment>| d.is_none())
        .await
        .expect("the agent removed");
}

/// An AddOnDeploymentConfig configures fleetctl's addon agents as upstream's addon framework
/// applies one: the ClusterManagementAddOn's default config gives the agent its settings
/// (`customizedVariables`) and its Pods' tolerations (`nodePlacement`), and a change of the
/// config rolls the agent.
#[tokio::test]
async fn an_addon_deployment_config_gives_the_agent_its_settings_and_placement_and_its_changes_roll_it() {
    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    ok(env.fleetctl(&[
        "import",
        "cluster1",
        "--hub-context",
        "hub",
        "--cluster-context",
        "cluster1",
        "--addons",
        CERT,
    ]));
    let configs: Api<fleetctl_api::addon::v1alpha1::AddOnDeploymentConfig> = Api::namespaced(hub.clone(), "cluster1");
    let config = serde_json::from_value(json!({
        "metadata": {"name": "cert-config", "namespace": "cluster1"},
        "spec": {"customizedVariables": [{"name": "minimumDuration", "value": "720h"}],
                 "nodePlacement": {"tolerations": [{"key": "infra", "operator": "Exists", "effect": "NoSchedule"}]}},
    }))
    .expect("a config");
    configs.create(&PostParams::default(), &config).await.expect("the config");
    let default = json!({"spec": {"supportedConfigs": [{"group": "addon.open-cluster-management.io",
        "resource": "addondeploymentconfigs", "defaultConfig": {"namespace": "cluster1", "name": "cert-config"}}]}});
    let cmas: Api<fleetctl_api::addon_management::ClusterManagementAddOn> = Api::all(hub.clone());
    cmas.patch(CERT, &PatchParams::default(), &Patch::Merge(&default)).await.expect("the default config");

    let deployments: Api<Deployment> = Api::namespaced(env.client("cluster1").await, ADDON_NS);
    let args = |d: &Deployment| -> Vec<String> {
        d.spec
            .as_ref()
            .and_then(|s| s.template.spec.as_ref())
            .map(|p| p.containers[0].args.clone().unwrap_or_default())
            .unwrap_or_default()
    };
    let configured = wait_for(
        deployments.clone(),
        CERT,
        "the agent with its config's settings",
        WAIT,
        move |d: Option<&Deployment>| d.is_some_and(|d| args(d).contains(&"--window=720h".to_string())),
    )
    .await
    .expect("configured")
    .expect("present");
    let pod = configured.spec.and_then(|s| s.template.spec).expect("pod");
    assert_eq!(pod.tolerations.unwrap_or_default()[0].key.as_deref(), Some("infra"), "its config's node placement");

    let changed = json!({"spec": {"customizedVariables": [{"name": "minimumDuration", "value": "48h"}]}});
    configs.patch("cert-config", &PatchParams::default(), &Patch::Merge(&changed)).await.expect("changed");
    wait_for(deployments, CERT, "the agent rolled with the config's change", WAIT, move |d: Option<&Deployment>| {
        d.is_some_and(|d| args(d).contains(&"--window=48h".to_string()))
    })
    .await
    .expect("rolled");
}

/// A ManagedClusterAddOn written by someone else — here as `clusteradm addon enable` writes
/// it, in v1beta1 — installs fleetctl's addon as upstream's `Manual` strategy installs any
/// addon, though the cluster's KlusterletAddonConfig does not enable it; deleting it (as
/// `clusteradm addon disable` does) removes the agent.
#[tokio::test]
async fn a_managed_cluster_addon_written_by_hand_installs_the_addon_and_its_deletion_removes_it() {
    let env = DevUp::start(1);
    let hub = env.client("hub").await;
    ok(env.fleetctl(&["import", "cluster1", "--hub-context", "hub", "--cluster-context", "cluster1"]));
    let resource = kube::api::ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk("addon.open-cluster-management.io", "v1beta1", "ManagedClusterAddOn"),
        "managedclusteraddons",
    );
    let beta: Api<kube::api::DynamicObject> = Api::namespaced_with(hub.clone(), "cluster1", &resource);
    let by_hand = serde_json::from_value(json!({
        "apiVersion": "addon.open-cluster-management.io/v1beta1", "kind": "ManagedClusterAddOn",
        "metadata": {"name": IAM, "namespace": "cluster1",
                     "annotations": {"addon.open-cluster-management.io/v1alpha1-install-namespace": ADDON_NS}},
        "spec": {},
    }))
    .expect("an addon");
    beta.create(&PostParams::default(), &by_hand).await.expect("written by hand");
    let deployments: Api<Deployment> = Api::namespaced(env.client("cluster1").await, ADDON_NS);
    wait_for(deployments.clone(), IAM, "the agent of the addon written by hand", WAIT, |d: Option<&Deployment>| {
        d.is_some()
    })
    .await
    .expect("installed");
    let addons: Api<ManagedClusterAddOn> = Api::namespaced(hub.clone(), "cluster1");
    let written = addons.get(IAM).await.expect("still there");
    assert!(
        !written.labels().contains_key(fleetctl_api::conditions::LABEL_ADDON_ENABLED_BY_CONFIG),
        "not the config's: {:?}",
        written.labels()
    );
    beta.delete(IAM, &Default::default()).await.expect("deleted by hand");
    wait_for(deployments, IAM, "the agent gone", WAIT, |d: Option<&Deployment>| d.is_none()).await.expect("removed");
}
