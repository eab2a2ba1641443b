//! Deployments: the defaults of `apps/v1` (`SetDefaults_Deployment`) and of the pod
//! template (`SetDefaults_PodSpec`, `_Container`, `_Probe`, `_ContainerPort`), and the
//! checks of `ValidateDeployment`: a selector that matches the template's labels, at
//! least one container with an image, replicas not negative, an immutable selector.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentStrategy, RollingUpdateDeployment};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec, Probe};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as LabelSelectorSpec;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use super::super::selector::LabelSelector;
use super::super::status::Cause;
use super::Strategy;

/// The Deployment strategy.
pub struct Deployments;

fn typed(object: &Value) -> Option<Deployment> {
    serde_json::from_value(object.clone()).ok()
}

/// Rewrites `object` with the Deployment defaults; a body that does not decode is
/// left for validation (and strict decoding) to report.
fn with_defaults(object: &mut Value) {
    let Some(mut deployment) = typed(object) else { return };
    default_deployment(&mut deployment);
    super::retyped(&deployment, object);
}

fn default_deployment(deployment: &mut Deployment) {
    let Some(spec) = deployment.spec.as_mut() else { return };
    spec.replicas.get_or_insert(1);
    spec.revision_history_limit.get_or_insert(10);
    spec.progress_deadline_seconds.get_or_insert(600);
    let strategy = spec.strategy.get_or_insert_with(DeploymentStrategy::default);
    let kind = strategy.type_.get_or_insert_with(|| "RollingUpdate".to_string());
    if kind == "RollingUpdate" {
        let rolling = strategy.rolling_update.get_or_insert_with(RollingUpdateDeployment::default);
        rolling.max_surge.get_or_insert_with(|| IntOrString::String("25%".to_string()));
        rolling.max_unavailable.get_or_insert_with(|| IntOrString::String("25%".to_string()));
    }
    if let Some(pod) = spec.template.spec.as_mut() {
        default_pod_spec(pod);
    }
}

/// `SetDefaults_PodSpec` and what it calls for each container.
pub fn default_pod_spec(pod: &mut PodSpec) {
    pod.restart_policy.get_or_insert_with(|| "Always".to_string());
    pod.dns_policy.get_or_insert_with(|| "ClusterFirst".to_string());
    pod.scheduler_name.get_or_insert_with(|| "default-scheduler".to_string());
    pod.termination_grace_period_seconds.get_or_insert(30);
    pod.security_context.get_or_insert_with(Default::default);
    for container in pod.containers.iter_mut().chain(pod.init_containers.iter_mut().flatten()) {
        default_container(container);
    }
}

fn default_container(container: &mut Container) {
    if container.image_pull_policy.is_none() {
        container.image_pull_policy = Some(pull_policy(container.image.as_deref().unwrap_or_default()).to_string());
    }
    container.termination_message_path.get_or_insert_with(|| "/dev/termination-log".to_string());
    container.termination_message_policy.get_or_insert_with(|| "File".to_string());
    for port in container.ports.iter_mut().flatten() {
        port.protocol.get_or_insert_with(|| "TCP".to_string());
    }
    for probe in [&mut container.liveness_probe, &mut container.readiness_probe, &mut container.startup_probe]
        .into_iter()
        .flatten()
    {
        default_probe(probe);
    }
}

/// `Always` for `:latest` or untagged images, else `IfNotPresent` (a digest counts as a tag).
fn pull_policy(image: &str) -> &'static str {
    let last = image.rsplit('/').next().unwrap_or(image);
    let tag = if last.contains('@') { Some("digest") } else { last.split_once(':').map(|(_, t)| t) };
    match tag {
        None | Some("latest") => "Always",
        Some(_) => "IfNotPresent",
    }
}

fn default_probe(probe: &mut Probe) {
    probe.timeout_seconds.get_or_insert(1);
    probe.period_seconds.get_or_insert(10);
    probe.success_threshold.get_or_insert(1);
    probe.failure_threshold.get_or_insert(3);
    if let Some(http) = probe.http_get.as_mut() {
        http.scheme.get_or_insert_with(|| "HTTP".to_string());
        http.path.get_or_insert_with(|| "/".to_string());
    }
}

fn validate(deployment: &Deployment) -> Vec<Cause> {
    let mut causes = Vec::new();
    let Some(spec) = &deployment.spec else {
        return vec![Cause::new("FieldValueRequired", "spec", "Required value")];
    };
    if let Some(replicas) = spec.replicas.filter(|r| *r < 0) {
        causes.push(Cause::new(
            "FieldValueInvalid",
            "spec.replicas",
            format!("Invalid value: {replicas}: must be greater than or equal to 0"),
        ));
    }
    causes.extend(validate_template(&spec.selector, &spec.template, "deployment"));
    causes
}

/// `ValidatePodTemplateSpecForReplicaSet`'s part every workload shares: a selector, which
/// the template's labels match, and at least one container, each with an image.
pub(super) fn validate_template(selector: &LabelSelectorSpec, template: &PodTemplateSpec, kind: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    let labels = template.metadata.as_ref().and_then(|m| m.labels.clone()).unwrap_or_default();
    let empty = selector.match_labels.as_ref().is_none_or(|m| m.is_empty())
        && selector.match_expressions.as_ref().is_none_or(|e| e.is_empty());
    if empty {
        causes.push(Cause::new(
            "FieldValueInvalid",
            "spec.selector",
            format!("Invalid value: empty selector is invalid for {kind}"),
        ));
    } else {
        let label_map: serde_json::Map<String, Value> =
            labels.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        let matches = LabelSelector::from_typed(selector).is_ok_and(|s| s.matches(Some(&label_map)));
        if !matches {
            causes.push(Cause::new(
                "FieldValueInvalid",
                "spec.template.metadata.labels",
                format!("Invalid value: {labels:?}: `selector` does not match template `labels`"),
            ));
        }
    }
    match &template.spec {
        Some(pod) if !pod.containers.is_empty() => {
            for (i, container) in pod.containers.iter().enumerate() {
                if container.image.as_deref().is_none_or(str::is_empty) {
                    causes.push(Cause::new(
                        "FieldValueRequired",
                        format!("spec.template.spec.containers[{i}].image"),
                        "Required value",
                    ));
                }
            }
        }
        _ => causes.push(Cause::new("FieldValueRequired", "spec.template.spec.containers", "Required value")),
    }
    causes
}

impl Strategy for Deployments {
    fn prepare_create(&self, object: &mut Value) {
        with_defaults(object);
    }

    fn prepare_update(&self, _old: &Value, new: &mut Value) {
        with_defaults(new);
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        typed(object).map(|d| validate(&d)).unwrap_or_default()
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        let mut causes = self.validate_create(new);
        if old["spec"]["selector"] != new["spec"]["selector"] {
            causes.push(Cause::new(
                "FieldValueInvalid",
                "spec.selector",
                format!("Invalid value: {}: field is immutable", new["spec"]["selector"]),
            ));
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment(image: &str, labels: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": image, "ports": [{"containerPort": 80}],
                    "readinessProbe": {"httpGet": {"port": 80}}}]}}}})
    }

    #[test]
    fn set_defaults_deployment_and_pod_template_fill_what_upstream_fills() {
        let mut d = deployment("nginx", json!({"app": "web"}));
        Deployments.prepare_create(&mut d);
        let spec = &d["spec"];
        assert_eq!(spec["replicas"], 1);
        assert_eq!(spec["revisionHistoryLimit"], 10);
        assert_eq!(spec["progressDeadlineSeconds"], 600);
        assert_eq!(
            spec["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
        );
        let pod = &spec["template"]["spec"];
        assert_eq!((pod["restartPolicy"].as_str(), pod["dnsPolicy"].as_str()), (Some("Always"), Some("ClusterFirst")));
        assert_eq!(pod["terminationGracePeriodSeconds"], 30);
        let c = &pod["containers"][0];
        assert_eq!(c["imagePullPolicy"], "Always", "untagged images are pulled always");
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(c["ports"][0]["protocol"], "TCP");
        assert_eq!(c["readinessProbe"]["timeoutSeconds"], 1);
        assert_eq!(c["readinessProbe"]["httpGet"]["scheme"], "HTTP");
        assert_eq!(pull_policy("registry:5000/app:1.2"), "IfNotPresent");
        assert_eq!(pull_policy("registry:5000/app"), "Always");
        assert_eq!(pull_policy("app@sha256:abc"), "IfNotPresent");
    }

    #[test]
    fn validate_deployment_needs_matching_labels_containers_and_a_fixed_selector() {
        let ok = deployment("nginx", json!({"app": "web"}));
        assert!(Deployments.validate_create(&ok).is_empty());
        let mismatch = Deployments.validate_create(&deployment("nginx", json!({"app": "db"})));
        assert!(mismatch[0].message.contains("`selector` does not match template `labels`"));
        let no_image = Deployments.validate_create(&deployment("", json!({"app": "web"})));
        assert_eq!(no_image[0].field, "spec.template.spec.containers[0].image");
        let mut moved = ok.clone();
        moved["spec"]["selector"] = json!({"matchLabels": {"app": "web", "v": "2"}});
        moved["spec"]["template"]["metadata"]["labels"] = json!({"app": "web", "v": "2"});
        assert!(Deployments.validate_update(&ok, &moved).iter().any(|c| c.message.ends_with("field is immutable")));
    }
}
