//! What the node simulator reports, computed without I/O: which images it runs, the
//! template hash, container environments, Pod objects and their status, and the
//! Deployment status a deployment controller plus kubelet would write.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentCondition, DeploymentStatus};
use k8s_openapi::api::core::v1::{Container, EnvVar};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The label every Pod the simulator creates carries, valued with the node's name, so
/// that a restarted simulator can find and remove the Pods of processes that are gone.
pub const NODE_LABEL: &str = "fleetctl.io/node";

/// The label upstream's ReplicaSets put on their Pods.
pub const TEMPLATE_HASH_LABEL: &str = "pod-template-hash";

/// The address every simulated Pod reports (its processes run on this machine).
pub const POD_IP: &str = "127.0.0.1";

/// Whether an image is the fleetctl image: its repository's last path segment is
/// `fleetctl`, whatever the registry, tag or digest.
pub fn is_fleetctl_image(image: &str) -> bool {
    let without_digest = image.split('@').next().unwrap_or_default();
    // A tag follows the last ':' only when no '/' comes after it (else it is a registry port).
    let repository = match without_digest.rfind(':') {
        Some(colon) if !without_digest[colon..].contains('/') => &without_digest[..colon],
        _ => without_digest,
    };
    repository.rsplit('/').next() == Some("fleetctl")
}

/// A short hash of the Pod template: the `pod-template-hash` label, and how the
/// simulator tells that a Deployment's Pods must be replaced.
pub fn template_hash(deployment: &Deployment) -> String {
    let template = deployment.spec.as_ref().map(|s| serde_json::to_vec(&s.template).unwrap_or_default());
    let digest = Sha256::digest(template.unwrap_or_default());
    digest.iter().take(5).map(|b| format!("{b:02x}")).collect()
}

/// The replicas a Deployment asks for (1 when unset, as upstream defaults it).
pub fn desired_replicas(deployment: &Deployment) -> usize {
    let replicas = deployment.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    usize::try_from(replicas).unwrap_or(0)
}

/// The containers of a Deployment's Pod template.
pub fn containers(deployment: &Deployment) -> Vec<Container> {
    deployment.spec.as_ref().and_then(|s| s.template.spec.as_ref()).map(|s| s.containers.clone()).unwrap_or_default()
}

/// The ServiceAccount the Pods run as (`default` when unset, as upstream admission sets it).
pub fn service_account(deployment: &Deployment) -> String {
    deployment
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.service_account_name.clone().or_else(|| s.service_account.clone()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "default".to_string())
}

/// What a Pod's downward API (`valueFrom.fieldRef`) can read.
#[derive(Debug, Clone)]
pub struct PodFields {
    /// `metadata.namespace`.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.uid`.
    pub uid: String,
    /// `spec.serviceAccountName`.
    pub service_account: String,
    /// `spec.nodeName`.
    pub node: String,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
}

impl PodFields {
    fn field(&self, path: &str) -> Option<String> {
        let label =
            |p: &str| p.strip_prefix("metadata.labels['").and_then(|r| r.strip_suffix("']")).map(str::to_string);
        match path {
            "metadata.namespace" => Some(self.namespace.clone()),
            "metadata.name" => Some(self.name.clone()),
            "metadata.uid" => Some(self.uid.clone()),
            "spec.serviceAccountName" => Some(self.service_account.clone()),
            "spec.nodeName" => Some(self.node.clone()),
            "status.podIP" | "status.hostIP" => Some(POD_IP.to_string()),
            _ => label(path).and_then(|key| self.labels.get(&key).cloned()),
        }
    }
}

/// The environment a container declares, resolved: literal values (with `$(VAR)`
/// references to earlier variables expanded, as the kubelet does) and `fieldRef`s.
/// Sources the simulator cannot read (secrets, config maps, resources) are left out,
/// and their names returned so the caller can say so.
pub fn container_env(env: &[EnvVar], pod: &PodFields) -> (Vec<(String, String)>, Vec<String>) {
    let mut resolved: Vec<(String, String)> = Vec::new();
    let mut skipped = Vec::new();
    for var in env {
        let value = match (&var.value, &var.value_from) {
            (Some(value), _) => Some(expand(value, &resolved)),
            (None, Some(from)) => from.field_ref.as_ref().and_then(|f| pod.field(&f.field_path)),
            (None, None) => Some(String::new()),
        };
        match value {
            Some(value) => {
                resolved.retain(|(name, _)| name != &var.name);
                resolved.push((var.name.clone(), value));
            }
            None => skipped.push(var.name.clone()),
        }
    }
    (resolved, skipped)
}

/// Expands `$(NAME)` with the given variables; `$$(` stands for a literal `$(`, and a
/// reference to an unknown variable stays as written (upstream's rules).
pub fn expand(text: &str, vars: &[(String, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(escaped) = after.strip_prefix("$(") {
            out.push_str("$(");
            rest = escaped;
        } else if let Some(reference) = after.strip_prefix('(')
            && let Some(end) = reference.find(')')
        {
            let name = &reference[..end];
            match vars.iter().rev().find(|(n, _)| n == name) {
                Some((_, value)) => out.push_str(value),
                None => out.push_str(&rest[at..at + 1 + 1 + end + 1]),
            }
            rest = &reference[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The Pod object for one replica of a Deployment (its status is written separately,
/// through the status subresource).
pub fn pod_object(deployment: &Deployment, name: &str, hash: &str, node: &str) -> Value {
    let template = deployment.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default();
    let template_meta = template.metadata.unwrap_or_default();
    let mut labels = template_meta.labels.unwrap_or_default();
    labels.insert(TEMPLATE_HASH_LABEL.to_string(), hash.to_string());
    labels.insert(NODE_LABEL.to_string(), node.to_string());
    let mut spec = serde_json::to_value(template.spec.unwrap_or_default()).unwrap_or_else(|_| json!({}));
    spec["nodeName"] = json!(node);
    spec["serviceAccountName"] = json!(service_account(deployment));
    let mut metadata = json!({
        "name": name,
        "namespace": deployment.metadata.namespace,
        "labels": labels,
        "ownerReferences": [{
            "apiVersion": "apps/v1", "kind": "Deployment",
            "name": deployment.metadata.name, "uid": deployment.metadata.uid,
            "controller": true, "blockOwnerDeletion": true,
        }],
    });
    if let Some(annotations) = template_meta.annotations.filter(|a| !a.is_empty()) {
        metadata["annotations"] = json!(annotations);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
}

/// How one container of a simulated Pod is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerState {
    /// The container's name.
    pub name: String,
    /// Its image.
    pub image: String,
    /// Running, or why not.
    pub phase: ContainerPhase,
    /// How often it was restarted.
    pub restart_count: i32,
    /// `process://<pid>`, `task://<n>` or `simulated://…`: what runs it.
    pub container_id: Option<String>,
    /// How the previous run ended: exit code, finish time.
    pub last_exit: Option<(i32, String)>,
}

/// The state of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerPhase {
    /// Not started yet, or between restarts, with upstream's reason
    /// (`ContainerCreating`, `CrashLoopBackOff`, `CreateContainerConfigError`).
    Waiting(String),
    /// Running since the given time.
    Running(String),
}

impl ContainerState {
    /// A container about to be created.
    pub fn new(container: &Container) -> Self {
        Self {
            name: container.name.clone(),
            image: container.image.clone().unwrap_or_default(),
            phase: ContainerPhase::Waiting("ContainerCreating".to_string()),
            restart_count: 0,
            container_id: None,
            last_exit: None,
        }
    }

    /// Whether it is running (the simulator has no readiness probes: running is ready).
    pub fn ready(&self) -> bool {
        matches!(self.phase, ContainerPhase::Running(_))
    }

    fn status(&self) -> Value {
        let state = match &self.phase {
            ContainerPhase::Waiting(reason) => json!({"waiting": {"reason": reason}}),
            ContainerPhase::Running(since) => json!({"running": {"startedAt": since}}),
        };
        let mut status = json!({
            "name": self.name, "image": self.image, "imageID": self.image,
            "ready": self.ready(), "started": self.ready(),
            "restartCount": self.restart_count, "state": state,
            "lastState": {},
        });
        if let Some(id) = &self.container_id {
            status["containerID"] = json!(id);
        }
        if let Some((code, finished)) = &self.last_exit {
            let reason = if *code == 0 { "Completed" } else { "Error" };
            status["lastState"] = json!({"terminated": {"exitCode": code, "reason": reason, "finishedAt": finished}});
        }
        status
    }
}

/// A Pod's status: always scheduled on the simulated node and Running; Ready when all
/// its containers run.
pub fn pod_status(containers: &[ContainerState], start_time: &str) -> Value {
    let ready = !containers.is_empty() && containers.iter().all(ContainerState::ready);
    let flag = if ready { "True" } else { "False" };
    let condition = |kind: &str, status: &str| json!({"type": kind, "status": status});
    json!({
        "phase": "Running",
        "conditions": [
            condition("PodScheduled", "True"),
            condition("Initialized", "True"),
            condition("ContainersReady", flag),
            condition("Ready", flag),
        ],
        "hostIP": POD_IP,
        "podIP": POD_IP,
        "podIPs": [{"ip": POD_IP}],
        "startTime": start_time,
        "containerStatuses": containers.iter().map(ContainerState::status).collect::<Vec<_>>(),
    })
}

/// What the Deployment's Pods look like, for its status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PodCounts {
    /// Pods that exist (old and new template).
    pub total: usize,
    /// Pods of the current template.
    pub updated: usize,
    /// Pods whose containers all run.
    pub ready: usize,
    /// Ready pods of the current template.
    pub updated_ready: usize,
}

/// The fewest available Pods at which a Deployment counts as Available:
/// replicas − maxUnavailable (default 25%, rounded down, as upstream).
pub fn min_available(deployment: &Deployment) -> usize {
    let desired = desired_replicas(deployment);
    let max_unavailable = deployment
        .spec
        .as_ref()
        .and_then(|s| s.strategy.as_ref())
        .filter(|s| s.type_.as_deref() != Some("Recreate"))
        .and_then(|s| s.rolling_update.as_ref())
        .and_then(|r| r.max_unavailable.clone())
        .unwrap_or(IntOrString::String("25%".to_string()));
    let unavailable = match max_unavailable {
        IntOrString::Int(n) => usize::try_from(n).unwrap_or(0),
        IntOrString::String(s) => {
            let percent: usize = s.trim_end_matches('%').parse().unwrap_or(25);
            desired * percent / 100
        }
    };
    desired.saturating_sub(unavailable)
}

fn count(n: usize) -> Option<i32> {
    Some(i32::try_from(n).unwrap_or(i32::MAX))
}

/// The status a deployment controller would write for these Pods. Condition times
/// are kept from `previous` while a condition's status stays, so an unchanged
/// situation gives an identical status and no write.
pub fn deployment_status(deployment: &Deployment, pods: PodCounts, now: Time) -> DeploymentStatus {
    let desired = desired_replicas(deployment);
    let available = pods.ready;
    let name = deployment.metadata.name.clone().unwrap_or_default();
    let previous = deployment.status.as_ref().and_then(|s| s.conditions.clone()).unwrap_or_default();
    let condition = |kind: &str, ok: bool, reason: &str, message: String| {
        let status = if ok { "True" } else { "False" };
        let before = previous.iter().find(|c| c.type_ == kind);
        let transition = before.filter(|c| c.status == status).and_then(|c| c.last_transition_time.clone());
        let update = before
            .filter(|c| {
                c.status == status && c.reason.as_deref() == Some(reason) && c.message.as_deref() == Some(&message)
            })
            .and_then(|c| c.last_update_time.clone());
        DeploymentCondition {
            type_: kind.to_string(),
            status: status.to_string(),
            reason: Some(reason.to_string()),
            message: Some(message),
            last_transition_time: Some(transition.unwrap_or_else(|| now.clone())),
            last_update_time: Some(update.unwrap_or_else(|| now.clone())),
        }
    };
    let is_available = available >= min_available(deployment);
    let available_condition = if is_available {
        condition("Available", true, "MinimumReplicasAvailable", "Deployment has minimum availability.".to_string())
    } else {
        condition(
            "Available",
            false,
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.".to_string(),
        )
    };
    let hash = template_hash(deployment);
    let complete = pods.updated == desired && pods.updated_ready == desired && pods.total == desired;
    let progressing = if complete {
        condition(
            "Progressing",
            true,
            "NewReplicaSetAvailable",
            format!("ReplicaSet \"{name}-{hash}\" has successfully progressed."),
        )
    } else {
        condition("Progressing", true, "ReplicaSetUpdated", format!("ReplicaSet \"{name}-{hash}\" is progressing."))
    };
    DeploymentStatus {
        observed_generation: deployment.metadata.generation,
        replicas: count(pods.total),
        updated_replicas: count(pods.updated),
        ready_replicas: count(pods.ready),
        available_replicas: count(available),
        unavailable_replicas: count(desired.saturating_sub(available)),
        terminating_replicas: None,
        collision_count: deployment.status.as_ref().and_then(|s| s.collision_count),
        conditions: Some(vec![available_condition, progressing]),
    }
}

/// Whether the status already written says the same (times included).
pub fn same_status(current: Option<&DeploymentStatus>, computed: &DeploymentStatus) -> bool {
    let normalise = |s: &DeploymentStatus| {
        let mut s = s.clone();
        for field in [
            &mut s.replicas,
            &mut s.updated_replicas,
            &mut s.ready_replicas,
            &mut s.available_replicas,
            &mut s.unavailable_replicas,
        ] {
            if field.is_none() {
                *field = Some(0);
            }
        }
        s
    };
    current.is_some_and(|c| normalise(c) == normalise(computed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(value: Value) -> Deployment {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_fleetctl_image_is_known_by_its_repository() {
        for image in [
            "quay.io/fleetctl/fleetctl:0.1.0",
            "fleetctl",
            "fleetctl:dev",
            "localhost:5000/fleetctl",
            "x/fleetctl@sha256:ab",
        ] {
            assert!(is_fleetctl_image(image), "{image}");
        }
        for image in
            ["quay.io/fleetctl/other:1", "nginx", "fleetctl-agent:1", "localhost:5000/x:fleetctl", "fleetctl/nginx"]
        {
            assert!(!is_fleetctl_image(image), "{image}");
        }
    }

    #[test]
    fn env_resolves_values_field_refs_and_references() {
        let env: Vec<EnvVar> = serde_json::from_value(json!([
            {"name": "A", "value": "a"},
            {"name": "NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
            {"name": "B", "value": "$(A)-$(NS)-$(NOPE)-$$(A)"},
            {"name": "SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
            {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
        ]))
        .unwrap();
        let pod = PodFields {
            namespace: "ns1".into(),
            name: "p".into(),
            uid: "u".into(),
            service_account: "sa".into(),
            node: "n".into(),
            labels: [("app".to_string(), "web".to_string())].into(),
        };
        let (resolved, skipped) = container_env(&env, &pod);
        assert_eq!(
            resolved,
            [("A", "a"), ("NS", "ns1"), ("B", "a-ns1-$(NOPE)-$(A)"), ("APP", "web")]
                .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert_eq!(skipped, ["SECRET"]);
    }

    #[test]
    fn availability_follows_max_unavailable() {
        let d = |replicas: i32, max: Value| {
            deployment(json!({"spec": {"replicas": replicas, "selector": {}, "template": {},
                "strategy": {"rollingUpdate": {"maxUnavailable": max}}}}))
        };
        assert_eq!(min_available(&d(1, json!("25%"))), 1);
        assert_eq!(min_available(&d(4, json!("25%"))), 3);
        assert_eq!(min_available(&d(4, json!(2))), 2);
        assert_eq!(min_available(&d(0, json!("25%"))), 0);
    }

    #[test]
    fn status_reports_what_runs_and_keeps_times_while_nothing_changes() {
        let mut d = deployment(json!({"metadata": {"name": "web", "generation": 3},
            "spec": {"replicas": 2, "selector": {}, "template": {}}}));
        let t1 = Time(jiff::Timestamp::from_second(1_000).unwrap());
        let t2 = Time(jiff::Timestamp::from_second(2_000).unwrap());
        let down = deployment_status(&d, PodCounts { total: 2, updated: 2, ready: 0, updated_ready: 0 }, t1.clone());
        let available = &down.conditions.as_ref().unwrap()[0];
        assert_eq!(
            (available.status.as_str(), available.reason.as_deref()),
            ("False", Some("MinimumReplicasUnavailable"))
        );
        assert_eq!(down.observed_generation, Some(3));
        d.status = Some(down);
        let up = PodCounts { total: 2, updated: 2, ready: 2, updated_ready: 2 };
        let running = deployment_status(&d, up, t2.clone());
        let conditions = running.conditions.clone().unwrap();
        assert_eq!(conditions[0].status, "True");
        assert_eq!(conditions[0].last_transition_time, Some(t2.clone()));
        assert_eq!(conditions[1].reason.as_deref(), Some("NewReplicaSetAvailable"));
        assert_eq!(
            (running.ready_replicas, running.available_replicas, running.unavailable_replicas),
            (Some(2), Some(2), Some(0))
        );
        d.status = Some(running.clone());
        let again = deployment_status(&d, up, Time(jiff::Timestamp::from_second(3_000).unwrap()));
        assert!(same_status(d.status.as_ref(), &again), "nothing changed, nothing to write");
    }

    #[test]
    fn pods_carry_template_labels_owner_and_node() {
        let d = deployment(json!({"metadata": {"name": "web", "namespace": "ns", "uid": "u1"},
            "spec": {"selector": {}, "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}));
        let pod = pod_object(&d, "web-abc-xyz", "abc", "node1");
        assert_eq!(pod["metadata"]["labels"]["app"], "web");
        assert_eq!(pod["metadata"]["labels"][TEMPLATE_HASH_LABEL], "abc");
        assert_eq!(pod["metadata"]["ownerReferences"][0]["uid"], "u1");
        assert_eq!(pod["spec"]["nodeName"], "node1");
        assert_eq!(pod["spec"]["serviceAccountName"], "default");
        let mut c = ContainerState::new(&d.spec.unwrap().template.spec.unwrap().containers[0]);
        assert_eq!(pod_status(std::slice::from_ref(&c), "t")["conditions"][3]["status"], "False");
        c.phase = ContainerPhase::Running("t".into());
        let status = pod_status(&[c], "t");
        assert_eq!(status["conditions"][3]["status"], "True");
        assert_eq!(status["containerStatuses"][0]["ready"], true);
        assert_eq!(status["podIP"], POD_IP);
    }

    #[test]
    fn the_template_hash_changes_with_the_template_only() {
        let a = deployment(
            json!({"spec": {"replicas": 1, "selector": {}, "template": {"metadata": {"labels": {"a": "1"}}}}}),
        );
        let b = deployment(
            json!({"spec": {"replicas": 3, "selector": {}, "template": {"metadata": {"labels": {"a": "1"}}}}}),
        );
        let c = deployment(
            json!({"spec": {"replicas": 1, "selector": {}, "template": {"metadata": {"labels": {"a": "2"}}}}}),
        );
        assert_eq!(template_hash(&a), template_hash(&b));
        assert_ne!(template_hash(&a), template_hash(&c));
    }
}
