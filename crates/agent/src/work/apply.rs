//! Applying the manifests of a work on the managed cluster, one by one: each object's
//! resource is found through discovery (remembered across reconciles), the object is
//! server-side applied as the work's update strategy says, and what happened is kept per
//! manifest — its identity, whether it applied, whether it exists, and how the
//! AppliedManifestWork should track it.

use std::time::Duration;

use fleetctl_kube::errors::chain;
use fleetctl_kube::resolve::{
    Kinds, Missing, ResolveError, Resolved, Resolver, Target, await_established, defined_kind,
};
use fleetctl_kube::written::{Key, digest};
use fleetctl_kube::{Read, Written};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, OwnerReference};
use kube::api::{DynamicObject, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::Value;

use fleetctl_api::ManifestWork;
use fleetctl_api::work::{
    AppliedManifestResourceMeta, DEFAULT_FIELD_MANAGER, IgnoreField, ManifestResourceMeta, StatusFeedbackResult,
    UpdateStrategy, UpdateStrategyType,
};

use super::cleanup::orphaned;
use super::executor::Executor;
use super::options::Options;
use super::{condition_rules, feedback, ignore, owners};

/// How long a CRD of a work may take to become Established before the objects of its
/// kind that follow it in the same work fail (and are retried).
const CRD_TIMEOUT: Duration = Duration::from_secs(30);

/// Why one manifest could not be applied. The messages end up in the work's status, so
/// they hold nothing that changes from one attempt to the next: a retry that fails the
/// same way writes nothing.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The manifest lacks what every object needs.
    #[error("{0}: every manifest needs apiVersion, kind and metadata.name")]
    Incomplete(#[from] Missing),
    /// The manifest's kind did not resolve on the managed cluster.
    #[error("{}", chain(.0))]
    Unresolved(#[from] ResolveError),
    /// The API server refused the object.
    #[error("{}", .0.message)]
    Rejected(Box<kube::core::Status>),
    /// The request failed without an answer from the API server.
    #[error("request failed: {0}")]
    Request(#[source] kube::Error),
    /// A CRD of the work did not become Established in time.
    #[error("CRD {0} is not Established yet")]
    CrdNotEstablished(String),
    /// The work's executor is not one the agent can apply as.
    #[error("{0}")]
    Executor(String),
    /// The work's executor may not apply the manifest.
    #[error("{0}")]
    NotAllowed(String),
    /// The manifest's ignoreFields could not be processed.
    #[error("{0}")]
    IgnoreField(String),
}

impl From<kube::Error> for ManifestError {
    fn from(error: kube::Error) -> Self {
        match error {
            kube::Error::Api(status) => Self::Rejected(status),
            other => Self::Request(other),
        }
    }
}

/// Whether a manifest's object is on the managed cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    /// It exists.
    Available,
    /// It does not exist.
    NotAvailable,
    /// It could not be looked up (the reason and message say why).
    Unknown {
        /// Upstream's reason.
        reason: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// How the AppliedManifestWork tracks a manifest's object after this pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tracking {
    /// The agent applied (or created) it: record it with its uid.
    Owned(AppliedManifestResourceMeta),
    /// Applying failed, but the object is still the work's: keep any record of it.
    Keep(Identity),
    /// The kind could not be resolved, so only group and name are known: keep any record
    /// that matches them, rather than delete what may still be wanted.
    KeepLoose {
        /// API group.
        group: String,
        /// Object name.
        name: String,
    },
    /// The work only reads it (ReadOnly): drop any record without deleting the object.
    Release(Identity),
}

/// One object as the AppliedManifestWork identifies it (the version left out: the same
/// object is served in every version of its resource).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// API group.
    pub group: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace, empty for cluster-scoped objects.
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl Identity {
    /// The identity of a recorded resource.
    pub fn of(meta: &AppliedManifestResourceMeta) -> Self {
        Self {
            group: meta.group.clone(),
            resource: meta.resource.clone(),
            namespace: meta.namespace.clone(),
            name: meta.name.clone(),
        }
    }
}

/// What happened to one manifest.
#[derive(Debug)]
pub struct ManifestOutcome {
    /// Which manifest (what could be resolved of it).
    pub meta: ManifestResourceMeta,
    /// Whether it was applied.
    pub applied: Result<(), ManifestError>,
    /// Whether its object exists.
    pub availability: Availability,
    /// How to track it.
    pub tracking: Tracking,
    /// What its options' feedback rules read of its object, and the condition saying how
    /// that went (none when its object was not read).
    pub feedback: Option<(StatusFeedbackResult, Condition)>,
    /// The conditions its options' condition rules made of its object.
    pub rule_conditions: Vec<Condition>,
}

/// The identity of a resolved object, as manifest configs and records name it.
fn identity(resolved: &Resolved) -> Identity {
    Identity {
        group: resolved.resource.group.clone(),
        resource: resolved.resource.plural.clone(),
        namespace: resolved.namespace.clone().unwrap_or_default(),
        name: resolved.name.clone(),
    }
}

/// The AppliedManifestWork entry of a resolved object.
fn record(resolved: &Resolved, uid: String) -> AppliedManifestResourceMeta {
    let identity = identity(resolved);
    AppliedManifestResourceMeta {
        group: identity.group,
        version: resolved.resource.version.clone(),
        resource: identity.resource,
        namespace: identity.namespace,
        name: identity.name,
        uid,
    }
}

/// What the status can say about a manifest whose kind did not resolve.
fn unresolved_meta(target: &Target, ordinal: i32) -> ManifestResourceMeta {
    ManifestResourceMeta {
        ordinal,
        group: target.gvk.group.clone(),
        version: target.gvk.version.clone(),
        kind: target.gvk.kind.clone(),
        resource: String::new(),
        name: target.name.clone(),
        namespace: target.namespace.clone().unwrap_or_default(),
    }
}

/// Applies every manifest of `work` in order and says what happened to each; each object
/// it writes names `owner` (its AppliedManifestWork) among its owners unless the work's
/// deleteOption orphans it; feedback reports lists and objects as JSON text of at most
/// `raw_json` bytes ([`feedback::values`]). One manifest failing does not stop the others.
pub async fn apply_manifests(
    client: &Client,
    kinds: &Kinds,
    applied: &Written<Read>,
    work: &ManifestWork,
    owner: &OwnerReference,
    raw_json: Option<usize>,
) -> Vec<ManifestOutcome> {
    let executor = Executor::of(work);
    let mut resolver = Resolver::new(client, kinds);
    // CRDs this pass applied that later manifests may need: (group, kind, CRD name).
    let mut pending_crds: Vec<(String, String, String)> = Vec::new();
    let mut outcomes = Vec::with_capacity(work.spec.workload.manifests.len());
    for (index, manifest) in work.spec.workload.manifests.iter().enumerate() {
        let ordinal = i32::try_from(index).unwrap_or(i32::MAX);
        let target = match Target::read(&manifest.0) {
            Ok(target) => target,
            Err(error) => {
                outcomes.push(incomplete(ordinal, &manifest.0, error.into()));
                continue;
            }
        };
        if let Some(position) =
            pending_crds.iter().position(|(group, kind, _)| *group == target.gvk.group && *kind == target.gvk.kind)
        {
            let (_, _, crd) = pending_crds.swap_remove(position);
            if await_established(client, kinds, &crd, CRD_TIMEOUT).await.is_err() {
                outcomes.push(unresolved(ordinal, &target, ManifestError::CrdNotEstablished(crd)));
                continue;
            }
        }
        // A namespaced object without a namespace goes where kubectl would put it.
        let resolved = match resolver.resolve(&target, "default").await {
            Ok(resolved) => resolved,
            Err(error) => {
                outcomes.push(unresolved(ordinal, &target, error.into()));
                continue;
            }
        };
        let meta = ManifestResourceMeta {
            ordinal,
            group: resolved.resource.group.clone(),
            version: resolved.resource.version.clone(),
            kind: resolved.resource.kind.clone(),
            resource: resolved.resource.plural.clone(),
            name: resolved.name.clone(),
            namespace: resolved.namespace.clone().unwrap_or_default(),
        };
        let options = Options::of(&work.spec.manifest_configs, &identity(&resolved));
        let strategy = strategy_for(options.update_strategy);
        let held = !orphaned(work.spec.delete_option.as_ref(), &identity(&resolved));
        let allowed = match &executor {
            Ok(None) => Ok(()),
            Ok(Some(executor)) => executor.may_apply(client, &resolved, held, &resolved.body(&manifest.0)).await,
            Err(error) => Err(ManifestError::Executor(error.to_string())),
        };
        let outcome = match allowed {
            Ok(()) => apply_one(client, applied, &resolved, &manifest.0, &strategy, (owner, held)).await,
            Err(error) => Err(error),
        };
        // What the options' rules read of the object as it is now.
        let observe = |object: &DynamicObject| {
            let (read, conditions) = if options.feedback_rules.is_empty() && options.condition_rules.is_empty() {
                (feedback::Feedback::default(), Vec::new())
            } else {
                match serde_json::to_value(object) {
                    Ok(object) => (
                        feedback::values(options.feedback_rules, &object, &meta.group, &meta.version, raw_json),
                        condition_rules::evaluate(options.condition_rules, &object, &meta.group),
                    ),
                    Err(error) => {
                        let error = format!("the object is not JSON: {error}");
                        (feedback::Feedback { errors: vec![error], ..Default::default() }, Vec::new())
                    }
                }
            };
            let synced = feedback::synced(options.feedback_rules, &read);
            (Some((read.values, synced)), conditions)
        };
        // The kind went away since we learned it (a 404 that names no object — one that
        // names an object, such as a missing namespace, is the object's alone): look again
        // next time.
        let unserved = |status: &kube::core::Status| {
            status.is_not_found() && status.details.as_ref().is_none_or(|d| d.name.is_empty())
        };
        if matches!(&outcome, Err(ManifestError::Rejected(status)) if unserved(status)) {
            kinds.forget(&target.gvk);
        }
        let outcome = match outcome {
            Ok(Applied::Object(object)) => {
                if target.is_crd()
                    && let Some((group, kind)) = defined_kind(&object)
                {
                    pending_crds.push((group, kind, object.name_any()));
                }
                let (feedback, rule_conditions) = observe(&object);
                ManifestOutcome {
                    meta,
                    applied: Ok(()),
                    availability: Availability::Available,
                    tracking: Tracking::Owned(record(&resolved, object.uid().unwrap_or_default())),
                    feedback,
                    rule_conditions,
                }
            }
            Ok(Applied::ReadOnly(found)) => {
                let (feedback, rule_conditions) = found.as_deref().map(observe).unwrap_or_default();
                ManifestOutcome {
                    meta,
                    applied: Ok(()),
                    availability: if found.is_some() { Availability::Available } else { Availability::NotAvailable },
                    tracking: Tracking::Release(identity(&resolved)),
                    feedback,
                    rule_conditions,
                }
            }
            Err(error) => ManifestOutcome {
                meta,
                applied: Err(error),
                availability: exists(client, &resolved).await,
                tracking: Tracking::Keep(identity(&resolved)),
                feedback: None,
                rule_conditions: Vec::new(),
            },
        };
        outcomes.push(outcome);
    }
    outcomes
}

/// How a manifest is written.
#[derive(Clone, Debug, PartialEq)]
enum Strategy {
    /// Server-side apply with this field manager, forcing ownership or not, leaving these
    /// fields alone ([`ignore`]).
    Apply { field_manager: String, force: bool, ignore: Vec<IgnoreField> },
    /// Create when absent; never update.
    CreateOnly,
    /// Never write; only look.
    ReadOnly,
}

/// How the update strategy of a manifest's options writes it; server-side apply as the
/// work agent, taking ownership, without one. Upstream's `Update` (a
/// client-side update) is done as a forced server-side apply too: the result on the
/// object is the same and one write path is easier to get right.
fn strategy_for(strategy: Option<&UpdateStrategy>) -> Strategy {
    let default =
        || Strategy::Apply { field_manager: DEFAULT_FIELD_MANAGER.to_owned(), force: true, ignore: Vec::new() };
    let Some(strategy) = strategy else {
        return default();
    };
    match strategy.type_ {
        // A strategy from a newer upstream (the CRD's enum rules it out here) is applied
        // like the default rather than refused.
        UpdateStrategyType::Update | UpdateStrategyType::Other(_) => default(),
        UpdateStrategyType::CreateOnly => Strategy::CreateOnly,
        UpdateStrategyType::ReadOnly => Strategy::ReadOnly,
        UpdateStrategyType::ServerSideApply => {
            let config = strategy.server_side_apply.clone().unwrap_or_default();
            let field_manager =
                if config.field_manager.is_empty() { DEFAULT_FIELD_MANAGER.to_owned() } else { config.field_manager };
            Strategy::Apply { field_manager, force: config.force, ignore: config.ignore_fields }
        }
    }
}

/// What writing a manifest left.
enum Applied {
    /// The object as the server has it now.
    Object(Box<DynamicObject>),
    /// A ReadOnly manifest was looked at: its object, if it exists.
    ReadOnly(Option<Box<DynamicObject>>),
}

/// Writes one manifest as `strategy` says; what it writes names the owner reference of
/// `ownership` when its flag says the record holds it, and no longer names it otherwise.
async fn apply_one(
    client: &Client,
    applied: &Written<Read>,
    resolved: &Resolved,
    manifest: &Value,
    strategy: &Strategy,
    ownership: (&OwnerReference, bool),
) -> Result<Applied, ManifestError> {
    let api = resolved.api(client);
    let (field_manager, force, ignore) = match strategy {
        Strategy::ReadOnly => return Ok(Applied::ReadOnly(api.get_opt(&resolved.name).await?.map(Box::new))),
        Strategy::CreateOnly => {
            if let Some(existing) = api.get_opt(&resolved.name).await? {
                return Ok(Applied::Object(Box::new(existing)));
            }
            (DEFAULT_FIELD_MANAGER, true, &[][..])
        }
        Strategy::Apply { field_manager, force, ignore } => (field_manager.as_str(), *force, ignore.as_slice()),
    };
    let mut params = PatchParams::apply(field_manager);
    params.force = force;
    let body = resolved.body(manifest);
    let ignoring = ignore::prepare(&body, ignore).map_err(ManifestError::IgnoreField)?;
    let key = Key::new_with(&resolved.name, resolved.resource.clone());
    let key = match &resolved.namespace {
        Some(namespace) => key.within(namespace),
        None => key,
    };
    let (owner, held) = ownership;
    let digest = digest(&(&body, field_manager, force, &owner.uid, held, ignore));
    let read = || async { api.get_opt(&resolved.name).await.map_err(ManifestError::from) };
    let name = resolved.name.as_str();
    let apply = || async {
        let object = match &ignoring {
            None => api.patch(name, &params, &Patch::Apply(&body)).await?,
            // A new object gets every field; an existing one already holding this hash is
            // left as it is; any other gets all but the fields left to the managed cluster.
            Some(ignoring) => match api.get_opt(name).await? {
                None => api.patch(name, &params, &Patch::Apply(&ignoring.whole)).await?,
                Some(existing) if existing.annotations().get(ignore::SPEC_HASH) == Some(&ignoring.hash) => existing,
                Some(_) => api.patch(name, &params, &Patch::Apply(&ignoring.kept)).await?,
            },
        };
        Ok(owners::mark(&api, object, owner, held).await?)
    };
    let object = applied.apply_with(key, digest, ResourceExt::resource_version, read, apply).await?;
    Ok(Applied::Object(Box::new(object)))
}

/// Whether the object of a manifest that failed to apply exists anyway.
async fn exists(client: &Client, resolved: &Resolved) -> Availability {
    match resolved.api(client).get_opt(&resolved.name).await {
        Ok(Some(_)) => Availability::Available,
        Ok(None) => Availability::NotAvailable,
        Err(error) => Availability::Unknown { reason: REASON_FETCHING_FAILED, message: fetch_failed(&error) },
    }
}

/// Upstream's manifest Available=Unknown reason when the object could not be read.
pub const REASON_FETCHING_FAILED: &str = "FetchingResourceFailed";
/// Upstream's manifest Available=Unknown reason when the manifest's resource is unknown.
pub const REASON_INCOMPLETE_META: &str = "IncompletedResourceMeta";

fn fetch_failed(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!("Failed to fetch resource: {}", status.message),
        other => format!("Failed to fetch resource: {other}"),
    }
}

/// A manifest that is not an object with apiVersion, kind and name.
fn incomplete(ordinal: i32, manifest: &Value, error: ManifestError) -> ManifestOutcome {
    let text = |pointer: &str| manifest.pointer(pointer).and_then(Value::as_str).unwrap_or_default().to_owned();
    let api_version = text("/apiVersion");
    let (group, version) = api_version.split_once('/').unwrap_or(("", &api_version));
    let meta = ManifestResourceMeta {
        ordinal,
        group: group.to_owned(),
        version: version.to_owned(),
        kind: text("/kind"),
        resource: String::new(),
        name: text("/metadata/name"),
        namespace: text("/metadata/namespace"),
    };
    let tracking = Tracking::KeepLoose { group: meta.group.clone(), name: meta.name.clone() };
    let availability =
        Availability::Unknown { reason: REASON_INCOMPLETE_META, message: "Resource meta is incompleted".to_owned() };
    ManifestOutcome { meta, applied: Err(error), availability, tracking, feedback: None, rule_conditions: Vec::new() }
}

/// A manifest whose kind did not resolve.
fn unresolved(ordinal: i32, target: &Target, error: ManifestError) -> ManifestOutcome {
    let availability =
        Availability::Unknown { reason: REASON_INCOMPLETE_META, message: "Resource meta is incompleted".to_owned() };
    ManifestOutcome {
        meta: unresolved_meta(target, ordinal),
        applied: Err(error),
        availability,
        tracking: Tracking::KeepLoose { group: target.gvk.group.clone(), name: target.name.clone() },
        feedback: None,
        rule_conditions: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use fleetctl_api::work::{ManifestConfigOption, ResourceIdentifier, ServerSideApplyConfig};

    fn identity(name: &str) -> Identity {
        Identity {
            group: "apps".into(),
            resource: "deployments".into(),
            namespace: "default".into(),
            name: name.into(),
        }
    }

    fn config(name: &str, strategy: UpdateStrategy) -> ManifestConfigOption {
        ManifestConfigOption {
            resource_identifier: ResourceIdentifier {
                group: "apps".into(),
                resource: "deployments".into(),
                name: name.into(),
                namespace: "default".into(),
            },
            update_strategy: Some(strategy),
            ..ManifestConfigOption::default()
        }
    }

    #[test]
    fn without_a_config_a_manifest_is_force_applied_as_the_work_agent() {
        assert_eq!(
            strategy_for(Options::of(&[], &identity("d")).update_strategy),
            Strategy::Apply { field_manager: "work-agent".into(), force: true, ignore: Vec::new() }
        );
    }

    #[test]
    fn a_config_names_its_object_or_any_with_a_wildcard() {
        let read_only = UpdateStrategy { type_: UpdateStrategyType::ReadOnly, server_side_apply: None };
        let configs = [config("other", read_only.clone()), config("*", read_only)];
        assert_eq!(
            strategy_for(Options::of(&configs[..1], &identity("d")).update_strategy),
            strategy_for(Options::of(&[], &identity("d")).update_strategy)
        );
        assert_eq!(strategy_for(Options::of(&configs, &identity("d")).update_strategy), Strategy::ReadOnly);
    }

    #[test]
    fn server_side_apply_takes_its_manager_and_force_from_the_config() {
        let ssa = UpdateStrategy {
            type_: UpdateStrategyType::ServerSideApply,
            server_side_apply: Some(ServerSideApplyConfig {
                force: false,
                field_manager: "work-agent-import".into(),
                ..ServerSideApplyConfig::default()
            }),
        };
        assert_eq!(
            strategy_for(Options::of(&[config("d", ssa)], &identity("d")).update_strategy),
            Strategy::Apply { field_manager: "work-agent-import".into(), force: false, ignore: Vec::new() }
        );
        let create = UpdateStrategy { type_: UpdateStrategyType::CreateOnly, server_side_apply: None };
        assert_eq!(
            strategy_for(Options::of(&[config("d", create)], &identity("d")).update_strategy),
            Strategy::CreateOnly
        );
    }

    #[test]
    fn an_incomplete_manifest_is_reported_with_what_it_has() {
        let outcome = incomplete(
            2,
            &json!({"apiVersion": "apps/v1", "kind": "Deployment"}),
            ManifestError::Incomplete(Missing("metadata.name")),
        );
        assert_eq!(
            (outcome.meta.ordinal, outcome.meta.group.as_str(), outcome.meta.kind.as_str()),
            (2, "apps", "Deployment")
        );
        assert!(outcome.applied.is_err());
        assert!(matches!(outcome.availability, Availability::Unknown { reason: REASON_INCOMPLETE_META, .. }));
    }

    #[test]
    fn an_unresolved_manifest_is_reported_with_what_it_says_and_why() {
        let target =
            Target::read(&json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}));
        let error = ResolveError::UnknownKind { api_version: "example.com/v1".into(), kind: "Widget".into() };
        let outcome = unresolved(1, &target.expect("target"), error.into());
        assert_eq!((outcome.meta.group.as_str(), outcome.meta.namespace.as_str()), ("example.com", ""));
        let message = outcome.applied.expect_err("not applied").to_string();
        assert_eq!(message, "the cluster does not serve kind Widget in example.com/v1");
        let missing = ManifestError::from(Target::read(&json!({"kind": "ConfigMap"})).expect_err("incomplete"));
        assert_eq!(
            missing.to_string(),
            "apiVersion is missing: every manifest needs apiVersion, kind and metadata.name"
        );
    }
}
