//! Authorization: RBAC as kube-apiserver evaluates it, the default roles a real
//! cluster has, and the upstream wording of denials.

mod escalation;
mod index;

pub use escalation::{confirm_binding, confirm_role};

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use serde_json::{Value, json};

use super::auth::User;
use super::reader::Reader;
use super::status::{ApiError, qualified};
use index::Index;

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

#[derive(Debug, Default, Clone)]
struct Rule {
    verbs: Vec<String>,
    groups: Vec<String>,
    resources: Vec<String>,
    names: Vec<String>,
    urls: Vec<String>,
}

/// Evaluates RBAC from the stored roles and bindings, through an index brought up to
/// date with each role or binding that changed since the last request.
#[derive(Debug, Default)]
pub struct Authorizer {
    index: RwLock<Index>,
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
    pub fn allows(&self, store: &Reader, user: &User, attributes: &Attributes) -> bool {
        if user.is_superuser() {
            return true;
        }
        let index = self.index(store);
        index
            .bindings_of(user)
            .into_iter()
            .any(|(binding, rules)| permits(binding.namespace.as_deref(), rules, attributes))
    }

    /// What `user` may do in `namespace` (cluster-wide grants included), as a
    /// SelfSubjectRulesReview answers: `(resourceRules, nonResourceRules)`, each rule as
    /// its role wrote it. Non-resource rules come only from ClusterRoleBindings.
    pub fn rules(&self, store: &Reader, user: &User, namespace: &str) -> (Vec<Value>, Vec<Value>) {
        if user.is_superuser() {
            let all = json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]});
            return (vec![all], vec![json!({"verbs": ["*"], "nonResourceURLs": ["*"]})]);
        }
        let index = self.index(store);
        let (mut resource_rules, mut non_resource_rules) = (Vec::new(), Vec::new());
        let bindings = index.bindings_of(user);
        let applies = bindings.iter().filter(|(b, _)| b.namespace.as_deref().is_none_or(|scope| scope == namespace));
        for (binding, rules) in applies {
            for rule in rules.iter() {
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

    /// The index with every RBAC change the store holds.
    fn index(&self, store: &Reader) -> RwLockReadGuard<'_, Index> {
        let index = self.index.read();
        if index.is_current(store) {
            return index;
        }
        drop(index);
        let mut index = self.index.write();
        index.refresh(store);
        RwLockWriteGuard::downgrade(index)
    }
}

fn permits(scope: Option<&str>, rules: &[Rule], attributes: &Attributes) -> bool {
    match &attributes.target {
        Target::NonResource { path } => {
            scope.is_none()
                && rules.iter().any(|r| has(&r.verbs, &attributes.verb) && r.urls.iter().any(|u| url_matches(u, path)))
        }
        Target::Resource { group, resource, subresource, namespace, name } => {
            if let Some(scope) = scope
                && namespace.as_deref() != Some(scope)
            {
                return false;
            }
            let full = match subresource {
                Some(sub) => format!("{resource}/{sub}"),
                None => resource.clone(),
            };
            rules.iter().any(|r| {
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

/// The label that aggregates a ClusterRole into the user-facing role `role`.
fn aggregate_label(role: &str) -> String {
    format!("rbac.authorization.k8s.io/aggregate-to-{role}")
}

/// A user-facing ClusterRole (`admin`, `edit`, `view`): its rules are those of every
/// ClusterRole labelled to aggregate to it (the aggregation controller writes them), and
/// it aggregates itself into the next broader one.
fn aggregated(name: &str, selects: &str, into: Option<&str>, rules: Value) -> Value {
    let mut role = cluster_role(name, rules);
    role["aggregationRule"] = json!({"clusterRoleSelectors": [{"matchLabels": {aggregate_label(selects): "true"}}]});
    if let Some(into) = into {
        role["metadata"]["labels"][aggregate_label(into)] = json!("true");
    }
    role
}

/// `system:aggregate-to-<role>`: the rules upstream's bootstrap policy gives `role`.
fn aggregate_to(role: &str, rules: Value) -> Value {
    let mut object = cluster_role(&format!("system:aggregate-to-{role}"), rules);
    object["metadata"]["labels"][aggregate_label(role)] = json!("true");
    object
}

const READ: [&str; 3] = ["get", "list", "watch"];
const WRITE: [&str; 5] = ["create", "delete", "deletecollection", "patch", "update"];

fn rule(verbs: &[&str], group: &str, resources: &[&str]) -> Value {
    json!({"apiGroups": [group], "resources": resources, "verbs": verbs})
}

/// Upstream's `system:aggregate-to-view`: reading what does not escalate.
fn view_rules() -> Value {
    json!([
        rule(
            &READ,
            "",
            &[
                "pods",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/status",
                "endpoints",
                "persistentvolumeclaims",
                "persistentvolumeclaims/status",
                "configmaps"
            ]
        ),
        rule(
            &READ,
            "",
            &[
                "limitranges",
                "resourcequotas",
                "bindings",
                "events",
                "pods/status",
                "resourcequotas/status",
                "namespaces/status",
                "replicationcontrollers/status",
                "pods/log"
            ]
        ),
        rule(&READ, "", &["namespaces"]),
        rule(&READ, "discovery.k8s.io", &["endpointslices"]),
        rule(
            &READ,
            "apps",
            &[
                "controllerrevisions",
                "statefulsets",
                "statefulsets/scale",
                "statefulsets/status",
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status"
            ]
        ),
        rule(&READ, "autoscaling", &["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(&READ, "batch", &["jobs", "cronjobs", "cronjobs/status", "jobs/status"]),
        rule(&READ, "policy", &["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(&READ, "networking.k8s.io", &["networkpolicies", "ingresses", "ingresses/status"]),
    ])
}

/// Upstream's `system:aggregate-to-edit`: writing the workloads and their configuration.
fn edit_rules() -> Value {
    json!([
        rule(&READ, "", &["pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"]),
        rule(&["impersonate"], "", &["serviceaccounts"]),
        rule(&WRITE, "", &["pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"]),
        rule(&["create"], "", &["pods/eviction"]),
        rule(
            &WRITE,
            "",
            &[
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/proxy",
                "persistentvolumeclaims",
                "configmaps",
                "secrets",
                "events"
            ]
        ),
        rule(&["create"], "", &["serviceaccounts/token"]),
        rule(
            &WRITE,
            "apps",
            &[
                "statefulsets",
                "statefulsets/scale",
                "daemonsets",
                "deployments",
                "deployments/scale",
                "deployments/rollback",
                "replicasets",
                "replicasets/scale"
            ]
        ),
        rule(&WRITE, "autoscaling", &["horizontalpodautoscalers"]),
        rule(&WRITE, "batch", &["jobs", "cronjobs"]),
        rule(&WRITE, "policy", &["poddisruptionbudgets"]),
        rule(&WRITE, "networking.k8s.io", &["networkpolicies", "ingresses"]),
        rule(
            &["get", "list", "watch", "create", "delete", "deletecollection", "patch", "update"],
            "coordination.k8s.io",
            &["leases"]
        ),
    ])
}

/// Upstream's `system:aggregate-to-admin`: what a namespace's admin adds.
fn admin_rules() -> Value {
    json!([
        rule(&["create"], "authorization.k8s.io", &["localsubjectaccessreviews"]),
        rule(
            &["get", "list", "watch", "create", "delete", "deletecollection", "patch", "update"],
            RBAC,
            &["roles", "rolebindings"]
        ),
    ])
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
    // Created with the rules the aggregation controller would give them (each selected
    // role's in the order of their names), so a new cluster's first moments write nothing.
    let concat = |a: Value, b: Value| json!(a.as_array().into_iter().chain(b.as_array()).flatten().collect::<Vec<_>>());
    let view = view_rules();
    let edit = concat(edit_rules(), view.clone());
    let admin = concat(edit.clone(), admin_rules());
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
        ("clusterroles", aggregated("admin", "admin", None, admin)),
        ("clusterroles", aggregated("edit", "edit", Some("admin"), edit)),
        ("clusterroles", aggregated("view", "view", Some("edit"), view)),
        ("clusterroles", aggregate_to("admin", admin_rules())),
        ("clusterroles", aggregate_to("edit", edit_rules())),
        ("clusterroles", aggregate_to("view", view_rules())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(name: &str, groups: &[&str]) -> User {
        User { name: name.into(), uid: String::new(), groups: groups.iter().map(|g| g.to_string()).collect() }
    }

    use super::super::registry::GroupResource;
    use std::sync::Arc;

    use super::super::store::{Expect, Store};

    fn get_configmaps(namespace: &str) -> Attributes {
        Attributes {
            verb: "get".into(),
            target: Target::Resource {
                group: String::new(),
                resource: "configmaps".into(),
                subresource: None,
                namespace: Some(namespace.into()),
                name: Some("c".into()),
            },
        }
    }

    fn rbac(plural: &str) -> GroupResource {
        GroupResource::new(RBAC, plural)
    }

    /// Creates or replaces an object, as an update of whatever is stored.
    fn write(store: &Store, plural: &str, key: &str, object: Value) {
        let expect = store.get(&rbac(plural), key).map_or(Expect::Absent, |s| Expect::Rv(s.rv));
        store.put(&rbac(plural), key, expect, object).expect("write");
    }

    fn remove(store: &Store, plural: &str, key: &str) {
        let stored = store.get(&rbac(plural), key).expect("stored");
        store.remove(&rbac(plural), key, stored.rv).expect("remove");
    }

    fn cluster_role(name: &str, labels: Value, rules: Value) -> Value {
        json!({"metadata": {"name": name, "labels": labels}, "rules": rules})
    }

    fn reader_binding(namespace: &str, subjects: Value) -> Value {
        json!({"metadata": {"name": "readers", "namespace": namespace},
               "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "reader"}, "subjects": subjects})
    }

    const READ_CONFIGMAPS: &str = r#"[{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]"#;

    fn read_configmaps() -> Value {
        serde_json::from_str(READ_CONFIGMAPS).expect("rules")
    }

    /// As kube-apiserver's RBAC authorizer reads its informers' current state, every change
    /// to a binding or role is honoured by the request after it: a new subject, a subject
    /// taken out, a binding deleted, a role's rules changed and the role deleted.
    #[test]
    fn each_binding_and_role_change_is_honoured_by_the_next_request() {
        let (store, _notices) = Store::new(64);
        let store = Arc::new(store);
        let reader = Reader::new(store.clone());
        let authorizer = Authorizer::default();
        let (alice, bob) = (user("alice", &[]), user("bob", &["team"]));
        let get = get_configmaps("ns");
        write(&store, "clusterroles", "reader", cluster_role("reader", json!({}), read_configmaps()));
        write(&store, "rolebindings", "ns/readers", reader_binding("ns", json!([{"kind": "User", "name": "alice"}])));
        assert!(authorizer.allows(&reader, &alice, &get));
        assert!(!authorizer.allows(&reader, &bob, &get));
        assert!(
            !authorizer.allows(&reader, &alice, &get_configmaps("other")),
            "a RoleBinding grants in its namespace only"
        );

        write(&store, "rolebindings", "ns/readers", reader_binding("ns", json!([{"kind": "Group", "name": "team"}])));
        assert!(!authorizer.allows(&reader, &alice, &get), "a subject taken out of the binding");
        assert!(authorizer.allows(&reader, &bob, &get), "a group put in the binding");

        write(&store, "clusterroles", "reader", cluster_role("reader", json!({}), json!([])));
        assert!(!authorizer.allows(&reader, &bob, &get), "the role no longer grants it");
        write(&store, "clusterroles", "reader", cluster_role("reader", json!({}), read_configmaps()));
        assert!(authorizer.allows(&reader, &bob, &get));
        remove(&store, "clusterroles", "reader");
        assert!(!authorizer.allows(&reader, &bob, &get), "a binding to a missing role grants nothing");
        write(&store, "clusterroles", "reader", cluster_role("reader", json!({}), read_configmaps()));
        assert!(authorizer.allows(&reader, &bob, &get));
        remove(&store, "rolebindings", "ns/readers");
        assert!(!authorizer.allows(&reader, &bob, &get), "the binding is gone");

        let sa = user("system:serviceaccount:ns:bot", &[]);
        let crb = json!({"metadata": {"name": "bots"}, "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "reader"},
                         "subjects": [{"kind": "ServiceAccount", "namespace": "ns", "name": "bot"}]});
        write(&store, "clusterrolebindings", "bots", crb);
        assert!(authorizer.allows(&reader, &sa, &get_configmaps("other")), "a ClusterRoleBinding grants everywhere");
    }

    /// An aggregated ClusterRole grants the rules of every ClusterRole its selectors match,
    /// as the clusterrole-aggregation controller keeps them: a role that gains the label
    /// adds its rules, one that loses it takes them away.
    #[test]
    fn an_aggregated_role_follows_the_labels_of_the_roles_it_selects() {
        let (store, _notices) = Store::new(64);
        let store = Arc::new(store);
        let reader = Reader::new(store.clone());
        let authorizer = Authorizer::default();
        let alice = user("alice", &[]);
        let get = get_configmaps("ns");
        let aggregated = json!({"metadata": {"name": "all-readers"}, "rules": [],
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"aggregate-to-readers": "true"}}]}});
        write(&store, "clusterroles", "all-readers", aggregated);
        let crb = json!({"metadata": {"name": "alice"}, "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "all-readers"},
                         "subjects": [{"kind": "User", "name": "alice"}]});
        write(&store, "clusterrolebindings", "alice", crb);
        write(&store, "clusterroles", "cm", cluster_role("cm", json!({}), read_configmaps()));
        assert!(!authorizer.allows(&reader, &alice, &get));
        write(
            &store,
            "clusterroles",
            "cm",
            cluster_role("cm", json!({"aggregate-to-readers": "true"}), read_configmaps()),
        );
        assert!(authorizer.allows(&reader, &alice, &get), "the role gained the label");
        write(&store, "clusterroles", "cm", cluster_role("cm", json!({"other": "true"}), read_configmaps()));
        assert!(!authorizer.allows(&reader, &alice, &get), "the role lost the label");
    }

    /// When more changes happened than the store's history keeps, the index is read anew
    /// and still reflects every one of them.
    #[test]
    fn changes_past_the_history_kept_are_read_anew() {
        let (store, _notices) = Store::new(2);
        let store = Arc::new(store);
        let reader = Reader::new(store.clone());
        let authorizer = Authorizer::default();
        let alice = user("alice", &[]);
        write(&store, "clusterroles", "reader", cluster_role("reader", json!({}), read_configmaps()));
        assert!(!authorizer.allows(&reader, &alice, &get_configmaps("ns0")));
        for i in 0..5 {
            let binding = json!({"metadata": {"name": "readers", "namespace": format!("ns{i}")},
                "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": "reader"}, "subjects": [{"kind": "User", "name": "alice"}]});
            write(&store, "rolebindings", &format!("ns{i}/readers"), binding);
        }
        assert!((0..5).all(|i| authorizer.allows(&reader, &alice, &get_configmaps(&format!("ns{i}")))));
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
