//! The RBAC index: every binding found by the subjects it names, and the rules of every
//! role, kept current from the store's change history. A change to one role or binding
//! costs that object's update, not a rebuild of the whole index — on a hub with
//! thousands of clusters (a ClusterRole, a ClusterRoleBinding and RoleBindings each) a
//! rebuild per RBAC write made every import O(N). A request costs the bindings of its
//! user's name, groups and ServiceAccount, not a scan of every binding.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::super::auth::User;
use super::super::object;
use super::super::reader::Reader;
use super::super::registry::GroupResource;
use super::super::selector::LabelSelector;
use super::super::store::{self, EventType};
use super::{RBAC, Rule, rules_of};

/// The kinds the index reads, in the order of [`Index::seen`].
const KINDS: [Kind; 4] = [Kind::Role, Kind::ClusterRole, Kind::RoleBinding, Kind::ClusterRoleBinding];

#[derive(Debug, Clone, Copy)]
enum Kind {
    Role,
    ClusterRole,
    RoleBinding,
    ClusterRoleBinding,
}

impl Kind {
    fn resource(self) -> GroupResource {
        let plural = match self {
            Self::Role => "roles",
            Self::ClusterRole => "clusterroles",
            Self::RoleBinding => "rolebindings",
            Self::ClusterRoleBinding => "clusterrolebindings",
        };
        GroupResource::new(RBAC, plural)
    }
}

/// Who a binding's subject is; subjects of other kinds name nobody.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum SubjectKey {
    User(String),
    Group(String),
    ServiceAccount { namespace: String, name: String },
}

impl SubjectKey {
    fn of(subject: &Value) -> Option<Self> {
        let text = |field: &str| subject[field].as_str().unwrap_or_default().to_string();
        match subject["kind"].as_str()? {
            "User" => Some(Self::User(text("name"))),
            "Group" => Some(Self::Group(text("name"))),
            "ServiceAccount" => Some(Self::ServiceAccount { namespace: text("namespace"), name: text("name") }),
            _ => None,
        }
    }

    /// Every subject `user` is: its name, each of its groups, its ServiceAccount.
    fn of_user(user: &User) -> Vec<Self> {
        let mut keys = vec![Self::User(user.name.clone())];
        keys.extend(user.groups.iter().cloned().map(Self::Group));
        if let Some((namespace, name)) = user.service_account() {
            keys.push(Self::ServiceAccount { namespace: namespace.to_string(), name: name.to_string() });
        }
        keys
    }
}

/// A binding's place in evaluation order: ClusterRoleBindings by name, then RoleBindings
/// by `namespace/name` (the order the rules of a SelfSubjectRulesReview come in).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum BindingId {
    Cluster(String),
    Namespaced(String),
}

#[derive(Debug)]
enum RoleRef {
    Cluster(String),
    Namespaced { namespace: String, name: String },
}

/// A binding as the index keeps it: the role is looked up when a request is judged, so a
/// role's change needs no binding to change.
#[derive(Debug)]
pub(super) struct Binding {
    /// `None` for ClusterRoleBindings.
    pub(super) namespace: Option<String>,
    subjects: Vec<SubjectKey>,
    role: RoleRef,
}

#[derive(Debug)]
struct ClusterRole {
    rules: Arc<Vec<Rule>>,
    labels: Option<Map<String, Value>>,
    /// The selectors of its aggregationRule (those with labels to match).
    selectors: Vec<LabelSelector>,
}

fn selectors_of(role: &Value) -> Vec<LabelSelector> {
    role["aggregationRule"]["clusterRoleSelectors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|selector| {
            let labels: Vec<String> = selector["matchLabels"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                .collect();
            if labels.is_empty() {
                return None;
            }
            LabelSelector::parse(&labels.join(",")).ok()
        })
        .collect()
}

/// The index of one store's RBAC objects.
#[derive(Debug, Default)]
pub(super) struct Index {
    /// Whether it was ever read from the store.
    built: bool,
    /// Per kind (in [`KINDS`] order), the store revision the index reflects.
    seen: [u64; 4],
    cluster_roles: BTreeMap<String, ClusterRole>,
    /// The ClusterRoles with an aggregationRule.
    aggregating: BTreeSet<String>,
    /// Each ClusterRole's rules as its bindings grant them: its own, and for an aggregated
    /// role those of every ClusterRole it selects.
    granted: HashMap<String, Arc<Vec<Rule>>>,
    roles: HashMap<(String, String), Arc<Vec<Rule>>>,
    bindings: BTreeMap<BindingId, Binding>,
    by_subject: HashMap<SubjectKey, BTreeSet<BindingId>>,
}

impl Index {
    /// Whether every RBAC change the store holds is in the index.
    pub(super) fn is_current(&self, store: &Reader) -> bool {
        self.built && KINDS.iter().zip(self.seen).all(|(kind, seen)| store.revision(&kind.resource()) <= seen)
    }

    /// Takes in the changes since the index was last brought up to date: each changed
    /// object from the store's history, or everything anew when the history no longer
    /// reaches back that far.
    pub(super) fn refresh(&mut self, store: &Reader) {
        if !self.built {
            self.rebuild(store);
            return;
        }
        for (i, kind) in KINDS.iter().enumerate() {
            let resource = kind.resource();
            if store.revision(&resource) <= self.seen[i] {
                continue;
            }
            let Ok((events, revision)) = store.changes_after(&resource, self.seen[i]) else {
                self.rebuild(store);
                return;
            };
            for event in events {
                // The store wrote the JSON from a Value; a deleted object's is its last state.
                let Ok(object) = serde_json::from_slice::<Value>(&event.json()) else { continue };
                self.apply(*kind, &object, event.kind != EventType::Deleted);
            }
            self.seen[i] = revision;
        }
    }

    fn rebuild(&mut self, store: &Reader) {
        *self = Self { built: true, ..Self::default() };
        for (i, kind) in KINDS.iter().enumerate() {
            let page = store.list(&kind.resource(), None);
            for item in &page.items {
                self.apply(*kind, &item.value(), true);
            }
            // Every change up to the list's resourceVersion is in the list.
            self.seen[i] = page.rv;
        }
    }

    /// Puts `object` of `kind` in the index (`present`) or takes it out.
    fn apply(&mut self, kind: Kind, object: &Value, present: bool) {
        let Some(name) = object::name(object) else { return };
        match kind {
            Kind::ClusterRole => self.put_cluster_role(name, present.then_some(object)),
            Kind::Role => {
                let key = (object::namespace(object).unwrap_or_default().to_string(), name.to_string());
                if present {
                    self.roles.insert(key, Arc::new(rules_of(object)));
                } else {
                    self.roles.remove(&key);
                }
            }
            Kind::ClusterRoleBinding | Kind::RoleBinding => {
                let namespace = object::namespace(object).map(str::to_string);
                let id = match kind {
                    Kind::ClusterRoleBinding => BindingId::Cluster(name.to_string()),
                    _ => BindingId::Namespaced(store::key(namespace.as_deref(), name)),
                };
                let binding = present.then(|| binding(kind, namespace, object));
                self.put_binding(id, binding);
            }
        }
    }

    fn put_cluster_role(&mut self, name: &str, object: Option<&Value>) {
        let before = self.cluster_roles.remove(name).and_then(|role| role.labels);
        let after = object.and_then(object::labels).cloned();
        match object {
            Some(object) => {
                let selectors = selectors_of(object);
                if selectors.is_empty() {
                    self.aggregating.remove(name);
                } else {
                    self.aggregating.insert(name.to_string());
                }
                let role = ClusterRole { rules: Arc::new(rules_of(object)), labels: after.clone(), selectors };
                self.cluster_roles.insert(name.to_string(), role);
            }
            None => {
                self.aggregating.remove(name);
                self.granted.remove(name);
            }
        }
        // This role's grant, and that of every aggregated role that selected it before
        // the change or selects it now.
        let mut affected: Vec<String> = self
            .aggregating
            .iter()
            .filter(|aggregator| {
                self.cluster_roles.get(aggregator.as_str()).is_some_and(|role| {
                    role.selectors.iter().any(|s| s.matches(before.as_ref()) || s.matches(after.as_ref()))
                })
            })
            .cloned()
            .collect();
        if object.is_some() {
            affected.push(name.to_string());
        }
        for role in affected {
            self.regrant(&role);
        }
    }

    /// Works out what a ClusterRole grants: its own rules, then for each selector of its
    /// aggregationRule the own rules of every ClusterRole (by name) the selector matches.
    fn regrant(&mut self, name: &str) {
        let Some(role) = self.cluster_roles.get(name) else { return };
        let granted = if role.selectors.is_empty() {
            role.rules.clone()
        } else {
            let mut rules: Vec<Rule> = role.rules.as_ref().clone();
            for selector in &role.selectors {
                for other in self.cluster_roles.values().filter(|other| selector.matches(other.labels.as_ref())) {
                    rules.extend(other.rules.iter().cloned());
                }
            }
            Arc::new(rules)
        };
        self.granted.insert(name.to_string(), granted);
    }

    fn put_binding(&mut self, id: BindingId, binding: Option<Binding>) {
        if let Some(old) = self.bindings.remove(&id) {
            for subject in old.subjects {
                if let Some(ids) = self.by_subject.get_mut(&subject) {
                    ids.remove(&id);
                    if ids.is_empty() {
                        self.by_subject.remove(&subject);
                    }
                }
            }
        }
        if let Some(binding) = binding {
            for subject in &binding.subjects {
                self.by_subject.entry(subject.clone()).or_default().insert(id.clone());
            }
            self.bindings.insert(id, binding);
        }
    }

    /// The bindings that name `user`, in evaluation order, each with the rules it grants
    /// (none when its role does not exist).
    pub(super) fn bindings_of(&self, user: &User) -> Vec<(&Binding, &[Rule])> {
        let ids: BTreeSet<&BindingId> =
            SubjectKey::of_user(user).iter().filter_map(|key| self.by_subject.get(key)).flatten().collect();
        ids.into_iter()
            .filter_map(|id| self.bindings.get(id))
            .map(|binding| {
                let rules = match &binding.role {
                    RoleRef::Cluster(name) => self.granted.get(name),
                    RoleRef::Namespaced { namespace, name } => self.roles.get(&(namespace.clone(), name.clone())),
                };
                (binding, rules.map_or(&[][..], |rules| rules.as_slice()))
            })
            .collect()
    }
}

impl Index {
    /// What a roleRef grants: a ClusterRole's rules (aggregated ones included), or those
    /// of the Role of `namespace` named; `None` when no such role exists.
    pub(super) fn role_rules(&self, cluster: bool, namespace: Option<&str>, name: &str) -> Option<&[Rule]> {
        let rules = match (cluster, namespace) {
            (true, _) => self.granted.get(name),
            (false, Some(namespace)) => self.roles.get(&(namespace.to_string(), name.to_string())),
            (false, None) => None,
        };
        rules.map(|rules| rules.as_slice())
    }
}

/// A ClusterRoleBinding grants its ClusterRole everywhere; a RoleBinding grants, in its
/// namespace, the ClusterRole or the Role of its namespace it names.
fn binding(kind: Kind, namespace: Option<String>, object: &Value) -> Binding {
    let role = object["roleRef"]["name"].as_str().unwrap_or_default().to_string();
    let subjects = object["subjects"].as_array().into_iter().flatten().filter_map(SubjectKey::of).collect();
    match kind {
        Kind::ClusterRoleBinding => Binding { namespace: None, subjects, role: RoleRef::Cluster(role) },
        _ => {
            let namespace = namespace.unwrap_or_default();
            let role = match object["roleRef"]["kind"].as_str() {
                Some("ClusterRole") => RoleRef::Cluster(role),
                _ => RoleRef::Namespaced { namespace: namespace.clone(), name: role },
            };
            Binding { namespace: Some(namespace), subjects, role }
        }
    }
}
