//! Admission webhooks (admissionregistration.k8s.io/v1 Mutating- and
//! ValidatingWebhookConfiguration), called as kube-apiserver calls them:
//!
//! - which requests: `rules`, `namespaceSelector`, `objectSelector` and CEL
//!   `matchConditions` (a condition that errors counts under the failure policy); the
//!   webhook configurations and admission policies themselves are never sent to a webhook,
//!   so a broken webhook cannot lock its own fix out;
//! - where: `clientConfig` (`callout`: HTTPS to its URL or Service, trusting only
//!   `caBundle`);
//! - what: an `admission.k8s.io/v1` AdmissionReview (a webhook must list `v1` in
//!   `admissionReviewVersions`), with `?timeout=` the webhook's `timeoutSeconds` (10 by
//!   default, at most 30) as the deadline;
//! - the answer: `allowed: false` refuses the request with the webhook's status (400 at
//!   least) and message, `admission webhook "<name>" denied the request: …`; its warnings
//!   reach the client; a call that fails, times out or answers nonsense refuses the request
//!   (500) under `failurePolicy: Fail` (the default) and is skipped under `Ignore`;
//! - dry runs reach only webhooks whose `sideEffects` are `None` or `NoneOnDryRun`; for any
//!   other, the request is refused (400), as upstream does;
//! - a mutating webhook's `JSONPatch` is applied to the object, which the kind's strategy
//!   then defaults again (as upstream decodes a patched object with defaulting); the
//!   server's own metadata (uid, creation time, resourceVersion, generation) cannot be
//!   patched, nor the name or namespace. Mutating webhooks run before validation, on writes
//!   of the main resource (not of subresources), each once (`reinvocationPolicy` is not
//!   honoured).
//!
//! Webhooks run one after another in the order of their configurations' names (validating
//! ones run in parallel upstream; the outcome is the same).

use std::sync::Arc;

use base64::Engine;
use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, MatchResources, MutatingWebhook, MutatingWebhookConfiguration, NamedRuleWithOperations,
    RuleWithOperations, ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::super::callout::{self, CallError, Target};
use super::super::context::Context;
use super::super::patch;
use super::super::reader::Reader;
use super::super::registry::GroupResource;
use super::super::status::ApiError;
use super::policy::{self, read_all};
use super::{Admitted, Operation, Plugin, Request, Seen, matching};

/// The longest a webhook may take, and how long when it does not say.
const MAX_TIMEOUT: i32 = 30;
const DEFAULT_TIMEOUT: i32 = 10;

/// The storage key of ValidatingWebhookConfigurations.
pub fn validating() -> GroupResource {
    GroupResource::new("admissionregistration.k8s.io", "validatingwebhookconfigurations")
}

/// The storage key of MutatingWebhookConfigurations.
pub fn mutating() -> GroupResource {
    GroupResource::new("admissionregistration.k8s.io", "mutatingwebhookconfigurations")
}

/// What a validating and a mutating webhook have in common: everything but the patch.
struct Hook {
    name: String,
    client_config: WebhookClientConfig,
    rules: Vec<RuleWithOperations>,
    namespace_selector: Option<LabelSelector>,
    object_selector: Option<LabelSelector>,
    match_conditions: Vec<MatchCondition>,
    failure_policy: Option<String>,
    match_policy: Option<String>,
    side_effects: String,
    timeout_seconds: Option<i32>,
    admission_review_versions: Vec<String>,
    /// A mutating webhook's `reinvocationPolicy: IfNeeded`.
    reinvoke: bool,
}

/// Both kinds of webhook declare these fields alike (k8s-openapi has a type for each);
/// only a mutating one may be invoked again.
macro_rules! hook_from {
    ($($webhook:ty => $reinvoke:expr),+) => {$(
        impl From<$webhook> for Hook {
            fn from(w: $webhook) -> Self {
                let reinvoke: fn(&$webhook) -> bool = $reinvoke;
                Self {
                    reinvoke: reinvoke(&w),
                    name: w.name,
                    client_config: w.client_config,
                    rules: w.rules.unwrap_or_default(),
                    namespace_selector: w.namespace_selector,
                    object_selector: w.object_selector,
                    match_conditions: w.match_conditions.unwrap_or_default(),
                    failure_policy: w.failure_policy,
                    match_policy: w.match_policy,
                    side_effects: w.side_effects,
                    timeout_seconds: w.timeout_seconds,
                    admission_review_versions: w.admission_review_versions,
                }
            }
        }
    )+};
}

hook_from!(
    ValidatingWebhook => |_| false,
    MutatingWebhook => |w| w.reinvocation_policy.as_deref() == Some("IfNeeded")
);

/// The webhooks of every configuration of one kind, in the order of the configurations'
/// names, read again only when a configuration changes (as the policy index is).
struct Hooks {
    resource: GroupResource,
    read: fn(&Reader, &GroupResource) -> Vec<Hook>,
    cached: Mutex<Option<(u64, Arc<Vec<Hook>>)>>,
}

impl Hooks {
    fn new(resource: GroupResource, read: fn(&Reader, &GroupResource) -> Vec<Hook>) -> Self {
        Self { resource, read, cached: Mutex::new(None) }
    }

    fn get(&self, store: &Reader) -> Arc<Vec<Hook>> {
        let revision = store.revision(&self.resource);
        let mut cached = self.cached.lock();
        match cached.as_ref() {
            Some((seen, hooks)) if *seen == revision => hooks.clone(),
            _ => {
                let hooks = Arc::new((self.read)(store, &self.resource));
                *cached = Some((revision, hooks.clone()));
                hooks
            }
        }
    }
}

fn read_hooks<C, W>(store: &Reader, resource: &GroupResource, webhooks: fn(C) -> Option<Vec<W>>) -> Vec<Hook>
where
    C: serde::de::DeserializeOwned + kube::Resource,
    Hook: From<W>,
{
    let mut configurations = read_all::<C>(store, resource);
    configurations.sort_by(|a, b| a.meta().name.cmp(&b.meta().name));
    configurations.into_iter().filter_map(webhooks).flatten().map(Hook::from).collect()
}

/// Whether a resource is part of admission's own configuration, which no webhook sees.
fn is_exempt(resource: &GroupResource) -> bool {
    resource.group == "admissionregistration.k8s.io"
}

/// The validating-webhook admission plugin.
pub struct Webhooks(Hooks);

impl Default for Webhooks {
    fn default() -> Self {
        Self(Hooks::new(validating(), |store, resource| {
            read_hooks(store, resource, |c: ValidatingWebhookConfiguration| c.webhooks)
        }))
    }
}

impl Plugin for Webhooks {
    fn validate(&self, context: &Context<'_>, request: &Request<'_>, admitted: &mut Admitted) -> Result<(), ApiError> {
        if is_exempt(&request.rt.group_resource()) {
            return Ok(());
        }
        for hook in self.0.get(&context.store).iter() {
            consult(context, hook, request, admitted)?;
        }
        Ok(())
    }
}

/// Metadata the server keeps whatever a mutating webhook answers.
const SERVER_METADATA: [&str; 5] = ["uid", "creationTimestamp", "resourceVersion", "generation", "deletionTimestamp"];

/// The mutating-webhook admission plugin.
pub struct MutatingWebhooks(Hooks);

impl Default for MutatingWebhooks {
    fn default() -> Self {
        Self(Hooks::new(mutating(), |store, resource| {
            read_hooks(store, resource, |c: MutatingWebhookConfiguration| c.webhooks)
        }))
    }
}

impl MutatingWebhooks {
    /// Runs the mutating webhooks on the object `request` would write (which `object`
    /// holds); returns whether any changed it.
    pub fn mutate(
        &self,
        context: &Context<'_>,
        request: &Request<'_>,
        object: &mut Value,
        admitted: &mut Admitted,
    ) -> Result<bool, ApiError> {
        if is_exempt(&request.rt.group_resource()) || request.subresource.is_some() {
            return Ok(false);
        }
        let hooks = self.0.get(&context.store);
        // The last webhook to change the object: those before it that asked to be invoked
        // again if needed see the changed object once more (upstream's reinvocation).
        let mut last_change = None;
        for (i, hook) in hooks.iter().enumerate() {
            if patch_with(context, hook, request, object, admitted)? {
                last_change = Some(i);
            }
        }
        let Some(last) = last_change else { return Ok(false) };
        for hook in hooks[..last].iter().filter(|hook| hook.reinvoke) {
            patch_with(context, hook, request, object, admitted)?;
        }
        Ok(true)
    }
}

/// One mutating webhook's patch applied to `object`; whether it changed it.
fn patch_with(
    context: &Context<'_>,
    hook: &Hook,
    request: &Request<'_>,
    object: &mut Value,
    admitted: &mut Admitted,
) -> Result<bool, ApiError> {
    let current = object.clone();
    let asked = Request { object: Some(&current), ..*request };
    let Some((response, seen)) = consult(context, hook, &asked, admitted)? else { return Ok(false) };
    let Some(encoded) = response["patch"].as_str() else { return Ok(false) };
    let failed = |why: String| ApiError::internal(format!("failed calling webhook \"{}\": {why}", hook.name));
    if response["patchType"].as_str() != Some("JSONPatch") {
        return Err(failed(format!("unsupported patchType {:?}: only JSONPatch", response["patchType"])));
    }
    let operations: Value = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| e.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
        .map_err(|why| failed(format!("the patch does not decode: {why}")))?;
    // The patch is to the object as the webhook saw it.
    let mut patched = seen.shown(&current);
    patch::json_patch(&mut patched, &operations).map_err(|e| failed(format!("the patch does not apply: {e}")))?;
    let mut patched = seen.stored(patched);
    for field in ["name", "namespace"] {
        if patched["metadata"][field] != current["metadata"][field] {
            return Err(failed(format!("the patch changes metadata.{field}")));
        }
    }
    for field in SERVER_METADATA {
        let meta = super::super::object::metadata_mut(&mut patched);
        match current["metadata"].get(field) {
            Some(kept) => meta.insert(field.to_string(), kept.clone()),
            None => meta.remove(field),
        };
    }
    let changed = patched != current;
    *object = patched;
    Ok(changed)
}

/// One webhook's say on one request: its response when it allowed the request (with the
/// view of the request it was asked about), `None` when it does not apply (or failed under
/// `failurePolicy: Ignore`), an error when it denied the request or failed under `Fail`.
fn consult<'a>(
    context: &Context<'_>,
    webhook: &Hook,
    request: &Request<'a>,
    admitted: &mut Admitted,
) -> Result<Option<(Value, Seen<'a>)>, ApiError> {
    let fail = webhook.failure_policy.as_deref() != Some("Ignore");
    let failed = |why: String| {
        if fail {
            Err(ApiError::internal(format!("failed calling webhook \"{}\": {why}", webhook.name)))
        } else {
            tracing::warn!(webhook = %webhook.name, error = %why, "a webhook failed and is ignored (failurePolicy: Ignore)");
            Ok(None)
        }
    };
    let seen = match applies(context, webhook, request) {
        Ok(Some(seen)) => seen,
        Ok(None) => return Ok(None),
        Err(why) => return failed(why),
    };
    if request.dry_run && !matches!(webhook.side_effects.as_str(), "None" | "NoneOnDryRun") {
        return Err(ApiError::bad_request(format!("admission webhook \"{}\" does not support dry run", webhook.name)));
    }
    let uid = uuid::Uuid::new_v4().to_string();
    let review = json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": review_request(&seen.request(), &uid),
    });
    let answer = match call(context, webhook, &review) {
        Ok(answer) => answer,
        Err(CallError(why)) => return failed(format!("failed to call webhook: {why}")),
    };
    let response = &answer["response"];
    if answer["apiVersion"] != "admission.k8s.io/v1" || answer["kind"] != "AdmissionReview" {
        return failed("the webhook's answer is not an admission.k8s.io/v1 AdmissionReview".into());
    }
    if response["uid"].as_str() != Some(uid.as_str()) {
        return failed(format!("expected response.uid={uid:?}, got {:?}", response["uid"]));
    }
    let Some(allowed) = response["allowed"].as_bool() else {
        return failed("the webhook's answer says neither allowed nor denied".into());
    };
    admitted
        .warnings
        .extend(response["warnings"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string));
    if allowed { Ok(Some((response.clone(), seen))) } else { Err(denied(&webhook.name, &response["status"])) }
}

/// Whether the webhook is for this request — its rules, selectors and match conditions —
/// and under which view of it.
fn applies<'a>(context: &Context<'_>, webhook: &Hook, request: &Request<'a>) -> Result<Option<Seen<'a>>, String> {
    let rules = webhook.rules.iter().map(|rule| NamedRuleWithOperations {
        api_groups: rule.api_groups.clone(),
        api_versions: rule.api_versions.clone(),
        operations: rule.operations.clone(),
        resources: rule.resources.clone(),
        scope: rule.scope.clone(),
        resource_names: None,
    });
    let resources = MatchResources {
        namespace_selector: webhook.namespace_selector.clone(),
        object_selector: webhook.object_selector.clone(),
        // A webhook without rules matches nothing.
        resource_rules: Some(rules.collect()).filter(|r: &Vec<_>| !r.is_empty()),
        match_policy: webhook.match_policy.clone(),
        ..MatchResources::default()
    };
    if resources.resource_rules.is_none() {
        return Ok(None);
    }
    let matched = matching::first_match(context, &resources, request);
    let Some(seen) = matched.map_err(|e| format!("failed to match the request: {e}"))? else { return Ok(None) };
    let variables = policy::variables(context, &seen.request(), None);
    for condition in &webhook.match_conditions {
        let program = super::super::cel::memoized(&condition.expression)
            .map_err(|e| format!("matchCondition {:?}: {e}", condition.name))?;
        match program.eval_bool(&variables) {
            Ok(true) => {}
            Ok(false) => return Ok(None),
            Err(e) => return Err(format!("matchCondition {:?} resulted in error: {e}", condition.name)),
        }
    }
    Ok(Some(seen))
}

/// The `request` of an AdmissionReview.
fn review_request(request: &Request<'_>, uid: &str) -> Value {
    let mut review = policy::request_info(request);
    review["uid"] = json!(uid);
    review["object"] = request.object.cloned().unwrap_or(Value::Null);
    review["oldObject"] = request.old_object.cloned().unwrap_or(Value::Null);
    let options = match request.operation {
        Operation::Create => "CreateOptions",
        Operation::Update => "UpdateOptions",
        Operation::Delete => "DeleteOptions",
    };
    review["options"] = json!({"apiVersion": "meta.k8s.io/v1", "kind": options});
    if request.subresource.is_none()
        && let Some(object) = review.as_object_mut()
    {
        object.remove("subResource");
        object.remove("requestSubResource");
    }
    review
}

/// The refusal a webhook answered: its code (400 at least) and message, as upstream words it.
fn denied(webhook: &str, status: &Value) -> ApiError {
    let by = format!("admission webhook \"{webhook}\" denied the request");
    let text = |field: &str| status[field].as_str().filter(|s| !s.is_empty()).map(str::to_string);
    let message = match (text("message"), text("reason")) {
        (Some(message), _) | (None, Some(message)) => format!("{by}: {message}"),
        (None, None) => format!("{by} without explanation"),
    };
    let code = status["code"].as_u64().and_then(|c| u16::try_from(c).ok()).filter(|c| *c >= 400).unwrap_or(400);
    ApiError::with_code(code, &message)
}

/// Posts the review to the webhook and returns its answer.
fn call(context: &Context<'_>, webhook: &Hook, review: &Value) -> Result<Value, CallError> {
    let versions = webhook.admission_review_versions.iter();
    if !versions.clone().any(|v| v == "v1") {
        return Err(CallError(format!(
            "the webhook accepts AdmissionReview versions {:?}; this server sends v1",
            webhook.admission_review_versions
        )));
    }
    let timeout_seconds = webhook.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT).clamp(1, MAX_TIMEOUT);
    callout::post(&context.store, &Target::from(&webhook.client_config), timeout_seconds, review)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream's `webhookerrors.ToStatusErr`: the webhook's message (or reason) after
    /// `denied the request:`, "without explanation" when it gives none, never under 400.
    #[test]
    fn a_denial_carries_the_webhooks_message_and_a_code_of_400_at_least() {
        let with = denied("check.example.com", &json!({"code": 403, "message": "no prod here"}));
        assert_eq!(with.code, 403);
        assert_eq!(with.message, "admission webhook \"check.example.com\" denied the request: no prod here");
        let reason = denied("w", &json!({"reason": "Nope", "code": 200}));
        assert_eq!((reason.code, reason.message.as_str()), (400, "admission webhook \"w\" denied the request: Nope"));
        assert_eq!(denied("w", &Value::Null).message, "admission webhook \"w\" denied the request without explanation");
    }

    #[test]
    fn admission_configuration_is_never_sent_to_a_webhook() {
        assert!(is_exempt(&validating()) && is_exempt(&mutating()));
        assert!(is_exempt(&policy::bindings()));
        assert!(!is_exempt(&GroupResource::new("", "configmaps")));
    }
}
