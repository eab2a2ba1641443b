//! Small builders for the Kubernetes objects fleetctl renders — metadata, RBAC, namespaces,
//! service accounts, secrets — as typed k8s-openapi structs, so that a renderer is a pure
//! function that cannot fail.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Capabilities, Container, ContainerPort, EnvVar, EnvVarSource, HTTPGetAction, Namespace, ObjectFieldSelector,
    PodSpec, PodTemplateSpec, Probe, ResourceRequirements, Secret, SecurityContext, ServiceAccount,
};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// The API group of RBAC objects.
pub const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// Labels (or annotations) from pairs.
pub fn labels<const N: usize>(pairs: [(&str, &str); N]) -> BTreeMap<String, String> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Metadata of a cluster-scoped object.
pub fn meta(name: &str) -> ObjectMeta {
    ObjectMeta { name: Some(name.to_string()), ..ObjectMeta::default() }
}

/// Metadata of a namespaced object.
pub fn namespaced_meta(namespace: &str, name: &str) -> ObjectMeta {
    ObjectMeta { namespace: Some(namespace.to_string()), ..meta(name) }
}

/// Builders that add to metadata.
pub trait MetaExt {
    /// With these labels (added to any there are).
    #[must_use]
    fn with_labels(self, labels: BTreeMap<String, String>) -> Self;
    /// With these annotations (added to any there are).
    #[must_use]
    fn with_annotations(self, annotations: BTreeMap<String, String>) -> Self;
}

impl MetaExt for ObjectMeta {
    fn with_labels(mut self, labels: BTreeMap<String, String>) -> Self {
        self.labels.get_or_insert_with(BTreeMap::new).extend(labels);
        self
    }

    fn with_annotations(mut self, annotations: BTreeMap<String, String>) -> Self {
        self.annotations.get_or_insert_with(BTreeMap::new).extend(annotations);
        self
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A rule allowing `verbs` on `resources` of `groups`.
pub fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
    PolicyRule {
        api_groups: Some(strings(groups)),
        resources: Some(strings(resources)),
        verbs: strings(verbs),
        ..PolicyRule::default()
    }
}

/// A rule allowing `verbs` on the objects `names` of `resources` of `groups`.
pub fn named_rule(groups: &[&str], resources: &[&str], names: &[&str], verbs: &[&str]) -> PolicyRule {
    PolicyRule { resource_names: Some(strings(names)), ..rule(groups, resources, verbs) }
}

/// A ServiceAccount as an RBAC subject.
pub fn service_account_subject(namespace: &str, name: &str) -> Subject {
    Subject {
        kind: "ServiceAccount".into(),
        name: name.into(),
        namespace: Some(namespace.into()),
        ..Subject::default()
    }
}

/// A group as an RBAC subject.
pub fn group_subject(group: &str) -> Subject {
    Subject { api_group: Some(RBAC_GROUP.into()), kind: "Group".into(), name: group.into(), ..Subject::default() }
}

fn role_ref(kind: &str, name: &str) -> RoleRef {
    RoleRef { api_group: RBAC_GROUP.into(), kind: kind.into(), name: name.into() }
}

/// A ClusterRole.
pub fn cluster_role(meta: ObjectMeta, rules: Vec<PolicyRule>) -> ClusterRole {
    ClusterRole { metadata: meta, rules: Some(rules), ..ClusterRole::default() }
}

/// A ClusterRoleBinding of the ClusterRole `role`.
pub fn cluster_role_binding(meta: ObjectMeta, role: &str, subjects: Vec<Subject>) -> ClusterRoleBinding {
    ClusterRoleBinding { metadata: meta, role_ref: role_ref("ClusterRole", role), subjects: Some(subjects) }
}

/// A Role.
pub fn role(meta: ObjectMeta, rules: Vec<PolicyRule>) -> Role {
    Role { metadata: meta, rules: Some(rules) }
}

/// A RoleBinding of the Role `role`.
pub fn role_binding(meta: ObjectMeta, role: &str, subjects: Vec<Subject>) -> RoleBinding {
    RoleBinding { metadata: meta, role_ref: role_ref("Role", role), subjects: Some(subjects) }
}

/// A RoleBinding of the ClusterRole `role`, in one namespace.
pub fn role_binding_to_cluster_role(meta: ObjectMeta, role: &str, subjects: Vec<Subject>) -> RoleBinding {
    RoleBinding { metadata: meta, role_ref: role_ref("ClusterRole", role), subjects: Some(subjects) }
}

/// A Namespace.
pub fn namespace(meta: ObjectMeta) -> Namespace {
    Namespace { metadata: meta, ..Namespace::default() }
}

/// A ServiceAccount.
pub fn service_account(meta: ObjectMeta) -> ServiceAccount {
    ServiceAccount { metadata: meta, ..ServiceAccount::default() }
}

/// An Opaque Secret holding text values.
pub fn opaque_secret(meta: ObjectMeta, values: BTreeMap<String, String>) -> Secret {
    Secret {
        metadata: meta,
        type_: Some("Opaque".into()),
        data: Some(values.into_iter().map(|(k, v)| (k, ByteString(v.into_bytes()))).collect()),
        ..Secret::default()
    }
}

/// A variable with a value.
pub fn env(name: &str, value: &str) -> EnvVar {
    EnvVar { name: name.into(), value: Some(value.into()), ..EnvVar::default() }
}

/// A variable set from a field of the pod (`metadata.namespace`, …).
pub fn env_from_field(name: &str, field_path: &str) -> EnvVar {
    let field = ObjectFieldSelector { field_path: field_path.into(), ..ObjectFieldSelector::default() };
    EnvVar {
        name: name.into(),
        value_from: Some(EnvVarSource { field_ref: Some(field), ..EnvVarSource::default() }),
        ..EnvVar::default()
    }
}

/// An HTTP GET probe of `path` on `port`.
pub fn http_probe(path: &str, port: u16, initial_delay_seconds: Option<i32>, period_seconds: i32) -> Probe {
    Probe {
        http_get: Some(HTTPGetAction {
            path: Some(path.into()),
            port: IntOrString::Int(i32::from(port)),
            ..HTTPGetAction::default()
        }),
        initial_delay_seconds,
        period_seconds: Some(period_seconds),
        ..Probe::default()
    }
}

/// A named container port.
pub fn container_port(name: &str, port: u16) -> ContainerPort {
    ContainerPort { name: Some(name.into()), container_port: i32::from(port), ..ContainerPort::default() }
}

/// Resource requests of `cpu` and `memory`.
pub fn requests(cpu: &str, memory: &str) -> ResourceRequirements {
    ResourceRequirements {
        requests: Some(BTreeMap::from([
            ("cpu".to_string(), Quantity(cpu.into())),
            ("memory".to_string(), Quantity(memory.into())),
        ])),
        ..ResourceRequirements::default()
    }
}

/// What every fleetctl container runs with: no privilege escalation, a read-only root,
/// a non-root user, no capabilities.
pub fn restricted() -> SecurityContext {
    SecurityContext {
        allow_privilege_escalation: Some(false),
        read_only_root_filesystem: Some(true),
        run_as_non_root: Some(true),
        capabilities: Some(Capabilities { drop: Some(vec!["ALL".into()]), ..Capabilities::default() }),
        ..SecurityContext::default()
    }
}

/// A container of `image` running with `args` (the image's entrypoint), restricted.
pub fn container(name: &str, image: &str, args: Vec<String>) -> Container {
    Container {
        name: name.into(),
        image: Some(image.into()),
        args: Some(args),
        security_context: Some(restricted()),
        ..Container::default()
    }
}

/// A one-replica Deployment of `pod`, selecting and labelling its pods `app: <app>` (and
/// `pod_labels` beside it).
pub fn deployment(meta: ObjectMeta, app: &str, pod_labels: BTreeMap<String, String>, pod: PodSpec) -> Deployment {
    let selector = labels([("app", app)]);
    let mut template_labels = selector.clone();
    template_labels.extend(pod_labels);
    Deployment {
        metadata: meta,
        spec: Some(DeploymentSpec {
            replicas: Some(1),
            selector: LabelSelector { match_labels: Some(selector), ..LabelSelector::default() },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta { labels: Some(template_labels), ..ObjectMeta::default() }),
                spec: Some(pod),
            },
            ..DeploymentSpec::default()
        }),
        ..Deployment::default()
    }
}

/// A typed object as the JSON document of a manifest (`apiVersion` and `kind` included,
/// as k8s-openapi and kube-derive write them).
pub fn document<K: serde::Serialize>(object: &K) -> serde_json::Value {
    // The one place a typed object becomes JSON: its fields are strings, numbers, booleans
    // and maps keyed by strings, which JSON always holds.
    #[allow(clippy::expect_used)]
    serde_json::to_value(object).expect("a Kubernetes object is representable as JSON")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rbac_objects_read_as_their_manifests() {
        let meta = meta("r").with_labels(labels([("a", "b")]));
        let role = cluster_role(meta.clone(), vec![named_rule(&[""], &["secrets"], &["s"], &["get"])]);
        let value = document(&role);
        assert_eq!(
            value,
            serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "r", "labels": {"a": "b"}},
                "rules": [{"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s"], "verbs": ["get"]}]})
        );
        let binding = cluster_role_binding(meta, "r", vec![service_account_subject("ns", "sa"), group_subject("g")]);
        let value = document(&binding);
        assert_eq!(value["roleRef"], serde_json::json!({"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "r"}));
        assert_eq!(
            value["subjects"][0],
            serde_json::json!({"kind": "ServiceAccount", "name": "sa", "namespace": "ns"})
        );
        assert_eq!(value["subjects"][1]["apiGroup"], RBAC_GROUP);
    }
}
