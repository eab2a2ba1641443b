// @generated once from the Go API types of k8s.io/api and k8s.io/apimachinery v0.33.0 (their
// `json` and `protobuf` struct tags and pointer-ness); checked against k8s-pb and k8s-openapi by
// the test in protobuf/check_kinds.rs. Do not edit by hand: a field added here must pass that check.

use super::table::Field;
use super::table::Type::{Bool, Bytes, Int, IntOrString, Items, Message, MicroTime, Quantity, RawJson, Str, Time};
use super::table::{keep, list, map, merge, omit};

/// The kinds with a protobuf form: (apiVersion, kind, message).
#[rustfmt::skip]
pub const KINDS: &[(&str, &str, &[Field])] = &[
    ("v1", "Binding", CORE_V1_BINDING),
    ("v1", "ComponentStatus", CORE_V1_COMPONENT_STATUS),
    ("v1", "ConfigMap", CORE_V1_CONFIG_MAP),
    ("v1", "Endpoints", CORE_V1_ENDPOINTS),
    ("v1", "Event", CORE_V1_EVENT),
    ("v1", "LimitRange", CORE_V1_LIMIT_RANGE),
    ("v1", "Namespace", CORE_V1_NAMESPACE),
    ("v1", "Node", CORE_V1_NODE),
    ("v1", "PersistentVolume", CORE_V1_PERSISTENT_VOLUME),
    ("v1", "PersistentVolumeClaim", CORE_V1_PERSISTENT_VOLUME_CLAIM),
    ("v1", "Pod", CORE_V1_POD),
    ("v1", "PodTemplate", CORE_V1_POD_TEMPLATE),
    ("v1", "ReplicationController", CORE_V1_REPLICATION_CONTROLLER),
    ("v1", "ResourceQuota", CORE_V1_RESOURCE_QUOTA),
    ("v1", "Secret", CORE_V1_SECRET),
    ("v1", "Service", CORE_V1_SERVICE),
    ("v1", "ServiceAccount", CORE_V1_SERVICE_ACCOUNT),
    ("apps/v1", "ControllerRevision", APPS_V1_CONTROLLER_REVISION),
    ("apps/v1", "DaemonSet", APPS_V1_DAEMON_SET),
    ("apps/v1", "Deployment", APPS_V1_DEPLOYMENT),
    ("apps/v1", "ReplicaSet", APPS_V1_REPLICA_SET),
    ("apps/v1", "StatefulSet", APPS_V1_STATEFUL_SET),
    ("batch/v1", "CronJob", BATCH_V1_CRON_JOB),
    ("batch/v1", "Job", BATCH_V1_JOB),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", RBAC_V1_CLUSTER_ROLE),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", RBAC_V1_CLUSTER_ROLE_BINDING),
    ("rbac.authorization.k8s.io/v1", "Role", RBAC_V1_ROLE),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", RBAC_V1_ROLE_BINDING),
    ("scheduling.k8s.io/v1", "PriorityClass", SCHEDULING_V1_PRIORITY_CLASS),
    ("coordination.k8s.io/v1", "Lease", COORDINATION_V1_LEASE),
    ("certificates.k8s.io/v1", "CertificateSigningRequest", CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST),
    ("authentication.k8s.io/v1", "SelfSubjectReview", AUTHENTICATION_V1_SELF_SUBJECT_REVIEW),
    ("authentication.k8s.io/v1", "TokenRequest", AUTHENTICATION_V1_TOKEN_REQUEST),
    ("authentication.k8s.io/v1", "TokenReview", AUTHENTICATION_V1_TOKEN_REVIEW),
    ("authorization.k8s.io/v1", "LocalSubjectAccessReview", AUTHORIZATION_V1_LOCAL_SUBJECT_ACCESS_REVIEW),
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview", AUTHORIZATION_V1_SELF_SUBJECT_ACCESS_REVIEW),
    ("authorization.k8s.io/v1", "SelfSubjectRulesReview", AUTHORIZATION_V1_SELF_SUBJECT_RULES_REVIEW),
    ("authorization.k8s.io/v1", "SubjectAccessReview", AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW),
    ("events.k8s.io/v1", "Event", EVENTS_V1_EVENT),
    ("networking.k8s.io/v1", "IPAddress", NETWORKING_V1_IP_ADDRESS),
    ("networking.k8s.io/v1", "Ingress", NETWORKING_V1_INGRESS),
    ("networking.k8s.io/v1", "IngressClass", NETWORKING_V1_INGRESS_CLASS),
    ("networking.k8s.io/v1", "NetworkPolicy", NETWORKING_V1_NETWORK_POLICY),
    ("networking.k8s.io/v1", "ServiceCIDR", NETWORKING_V1_SERVICE_CIDR),
    ("policy/v1", "Eviction", POLICY_V1_EVICTION),
    ("policy/v1", "PodDisruptionBudget", POLICY_V1_POD_DISRUPTION_BUDGET),
    ("discovery.k8s.io/v1", "EndpointSlice", DISCOVERY_V1_ENDPOINT_SLICE),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", ADMISSIONREGISTRATION_V1_MUTATING_WEBHOOK_CONFIGURATION),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_BINDING),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", ADMISSIONREGISTRATION_V1_VALIDATING_WEBHOOK_CONFIGURATION),
    ("autoscaling/v1", "HorizontalPodAutoscaler", AUTOSCALING_V1_HORIZONTAL_POD_AUTOSCALER),
    ("autoscaling/v1", "Scale", AUTOSCALING_V1_SCALE),
    ("autoscaling/v2", "HorizontalPodAutoscaler", AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER),
    ("storage.k8s.io/v1", "CSIDriver", STORAGE_V1_CSI_DRIVER),
    ("storage.k8s.io/v1", "CSINode", STORAGE_V1_CSI_NODE),
    ("storage.k8s.io/v1", "CSIStorageCapacity", STORAGE_V1_CSI_STORAGE_CAPACITY),
    ("storage.k8s.io/v1", "StorageClass", STORAGE_V1_STORAGE_CLASS),
    ("storage.k8s.io/v1", "VolumeAttachment", STORAGE_V1_VOLUME_ATTACHMENT),
    ("node.k8s.io/v1", "RuntimeClass", NODE_V1_RUNTIME_CLASS),
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", FLOWCONTROL_V1_FLOW_SCHEMA),
    ("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION),
];

#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_AUDIT_ANNOTATION: &[Field] = &[
    keep(1, "key", Str),
    keep(2, "valueExpression", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_EXPRESSION_WARNING: &[Field] = &[
    keep(2, "fieldRef", Str),
    keep(3, "warning", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_MATCH_CONDITION: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "expression", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_MATCH_RESOURCES: &[Field] = &[
    keep(1, "namespaceSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(2, "objectSelector", Message(META_V1_LABEL_SELECTOR)),
    list(3, "resourceRules", Message(ADMISSIONREGISTRATION_V1_NAMED_RULE_WITH_OPERATIONS)),
    list(4, "excludeResourceRules", Message(ADMISSIONREGISTRATION_V1_NAMED_RULE_WITH_OPERATIONS)),
    keep(7, "matchPolicy", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_MUTATING_WEBHOOK: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "clientConfig", Message(ADMISSIONREGISTRATION_V1_WEBHOOK_CLIENT_CONFIG)),
    list(3, "rules", Message(ADMISSIONREGISTRATION_V1_RULE_WITH_OPERATIONS)),
    keep(4, "failurePolicy", Str),
    keep(9, "matchPolicy", Str),
    keep(5, "namespaceSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(11, "objectSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(6, "sideEffects", Str),
    keep(7, "timeoutSeconds", Int),
    list(8, "admissionReviewVersions", Str),
    keep(10, "reinvocationPolicy", Str),
    list(12, "matchConditions", Message(ADMISSIONREGISTRATION_V1_MATCH_CONDITION)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_MUTATING_WEBHOOK_CONFIGURATION: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "webhooks", Message(ADMISSIONREGISTRATION_V1_MUTATING_WEBHOOK)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_NAMED_RULE_WITH_OPERATIONS: &[Field] = &[
    list(1, "resourceNames", Str),
    merge(2, Message(ADMISSIONREGISTRATION_V1_RULE_WITH_OPERATIONS)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_PARAM_KIND: &[Field] = &[
    omit(1, "apiVersion", Str),
    omit(2, "kind", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_PARAM_REF: &[Field] = &[
    omit(1, "name", Str),
    omit(2, "namespace", Str),
    keep(3, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(4, "parameterNotFoundAction", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_RULE: &[Field] = &[
    list(1, "apiGroups", Str),
    list(2, "apiVersions", Str),
    list(3, "resources", Str),
    keep(4, "scope", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_RULE_WITH_OPERATIONS: &[Field] = &[
    list(1, "operations", Str),
    merge(2, Message(ADMISSIONREGISTRATION_V1_RULE)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_SERVICE_REFERENCE: &[Field] = &[
    keep(1, "namespace", Str),
    keep(2, "name", Str),
    keep(3, "path", Str),
    keep(4, "port", Int),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_TYPE_CHECKING: &[Field] = &[
    list(1, "expressionWarnings", Message(ADMISSIONREGISTRATION_V1_EXPRESSION_WARNING)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_SPEC)),
    keep(3, "status", Message(ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_STATUS)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_BINDING: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_BINDING_SPEC)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_BINDING_SPEC: &[Field] = &[
    omit(1, "policyName", Str),
    keep(2, "paramRef", Message(ADMISSIONREGISTRATION_V1_PARAM_REF)),
    keep(3, "matchResources", Message(ADMISSIONREGISTRATION_V1_MATCH_RESOURCES)),
    list(4, "validationActions", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_SPEC: &[Field] = &[
    keep(1, "paramKind", Message(ADMISSIONREGISTRATION_V1_PARAM_KIND)),
    keep(2, "matchConstraints", Message(ADMISSIONREGISTRATION_V1_MATCH_RESOURCES)),
    list(3, "validations", Message(ADMISSIONREGISTRATION_V1_VALIDATION)),
    keep(4, "failurePolicy", Str),
    list(5, "auditAnnotations", Message(ADMISSIONREGISTRATION_V1_AUDIT_ANNOTATION)),
    list(6, "matchConditions", Message(ADMISSIONREGISTRATION_V1_MATCH_CONDITION)),
    list(7, "variables", Message(ADMISSIONREGISTRATION_V1_VARIABLE)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATING_ADMISSION_POLICY_STATUS: &[Field] = &[
    omit(1, "observedGeneration", Int),
    keep(2, "typeChecking", Message(ADMISSIONREGISTRATION_V1_TYPE_CHECKING)),
    list(3, "conditions", Message(META_V1_CONDITION)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATING_WEBHOOK: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "clientConfig", Message(ADMISSIONREGISTRATION_V1_WEBHOOK_CLIENT_CONFIG)),
    list(3, "rules", Message(ADMISSIONREGISTRATION_V1_RULE_WITH_OPERATIONS)),
    keep(4, "failurePolicy", Str),
    keep(9, "matchPolicy", Str),
    keep(5, "namespaceSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(10, "objectSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(6, "sideEffects", Str),
    keep(7, "timeoutSeconds", Int),
    list(8, "admissionReviewVersions", Str),
    list(11, "matchConditions", Message(ADMISSIONREGISTRATION_V1_MATCH_CONDITION)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATING_WEBHOOK_CONFIGURATION: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "webhooks", Message(ADMISSIONREGISTRATION_V1_VALIDATING_WEBHOOK)),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VALIDATION: &[Field] = &[
    keep(1, "expression", Str),
    omit(2, "message", Str),
    keep(3, "reason", Str),
    omit(4, "messageExpression", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_VARIABLE: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "expression", Str),
];
#[rustfmt::skip]
const ADMISSIONREGISTRATION_V1_WEBHOOK_CLIENT_CONFIG: &[Field] = &[
    keep(3, "url", Str),
    keep(1, "service", Message(ADMISSIONREGISTRATION_V1_SERVICE_REFERENCE)),
    omit(2, "caBundle", Bytes),
];
#[rustfmt::skip]
const APPS_V1_CONTROLLER_REVISION: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    omit(2, "data", RawJson),
    keep(3, "revision", Int),
];
#[rustfmt::skip]
const APPS_V1_DAEMON_SET: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(APPS_V1_DAEMON_SET_SPEC)),
    keep(3, "status", Message(APPS_V1_DAEMON_SET_STATUS)),
];
#[rustfmt::skip]
const APPS_V1_DAEMON_SET_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const APPS_V1_DAEMON_SET_SPEC: &[Field] = &[
    keep(1, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(2, "template", Message(CORE_V1_POD_TEMPLATE_SPEC)),
    keep(3, "updateStrategy", Message(APPS_V1_DAEMON_SET_UPDATE_STRATEGY)),
    omit(4, "minReadySeconds", Int),
    keep(6, "revisionHistoryLimit", Int),
];
#[rustfmt::skip]
const APPS_V1_DAEMON_SET_STATUS: &[Field] = &[
    keep(1, "currentNumberScheduled", Int),
    keep(2, "numberMisscheduled", Int),
    keep(3, "desiredNumberScheduled", Int),
    keep(4, "numberReady", Int),
    omit(5, "observedGeneration", Int),
    omit(6, "updatedNumberScheduled", Int),
    omit(7, "numberAvailable", Int),
    omit(8, "numberUnavailable", Int),
    keep(9, "collisionCount", Int),
    list(10, "conditions", Message(APPS_V1_DAEMON_SET_CONDITION)),
];
#[rustfmt::skip]
const APPS_V1_DAEMON_SET_UPDATE_STRATEGY: &[Field] = &[
    omit(1, "type", Str),
    keep(2, "rollingUpdate", Message(APPS_V1_ROLLING_UPDATE_DAEMON_SET)),
];
#[rustfmt::skip]
const APPS_V1_DEPLOYMENT: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(APPS_V1_DEPLOYMENT_SPEC)),
    keep(3, "status", Message(APPS_V1_DEPLOYMENT_STATUS)),
];
#[rustfmt::skip]
const APPS_V1_DEPLOYMENT_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(6, "lastUpdateTime", Time),
    omit(7, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const APPS_V1_DEPLOYMENT_SPEC: &[Field] = &[
    keep(1, "replicas", Int),
    keep(2, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(3, "template", Message(CORE_V1_POD_TEMPLATE_SPEC)),
    keep(4, "strategy", Message(APPS_V1_DEPLOYMENT_STRATEGY)),
    omit(5, "minReadySeconds", Int),
    keep(6, "revisionHistoryLimit", Int),
    omit(7, "paused", Bool),
    keep(9, "progressDeadlineSeconds", Int),
];
#[rustfmt::skip]
const APPS_V1_DEPLOYMENT_STATUS: &[Field] = &[
    omit(1, "observedGeneration", Int),
    omit(2, "replicas", Int),
    omit(3, "updatedReplicas", Int),
    omit(7, "readyReplicas", Int),
    omit(4, "availableReplicas", Int),
    omit(5, "unavailableReplicas", Int),
    keep(9, "terminatingReplicas", Int),
    list(6, "conditions", Message(APPS_V1_DEPLOYMENT_CONDITION)),
    keep(8, "collisionCount", Int),
];
#[rustfmt::skip]
const APPS_V1_DEPLOYMENT_STRATEGY: &[Field] = &[
    omit(1, "type", Str),
    keep(2, "rollingUpdate", Message(APPS_V1_ROLLING_UPDATE_DEPLOYMENT)),
];
#[rustfmt::skip]
const APPS_V1_REPLICA_SET: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(APPS_V1_REPLICA_SET_SPEC)),
    keep(3, "status", Message(APPS_V1_REPLICA_SET_STATUS)),
];
#[rustfmt::skip]
const APPS_V1_REPLICA_SET_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const APPS_V1_REPLICA_SET_SPEC: &[Field] = &[
    keep(1, "replicas", Int),
    omit(4, "minReadySeconds", Int),
    keep(2, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(3, "template", Message(CORE_V1_POD_TEMPLATE_SPEC)),
];
#[rustfmt::skip]
const APPS_V1_REPLICA_SET_STATUS: &[Field] = &[
    keep(1, "replicas", Int),
    omit(2, "fullyLabeledReplicas", Int),
    omit(4, "readyReplicas", Int),
    omit(5, "availableReplicas", Int),
    keep(7, "terminatingReplicas", Int),
    omit(3, "observedGeneration", Int),
    list(6, "conditions", Message(APPS_V1_REPLICA_SET_CONDITION)),
];
#[rustfmt::skip]
const APPS_V1_ROLLING_UPDATE_DAEMON_SET: &[Field] = &[
    keep(1, "maxUnavailable", IntOrString),
    keep(2, "maxSurge", IntOrString),
];
#[rustfmt::skip]
const APPS_V1_ROLLING_UPDATE_DEPLOYMENT: &[Field] = &[
    keep(1, "maxUnavailable", IntOrString),
    keep(2, "maxSurge", IntOrString),
];
#[rustfmt::skip]
const APPS_V1_ROLLING_UPDATE_STATEFUL_SET_STRATEGY: &[Field] = &[
    keep(1, "partition", Int),
    keep(2, "maxUnavailable", IntOrString),
];
#[rustfmt::skip]
const APPS_V1_STATEFUL_SET: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(APPS_V1_STATEFUL_SET_SPEC)),
    keep(3, "status", Message(APPS_V1_STATEFUL_SET_STATUS)),
];
#[rustfmt::skip]
const APPS_V1_STATEFUL_SET_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const APPS_V1_STATEFUL_SET_ORDINALS: &[Field] = &[
    keep(1, "start", Int),
];
#[rustfmt::skip]
const APPS_V1_STATEFUL_SET_PERSISTENT_VOLUME_CLAIM_RETENTION_POLICY: &[Field] = &[
    omit(1, "whenDeleted", Str),
    omit(2, "whenScaled", Str),
];
#[rustfmt::skip]
const APPS_V1_STATEFUL_SET_SPEC: &[Field] = &[
    keep(1, "replicas", Int),
    keep(2, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(3, "template", Message(CORE_V1_POD_TEMPLATE_SPEC)),
    list(4, "volumeClaimTemplates", Message(CORE_V1_PERSISTENT_VOLUME_CLAIM)),
    keep(5, "serviceName", Str),
    omit(6, "podManagementPolicy", Str),
    keep(7, "updateStrategy", Message(APPS_V1_STATEFUL_SET_UPDATE_STRATEGY)),
    keep(8, "revisionHistoryLimit", Int),
    omit(9, "minReadySeconds", Int),
    keep(10, "persistentVolumeClaimRetentionPolicy", Message(APPS_V1_STATEFUL_SET_PERSISTENT_VOLUME_CLAIM_RETENTION_POLICY)),
    keep(11, "ordinals", Message(APPS_V1_STATEFUL_SET_ORDINALS)),
];
#[rustfmt::skip]
const APPS_V1_STATEFUL_SET_STATUS: &[Field] = &[
    omit(1, "observedGeneration", Int),
    keep(2, "replicas", Int),
    omit(3, "readyReplicas", Int),
    omit(4, "currentReplicas", Int),
    omit(5, "updatedReplicas", Int),
    omit(6, "currentRevision", Str),
    omit(7, "updateRevision", Str),
    keep(9, "collisionCount", Int),
    list(10, "conditions", Message(APPS_V1_STATEFUL_SET_CONDITION)),
    keep(11, "availableReplicas", Int),
];
#[rustfmt::skip]
const APPS_V1_STATEFUL_SET_UPDATE_STRATEGY: &[Field] = &[
    omit(1, "type", Str),
    keep(2, "rollingUpdate", Message(APPS_V1_ROLLING_UPDATE_STATEFUL_SET_STRATEGY)),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_BOUND_OBJECT_REFERENCE: &[Field] = &[
    omit(1, "kind", Str),
    omit(2, "apiVersion", Str),
    omit(3, "name", Str),
    omit(4, "uid", Str),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_SELF_SUBJECT_REVIEW: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "status", Message(AUTHENTICATION_V1_SELF_SUBJECT_REVIEW_STATUS)),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_SELF_SUBJECT_REVIEW_STATUS: &[Field] = &[
    keep(1, "userInfo", Message(AUTHENTICATION_V1_USER_INFO)),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_TOKEN_REQUEST: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTHENTICATION_V1_TOKEN_REQUEST_SPEC)),
    keep(3, "status", Message(AUTHENTICATION_V1_TOKEN_REQUEST_STATUS)),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_TOKEN_REQUEST_SPEC: &[Field] = &[
    list(1, "audiences", Str),
    keep(4, "expirationSeconds", Int),
    keep(3, "boundObjectRef", Message(AUTHENTICATION_V1_BOUND_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_TOKEN_REQUEST_STATUS: &[Field] = &[
    keep(1, "token", Str),
    keep(2, "expirationTimestamp", Time),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_TOKEN_REVIEW: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTHENTICATION_V1_TOKEN_REVIEW_SPEC)),
    keep(3, "status", Message(AUTHENTICATION_V1_TOKEN_REVIEW_STATUS)),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_TOKEN_REVIEW_SPEC: &[Field] = &[
    omit(1, "token", Str),
    list(2, "audiences", Str),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_TOKEN_REVIEW_STATUS: &[Field] = &[
    omit(1, "authenticated", Bool),
    keep(2, "user", Message(AUTHENTICATION_V1_USER_INFO)),
    list(4, "audiences", Str),
    omit(3, "error", Str),
];
#[rustfmt::skip]
const AUTHENTICATION_V1_USER_INFO: &[Field] = &[
    omit(1, "username", Str),
    omit(2, "uid", Str),
    list(3, "groups", Str),
    map(4, "extra", Items),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_FIELD_SELECTOR_ATTRIBUTES: &[Field] = &[
    omit(1, "rawSelector", Str),
    list(2, "requirements", Message(META_V1_FIELD_SELECTOR_REQUIREMENT)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_LABEL_SELECTOR_ATTRIBUTES: &[Field] = &[
    omit(1, "rawSelector", Str),
    list(2, "requirements", Message(META_V1_LABEL_SELECTOR_REQUIREMENT)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_LOCAL_SUBJECT_ACCESS_REVIEW: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW_SPEC)),
    keep(3, "status", Message(AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW_STATUS)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_NON_RESOURCE_ATTRIBUTES: &[Field] = &[
    omit(1, "path", Str),
    omit(2, "verb", Str),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_NON_RESOURCE_RULE: &[Field] = &[
    list(1, "verbs", Str),
    list(2, "nonResourceURLs", Str),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_RESOURCE_ATTRIBUTES: &[Field] = &[
    omit(1, "namespace", Str),
    omit(2, "verb", Str),
    omit(3, "group", Str),
    omit(4, "version", Str),
    omit(5, "resource", Str),
    omit(6, "subresource", Str),
    omit(7, "name", Str),
    keep(8, "fieldSelector", Message(AUTHORIZATION_V1_FIELD_SELECTOR_ATTRIBUTES)),
    keep(9, "labelSelector", Message(AUTHORIZATION_V1_LABEL_SELECTOR_ATTRIBUTES)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_RESOURCE_RULE: &[Field] = &[
    list(1, "verbs", Str),
    list(2, "apiGroups", Str),
    list(3, "resources", Str),
    list(4, "resourceNames", Str),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SELF_SUBJECT_ACCESS_REVIEW: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTHORIZATION_V1_SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
    keep(3, "status", Message(AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW_STATUS)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SELF_SUBJECT_ACCESS_REVIEW_SPEC: &[Field] = &[
    keep(1, "resourceAttributes", Message(AUTHORIZATION_V1_RESOURCE_ATTRIBUTES)),
    keep(2, "nonResourceAttributes", Message(AUTHORIZATION_V1_NON_RESOURCE_ATTRIBUTES)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SELF_SUBJECT_RULES_REVIEW: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTHORIZATION_V1_SELF_SUBJECT_RULES_REVIEW_SPEC)),
    keep(3, "status", Message(AUTHORIZATION_V1_SUBJECT_RULES_REVIEW_STATUS)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SELF_SUBJECT_RULES_REVIEW_SPEC: &[Field] = &[
    omit(1, "namespace", Str),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW_SPEC)),
    keep(3, "status", Message(AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW_STATUS)),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW_SPEC: &[Field] = &[
    keep(1, "resourceAttributes", Message(AUTHORIZATION_V1_RESOURCE_ATTRIBUTES)),
    keep(2, "nonResourceAttributes", Message(AUTHORIZATION_V1_NON_RESOURCE_ATTRIBUTES)),
    omit(3, "user", Str),
    list(4, "groups", Str),
    map(5, "extra", Items),
    omit(6, "uid", Str),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW_STATUS: &[Field] = &[
    keep(1, "allowed", Bool),
    omit(4, "denied", Bool),
    omit(2, "reason", Str),
    omit(3, "evaluationError", Str),
];
#[rustfmt::skip]
const AUTHORIZATION_V1_SUBJECT_RULES_REVIEW_STATUS: &[Field] = &[
    list(1, "resourceRules", Message(AUTHORIZATION_V1_RESOURCE_RULE)),
    list(2, "nonResourceRules", Message(AUTHORIZATION_V1_NON_RESOURCE_RULE)),
    keep(3, "incomplete", Bool),
    omit(4, "evaluationError", Str),
];
#[rustfmt::skip]
const AUTOSCALING_V1_CROSS_VERSION_OBJECT_REFERENCE: &[Field] = &[
    keep(1, "kind", Str),
    keep(2, "name", Str),
    omit(3, "apiVersion", Str),
];
#[rustfmt::skip]
const AUTOSCALING_V1_HORIZONTAL_POD_AUTOSCALER: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTOSCALING_V1_HORIZONTAL_POD_AUTOSCALER_SPEC)),
    keep(3, "status", Message(AUTOSCALING_V1_HORIZONTAL_POD_AUTOSCALER_STATUS)),
];
#[rustfmt::skip]
const AUTOSCALING_V1_HORIZONTAL_POD_AUTOSCALER_SPEC: &[Field] = &[
    keep(1, "scaleTargetRef", Message(AUTOSCALING_V1_CROSS_VERSION_OBJECT_REFERENCE)),
    keep(2, "minReplicas", Int),
    keep(3, "maxReplicas", Int),
    keep(4, "targetCPUUtilizationPercentage", Int),
];
#[rustfmt::skip]
const AUTOSCALING_V1_HORIZONTAL_POD_AUTOSCALER_STATUS: &[Field] = &[
    keep(1, "observedGeneration", Int),
    keep(2, "lastScaleTime", Time),
    keep(3, "currentReplicas", Int),
    keep(4, "desiredReplicas", Int),
    keep(5, "currentCPUUtilizationPercentage", Int),
];
#[rustfmt::skip]
const AUTOSCALING_V1_SCALE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTOSCALING_V1_SCALE_SPEC)),
    keep(3, "status", Message(AUTOSCALING_V1_SCALE_STATUS)),
];
#[rustfmt::skip]
const AUTOSCALING_V1_SCALE_SPEC: &[Field] = &[
    omit(1, "replicas", Int),
];
#[rustfmt::skip]
const AUTOSCALING_V1_SCALE_STATUS: &[Field] = &[
    keep(1, "replicas", Int),
    omit(2, "selector", Str),
];
#[rustfmt::skip]
const AUTOSCALING_V2_CONTAINER_RESOURCE_METRIC_SOURCE: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "target", Message(AUTOSCALING_V2_METRIC_TARGET)),
    keep(3, "container", Str),
];
#[rustfmt::skip]
const AUTOSCALING_V2_CONTAINER_RESOURCE_METRIC_STATUS: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "current", Message(AUTOSCALING_V2_METRIC_VALUE_STATUS)),
    keep(3, "container", Str),
];
#[rustfmt::skip]
const AUTOSCALING_V2_CROSS_VERSION_OBJECT_REFERENCE: &[Field] = &[
    keep(1, "kind", Str),
    keep(2, "name", Str),
    omit(3, "apiVersion", Str),
];
#[rustfmt::skip]
const AUTOSCALING_V2_EXTERNAL_METRIC_SOURCE: &[Field] = &[
    keep(1, "metric", Message(AUTOSCALING_V2_METRIC_IDENTIFIER)),
    keep(2, "target", Message(AUTOSCALING_V2_METRIC_TARGET)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_EXTERNAL_METRIC_STATUS: &[Field] = &[
    keep(1, "metric", Message(AUTOSCALING_V2_METRIC_IDENTIFIER)),
    keep(2, "current", Message(AUTOSCALING_V2_METRIC_VALUE_STATUS)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_SPEC)),
    keep(3, "status", Message(AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_STATUS)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_BEHAVIOR: &[Field] = &[
    keep(1, "scaleUp", Message(AUTOSCALING_V2_HPA_SCALING_RULES)),
    keep(2, "scaleDown", Message(AUTOSCALING_V2_HPA_SCALING_RULES)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_SPEC: &[Field] = &[
    keep(1, "scaleTargetRef", Message(AUTOSCALING_V2_CROSS_VERSION_OBJECT_REFERENCE)),
    keep(2, "minReplicas", Int),
    keep(3, "maxReplicas", Int),
    list(4, "metrics", Message(AUTOSCALING_V2_METRIC_SPEC)),
    keep(5, "behavior", Message(AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_BEHAVIOR)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_STATUS: &[Field] = &[
    keep(1, "observedGeneration", Int),
    keep(2, "lastScaleTime", Time),
    omit(3, "currentReplicas", Int),
    keep(4, "desiredReplicas", Int),
    list(5, "currentMetrics", Message(AUTOSCALING_V2_METRIC_STATUS)),
    list(6, "conditions", Message(AUTOSCALING_V2_HORIZONTAL_POD_AUTOSCALER_CONDITION)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_HPA_SCALING_POLICY: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "value", Int),
    keep(3, "periodSeconds", Int),
];
#[rustfmt::skip]
const AUTOSCALING_V2_HPA_SCALING_RULES: &[Field] = &[
    keep(3, "stabilizationWindowSeconds", Int),
    keep(1, "selectPolicy", Str),
    list(2, "policies", Message(AUTOSCALING_V2_HPA_SCALING_POLICY)),
    keep(4, "tolerance", Quantity),
];
#[rustfmt::skip]
const AUTOSCALING_V2_METRIC_IDENTIFIER: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "selector", Message(META_V1_LABEL_SELECTOR)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_METRIC_SPEC: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "object", Message(AUTOSCALING_V2_OBJECT_METRIC_SOURCE)),
    keep(3, "pods", Message(AUTOSCALING_V2_PODS_METRIC_SOURCE)),
    keep(4, "resource", Message(AUTOSCALING_V2_RESOURCE_METRIC_SOURCE)),
    keep(7, "containerResource", Message(AUTOSCALING_V2_CONTAINER_RESOURCE_METRIC_SOURCE)),
    keep(5, "external", Message(AUTOSCALING_V2_EXTERNAL_METRIC_SOURCE)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_METRIC_STATUS: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "object", Message(AUTOSCALING_V2_OBJECT_METRIC_STATUS)),
    keep(3, "pods", Message(AUTOSCALING_V2_PODS_METRIC_STATUS)),
    keep(4, "resource", Message(AUTOSCALING_V2_RESOURCE_METRIC_STATUS)),
    keep(7, "containerResource", Message(AUTOSCALING_V2_CONTAINER_RESOURCE_METRIC_STATUS)),
    keep(5, "external", Message(AUTOSCALING_V2_EXTERNAL_METRIC_STATUS)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_METRIC_TARGET: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "value", Quantity),
    keep(3, "averageValue", Quantity),
    keep(4, "averageUtilization", Int),
];
#[rustfmt::skip]
const AUTOSCALING_V2_METRIC_VALUE_STATUS: &[Field] = &[
    keep(1, "value", Quantity),
    keep(2, "averageValue", Quantity),
    keep(3, "averageUtilization", Int),
];
#[rustfmt::skip]
const AUTOSCALING_V2_OBJECT_METRIC_SOURCE: &[Field] = &[
    keep(1, "describedObject", Message(AUTOSCALING_V2_CROSS_VERSION_OBJECT_REFERENCE)),
    keep(2, "target", Message(AUTOSCALING_V2_METRIC_TARGET)),
    keep(3, "metric", Message(AUTOSCALING_V2_METRIC_IDENTIFIER)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_OBJECT_METRIC_STATUS: &[Field] = &[
    keep(1, "metric", Message(AUTOSCALING_V2_METRIC_IDENTIFIER)),
    keep(2, "current", Message(AUTOSCALING_V2_METRIC_VALUE_STATUS)),
    keep(3, "describedObject", Message(AUTOSCALING_V2_CROSS_VERSION_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_PODS_METRIC_SOURCE: &[Field] = &[
    keep(1, "metric", Message(AUTOSCALING_V2_METRIC_IDENTIFIER)),
    keep(2, "target", Message(AUTOSCALING_V2_METRIC_TARGET)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_PODS_METRIC_STATUS: &[Field] = &[
    keep(1, "metric", Message(AUTOSCALING_V2_METRIC_IDENTIFIER)),
    keep(2, "current", Message(AUTOSCALING_V2_METRIC_VALUE_STATUS)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_RESOURCE_METRIC_SOURCE: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "target", Message(AUTOSCALING_V2_METRIC_TARGET)),
];
#[rustfmt::skip]
const AUTOSCALING_V2_RESOURCE_METRIC_STATUS: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "current", Message(AUTOSCALING_V2_METRIC_VALUE_STATUS)),
];
#[rustfmt::skip]
const BATCH_V1_CRON_JOB: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(BATCH_V1_CRON_JOB_SPEC)),
    keep(3, "status", Message(BATCH_V1_CRON_JOB_STATUS)),
];
#[rustfmt::skip]
const BATCH_V1_CRON_JOB_SPEC: &[Field] = &[
    keep(1, "schedule", Str),
    keep(8, "timeZone", Str),
    keep(2, "startingDeadlineSeconds", Int),
    omit(3, "concurrencyPolicy", Str),
    keep(4, "suspend", Bool),
    keep(5, "jobTemplate", Message(BATCH_V1_JOB_TEMPLATE_SPEC)),
    keep(6, "successfulJobsHistoryLimit", Int),
    keep(7, "failedJobsHistoryLimit", Int),
];
#[rustfmt::skip]
const BATCH_V1_CRON_JOB_STATUS: &[Field] = &[
    list(1, "active", Message(CORE_V1_OBJECT_REFERENCE)),
    keep(4, "lastScheduleTime", Time),
    keep(5, "lastSuccessfulTime", Time),
];
#[rustfmt::skip]
const BATCH_V1_JOB: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(BATCH_V1_JOB_SPEC)),
    keep(3, "status", Message(BATCH_V1_JOB_STATUS)),
];
#[rustfmt::skip]
const BATCH_V1_JOB_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastProbeTime", Time),
    omit(4, "lastTransitionTime", Time),
    omit(5, "reason", Str),
    omit(6, "message", Str),
];
#[rustfmt::skip]
const BATCH_V1_JOB_SPEC: &[Field] = &[
    keep(1, "parallelism", Int),
    keep(2, "completions", Int),
    keep(3, "activeDeadlineSeconds", Int),
    keep(11, "podFailurePolicy", Message(BATCH_V1_POD_FAILURE_POLICY)),
    keep(16, "successPolicy", Message(BATCH_V1_SUCCESS_POLICY)),
    keep(7, "backoffLimit", Int),
    keep(12, "backoffLimitPerIndex", Int),
    keep(13, "maxFailedIndexes", Int),
    keep(4, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(5, "manualSelector", Bool),
    keep(6, "template", Message(CORE_V1_POD_TEMPLATE_SPEC)),
    keep(8, "ttlSecondsAfterFinished", Int),
    keep(9, "completionMode", Str),
    keep(10, "suspend", Bool),
    keep(14, "podReplacementPolicy", Str),
    keep(15, "managedBy", Str),
];
#[rustfmt::skip]
const BATCH_V1_JOB_STATUS: &[Field] = &[
    list(1, "conditions", Message(BATCH_V1_JOB_CONDITION)),
    keep(2, "startTime", Time),
    keep(3, "completionTime", Time),
    omit(4, "active", Int),
    omit(5, "succeeded", Int),
    omit(6, "failed", Int),
    keep(11, "terminating", Int),
    omit(7, "completedIndexes", Str),
    keep(10, "failedIndexes", Str),
    keep(8, "uncountedTerminatedPods", Message(BATCH_V1_UNCOUNTED_TERMINATED_PODS)),
    keep(9, "ready", Int),
];
#[rustfmt::skip]
const BATCH_V1_JOB_TEMPLATE_SPEC: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(BATCH_V1_JOB_SPEC)),
];
#[rustfmt::skip]
const BATCH_V1_POD_FAILURE_POLICY: &[Field] = &[
    list(1, "rules", Message(BATCH_V1_POD_FAILURE_POLICY_RULE)),
];
#[rustfmt::skip]
const BATCH_V1_POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT: &[Field] = &[
    keep(1, "containerName", Str),
    keep(2, "operator", Str),
    list(3, "values", Int),
];
#[rustfmt::skip]
const BATCH_V1_POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
];
#[rustfmt::skip]
const BATCH_V1_POD_FAILURE_POLICY_RULE: &[Field] = &[
    keep(1, "action", Str),
    keep(2, "onExitCodes", Message(BATCH_V1_POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT)),
    list(3, "onPodConditions", Message(BATCH_V1_POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN)),
];
#[rustfmt::skip]
const BATCH_V1_SUCCESS_POLICY: &[Field] = &[
    list(1, "rules", Message(BATCH_V1_SUCCESS_POLICY_RULE)),
];
#[rustfmt::skip]
const BATCH_V1_SUCCESS_POLICY_RULE: &[Field] = &[
    keep(1, "succeededIndexes", Str),
    keep(2, "succeededCount", Int),
];
#[rustfmt::skip]
const BATCH_V1_UNCOUNTED_TERMINATED_PODS: &[Field] = &[
    list(1, "succeeded", Str),
    list(2, "failed", Str),
];
#[rustfmt::skip]
const CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST_SPEC)),
    keep(3, "status", Message(CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST_STATUS)),
];
#[rustfmt::skip]
const CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(6, "status", Str),
    omit(2, "reason", Str),
    omit(3, "message", Str),
    omit(4, "lastUpdateTime", Time),
    omit(5, "lastTransitionTime", Time),
];
#[rustfmt::skip]
const CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST_SPEC: &[Field] = &[
    keep(1, "request", Bytes),
    keep(7, "signerName", Str),
    keep(8, "expirationSeconds", Int),
    list(5, "usages", Str),
    omit(2, "username", Str),
    omit(3, "uid", Str),
    list(4, "groups", Str),
    map(6, "extra", Items),
];
#[rustfmt::skip]
const CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST_STATUS: &[Field] = &[
    list(1, "conditions", Message(CERTIFICATES_V1_CERTIFICATE_SIGNING_REQUEST_CONDITION)),
    omit(2, "certificate", Bytes),
];
#[rustfmt::skip]
const COORDINATION_V1_LEASE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(COORDINATION_V1_LEASE_SPEC)),
];
#[rustfmt::skip]
const COORDINATION_V1_LEASE_SPEC: &[Field] = &[
    keep(1, "holderIdentity", Str),
    keep(2, "leaseDurationSeconds", Int),
    keep(3, "acquireTime", MicroTime),
    keep(4, "renewTime", MicroTime),
    keep(5, "leaseTransitions", Int),
    keep(6, "strategy", Str),
    keep(7, "preferredHolder", Str),
];
#[rustfmt::skip]
const CORE_V1_AFFINITY: &[Field] = &[
    keep(1, "nodeAffinity", Message(CORE_V1_NODE_AFFINITY)),
    keep(2, "podAffinity", Message(CORE_V1_POD_AFFINITY)),
    keep(3, "podAntiAffinity", Message(CORE_V1_POD_ANTI_AFFINITY)),
];
#[rustfmt::skip]
const CORE_V1_APP_ARMOR_PROFILE: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "localhostProfile", Str),
];
#[rustfmt::skip]
const CORE_V1_ATTACHED_VOLUME: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "devicePath", Str),
];
#[rustfmt::skip]
const CORE_V1_AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE: &[Field] = &[
    keep(1, "volumeID", Str),
    omit(2, "fsType", Str),
    omit(3, "partition", Int),
    omit(4, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_AZURE_DISK_VOLUME_SOURCE: &[Field] = &[
    keep(1, "diskName", Str),
    keep(2, "diskURI", Str),
    keep(3, "cachingMode", Str),
    keep(4, "fsType", Str),
    keep(5, "readOnly", Bool),
    keep(6, "kind", Str),
];
#[rustfmt::skip]
const CORE_V1_AZURE_FILE_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "secretName", Str),
    keep(2, "shareName", Str),
    omit(3, "readOnly", Bool),
    keep(4, "secretNamespace", Str),
];
#[rustfmt::skip]
const CORE_V1_AZURE_FILE_VOLUME_SOURCE: &[Field] = &[
    keep(1, "secretName", Str),
    keep(2, "shareName", Str),
    omit(3, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_BINDING: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "target", Message(CORE_V1_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_CAPABILITIES: &[Field] = &[
    list(1, "add", Str),
    list(2, "drop", Str),
];
#[rustfmt::skip]
const CORE_V1_CEPH_FS_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    list(1, "monitors", Str),
    omit(2, "path", Str),
    omit(3, "user", Str),
    omit(4, "secretFile", Str),
    keep(5, "secretRef", Message(CORE_V1_SECRET_REFERENCE)),
    omit(6, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_CEPH_FS_VOLUME_SOURCE: &[Field] = &[
    list(1, "monitors", Str),
    omit(2, "path", Str),
    omit(3, "user", Str),
    omit(4, "secretFile", Str),
    keep(5, "secretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    omit(6, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_CINDER_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "volumeID", Str),
    omit(2, "fsType", Str),
    omit(3, "readOnly", Bool),
    keep(4, "secretRef", Message(CORE_V1_SECRET_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_CINDER_VOLUME_SOURCE: &[Field] = &[
    keep(1, "volumeID", Str),
    omit(2, "fsType", Str),
    omit(3, "readOnly", Bool),
    keep(4, "secretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_CLIENT_IP_CONFIG: &[Field] = &[
    keep(1, "timeoutSeconds", Int),
];
#[rustfmt::skip]
const CORE_V1_CLUSTER_TRUST_BUNDLE_PROJECTION: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "signerName", Str),
    keep(3, "labelSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(5, "optional", Bool),
    keep(4, "path", Str),
];
#[rustfmt::skip]
const CORE_V1_COMPONENT_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "message", Str),
    omit(4, "error", Str),
];
#[rustfmt::skip]
const CORE_V1_COMPONENT_STATUS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "conditions", Message(CORE_V1_COMPONENT_CONDITION)),
];
#[rustfmt::skip]
const CORE_V1_CONFIG_MAP: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(4, "immutable", Bool),
    map(2, "data", Str),
    map(3, "binaryData", Bytes),
];
#[rustfmt::skip]
const CORE_V1_CONFIG_MAP_ENV_SOURCE: &[Field] = &[
    merge(1, Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    keep(2, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_CONFIG_MAP_KEY_SELECTOR: &[Field] = &[
    merge(1, Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    keep(2, "key", Str),
    keep(3, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_CONFIG_MAP_NODE_CONFIG_SOURCE: &[Field] = &[
    keep(1, "namespace", Str),
    keep(2, "name", Str),
    omit(3, "uid", Str),
    omit(4, "resourceVersion", Str),
    keep(5, "kubeletConfigKey", Str),
];
#[rustfmt::skip]
const CORE_V1_CONFIG_MAP_PROJECTION: &[Field] = &[
    merge(1, Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    list(2, "items", Message(CORE_V1_KEY_TO_PATH)),
    keep(4, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_CONFIG_MAP_VOLUME_SOURCE: &[Field] = &[
    merge(1, Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    list(2, "items", Message(CORE_V1_KEY_TO_PATH)),
    keep(3, "defaultMode", Int),
    keep(4, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER: &[Field] = &[
    keep(1, "name", Str),
    omit(2, "image", Str),
    list(3, "command", Str),
    list(4, "args", Str),
    omit(5, "workingDir", Str),
    list(6, "ports", Message(CORE_V1_CONTAINER_PORT)),
    list(19, "envFrom", Message(CORE_V1_ENV_FROM_SOURCE)),
    list(7, "env", Message(CORE_V1_ENV_VAR)),
    keep(8, "resources", Message(CORE_V1_RESOURCE_REQUIREMENTS)),
    list(23, "resizePolicy", Message(CORE_V1_CONTAINER_RESIZE_POLICY)),
    keep(24, "restartPolicy", Str),
    list(9, "volumeMounts", Message(CORE_V1_VOLUME_MOUNT)),
    list(21, "volumeDevices", Message(CORE_V1_VOLUME_DEVICE)),
    keep(10, "livenessProbe", Message(CORE_V1_PROBE)),
    keep(11, "readinessProbe", Message(CORE_V1_PROBE)),
    keep(22, "startupProbe", Message(CORE_V1_PROBE)),
    keep(12, "lifecycle", Message(CORE_V1_LIFECYCLE)),
    omit(13, "terminationMessagePath", Str),
    omit(20, "terminationMessagePolicy", Str),
    omit(14, "imagePullPolicy", Str),
    keep(15, "securityContext", Message(CORE_V1_SECURITY_CONTEXT)),
    omit(16, "stdin", Bool),
    omit(17, "stdinOnce", Bool),
    omit(18, "tty", Bool),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_IMAGE: &[Field] = &[
    list(1, "names", Str),
    omit(2, "sizeBytes", Int),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_PORT: &[Field] = &[
    omit(1, "name", Str),
    omit(2, "hostPort", Int),
    keep(3, "containerPort", Int),
    omit(4, "protocol", Str),
    omit(5, "hostIP", Str),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_RESIZE_POLICY: &[Field] = &[
    keep(1, "resourceName", Str),
    keep(2, "restartPolicy", Str),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_STATE: &[Field] = &[
    keep(1, "waiting", Message(CORE_V1_CONTAINER_STATE_WAITING)),
    keep(2, "running", Message(CORE_V1_CONTAINER_STATE_RUNNING)),
    keep(3, "terminated", Message(CORE_V1_CONTAINER_STATE_TERMINATED)),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_STATE_RUNNING: &[Field] = &[
    omit(1, "startedAt", Time),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_STATE_TERMINATED: &[Field] = &[
    keep(1, "exitCode", Int),
    omit(2, "signal", Int),
    omit(3, "reason", Str),
    omit(4, "message", Str),
    omit(5, "startedAt", Time),
    omit(6, "finishedAt", Time),
    omit(7, "containerID", Str),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_STATE_WAITING: &[Field] = &[
    omit(1, "reason", Str),
    omit(2, "message", Str),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_STATUS: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "state", Message(CORE_V1_CONTAINER_STATE)),
    keep(3, "lastState", Message(CORE_V1_CONTAINER_STATE)),
    keep(4, "ready", Bool),
    keep(5, "restartCount", Int),
    keep(6, "image", Str),
    keep(7, "imageID", Str),
    omit(8, "containerID", Str),
    keep(9, "started", Bool),
    map(10, "allocatedResources", Quantity),
    keep(11, "resources", Message(CORE_V1_RESOURCE_REQUIREMENTS)),
    list(12, "volumeMounts", Message(CORE_V1_VOLUME_MOUNT_STATUS)),
    keep(13, "user", Message(CORE_V1_CONTAINER_USER)),
    list(14, "allocatedResourcesStatus", Message(CORE_V1_RESOURCE_STATUS)),
    keep(15, "stopSignal", Str),
];
#[rustfmt::skip]
const CORE_V1_CONTAINER_USER: &[Field] = &[
    keep(1, "linux", Message(CORE_V1_LINUX_CONTAINER_USER)),
];
#[rustfmt::skip]
const CORE_V1_CSI_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "driver", Str),
    keep(2, "volumeHandle", Str),
    omit(3, "readOnly", Bool),
    omit(4, "fsType", Str),
    map(5, "volumeAttributes", Str),
    keep(6, "controllerPublishSecretRef", Message(CORE_V1_SECRET_REFERENCE)),
    keep(7, "nodeStageSecretRef", Message(CORE_V1_SECRET_REFERENCE)),
    keep(8, "nodePublishSecretRef", Message(CORE_V1_SECRET_REFERENCE)),
    keep(9, "controllerExpandSecretRef", Message(CORE_V1_SECRET_REFERENCE)),
    keep(10, "nodeExpandSecretRef", Message(CORE_V1_SECRET_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_CSI_VOLUME_SOURCE: &[Field] = &[
    keep(1, "driver", Str),
    keep(2, "readOnly", Bool),
    keep(3, "fsType", Str),
    map(4, "volumeAttributes", Str),
    keep(5, "nodePublishSecretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_DAEMON_ENDPOINT: &[Field] = &[
    keep(1, "Port", Int),
];
#[rustfmt::skip]
const CORE_V1_DOWNWARD_API_PROJECTION: &[Field] = &[
    list(1, "items", Message(CORE_V1_DOWNWARD_API_VOLUME_FILE)),
];
#[rustfmt::skip]
const CORE_V1_DOWNWARD_API_VOLUME_FILE: &[Field] = &[
    keep(1, "path", Str),
    keep(2, "fieldRef", Message(CORE_V1_OBJECT_FIELD_SELECTOR)),
    keep(3, "resourceFieldRef", Message(CORE_V1_RESOURCE_FIELD_SELECTOR)),
    keep(4, "mode", Int),
];
#[rustfmt::skip]
const CORE_V1_DOWNWARD_API_VOLUME_SOURCE: &[Field] = &[
    list(1, "items", Message(CORE_V1_DOWNWARD_API_VOLUME_FILE)),
    keep(2, "defaultMode", Int),
];
#[rustfmt::skip]
const CORE_V1_EMPTY_DIR_VOLUME_SOURCE: &[Field] = &[
    omit(1, "medium", Str),
    keep(2, "sizeLimit", Quantity),
];
#[rustfmt::skip]
const CORE_V1_ENDPOINTS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "subsets", Message(CORE_V1_ENDPOINT_SUBSET)),
];
#[rustfmt::skip]
const CORE_V1_ENDPOINT_ADDRESS: &[Field] = &[
    keep(1, "ip", Str),
    omit(3, "hostname", Str),
    keep(4, "nodeName", Str),
    keep(2, "targetRef", Message(CORE_V1_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_ENDPOINT_PORT: &[Field] = &[
    omit(1, "name", Str),
    keep(2, "port", Int),
    omit(3, "protocol", Str),
    keep(4, "appProtocol", Str),
];
#[rustfmt::skip]
const CORE_V1_ENDPOINT_SUBSET: &[Field] = &[
    list(1, "addresses", Message(CORE_V1_ENDPOINT_ADDRESS)),
    list(2, "notReadyAddresses", Message(CORE_V1_ENDPOINT_ADDRESS)),
    list(3, "ports", Message(CORE_V1_ENDPOINT_PORT)),
];
#[rustfmt::skip]
const CORE_V1_ENV_FROM_SOURCE: &[Field] = &[
    omit(1, "prefix", Str),
    keep(2, "configMapRef", Message(CORE_V1_CONFIG_MAP_ENV_SOURCE)),
    keep(3, "secretRef", Message(CORE_V1_SECRET_ENV_SOURCE)),
];
#[rustfmt::skip]
const CORE_V1_ENV_VAR: &[Field] = &[
    keep(1, "name", Str),
    omit(2, "value", Str),
    keep(3, "valueFrom", Message(CORE_V1_ENV_VAR_SOURCE)),
];
#[rustfmt::skip]
const CORE_V1_ENV_VAR_SOURCE: &[Field] = &[
    keep(1, "fieldRef", Message(CORE_V1_OBJECT_FIELD_SELECTOR)),
    keep(2, "resourceFieldRef", Message(CORE_V1_RESOURCE_FIELD_SELECTOR)),
    keep(3, "configMapKeyRef", Message(CORE_V1_CONFIG_MAP_KEY_SELECTOR)),
    keep(4, "secretKeyRef", Message(CORE_V1_SECRET_KEY_SELECTOR)),
];
#[rustfmt::skip]
const CORE_V1_EPHEMERAL_CONTAINER: &[Field] = &[
    merge(1, Message(CORE_V1_EPHEMERAL_CONTAINER_COMMON)),
    omit(2, "targetContainerName", Str),
];
#[rustfmt::skip]
const CORE_V1_EPHEMERAL_CONTAINER_COMMON: &[Field] = &[
    keep(1, "name", Str),
    omit(2, "image", Str),
    list(3, "command", Str),
    list(4, "args", Str),
    omit(5, "workingDir", Str),
    list(6, "ports", Message(CORE_V1_CONTAINER_PORT)),
    list(19, "envFrom", Message(CORE_V1_ENV_FROM_SOURCE)),
    list(7, "env", Message(CORE_V1_ENV_VAR)),
    keep(8, "resources", Message(CORE_V1_RESOURCE_REQUIREMENTS)),
    list(23, "resizePolicy", Message(CORE_V1_CONTAINER_RESIZE_POLICY)),
    keep(24, "restartPolicy", Str),
    list(9, "volumeMounts", Message(CORE_V1_VOLUME_MOUNT)),
    list(21, "volumeDevices", Message(CORE_V1_VOLUME_DEVICE)),
    keep(10, "livenessProbe", Message(CORE_V1_PROBE)),
    keep(11, "readinessProbe", Message(CORE_V1_PROBE)),
    keep(22, "startupProbe", Message(CORE_V1_PROBE)),
    keep(12, "lifecycle", Message(CORE_V1_LIFECYCLE)),
    omit(13, "terminationMessagePath", Str),
    omit(20, "terminationMessagePolicy", Str),
    omit(14, "imagePullPolicy", Str),
    keep(15, "securityContext", Message(CORE_V1_SECURITY_CONTEXT)),
    omit(16, "stdin", Bool),
    omit(17, "stdinOnce", Bool),
    omit(18, "tty", Bool),
];
#[rustfmt::skip]
const CORE_V1_EPHEMERAL_VOLUME_SOURCE: &[Field] = &[
    keep(1, "volumeClaimTemplate", Message(CORE_V1_PERSISTENT_VOLUME_CLAIM_TEMPLATE)),
];
#[rustfmt::skip]
const CORE_V1_EVENT: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "involvedObject", Message(CORE_V1_OBJECT_REFERENCE)),
    omit(3, "reason", Str),
    omit(4, "message", Str),
    keep(5, "source", Message(CORE_V1_EVENT_SOURCE)),
    omit(6, "firstTimestamp", Time),
    omit(7, "lastTimestamp", Time),
    omit(8, "count", Int),
    omit(9, "type", Str),
    omit(10, "eventTime", MicroTime),
    keep(11, "series", Message(CORE_V1_EVENT_SERIES)),
    omit(12, "action", Str),
    keep(13, "related", Message(CORE_V1_OBJECT_REFERENCE)),
    keep(14, "reportingComponent", Str),
    keep(15, "reportingInstance", Str),
];
#[rustfmt::skip]
const CORE_V1_EVENT_SERIES: &[Field] = &[
    omit(1, "count", Int),
    omit(2, "lastObservedTime", MicroTime),
];
#[rustfmt::skip]
const CORE_V1_EVENT_SOURCE: &[Field] = &[
    omit(1, "component", Str),
    omit(2, "host", Str),
];
#[rustfmt::skip]
const CORE_V1_EXEC_ACTION: &[Field] = &[
    list(1, "command", Str),
];
#[rustfmt::skip]
const CORE_V1_FC_VOLUME_SOURCE: &[Field] = &[
    list(1, "targetWWNs", Str),
    keep(2, "lun", Int),
    omit(3, "fsType", Str),
    omit(4, "readOnly", Bool),
    list(5, "wwids", Str),
];
#[rustfmt::skip]
const CORE_V1_FLEX_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "driver", Str),
    omit(2, "fsType", Str),
    keep(3, "secretRef", Message(CORE_V1_SECRET_REFERENCE)),
    omit(4, "readOnly", Bool),
    map(5, "options", Str),
];
#[rustfmt::skip]
const CORE_V1_FLEX_VOLUME_SOURCE: &[Field] = &[
    keep(1, "driver", Str),
    omit(2, "fsType", Str),
    keep(3, "secretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    omit(4, "readOnly", Bool),
    map(5, "options", Str),
];
#[rustfmt::skip]
const CORE_V1_FLOCKER_VOLUME_SOURCE: &[Field] = &[
    omit(1, "datasetName", Str),
    omit(2, "datasetUUID", Str),
];
#[rustfmt::skip]
const CORE_V1_GCE_PERSISTENT_DISK_VOLUME_SOURCE: &[Field] = &[
    keep(1, "pdName", Str),
    omit(2, "fsType", Str),
    omit(3, "partition", Int),
    omit(4, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_GIT_REPO_VOLUME_SOURCE: &[Field] = &[
    keep(1, "repository", Str),
    omit(2, "revision", Str),
    omit(3, "directory", Str),
];
#[rustfmt::skip]
const CORE_V1_GLUSTERFS_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "endpoints", Str),
    keep(2, "path", Str),
    omit(3, "readOnly", Bool),
    keep(4, "endpointsNamespace", Str),
];
#[rustfmt::skip]
const CORE_V1_GLUSTERFS_VOLUME_SOURCE: &[Field] = &[
    keep(1, "endpoints", Str),
    keep(2, "path", Str),
    omit(3, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_GRPC_ACTION: &[Field] = &[
    keep(1, "port", Int),
    keep(2, "service", Str),
];
#[rustfmt::skip]
const CORE_V1_HOST_ALIAS: &[Field] = &[
    keep(1, "ip", Str),
    list(2, "hostnames", Str),
];
#[rustfmt::skip]
const CORE_V1_HOST_IP: &[Field] = &[
    keep(1, "ip", Str),
];
#[rustfmt::skip]
const CORE_V1_HOST_PATH_VOLUME_SOURCE: &[Field] = &[
    keep(1, "path", Str),
    keep(2, "type", Str),
];
#[rustfmt::skip]
const CORE_V1_HTTP_GET_ACTION: &[Field] = &[
    omit(1, "path", Str),
    keep(2, "port", IntOrString),
    omit(3, "host", Str),
    omit(4, "scheme", Str),
    list(5, "httpHeaders", Message(CORE_V1_HTTP_HEADER)),
];
#[rustfmt::skip]
const CORE_V1_HTTP_HEADER: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "value", Str),
];
#[rustfmt::skip]
const CORE_V1_IMAGE_VOLUME_SOURCE: &[Field] = &[
    omit(1, "reference", Str),
    omit(2, "pullPolicy", Str),
];
#[rustfmt::skip]
const CORE_V1_ISCSI_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "targetPortal", Str),
    keep(2, "iqn", Str),
    keep(3, "lun", Int),
    omit(4, "iscsiInterface", Str),
    omit(5, "fsType", Str),
    omit(6, "readOnly", Bool),
    list(7, "portals", Str),
    omit(8, "chapAuthDiscovery", Bool),
    omit(11, "chapAuthSession", Bool),
    keep(10, "secretRef", Message(CORE_V1_SECRET_REFERENCE)),
    keep(12, "initiatorName", Str),
];
#[rustfmt::skip]
const CORE_V1_ISCSI_VOLUME_SOURCE: &[Field] = &[
    keep(1, "targetPortal", Str),
    keep(2, "iqn", Str),
    keep(3, "lun", Int),
    omit(4, "iscsiInterface", Str),
    omit(5, "fsType", Str),
    omit(6, "readOnly", Bool),
    list(7, "portals", Str),
    omit(8, "chapAuthDiscovery", Bool),
    omit(11, "chapAuthSession", Bool),
    keep(10, "secretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    keep(12, "initiatorName", Str),
];
#[rustfmt::skip]
const CORE_V1_KEY_TO_PATH: &[Field] = &[
    keep(1, "key", Str),
    keep(2, "path", Str),
    keep(3, "mode", Int),
];
#[rustfmt::skip]
const CORE_V1_LIFECYCLE: &[Field] = &[
    keep(1, "postStart", Message(CORE_V1_LIFECYCLE_HANDLER)),
    keep(2, "preStop", Message(CORE_V1_LIFECYCLE_HANDLER)),
    keep(3, "stopSignal", Str),
];
#[rustfmt::skip]
const CORE_V1_LIFECYCLE_HANDLER: &[Field] = &[
    keep(1, "exec", Message(CORE_V1_EXEC_ACTION)),
    keep(2, "httpGet", Message(CORE_V1_HTTP_GET_ACTION)),
    keep(3, "tcpSocket", Message(CORE_V1_TCP_SOCKET_ACTION)),
    keep(4, "sleep", Message(CORE_V1_SLEEP_ACTION)),
];
#[rustfmt::skip]
const CORE_V1_LIMIT_RANGE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_LIMIT_RANGE_SPEC)),
];
#[rustfmt::skip]
const CORE_V1_LIMIT_RANGE_ITEM: &[Field] = &[
    keep(1, "type", Str),
    map(2, "max", Quantity),
    map(3, "min", Quantity),
    map(4, "default", Quantity),
    map(5, "defaultRequest", Quantity),
    map(6, "maxLimitRequestRatio", Quantity),
];
#[rustfmt::skip]
const CORE_V1_LIMIT_RANGE_SPEC: &[Field] = &[
    list(1, "limits", Message(CORE_V1_LIMIT_RANGE_ITEM)),
];
#[rustfmt::skip]
const CORE_V1_LINUX_CONTAINER_USER: &[Field] = &[
    keep(1, "uid", Int),
    keep(2, "gid", Int),
    list(3, "supplementalGroups", Int),
];
#[rustfmt::skip]
const CORE_V1_LOAD_BALANCER_INGRESS: &[Field] = &[
    omit(1, "ip", Str),
    omit(2, "hostname", Str),
    keep(3, "ipMode", Str),
    list(4, "ports", Message(CORE_V1_PORT_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_LOAD_BALANCER_STATUS: &[Field] = &[
    list(1, "ingress", Message(CORE_V1_LOAD_BALANCER_INGRESS)),
];
#[rustfmt::skip]
const CORE_V1_LOCAL_OBJECT_REFERENCE: &[Field] = &[
    omit(1, "name", Str),
];
#[rustfmt::skip]
const CORE_V1_LOCAL_VOLUME_SOURCE: &[Field] = &[
    keep(1, "path", Str),
    keep(2, "fsType", Str),
];
#[rustfmt::skip]
const CORE_V1_MODIFY_VOLUME_STATUS: &[Field] = &[
    omit(1, "targetVolumeAttributesClassName", Str),
    keep(2, "status", Str),
];
#[rustfmt::skip]
const CORE_V1_NAMESPACE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_NAMESPACE_SPEC)),
    keep(3, "status", Message(CORE_V1_NAMESPACE_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_NAMESPACE_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(4, "lastTransitionTime", Time),
    omit(5, "reason", Str),
    omit(6, "message", Str),
];
#[rustfmt::skip]
const CORE_V1_NAMESPACE_SPEC: &[Field] = &[
    list(1, "finalizers", Str),
];
#[rustfmt::skip]
const CORE_V1_NAMESPACE_STATUS: &[Field] = &[
    omit(1, "phase", Str),
    list(2, "conditions", Message(CORE_V1_NAMESPACE_CONDITION)),
];
#[rustfmt::skip]
const CORE_V1_NFS_VOLUME_SOURCE: &[Field] = &[
    keep(1, "server", Str),
    keep(2, "path", Str),
    omit(3, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_NODE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_NODE_SPEC)),
    keep(3, "status", Message(CORE_V1_NODE_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_NODE_ADDRESS: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "address", Str),
];
#[rustfmt::skip]
const CORE_V1_NODE_AFFINITY: &[Field] = &[
    keep(1, "requiredDuringSchedulingIgnoredDuringExecution", Message(CORE_V1_NODE_SELECTOR)),
    list(2, "preferredDuringSchedulingIgnoredDuringExecution", Message(CORE_V1_PREFERRED_SCHEDULING_TERM)),
];
#[rustfmt::skip]
const CORE_V1_NODE_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastHeartbeatTime", Time),
    omit(4, "lastTransitionTime", Time),
    omit(5, "reason", Str),
    omit(6, "message", Str),
];
#[rustfmt::skip]
const CORE_V1_NODE_CONFIG_SOURCE: &[Field] = &[
    keep(2, "configMap", Message(CORE_V1_CONFIG_MAP_NODE_CONFIG_SOURCE)),
];
#[rustfmt::skip]
const CORE_V1_NODE_CONFIG_STATUS: &[Field] = &[
    keep(1, "assigned", Message(CORE_V1_NODE_CONFIG_SOURCE)),
    keep(2, "active", Message(CORE_V1_NODE_CONFIG_SOURCE)),
    keep(3, "lastKnownGood", Message(CORE_V1_NODE_CONFIG_SOURCE)),
    omit(4, "error", Str),
];
#[rustfmt::skip]
const CORE_V1_NODE_DAEMON_ENDPOINTS: &[Field] = &[
    keep(1, "kubeletEndpoint", Message(CORE_V1_DAEMON_ENDPOINT)),
];
#[rustfmt::skip]
const CORE_V1_NODE_FEATURES: &[Field] = &[
    keep(1, "supplementalGroupsPolicy", Bool),
];
#[rustfmt::skip]
const CORE_V1_NODE_RUNTIME_HANDLER: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "features", Message(CORE_V1_NODE_RUNTIME_HANDLER_FEATURES)),
];
#[rustfmt::skip]
const CORE_V1_NODE_RUNTIME_HANDLER_FEATURES: &[Field] = &[
    keep(1, "recursiveReadOnlyMounts", Bool),
    keep(2, "userNamespaces", Bool),
];
#[rustfmt::skip]
const CORE_V1_NODE_SELECTOR: &[Field] = &[
    list(1, "nodeSelectorTerms", Message(CORE_V1_NODE_SELECTOR_TERM)),
];
#[rustfmt::skip]
const CORE_V1_NODE_SELECTOR_REQUIREMENT: &[Field] = &[
    keep(1, "key", Str),
    keep(2, "operator", Str),
    list(3, "values", Str),
];
#[rustfmt::skip]
const CORE_V1_NODE_SELECTOR_TERM: &[Field] = &[
    list(1, "matchExpressions", Message(CORE_V1_NODE_SELECTOR_REQUIREMENT)),
    list(2, "matchFields", Message(CORE_V1_NODE_SELECTOR_REQUIREMENT)),
];
#[rustfmt::skip]
const CORE_V1_NODE_SPEC: &[Field] = &[
    omit(1, "podCIDR", Str),
    list(7, "podCIDRs", Str),
    omit(3, "providerID", Str),
    omit(4, "unschedulable", Bool),
    list(5, "taints", Message(CORE_V1_TAINT)),
    keep(6, "configSource", Message(CORE_V1_NODE_CONFIG_SOURCE)),
    omit(2, "externalID", Str),
];
#[rustfmt::skip]
const CORE_V1_NODE_STATUS: &[Field] = &[
    map(1, "capacity", Quantity),
    map(2, "allocatable", Quantity),
    omit(3, "phase", Str),
    list(4, "conditions", Message(CORE_V1_NODE_CONDITION)),
    list(5, "addresses", Message(CORE_V1_NODE_ADDRESS)),
    keep(6, "daemonEndpoints", Message(CORE_V1_NODE_DAEMON_ENDPOINTS)),
    keep(7, "nodeInfo", Message(CORE_V1_NODE_SYSTEM_INFO)),
    list(8, "images", Message(CORE_V1_CONTAINER_IMAGE)),
    list(9, "volumesInUse", Str),
    list(10, "volumesAttached", Message(CORE_V1_ATTACHED_VOLUME)),
    keep(11, "config", Message(CORE_V1_NODE_CONFIG_STATUS)),
    list(12, "runtimeHandlers", Message(CORE_V1_NODE_RUNTIME_HANDLER)),
    keep(13, "features", Message(CORE_V1_NODE_FEATURES)),
];
#[rustfmt::skip]
const CORE_V1_NODE_SWAP_STATUS: &[Field] = &[
    keep(1, "capacity", Int),
];
#[rustfmt::skip]
const CORE_V1_NODE_SYSTEM_INFO: &[Field] = &[
    keep(1, "machineID", Str),
    keep(2, "systemUUID", Str),
    keep(3, "bootID", Str),
    keep(4, "kernelVersion", Str),
    keep(5, "osImage", Str),
    keep(6, "containerRuntimeVersion", Str),
    keep(7, "kubeletVersion", Str),
    keep(8, "kubeProxyVersion", Str),
    keep(9, "operatingSystem", Str),
    keep(10, "architecture", Str),
    keep(11, "swap", Message(CORE_V1_NODE_SWAP_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_OBJECT_FIELD_SELECTOR: &[Field] = &[
    omit(1, "apiVersion", Str),
    keep(2, "fieldPath", Str),
];
#[rustfmt::skip]
const CORE_V1_OBJECT_REFERENCE: &[Field] = &[
    omit(1, "kind", Str),
    omit(2, "namespace", Str),
    omit(3, "name", Str),
    omit(4, "uid", Str),
    omit(5, "apiVersion", Str),
    omit(6, "resourceVersion", Str),
    omit(7, "fieldPath", Str),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_PERSISTENT_VOLUME_SPEC)),
    keep(3, "status", Message(CORE_V1_PERSISTENT_VOLUME_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_CLAIM: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_PERSISTENT_VOLUME_CLAIM_SPEC)),
    keep(3, "status", Message(CORE_V1_PERSISTENT_VOLUME_CLAIM_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_CLAIM_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastProbeTime", Time),
    omit(4, "lastTransitionTime", Time),
    omit(5, "reason", Str),
    omit(6, "message", Str),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_CLAIM_SPEC: &[Field] = &[
    list(1, "accessModes", Str),
    keep(4, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(2, "resources", Message(CORE_V1_VOLUME_RESOURCE_REQUIREMENTS)),
    omit(3, "volumeName", Str),
    keep(5, "storageClassName", Str),
    keep(6, "volumeMode", Str),
    keep(7, "dataSource", Message(CORE_V1_TYPED_LOCAL_OBJECT_REFERENCE)),
    keep(8, "dataSourceRef", Message(CORE_V1_TYPED_OBJECT_REFERENCE)),
    keep(9, "volumeAttributesClassName", Str),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_CLAIM_STATUS: &[Field] = &[
    omit(1, "phase", Str),
    list(2, "accessModes", Str),
    map(3, "capacity", Quantity),
    list(4, "conditions", Message(CORE_V1_PERSISTENT_VOLUME_CLAIM_CONDITION)),
    map(5, "allocatedResources", Quantity),
    map(7, "allocatedResourceStatuses", Str),
    keep(8, "currentVolumeAttributesClassName", Str),
    keep(9, "modifyVolumeStatus", Message(CORE_V1_MODIFY_VOLUME_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_CLAIM_TEMPLATE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_PERSISTENT_VOLUME_CLAIM_SPEC)),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE: &[Field] = &[
    keep(1, "claimName", Str),
    omit(2, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "gcePersistentDisk", Message(CORE_V1_GCE_PERSISTENT_DISK_VOLUME_SOURCE)),
    keep(2, "awsElasticBlockStore", Message(CORE_V1_AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE)),
    keep(3, "hostPath", Message(CORE_V1_HOST_PATH_VOLUME_SOURCE)),
    keep(4, "glusterfs", Message(CORE_V1_GLUSTERFS_PERSISTENT_VOLUME_SOURCE)),
    keep(5, "nfs", Message(CORE_V1_NFS_VOLUME_SOURCE)),
    keep(6, "rbd", Message(CORE_V1_RBD_PERSISTENT_VOLUME_SOURCE)),
    keep(7, "iscsi", Message(CORE_V1_ISCSI_PERSISTENT_VOLUME_SOURCE)),
    keep(8, "cinder", Message(CORE_V1_CINDER_PERSISTENT_VOLUME_SOURCE)),
    keep(9, "cephfs", Message(CORE_V1_CEPH_FS_PERSISTENT_VOLUME_SOURCE)),
    keep(10, "fc", Message(CORE_V1_FC_VOLUME_SOURCE)),
    keep(11, "flocker", Message(CORE_V1_FLOCKER_VOLUME_SOURCE)),
    keep(12, "flexVolume", Message(CORE_V1_FLEX_PERSISTENT_VOLUME_SOURCE)),
    keep(13, "azureFile", Message(CORE_V1_AZURE_FILE_PERSISTENT_VOLUME_SOURCE)),
    keep(14, "vsphereVolume", Message(CORE_V1_VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE)),
    keep(15, "quobyte", Message(CORE_V1_QUOBYTE_VOLUME_SOURCE)),
    keep(16, "azureDisk", Message(CORE_V1_AZURE_DISK_VOLUME_SOURCE)),
    keep(17, "photonPersistentDisk", Message(CORE_V1_PHOTON_PERSISTENT_DISK_VOLUME_SOURCE)),
    keep(18, "portworxVolume", Message(CORE_V1_PORTWORX_VOLUME_SOURCE)),
    keep(19, "scaleIO", Message(CORE_V1_SCALE_IO_PERSISTENT_VOLUME_SOURCE)),
    keep(20, "local", Message(CORE_V1_LOCAL_VOLUME_SOURCE)),
    keep(21, "storageos", Message(CORE_V1_STORAGE_OS_PERSISTENT_VOLUME_SOURCE)),
    keep(22, "csi", Message(CORE_V1_CSI_PERSISTENT_VOLUME_SOURCE)),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_SPEC: &[Field] = &[
    map(1, "capacity", Quantity),
    merge(2, Message(CORE_V1_PERSISTENT_VOLUME_SOURCE)),
    list(3, "accessModes", Str),
    keep(4, "claimRef", Message(CORE_V1_OBJECT_REFERENCE)),
    omit(5, "persistentVolumeReclaimPolicy", Str),
    omit(6, "storageClassName", Str),
    list(7, "mountOptions", Str),
    keep(8, "volumeMode", Str),
    keep(9, "nodeAffinity", Message(CORE_V1_VOLUME_NODE_AFFINITY)),
    keep(10, "volumeAttributesClassName", Str),
];
#[rustfmt::skip]
const CORE_V1_PERSISTENT_VOLUME_STATUS: &[Field] = &[
    omit(1, "phase", Str),
    omit(2, "message", Str),
    omit(3, "reason", Str),
    keep(4, "lastPhaseTransitionTime", Time),
];
#[rustfmt::skip]
const CORE_V1_PHOTON_PERSISTENT_DISK_VOLUME_SOURCE: &[Field] = &[
    keep(1, "pdID", Str),
    omit(2, "fsType", Str),
];
#[rustfmt::skip]
const CORE_V1_POD: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_POD_SPEC)),
    keep(3, "status", Message(CORE_V1_POD_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_POD_AFFINITY: &[Field] = &[
    list(1, "requiredDuringSchedulingIgnoredDuringExecution", Message(CORE_V1_POD_AFFINITY_TERM)),
    list(2, "preferredDuringSchedulingIgnoredDuringExecution", Message(CORE_V1_WEIGHTED_POD_AFFINITY_TERM)),
];
#[rustfmt::skip]
const CORE_V1_POD_AFFINITY_TERM: &[Field] = &[
    keep(1, "labelSelector", Message(META_V1_LABEL_SELECTOR)),
    list(2, "namespaces", Str),
    keep(3, "topologyKey", Str),
    keep(4, "namespaceSelector", Message(META_V1_LABEL_SELECTOR)),
    list(5, "matchLabelKeys", Str),
    list(6, "mismatchLabelKeys", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_ANTI_AFFINITY: &[Field] = &[
    list(1, "requiredDuringSchedulingIgnoredDuringExecution", Message(CORE_V1_POD_AFFINITY_TERM)),
    list(2, "preferredDuringSchedulingIgnoredDuringExecution", Message(CORE_V1_WEIGHTED_POD_AFFINITY_TERM)),
];
#[rustfmt::skip]
const CORE_V1_POD_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    omit(7, "observedGeneration", Int),
    keep(2, "status", Str),
    omit(3, "lastProbeTime", Time),
    omit(4, "lastTransitionTime", Time),
    omit(5, "reason", Str),
    omit(6, "message", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_DNS_CONFIG: &[Field] = &[
    list(1, "nameservers", Str),
    list(2, "searches", Str),
    list(3, "options", Message(CORE_V1_POD_DNS_CONFIG_OPTION)),
];
#[rustfmt::skip]
const CORE_V1_POD_DNS_CONFIG_OPTION: &[Field] = &[
    omit(1, "name", Str),
    keep(2, "value", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_IP: &[Field] = &[
    keep(1, "ip", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_OS: &[Field] = &[
    keep(1, "name", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_READINESS_GATE: &[Field] = &[
    keep(1, "conditionType", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_RESOURCE_CLAIM: &[Field] = &[
    keep(1, "name", Str),
    keep(3, "resourceClaimName", Str),
    keep(4, "resourceClaimTemplateName", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_RESOURCE_CLAIM_STATUS: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "resourceClaimName", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_SCHEDULING_GATE: &[Field] = &[
    keep(1, "name", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_SECURITY_CONTEXT: &[Field] = &[
    keep(1, "seLinuxOptions", Message(CORE_V1_SE_LINUX_OPTIONS)),
    keep(8, "windowsOptions", Message(CORE_V1_WINDOWS_SECURITY_CONTEXT_OPTIONS)),
    keep(2, "runAsUser", Int),
    keep(6, "runAsGroup", Int),
    keep(3, "runAsNonRoot", Bool),
    list(4, "supplementalGroups", Int),
    keep(12, "supplementalGroupsPolicy", Str),
    keep(5, "fsGroup", Int),
    list(7, "sysctls", Message(CORE_V1_SYSCTL)),
    keep(9, "fsGroupChangePolicy", Str),
    keep(10, "seccompProfile", Message(CORE_V1_SECCOMP_PROFILE)),
    keep(11, "appArmorProfile", Message(CORE_V1_APP_ARMOR_PROFILE)),
    keep(13, "seLinuxChangePolicy", Str),
];
#[rustfmt::skip]
const CORE_V1_POD_SPEC: &[Field] = &[
    list(1, "volumes", Message(CORE_V1_VOLUME)),
    list(20, "initContainers", Message(CORE_V1_CONTAINER)),
    list(2, "containers", Message(CORE_V1_CONTAINER)),
    list(34, "ephemeralContainers", Message(CORE_V1_EPHEMERAL_CONTAINER)),
    omit(3, "restartPolicy", Str),
    keep(4, "terminationGracePeriodSeconds", Int),
    keep(5, "activeDeadlineSeconds", Int),
    omit(6, "dnsPolicy", Str),
    map(7, "nodeSelector", Str),
    omit(8, "serviceAccountName", Str),
    omit(9, "serviceAccount", Str),
    keep(21, "automountServiceAccountToken", Bool),
    omit(10, "nodeName", Str),
    omit(11, "hostNetwork", Bool),
    omit(12, "hostPID", Bool),
    omit(13, "hostIPC", Bool),
    keep(27, "shareProcessNamespace", Bool),
    keep(14, "securityContext", Message(CORE_V1_POD_SECURITY_CONTEXT)),
    list(15, "imagePullSecrets", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    omit(16, "hostname", Str),
    omit(17, "subdomain", Str),
    keep(18, "affinity", Message(CORE_V1_AFFINITY)),
    omit(19, "schedulerName", Str),
    list(22, "tolerations", Message(CORE_V1_TOLERATION)),
    list(23, "hostAliases", Message(CORE_V1_HOST_ALIAS)),
    omit(24, "priorityClassName", Str),
    keep(25, "priority", Int),
    keep(26, "dnsConfig", Message(CORE_V1_POD_DNS_CONFIG)),
    list(28, "readinessGates", Message(CORE_V1_POD_READINESS_GATE)),
    keep(29, "runtimeClassName", Str),
    keep(30, "enableServiceLinks", Bool),
    keep(31, "preemptionPolicy", Str),
    map(32, "overhead", Quantity),
    list(33, "topologySpreadConstraints", Message(CORE_V1_TOPOLOGY_SPREAD_CONSTRAINT)),
    keep(35, "setHostnameAsFQDN", Bool),
    keep(36, "os", Message(CORE_V1_POD_OS)),
    keep(37, "hostUsers", Bool),
    list(38, "schedulingGates", Message(CORE_V1_POD_SCHEDULING_GATE)),
    list(39, "resourceClaims", Message(CORE_V1_POD_RESOURCE_CLAIM)),
    keep(40, "resources", Message(CORE_V1_RESOURCE_REQUIREMENTS)),
];
#[rustfmt::skip]
const CORE_V1_POD_STATUS: &[Field] = &[
    omit(17, "observedGeneration", Int),
    omit(1, "phase", Str),
    list(2, "conditions", Message(CORE_V1_POD_CONDITION)),
    omit(3, "message", Str),
    omit(4, "reason", Str),
    omit(11, "nominatedNodeName", Str),
    omit(5, "hostIP", Str),
    list(16, "hostIPs", Message(CORE_V1_HOST_IP)),
    omit(6, "podIP", Str),
    list(12, "podIPs", Message(CORE_V1_POD_IP)),
    keep(7, "startTime", Time),
    list(10, "initContainerStatuses", Message(CORE_V1_CONTAINER_STATUS)),
    list(8, "containerStatuses", Message(CORE_V1_CONTAINER_STATUS)),
    omit(9, "qosClass", Str),
    list(13, "ephemeralContainerStatuses", Message(CORE_V1_CONTAINER_STATUS)),
    omit(14, "resize", Str),
    list(15, "resourceClaimStatuses", Message(CORE_V1_POD_RESOURCE_CLAIM_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_POD_TEMPLATE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "template", Message(CORE_V1_POD_TEMPLATE_SPEC)),
];
#[rustfmt::skip]
const CORE_V1_POD_TEMPLATE_SPEC: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_POD_SPEC)),
];
#[rustfmt::skip]
const CORE_V1_PORTWORX_VOLUME_SOURCE: &[Field] = &[
    keep(1, "volumeID", Str),
    omit(2, "fsType", Str),
    omit(3, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_PORT_STATUS: &[Field] = &[
    keep(1, "port", Int),
    keep(2, "protocol", Str),
    keep(3, "error", Str),
];
#[rustfmt::skip]
const CORE_V1_PREFERRED_SCHEDULING_TERM: &[Field] = &[
    keep(1, "weight", Int),
    keep(2, "preference", Message(CORE_V1_NODE_SELECTOR_TERM)),
];
#[rustfmt::skip]
const CORE_V1_PROBE: &[Field] = &[
    merge(1, Message(CORE_V1_PROBE_HANDLER)),
    omit(2, "initialDelaySeconds", Int),
    omit(3, "timeoutSeconds", Int),
    omit(4, "periodSeconds", Int),
    omit(5, "successThreshold", Int),
    omit(6, "failureThreshold", Int),
    keep(7, "terminationGracePeriodSeconds", Int),
];
#[rustfmt::skip]
const CORE_V1_PROBE_HANDLER: &[Field] = &[
    keep(1, "exec", Message(CORE_V1_EXEC_ACTION)),
    keep(2, "httpGet", Message(CORE_V1_HTTP_GET_ACTION)),
    keep(3, "tcpSocket", Message(CORE_V1_TCP_SOCKET_ACTION)),
    keep(4, "grpc", Message(CORE_V1_GRPC_ACTION)),
];
#[rustfmt::skip]
const CORE_V1_PROJECTED_VOLUME_SOURCE: &[Field] = &[
    list(1, "sources", Message(CORE_V1_VOLUME_PROJECTION)),
    keep(2, "defaultMode", Int),
];
#[rustfmt::skip]
const CORE_V1_QUOBYTE_VOLUME_SOURCE: &[Field] = &[
    keep(1, "registry", Str),
    keep(2, "volume", Str),
    omit(3, "readOnly", Bool),
    omit(4, "user", Str),
    omit(5, "group", Str),
    omit(6, "tenant", Str),
];
#[rustfmt::skip]
const CORE_V1_RBD_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    list(1, "monitors", Str),
    keep(2, "image", Str),
    omit(3, "fsType", Str),
    omit(4, "pool", Str),
    omit(5, "user", Str),
    omit(6, "keyring", Str),
    keep(7, "secretRef", Message(CORE_V1_SECRET_REFERENCE)),
    omit(8, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_RBD_VOLUME_SOURCE: &[Field] = &[
    list(1, "monitors", Str),
    keep(2, "image", Str),
    omit(3, "fsType", Str),
    omit(4, "pool", Str),
    omit(5, "user", Str),
    omit(6, "keyring", Str),
    keep(7, "secretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    omit(8, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_REPLICATION_CONTROLLER: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_REPLICATION_CONTROLLER_SPEC)),
    keep(3, "status", Message(CORE_V1_REPLICATION_CONTROLLER_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_REPLICATION_CONTROLLER_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const CORE_V1_REPLICATION_CONTROLLER_SPEC: &[Field] = &[
    keep(1, "replicas", Int),
    omit(4, "minReadySeconds", Int),
    map(2, "selector", Str),
    keep(3, "template", Message(CORE_V1_POD_TEMPLATE_SPEC)),
];
#[rustfmt::skip]
const CORE_V1_REPLICATION_CONTROLLER_STATUS: &[Field] = &[
    keep(1, "replicas", Int),
    omit(2, "fullyLabeledReplicas", Int),
    omit(4, "readyReplicas", Int),
    omit(5, "availableReplicas", Int),
    omit(3, "observedGeneration", Int),
    list(6, "conditions", Message(CORE_V1_REPLICATION_CONTROLLER_CONDITION)),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_CLAIM: &[Field] = &[
    keep(1, "name", Str),
    omit(2, "request", Str),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_FIELD_SELECTOR: &[Field] = &[
    omit(1, "containerName", Str),
    keep(2, "resource", Str),
    omit(3, "divisor", Quantity),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_HEALTH: &[Field] = &[
    keep(1, "resourceID", Str),
    omit(2, "health", Str),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_QUOTA: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_RESOURCE_QUOTA_SPEC)),
    keep(3, "status", Message(CORE_V1_RESOURCE_QUOTA_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_QUOTA_SPEC: &[Field] = &[
    map(1, "hard", Quantity),
    list(2, "scopes", Str),
    keep(3, "scopeSelector", Message(CORE_V1_SCOPE_SELECTOR)),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_QUOTA_STATUS: &[Field] = &[
    map(1, "hard", Quantity),
    map(2, "used", Quantity),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_REQUIREMENTS: &[Field] = &[
    map(1, "limits", Quantity),
    map(2, "requests", Quantity),
    list(3, "claims", Message(CORE_V1_RESOURCE_CLAIM)),
];
#[rustfmt::skip]
const CORE_V1_RESOURCE_STATUS: &[Field] = &[
    keep(1, "name", Str),
    list(2, "resources", Message(CORE_V1_RESOURCE_HEALTH)),
];
#[rustfmt::skip]
const CORE_V1_SCALE_IO_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    keep(1, "gateway", Str),
    keep(2, "system", Str),
    keep(3, "secretRef", Message(CORE_V1_SECRET_REFERENCE)),
    omit(4, "sslEnabled", Bool),
    omit(5, "protectionDomain", Str),
    omit(6, "storagePool", Str),
    omit(7, "storageMode", Str),
    omit(8, "volumeName", Str),
    omit(9, "fsType", Str),
    omit(10, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_SCALE_IO_VOLUME_SOURCE: &[Field] = &[
    keep(1, "gateway", Str),
    keep(2, "system", Str),
    keep(3, "secretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    omit(4, "sslEnabled", Bool),
    omit(5, "protectionDomain", Str),
    omit(6, "storagePool", Str),
    omit(7, "storageMode", Str),
    omit(8, "volumeName", Str),
    omit(9, "fsType", Str),
    omit(10, "readOnly", Bool),
];
#[rustfmt::skip]
const CORE_V1_SCOPED_RESOURCE_SELECTOR_REQUIREMENT: &[Field] = &[
    keep(1, "scopeName", Str),
    keep(2, "operator", Str),
    list(3, "values", Str),
];
#[rustfmt::skip]
const CORE_V1_SCOPE_SELECTOR: &[Field] = &[
    list(1, "matchExpressions", Message(CORE_V1_SCOPED_RESOURCE_SELECTOR_REQUIREMENT)),
];
#[rustfmt::skip]
const CORE_V1_SECCOMP_PROFILE: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "localhostProfile", Str),
];
#[rustfmt::skip]
const CORE_V1_SECRET: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(5, "immutable", Bool),
    map(2, "data", Bytes),
    map(4, "stringData", Str),
    omit(3, "type", Str),
];
#[rustfmt::skip]
const CORE_V1_SECRET_ENV_SOURCE: &[Field] = &[
    merge(1, Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    keep(2, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_SECRET_KEY_SELECTOR: &[Field] = &[
    merge(1, Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    keep(2, "key", Str),
    keep(3, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_SECRET_PROJECTION: &[Field] = &[
    merge(1, Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    list(2, "items", Message(CORE_V1_KEY_TO_PATH)),
    keep(4, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_SECRET_REFERENCE: &[Field] = &[
    omit(1, "name", Str),
    omit(2, "namespace", Str),
];
#[rustfmt::skip]
const CORE_V1_SECRET_VOLUME_SOURCE: &[Field] = &[
    omit(1, "secretName", Str),
    list(2, "items", Message(CORE_V1_KEY_TO_PATH)),
    keep(3, "defaultMode", Int),
    keep(4, "optional", Bool),
];
#[rustfmt::skip]
const CORE_V1_SECURITY_CONTEXT: &[Field] = &[
    keep(1, "capabilities", Message(CORE_V1_CAPABILITIES)),
    keep(2, "privileged", Bool),
    keep(3, "seLinuxOptions", Message(CORE_V1_SE_LINUX_OPTIONS)),
    keep(10, "windowsOptions", Message(CORE_V1_WINDOWS_SECURITY_CONTEXT_OPTIONS)),
    keep(4, "runAsUser", Int),
    keep(8, "runAsGroup", Int),
    keep(5, "runAsNonRoot", Bool),
    keep(6, "readOnlyRootFilesystem", Bool),
    keep(7, "allowPrivilegeEscalation", Bool),
    keep(9, "procMount", Str),
    keep(11, "seccompProfile", Message(CORE_V1_SECCOMP_PROFILE)),
    keep(12, "appArmorProfile", Message(CORE_V1_APP_ARMOR_PROFILE)),
];
#[rustfmt::skip]
const CORE_V1_SERVICE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(CORE_V1_SERVICE_SPEC)),
    keep(3, "status", Message(CORE_V1_SERVICE_STATUS)),
];
#[rustfmt::skip]
const CORE_V1_SERVICE_ACCOUNT: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "secrets", Message(CORE_V1_OBJECT_REFERENCE)),
    list(3, "imagePullSecrets", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
    keep(4, "automountServiceAccountToken", Bool),
];
#[rustfmt::skip]
const CORE_V1_SERVICE_ACCOUNT_TOKEN_PROJECTION: &[Field] = &[
    omit(1, "audience", Str),
    keep(2, "expirationSeconds", Int),
    keep(3, "path", Str),
];
#[rustfmt::skip]
const CORE_V1_SERVICE_PORT: &[Field] = &[
    omit(1, "name", Str),
    omit(2, "protocol", Str),
    keep(6, "appProtocol", Str),
    keep(3, "port", Int),
    omit(4, "targetPort", IntOrString),
    omit(5, "nodePort", Int),
];
#[rustfmt::skip]
const CORE_V1_SERVICE_SPEC: &[Field] = &[
    list(1, "ports", Message(CORE_V1_SERVICE_PORT)),
    map(2, "selector", Str),
    omit(3, "clusterIP", Str),
    list(18, "clusterIPs", Str),
    omit(4, "type", Str),
    list(5, "externalIPs", Str),
    omit(7, "sessionAffinity", Str),
    omit(8, "loadBalancerIP", Str),
    list(9, "loadBalancerSourceRanges", Str),
    omit(10, "externalName", Str),
    omit(11, "externalTrafficPolicy", Str),
    omit(12, "healthCheckNodePort", Int),
    omit(13, "publishNotReadyAddresses", Bool),
    keep(14, "sessionAffinityConfig", Message(CORE_V1_SESSION_AFFINITY_CONFIG)),
    list(19, "ipFamilies", Str),
    keep(17, "ipFamilyPolicy", Str),
    keep(20, "allocateLoadBalancerNodePorts", Bool),
    keep(21, "loadBalancerClass", Str),
    keep(22, "internalTrafficPolicy", Str),
    keep(23, "trafficDistribution", Str),
];
#[rustfmt::skip]
const CORE_V1_SERVICE_STATUS: &[Field] = &[
    keep(1, "loadBalancer", Message(CORE_V1_LOAD_BALANCER_STATUS)),
    list(2, "conditions", Message(META_V1_CONDITION)),
];
#[rustfmt::skip]
const CORE_V1_SESSION_AFFINITY_CONFIG: &[Field] = &[
    keep(1, "clientIP", Message(CORE_V1_CLIENT_IP_CONFIG)),
];
#[rustfmt::skip]
const CORE_V1_SE_LINUX_OPTIONS: &[Field] = &[
    omit(1, "user", Str),
    omit(2, "role", Str),
    omit(3, "type", Str),
    omit(4, "level", Str),
];
#[rustfmt::skip]
const CORE_V1_SLEEP_ACTION: &[Field] = &[
    keep(1, "seconds", Int),
];
#[rustfmt::skip]
const CORE_V1_STORAGE_OS_PERSISTENT_VOLUME_SOURCE: &[Field] = &[
    omit(1, "volumeName", Str),
    omit(2, "volumeNamespace", Str),
    omit(3, "fsType", Str),
    omit(4, "readOnly", Bool),
    keep(5, "secretRef", Message(CORE_V1_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_STORAGE_OS_VOLUME_SOURCE: &[Field] = &[
    omit(1, "volumeName", Str),
    omit(2, "volumeNamespace", Str),
    omit(3, "fsType", Str),
    omit(4, "readOnly", Bool),
    keep(5, "secretRef", Message(CORE_V1_LOCAL_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const CORE_V1_SYSCTL: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "value", Str),
];
#[rustfmt::skip]
const CORE_V1_TAINT: &[Field] = &[
    keep(1, "key", Str),
    omit(2, "value", Str),
    keep(3, "effect", Str),
    keep(4, "timeAdded", Time),
];
#[rustfmt::skip]
const CORE_V1_TCP_SOCKET_ACTION: &[Field] = &[
    keep(1, "port", IntOrString),
    omit(2, "host", Str),
];
#[rustfmt::skip]
const CORE_V1_TOLERATION: &[Field] = &[
    omit(1, "key", Str),
    omit(2, "operator", Str),
    omit(3, "value", Str),
    omit(4, "effect", Str),
    keep(5, "tolerationSeconds", Int),
];
#[rustfmt::skip]
const CORE_V1_TOPOLOGY_SELECTOR_LABEL_REQUIREMENT: &[Field] = &[
    keep(1, "key", Str),
    list(2, "values", Str),
];
#[rustfmt::skip]
const CORE_V1_TOPOLOGY_SELECTOR_TERM: &[Field] = &[
    list(1, "matchLabelExpressions", Message(CORE_V1_TOPOLOGY_SELECTOR_LABEL_REQUIREMENT)),
];
#[rustfmt::skip]
const CORE_V1_TOPOLOGY_SPREAD_CONSTRAINT: &[Field] = &[
    keep(1, "maxSkew", Int),
    keep(2, "topologyKey", Str),
    keep(3, "whenUnsatisfiable", Str),
    keep(4, "labelSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(5, "minDomains", Int),
    keep(6, "nodeAffinityPolicy", Str),
    keep(7, "nodeTaintsPolicy", Str),
    list(8, "matchLabelKeys", Str),
];
#[rustfmt::skip]
const CORE_V1_TYPED_LOCAL_OBJECT_REFERENCE: &[Field] = &[
    keep(1, "apiGroup", Str),
    keep(2, "kind", Str),
    keep(3, "name", Str),
];
#[rustfmt::skip]
const CORE_V1_TYPED_OBJECT_REFERENCE: &[Field] = &[
    keep(1, "apiGroup", Str),
    keep(2, "kind", Str),
    keep(3, "name", Str),
    keep(4, "namespace", Str),
];
#[rustfmt::skip]
const CORE_V1_VOLUME: &[Field] = &[
    keep(1, "name", Str),
    merge(2, Message(CORE_V1_VOLUME_SOURCE)),
];
#[rustfmt::skip]
const CORE_V1_VOLUME_DEVICE: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "devicePath", Str),
];
#[rustfmt::skip]
const CORE_V1_VOLUME_MOUNT: &[Field] = &[
    keep(1, "name", Str),
    omit(2, "readOnly", Bool),
    keep(7, "recursiveReadOnly", Str),
    keep(3, "mountPath", Str),
    omit(4, "subPath", Str),
    keep(5, "mountPropagation", Str),
    omit(6, "subPathExpr", Str),
];
#[rustfmt::skip]
const CORE_V1_VOLUME_MOUNT_STATUS: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "mountPath", Str),
    omit(3, "readOnly", Bool),
    keep(4, "recursiveReadOnly", Str),
];
#[rustfmt::skip]
const CORE_V1_VOLUME_NODE_AFFINITY: &[Field] = &[
    keep(1, "required", Message(CORE_V1_NODE_SELECTOR)),
];
#[rustfmt::skip]
const CORE_V1_VOLUME_PROJECTION: &[Field] = &[
    keep(1, "secret", Message(CORE_V1_SECRET_PROJECTION)),
    keep(2, "downwardAPI", Message(CORE_V1_DOWNWARD_API_PROJECTION)),
    keep(3, "configMap", Message(CORE_V1_CONFIG_MAP_PROJECTION)),
    keep(4, "serviceAccountToken", Message(CORE_V1_SERVICE_ACCOUNT_TOKEN_PROJECTION)),
    keep(5, "clusterTrustBundle", Message(CORE_V1_CLUSTER_TRUST_BUNDLE_PROJECTION)),
];
#[rustfmt::skip]
const CORE_V1_VOLUME_RESOURCE_REQUIREMENTS: &[Field] = &[
    map(1, "limits", Quantity),
    map(2, "requests", Quantity),
];
#[rustfmt::skip]
const CORE_V1_VOLUME_SOURCE: &[Field] = &[
    keep(1, "hostPath", Message(CORE_V1_HOST_PATH_VOLUME_SOURCE)),
    keep(2, "emptyDir", Message(CORE_V1_EMPTY_DIR_VOLUME_SOURCE)),
    keep(3, "gcePersistentDisk", Message(CORE_V1_GCE_PERSISTENT_DISK_VOLUME_SOURCE)),
    keep(4, "awsElasticBlockStore", Message(CORE_V1_AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE)),
    keep(5, "gitRepo", Message(CORE_V1_GIT_REPO_VOLUME_SOURCE)),
    keep(6, "secret", Message(CORE_V1_SECRET_VOLUME_SOURCE)),
    keep(7, "nfs", Message(CORE_V1_NFS_VOLUME_SOURCE)),
    keep(8, "iscsi", Message(CORE_V1_ISCSI_VOLUME_SOURCE)),
    keep(9, "glusterfs", Message(CORE_V1_GLUSTERFS_VOLUME_SOURCE)),
    keep(10, "persistentVolumeClaim", Message(CORE_V1_PERSISTENT_VOLUME_CLAIM_VOLUME_SOURCE)),
    keep(11, "rbd", Message(CORE_V1_RBD_VOLUME_SOURCE)),
    keep(12, "flexVolume", Message(CORE_V1_FLEX_VOLUME_SOURCE)),
    keep(13, "cinder", Message(CORE_V1_CINDER_VOLUME_SOURCE)),
    keep(14, "cephfs", Message(CORE_V1_CEPH_FS_VOLUME_SOURCE)),
    keep(15, "flocker", Message(CORE_V1_FLOCKER_VOLUME_SOURCE)),
    keep(16, "downwardAPI", Message(CORE_V1_DOWNWARD_API_VOLUME_SOURCE)),
    keep(17, "fc", Message(CORE_V1_FC_VOLUME_SOURCE)),
    keep(18, "azureFile", Message(CORE_V1_AZURE_FILE_VOLUME_SOURCE)),
    keep(19, "configMap", Message(CORE_V1_CONFIG_MAP_VOLUME_SOURCE)),
    keep(20, "vsphereVolume", Message(CORE_V1_VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE)),
    keep(21, "quobyte", Message(CORE_V1_QUOBYTE_VOLUME_SOURCE)),
    keep(22, "azureDisk", Message(CORE_V1_AZURE_DISK_VOLUME_SOURCE)),
    keep(23, "photonPersistentDisk", Message(CORE_V1_PHOTON_PERSISTENT_DISK_VOLUME_SOURCE)),
    keep(26, "projected", Message(CORE_V1_PROJECTED_VOLUME_SOURCE)),
    keep(24, "portworxVolume", Message(CORE_V1_PORTWORX_VOLUME_SOURCE)),
    keep(25, "scaleIO", Message(CORE_V1_SCALE_IO_VOLUME_SOURCE)),
    keep(27, "storageos", Message(CORE_V1_STORAGE_OS_VOLUME_SOURCE)),
    keep(28, "csi", Message(CORE_V1_CSI_VOLUME_SOURCE)),
    keep(29, "ephemeral", Message(CORE_V1_EPHEMERAL_VOLUME_SOURCE)),
    keep(30, "image", Message(CORE_V1_IMAGE_VOLUME_SOURCE)),
];
#[rustfmt::skip]
const CORE_V1_VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE: &[Field] = &[
    keep(1, "volumePath", Str),
    omit(2, "fsType", Str),
    omit(3, "storagePolicyName", Str),
    omit(4, "storagePolicyID", Str),
];
#[rustfmt::skip]
const CORE_V1_WEIGHTED_POD_AFFINITY_TERM: &[Field] = &[
    keep(1, "weight", Int),
    keep(2, "podAffinityTerm", Message(CORE_V1_POD_AFFINITY_TERM)),
];
#[rustfmt::skip]
const CORE_V1_WINDOWS_SECURITY_CONTEXT_OPTIONS: &[Field] = &[
    keep(1, "gmsaCredentialSpecName", Str),
    keep(2, "gmsaCredentialSpec", Str),
    keep(3, "runAsUserName", Str),
    keep(4, "hostProcess", Bool),
];
#[rustfmt::skip]
const DISCOVERY_V1_ENDPOINT: &[Field] = &[
    list(1, "addresses", Str),
    keep(2, "conditions", Message(DISCOVERY_V1_ENDPOINT_CONDITIONS)),
    keep(3, "hostname", Str),
    keep(4, "targetRef", Message(CORE_V1_OBJECT_REFERENCE)),
    map(5, "deprecatedTopology", Str),
    keep(6, "nodeName", Str),
    keep(7, "zone", Str),
    keep(8, "hints", Message(DISCOVERY_V1_ENDPOINT_HINTS)),
];
#[rustfmt::skip]
const DISCOVERY_V1_ENDPOINT_CONDITIONS: &[Field] = &[
    keep(1, "ready", Bool),
    keep(2, "serving", Bool),
    keep(3, "terminating", Bool),
];
#[rustfmt::skip]
const DISCOVERY_V1_ENDPOINT_HINTS: &[Field] = &[
    list(1, "forZones", Message(DISCOVERY_V1_FOR_ZONE)),
    list(2, "forNodes", Message(DISCOVERY_V1_FOR_NODE)),
];
#[rustfmt::skip]
const DISCOVERY_V1_ENDPOINT_PORT: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "protocol", Str),
    keep(3, "port", Int),
    keep(4, "appProtocol", Str),
];
#[rustfmt::skip]
const DISCOVERY_V1_ENDPOINT_SLICE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(4, "addressType", Str),
    list(2, "endpoints", Message(DISCOVERY_V1_ENDPOINT)),
    list(3, "ports", Message(DISCOVERY_V1_ENDPOINT_PORT)),
];
#[rustfmt::skip]
const DISCOVERY_V1_FOR_NODE: &[Field] = &[
    keep(1, "name", Str),
];
#[rustfmt::skip]
const DISCOVERY_V1_FOR_ZONE: &[Field] = &[
    keep(1, "name", Str),
];
#[rustfmt::skip]
const EVENTS_V1_EVENT: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "eventTime", MicroTime),
    keep(3, "series", Message(EVENTS_V1_EVENT_SERIES)),
    omit(4, "reportingController", Str),
    omit(5, "reportingInstance", Str),
    omit(6, "action", Str),
    omit(7, "reason", Str),
    keep(8, "regarding", Message(CORE_V1_OBJECT_REFERENCE)),
    keep(9, "related", Message(CORE_V1_OBJECT_REFERENCE)),
    omit(10, "note", Str),
    omit(11, "type", Str),
    keep(12, "deprecatedSource", Message(CORE_V1_EVENT_SOURCE)),
    omit(13, "deprecatedFirstTimestamp", Time),
    omit(14, "deprecatedLastTimestamp", Time),
    omit(15, "deprecatedCount", Int),
];
#[rustfmt::skip]
const EVENTS_V1_EVENT_SERIES: &[Field] = &[
    keep(1, "count", Int),
    keep(2, "lastObservedTime", MicroTime),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_EXEMPT_PRIORITY_LEVEL_CONFIGURATION: &[Field] = &[
    keep(1, "nominalConcurrencyShares", Int),
    keep(2, "lendablePercent", Int),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_FLOW_DISTINGUISHER_METHOD: &[Field] = &[
    keep(1, "type", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_FLOW_SCHEMA: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(FLOWCONTROL_V1_FLOW_SCHEMA_SPEC)),
    keep(3, "status", Message(FLOWCONTROL_V1_FLOW_SCHEMA_STATUS)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_FLOW_SCHEMA_CONDITION: &[Field] = &[
    omit(1, "type", Str),
    omit(2, "status", Str),
    omit(3, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_FLOW_SCHEMA_SPEC: &[Field] = &[
    keep(1, "priorityLevelConfiguration", Message(FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_REFERENCE)),
    keep(2, "matchingPrecedence", Int),
    keep(3, "distinguisherMethod", Message(FLOWCONTROL_V1_FLOW_DISTINGUISHER_METHOD)),
    list(4, "rules", Message(FLOWCONTROL_V1_POLICY_RULES_WITH_SUBJECTS)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_FLOW_SCHEMA_STATUS: &[Field] = &[
    list(1, "conditions", Message(FLOWCONTROL_V1_FLOW_SCHEMA_CONDITION)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_GROUP_SUBJECT: &[Field] = &[
    keep(1, "name", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_LIMITED_PRIORITY_LEVEL_CONFIGURATION: &[Field] = &[
    keep(1, "nominalConcurrencyShares", Int),
    keep(2, "limitResponse", Message(FLOWCONTROL_V1_LIMIT_RESPONSE)),
    keep(3, "lendablePercent", Int),
    keep(4, "borrowingLimitPercent", Int),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_LIMIT_RESPONSE: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "queuing", Message(FLOWCONTROL_V1_QUEUING_CONFIGURATION)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_NON_RESOURCE_POLICY_RULE: &[Field] = &[
    list(1, "verbs", Str),
    list(6, "nonResourceURLs", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_POLICY_RULES_WITH_SUBJECTS: &[Field] = &[
    list(1, "subjects", Message(FLOWCONTROL_V1_SUBJECT)),
    list(2, "resourceRules", Message(FLOWCONTROL_V1_RESOURCE_POLICY_RULE)),
    list(3, "nonResourceRules", Message(FLOWCONTROL_V1_NON_RESOURCE_POLICY_RULE)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_SPEC)),
    keep(3, "status", Message(FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_STATUS)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_CONDITION: &[Field] = &[
    omit(1, "type", Str),
    omit(2, "status", Str),
    omit(3, "lastTransitionTime", Time),
    omit(4, "reason", Str),
    omit(5, "message", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_REFERENCE: &[Field] = &[
    keep(1, "name", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_SPEC: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "limited", Message(FLOWCONTROL_V1_LIMITED_PRIORITY_LEVEL_CONFIGURATION)),
    keep(3, "exempt", Message(FLOWCONTROL_V1_EXEMPT_PRIORITY_LEVEL_CONFIGURATION)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_STATUS: &[Field] = &[
    list(1, "conditions", Message(FLOWCONTROL_V1_PRIORITY_LEVEL_CONFIGURATION_CONDITION)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_QUEUING_CONFIGURATION: &[Field] = &[
    keep(1, "queues", Int),
    keep(2, "handSize", Int),
    keep(3, "queueLengthLimit", Int),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_RESOURCE_POLICY_RULE: &[Field] = &[
    list(1, "verbs", Str),
    list(2, "apiGroups", Str),
    list(3, "resources", Str),
    omit(4, "clusterScope", Bool),
    list(5, "namespaces", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_SERVICE_ACCOUNT_SUBJECT: &[Field] = &[
    keep(1, "namespace", Str),
    keep(2, "name", Str),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_SUBJECT: &[Field] = &[
    keep(1, "kind", Str),
    keep(2, "user", Message(FLOWCONTROL_V1_USER_SUBJECT)),
    keep(3, "group", Message(FLOWCONTROL_V1_GROUP_SUBJECT)),
    keep(4, "serviceAccount", Message(FLOWCONTROL_V1_SERVICE_ACCOUNT_SUBJECT)),
];
#[rustfmt::skip]
const FLOWCONTROL_V1_USER_SUBJECT: &[Field] = &[
    keep(1, "name", Str),
];
#[rustfmt::skip]
const META_V1_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(3, "observedGeneration", Int),
    keep(4, "lastTransitionTime", Time),
    keep(5, "reason", Str),
    keep(6, "message", Str),
];
#[rustfmt::skip]
const META_V1_DELETE_OPTIONS: &[Field] = &[
    keep(1, "gracePeriodSeconds", Int),
    keep(2, "preconditions", Message(META_V1_PRECONDITIONS)),
    keep(3, "orphanDependents", Bool),
    keep(4, "propagationPolicy", Str),
    list(5, "dryRun", Str),
    keep(6, "ignoreStoreReadErrorWithClusterBreakingPotential", Bool),
];
#[rustfmt::skip]
const META_V1_FIELD_SELECTOR_REQUIREMENT: &[Field] = &[
    keep(1, "key", Str),
    keep(2, "operator", Str),
    list(3, "values", Str),
];
#[rustfmt::skip]
const META_V1_LABEL_SELECTOR: &[Field] = &[
    map(1, "matchLabels", Str),
    list(2, "matchExpressions", Message(META_V1_LABEL_SELECTOR_REQUIREMENT)),
];
#[rustfmt::skip]
const META_V1_LABEL_SELECTOR_REQUIREMENT: &[Field] = &[
    keep(1, "key", Str),
    keep(2, "operator", Str),
    list(3, "values", Str),
];
#[rustfmt::skip]
const META_V1_MANAGED_FIELDS_ENTRY: &[Field] = &[
    omit(1, "manager", Str),
    omit(2, "operation", Str),
    omit(3, "apiVersion", Str),
    keep(4, "time", Time),
    omit(6, "fieldsType", Str),
    keep(7, "fieldsV1", RawJson),
    omit(8, "subresource", Str),
];
#[rustfmt::skip]
const META_V1_OBJECT_META: &[Field] = &[
    omit(1, "name", Str),
    omit(2, "generateName", Str),
    omit(3, "namespace", Str),
    omit(4, "selfLink", Str),
    omit(5, "uid", Str),
    omit(6, "resourceVersion", Str),
    omit(7, "generation", Int),
    omit(8, "creationTimestamp", Time),
    keep(9, "deletionTimestamp", Time),
    keep(10, "deletionGracePeriodSeconds", Int),
    map(11, "labels", Str),
    map(12, "annotations", Str),
    list(13, "ownerReferences", Message(META_V1_OWNER_REFERENCE)),
    list(14, "finalizers", Str),
    list(17, "managedFields", Message(META_V1_MANAGED_FIELDS_ENTRY)),
];
#[rustfmt::skip]
const META_V1_OWNER_REFERENCE: &[Field] = &[
    keep(5, "apiVersion", Str),
    keep(1, "kind", Str),
    keep(3, "name", Str),
    keep(4, "uid", Str),
    keep(6, "controller", Bool),
    keep(7, "blockOwnerDeletion", Bool),
];
#[rustfmt::skip]
const META_V1_PRECONDITIONS: &[Field] = &[
    keep(1, "uid", Str),
    keep(2, "resourceVersion", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_HTTP_INGRESS_PATH: &[Field] = &[
    omit(1, "path", Str),
    keep(3, "pathType", Str),
    keep(2, "backend", Message(NETWORKING_V1_INGRESS_BACKEND)),
];
#[rustfmt::skip]
const NETWORKING_V1_HTTP_INGRESS_RULE_VALUE: &[Field] = &[
    list(1, "paths", Message(NETWORKING_V1_HTTP_INGRESS_PATH)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(NETWORKING_V1_INGRESS_SPEC)),
    keep(3, "status", Message(NETWORKING_V1_INGRESS_STATUS)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_BACKEND: &[Field] = &[
    keep(4, "service", Message(NETWORKING_V1_INGRESS_SERVICE_BACKEND)),
    keep(3, "resource", Message(CORE_V1_TYPED_LOCAL_OBJECT_REFERENCE)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_CLASS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(NETWORKING_V1_INGRESS_CLASS_SPEC)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_CLASS_PARAMETERS_REFERENCE: &[Field] = &[
    keep(1, "apiGroup", Str),
    keep(2, "kind", Str),
    keep(3, "name", Str),
    keep(4, "scope", Str),
    keep(5, "namespace", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_CLASS_SPEC: &[Field] = &[
    omit(1, "controller", Str),
    keep(2, "parameters", Message(NETWORKING_V1_INGRESS_CLASS_PARAMETERS_REFERENCE)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_LOAD_BALANCER_INGRESS: &[Field] = &[
    omit(1, "ip", Str),
    omit(2, "hostname", Str),
    list(4, "ports", Message(NETWORKING_V1_INGRESS_PORT_STATUS)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_LOAD_BALANCER_STATUS: &[Field] = &[
    list(1, "ingress", Message(NETWORKING_V1_INGRESS_LOAD_BALANCER_INGRESS)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_PORT_STATUS: &[Field] = &[
    keep(1, "port", Int),
    keep(2, "protocol", Str),
    keep(3, "error", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_RULE: &[Field] = &[
    omit(1, "host", Str),
    merge(2, Message(NETWORKING_V1_INGRESS_RULE_VALUE)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_RULE_VALUE: &[Field] = &[
    keep(1, "http", Message(NETWORKING_V1_HTTP_INGRESS_RULE_VALUE)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_SERVICE_BACKEND: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "port", Message(NETWORKING_V1_SERVICE_BACKEND_PORT)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_SPEC: &[Field] = &[
    keep(4, "ingressClassName", Str),
    keep(1, "defaultBackend", Message(NETWORKING_V1_INGRESS_BACKEND)),
    list(2, "tls", Message(NETWORKING_V1_INGRESS_TLS)),
    list(3, "rules", Message(NETWORKING_V1_INGRESS_RULE)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_STATUS: &[Field] = &[
    keep(1, "loadBalancer", Message(NETWORKING_V1_INGRESS_LOAD_BALANCER_STATUS)),
];
#[rustfmt::skip]
const NETWORKING_V1_INGRESS_TLS: &[Field] = &[
    list(1, "hosts", Str),
    omit(2, "secretName", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_IP_ADDRESS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(NETWORKING_V1_IP_ADDRESS_SPEC)),
];
#[rustfmt::skip]
const NETWORKING_V1_IP_ADDRESS_SPEC: &[Field] = &[
    keep(1, "parentRef", Message(NETWORKING_V1_PARENT_REFERENCE)),
];
#[rustfmt::skip]
const NETWORKING_V1_IP_BLOCK: &[Field] = &[
    keep(1, "cidr", Str),
    list(2, "except", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_NETWORK_POLICY: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(NETWORKING_V1_NETWORK_POLICY_SPEC)),
];
#[rustfmt::skip]
const NETWORKING_V1_NETWORK_POLICY_EGRESS_RULE: &[Field] = &[
    list(1, "ports", Message(NETWORKING_V1_NETWORK_POLICY_PORT)),
    list(2, "to", Message(NETWORKING_V1_NETWORK_POLICY_PEER)),
];
#[rustfmt::skip]
const NETWORKING_V1_NETWORK_POLICY_INGRESS_RULE: &[Field] = &[
    list(1, "ports", Message(NETWORKING_V1_NETWORK_POLICY_PORT)),
    list(2, "from", Message(NETWORKING_V1_NETWORK_POLICY_PEER)),
];
#[rustfmt::skip]
const NETWORKING_V1_NETWORK_POLICY_PEER: &[Field] = &[
    keep(1, "podSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(2, "namespaceSelector", Message(META_V1_LABEL_SELECTOR)),
    keep(3, "ipBlock", Message(NETWORKING_V1_IP_BLOCK)),
];
#[rustfmt::skip]
const NETWORKING_V1_NETWORK_POLICY_PORT: &[Field] = &[
    keep(1, "protocol", Str),
    keep(2, "port", IntOrString),
    keep(3, "endPort", Int),
];
#[rustfmt::skip]
const NETWORKING_V1_NETWORK_POLICY_SPEC: &[Field] = &[
    keep(1, "podSelector", Message(META_V1_LABEL_SELECTOR)),
    list(2, "ingress", Message(NETWORKING_V1_NETWORK_POLICY_INGRESS_RULE)),
    list(3, "egress", Message(NETWORKING_V1_NETWORK_POLICY_EGRESS_RULE)),
    list(4, "policyTypes", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_PARENT_REFERENCE: &[Field] = &[
    omit(1, "group", Str),
    omit(2, "resource", Str),
    omit(3, "namespace", Str),
    omit(4, "name", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_SERVICE_BACKEND_PORT: &[Field] = &[
    omit(1, "name", Str),
    omit(2, "number", Int),
];
#[rustfmt::skip]
const NETWORKING_V1_SERVICE_CIDR: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(NETWORKING_V1_SERVICE_CIDR_SPEC)),
    keep(3, "status", Message(NETWORKING_V1_SERVICE_CIDR_STATUS)),
];
#[rustfmt::skip]
const NETWORKING_V1_SERVICE_CIDR_SPEC: &[Field] = &[
    list(1, "cidrs", Str),
];
#[rustfmt::skip]
const NETWORKING_V1_SERVICE_CIDR_STATUS: &[Field] = &[
    list(1, "conditions", Message(META_V1_CONDITION)),
];
#[rustfmt::skip]
const NODE_V1_OVERHEAD: &[Field] = &[
    map(1, "podFixed", Quantity),
];
#[rustfmt::skip]
const NODE_V1_RUNTIME_CLASS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "handler", Str),
    keep(3, "overhead", Message(NODE_V1_OVERHEAD)),
    keep(4, "scheduling", Message(NODE_V1_SCHEDULING)),
];
#[rustfmt::skip]
const NODE_V1_SCHEDULING: &[Field] = &[
    map(1, "nodeSelector", Str),
    list(2, "tolerations", Message(CORE_V1_TOLERATION)),
];
#[rustfmt::skip]
const POLICY_V1_EVICTION: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "deleteOptions", Message(META_V1_DELETE_OPTIONS)),
];
#[rustfmt::skip]
const POLICY_V1_POD_DISRUPTION_BUDGET: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(POLICY_V1_POD_DISRUPTION_BUDGET_SPEC)),
    keep(3, "status", Message(POLICY_V1_POD_DISRUPTION_BUDGET_STATUS)),
];
#[rustfmt::skip]
const POLICY_V1_POD_DISRUPTION_BUDGET_SPEC: &[Field] = &[
    keep(1, "minAvailable", IntOrString),
    keep(2, "selector", Message(META_V1_LABEL_SELECTOR)),
    keep(3, "maxUnavailable", IntOrString),
    keep(4, "unhealthyPodEvictionPolicy", Str),
];
#[rustfmt::skip]
const POLICY_V1_POD_DISRUPTION_BUDGET_STATUS: &[Field] = &[
    omit(1, "observedGeneration", Int),
    map(2, "disruptedPods", Time),
    keep(3, "disruptionsAllowed", Int),
    keep(4, "currentHealthy", Int),
    keep(5, "desiredHealthy", Int),
    keep(6, "expectedPods", Int),
    list(7, "conditions", Message(META_V1_CONDITION)),
];
#[rustfmt::skip]
const RBAC_V1_AGGREGATION_RULE: &[Field] = &[
    list(1, "clusterRoleSelectors", Message(META_V1_LABEL_SELECTOR)),
];
#[rustfmt::skip]
const RBAC_V1_CLUSTER_ROLE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "rules", Message(RBAC_V1_POLICY_RULE)),
    keep(3, "aggregationRule", Message(RBAC_V1_AGGREGATION_RULE)),
];
#[rustfmt::skip]
const RBAC_V1_CLUSTER_ROLE_BINDING: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "subjects", Message(RBAC_V1_SUBJECT)),
    keep(3, "roleRef", Message(RBAC_V1_ROLE_REF)),
];
#[rustfmt::skip]
const RBAC_V1_POLICY_RULE: &[Field] = &[
    list(1, "verbs", Str),
    list(2, "apiGroups", Str),
    list(3, "resources", Str),
    list(4, "resourceNames", Str),
    list(5, "nonResourceURLs", Str),
];
#[rustfmt::skip]
const RBAC_V1_ROLE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "rules", Message(RBAC_V1_POLICY_RULE)),
];
#[rustfmt::skip]
const RBAC_V1_ROLE_BINDING: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    list(2, "subjects", Message(RBAC_V1_SUBJECT)),
    keep(3, "roleRef", Message(RBAC_V1_ROLE_REF)),
];
#[rustfmt::skip]
const RBAC_V1_ROLE_REF: &[Field] = &[
    keep(1, "apiGroup", Str),
    keep(2, "kind", Str),
    keep(3, "name", Str),
];
#[rustfmt::skip]
const RBAC_V1_SUBJECT: &[Field] = &[
    keep(1, "kind", Str),
    omit(2, "apiGroup", Str),
    keep(3, "name", Str),
    omit(4, "namespace", Str),
];
#[rustfmt::skip]
const SCHEDULING_V1_PRIORITY_CLASS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "value", Int),
    omit(3, "globalDefault", Bool),
    omit(4, "description", Str),
    keep(5, "preemptionPolicy", Str),
];
#[rustfmt::skip]
const STORAGE_V1_CSI_DRIVER: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(STORAGE_V1_CSI_DRIVER_SPEC)),
];
#[rustfmt::skip]
const STORAGE_V1_CSI_DRIVER_SPEC: &[Field] = &[
    keep(1, "attachRequired", Bool),
    keep(2, "podInfoOnMount", Bool),
    list(3, "volumeLifecycleModes", Str),
    keep(4, "storageCapacity", Bool),
    keep(5, "fsGroupPolicy", Str),
    list(6, "tokenRequests", Message(STORAGE_V1_TOKEN_REQUEST)),
    keep(7, "requiresRepublish", Bool),
    keep(8, "seLinuxMount", Bool),
    keep(9, "nodeAllocatableUpdatePeriodSeconds", Int),
];
#[rustfmt::skip]
const STORAGE_V1_CSI_NODE: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(STORAGE_V1_CSI_NODE_SPEC)),
];
#[rustfmt::skip]
const STORAGE_V1_CSI_NODE_DRIVER: &[Field] = &[
    keep(1, "name", Str),
    keep(2, "nodeID", Str),
    list(3, "topologyKeys", Str),
    keep(4, "allocatable", Message(STORAGE_V1_VOLUME_NODE_RESOURCES)),
];
#[rustfmt::skip]
const STORAGE_V1_CSI_NODE_SPEC: &[Field] = &[
    list(1, "drivers", Message(STORAGE_V1_CSI_NODE_DRIVER)),
];
#[rustfmt::skip]
const STORAGE_V1_CSI_STORAGE_CAPACITY: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "nodeTopology", Message(META_V1_LABEL_SELECTOR)),
    keep(3, "storageClassName", Str),
    keep(4, "capacity", Quantity),
    keep(5, "maximumVolumeSize", Quantity),
];
#[rustfmt::skip]
const STORAGE_V1_STORAGE_CLASS: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "provisioner", Str),
    map(3, "parameters", Str),
    keep(4, "reclaimPolicy", Str),
    list(5, "mountOptions", Str),
    keep(6, "allowVolumeExpansion", Bool),
    keep(7, "volumeBindingMode", Str),
    list(8, "allowedTopologies", Message(CORE_V1_TOPOLOGY_SELECTOR_TERM)),
];
#[rustfmt::skip]
const STORAGE_V1_TOKEN_REQUEST: &[Field] = &[
    keep(1, "audience", Str),
    keep(2, "expirationSeconds", Int),
];
#[rustfmt::skip]
const STORAGE_V1_VOLUME_ATTACHMENT: &[Field] = &[
    keep(1, "metadata", Message(META_V1_OBJECT_META)),
    keep(2, "spec", Message(STORAGE_V1_VOLUME_ATTACHMENT_SPEC)),
    keep(3, "status", Message(STORAGE_V1_VOLUME_ATTACHMENT_STATUS)),
];
#[rustfmt::skip]
const STORAGE_V1_VOLUME_ATTACHMENT_SOURCE: &[Field] = &[
    keep(1, "persistentVolumeName", Str),
    keep(2, "inlineVolumeSpec", Message(CORE_V1_PERSISTENT_VOLUME_SPEC)),
];
#[rustfmt::skip]
const STORAGE_V1_VOLUME_ATTACHMENT_SPEC: &[Field] = &[
    keep(1, "attacher", Str),
    keep(2, "source", Message(STORAGE_V1_VOLUME_ATTACHMENT_SOURCE)),
    keep(3, "nodeName", Str),
];
#[rustfmt::skip]
const STORAGE_V1_VOLUME_ATTACHMENT_STATUS: &[Field] = &[
    keep(1, "attached", Bool),
    map(2, "attachmentMetadata", Str),
    keep(3, "attachError", Message(STORAGE_V1_VOLUME_ERROR)),
    keep(4, "detachError", Message(STORAGE_V1_VOLUME_ERROR)),
];
#[rustfmt::skip]
const STORAGE_V1_VOLUME_ERROR: &[Field] = &[
    omit(1, "time", Time),
    omit(2, "message", Str),
    keep(3, "errorCode", Int),
];
#[rustfmt::skip]
const STORAGE_V1_VOLUME_NODE_RESOURCES: &[Field] = &[
    keep(1, "count", Int),
];
