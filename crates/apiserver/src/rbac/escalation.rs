//! RBAC's escalation prevention, as kube-apiserver's RBAC storage does it
//! (`pkg/registry/rbac`): a user may write a Role or ClusterRole only with rules they hold
//! themselves, unless they may `escalate` on roles; and may bind a role only if they hold
//! its rules, unless they may `bind` it. The superusers' group may do anything.
//!
//! "Holds" is upstream's `Covers`: each rule of the written role, broken down into one
//! verb on one group, resource (and name) — or one non-resource URL — is granted by a
//! rule of the user's own in the namespace written (cluster-wide grants included).

use serde_json::Value;

use super::super::admission::Request;
use super::super::auth::User;
use super::super::context::Context;
use super::super::status::ApiError;
use super::{Attributes, Authorizer, RBAC, Rule, Target, has, rules_of};

/// One verb on one thing.
#[derive(Debug)]
enum Atom<'a> {
    Resource { verb: &'a str, group: &'a str, resource: &'a str, name: Option<&'a str> },
    Url { verb: &'a str, url: &'a str },
}

impl std::fmt::Display for Atom<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Resource { verb, group, resource, name } => {
                write!(f, "{{APIGroups:[{group:?}], Resources:[{resource:?}], ")?;
                if let Some(name) = name {
                    write!(f, "ResourceNames:[{name:?}], ")?;
                }
                write!(f, "Verbs:[{verb:?}]}}")
            }
            Self::Url { verb, url } => write!(f, "{{NonResourceURLs:[{url:?}], Verbs:[{verb:?}]}}"),
        }
    }
}

/// Upstream's `BreakdownRule`.
fn atoms(rule: &Rule) -> Vec<Atom<'_>> {
    let mut out = Vec::new();
    for verb in &rule.verbs {
        for group in &rule.groups {
            for resource in &rule.resources {
                if rule.names.is_empty() {
                    out.push(Atom::Resource { verb, group, resource, name: None });
                }
                for name in &rule.names {
                    out.push(Atom::Resource { verb, group, resource, name: Some(name) });
                }
            }
        }
        for url in &rule.urls {
            out.push(Atom::Url { verb, url });
        }
    }
    out
}

/// Whether `owner` grants `atom` (upstream's `ruleCovers`: a wildcard is covered only
/// by a wildcard).
fn covers(owner: &Rule, atom: &Atom<'_>) -> bool {
    match atom {
        Atom::Resource { verb, group, resource, name } => {
            has(&owner.verbs, verb)
                && has(&owner.groups, group)
                && owner.resources.iter().any(|own| resource_covers(own, resource))
                && (owner.names.is_empty() || name.is_some_and(|n| owner.names.iter().any(|own| own == n)))
        }
        Atom::Url { verb, url } => {
            has(&owner.verbs, verb)
                && owner
                    .urls
                    .iter()
                    .any(|own| own == url || own.strip_suffix('*').is_some_and(|prefix| url.starts_with(prefix)))
        }
    }
}

fn resource_covers(own: &str, asked: &str) -> bool {
    if own == "*" || own == asked {
        return true;
    }
    let Some((resource, subresource)) = asked.split_once('/') else { return false };
    own == format!("*/{subresource}") || own == format!("{resource}/*")
}

impl Authorizer {
    /// Upstream's `ConfirmNoEscalation`: the rules of `servant` that `user` does not hold
    /// in `namespace` (`None`: cluster-wide), each as upstream prints it.
    fn not_held(&self, context: &Context<'_>, user: &User, namespace: Option<&str>, servant: &[Rule]) -> Vec<String> {
        let index = self.index(&context.store);
        let owned: Vec<&Rule> = index
            .bindings_of(user)
            .into_iter()
            .filter(|(binding, _)| binding.namespace.is_none() || binding.namespace.as_deref() == namespace)
            .flat_map(|(_, rules)| rules.iter())
            .collect();
        servant
            .iter()
            .flat_map(atoms)
            .filter(|atom| !owned.iter().any(|own| covers(own, atom)))
            .map(|atom| atom.to_string())
            .collect()
    }

    /// The rules a binding's roleRef grants; a role that does not exist is 404, as
    /// upstream's `GetRoleReferenceRules` answers (the binding is refused, not let through
    /// with nothing to check).
    fn role_ref_rules(
        &self,
        context: &Context<'_>,
        namespace: Option<&str>,
        role_ref: &Value,
    ) -> Result<Vec<Rule>, ApiError> {
        let cluster = role_ref["kind"] == "ClusterRole";
        let name = role_ref["name"].as_str().unwrap_or_default();
        let index = self.index(&context.store);
        match index.role_rules(cluster, namespace, name) {
            Some(rules) => Ok(rules.to_vec()),
            None => Err(ApiError::not_found(if cluster { "clusterroles" } else { "roles" }, RBAC, name)),
        }
    }
}

/// Whether `user` may `verb` the RBAC `resource` named `name` (`escalate` on roles, `bind`
/// on the role a binding refers to).
fn may(context: &Context<'_>, user: &User, verb: &str, resource: &str, namespace: Option<&str>, name: &str) -> bool {
    let target = Target::Resource {
        group: RBAC.to_string(),
        resource: resource.to_string(),
        subresource: None,
        namespace: namespace.map(str::to_string),
        name: Some(name.to_string()),
    };
    context.allowed(user, &Attributes { verb: verb.to_string(), target })
}

/// Only the fields the garbage collector writes changed (upstream's
/// `IsOnlyMutatingGCFields`): finalizers and owner references.
fn only_gc_fields(request: &Request<'_>) -> bool {
    let (Some(new), Some(old)) = (request.object, request.old_object) else { return false };
    let strip = |object: &Value| {
        let mut object = object.clone();
        if let Some(meta) = object["metadata"].as_object_mut() {
            meta.remove("finalizers");
            meta.remove("ownerReferences");
            meta.remove("resourceVersion");
            meta.remove("managedFields");
        }
        object
    };
    strip(new) == strip(old)
}

fn forbidden(request: &Request<'_>, missing: &[String]) -> ApiError {
    let user = request.user;
    let why = format!(
        "user {:?} (groups={:?}) is attempting to grant RBAC permissions not currently held:\n{}",
        user.name,
        user.groups,
        missing.join("\n")
    );
    ApiError::forbidden(&request.rt.plural, RBAC, request.key.name, &why)
}

/// A Role or ClusterRole write: its rules must be held, unless the user may `escalate`.
pub fn confirm_role(context: &Context<'_>, request: &Request<'_>) -> Result<(), ApiError> {
    let Some(object) = request.object else { return Ok(()) };
    if request.user.is_superuser() || only_gc_fields(request) {
        return Ok(());
    }
    if may(context, request.user, "escalate", &request.rt.plural, request.key.namespace, request.key.name) {
        return Ok(());
    }
    let missing = context.authorizer.not_held(context, request.user, request.key.namespace, &rules_of(object));
    if missing.is_empty() { Ok(()) } else { Err(forbidden(request, &missing)) }
}

/// A RoleBinding or ClusterRoleBinding write: the rules of the role it refers to must be
/// held, unless the user may `bind` that role.
pub fn confirm_binding(context: &Context<'_>, request: &Request<'_>) -> Result<(), ApiError> {
    let Some(object) = request.object else { return Ok(()) };
    if request.user.is_superuser() || only_gc_fields(request) {
        return Ok(());
    }
    let role_ref = &object["roleRef"];
    let role_resource = if role_ref["kind"] == "ClusterRole" { "clusterroles" } else { "roles" };
    let role_namespace = if role_resource == "roles" { request.key.namespace } else { None };
    let role_name = role_ref["name"].as_str().unwrap_or_default();
    if may(context, request.user, "bind", role_resource, role_namespace, role_name) {
        return Ok(());
    }
    let authorizer = &context.authorizer;
    let granted = authorizer.role_ref_rules(context, request.key.namespace, role_ref)?;
    let missing = authorizer.not_held(context, request.user, request.key.namespace, &granted);
    if missing.is_empty() { Ok(()) } else { Err(forbidden(request, &missing)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str]) -> Rule {
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        Rule {
            verbs: owned(verbs),
            groups: owned(groups),
            resources: owned(resources),
            names: owned(names),
            urls: Vec::new(),
        }
    }

    #[test]
    fn a_wildcard_is_covered_only_by_a_wildcard_and_subresources_by_their_patterns() {
        let get_secrets = rule(&["get"], &[""], &["secrets"], &[]);
        let all_secrets = rule(&["*"], &[""], &["secrets"], &[]);
        let atoms_of = |r: &Rule| atoms(r).into_iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert!(atoms(&get_secrets).iter().all(|a| covers(&all_secrets, a)));
        assert!(!atoms(&all_secrets).iter().all(|a| covers(&get_secrets, a)), "{:?}", atoms_of(&all_secrets));
        let pods_any_sub = rule(&["get"], &[""], &["pods/*"], &[]);
        assert!(atoms(&rule(&["get"], &[""], &["pods/log"], &[])).iter().all(|a| covers(&pods_any_sub, a)));
        assert!(!atoms(&rule(&["get"], &[""], &["pods"], &[])).iter().all(|a| covers(&pods_any_sub, a)));
        let one_name = rule(&["get"], &[""], &["secrets"], &["a"]);
        assert!(!atoms(&get_secrets).iter().all(|a| covers(&one_name, a)), "all names are more than one");
        assert!(atoms(&one_name).iter().all(|a| covers(&get_secrets, a)));
    }

    #[test]
    fn a_missing_rule_reads_as_upstream_prints_it() {
        let atom = Atom::Resource { verb: "*", group: "", resource: "secrets", name: None };
        assert_eq!(atom.to_string(), r#"{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}"#);
    }
}
