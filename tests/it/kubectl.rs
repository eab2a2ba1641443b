//! kubectl against `fleetctl dev serve`.
//!
//! Each test starts its own server (on a free port) and runs the installed kubectl
//! against it; without kubectl the tests say so and pass.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::Value;

use crate::support::kubectl::{DevServe, kubectl_available};

/// A server to test against, or `None` (after saying so) when kubectl is missing.
fn cluster() -> Option<DevServe> {
    if !kubectl_available() {
        return None;
    }
    Some(DevServe::start())
}

/// A namespaced CRD with a status subresource, a schema default, a short name and
/// printer columns.
const WIDGET_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
              color:
                type: string
                default: blue
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color, priority: 1}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
"#;

fn widget(name: &str, size: u32) -> String {
    format!("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\nspec:\n  size: {size}\n")
}

/// Installs the Widget CRD and waits until it is established.
fn install_widgets(k: &DevServe) {
    k.apply(WIDGET_CRD);
    k.ok(&["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=10s"]);
}

/// A Deployment `web` with containers `app` (env MODE=`mode`) and `sidecar`, and
/// `extra_labels` (YAML lines under metadata.labels).
fn deployment(mode: &str, extra_labels: &str) -> String {
    format!(
        r"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
{extra_labels}spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: nginx:1.27
        env:
        - name: MODE
          value: {mode}
      - name: sidecar
        image: busybox:1.36
"
    )
}

fn config_map(name: &str, labels: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\n")
}

/// The ConfigMap a controller publishes in every namespace, as upstream's does (so
/// it appears some time after the namespace).
const ROOT_CA: &str = "kube-root-ca.crt";

/// The names kubectl lists for `args` (a `get` without output flags), less [`ROOT_CA`].
fn names(k: &DevServe, args: &[&str]) -> BTreeSet<String> {
    let mut args = args.to_vec();
    args.push("-o=jsonpath={.items[*].metadata.name}");
    k.ok(&args).split_whitespace().filter(|n| *n != ROOT_CA).map(str::to_string).collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

fn generation(object: &Value) -> i64 {
    object["metadata"]["generation"].as_i64().expect("metadata.generation")
}

/// The env of `container` in a Deployment, as (name, value) pairs.
fn env_of(deployment: &Value, container: &str) -> BTreeSet<(String, String)> {
    let containers = deployment["spec"]["template"]["spec"]["containers"].as_array().expect("containers");
    let found = containers
        .iter()
        .find(|c| c["name"] == container)
        .unwrap_or_else(|| panic!("container {container} in {containers:?}"));
    found["env"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (e["name"].as_str().unwrap_or_default().to_string(), e["value"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn the_kubeconfig_is_written_readable_by_its_owner_only() {
    let Some(k) = cluster() else { return };
    let mode = std::fs::metadata(k.kubeconfig()).expect("kubeconfig exists").permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let namespaces = names(&k, &["get", "namespaces"]);
    assert!(namespaces.contains("default"), "{namespaces:?}");
}

#[test]
fn client_side_apply_creates_a_crd_then_its_resources_and_reapplies_only_what_changed() {
    let Some(k) = cluster() else { return };
    let manifest = format!("{WIDGET_CRD}---\n{}---\n{}", widget("first", 1), widget("second", 2));

    // As against kube-apiserver: kubectl maps every document before applying any,
    // so the custom resources fail until the CRD exists.
    let first = k.kubectl_with_stdin(&["apply", "-f", "-"], &manifest);
    let stdout = String::from_utf8_lossy(&first.stdout);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(!first.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("customresourcedefinition.apiextensions.k8s.io/widgets.example.com created"), "{stdout}");
    assert!(stderr.contains("ensure CRDs are installed first"), "{stderr}");
    assert_eq!(k.json(&["get", "crd", "widgets.example.com"])["spec"]["names"]["shortNames"][0], "wd");
    assert!(names(&k, &["get", "widgets"]).is_empty());

    let second = k.apply(&manifest);
    assert!(second.contains("customresourcedefinition.apiextensions.k8s.io/widgets.example.com unchanged"), "{second}");
    assert!(second.contains("widget.example.com/first created"), "{second}");
    assert!(second.contains("widget.example.com/second created"), "{second}");
    assert_eq!(names(&k, &["get", "wd"]), set(&["first", "second"]));
    let first_widget = k.json(&["get", "wd", "first"]);
    assert_eq!(first_widget["spec"]["size"], 1);
    assert_eq!(first_widget["spec"]["color"], "blue", "the schema default");

    let edited = manifest.replace("size: 2", "size: 3");
    let third = k.apply(&edited);
    assert!(third.contains("widget.example.com/first unchanged"), "{third}");
    assert!(third.contains("widget.example.com/second configured"), "{third}");
    let second_widget = k.json(&["get", "wd", "second"]);
    assert_eq!(second_widget["spec"]["size"], 3);
    assert_eq!(second_widget["spec"]["color"], "blue");
    assert_eq!(generation(&second_widget), 2);
    assert_eq!(generation(&k.json(&["get", "wd", "first"])), 1);
}

#[test]
fn server_side_apply_updates_a_deployment_and_bumps_generation_only_for_spec_changes() {
    let Some(k) = cluster() else { return };
    let out = k.ok_with_stdin(&["apply", "--server-side", "-f", "-"], &deployment("one", ""));
    assert!(out.contains("deployment.apps/web serverside-applied"), "{out}");
    let created = k.json(&["get", "deployment", "web", "--show-managed-fields"]);
    assert_eq!(generation(&created), 1);
    assert_eq!(env_of(&created, "app"), BTreeSet::from([("MODE".into(), "one".into())]));
    let managers: Vec<(&str, &str)> = created["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields")
        .iter()
        .map(|m| (m["manager"].as_str().unwrap_or_default(), m["operation"].as_str().unwrap_or_default()))
        .collect();
    assert!(managers.contains(&("kubectl", "Apply")), "{managers:?}");

    let out = k.ok_with_stdin(&["apply", "--server-side", "-f", "-"], &deployment("two", ""));
    assert!(out.contains("deployment.apps/web serverside-applied"), "{out}");
    let changed = k.json(&["get", "deployment", "web"]);
    assert_eq!(generation(&changed), 2);
    assert_eq!(env_of(&changed, "app"), BTreeSet::from([("MODE".into(), "two".into())]));

    let out = k.ok_with_stdin(&["apply", "--server-side", "-f", "-"], &deployment("two", "    tier: front\n"));
    assert!(out.contains("deployment.apps/web serverside-applied"), "{out}");
    let relabelled = k.json(&["get", "deployment", "web"]);
    assert_eq!(relabelled["metadata"]["labels"]["tier"], "front");
    assert_ne!(relabelled["metadata"]["resourceVersion"], changed["metadata"]["resourceVersion"]);
    assert_eq!(generation(&relabelled), 2, "a label is not spec");
}

/// kubectl's migration from client-side to server-side apply (`migrateToSSAIfNecessary`):
/// the server-side apply keeps what other managers own, the JSON patch of
/// `metadata.managedFields` moves the client-side manager's fields to the new manager
/// without changing the object, and kubectl then sends its apply again "so that dropped
/// fields are finally removed" — the end state of a client-side apply of the same file.
#[test]
fn server_side_apply_after_client_side_apply_moves_ownership_then_drops_what_the_file_left_out() {
    let Some(k) = cluster() else { return };
    let first = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: moved\n  namespace: default\n  labels: {l1: x}\ndata: {a: '1', b: '2'}\n";
    let second = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: moved\n  namespace: default\ndata: {a: '1'}\n";
    k.apply(first);
    let out = k.ok_with_stdin(&["apply", "--server-side", "--field-manager=newmgr", "-f", "-"], second);
    assert!(out.contains("configmap/moved serverside-applied"), "{out}");
    let moved = k.json(&["get", "configmap", "moved", "--show-managed-fields"]);
    assert_eq!(moved["data"], serde_json::json!({"a": "1"}), "{moved}");
    assert!(moved["metadata"]["labels"].get("l1").is_none(), "{moved}");
    let managers: Vec<&str> = moved["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields")
        .iter()
        .filter_map(|m| m["manager"].as_str())
        .collect();
    assert_eq!(managers, ["newmgr"], "the client-side manager's fields moved to the new one");
}

#[test]
fn get_prints_json_and_yaml_with_the_server_set_metadata() {
    let Some(k) = cluster() else { return };
    k.apply(&config_map("settings", "app: demo"));

    let json = k.json(&["get", "configmap", "settings"]);
    let yaml_text = k.ok(&["get", "configmap", "settings", "-o", "yaml"]);
    let yaml: Value = serde_yaml::from_str(&yaml_text).expect("kubectl printed YAML");
    assert_eq!(json, yaml, "the same object either way");

    let meta = &json["metadata"];
    assert_eq!(meta["name"], "settings");
    assert_eq!(meta["namespace"], "default");
    assert_eq!(meta["labels"]["app"], "demo");
    uuid::Uuid::parse_str(meta["uid"].as_str().expect("uid")).expect("uid is a UUID");
    let rv: u64 = meta["resourceVersion"]
        .as_str()
        .expect("resourceVersion is a string")
        .parse()
        .expect("resourceVersion is a number");
    assert!(rv > 0);
    meta["creationTimestamp"]
        .as_str()
        .expect("creationTimestamp")
        .parse::<jiff::Timestamp>()
        .expect("creationTimestamp is RFC 3339");

    let list = k.json(&["get", "configmaps", "-l", "app=demo"]);
    let items = list["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{list}");
    assert_eq!(items[0]["metadata"]["uid"], meta["uid"]);
}

#[test]
fn label_selectors_pick_exactly_the_matching_objects() {
    let Some(k) = cluster() else { return };
    let manifest = [
        config_map("a", "env: prod, tier: web"),
        config_map("b", "env: dev, tier: db"),
        config_map("c", "env: staging"),
        config_map("d", "tier: web"),
        config_map("e", ""),
    ]
    .join("---\n");
    k.apply(&manifest);

    let cases: [(&str, &[&str]); 9] = [
        ("env=prod", &["a"]),
        ("env==prod", &["a"]),
        ("env!=prod", &["b", "c", "d", "e"]),
        ("env in (prod,dev)", &["a", "b"]),
        ("env notin (prod,dev)", &["c", "d", "e"]),
        ("tier", &["a", "b", "d"]),
        ("!tier", &["c", "e"]),
        ("env,!tier", &["c"]),
        ("tier=web,env notin (prod)", &["d"]),
    ];
    for (selector, expected) in cases {
        assert_eq!(names(&k, &["get", "configmaps", "-l", selector]), set(expected), "selector {selector:?}");
    }
}

#[test]
fn a_watch_sees_changes_made_after_it_started() {
    let Some(k) = cluster() else { return };
    k.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\ndata:\n  v: before\n");
    let mut watch = k.stream(&["get", "configmaps", "--watch", r#"-o=jsonpath={.metadata.name}={.data.v}{"\n"}"#]);
    let within = Duration::from_secs(10);
    watch.until(within, |line| line == "watched=before");

    k.ok(&["patch", "configmap", "watched", "--type=merge", "-p", r#"{"data":{"v":"after"}}"#]);
    watch.until(within, |line| line == "watched=after");

    k.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: newcomer\ndata:\n  v: new\n");
    watch.until(within, |line| line == "newcomer=new");
}

/// The rows of `kubectl get` output, each split into its columns.
fn table(output: &str) -> Vec<Vec<String>> {
    output.lines().map(|l| l.split_whitespace().map(str::to_string).collect()).collect()
}

#[test]
fn get_prints_the_printer_columns_of_a_custom_resource_and_watches_them() {
    let Some(k) = cluster() else { return };
    install_widgets(&k);
    k.apply(&widget("small", 2));
    report_ready(&k, "small", 1);
    let rows = table(&k.ok(&["get", "widgets"]));
    assert_eq!(rows[0], ["NAME", "SIZE", "READY", "AGE"]);
    assert_eq!(rows[1][..3], ["small", "2", "True"]);
    assert!(rows[1][3].ends_with('s'), "an age: {:?}", rows[1]);
    let wide = table(&k.ok(&["get", "widgets", "-o", "wide"]));
    assert_eq!(wide[0], ["NAME", "SIZE", "COLOR", "READY", "AGE"]);
    assert_eq!(wide[1][2], "blue", "the schema default, in the wide-only column");
    let labelled = table(&k.ok(&["get", "widget", "small", "--show-labels"]));
    assert_eq!(labelled[0].last().map(String::as_str), Some("LABELS"));

    let mut watch = k.stream(&["get", "widgets", "--watch"]);
    let within = Duration::from_secs(10);
    watch.until(within, |line| line.split_whitespace().collect::<Vec<_>>() == ["NAME", "SIZE", "READY", "AGE"]);
    watch.until(within, |line| line.starts_with("small "));
    k.ok(&["patch", "widget", "small", "--type=merge", "-p", r#"{"spec":{"size":5}}"#]);
    watch.until(within, |line| line.split_whitespace().take(3).collect::<Vec<_>>() == ["small", "5", "True"]);
}

/// Sets a widget's status: condition Ready=True observed at `observed`.
fn report_ready(k: &DevServe, name: &str, observed: i64) {
    let status = format!(
        r#"{{"status":{{"observedGeneration":{observed},"conditions":[{{"type":"Ready","status":"True","reason":"Done","message":"ready"}}]}}}}"#
    );
    let out = k.ok(&["patch", "widget", name, "--subresource=status", "--type=merge", "-p", &status]);
    assert!(out.contains(&format!("widget.example.com/{name} patched")), "{out}");
}

#[test]
fn wait_for_ready_succeeds_when_the_status_reports_the_current_generation() {
    let Some(k) = cluster() else { return };
    install_widgets(&k);
    k.apply(&widget("ready", 1));
    report_ready(&k, "ready", 1);
    let object = k.json(&["get", "widget", "ready"]);
    assert_eq!(generation(&object), 1, "a status write is not a spec change");
    assert_eq!(object["status"]["conditions"][0]["type"], "Ready");

    let out = k.ok(&["wait", "widget/ready", "--for=condition=Ready", "--timeout=10s"]);
    assert!(out.contains("widget.example.com/ready condition met"), "{out}");
}

#[test]
fn wait_for_ready_times_out_while_observed_generation_lags() {
    let Some(k) = cluster() else { return };
    install_widgets(&k);
    k.apply(&widget("lagging", 1));
    k.apply(&widget("lagging", 2));
    assert_eq!(generation(&k.json(&["get", "widget", "lagging"])), 2);
    report_ready(&k, "lagging", 1);

    let err = k.fails(&["wait", "widget/lagging", "--for=condition=Ready", "--timeout=1s"]);
    assert!(err.contains("timed out waiting for the condition"), "{err}");

    report_ready(&k, "lagging", 2);
    let out = k.ok(&["wait", "widget/lagging", "--for=condition=Ready", "--timeout=10s"]);
    assert!(out.contains("condition met"), "{out}");
}

#[test]
fn merge_and_json_patches_change_a_deployment_and_a_failed_test_op_changes_nothing() {
    let Some(k) = cluster() else { return };
    k.apply(&deployment("one", ""));

    let out = k.ok(&[
        "patch",
        "deployment",
        "web",
        "--type=merge",
        "-p",
        r#"{"spec":{"replicas":3},"metadata":{"annotations":{"team":"blue"}}}"#,
    ]);
    assert!(out.contains("deployment.apps/web patched"), "{out}");
    let merged = k.json(&["get", "deployment", "web"]);
    assert_eq!(merged["spec"]["replicas"], 3);
    assert_eq!(merged["metadata"]["annotations"]["team"], "blue");

    k.ok(&[
        "patch",
        "deployment",
        "web",
        "--type=json",
        "-p",
        r#"[{"op":"test","path":"/spec/replicas","value":3},{"op":"replace","path":"/spec/replicas","value":4},{"op":"add","path":"/metadata/labels/patched","value":"json"}]"#,
    ]);
    let patched = k.json(&["get", "deployment", "web"]);
    assert_eq!(patched["spec"]["replicas"], 4);
    assert_eq!(patched["metadata"]["labels"]["patched"], "json");

    let err = k.fails(&[
        "patch",
        "deployment",
        "web",
        "--type=json",
        "-p",
        r#"[{"op":"test","path":"/spec/replicas","value":3},{"op":"replace","path":"/spec/replicas","value":5}]"#,
    ]);
    assert!(err.contains("test"), "{err}");
    let unchanged = k.json(&["get", "deployment", "web"]);
    // The deployment controller may write the status meanwhile: the object's own fields
    // and its generation are what the failed patch must leave as they were.
    assert_eq!(unchanged["spec"], patched["spec"]);
    assert_eq!(unchanged["metadata"]["labels"], patched["metadata"]["labels"]);
    assert_eq!(unchanged["metadata"]["generation"], patched["metadata"]["generation"]);
}

#[test]
fn a_strategic_patch_merges_a_container_env_list_by_name() {
    let Some(k) = cluster() else { return };
    k.apply(&deployment("one", ""));

    let out = k.ok(&[
        "patch",
        "deployment",
        "web",
        "-p",
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"MODE","value":"two"},{"name":"EXTRA","value":"x"}]}]}}}}"#,
    ]);
    assert!(out.contains("deployment.apps/web patched"), "{out}");
    let patched = k.json(&["get", "deployment", "web"]);
    assert_eq!(env_of(&patched, "app"), BTreeSet::from([("MODE".into(), "two".into()), ("EXTRA".into(), "x".into())]));
    let containers = patched["spec"]["template"]["spec"]["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 2, "{containers:?}");
    let image = |name: &str| containers.iter().find(|c| c["name"] == name).map(|c| c["image"].clone());
    assert_eq!(image("app"), Some("nginx:1.27".into()));
    assert_eq!(image("sidecar"), Some("busybox:1.36".into()));
    assert_eq!(generation(&patched), 2);
}

/// A ValidatingWebhookConfiguration `guards` with webhooks `a.guards.example.com` and
/// `b.guards.example.com`, the second checking `b_resources`.
fn webhooks(b_resources: &str) -> String {
    let webhook = |name: &str, resources: &str| {
        format!(
            r"- name: {name}.guards.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Ignore
  clientConfig:
    service: {{namespace: default, name: guard, path: /{name}}}
  rules:
  - {{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [{resources}]}}
"
        )
    };
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: guards\nwebhooks:\n{}{}",
        webhook("a", "widgets"),
        webhook("b", b_resources)
    )
}

#[test]
fn a_second_kubectl_apply_merges_webhooks_by_their_patch_merge_key_name() {
    let Some(k) = cluster() else { return };
    k.apply(&webhooks("gadgets"));

    // kubectl sends `$setElementOrder/webhooks` with the changed webhook alone: the server
    // must match list elements by `name`, the Go field's patchMergeKey.
    let out = k.apply(&webhooks("gizmos"));
    assert!(out.contains("validatingwebhookconfiguration.admissionregistration.k8s.io/guards configured"), "{out}");
    let applied = k.json(&["get", "validatingwebhookconfiguration", "guards"]);
    let webhooks = applied["webhooks"].as_array().expect("webhooks");
    let names: Vec<&str> = webhooks.iter().filter_map(|w| w["name"].as_str()).collect();
    assert_eq!(names, ["a.guards.example.com", "b.guards.example.com"]);
    let resources = |webhook: &Value| webhook["rules"][0]["resources"].clone();
    assert_eq!(resources(&webhooks[0]), serde_json::json!(["widgets"]));
    // `rules` has no patch strategy: replaced whole, not merged with the old resources.
    assert_eq!(resources(&webhooks[1]), serde_json::json!(["gizmos"]));
    assert_eq!(webhooks[1]["clientConfig"]["service"]["path"], "/b");
}

#[test]
fn a_strategic_patch_of_a_custom_resource_is_refused_as_unsupported() {
    let Some(k) = cluster() else { return };
    install_widgets(&k);
    k.apply(&widget("plain", 1));

    let err = k.fails(&["patch", "widget", "plain", "-p", r#"{"spec":{"size":9}}"#]);
    assert!(err.contains("application/strategic-merge-patch+json is not supported"), "{err}");
    assert_eq!(k.json(&["get", "widget", "plain"])["spec"]["size"], 1);

    k.ok(&["patch", "widget", "plain", "--type=merge", "-p", r#"{"spec":{"size":9}}"#]);
    assert_eq!(k.json(&["get", "widget", "plain"])["spec"]["size"], 9);
}

#[test]
fn label_and_annotate_add_overwrite_and_remove_keys() {
    let Some(k) = cluster() else { return };
    k.apply(&config_map("tagged", ""));
    let metadata = |k: &DevServe| k.json(&["get", "configmap", "tagged"])["metadata"].clone();

    for (verb, field) in [("label", "labels"), ("annotate", "annotations")] {
        let out = k.ok(&[verb, "configmap", "tagged", "color=red"]);
        assert!(out.contains("configmap/tagged"), "{out}");
        assert_eq!(metadata(&k)[field]["color"], "red");

        let err = k.fails(&[verb, "configmap", "tagged", "color=green"]);
        assert!(err.contains("--overwrite is false"), "{err}");
        assert_eq!(metadata(&k)[field]["color"], "red");

        k.ok(&[verb, "configmap", "tagged", "color=green", "--overwrite"]);
        assert_eq!(metadata(&k)[field]["color"], "green");

        k.ok(&[verb, "configmap", "tagged", "shape=round"]);
        k.ok(&[verb, "configmap", "tagged", "color-"]);
        let meta = metadata(&k);
        assert!(meta[field].get("color").is_none(), "{verb}: {meta}");
        assert_eq!(meta[field]["shape"], "round", "{verb}: {meta}");
    }
}

/// The (name, uid) of each of an object's ownerReferences.
fn owners(object: &Value) -> Vec<(String, String)> {
    object["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (r["name"].as_str().unwrap_or_default().to_string(), r["uid"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

/// ConfigMaps `owner` and `keeper` (their uids returned), and dependents of `owner`:
/// `dep-a` (blocking the owner's deletion), `dep-b`, and, when `shared`, `dep-shared`,
/// which `keeper` owns too.
fn owner_with_dependents(k: &DevServe, shared: bool) -> (String, String) {
    k.apply(&format!("{}---\n{}", config_map("owner", ""), config_map("keeper", "")));
    let uid = |name: &str| k.ok(&["get", "configmap", name, "-o=jsonpath={.metadata.uid}"]);
    let owner = uid("owner");
    let keeper = uid("keeper");
    assert!(!owner.is_empty() && !keeper.is_empty());
    let reference = |name: &str, uid: &str, block: bool| {
        format!("{{apiVersion: v1, kind: ConfigMap, name: {name}, uid: {uid}, blockOwnerDeletion: {block}}}")
    };
    let dependent = |name: &str, refs: &[String]| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  ownerReferences: [{}]\n",
            refs.join(", ")
        )
    };
    let mut dependents = vec![
        dependent("dep-a", &[reference("owner", &owner, true)]),
        dependent("dep-b", &[reference("owner", &owner, false)]),
    ];
    if shared {
        dependents
            .push(dependent("dep-shared", &[reference("owner", &owner, false), reference("keeper", &keeper, false)]));
    }
    k.apply(&dependents.join("---\n"));
    for name in ["dep-a", "dep-b"] {
        assert_eq!(owners(&k.json(&["get", "configmap", name])), [("owner".to_string(), owner.clone())]);
    }
    (owner, keeper)
}

/// Waits until `dep-shared`, owned by `owner` and `keeper`, refers to `keeper` alone
/// (upstream's garbage collector drops the reference to a deleted owner, and to one
/// deleted in the foreground, from a dependent that still has another owner).
fn wait_for_keeper_alone(k: &DevServe, keeper: &str) {
    k.ok(&[
        "wait",
        "configmap/dep-shared",
        "--for=jsonpath={.metadata.ownerReferences[0].name}=keeper",
        "--timeout=10s",
    ]);
    assert_eq!(owners(&k.json(&["get", "configmap", "dep-shared"])), [("keeper".to_string(), keeper.to_string())]);
}

#[test]
fn foreground_deletion_removes_the_dependents_before_the_owner() {
    let Some(k) = cluster() else { return };
    owner_with_dependents(&k, false);

    let out = k.ok(&["delete", "configmap", "owner", "--cascade=foreground"]);
    assert!(out.contains(r#"configmap "owner" deleted"#), "{out}");
    // kubectl waited for the owner to go, which foreground deletion allows only
    // once the dependent blocking it is gone.
    let err = k.fails(&["get", "configmap", "dep-a"]);
    assert!(err.contains("NotFound"), "{err}");
    k.ok(&["wait", "--for=delete", "configmap/dep-a", "configmap/dep-b", "--timeout=10s"]);
    assert_eq!(names(&k, &["get", "configmaps"]), set(&["keeper"]));
}

#[test]
fn foreground_deletion_keeps_a_dependent_that_has_another_owner() {
    let Some(k) = cluster() else { return };
    let (_, keeper) = owner_with_dependents(&k, true);

    k.ok(&["delete", "configmap", "owner", "--cascade=foreground"]);
    k.ok(&["wait", "--for=delete", "configmap/dep-a", "configmap/dep-b", "--timeout=10s"]);
    wait_for_keeper_alone(&k, &keeper);
    assert_eq!(names(&k, &["get", "configmaps"]), set(&["dep-shared", "keeper"]));
}

#[test]
fn background_deletion_removes_the_dependents_after_the_owner() {
    let Some(k) = cluster() else { return };
    let (_, keeper) = owner_with_dependents(&k, true);

    let out = k.ok(&["delete", "configmap", "owner", "--cascade=background"]);
    assert!(out.contains(r#"configmap "owner" deleted"#), "{out}");
    let err = k.fails(&["get", "configmap", "owner"]);
    assert!(err.contains("NotFound"), "{err}");
    k.ok(&["wait", "--for=delete", "configmap/dep-a", "configmap/dep-b", "--timeout=10s"]);
    wait_for_keeper_alone(&k, &keeper);
    assert_eq!(names(&k, &["get", "configmaps"]), set(&["dep-shared", "keeper"]));
}

#[test]
fn orphan_deletion_keeps_the_dependents_and_strips_their_owner_references() {
    let Some(k) = cluster() else { return };
    let (_, keeper) = owner_with_dependents(&k, true);

    let out = k.ok(&["delete", "configmap", "owner", "--cascade=orphan"]);
    assert!(out.contains(r#"configmap "owner" deleted"#), "{out}");
    // kubectl waited for the owner to go, which happens once its dependents are released.
    let err = k.fails(&["get", "configmap", "owner"]);
    assert!(err.contains("NotFound"), "{err}");
    assert_eq!(names(&k, &["get", "configmaps"]), set(&["dep-a", "dep-b", "dep-shared", "keeper"]));
    for name in ["dep-a", "dep-b"] {
        let dependent = k.json(&["get", "configmap", name]);
        assert!(dependent["metadata"].get("ownerReferences").is_none(), "{dependent}");
    }
    let shared = k.json(&["get", "configmap", "dep-shared"]);
    assert_eq!(owners(&shared), [("keeper".to_string(), keeper)]);
}

#[test]
fn deleting_a_namespace_returns_once_it_and_its_content_are_gone() {
    let Some(k) = cluster() else { return };
    k.apply(
        r"apiVersion: v1
kind: Namespace
metadata:
  name: doomed
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: inside
  namespace: doomed
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: inside
  namespace: doomed
spec:
  selector: {matchLabels: {app: inside}}
  template:
    metadata: {labels: {app: inside}}
    spec:
      containers: [{name: c, image: busybox:1.36}]
",
    );
    assert_eq!(names(&k, &["get", "configmaps", "-n", "doomed"]), set(&["inside"]));

    let out = k.ok(&["delete", "namespace", "doomed", "--timeout=10s"]);
    assert!(out.contains(r#"namespace "doomed" deleted"#), "{out}");
    let err = k.fails(&["get", "namespace", "doomed"]);
    assert!(err.contains("NotFound"), "{err}");
    for kind in ["configmap", "deployment"] {
        let err = k.fails(&["get", kind, "inside", "-n", "doomed"]);
        assert!(err.contains("NotFound"), "{kind}: {err}");
    }
    // What is left is kube-apiserver's own (kube-system/extension-apiserver-authentication).
    assert_eq!(names(&k, &["get", "configmaps", "--all-namespaces"]), set(&["extension-apiserver-authentication"]));
}

/// Namespace `held`, deleted but kept terminating by a finalizer on its ConfigMap `holder`.
fn hold_a_namespace_in_termination(k: &DevServe) {
    k.apply(
        r"apiVersion: v1
kind: Namespace
metadata:
  name: held
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: holder
  namespace: held
  finalizers: [example.com/hold]
",
    );
    let out = k.ok(&["delete", "namespace", "held", "--wait=false"]);
    assert!(out.contains(r#"namespace "held" deleted"#), "{out}");
}

#[test]
fn a_terminating_namespace_refuses_new_content_until_its_last_finalizer_goes() {
    let Some(k) = cluster() else { return };
    hold_a_namespace_in_termination(&k);
    let ns = k.json(&["get", "namespace", "held"]);
    assert_eq!(ns["status"]["phase"], "Terminating", "{ns}");
    assert!(ns["metadata"]["deletionTimestamp"].is_string(), "{ns}");

    let late = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n";
    for verb in ["apply", "create"] {
        let err = k.fails_with_stdin(&[verb, "-n", "held", "-f", "-"], late);
        assert!(
            err.contains("unable to create new content in namespace held because it is being terminated"),
            "{verb}: {err}"
        );
        assert!(err.contains("Forbidden"), "{verb}: {err}");
    }

    k.ok(&[
        "patch",
        "configmap",
        "holder",
        "-n",
        "held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ]);
    k.ok(&["wait", "--for=delete", "namespace/held", "--timeout=10s"]);
    let err = k.fails(&["get", "namespace", "held"]);
    assert!(err.contains("NotFound"), "{err}");
    let err = k.fails(&["get", "configmap", "holder", "-n", "held"]);
    assert!(err.contains("NotFound"), "{err}");
}

#[test]
fn the_refusal_of_content_in_a_terminating_namespace_names_the_resource_and_object() {
    let Some(k) = cluster() else { return };
    hold_a_namespace_in_termination(&k);

    let err = k.fails_with_stdin(
        &["create", "-n", "held", "-f", "-"],
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n",
    );
    assert!(
        err.contains(
            r#"configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated"#
        ),
        "{err}"
    );
}

#[test]
fn api_resources_lists_builtin_and_custom_resources_with_short_names() {
    let Some(k) = cluster() else { return };
    install_widgets(&k);
    let out = k.ok(&["api-resources", "--no-headers"]);
    // NAME SHORTNAMES APIVERSION NAMESPACED KIND (SHORTNAMES may be empty).
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split_whitespace().collect()).collect();
    let row = |name: &str, api_version: &str| {
        rows.iter()
            .find(|r| r.first() == Some(&name) && r.contains(&api_version))
            .unwrap_or_else(|| panic!("no {name} in {api_version}:\n{out}"))
            .clone()
    };
    assert_eq!(row("configmaps", "v1"), ["configmaps", "cm", "v1", "true", "ConfigMap"]);
    assert_eq!(row("deployments", "apps/v1"), ["deployments", "deploy", "apps/v1", "true", "Deployment"]);
    assert_eq!(
        row("customresourcedefinitions", "apiextensions.k8s.io/v1"),
        ["customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1", "false", "CustomResourceDefinition"]
    );
    assert_eq!(row("widgets", "example.com/v1"), ["widgets", "wd", "example.com/v1", "true", "Widget"]);
}

#[test]
fn raw_discovery_and_version_documents_parse() {
    let Some(k) = cluster() else { return };
    let apis: Value = serde_json::from_str(&k.ok(&["get", "--raw", "/apis"])).expect("JSON");
    assert_eq!(apis["kind"], "APIGroupList", "{apis}");
    let apps = apis["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["name"] == "apps")
        .unwrap_or_else(|| panic!("no apps group in {apis}"));
    assert_eq!(apps["preferredVersion"]["groupVersion"], "apps/v1");

    let version: Value = serde_json::from_str(&k.ok(&["get", "--raw", "/version"])).expect("JSON");
    let git_version = version["gitVersion"].as_str().expect("gitVersion");
    assert!(git_version.starts_with("v1."), "{version}");
    assert_eq!(version["major"], "1");
}

#[test]
fn create_configmap_sent_as_protobuf_creates_the_configmap() {
    let Some(k) = cluster() else { return };
    // kubectl sends the ConfigMaps of `create configmap` as protobuf.
    let out = k.ok(&["create", "configmap", "x", "--from-literal=a=b", "--from-literal=c=d"]);
    assert!(out.contains("configmap/x created"), "{out}");
    let created = k.json(&["get", "configmap", "x"]);
    assert_eq!(created["data"], serde_json::json!({"a": "b", "c": "d"}));
    assert_eq!(created["metadata"]["namespace"], "default");
}

#[test]
fn create_deployment_role_binding_and_priorityclass_sent_as_protobuf_are_stored_as_sent() {
    let Some(k) = cluster() else { return };
    // kubectl sends the objects its `create` generators build as protobuf; every built-in kind
    // decodes through the same field tables.
    k.ok(&["create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "--port=80"]);
    let deployment = k.json(&["get", "deployment", "web"]);
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert_eq!(deployment["spec"]["selector"]["matchLabels"], serde_json::json!({"app": "web"}));
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["image"], "nginx:1.27");
    assert_eq!(container["ports"][0]["containerPort"], 80);
    k.ok(&["create", "role", "r1", "--verb=get,list", "--resource=configmaps"]);
    let role = k.json(&["get", "role", "r1"]);
    assert_eq!(
        role["rules"],
        serde_json::json!([{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}])
    );
    k.ok(&["create", "rolebinding", "rb1", "--role=r1", "--serviceaccount=default:bot"]);
    let binding = k.json(&["get", "rolebinding", "rb1"]);
    assert_eq!(
        binding["subjects"],
        serde_json::json!([{"kind": "ServiceAccount", "name": "bot", "namespace": "default"}])
    );
    k.ok(&["create", "priorityclass", "high", "--value=1000", "--preemption-policy=Never"]);
    let class = k.json(&["get", "priorityclass", "high"]);
    assert_eq!((class["value"].clone(), class["preemptionPolicy"].clone()), (1000.into(), "Never".into()));
}

#[test]
fn a_server_dry_run_apply_leaves_nothing_behind() {
    let Some(k) = cluster() else { return };
    let ghost = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ghost\ndata:\n  a: b\n";

    let out = k.ok_with_stdin(&["apply", "--dry-run=server", "-f", "-"], ghost);
    assert!(out.contains("configmap/ghost created (server dry run)"), "{out}");
    let out = k.ok_with_stdin(&["apply", "--server-side", "--dry-run=server", "-f", "-"], ghost);
    assert!(out.contains("(server dry run)"), "{out}");

    let err = k.fails(&["get", "configmap", "ghost"]);
    assert!(err.contains("NotFound"), "{err}");
    assert!(names(&k, &["get", "configmaps"]).is_empty());
}
