//! The built-in resource types, in one table.

use super::registry::{Origin, ResourceType, Subresources};

const EVENT_FIELDS: &[&str] = &[
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
];
const POD_FIELDS: &[&str] = &["spec.nodeName", "spec.serviceAccountName", "status.phase"];
const SECRET_FIELDS: &[&str] = &["type"];
const CSR_FIELDS: &[&str] = &["spec.signerName"];

/// One row: group, version, kind, plural, short names, namespaced, subresources, generation.
struct Row {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    short: &'static [&'static str],
    namespaced: bool,
    sub: Subresources,
    generation: bool,
    fields: &'static [&'static str],
}

const NONE: Subresources = Subresources { status: false, scale: false, approval: false, token: false, finalize: false };
const STATUS: Subresources = Subresources { status: true, ..NONE };
const SCALE: Subresources = Subresources { scale: true, ..STATUS };

#[rustfmt::skip]
const ROWS: &[Row] = &[
    Row { group: "", version: "v1", kind: "Namespace", plural: "namespaces", short: &["ns"], namespaced: false, sub: Subresources { finalize: true, ..STATUS }, generation: false, fields: &["status.phase"] },
    Row { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", short: &["cm"], namespaced: true, sub: NONE, generation: false, fields: &[] },
    Row { group: "", version: "v1", kind: "Secret", plural: "secrets", short: &[], namespaced: true, sub: NONE, generation: false, fields: SECRET_FIELDS },
    Row { group: "", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", short: &["sa"], namespaced: true, sub: Subresources { token: true, ..NONE }, generation: false, fields: &[] },
    Row { group: "", version: "v1", kind: "Event", plural: "events", short: &["ev"], namespaced: true, sub: NONE, generation: false, fields: EVENT_FIELDS },
    Row { group: "", version: "v1", kind: "Node", plural: "nodes", short: &["no"], namespaced: false, sub: STATUS, generation: false, fields: &["spec.unschedulable"] },
    Row { group: "", version: "v1", kind: "Pod", plural: "pods", short: &["po"], namespaced: true, sub: STATUS, generation: false, fields: POD_FIELDS },
    Row { group: "", version: "v1", kind: "Service", plural: "services", short: &["svc"], namespaced: true, sub: STATUS, generation: false, fields: &[] },
    Row { group: "", version: "v1", kind: "ResourceQuota", plural: "resourcequotas", short: &["quota"], namespaced: true, sub: STATUS, generation: false, fields: &[] },
    Row { group: "", version: "v1", kind: "Endpoints", plural: "endpoints", short: &["ep"], namespaced: true, sub: NONE, generation: false, fields: &[] },
    Row { group: "discovery.k8s.io", version: "v1", kind: "EndpointSlice", plural: "endpointslices", short: &[], namespaced: true, sub: NONE, generation: false, fields: &[] },
    Row { group: "events.k8s.io", version: "v1", kind: "Event", plural: "events", short: &["ev"], namespaced: true, sub: NONE, generation: false, fields: &["regarding.kind", "regarding.name", "regarding.namespace", "regarding.uid", "reason", "type"] },
    Row { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", short: &["deploy"], namespaced: true, sub: SCALE, generation: true, fields: &[] },
    Row { group: "apps", version: "v1", kind: "ReplicaSet", plural: "replicasets", short: &["rs"], namespaced: true, sub: SCALE, generation: true, fields: &[] },
    Row { group: "apps", version: "v1", kind: "StatefulSet", plural: "statefulsets", short: &["sts"], namespaced: true, sub: SCALE, generation: true, fields: &[] },
    Row { group: "batch", version: "v1", kind: "Job", plural: "jobs", short: &[], namespaced: true, sub: STATUS, generation: true, fields: &["status.successful"] },
    Row { group: "batch", version: "v1", kind: "CronJob", plural: "cronjobs", short: &["cj"], namespaced: true, sub: STATUS, generation: true, fields: &[] },
    Row { group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", short: &["crd", "crds"], namespaced: false, sub: STATUS, generation: true, fields: &[] },
    Row { group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", short: &[], namespaced: true, sub: NONE, generation: false, fields: &[] },
    Row { group: "certificates.k8s.io", version: "v1", kind: "CertificateSigningRequest", plural: "certificatesigningrequests", short: &["csr"], namespaced: false, sub: Subresources { approval: true, ..STATUS }, generation: false, fields: CSR_FIELDS },
    Row { group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", short: &[], namespaced: true, sub: NONE, generation: false, fields: &[] },
    Row { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", short: &[], namespaced: false, sub: NONE, generation: false, fields: &[] },
    Row { group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", short: &[], namespaced: true, sub: NONE, generation: false, fields: &[] },
    Row { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", short: &[], namespaced: false, sub: NONE, generation: false, fields: &[] },
    Row { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingAdmissionPolicy", plural: "validatingadmissionpolicies", short: &[], namespaced: false, sub: STATUS, generation: true, fields: &[] },
    Row { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingAdmissionPolicyBinding", plural: "validatingadmissionpolicybindings", short: &[], namespaced: false, sub: NONE, generation: true, fields: &[] },
    Row { group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", short: &[], namespaced: false, sub: NONE, generation: true, fields: &[] },
    Row { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", short: &[], namespaced: false, sub: NONE, generation: true, fields: &[] },
    Row { group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass", plural: "priorityclasses", short: &["pc"], namespaced: false, sub: NONE, generation: false, fields: &[] },
];

/// Create-only resources that are answered, never stored.
#[rustfmt::skip]
const REVIEWS: &[Row] = &[
    Row { group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview", plural: "subjectaccessreviews", short: &[], namespaced: false, sub: NONE, generation: false, fields: &[] },
    Row { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview", plural: "selfsubjectaccessreviews", short: &[], namespaced: false, sub: NONE, generation: false, fields: &[] },
    Row { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectRulesReview", plural: "selfsubjectrulesreviews", short: &[], namespaced: false, sub: NONE, generation: false, fields: &[] },
    Row { group: "authorization.k8s.io", version: "v1", kind: "LocalSubjectAccessReview", plural: "localsubjectaccessreviews", short: &[], namespaced: true, sub: NONE, generation: false, fields: &[] },
    Row { group: "authentication.k8s.io", version: "v1", kind: "SelfSubjectReview", plural: "selfsubjectreviews", short: &[], namespaced: false, sub: NONE, generation: false, fields: &[] },
    Row { group: "authentication.k8s.io", version: "v1", kind: "TokenReview", plural: "tokenreviews", short: &[], namespaced: false, sub: NONE, generation: false, fields: &[] },
];

/// The built-in types, ready to register.
pub fn types() -> Vec<ResourceType> {
    let stored = ROWS.iter().map(|row| (row, false));
    let reviews = REVIEWS.iter().map(|row| (row, true));
    stored
        .chain(reviews)
        .map(|(row, create_only)| ResourceType {
            group: row.group.to_string(),
            version: row.version.to_string(),
            kind: row.kind.to_string(),
            plural: row.plural.to_string(),
            singular: row.kind.to_lowercase(),
            short_names: row.short.iter().map(|s| s.to_string()).collect(),
            categories: if matches!(
                row.kind,
                "Pod" | "Deployment" | "ReplicaSet" | "StatefulSet" | "Service" | "Job" | "CronJob"
            ) {
                vec!["all".to_string()]
            } else {
                Vec::new()
            },
            namespaced: row.namespaced,
            subresources: row.sub,
            generation: row.generation,
            selectable_fields: row.fields,
            create_only,
            origin: Origin::Builtin,
        })
        .collect()
}

/// Whether group/plural is a built-in resource.
pub fn is_builtin(group: &str, plural: &str) -> bool {
    ROWS.iter().any(|row| row.group == group && row.plural == plural)
}
