//! Field sets: the fields of an object a manager owns, as server-side apply records them
//! in `metadata.managedFields[].fieldsV1`.
//!
//! A set is kept as a sorted set of paths rather than the tree `FieldsV1` draws, because
//! set algebra on flat paths is trivial and the tree is only needed at the wire.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Bound;

use serde_json::{Map, Value};

use super::{ListStrategy, Strategies};

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// A named field of an object (`f:<name>`).
    Field(String),
    /// An element of a map-list, named by its key fields as `(field, canonical JSON of
    /// the value)` pairs sorted by field (`k:{...}`).
    Key(Vec<(String, String)>),
    /// An element of a set-list, named by its canonical JSON (`v:<json>`).
    Value(String),
    /// An element of a list by position (`i:<n>`): only read from foreign
    /// managedFields, never produced here.
    Index(usize),
}

impl PathElement {
    /// Parses one key of a `FieldsV1` object (`f:spec`, `k:{"name":"c"}`, `v:"a"`, `i:0`).
    pub fn from_fields_v1_key(key: &str) -> Result<Self, String> {
        let invalid = || format!("invalid field path element {key:?}");
        let (kind, rest) = key.split_once(':').ok_or_else(invalid)?;
        match kind {
            "f" => Ok(Self::Field(rest.to_owned())),
            "k" => match serde_json::from_str::<Value>(rest) {
                Ok(Value::Object(fields)) if !fields.is_empty() => {
                    Ok(Self::Key(key_pairs(fields.iter().map(|(name, value)| (name.as_str(), value)))))
                }
                _ => Err(invalid()),
            },
            "v" => serde_json::from_str::<Value>(rest)
                .map(|value| Self::Value(canonical_json(&value)))
                .map_err(|_| invalid()),
            "i" => rest.parse().map(Self::Index).map_err(|_| invalid()),
            _ => Err(invalid()),
        }
    }

    /// Renders the element as a `FieldsV1` key.
    pub fn to_fields_v1_key(&self) -> String {
        match self {
            Self::Field(name) => format!("f:{name}"),
            Self::Key(pairs) => {
                let fields: Vec<String> =
                    pairs.iter().map(|(name, value)| format!("{}:{value}", Value::String(name.clone()))).collect();
                format!("k:{{{}}}", fields.join(","))
            }
            Self::Value(json) => format!("v:{json}"),
            Self::Index(index) => format!("i:{index}"),
        }
    }
}

/// Renders the element the way the API server writes paths in conflict messages.
impl fmt::Display for PathElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Field(name) => write!(f, ".{name}"),
            Self::Key(pairs) => {
                let fields: Vec<String> = pairs.iter().map(|(name, value)| format!("{name}={value}")).collect();
                write!(f, "[{}]", fields.join(","))
            }
            Self::Value(json) => write!(f, "[={json}]"),
            Self::Index(index) => write!(f, "[{index}]"),
        }
    }
}

/// Sorted key pairs so that equal keys compare equal whatever order the object had.
fn key_pairs<'v>(fields: impl Iterator<Item = (&'v str, &'v Value)>) -> Vec<(String, String)> {
    let sorted: BTreeMap<&str, &Value> = fields.collect();
    sorted.into_iter().map(|(name, value)| (name.to_owned(), canonical_json(value))).collect()
}

/// JSON text with object keys sorted, so one value always has one spelling (whether or
/// not serde_json preserves insertion order).
fn canonical_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, &Value> = map.iter().collect();
            let fields: Vec<String> = sorted
                .into_iter()
                .map(|(name, value)| format!("{}:{}", Value::String(name.clone()), canonical_json(value)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical_json).collect();
            format!("[{}]", items.join(","))
        }
        scalar => scalar.to_string(),
    }
}

/// The path element naming `item` inside a list of the given strategy; `None` for
/// atomic lists and for map-list elements that carry none of the key fields.
pub fn element_id(item: &Value, strategy: &ListStrategy) -> Option<PathElement> {
    match strategy {
        ListStrategy::Atomic => None,
        ListStrategy::Set => Some(PathElement::Value(canonical_json(item))),
        ListStrategy::Map(keys) => {
            let object = item.as_object()?;
            let present =
                keys.iter().filter_map(|key| object.get_key_value(key)).map(|(name, value)| (name.as_str(), value));
            let pairs = key_pairs(present);
            (!pairs.is_empty()).then_some(PathElement::Key(pairs))
        }
    }
}

/// The schema path (field names only) of a child, as [`Strategies`] expects it.
fn schema_step(schema: &str, element: &PathElement) -> String {
    match element {
        PathElement::Field(name) if schema.is_empty() => name.clone(),
        PathElement::Field(name) => format!("{schema}.{name}"),
        _ => schema.to_owned(),
    }
}

/// Where `element` sits among `items` (a list whose schema path is `schema`).
fn position(items: &[Value], element: &PathElement, schema: &str, strategies: Strategies<'_>) -> Option<usize> {
    match element {
        PathElement::Field(_) => None,
        PathElement::Index(index) => (*index < items.len()).then_some(*index),
        PathElement::Value(_) => {
            items.iter().position(|item| element_id(item, &ListStrategy::Set).as_ref() == Some(element))
        }
        PathElement::Key(_) => {
            let strategy = strategies(schema);
            items.iter().position(|item| element_id(item, &strategy).as_ref() == Some(element))
        }
    }
}

fn child<'v>(value: &'v Value, element: &PathElement, schema: &str, strategies: Strategies<'_>) -> Option<&'v Value> {
    match (value, element) {
        (Value::Object(map), PathElement::Field(name)) => map.get(name),
        (Value::Array(items), _) => items.get(position(items, element, schema, strategies)?),
        _ => None,
    }
}

fn child_mut<'v>(
    value: &'v mut Value,
    element: &PathElement,
    schema: &str,
    strategies: Strategies<'_>,
) -> Option<&'v mut Value> {
    match (value, element) {
        (Value::Object(map), PathElement::Field(name)) => map.get_mut(name),
        (Value::Array(items), _) => {
            let index = position(items, element, schema, strategies)?;
            items.get_mut(index)
        }
        _ => None,
    }
}

fn remove_child(value: &mut Value, element: &PathElement, schema: &str, strategies: Strategies<'_>) -> bool {
    match (value, element) {
        (Value::Object(map), PathElement::Field(name)) => {
            let before = map.len();
            // `retain` keeps the remaining fields in place; `remove` would swap them
            // around when serde_json preserves insertion order.
            map.retain(|key, _| key != name);
            map.len() != before
        }
        (Value::Array(items), _) => match position(items, element, schema, strategies) {
            Some(index) => {
                items.remove(index);
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// A path from the root of an object to one of its fields or list elements.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldPath(Vec<PathElement>);

/// A path made of the given elements, outermost first.
impl From<Vec<PathElement>> for FieldPath {
    fn from(elements: Vec<PathElement>) -> Self {
        Self(elements)
    }
}

impl FieldPath {
    /// The elements of the path, outermost first.
    pub fn elements(&self) -> &[PathElement] {
        &self.0
    }

    /// Whether `prefix` is this path or one of its ancestors.
    pub fn starts_with(&self, prefix: &FieldPath) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// The path one step up, or `None` at the root.
    pub fn parent(&self) -> Option<FieldPath> {
        let (_, parent) = self.0.split_last()?;
        Some(Self(parent.to_vec()))
    }

    /// The value this path names inside `root`, if present.
    pub fn lookup<'v>(&self, root: &'v Value, strategies: Strategies<'_>) -> Option<&'v Value> {
        let mut schema = String::new();
        let mut current = root;
        for element in &self.0 {
            current = child(current, element, &schema, strategies)?;
            schema = schema_step(&schema, element);
        }
        Some(current)
    }

    /// Removes the value this path names from `root`; answers whether anything was there.
    pub fn remove_from(&self, root: &mut Value, strategies: Strategies<'_>) -> bool {
        let Some((last, parents)) = self.0.split_last() else {
            return false;
        };
        let mut schema = String::new();
        let mut current = root;
        for element in parents {
            let Some(next) = child_mut(current, element, &schema, strategies) else {
                return false;
            };
            current = next;
            schema = schema_step(&schema, element);
        }
        remove_child(current, last, &schema, strategies)
    }
}

/// Renders the path as the API server does in messages: `.spec.containers[name="c"].image`.
impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|element| write!(f, "{element}"))
    }
}

/// A set of field paths.
///
/// Every path in the set is a member on its own: a map-list element (`k:{...}` with
/// `.` in `FieldsV1`) is owned separately from the fields inside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    paths: BTreeSet<FieldPath>,
}

impl FieldSet {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The fields `object` sets. Lists that do not fit their strategy (elements without
    /// key fields, duplicate keys) count as atomic, as stored objects must never fail.
    pub fn from_object(object: &Value, strategies: Strategies<'_>) -> Self {
        let mut walker = Walker::new(strategies, false);
        // A lenient walk never fails.
        let _ = walker.value(object, &mut Vec::new(), "");
        walker.into_set()
    }

    /// The fields an applied configuration sets; lists that do not fit their strategy are
    /// an error naming the list, e.g. `.spec.containers: duplicate entries for key [name="c"]`.
    pub fn from_applied(object: &Value, strategies: Strategies<'_>) -> Result<Self, String> {
        let mut walker = Walker::new(strategies, true);
        walker.value(object, &mut Vec::new(), "")?;
        Ok(walker.into_set())
    }

    /// Reads a `FieldsV1` object.
    pub fn from_fields_v1(fields: &Value) -> Result<Self, String> {
        let mut set = Self::new();
        parse_node(fields, &mut Vec::new(), &mut set)?;
        Ok(set)
    }

    /// Writes the set as a `FieldsV1` object.
    pub fn to_fields_v1(&self) -> Value {
        let mut root = Node::default();
        for path in &self.paths {
            let node = path
                .0
                .iter()
                .fold(&mut root, |node, element| node.children.entry(element.to_fields_v1_key()).or_default());
            node.member = true;
        }
        root.render()
    }

    /// Adds a path.
    pub fn insert(&mut self, path: FieldPath) {
        self.paths.insert(path);
    }

    /// Whether the path itself is a member.
    pub fn contains(&self, path: &FieldPath) -> bool {
        self.paths.contains(path)
    }

    /// Whether some member lies strictly below `path`.
    pub fn has_descendant(&self, path: &FieldPath) -> bool {
        // Paths sharing a prefix sort right after it, so the next member decides.
        self.paths.range((Bound::Excluded(path), Bound::Unbounded)).next().is_some_and(|next| next.starts_with(path))
    }

    /// Whether the set has no member.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The member paths, in order.
    pub fn iter(&self) -> impl Iterator<Item = &FieldPath> {
        self.paths.iter()
    }

    /// Members of either set.
    pub fn union(&self, other: &FieldSet) -> FieldSet {
        self.paths.union(&other.paths).cloned().collect()
    }

    /// Members of `self` that are not in `other`.
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        self.paths.difference(&other.paths).cloned().collect()
    }

    /// Members of both sets.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        self.paths.intersection(&other.paths).cloned().collect()
    }

    /// Keeps only the members `keep` accepts.
    pub fn retain(&mut self, keep: impl FnMut(&FieldPath) -> bool) {
        self.paths.retain(keep);
    }
}

impl FromIterator<FieldPath> for FieldSet {
    fn from_iter<I: IntoIterator<Item = FieldPath>>(paths: I) -> Self {
        Self { paths: paths.into_iter().collect() }
    }
}

/// The tree shape of `FieldsV1`, only built to write it.
#[derive(Default)]
struct Node {
    member: bool,
    children: BTreeMap<String, Node>,
}

impl Node {
    fn render(&self) -> Value {
        let mut object = Map::new();
        // A leaf is a member by being there; `.` is only needed when children hide it.
        if self.member && !self.children.is_empty() {
            object.insert(".".to_owned(), Value::Object(Map::new()));
        }
        for (key, child) in &self.children {
            object.insert(key.clone(), child.render());
        }
        Value::Object(object)
    }
}

fn parse_node(node: &Value, prefix: &mut Vec<PathElement>, set: &mut FieldSet) -> Result<(), String> {
    let Value::Object(children) = node else {
        return Err(format!("fieldsV1 at {:?} is not an object", prefix_text(prefix)));
    };
    if children.is_empty() && !prefix.is_empty() {
        set.insert(FieldPath(prefix.clone()));
    }
    for (key, child) in children {
        if key == "." {
            if !prefix.is_empty() {
                set.insert(FieldPath(prefix.clone()));
            }
            continue;
        }
        prefix.push(PathElement::from_fields_v1_key(key)?);
        parse_node(child, prefix, set)?;
        prefix.pop();
    }
    Ok(())
}

fn prefix_text(prefix: &[PathElement]) -> String {
    FieldPath(prefix.to_vec()).to_string()
}

/// Walks an object collecting the paths it sets.
struct Walker<'s> {
    strategies: Strategies<'s>,
    /// Whether a list that does not fit its strategy is an error rather than atomic.
    strict: bool,
    paths: BTreeSet<FieldPath>,
}

impl<'s> Walker<'s> {
    fn new(strategies: Strategies<'s>, strict: bool) -> Self {
        Self { strategies, strict, paths: BTreeSet::new() }
    }

    fn into_set(self) -> FieldSet {
        FieldSet { paths: self.paths }
    }

    fn value(&mut self, value: &Value, prefix: &mut Vec<PathElement>, schema: &str) -> Result<(), String> {
        match value {
            Value::Object(map) if !map.is_empty() => self.object(map, prefix, schema),
            Value::Array(items) if !items.is_empty() => self.list(items, prefix, schema),
            // Scalars, and empty maps or lists, which have nothing inside to own.
            _ => {
                self.leaf(prefix);
                Ok(())
            }
        }
    }

    fn leaf(&mut self, prefix: &[PathElement]) {
        if !prefix.is_empty() {
            self.paths.insert(FieldPath(prefix.to_vec()));
        }
    }

    fn object(&mut self, map: &Map<String, Value>, prefix: &mut Vec<PathElement>, schema: &str) -> Result<(), String> {
        for (name, value) in map {
            let element = PathElement::Field(name.clone());
            let child_schema = schema_step(schema, &element);
            prefix.push(element);
            self.value(value, prefix, &child_schema)?;
            prefix.pop();
        }
        Ok(())
    }

    fn list(&mut self, items: &[Value], prefix: &mut Vec<PathElement>, schema: &str) -> Result<(), String> {
        let strategy = (self.strategies)(schema);
        if strategy == ListStrategy::Atomic {
            self.leaf(prefix);
            return Ok(());
        }
        let ids = match element_ids(items, &strategy) {
            Ok(ids) => ids,
            Err(message) if self.strict => {
                return Err(format!("{}: {message}", prefix_text(prefix)));
            }
            Err(_) => {
                self.leaf(prefix);
                return Ok(());
            }
        };
        for (id, item) in ids.into_iter().zip(items) {
            prefix.push(id);
            self.leaf(prefix);
            if let (ListStrategy::Map(_), Value::Object(map)) = (&strategy, item) {
                self.object(map, prefix, schema)?;
            }
            prefix.pop();
        }
        Ok(())
    }
}

/// The ids of all elements of a set- or map-list, or why the list does not fit.
fn element_ids(items: &[Value], strategy: &ListStrategy) -> Result<Vec<PathElement>, String> {
    let mut seen = BTreeSet::new();
    let mut ids = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let id = element_id(item, strategy).ok_or_else(|| missing_key(index, item, strategy))?;
        if !seen.insert(id.clone()) {
            return Err(format!("duplicate entries for key {id}"));
        }
        ids.push(id);
    }
    Ok(ids)
}

fn missing_key(index: usize, item: &Value, strategy: &ListStrategy) -> String {
    match (strategy, item) {
        (ListStrategy::Map(keys), Value::Object(_)) => format!(
            "element {index}: associative list with keys has an element that omits key field {:?}",
            keys.first().map_or("", String::as_str)
        ),
        _ => {
            format!("element {index}: associative list with keys has an element that is not a map")
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn strategies(path: &str) -> ListStrategy {
        if path.ends_with("containers") {
            ListStrategy::Map(vec!["name".into()])
        } else if path.ends_with("ports") {
            ListStrategy::Map(vec!["containerPort".into(), "protocol".into()])
        } else if path == "metadata.finalizers" {
            ListStrategy::Set
        } else {
            ListStrategy::Atomic
        }
    }

    fn field(name: &str) -> PathElement {
        PathElement::Field(name.to_owned())
    }

    fn path(elements: &[PathElement]) -> FieldPath {
        FieldPath::from(elements.to_vec())
    }

    fn set_of(fields_v1: Value) -> FieldSet {
        match FieldSet::from_fields_v1(&fields_v1) {
            Ok(set) => set,
            Err(error) => panic!("{error}"),
        }
    }

    fn rendered(set: &FieldSet) -> Vec<String> {
        set.iter().map(ToString::to_string).collect()
    }

    fn pod() -> Value {
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "labels": {"app": "web"}, "finalizers": ["a", "b"]},
            "spec": {
                "containers": [{
                    "name": "c",
                    "image": "nginx",
                    "args": ["-x"],
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "resources": {}
                }]
            }
        })
    }

    #[test]
    fn fields_v1_round_trips_a_nested_object_with_a_keyed_list() {
        let fields_v1 = json!({
            "f:metadata": {"f:labels": {"f:app": {}}, "f:finalizers": {"v:\"a\"": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {
                ".": {},
                "f:image": {},
                "f:name": {},
                "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {
                    ".": {}, "f:containerPort": {}, "f:protocol": {}
                }}
            }}},
            "f:status": {"f:conditions": {"i:0": {}}}
        });
        let set = set_of(fields_v1.clone());
        assert_eq!(set.to_fields_v1(), fields_v1);
        assert_eq!(
            rendered(&set),
            vec![
                ".metadata.finalizers[=\"a\"]",
                ".metadata.labels.app",
                ".spec.containers[name=\"c\"]",
                ".spec.containers[name=\"c\"].image",
                ".spec.containers[name=\"c\"].name",
                ".spec.containers[name=\"c\"].ports[containerPort=80,protocol=\"TCP\"]",
                ".spec.containers[name=\"c\"].ports[containerPort=80,protocol=\"TCP\"].containerPort",
                ".spec.containers[name=\"c\"].ports[containerPort=80,protocol=\"TCP\"].protocol",
                ".status.conditions[0]",
            ]
        );
    }

    #[test]
    fn parsing_canonicalises_key_spelling() {
        let set = set_of(json!({"f:ports": {"k:{\"protocol\": \"TCP\", \"containerPort\": 80}": {}}}));
        assert_eq!(set.to_fields_v1(), json!({"f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {}}}));
    }

    #[test]
    fn parsing_rejects_malformed_fields_v1() {
        assert_eq!(
            FieldSet::from_fields_v1(&json!({"x:spec": {}})),
            Err("invalid field path element \"x:spec\"".to_owned())
        );
        assert!(FieldSet::from_fields_v1(&json!({"f:spec": 1})).is_err());
        assert!(FieldSet::from_fields_v1(&json!({"k:[1]": {}})).is_err());
        assert_eq!(FieldSet::from_fields_v1(&json!({})), Ok(FieldSet::new()));
    }

    #[test]
    fn from_object_follows_list_strategies() {
        let set = FieldSet::from_object(&pod(), &strategies);
        assert_eq!(
            set.to_fields_v1(),
            json!({
                "f:apiVersion": {},
                "f:kind": {},
                "f:metadata": {
                    "f:finalizers": {"v:\"a\"": {}, "v:\"b\"": {}},
                    "f:labels": {"f:app": {}},
                    "f:name": {}
                },
                "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {
                    ".": {},
                    "f:args": {},
                    "f:image": {},
                    "f:name": {},
                    "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {
                        ".": {}, "f:containerPort": {}, "f:protocol": {}
                    }},
                    "f:resources": {}
                }}}
            })
        );
    }

    #[test]
    fn lists_that_do_not_fit_are_atomic_in_objects_and_errors_in_applied() {
        let object = json!({"spec": {"containers": [{"name": "c"}, {"name": "c"}]}});
        let set = FieldSet::from_object(&object, &strategies);
        assert_eq!(set.to_fields_v1(), json!({"f:spec": {"f:containers": {}}}));
        assert_eq!(
            FieldSet::from_applied(&object, &strategies),
            Err(".spec.containers: duplicate entries for key [name=\"c\"]".to_owned())
        );
        let nameless = json!({"spec": {"containers": [{"image": "x"}]}});
        assert_eq!(
            FieldSet::from_applied(&nameless, &strategies),
            Err(".spec.containers: element 0: associative list with keys has an element \
                 that omits key field \"name\""
                .to_owned())
        );
    }

    #[test]
    fn set_algebra() {
        let a = set_of(json!({"f:spec": {"f:a": {}, "f:b": {}}}));
        let b = set_of(json!({"f:spec": {"f:b": {}, "f:c": {}}}));
        assert_eq!(a.union(&b).to_fields_v1(), json!({"f:spec": {"f:a": {}, "f:b": {}, "f:c": {}}}));
        assert_eq!(a.difference(&b).to_fields_v1(), json!({"f:spec": {"f:a": {}}}));
        assert_eq!(a.intersection(&b).to_fields_v1(), json!({"f:spec": {"f:b": {}}}));
        assert!(a.difference(&a).is_empty());
        assert!(!a.is_empty());
        let spec = path(&[field("spec")]);
        assert!(a.has_descendant(&spec));
        assert!(!a.contains(&spec));
        assert!(!a.has_descendant(&path(&[field("spec"), field("b")])));
    }

    #[test]
    fn renders_paths_for_messages() {
        let key = PathElement::Key(vec![("name".into(), "\"c\"".into())]);
        assert_eq!(path(&[field("spec"), field("replicas")]).to_string(), ".spec.replicas");
        assert_eq!(
            path(&[field("spec"), field("containers"), key, field("image")]).to_string(),
            ".spec.containers[name=\"c\"].image"
        );
        assert_eq!(
            path(&[field("metadata"), field("finalizers"), PathElement::Value("\"a\"".into())]).to_string(),
            ".metadata.finalizers[=\"a\"]"
        );
        assert_eq!(path(&[field("args"), PathElement::Index(2)]).to_string(), ".args[2]");
    }

    #[test]
    fn looks_up_and_removes_by_path() {
        let mut object = pod();
        let port = path(&[
            field("spec"),
            field("containers"),
            PathElement::Key(vec![("name".into(), "\"c\"".into())]),
            field("ports"),
            PathElement::Key(vec![("containerPort".into(), "80".into()), ("protocol".into(), "\"TCP\"".into())]),
            field("containerPort"),
        ]);
        assert_eq!(port.lookup(&object, &strategies), Some(&json!(80)));
        let finalizer = path(&[field("metadata"), field("finalizers"), PathElement::Value("\"a\"".into())]);
        assert!(finalizer.remove_from(&mut object, &strategies));
        assert!(!finalizer.remove_from(&mut object, &strategies));
        assert_eq!(object["metadata"]["finalizers"], json!(["b"]));
        let container = port.parent().and_then(|p| p.parent()).and_then(|p| p.parent());
        let Some(container) = container else {
            panic!("the port path has parents");
        };
        assert!(container.remove_from(&mut object, &strategies));
        assert_eq!(object["spec"], json!({"containers": []}));
    }
}
