//! Which requests a policy or binding applies to: `matchResources` with its resource
//! rules (operations, groups, versions, resources and subresources, names, scope),
//! exclusions, and namespace and object selectors.

use k8s_openapi::api::admissionregistration::v1::{MatchResources, NamedRuleWithOperations};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector as TypedSelector;
use serde_json::Value;

use super::super::context::Context;
use super::super::kinds;
use super::super::object;
use super::super::selector::{LabelSelector, SelectorError};
use super::{Request, Seen, views};

/// Whether `request` is one `resources` describes.
pub fn matches(
    context: &Context<'_>,
    resources: &MatchResources,
    request: &Request<'_>,
) -> Result<bool, SelectorError> {
    if !namespace_matches(context, resources.namespace_selector.as_ref(), request)?
        || !object_matches(resources.object_selector.as_ref(), request)?
    {
        return Ok(false);
    }
    if resources.exclude_resource_rules.iter().flatten().any(|rule| rule_matches(rule, request)) {
        return Ok(false);
    }
    Ok(match &resources.resource_rules {
        // A binding that narrows only by selectors keeps the policy's resources.
        None => true,
        Some(rules) if rules.is_empty() => true,
        Some(rules) => rules.iter().any(|rule| rule_matches(rule, request)),
    })
}

/// The first view of `request` (see [`views`]) that `resources` describes, if any.
pub fn first_match<'a>(
    context: &Context<'_>,
    resources: &MatchResources,
    request: &Request<'a>,
) -> Result<Option<Seen<'a>>, SelectorError> {
    let exact = resources.match_policy.as_deref() == Some("Exact");
    for seen in views(context.registry, request, exact) {
        if matches(context, resources, &seen.request())? {
            return Ok(Some(seen));
        }
    }
    Ok(None)
}

fn listed(list: Option<&Vec<String>>, value: &str) -> bool {
    list.is_some_and(|l| l.iter().any(|v| v == "*" || v == value))
}

/// One rule: operation, group, version, resource (with `*`, `*/*`, `x/*` and `*/sub`
/// as upstream spells them), object names and scope.
pub fn rule_matches(rule: &NamedRuleWithOperations, request: &Request<'_>) -> bool {
    let rt = request.rt;
    if !listed(rule.operations.as_ref(), request.operation.as_str())
        || !listed(rule.api_groups.as_ref(), &rt.group)
        || !listed(rule.api_versions.as_ref(), &rt.version)
    {
        return false;
    }
    let resource_ok = rule.resources.iter().flatten().any(|pattern| {
        let (res, sub) = pattern.split_once('/').map_or((pattern.as_str(), None), |(r, s)| (r, Some(s)));
        let res_ok = res == "*" || res == rt.plural;
        let sub_ok = match (sub, request.subresource) {
            (None, None) => true,
            (Some("*"), _) => true,
            (Some(want), Some(have)) => want == have,
            _ => false,
        };
        res_ok && sub_ok
    });
    if !resource_ok {
        return false;
    }
    if let Some(names) = rule.resource_names.as_ref().filter(|n| !n.is_empty())
        && !names.iter().any(|n| n == request.key.name)
    {
        return false;
    }
    match rule.scope.as_deref() {
        Some("Cluster") => !rt.namespaced,
        Some("Namespaced") => rt.namespaced,
        _ => true,
    }
}

fn selector(typed: Option<&TypedSelector>) -> Result<Option<LabelSelector>, SelectorError> {
    typed.map(LabelSelector::from_typed).transpose().map(|s| s.filter(|s| !s.is_empty()))
}

/// The namespace selector looks at the labels of the request's namespace (or of the
/// Namespace itself when one is written); cluster-scoped objects always pass.
fn namespace_matches(
    context: &Context<'_>,
    typed: Option<&TypedSelector>,
    request: &Request<'_>,
) -> Result<bool, SelectorError> {
    let Some(selector) = selector(typed)? else { return Ok(true) };
    if request.rt.group_resource() == kinds::namespaces() {
        return Ok(either_object(request, |o| selector.matches(object::labels(o))));
    }
    let Some(namespace) = request.key.namespace.filter(|_| request.rt.namespaced) else { return Ok(true) };
    let labels = context.store.get(&kinds::namespaces(), namespace).map(|s| s.value());
    Ok(selector.matches(labels.as_ref().and_then(object::labels)))
}

fn object_matches(typed: Option<&TypedSelector>, request: &Request<'_>) -> Result<bool, SelectorError> {
    let Some(selector) = selector(typed)? else { return Ok(true) };
    Ok(either_object(request, |o| selector.matches(object::labels(o))))
}

fn either_object(request: &Request<'_>, test: impl Fn(&Value) -> bool) -> bool {
    request.object.is_some_and(&test) || request.old_object.is_some_and(&test)
}

#[cfg(test)]
mod tests {
    use super::super::super::auth::User;
    use super::super::super::key::ObjectKey;
    use super::super::super::options::Caller;
    use super::super::super::registry::Registry;
    use super::super::Operation;
    use super::*;

    fn rule(operations: &[&str], resources: &[&str]) -> NamedRuleWithOperations {
        let strings = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect());
        NamedRuleWithOperations {
            api_groups: strings(&["apps"]),
            api_versions: strings(&["*"]),
            operations: strings(operations),
            resources: strings(resources),
            ..NamedRuleWithOperations::default()
        }
    }

    #[test]
    fn resource_rules_spell_subresources_as_upstream() {
        let registry = Registry::with_builtins();
        let rt = registry.get("apps", "v1", "deployments").expect("deployments");
        let caller =
            Caller { user: Some(User { name: "u".into(), uid: String::new(), groups: vec![] }), ..Caller::default() };
        let key = ObjectKey::namespaced("default", "web");
        let request = |sub: Option<&'static str>, operation| Request {
            subresource: sub,
            ..Request::new(operation, &rt, key, &caller)
        };
        let main = request(None, Operation::Update);
        let status = request(Some("status"), Operation::Update);
        assert!(rule_matches(&rule(&["UPDATE"], &["deployments"]), &main));
        assert!(!rule_matches(&rule(&["UPDATE"], &["deployments"]), &status), "the main resource only");
        assert!(!rule_matches(&rule(&["UPDATE"], &["*"]), &status), "* is every resource, no subresource");
        assert!(rule_matches(&rule(&["UPDATE"], &["*/*"]), &status));
        assert!(rule_matches(&rule(&["UPDATE"], &["deployments/*"]), &status));
        assert!(rule_matches(&rule(&["*"], &["*/status"]), &status));
        assert!(!rule_matches(&rule(&["CREATE"], &["deployments"]), &main), "operations must match");
        let mut named = rule(&["UPDATE"], &["deployments"]);
        named.resource_names = Some(vec!["other".into()]);
        assert!(!rule_matches(&named, &main));
        named.scope = Some("Cluster".into());
        named.resource_names = None;
        assert!(!rule_matches(&named, &main), "deployments are namespaced");
    }
}
