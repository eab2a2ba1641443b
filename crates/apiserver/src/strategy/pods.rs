//! Pods: what kube-apiserver does to a Pod before it stores it — the defaults of
//! `SetDefaults_Pod` and `SetDefaults_PodSpec`; the admission plugins that fill in a new
//! Pod (ServiceAccount: the `default` account and its `kube-api-access-*` projected volume;
//! DefaultTolerationSeconds); the Pod strategy's status on create (`Pending`, the QoS
//! class); and `ValidatePod` / `ValidatePodUpdate`: containers with names and images, and
//! a spec that an update changes only where upstream allows it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    ConfigMapProjection, Container, DownwardAPIProjection, DownwardAPIVolumeFile, KeyToPath, ObjectFieldSelector, Pod,
    PodSpec, PodStatus, ProjectedVolumeSource, ServiceAccountTokenProjection, Toleration, Volume, VolumeMount,
    VolumeProjection,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde_json::Value;

use super::super::object::random_suffix;
use super::super::status::Cause;
use super::Strategy;
use super::workloads::default_pod_spec;

/// The Pod strategy.
pub struct Pods;

/// Where ServiceAccount admission mounts the token, CA and namespace.
const TOKEN_MOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
/// The prefix of the projected volume it adds.
const TOKEN_VOLUME_PREFIX: &str = "kube-api-access-";
/// The token lifetime it asks the kubelet for (an hour and the kubelet's jitter allowance).
const TOKEN_SECONDS: i64 = 3607;
/// DefaultTolerationSeconds: how long a Pod stays bound to a NotReady or unreachable node.
const TOLERATION_SECONDS: i64 = 300;
const TOLERATED_TAINTS: [&str; 2] = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

const UPDATE_FORBIDDEN: &str = "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,\
`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing \
tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

fn typed(object: &Value) -> Option<Pod> {
    serde_json::from_value(object.clone()).ok()
}

/// `object` rewritten by `change` on its typed form; a body that does not decode is left
/// for validation (and strict decoding) to report.
fn rewrite(object: &mut Value, change: impl FnOnce(&mut Pod)) {
    let Some(mut pod) = typed(object) else { return };
    change(&mut pod);
    *object = fleetctl_kube::objects::document(&pod);
}

/// `SetDefaults_Pod` (requests default to limits; service links on), `SetDefaults_PodSpec`,
/// and the deprecated `serviceAccount` that core/v1 mirrors from `serviceAccountName`.
fn default_pod(pod: &mut Pod) {
    let Some(spec) = pod.spec.as_mut() else { return };
    default_pod_spec(spec);
    spec.enable_service_links.get_or_insert(true);
    for container in spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten()) {
        let Some(resources) = container.resources.as_mut() else { continue };
        let Some(limits) = resources.limits.clone() else { continue };
        let requests = resources.requests.get_or_insert_with(BTreeMap::new);
        for (name, quantity) in limits {
            requests.entry(name).or_insert(quantity);
        }
    }
    if spec.service_account_name.is_some() {
        spec.service_account = spec.service_account_name.clone();
    }
}

/// What the ServiceAccount and DefaultTolerationSeconds admission plugins add to a new Pod.
fn admit(pod: &mut Pod) {
    let Some(spec) = pod.spec.as_mut() else { return };
    if spec.service_account_name.as_deref().is_none_or(str::is_empty) {
        let account = spec.service_account.clone().filter(|a| !a.is_empty()).unwrap_or_else(|| "default".into());
        spec.service_account_name = Some(account.clone());
        spec.service_account = Some(account);
    }
    if spec.automount_service_account_token != Some(false) {
        mount_token(spec);
    }
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    for taint in TOLERATED_TAINTS {
        let tolerated = tolerations.iter().any(|t| {
            let key_matches =
                t.key.as_deref() == Some(taint) || (t.key.is_none() && t.operator.as_deref() == Some("Exists"));
            key_matches && t.effect.as_deref().is_none_or(|e| e.is_empty() || e == "NoExecute")
        });
        if !tolerated {
            tolerations.push(Toleration {
                key: Some(taint.into()),
                operator: Some("Exists".into()),
                effect: Some("NoExecute".into()),
                toleration_seconds: Some(TOLERATION_SECONDS),
                value: None,
            });
        }
    }
}

/// The projected token volume, and its mount in every container that has nothing there.
fn mount_token(spec: &mut PodSpec) {
    let mounted = |c: &Container| c.volume_mounts.iter().flatten().any(|m| m.mount_path == TOKEN_MOUNT);
    let all = spec.containers.iter().chain(spec.init_containers.iter().flatten());
    if all.clone().all(mounted) {
        return;
    }
    let name = format!("{TOKEN_VOLUME_PREFIX}{}", random_suffix());
    spec.volumes.get_or_insert_with(Vec::new).push(token_volume(&name));
    for container in spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten()) {
        if !mounted(container) {
            container.volume_mounts.get_or_insert_with(Vec::new).push(VolumeMount {
                name: name.clone(),
                mount_path: TOKEN_MOUNT.into(),
                read_only: Some(true),
                ..VolumeMount::default()
            });
        }
    }
}

fn token_volume(name: &str) -> Volume {
    let token =
        ServiceAccountTokenProjection { expiration_seconds: Some(TOKEN_SECONDS), path: "token".into(), audience: None };
    let ca = ConfigMapProjection {
        name: "kube-root-ca.crt".into(),
        items: Some(vec![KeyToPath { key: "ca.crt".into(), path: "ca.crt".into(), mode: None }]),
        optional: None,
    };
    let namespace = DownwardAPIProjection {
        items: Some(vec![DownwardAPIVolumeFile {
            path: "namespace".into(),
            field_ref: Some(ObjectFieldSelector {
                api_version: Some("v1".into()),
                field_path: "metadata.namespace".into(),
            }),
            ..DownwardAPIVolumeFile::default()
        }]),
    };
    Volume {
        name: name.into(),
        projected: Some(ProjectedVolumeSource {
            default_mode: Some(0o644),
            sources: Some(vec![
                VolumeProjection { service_account_token: Some(token), ..VolumeProjection::default() },
                VolumeProjection { config_map: Some(ca), ..VolumeProjection::default() },
                VolumeProjection { downward_api: Some(namespace), ..VolumeProjection::default() },
            ]),
        }),
        ..Volume::default()
    }
}

/// The CPU and memory a container requests (or limits), by resource name.
fn compute(container: &Container, limits: bool) -> BTreeMap<&str, &Quantity> {
    const COMPUTE: [&str; 2] = ["cpu", "memory"];
    let resources = container.resources.as_ref();
    let map = resources.and_then(|r| if limits { r.limits.as_ref() } else { r.requests.as_ref() });
    map.into_iter().flatten().filter(|(k, _)| COMPUTE.contains(&k.as_str())).map(|(k, v)| (k.as_str(), v)).collect()
}

/// `GetPodQOS`: Guaranteed when every container limits CPU and memory at what it
/// requests, BestEffort when none asks for either, else Burstable.
fn qos_class(spec: &PodSpec) -> &'static str {
    let containers: Vec<&Container> = spec.containers.iter().chain(spec.init_containers.iter().flatten()).collect();
    if containers.iter().all(|c| compute(c, false).is_empty() && compute(c, true).is_empty()) {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        let limits = compute(c, true);
        limits.len() == 2 && compute(c, false) == limits
    });
    if guaranteed { "Guaranteed" } else { "Burstable" }
}

fn validate(pod: &Pod) -> Vec<Cause> {
    let Some(spec) = &pod.spec else {
        return vec![Cause::new("FieldValueRequired", "spec", "Required value")];
    };
    if spec.containers.is_empty() {
        return vec![Cause::new("FieldValueRequired", "spec.containers", "Required value")];
    }
    let mut causes = Vec::new();
    let mut seen = Vec::new();
    let all = spec.containers.iter().map(|c| ("containers", c));
    let init = spec.init_containers.iter().flatten().map(|c| ("initContainers", c));
    for (index, (list, container)) in all.chain(init).enumerate() {
        let at = |field: &str| format!("spec.{list}[{index}].{field}");
        if container.name.is_empty() {
            causes.push(Cause::new("FieldValueRequired", at("name"), "Required value"));
        } else if seen.contains(&container.name) {
            causes.push(Cause::new(
                "FieldValueDuplicate",
                at("name"),
                format!("Duplicate value: {:?}", container.name),
            ));
        } else {
            seen.push(container.name.clone());
        }
        if container.image.as_deref().is_none_or(str::is_empty) {
            causes.push(Cause::new("FieldValueRequired", at("image"), "Required value"));
        }
    }
    causes
}

/// `ValidatePodUpdate`'s rule for the spec: the new spec with the fields an update may
/// change taken from the old must equal the old. The node a Pod is bound to may be set
/// once (the binding the scheduler makes).
fn validate_spec_update(old: &Pod, new: &Pod) -> Vec<Cause> {
    let (Some(old_spec), Some(new_spec)) = (&old.spec, &new.spec) else { return Vec::new() };
    let mut masked = new_spec.clone();
    for (masked, old) in masked.containers.iter_mut().zip(&old_spec.containers) {
        masked.image.clone_from(&old.image);
    }
    for (masked, old) in masked.init_containers.iter_mut().flatten().zip(old_spec.init_containers.iter().flatten()) {
        masked.image.clone_from(&old.image);
    }
    masked.active_deadline_seconds = old_spec.active_deadline_seconds;
    masked.termination_grace_period_seconds = old_spec.termination_grace_period_seconds;
    if old_spec.node_name.as_deref().is_none_or(str::is_empty) {
        masked.node_name.clone_from(&old_spec.node_name);
    }
    let old_tolerations = old_spec.tolerations.clone().unwrap_or_default();
    let new_tolerations = new_spec.tolerations.clone().unwrap_or_default();
    if new_tolerations.starts_with(&old_tolerations) {
        masked.tolerations.clone_from(&old_spec.tolerations);
    }
    if &masked == old_spec { Vec::new() } else { vec![Cause::new("FieldValueForbidden", "spec", UPDATE_FORBIDDEN)] }
}

impl Strategy for Pods {
    /// Only Pods have a grace period: the one the request asks for, else
    /// `spec.terminationGracePeriodSeconds`; none for a Pod bound to no node or already
    /// finished (no kubelet will end it); a negative one counts as 1. The Pod then stays,
    /// marked, until its kubelet has stopped its containers and deletes it with a grace
    /// period of 0.
    fn deletion_grace(&self, object: &Value, asked: Option<i64>) -> i64 {
        let bound = object["spec"]["nodeName"].as_str().is_some_and(|n| !n.is_empty());
        let finished = matches!(object["status"]["phase"].as_str(), Some("Succeeded" | "Failed"));
        if !bound || finished {
            return 0;
        }
        let grace = asked.or_else(|| object["spec"]["terminationGracePeriodSeconds"].as_i64()).unwrap_or(0);
        if grace < 0 { 1 } else { grace }
    }

    fn prepare_create(&self, object: &mut Value) {
        rewrite(object, |pod| {
            default_pod(pod);
            admit(pod);
            let qos = pod.spec.as_ref().map(qos_class);
            pod.status = Some(PodStatus {
                phase: Some("Pending".into()),
                qos_class: qos.map(String::from),
                ..PodStatus::default()
            });
        });
    }

    fn prepare_update(&self, _old: &Value, new: &mut Value) {
        rewrite(new, default_pod);
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        typed(object).map(|pod| validate(&pod)).unwrap_or_default()
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        let (Some(old), Some(new)) = (typed(old), typed(new)) else { return Vec::new() };
        let mut causes = validate(&new);
        causes.extend(validate_spec_update(&old, &new));
        causes
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn created(pod: Value) -> Value {
        let mut pod = pod;
        Pods.prepare_create(&mut pod);
        pod
    }

    fn bare() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
    }

    #[test]
    fn a_new_pod_gets_upstreams_defaults_its_service_account_and_a_pending_best_effort_status() {
        let pod = created(bare());
        let spec = &pod["spec"];
        assert_eq!(
            (spec["restartPolicy"].as_str(), spec["dnsPolicy"].as_str()),
            (Some("Always"), Some("ClusterFirst"))
        );
        assert_eq!(spec["enableServiceLinks"], true);
        assert_eq!(
            (spec["serviceAccountName"].as_str(), spec["serviceAccount"].as_str()),
            (Some("default"), Some("default"))
        );
        assert_eq!(pod["status"], json!({"phase": "Pending", "qosClass": "BestEffort"}));
        let tolerations = spec["tolerations"].as_array().expect("tolerations");
        assert_eq!(tolerations.len(), 2);
        assert_eq!(
            tolerations[0],
            json!({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})
        );
    }

    #[test]
    fn service_account_admission_projects_the_token_ca_and_namespace_into_every_container() {
        let pod = created(bare());
        let volume = &pod["spec"]["volumes"][0];
        let name = volume["name"].as_str().expect("volume name");
        assert!(name.starts_with("kube-api-access-") && name.len() == "kube-api-access-".len() + 5, "{name}");
        let sources = &volume["projected"]["sources"];
        assert_eq!(sources[0]["serviceAccountToken"], json!({"expirationSeconds": 3607, "path": "token"}));
        assert_eq!(sources[1]["configMap"]["name"], "kube-root-ca.crt");
        assert_eq!(sources[2]["downwardAPI"]["items"][0]["fieldRef"]["fieldPath"], "metadata.namespace");
        assert_eq!(
            pod["spec"]["containers"][0]["volumeMounts"],
            json!([{"name": name, "mountPath": TOKEN_MOUNT, "readOnly": true}])
        );
        let mut opted_out = bare();
        opted_out["spec"]["automountServiceAccountToken"] = json!(false);
        assert!(created(opted_out)["spec"].get("volumes").is_none());
    }

    #[test]
    fn requests_default_to_limits_and_equal_limits_make_a_pod_guaranteed() {
        let mut pod = bare();
        pod["spec"]["containers"][0]["resources"] = json!({"limits": {"cpu": "1", "memory": "1Gi"}});
        let pod = created(pod);
        assert_eq!(pod["spec"]["containers"][0]["resources"]["requests"], json!({"cpu": "1", "memory": "1Gi"}));
        assert_eq!(pod["status"]["qosClass"], "Guaranteed");
        let mut some = bare();
        some["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": "100m"}});
        assert_eq!(created(some)["status"]["qosClass"], "Burstable");
    }

    #[test]
    fn validate_pod_needs_named_unique_containers_with_images() {
        let mut pod = bare();
        pod["spec"]["containers"] = json!([{"name": "c", "image": "a"}, {"name": "c"}]);
        let fields: Vec<String> = Pods.validate_create(&pod).into_iter().map(|c| c.field).collect();
        assert_eq!(fields, ["spec.containers[1].name", "spec.containers[1].image"]);
        pod["spec"]["containers"] = json!([]);
        assert_eq!(Pods.validate_create(&pod)[0].field, "spec.containers");
    }

    #[test]
    fn validate_pod_update_allows_images_deadlines_added_tolerations_and_a_first_binding_only() {
        let old = created(bare());
        let mut image = old.clone();
        image["spec"]["containers"][0]["image"] = json!("nginx:1.28");
        image["spec"]["nodeName"] = json!("node-1");
        image["spec"]["tolerations"]
            .as_array_mut()
            .expect("tolerations")
            .push(json!({"key": "k", "operator": "Exists"}));
        assert_eq!(Pods.validate_update(&old, &image), Vec::new());

        let mut env = old.clone();
        env["spec"]["containers"][0]["env"] = json!([{"name": "A", "value": "1"}]);
        let causes = Pods.validate_update(&old, &env);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec");
        assert!(causes[0].message.starts_with("Forbidden: pod updates may not change fields other than"));

        let mut bound = old.clone();
        bound["spec"]["nodeName"] = json!("node-1");
        let mut moved = bound.clone();
        moved["spec"]["nodeName"] = json!("node-2");
        assert_eq!(Pods.validate_update(&bound, &moved).len(), 1, "a bound Pod stays on its node");
    }
}
