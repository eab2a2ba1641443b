//! `work.open-cluster-management.io/v1`: `ManifestWork` (namespaced, in the cluster namespace on
//! the hub) carries manifests to a managed cluster; `AppliedManifestWork` (cluster-scoped, on the
//! managed cluster) records what the work agent applied for one work.

use std::borrow::Cow;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::CustomResource;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::conditions;
use super::fields::{self, string_enum};

/// The field manager the work agent applies with unless a work names another.
pub const DEFAULT_FIELD_MANAGER: &str = "work-agent";

// ---------------------------------------------------------------------------------------------
// ManifestWork
// ---------------------------------------------------------------------------------------------

/// Desired state of a ManifestWork: the manifests, and how to apply and delete them.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "work.open-cluster-management.io",
    version = "v1",
    kind = "ManifestWork",
    plural = "manifestworks",
    namespaced,
    status = "ManifestWorkStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "Kubernetes resources the hub wants on a managed cluster. Lives in the cluster's namespace on the \
           hub, where the cluster's work agent picks it up."
)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkSpec {
    /// The manifests to apply on the managed cluster.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub workload: ManifestsTemplate,

    /// What to do with the applied resources when the work is deleted; Foreground when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_option: Option<DeleteOption>,

    /// Per-resource options: status feedback, update strategy, condition rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub manifest_configs: Vec<ManifestConfigOption>,

    /// The identity the work agent applies as; the agent's own when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<ManifestWorkExecutor>,
}

/// The manifests of a work.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestsTemplate {
    /// Kubernetes objects, each a complete resource with apiVersion, kind and metadata.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub manifests: Vec<Manifest>,
}

/// One Kubernetes object of a work, kept as JSON.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(transparent)]
pub struct Manifest(pub Value);

impl JsonSchema for Manifest {
    fn schema_name() -> Cow<'static, str> {
        "Manifest".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A Kubernetes resource to apply on the managed cluster.",
            "type": "object",
            "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true
        })
    }
}

impl Manifest {
    /// The manifest of any serializable object (a k8s-openapi type, a custom resource).
    pub fn from_object<T: Serialize>(object: &T) -> Result<Self, serde_json::Error> {
        serde_json::to_value(object).map(Self)
    }

    /// `apiVersion`, when present.
    pub fn api_version(&self) -> Option<&str> {
        self.0.get("apiVersion").and_then(Value::as_str)
    }

    /// `kind`, when present.
    pub fn kind(&self) -> Option<&str> {
        self.0.get("kind").and_then(Value::as_str)
    }

    /// `metadata.name`, when present.
    pub fn name(&self) -> Option<&str> {
        self.0.get("metadata")?.get("name")?.as_str()
    }

    /// `metadata.namespace`, when present.
    pub fn namespace(&self) -> Option<&str> {
        self.0.get("metadata")?.get("namespace")?.as_str()
    }
}

/// How the applied resources are deleted with the work.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeleteOption {
    /// Foreground deletes every resource, Orphan keeps them all, SelectivelyOrphan keeps the
    /// ones `selectivelyOrphans` lists.
    #[serde(default)]
    pub propagation_policy: DeletePropagationPolicy,

    /// The resources SelectivelyOrphan keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selectively_orphans: Option<SelectivelyOrphan>,

    /// Deletes the work this many seconds after it is Complete; never when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i64>,
}

string_enum! {
    /// What happens to applied resources when their work is deleted.
    pub enum DeletePropagationPolicy(closed) {
        /// Delete them, waiting for their dependents.
        Foreground = "Foreground",
        /// Leave them all in place.
        Orphan = "Orphan",
        /// Leave the listed ones in place and delete the rest.
        SelectivelyOrphan = "SelectivelyOrphan",
    }
    default = Foreground;
}

/// The resources a SelectivelyOrphan deletion leaves in place.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectivelyOrphan {
    /// One rule per resource to keep.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orphaning_rules: Vec<OrphaningRule>,
}

/// A resource to orphan.
pub type OrphaningRule = ResourceIdentifier;

/// Identifies one resource of a work by group, resource, name and namespace.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceIdentifier {
    /// API group; empty for the core group.
    #[serde(default)]
    pub group: String,

    /// Resource (plural), such as `deployments`.
    pub resource: String,

    /// Object name.
    pub name: String,

    /// Object namespace; empty for a cluster-scoped resource.
    #[serde(default)]
    pub namespace: String,
}

/// Options for the resource a rule identifies.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestConfigOption {
    /// The resource these options apply to.
    pub resource_identifier: ResourceIdentifier,

    /// Status fields to report back in `status.resourceStatus`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub feedback_rules: Vec<FeedbackRule>,

    /// How to update the resource; Update when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_strategy: Option<UpdateStrategy>,

    /// Conditions to set on the manifest from rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["condition"]))]
    pub condition_rules: Vec<ConditionRule>,

    /// Whether feedback is polled or watched.
    #[serde(default)]
    pub feedback_scrape_type: FeedbackScrapeType,
}

string_enum! {
    /// How the work agent collects status feedback.
    pub enum FeedbackScrapeType(closed) {
        /// Read the resource periodically.
        Poll = "Poll",
        /// Watch the resource.
        Watch = "Watch",
    }
    default = Poll;
}

/// A rule that sets a condition on a manifest.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConditionRule {
    /// The condition type to set, such as `Complete`.
    pub condition: String,

    /// How the condition is computed.
    #[serde(rename = "type")]
    pub type_: ConditionRuleType,

    /// CEL expressions, all of which must hold (for type CEL).
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "fields::null_as_default")]
    pub cel_expressions: Vec<String>,

    /// Message of the condition.
    #[serde(default)]
    pub message: String,

    /// CEL expression that renders the message.
    #[serde(default)]
    pub message_expression: String,
}

string_enum! {
    /// How a condition rule is evaluated.
    pub enum ConditionRuleType(closed) {
        /// Built-in rules for common kinds (a Job completes, ...).
        WellKnownConditions = "WellKnownConditions",
        /// The rule's CEL expressions.
        Cel = "CEL",
    }
    default = WellKnownConditions;
}

/// Which status fields of a resource to report back.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackRule {
    /// Well-known fields of the kind, or the listed JSON paths.
    #[serde(rename = "type")]
    pub type_: FeedbackType,

    /// JSON paths under `.status` to report (for type JSONPaths).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub json_paths: Vec<JsonPath>,
}

string_enum! {
    /// The kind of status feedback.
    pub enum FeedbackType(closed) {
        /// Fields the work agent knows for common kinds.
        WellKnownStatus = "WellKnownStatus",
        /// Fields named by JSON paths.
        JsonPaths = "JSONPaths",
    }
    default = WellKnownStatus;
}

/// One status field to report back.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JsonPath {
    /// Name the value is reported under.
    pub name: String,

    /// Resource version to read; the preferred version when unset.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,

    /// JSON path of a scalar field under `.status`.
    pub path: String,
}

/// How the work agent updates a resource.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateStrategy {
    /// Update, CreateOnly, ServerSideApply or ReadOnly.
    #[serde(rename = "type", default)]
    pub type_: UpdateStrategyType,

    /// Server-side apply options (for type ServerSideApply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_side_apply: Option<ServerSideApplyConfig>,
}

string_enum! {
    /// How a resource is updated.
    pub enum UpdateStrategyType(closed) {
        /// Replace it with an update call.
        Update = "Update",
        /// Create it and never update it.
        CreateOnly = "CreateOnly",
        /// Server-side apply it, reporting conflicts.
        ServerSideApply = "ServerSideApply",
        /// Only check that it exists (and report feedback).
        ReadOnly = "ReadOnly",
    }
    default = Update;
}

/// Server-side apply options.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerSideApplyConfig {
    /// Take fields owned by other managers.
    #[serde(default)]
    pub force: bool,

    /// Field manager, `work-agent` or one starting with it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(extend("default" = "work-agent"), pattern("^work-agent"))]
    pub field_manager: String,

    /// Fields not to apply, and when.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["condition"]))]
    pub ignore_fields: Vec<IgnoreField>,
}

/// Fields the work agent leaves alone when applying.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IgnoreField {
    /// When the fields are ignored.
    #[serde(default)]
    pub condition: IgnoreFieldsCondition,

    /// Kubernetes JSONPath expressions of the fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub json_paths: Vec<String>,

    /// JSON Pointers (RFC 6901) of the fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub json_pointers: Vec<String>,

    /// jq path expressions of the fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jq_path_expressions: Vec<String>,
}

string_enum! {
    /// When ignored fields are left alone.
    pub enum IgnoreFieldsCondition(closed) {
        /// Whenever the resource exists on the managed cluster.
        OnSpokePresent = "OnSpokePresent",
        /// When someone on the managed cluster changed them.
        OnSpokeChange = "OnSpokeChange",
    }
    default = OnSpokePresent;
}

/// The identity the work agent applies a work as.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkExecutor {
    /// The subject to apply as.
    pub subject: ManifestWorkExecutorSubject,
}

/// An executor identity.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkExecutorSubject {
    /// The kind of identity.
    #[serde(rename = "type")]
    pub type_: ExecutorSubjectType,

    /// The service account (for type ServiceAccount).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account: Option<ManifestWorkSubjectServiceAccount>,
}

string_enum! {
    /// The kind of executor identity.
    pub enum ExecutorSubjectType(closed) {
        /// A service account on the managed cluster.
        ServiceAccount = "ServiceAccount",
    }
    default = ServiceAccount;
}

/// A service account on the managed cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkSubjectServiceAccount {
    /// Namespace of the service account.
    #[schemars(
        length(min = 1, max = 253),
        pattern(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)$")
    )]
    pub namespace: String,

    /// Name of the service account.
    #[schemars(
        length(min = 1, max = 253),
        pattern(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)$")
    )]
    pub name: String,
}

/// What the work agent reports about a work.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestWorkStatus {
    /// Applied, Available, Degraded, Progressing, Complete, Deleting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,

    /// The state of each manifest.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub resource_status: ManifestResourceStatus,
}

/// The state of each manifest of a work.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestResourceStatus {
    /// One entry per manifest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub manifests: Vec<ManifestCondition>,
}

/// The state of one manifest on the managed cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestCondition {
    /// Which manifest this is.
    pub resource_meta: ManifestResourceMeta,

    /// Values of the status fields the feedback rules ask for.
    #[serde(default, skip_serializing_if = "fields::is_default")]
    pub status_feedback: StatusFeedbackResult,

    /// Applied, Available, Degraded, Progressing, Complete of this resource.
    #[serde(deserialize_with = "fields::null_as_default")]
    #[schemars(schema_with = "fields::conditions")]
    pub conditions: Vec<Condition>,
}

/// Identifies a manifest by its position and its group, version, kind, resource and name.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManifestResourceMeta {
    /// Index of the manifest in `spec.workload.manifests`.
    pub ordinal: i32,

    /// API group; empty for the core group.
    #[serde(default)]
    pub group: String,

    /// API version.
    #[serde(default)]
    pub version: String,

    /// Kind.
    #[serde(default)]
    pub kind: String,

    /// Resource (plural).
    #[serde(default)]
    pub resource: String,

    /// Object name.
    #[serde(default)]
    pub name: String,

    /// Object namespace; empty for a cluster-scoped resource.
    #[serde(default)]
    pub namespace: String,
}

/// Status values reported back for one manifest.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusFeedbackResult {
    /// One value per feedback name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    pub values: Vec<FeedbackValue>,
}

/// One reported status value.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackValue {
    /// The feedback name from the rule.
    pub name: String,

    /// The value.
    #[serde(rename = "fieldValue")]
    pub value: FieldValue,
}

/// A scalar status value, or a JSON text for a list or an object.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldValue {
    /// Which of the fields below holds the value.
    #[serde(rename = "type")]
    pub type_: ValueType,

    /// An integer value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integer: Option<i64>,

    /// A string value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,

    /// A boolean value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boolean: Option<bool>,

    /// A list or an object as JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub json_raw: Option<String>,
}

string_enum! {
    /// The type of a reported status value.
    pub enum ValueType(closed) {
        /// `integer` holds it.
        Integer = "Integer",
        /// `string` holds it.
        String = "String",
        /// `boolean` holds it.
        Boolean = "Boolean",
        /// `jsonRaw` holds it.
        JsonRaw = "JsonRaw",
    }
    default = String;
}

impl ManifestWork {
    /// A work named `name` in the namespace of `cluster`, carrying `manifests`.
    pub fn for_cluster(cluster: &str, name: &str, manifests: Vec<Manifest>) -> Self {
        let mut work =
            Self::new(name, ManifestWorkSpec { workload: ManifestsTemplate { manifests }, ..Default::default() });
        work.metadata.namespace = Some(cluster.to_owned());
        work
    }

    /// The status conditions, empty when there is no status yet.
    pub fn conditions(&self) -> &[Condition] {
        self.status.as_ref().map_or(&[], |s| &s.conditions)
    }

    /// Whether the work is Applied for its current generation.
    pub fn is_applied(&self) -> bool {
        let generation = self.metadata.generation;
        conditions::find(self.conditions(), conditions::WORK_APPLIED).is_some_and(|c| {
            c.status == conditions::TRUE && (generation.is_none() || c.observed_generation == generation)
        })
    }

    /// Whether every resource of the work is available.
    pub fn is_available(&self) -> bool {
        conditions::is_true(self.conditions(), conditions::WORK_AVAILABLE)
    }
}

// ---------------------------------------------------------------------------------------------
// AppliedManifestWork
// ---------------------------------------------------------------------------------------------

/// Which hub work an AppliedManifestWork belongs to.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "work.open-cluster-management.io",
    version = "v1",
    kind = "AppliedManifestWork",
    plural = "appliedmanifestworks",
    status = "AppliedManifestWorkStatus",
    derive = "PartialEq",
    derive = "Default",
    doc = "The managed side of a ManifestWork: the resources the work agent applied for it (cluster-scoped, \
           named `<hub hash>-<work name>`). Deleting it deletes those resources."
)]
#[serde(rename_all = "camelCase")]
pub struct AppliedManifestWorkSpec {
    /// Hash of the hub API server URL, telling which hub the work came from.
    pub hub_hash: String,

    /// The work agent that handles it.
    #[serde(rename = "agentID", default)]
    pub agent_id: String,

    /// Name of the ManifestWork on the hub.
    pub manifest_work_name: String,
}

/// What the work agent applied for a work.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppliedManifestWorkStatus {
    /// The resources applied and not yet removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied_resources: Vec<AppliedManifestResourceMeta>,

    /// When the agent started waiting to evict this record (its work is gone from the hub, or
    /// it came from another hub).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fields::date_time")]
    pub eviction_start_time: Option<Time>,
}

/// One applied resource.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppliedManifestResourceMeta {
    /// API group; empty for the core group.
    #[serde(default)]
    pub group: String,

    /// API version.
    pub version: String,

    /// Resource (plural).
    pub resource: String,

    /// Object namespace; empty for a cluster-scoped resource.
    #[serde(default)]
    pub namespace: String,

    /// Object name.
    pub name: String,

    /// UID of the object the agent applied.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
}

impl AppliedManifestWork {
    /// The record of `work_name` from the hub whose hash is `hub_hash`, named as upstream does.
    pub fn for_work(hub_hash: &str, agent_id: &str, work_name: &str) -> Self {
        Self::new(
            &format!("{hub_hash}-{work_name}"),
            AppliedManifestWorkSpec {
                hub_hash: hub_hash.to_owned(),
                agent_id: agent_id.to_owned(),
                manifest_work_name: work_name.to_owned(),
            },
        )
    }
}

/// The hub hash of a hub API server URL: the hex SHA-256 of the URL as the agent's kubeconfig
/// spells it.
pub fn hub_hash(hub_server: &str) -> String {
    Sha256::digest(hub_server.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use kube::{CustomResourceExt, Resource};
    use serde_json::json;

    use super::*;

    fn condition(type_: &str, reason: &str, generation: i64) -> Value {
        json!({
            "type": type_, "status": "True", "reason": reason, "message": "",
            "lastTransitionTime": "2025-10-17T00:06:00Z", "observedGeneration": generation
        })
    }

    /// The klusterlet work of an imported cluster as the import controller writes it, with the
    /// status the work agent reports.
    fn upstream_manifest_work() -> Value {
        json!({
            "apiVersion": "work.open-cluster-management.io/v1",
            "kind": "ManifestWork",
            "metadata": {
                "name": "cluster1-klusterlet",
                "namespace": "cluster1",
                "generation": 3,
                "labels": {"import.open-cluster-management.io/klusterlet-works": "true"},
                "finalizers": ["cluster.open-cluster-management.io/manifest-work-cleanup"]
            },
            "spec": {
                "workload": {"manifests": [
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "open-cluster-management-agent"}},
                    {
                        "apiVersion": "operator.open-cluster-management.io/v1",
                        "kind": "Klusterlet",
                        "metadata": {"name": "klusterlet"},
                        "spec": {"clusterName": "cluster1", "deployOption": {"mode": "Default"}}
                    }
                ]},
                "deleteOption": {
                    "propagationPolicy": "SelectivelyOrphan",
                    "selectivelyOrphans": {"orphaningRules": [
                        {"group": "", "resource": "namespaces", "name": "open-cluster-management-agent",
                         "namespace": ""}
                    ]},
                    "ttlSecondsAfterFinished": 300
                },
                "manifestConfigs": [
                    {
                        "resourceIdentifier": {
                            "group": "operator.open-cluster-management.io",
                            "resource": "klusterlets",
                            "name": "klusterlet",
                            "namespace": ""
                        },
                        "feedbackRules": [{
                            "type": "JSONPaths",
                            "jsonPaths": [{"name": "available", "path": ".conditions[?(@.type==\"Available\")].status"}]
                        }],
                        "updateStrategy": {
                            "type": "ServerSideApply",
                            "serverSideApply": {
                                "force": true,
                                "fieldManager": "work-agent-import",
                                "ignoreFields": [{"condition": "OnSpokeChange", "jsonPaths": [".spec.nodePlacement"]}]
                            }
                        },
                        "conditionRules": [{
                            "condition": "Complete",
                            "type": "CEL",
                            "celExpressions": ["object.status.observedGeneration == object.metadata.generation"],
                            "message": "",
                            "messageExpression": ""
                        }],
                        "feedbackScrapeType": "Poll"
                    }
                ],
                "executor": {"subject": {
                    "type": "ServiceAccount",
                    "serviceAccount": {"namespace": "default", "name": "importer"}
                }}
            },
            "status": {
                "conditions": [
                    condition("Applied", "AppliedManifestWorkComplete", 3),
                    condition("Available", "ResourcesAvailable", 3)
                ],
                "resourceStatus": {"manifests": [
                    {
                        "resourceMeta": {
                            "ordinal": 0, "group": "", "version": "v1", "kind": "Namespace",
                            "resource": "namespaces", "name": "open-cluster-management-agent", "namespace": ""
                        },
                        "conditions": [condition("Applied", "AppliedManifestComplete", 3)]
                    },
                    {
                        "resourceMeta": {
                            "ordinal": 1, "group": "operator.open-cluster-management.io", "version": "v1",
                            "kind": "Klusterlet", "resource": "klusterlets", "name": "klusterlet", "namespace": ""
                        },
                        "statusFeedback": {"values": [
                            {"name": "available", "fieldValue": {"type": "String", "string": "True"}},
                            {"name": "replicas", "fieldValue": {"type": "Integer", "integer": 1}},
                            {"name": "ready", "fieldValue": {"type": "Boolean", "boolean": true}},
                            {"name": "conditions", "fieldValue": {"type": "JsonRaw", "jsonRaw": "[]"}}
                        ]},
                        "conditions": [
                            condition("Applied", "AppliedManifestComplete", 3),
                            condition("Available", "ResourceAvailable", 3)
                        ]
                    }
                ]}
            }
        })
    }

    #[test]
    fn an_upstream_manifest_work_round_trips() {
        let sample = upstream_manifest_work();
        let work: ManifestWork = serde_json::from_value(sample.clone()).unwrap();
        let delete = work.spec.delete_option.as_ref().unwrap();
        assert_eq!(delete.propagation_policy, DeletePropagationPolicy::SelectivelyOrphan);
        assert_eq!(delete.selectively_orphans.as_ref().unwrap().orphaning_rules[0].resource, "namespaces");
        let config = &work.spec.manifest_configs[0];
        assert_eq!(config.update_strategy.as_ref().unwrap().type_, UpdateStrategyType::ServerSideApply);
        assert_eq!(config.condition_rules[0].type_, ConditionRuleType::Cel);
        assert_eq!(work.spec.workload.manifests[1].kind(), Some("Klusterlet"));
        assert_eq!(work.spec.workload.manifests[0].name(), Some("open-cluster-management-agent"));
        assert!(work.is_applied() && work.is_available());
        let feedback = &work.status.as_ref().unwrap().resource_status.manifests[1].status_feedback.values;
        assert_eq!(feedback[1].value.integer, Some(1));
        assert_eq!(serde_json::to_value(&work).unwrap(), sample);
    }

    #[test]
    fn a_stale_applied_condition_does_not_count() {
        let mut work: ManifestWork = serde_json::from_value(upstream_manifest_work()).unwrap();
        work.metadata.generation = Some(4);
        assert!(!work.is_applied());
    }

    #[test]
    fn unknown_enum_values_from_a_newer_hub_are_kept() {
        let work: ManifestWork = serde_json::from_value(json!({
            "apiVersion": "work.open-cluster-management.io/v1",
            "kind": "ManifestWork",
            "metadata": {"name": "w", "namespace": "c1"},
            "spec": {"deleteOption": {"propagationPolicy": "Background"}}
        }))
        .unwrap();
        let policy = &work.spec.delete_option.as_ref().unwrap().propagation_policy;
        assert_eq!(policy, &DeletePropagationPolicy::Other("Background".into()));
        assert_eq!(serde_json::to_value(&work).unwrap()["spec"]["deleteOption"]["propagationPolicy"], "Background");
    }

    #[test]
    fn for_cluster_puts_the_work_in_the_cluster_namespace() {
        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}});
        let work = ManifestWork::for_cluster("c1", "c1-klusterlet", vec![Manifest(namespace.clone())]);
        assert_eq!(
            serde_json::to_value(&work).unwrap(),
            json!({
                "apiVersion": "work.open-cluster-management.io/v1",
                "kind": "ManifestWork",
                "metadata": {"name": "c1-klusterlet", "namespace": "c1"},
                "spec": {"workload": {"manifests": [namespace]}}
            })
        );
        assert!(!work.is_applied());
    }

    #[test]
    fn manifests_are_built_from_typed_objects() {
        let namespace = k8s_openapi::api::core::v1::Namespace {
            metadata: kube::api::ObjectMeta { name: Some("ns".into()), ..Default::default() },
            ..Default::default()
        };
        let manifest = Manifest::from_object(&namespace).unwrap();
        assert_eq!(manifest.api_version(), Some("v1"));
        assert_eq!(manifest.kind(), Some("Namespace"));
        assert_eq!(manifest.name(), Some("ns"));
        assert_eq!(manifest.namespace(), None);
    }

    #[test]
    fn an_upstream_applied_manifest_work_round_trips() {
        let hash = hub_hash("https://hub.example.com:6443");
        let sample = json!({
            "apiVersion": "work.open-cluster-management.io/v1",
            "kind": "AppliedManifestWork",
            "metadata": {
                "name": format!("{hash}-cluster1-klusterlet"),
                "finalizers": ["cluster.open-cluster-management.io/applied-manifest-work-cleanup"]
            },
            "spec": {
                "hubHash": hash,
                "agentID": "6f1c4ad3-1b7e-4b8e-a1f4-5d2c9e0b7a61",
                "manifestWorkName": "cluster1-klusterlet"
            },
            "status": {
                "appliedResources": [
                    {"group": "", "version": "v1", "resource": "namespaces", "namespace": "",
                     "name": "open-cluster-management-agent", "uid": "0b6c7c38-2d5e-4c7b-9f0a-3e1d2c4b5a69"},
                    {"group": "apps", "version": "v1", "resource": "deployments",
                     "namespace": "open-cluster-management-agent", "name": "klusterlet"}
                ],
                "evictionStartTime": "2025-10-17T01:00:00Z"
            }
        });
        let applied: AppliedManifestWork = serde_json::from_value(sample.clone()).unwrap();
        assert_eq!(applied.spec.agent_id, "6f1c4ad3-1b7e-4b8e-a1f4-5d2c9e0b7a61");
        assert_eq!(serde_json::to_value(&applied).unwrap(), sample);
        let built = AppliedManifestWork::for_work(&hash, "6f1c4ad3-1b7e-4b8e-a1f4-5d2c9e0b7a61", "cluster1-klusterlet");
        assert_eq!(built.metadata.name, applied.metadata.name);
        assert_eq!(built.spec, applied.spec);
    }

    #[test]
    fn hub_hash_is_the_hex_sha256_of_the_url() {
        assert_eq!(hub_hash(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(hub_hash("https://hub:6443").len(), 64);
    }

    #[test]
    fn the_crds_match_upstream_names() {
        let work = ManifestWork::crd();
        assert_eq!(work.metadata.name.as_deref(), Some("manifestworks.work.open-cluster-management.io"));
        assert_eq!(work.spec.scope, "Namespaced");
        assert_eq!(ManifestWork::group(&()), super::super::WORK_GROUP);
        let applied = AppliedManifestWork::crd();
        assert_eq!(applied.metadata.name.as_deref(), Some("appliedmanifestworks.work.open-cluster-management.io"));
        assert_eq!(applied.spec.scope, "Cluster");
        for crd in [work, applied] {
            assert!(crd.spec.versions[0].subresources.as_ref().unwrap().status.is_some());
        }
        let schema = serde_json::to_value(ManifestWork::crd().spec.versions[0].schema.as_ref().unwrap()).unwrap();
        let spec = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"];
        let manifest = &spec["workload"]["properties"]["manifests"]["items"];
        assert_eq!(manifest["x-kubernetes-embedded-resource"], true);
        assert_eq!(manifest["x-kubernetes-preserve-unknown-fields"], true);
        let policy = &spec["deleteOption"]["properties"]["propagationPolicy"];
        assert_eq!(policy["enum"], json!(["Foreground", "Orphan", "SelectivelyOrphan"]));
        assert_eq!(policy["default"], "Foreground");
    }
}
