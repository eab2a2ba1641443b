//! Authorization: RBAC as kube-apiserver evaluates it, the default roles a real
//! cluster has, and the upstream wording of denials.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::{Value, json};

use super::auth::User;
use super::object;
use super::registry::GroupResource;
use super::selector::LabelSelector;
use super::status::{ApiError, qualified};
use super::store::Store;

const RBAC: &str = "rbac.authorization.k8s.io";

/// What a request wants to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A resource request.
    Resource {
        /// API group.
        group: String,
        /// Plural resource.
        resource: String,
        /// Subresource, if any.
        subresource: Option<String>,
        /// Namespace, if any.
        namespace: Option<String>,
        /// Object name, if any.
        name: Option<String>,
    },
    /// A path outside the resource tree (`/apis`, `/healthz`, …).
    NonResource {
        /// The path.
        path: String,
    },
}

/// One authorization question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attributes {
    /// Verb: get, list, watch, create, update, patch, delete, deletecollection (or an
    /// HTTP method in lower case for non-resource paths).
    pub verb: String,
    /// What is acted on.
    pub target: Target,
}

#[derive(Debug, Default)]
struct Rule {
    verbs: Vec<String>,
    groups: Vec<String>,
    resources: Vec<String>,
    names: Vec<String>,
    urls: Vec<String>,
}

#[derive(Debug)]
struct Subject {
    kind: String,
    name: String,
    namespace: String,
}

#[derive(Debug)]
struct Binding {
    /// `None` for ClusterRoleBindings.
    namespace: Option<String>,
    subjects: Vec<Subject>,
    rules: Arc<Vec<Rule>>,
}

type Revisions = [u64; 4];

/// Evaluates RBAC from the stored roles and bindings, rebuilding its index only when
/// one of them changed.
#[derive(Debug, Default)]
pub struct Authorizer {
    index: Mutex<Option<(Revisions, Arc<Vec<Binding>>)>>,
}

fn resources() -> [GroupResource; 4] {
    ["roles", "clusterroles", "rolebindings", "clusterrolebindings"].map(|r| GroupResource::new(RBAC, r))
}

fn strings(value: &Value) -> Vec<String> {
    value.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

fn rules_of(role: &Value) -> Vec<Rule> {
    role["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| Rule {
            verbs: strings(&r["verbs"]),
            groups: strings(&r["apiGroups"]),
            resources: strings(&r["resources"]),
            names: strings(&r["resourceNames"]),
            urls: strings(&r["nonResourceURLs"]),
        })
        .collect()
}

impl Authorizer {
    /// Whether `user` may do what `attributes` describe.
    pub fn allows(&self, store: &Store, user: &User, attributes: &Attributes) -> bool {
        if user.is_superuser() {
            return true;
        }
        let index = self.index(store);
        index.iter().filter(|b| b.subjects.iter().any(|s| names(s, user))).any(|b| permits(b, attributes))
    }

    /// What `user` may do in `namespace` (cluster-wide grants included), as a
    /// SelfSubjectRulesReview answers: `(resourceRules, nonResourceRules)`, each rule as
    /// its role wrote it. Non-resource rules come only from ClusterRoleBindings.
    pub fn rules(&self, store: &Store, user: &User, namespace: &str) -> (Vec<Value>, Vec<Value>) {
        if user.is_superuser() {
            let all = json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]});
            return (vec![all], vec![json!({"verbs": ["*"], "nonResourceURLs": ["*"]})]);
        }
        let index = self.index(store);
        let (mut resource_rules, mut non_resource_rules) = (Vec::new(), Vec::new());
        let applies = |b: &&Binding| {
            b.namespace.as_deref().is_none_or(|scope| scope == namespace) && b.subjects.iter().any(|s| names(s, user))
        };
        for binding in index.iter().filter(applies) {
            for rule in binding.rules.iter() {
                if !rule.resources.is_empty() {
                    let mut shown = json!({"verbs": rule.verbs, "apiGroups": rule.groups, "resources": rule.resources});
                    if !rule.names.is_empty() {
                        shown["resourceNames"] = json!(rule.names);
                    }
                    resource_rules.push(shown);
                }
                if !rule.urls.is_empty() && binding.namespace.is_none() {
                    non_resource_rules.push(json!({"verbs": rule.verbs, "nonResourceURLs": rule.urls}));
                }
            }
        }
        (resource_rules, non_resource_rules)
    }

    fn index(&self, store: &Store) -> Arc<Vec<Binding>> {
        let revisions: Revisions = resources().map(|r| store.revision(&r));
        let mut cached = self.index.lock();
        if let Some((seen, index)) = cached.as_ref()
            && *seen == revisions
        {
            return index.clone();
        }
        let index = Arc::new(build(store));
        *cached = Some((revisions, index.clone()));
        index
    }
}

fn all(store: &Store, resource: &GroupResource) -> Vec<Value> {
    store.list(resource, None, None, 0, &|_| true).items.iter().map(super::store::Stored::value).collect()
}

/// Reads every role and binding into an index of (scope, subjects, rules).
fn build(store: &Store) -> Vec<Binding> {
    let [roles, cluster_roles, role_bindings, cluster_role_bindings] = resources();
    let cluster_roles = all(store, &cluster_roles);
    // Each ClusterRole's rules once, however many bindings name it: a lookup by name, not a
    // scan of every ClusterRole per binding (a hub with thousands of clusters has thousands).
    let by_name: HashMap<&str, &Value> = cluster_roles.iter().filter_map(|r| Some((object::name(r)?, r))).collect();
    let mut known: HashMap<String, Arc<Vec<Rule>>> = HashMap::new();
    let mut cluster_rules = |name: &str| -> Arc<Vec<Rule>> {
        if let Some(rules) = known.get(name) {
            return rules.clone();
        }
        let Some(role) = by_name.get(name) else {
            return Arc::new(Vec::new());
        };
        let mut rules = rules_of(role);
        // Aggregated ClusterRoles take the rules of every ClusterRole their selectors match.
        for selector in role["aggregationRule"]["clusterRoleSelectors"].as_array().into_iter().flatten() {
            let labels: Vec<String> = selector["matchLabels"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                .collect();
            let Ok(selector) = LabelSelector::parse(&labels.join(",")) else { continue };
            for other in cluster_roles.iter().filter(|r| !labels.is_empty() && selector.matches(object::labels(r))) {
                rules.extend(rules_of(other));
            }
        }
        let rules = Arc::new(rules);
        known.insert(name.to_string(), rules.clone());
        rules
    };
    let roles = all(store, &roles);
    let roles_by_key: HashMap<(&str, &str), &Value> =
        roles.iter().filter_map(|r| Some(((object::namespace(r)?, object::name(r)?), r))).collect();
    let role_rules = |namespace: &str, name: &str| -> Arc<Vec<Rule>> {
        Arc::new(roles_by_key.get(&(namespace, name)).map(|r| rules_of(r)).unwrap_or_default())
    };
    let subjects = |binding: &Value| -> Vec<Subject> {
        binding["subjects"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| Subject {
                kind: s["kind"].as_str().unwrap_or_default().to_string(),
                name: s["name"].as_str().unwrap_or_default().to_string(),
                namespace: s["namespace"].as_str().unwrap_or_default().to_string(),
            })
            .collect()
    };
    let mut index = Vec::new();
    for binding in all(store, &cluster_role_bindings) {
        let rules = cluster_rules(binding["roleRef"]["name"].as_str().unwrap_or_default());
        index.push(Binding { namespace: None, subjects: subjects(&binding), rules });
    }
    for binding in all(store, &role_bindings) {
        let namespace = object::namespace(&binding).unwrap_or_default().to_string();
        let role = binding["roleRef"]["name"].as_str().unwrap_or_default();
        let rules = match binding["roleRef"]["kind"].as_str() {
            Some("ClusterRole") => cluster_rules(role),
            _ => role_rules(&namespace, role),
        };
        index.push(Binding { namespace: Some(namespace), subjects: subjects(&binding), rules });
    }
    index
}

fn names(subject: &Subject, user: &User) -> bool {
    match subject.kind.as_str() {
        "User" => subject.name == user.name,
        "Group" => user.groups.contains(&subject.name),
        "ServiceAccount" => user.service_account() == Some((subject.namespace.as_str(), subject.name.as_str())),
        _ => false,
    }
}

fn permits(binding: &Binding, attributes: &Attributes) -> bool {
    match &attributes.target {
        Target::NonResource { path } => {
            binding.namespace.is_none()
                && binding
                    .rules
                    .iter()
                    .any(|r| has(&r.verbs, &attributes.verb) && r.urls.iter().any(|u| url_matches(u, path)))
        }
        Target::Resource { group, resource, subresource, namespace, name } => {
            if let Some(scope) = &binding.namespace
                && namespace.as_deref() != Some(scope.as_str())
            {
                return false;
            }
            let full = match subresource {
                Some(sub) => format!("{resource}/{sub}"),
                None => resource.clone(),
            };
            binding.rules.iter().any(|r| {
                has(&r.verbs, &attributes.verb)
                    && has(&r.groups, group)
                    && resource_matches(&r.resources, &full, subresource.as_deref())
                    && (r.names.is_empty() || name.as_ref().is_some_and(|n| r.names.contains(n)))
            })
        }
    }
}

fn has(list: &[String], value: &str) -> bool {
    list.iter().any(|v| v == "*" || v == value)
}

fn resource_matches(rule: &[String], full: &str, subresource: Option<&str>) -> bool {
    rule.iter().any(|r| {
        r == "*"
            || r == full
            || subresource.is_some_and(|sub| r == &format!("*/{sub}"))
            || (r.ends_with("/*") && subresource.is_some() && full.starts_with(&r[..r.len() - 1]))
    })
}

fn url_matches(rule: &str, path: &str) -> bool {
    rule == "*" || rule == path || rule.strip_suffix('*').is_some_and(|prefix| path.starts_with(prefix))
}

/// The 403 kube-apiserver answers for a denied request.
pub fn forbidden(user: &User, attributes: &Attributes) -> ApiError {
    match &attributes.target {
        Target::NonResource { path } => {
            let mut err = ApiError::forbidden("", "", "", "");
            err.message = format!("forbidden: User \"{}\" cannot {} path \"{path}\"", user.name, attributes.verb);
            err
        }
        Target::Resource { group, resource, subresource, namespace, name } => {
            let full = match subresource {
                Some(sub) => format!("{resource}/{sub}"),
                None => resource.clone(),
            };
            let scope = match namespace {
                Some(ns) => format!("in the namespace \"{ns}\""),
                None => "at the cluster scope".to_string(),
            };
            let why = format!(
                "User \"{}\" cannot {} resource \"{full}\" in API group \"{group}\" {scope}",
                user.name, attributes.verb
            );
            let mut err = ApiError::forbidden(resource, group, name.as_deref().unwrap_or(""), &why);
            if name.is_none() {
                err.message = format!("{} is forbidden: {why}", qualified(&full, group));
            }
            err
        }
    }
}

fn bootstrap_meta(name: &str) -> Value {
    json!({"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
           "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}})
}

fn cluster_role(name: &str, rules: Value) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": bootstrap_meta(name), "rules": rules})
}

fn cluster_role_binding(name: &str, groups: &[&str]) -> Value {
    let subjects: Vec<Value> = groups.iter().map(|g| json!({"apiGroup": RBAC, "kind": "Group", "name": g})).collect();
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": bootstrap_meta(name),
           "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": name}, "subjects": subjects})
}

/// The default ClusterRoles and ClusterRoleBindings of a new cluster, as
/// `(resource, object)` pairs.
pub fn defaults() -> Vec<(&'static str, Value)> {
    let info_paths = json!(["/healthz", "/livez", "/readyz", "/version", "/version/"]);
    let discovery_paths = json!([
        "/api",
        "/api/*",
        "/apis",
        "/apis/*",
        "/healthz",
        "/livez",
        "/openapi",
        "/openapi/*",
        "/readyz",
        "/version",
        "/version/"
    ]);
    vec![
        (
            "clusterroles",
            cluster_role(
                "cluster-admin",
                json!([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}, {"nonResourceURLs": ["*"], "verbs": ["*"]}]),
            ),
        ),
        ("clusterrolebindings", cluster_role_binding("cluster-admin", &["system:masters"])),
        (
            "clusterroles",
            cluster_role("system:discovery", json!([{"nonResourceURLs": discovery_paths, "verbs": ["get"]}])),
        ),
        ("clusterrolebindings", cluster_role_binding("system:discovery", &["system:authenticated"])),
        (
            "clusterroles",
            cluster_role("system:public-info-viewer", json!([{"nonResourceURLs": info_paths, "verbs": ["get"]}])),
        ),
        (
            "clusterrolebindings",
            cluster_role_binding("system:public-info-viewer", &["system:authenticated", "system:unauthenticated"]),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:basic-user",
                json!([
            {"apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], "verbs": ["create"]},
            {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"]}]),
            ),
        ),
        ("clusterrolebindings", cluster_role_binding("system:basic-user", &["system:authenticated"])),
        (
            "clusterroles",
            cluster_role(
                "view",
                json!([{"apiGroups": ["", "apps", "coordination.k8s.io", "events.k8s.io"], "resources": ["configmaps", "deployments", "events", "leases", "namespaces", "pods", "serviceaccounts"], "verbs": ["get", "list", "watch"]}]),
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(name: &str, groups: &[&str]) -> User {
        User { name: name.into(), uid: String::new(), groups: groups.iter().map(|g| g.to_string()).collect() }
    }

    #[test]
    fn denials_read_as_upstream() {
        let attributes = Attributes {
            verb: "list".into(),
            target: Target::Resource {
                group: String::new(),
                resource: "secrets".into(),
                subresource: None,
                namespace: Some("n".into()),
                name: None,
            },
        };
        let err = forbidden(&user("u", &[]), &attributes);
        assert_eq!(err.code, 403);
        assert_eq!(
            err.message,
            "secrets is forbidden: User \"u\" cannot list resource \"secrets\" in API group \"\" in the namespace \"n\""
        );
        let named = Attributes {
            verb: "get".into(),
            target: Target::Resource {
                group: "apps".into(),
                resource: "deployments".into(),
                subresource: Some("status".into()),
                namespace: None,
                name: Some("d".into()),
            },
        };
        assert_eq!(
            forbidden(&user("u", &[]), &named).message,
            "deployments.apps \"d\" is forbidden: User \"u\" cannot get resource \"deployments/status\" in API group \"apps\" at the cluster scope"
        );
    }

    #[test]
    fn resource_patterns_cover_subresources_as_upstream() {
        let rule = |r: &str| vec![r.to_string()];
        assert!(resource_matches(&rule("*"), "pods/status", Some("status")));
        assert!(resource_matches(&rule("*/status"), "pods/status", Some("status")));
        assert!(resource_matches(&rule("pods/*"), "pods/log", Some("log")));
        assert!(!resource_matches(&rule("pods"), "pods/status", Some("status")));
        assert!(!resource_matches(&rule("pods/*"), "pods", None));
        assert!(url_matches("/apis/*", "/apis/apps/v1"));
        assert!(!url_matches("/apis", "/apis/apps"));
    }
}
