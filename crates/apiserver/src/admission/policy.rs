//! ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1): policies with CEL
//! validations, bound to requests by ValidatingAdmissionPolicyBindings, with
//! `matchConstraints`, `matchConditions`, `variables`, `paramKind`/`paramRef`,
//! `failurePolicy` and the binding's `validationActions` (Deny, Warn, Audit).
//!
//! Policies and bindings are compiled once per change of either and kept in an index
//! the way the RBAC authorizer keeps its bindings.

use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicyBindingSpec,
};
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::super::cel::{self, Expression, Variables};
use super::super::cel_authorizer;
use super::super::context::Context;
use super::super::kinds;
use super::super::reader::Reader;
use super::super::registry::{GroupResource, ResourceType};
use super::super::selector::LabelSelector;
use super::super::status::{ApiError, Cause};
use super::super::store::key;
use super::{Admitted, Plugin, Request, matching};

/// The storage key of ValidatingAdmissionPolicies.
pub fn policies() -> GroupResource {
    GroupResource::new("admissionregistration.k8s.io", "validatingadmissionpolicies")
}

/// The storage key of ValidatingAdmissionPolicyBindings.
pub fn bindings() -> GroupResource {
    GroupResource::new("admissionregistration.k8s.io", "validatingadmissionpolicybindings")
}

/// An expression as written with its compiled form, or why it does not compile (an
/// expression that does not compile fails at evaluation, under the failure policy).
struct Compiled {
    source: String,
    program: Result<Expression, cel::CompileError>,
}

impl Compiled {
    fn new(source: &str) -> Self {
        Self { source: source.to_string(), program: Expression::compile(source) }
    }

    fn program(&self) -> Result<&Expression, String> {
        self.program.as_ref().map_err(ToString::to_string)
    }

    fn eval_bool(&self, variables: &Variables) -> Result<bool, String> {
        self.program()?.eval_bool(variables).map_err(|e| e.to_string())
    }
}

struct Validation {
    expression: Compiled,
    message: Option<String>,
    message_expression: Option<Compiled>,
    reason: Option<String>,
}

/// A policy ready to evaluate.
struct Policy {
    name: String,
    policy: ValidatingAdmissionPolicy,
    fail: bool,
    match_conditions: Vec<(String, Compiled)>,
    variables: Vec<(String, Compiled)>,
    validations: Vec<Validation>,
}

impl Policy {
    fn compile(policy: ValidatingAdmissionPolicy) -> Self {
        let spec = policy.spec.clone().unwrap_or_default();
        let pairs = |items: Vec<(String, String)>| -> Vec<(String, Compiled)> {
            items.into_iter().map(|(name, source)| (name, Compiled::new(&source))).collect()
        };
        Self {
            name: policy.metadata.name.clone().unwrap_or_default(),
            fail: spec.failure_policy.as_deref() != Some("Ignore"),
            match_conditions: pairs(
                spec.match_conditions.unwrap_or_default().into_iter().map(|c| (c.name, c.expression)).collect(),
            ),
            variables: pairs(spec.variables.unwrap_or_default().into_iter().map(|v| (v.name, v.expression)).collect()),
            validations: spec
                .validations
                .unwrap_or_default()
                .into_iter()
                .map(|v| Validation {
                    expression: Compiled::new(&v.expression),
                    message: v.message.filter(|m| !m.is_empty()),
                    message_expression: v.message_expression.filter(|m| !m.is_empty()).map(|m| Compiled::new(&m)),
                    reason: v.reason.filter(|r| !r.is_empty()),
                })
                .collect(),
            policy,
        }
    }
}

/// A binding with its policy.
struct Bound {
    name: String,
    spec: ValidatingAdmissionPolicyBindingSpec,
    policy: Arc<Policy>,
}

impl Bound {
    fn acts(&self, action: &str) -> bool {
        self.spec.validation_actions.iter().flatten().any(|a| a == action)
    }
}

type Revisions = [u64; 2];

/// The ValidatingAdmissionPolicy admission plugin.
pub struct Policies {
    /// The storage keys of the policies and of the bindings, looked up on every write.
    policies: GroupResource,
    bindings: GroupResource,
    index: Mutex<Option<(Revisions, Arc<Vec<Bound>>)>>,
}

impl Default for Policies {
    fn default() -> Self {
        Self { policies: policies(), bindings: bindings(), index: Mutex::default() }
    }
}

/// Every stored object of an admission resource that decodes as `T`.
pub(super) fn read_all<T: serde::de::DeserializeOwned>(store: &Reader, resource: &GroupResource) -> Vec<T> {
    let page = store.list(resource, None);
    page.items
        .iter()
        .filter_map(|stored| match serde_json::from_slice::<T>(&stored.json()) {
            Ok(typed) => Some(typed),
            Err(e) => {
                // Validation keeps malformed objects out; a stored one is skipped, loudly.
                tracing::warn!(resource = %resource, error = %e, "a stored admission policy object does not decode");
                None
            }
        })
        .collect()
}

impl Policies {
    fn index(&self, store: &Reader) -> Arc<Vec<Bound>> {
        let revisions = [store.revision(&self.policies), store.revision(&self.bindings)];
        let mut cached = self.index.lock();
        if let Some((seen, index)) = cached.as_ref()
            && *seen == revisions
        {
            return index.clone();
        }
        let compiled: Vec<Arc<Policy>> = read_all::<ValidatingAdmissionPolicy>(store, &self.policies)
            .into_iter()
            .map(|p| Arc::new(Policy::compile(p)))
            .collect();
        let index: Vec<Bound> = read_all::<ValidatingAdmissionPolicyBinding>(store, &self.bindings)
            .into_iter()
            .filter_map(|binding| {
                let spec = binding.spec?;
                let wanted = spec.policy_name.as_deref()?;
                // A binding to a policy that does not exist (yet) binds nothing.
                let policy = compiled.iter().find(|p| p.name == wanted)?.clone();
                Some(Bound { name: binding.metadata.name.unwrap_or_default(), spec, policy })
            })
            .collect();
        let index = Arc::new(index);
        *cached = Some((revisions, index.clone()));
        index
    }
}

impl Plugin for Policies {
    fn validate(&self, context: &Context<'_>, request: &Request<'_>, admitted: &mut Admitted) -> Result<(), ApiError> {
        let index = self.index(&context.store);
        for bound in index.iter() {
            for violation in evaluate(context, bound, request) {
                let text = format!(
                    "ValidatingAdmissionPolicy '{}' with binding '{}' denied request: {}",
                    bound.policy.name, bound.name, violation.message
                );
                if bound.acts("Warn") {
                    admitted.warnings.push(format!(
                        "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{}': {}",
                        bound.policy.name, bound.name, violation.message
                    ));
                }
                if bound.acts("Deny") {
                    return Err(denial(request, &text, violation.reason.as_deref()));
                }
            }
        }
        Ok(())
    }
}

/// A failed validation (or an error the failure policy turns into one).
struct Violation {
    message: String,
    reason: Option<String>,
}

impl Violation {
    fn of(message: String, reason: Option<String>) -> Self {
        Self { message, reason }
    }
}

/// The refusal of a request: a Forbidden whose reason (and so code) the validation
/// chooses, Invalid (422) unless it says otherwise, with the message as its one cause.
fn denial(request: &Request<'_>, message: &str, reason: Option<&str>) -> ApiError {
    let rt = request.rt;
    let mut err = ApiError::forbidden(&rt.plural, &rt.group, request.key.name, message);
    let (code, reason) = match reason {
        Some("Forbidden") => (403, "Forbidden"),
        Some("Unauthorized") => (401, "Unauthorized"),
        Some("RequestEntityTooLarge") => (413, "RequestEntityTooLarge"),
        _ => (422, "Invalid"),
    };
    err.code = code;
    err.reason = reason;
    err.details.causes.push(Cause::new("", "", message));
    err
}

/// Every violation of one binding's policy by `request` (none when it does not apply).
fn evaluate(context: &Context<'_>, bound: &Bound, request: &Request<'_>) -> Vec<Violation> {
    let policy = &bound.policy;
    let spec = policy.policy.spec.as_ref();
    let Some(constraints) = spec.and_then(|s| s.match_constraints.as_ref()) else { return Vec::new() };
    // The policy sees the request under the resource it matched, in that resource's version.
    let seen = matching::first_match(context, constraints, request).and_then(|seen| match seen {
        Some(seen) => match &bound.spec.match_resources {
            Some(resources) => Ok(matching::matches(context, resources, &seen.request())?.then_some(seen)),
            None => Ok(Some(seen)),
        },
        None => Ok(None),
    });
    let seen = match seen {
        Ok(Some(seen)) => seen,
        Ok(None) => return Vec::new(),
        Err(e) => return failure(policy, format!("failed to match the request: {e}")),
    };
    let request = &seen.request();
    let params = match params(context, bound, request) {
        Ok(params) => params,
        Err(Misconfigured::Failure(why)) => return failure(policy, why),
        Err(Misconfigured::Deny(why)) => return vec![Violation::of(why, None)],
    };
    let mut violations = Vec::new();
    for param in params {
        let variables = variables(context, request, param);
        violations.extend(validate_once(policy, &variables));
    }
    violations
}

/// A problem the failure policy decides about: Fail denies, Ignore lets through.
fn failure(policy: &Policy, message: String) -> Vec<Violation> {
    if policy.fail { vec![Violation::of(message, None)] } else { Vec::new() }
}

fn validate_once(policy: &Policy, base: &Variables) -> Vec<Violation> {
    let mut variables = base.clone();
    // `variables.<name>`: each sees the ones before it; one that fails stays unset, so
    // only expressions that use it fail.
    let mut composed = serde_json::Map::new();
    for (name, compiled) in &policy.variables {
        if let Ok(value) = compiled.program().and_then(|p| p.eval(&variables).map_err(|e| e.to_string()))
            && let Some(json) = cel::to_json(&value)
        {
            composed.insert(name.clone(), json);
            variables.set("variables", cel::from_json(&Value::Object(composed.clone())));
        }
    }
    variables.set("variables", cel::from_json(&Value::Object(composed)));
    for (_, condition) in &policy.match_conditions {
        match condition.eval_bool(&variables) {
            Ok(true) => {}
            Ok(false) => return Vec::new(),
            Err(e) => {
                return failure(policy, format!("expression '{}' resulted in error: {e}", condition.source));
            }
        }
    }
    let mut violations = Vec::new();
    for validation in &policy.validations {
        match validation.expression.eval_bool(&variables) {
            Ok(true) => {}
            Ok(false) => {
                let from_expression = validation
                    .message_expression
                    .as_ref()
                    .and_then(|m| m.program().ok()?.eval_string(&variables).ok())
                    .map(|m| m.trim().to_string())
                    .filter(|m| !m.is_empty() && !m.contains('\n'));
                let message = from_expression
                    .or_else(|| validation.message.clone())
                    .unwrap_or_else(|| format!("failed expression: {}", validation.expression.source));
                violations.push(Violation::of(message, validation.reason.clone()));
            }
            Err(e) => violations.extend(failure(
                policy,
                format!("expression '{}' resulted in error: {e}", validation.expression.source),
            )),
        }
    }
    violations
}

enum Misconfigured {
    /// Decided by the failure policy.
    Failure(String),
    /// Denied whatever the failure policy (`parameterNotFoundAction: Deny`).
    Deny(String),
}

/// The parameter objects a binding selects (`[None]` for a policy without `paramKind`).
fn params(context: &Context<'_>, bound: &Bound, request: &Request<'_>) -> Result<Vec<Option<Value>>, Misconfigured> {
    let Some(kind) = bound.policy.policy.spec.as_ref().and_then(|s| s.param_kind.as_ref()) else {
        return Ok(vec![None]);
    };
    let api_version = kind.api_version.clone().unwrap_or_default();
    let kind_name = kind.kind.clone().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version.as_str()));
    let rt = context.registry.find_kind(group, version, &kind_name).ok_or_else(|| {
        Misconfigured::Failure(format!(
            "failed to configure binding: paramKind kind {kind_name} in {api_version} is not served"
        ))
    })?;
    let Some(reference) = &bound.spec.param_ref else {
        return Err(Misconfigured::Failure(format!(
            "failed to configure binding: no paramRef in binding {}, but policy {} has paramKind {kind_name}",
            bound.name, bound.policy.name
        )));
    };
    let namespace = match (rt.namespaced, reference.namespace.as_deref().filter(|n| !n.is_empty())) {
        (false, _) => None,
        (true, Some(ns)) => Some(ns.to_string()),
        (true, None) => match request.key.namespace.filter(|_| request.rt.namespaced) {
            Some(ns) => Some(ns.to_string()),
            None => {
                return Err(Misconfigured::Failure(
                    "failed to configure binding: paramRef.namespace is required for a namespaced paramKind on a cluster-scoped request"
                        .to_string(),
                ));
            }
        },
    };
    let found = find_params(context, &rt, namespace.as_deref(), reference)?;
    if found.is_empty() {
        return match reference.parameter_not_found_action.as_deref() {
            Some("Allow") => Ok(Vec::new()),
            _ => Err(Misconfigured::Deny(
                "no params found for policy binding with `Deny` parameterNotFoundAction".to_string(),
            )),
        };
    }
    Ok(found.into_iter().map(Some).collect())
}

fn find_params(
    context: &Context<'_>,
    rt: &ResourceType,
    namespace: Option<&str>,
    reference: &k8s_openapi::api::admissionregistration::v1::ParamRef,
) -> Result<Vec<Value>, Misconfigured> {
    let gr = rt.group_resource();
    if let Some(name) = reference.name.as_deref().filter(|n| !n.is_empty()) {
        return Ok(context.store.get(&gr, &key(namespace, name)).map(|s| s.value()).into_iter().collect());
    }
    let selector = match &reference.selector {
        Some(typed) => LabelSelector::from_typed(typed)
            .map_err(|e| Misconfigured::Failure(format!("failed to configure binding: paramRef.selector: {e}")))?,
        None => LabelSelector::default(),
    };
    let page = context.store.list(&gr, namespace);
    Ok(page.items.iter().map(|s| s.value()).filter(|o| selector.matches(super::super::object::labels(o))).collect())
}

/// The variables every expression of a policy sees for `request`.
/// The admission request as policies and webhooks see it (`request`; a webhook's
/// AdmissionReview adds the objects).
pub(super) fn request_info(request: &Request<'_>) -> Value {
    let user = request.user;
    let gvk = |rt: &ResourceType| json!({"group": rt.group, "version": rt.version, "kind": rt.kind});
    let gvr = |rt: &ResourceType| json!({"group": rt.group, "version": rt.version, "resource": rt.plural});
    let (matched, requested) = (request.rt, request.requested);
    let sub = request.subresource.unwrap_or_default();
    json!({
        "kind": gvk(matched), "resource": gvr(matched), "subResource": sub,
        "requestKind": gvk(requested), "requestResource": gvr(requested), "requestSubResource": sub,
        "name": request.key.name,
        "namespace": request.key.namespace.unwrap_or_default(),
        "operation": request.operation.as_str(),
        "userInfo": {"username": user.name, "uid": user.uid, "groups": user.groups, "extra": {}},
        "dryRun": request.dry_run,
    })
}

/// The CEL variables of a request: `object`, `oldObject`, `request`, `params`,
/// `namespaceObject` and `authorizer`.
pub(super) fn variables(context: &Context<'_>, request: &Request<'_>, params: Option<Value>) -> Variables {
    let rt = request.rt;
    let user = request.user;
    let sub = request.subresource.unwrap_or_default();
    let info = request_info(request);
    let namespace_object = request
        .key
        .namespace
        .filter(|_| rt.namespaced)
        .and_then(|ns| context.store.get(&kinds::namespaces(), ns))
        .map_or(Value::Null, |s| s.value());
    let mut variables = Variables::default();
    variables.set("object", request.object.map_or(cel::from_json(&Value::Null), cel::from_json));
    variables.set("oldObject", request.old_object.map_or(cel::from_json(&Value::Null), cel::from_json));
    variables.set("request", cel::from_json(&info));
    variables.set("params", cel::from_json(&params.unwrap_or(Value::Null)));
    variables.set("namespaceObject", cel::from_json(&namespace_object));
    let store = context.store.clone();
    let authorizer = context.authorizer.clone();
    let check: cel_authorizer::Check = Arc::new(move |user, attributes| authorizer.allows(&store, user, attributes));
    let resource = cel_authorizer::RequestResource {
        group: rt.group.clone(),
        resource: rt.plural.clone(),
        subresource: sub.to_string(),
        namespace: request.key.namespace.unwrap_or_default().to_string(),
        name: request.key.name.to_string(),
    };
    let (base, requested) = cel_authorizer::Authorizer::new(check, user.clone(), &resource);
    base.bind(requested, &mut variables);
    variables
}
