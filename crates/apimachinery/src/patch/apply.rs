//! Server-side apply and field ownership: merging a manager's applied configuration into
//! the live object, and keeping `metadata.managedFields` (who owns which field) current,
//! for applies and for ordinary writes alike.

use serde_json::{Map, Value};

use super::fields::{FieldPath, FieldSet, PathElement, element_id};
use super::{ListStrategy, PatchError, Strategies};

const APPLY: &str = "Apply";
const UPDATE: &str = "Update";

/// Metadata the server owns: never owned by a manager and never taken from an applied
/// configuration.
const SERVER_METADATA: [&str; 9] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "deletionTimestamp",
    "selfLink",
];

/// Server-side apply of `applied` (the whole intent of `manager`) onto `live` (None: the object does not exist yet → the result is `applied` plus managedFields).
///
/// Fields `manager` applied before and leaves out now are removed unless another manager
/// owns them. Changing a field another manager owns is a conflict unless `force`, which
/// moves the field to `manager`. When nothing but managedFields timestamps would change,
/// `live` is returned as is, so callers can compare against it to skip the write.
pub fn server_side_apply(
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    force: bool,
    strategies: Strategies<'_>,
    api_version: &str,
    now: &str,
) -> Result<Value, PatchError> {
    let mut config = prepare_config(applied)?;
    let config_set = owned(FieldSet::from_applied(&config, strategies).map_err(PatchError::BadRequest)?);
    let Some(live) = live else {
        let entry = Entry::new(manager, APPLY, api_version, now, config_set);
        return Ok(with_entry(config, Vec::new(), entry));
    };
    // Status is written through its own subresource, never by applying the main resource.
    remove_key(&mut config, "status");

    let mut entries = read_entries(live);
    let previous = take_entries(&mut entries, manager, APPLY);
    let object = merge_and_prune(live, &config, previous.as_ref(), &config_set, &entries, strategies);
    let change = Change::between(Some(live), &object, strategies);
    if !force {
        conflicts(&entries, &change.touched)?;
    }
    change.take_from(&mut entries);
    let unchanged = previous.as_ref() == Some(&config_set)
        && entries.iter().all(|entry| !entry.dirty)
        && same_ignoring_managed_fields(live, &object)
        && same_apply_version(live, manager, api_version);
    if unchanged {
        // Only timestamps would move: hand back `live` itself so the write can be skipped.
        return Ok(live.clone());
    }
    Ok(with_entry(object, entries, Entry::new(manager, APPLY, api_version, now, config_set)))
}

/// The live object with the configuration merged in and, when the applier applied before,
/// what it dropped since pruned.
fn merge_and_prune(
    live: &Value,
    config: &Value,
    previous: Option<&FieldSet>,
    config_set: &FieldSet,
    others: &[Entry],
    strategies: Strategies<'_>,
) -> Value {
    let mut object = merge_value(live, config, "", strategies);
    restore_server_metadata(&mut object, live);
    if let Some(previous) = previous {
        let keep = others.iter().fold(config_set.clone(), |all, entry| all.union(&entry.fields));
        prune(&mut object, previous, &keep, strategies);
    }
    object
}

fn with_entry(mut object: Value, mut entries: Vec<Entry>, entry: Entry) -> Value {
    entries.push(entry);
    write_entries(&mut object, entries);
    object
}

/// Records a non-apply write (create/update/patch) by `manager` in `after.metadata.managedFields` (operation "Update"): the fields that changed between `before` and `after` become owned by `manager` and are removed from other managers' sets.
///
/// The base is the managedFields `after` carries (a client may rewrite them, or reset
/// them with `[{}]`), falling back to those of `before` when `after` carries none.
pub fn record_update(
    before: Option<&Value>,
    after: &mut Value,
    manager: &str,
    strategies: Strategies<'_>,
    api_version: &str,
    now: &str,
) {
    if !after.get("metadata").is_some_and(Value::is_object) {
        return;
    }
    let mut entries = base_entries(before, after);
    let change = Change::between(before, after, strategies);
    change.take_from(&mut entries);
    if !change.touched.is_empty() {
        match entries.iter_mut().find(|entry| entry.is(manager, UPDATE)) {
            Some(entry) => entry.claim(&change.touched, api_version, now),
            None => entries.push(Entry::new(manager, UPDATE, api_version, now, change.touched)),
        }
    }
    write_entries(after, entries);
}

/// Whether two objects are equal once `metadata.managedFields` is left out of both.
pub fn same_ignoring_managed_fields(a: &Value, b: &Value) -> bool {
    without_managed_fields(a) == without_managed_fields(b)
}

fn without_managed_fields(object: &Value) -> Value {
    let mut copy = object.clone();
    if let Some(metadata) = copy.get_mut("metadata") {
        remove_key(metadata, "managedFields");
    }
    copy
}

/// Removes a field keeping the others in place (`Map::remove` may reorder them).
fn remove_key(object: &mut Value, name: &str) {
    if let Some(map) = object.as_object_mut() {
        map.retain(|key, _| key != name);
    }
}

/// Validates the identity of an applied configuration and drops its nulls, which in an
/// apply mean "not specified" rather than a value to store.
fn prepare_config(applied: &Value) -> Result<Value, PatchError> {
    let bad = |message: &str| Err(PatchError::BadRequest(message.to_owned()));
    if !applied.is_object() {
        return bad("the applied configuration must be a JSON object");
    }
    for (pointer, name) in [("/apiVersion", "apiVersion"), ("/kind", "kind"), ("/metadata/name", "metadata.name")] {
        let given = applied.pointer(pointer).and_then(Value::as_str);
        if given.is_none_or(str::is_empty) {
            return Err(PatchError::BadRequest(format!("{name} must be set in the applied configuration")));
        }
    }
    if applied.pointer("/metadata/managedFields").is_some() {
        return bad("metadata.managedFields must be nil");
    }
    Ok(without_nulls(applied))
}

fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key.clone(), without_nulls(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        scalar => scalar.clone(),
    }
}

/// The fields of `set` a manager can own: everything but server-owned metadata and status.
fn owned(mut set: FieldSet) -> FieldSet {
    set.retain(|path| !is_server_owned(path));
    set
}

fn is_server_owned(path: &FieldPath) -> bool {
    let field = |index: usize| match path.elements().get(index) {
        Some(PathElement::Field(name)) => Some(name.as_str()),
        _ => None,
    };
    match field(0) {
        Some("apiVersion" | "kind" | "status") => true,
        Some("metadata") => field(1).is_some_and(|name| SERVER_METADATA.contains(&name)),
        _ => false,
    }
}

fn restore_server_metadata(object: &mut Value, live: &Value) {
    for name in ["apiVersion", "kind"] {
        copy_field(object, live, name);
    }
    if let (Some(metadata), Some(live_metadata)) = (object.get_mut("metadata"), live.get("metadata")) {
        for name in SERVER_METADATA {
            copy_field(metadata, live_metadata, name);
        }
    }
}

/// Makes `target[name]` what it is in `source`, absent included.
fn copy_field(target: &mut Value, source: &Value, name: &str) {
    match (source.get(name), target.as_object_mut()) {
        (Some(value), Some(map)) => {
            map.insert(name.to_owned(), value.clone());
        }
        (None, Some(_)) => remove_key(target, name),
        (_, None) => {}
    }
}

fn join(schema: &str, name: &str) -> String {
    if schema.is_empty() { name.to_owned() } else { format!("{schema}.{name}") }
}

/// Merges `config` into `live`: maps field by field, lists by their strategy.
fn merge_value(live: &Value, config: &Value, schema: &str, strategies: Strategies<'_>) -> Value {
    match (live, config) {
        (Value::Object(live), Value::Object(config)) => {
            let mut merged = live.clone();
            for (name, value) in config {
                let child_schema = join(schema, name);
                let value = match live.get(name) {
                    Some(current) => merge_value(current, value, &child_schema, strategies),
                    None => value.clone(),
                };
                merged.insert(name.clone(), value);
            }
            Value::Object(merged)
        }
        (Value::Array(live), Value::Array(config)) => match strategies(schema) {
            ListStrategy::Atomic => Value::Array(config.clone()),
            strategy => Value::Array(merge_list(live, config, &strategy, schema, strategies)),
        },
        _ => config.clone(),
    }
}

/// Merges a set- or map-list. Live elements the configuration does not mention keep their
/// place; the configuration's elements come in its own order around them.
fn merge_list(
    live: &[Value],
    config: &[Value],
    strategy: &ListStrategy,
    schema: &str,
    strategies: Strategies<'_>,
) -> Vec<Value> {
    let matches = match_elements(live, config, strategy);
    let mut matched = vec![false; live.len()];
    for index in matches.iter().flatten() {
        matched[*index] = true;
    }
    let mut emitted = vec![false; live.len()];
    let mut merged = Vec::with_capacity(live.len() + config.len());
    let (mut l, mut c) = (0, 0);
    while l < live.len() || c < config.len() {
        if l < live.len() && !matched[l] {
            merged.push(live[l].clone());
            l += 1;
        } else if l < live.len() && emitted[l] {
            l += 1;
        } else if c < config.len() {
            merged.push(match matches[c] {
                Some(index) => {
                    emitted[index] = true;
                    merge_value(&live[index], &config[c], schema, strategies)
                }
                None => config[c].clone(),
            });
            c += 1;
        } else {
            // Unreachable (every matched live element is emitted with its configuration
            // element), but stepping on guarantees the loop ends.
            l += 1;
        }
    }
    merged
}

/// For each configuration element, the live element it merges with (each used once).
fn match_elements(live: &[Value], config: &[Value], strategy: &ListStrategy) -> Vec<Option<usize>> {
    let live_ids: Vec<Option<PathElement>> = live.iter().map(|item| element_id(item, strategy)).collect();
    let mut taken = vec![false; live.len()];
    config
        .iter()
        .map(|item| {
            let id = element_id(item, strategy)?;
            let index = (0..live.len()).find(|&index| !taken[index] && live_ids[index].as_ref() == Some(&id))?;
            taken[index] = true;
            Some(index)
        })
        .collect()
}

/// Removes what the applier owned before, no longer applies and nobody else keeps.
fn prune(object: &mut Value, previous: &FieldSet, keep: &FieldSet, strategies: Strategies<'_>) {
    let mut removed = Vec::new();
    for path in previous.difference(keep).iter() {
        // An element others still own fields inside stays, and so do its key fields:
        // without them the element would lose its identity.
        if keep.has_descendant(path) || is_key_field(path) {
            continue;
        }
        if path.remove_from(object, strategies) {
            removed.push(path.clone());
        }
    }
    drop_emptied_parents(object, &removed, keep, strategies);
}

fn is_key_field(path: &FieldPath) -> bool {
    match path.elements() {
        [.., PathElement::Key(pairs), PathElement::Field(name)] => pairs.iter().any(|(key, _)| key == name),
        _ => false,
    }
}

/// Maps and lists left empty by pruning go too, unless someone owns them as such: an
/// empty `labels: {}` nobody asked for is noise.
fn drop_emptied_parents(object: &mut Value, removed: &[FieldPath], keep: &FieldSet, strategies: Strategies<'_>) {
    let mut parents: Vec<FieldPath> = removed
        .iter()
        .flat_map(|path| std::iter::successors(path.parent(), FieldPath::parent))
        .filter(|parent| matches!(parent.elements().last(), Some(PathElement::Field(_))))
        .filter(|parent| !keep.contains(parent))
        .collect();
    // Deepest first, so emptiness can climb.
    parents.sort_by(|a, b| b.elements().len().cmp(&a.elements().len()).then_with(|| a.cmp(b)));
    parents.dedup();
    for parent in parents {
        let empty = match parent.lookup(object, strategies) {
            Some(Value::Object(map)) => map.is_empty(),
            Some(Value::Array(items)) => items.is_empty(),
            _ => false,
        };
        if empty {
            parent.remove_from(object, strategies);
        }
    }
}

/// How a write changed the owned fields of an object.
struct Change {
    /// Fields added or given a different value.
    touched: FieldSet,
    /// Fields no longer present.
    removed: FieldSet,
}

impl Change {
    fn between(before: Option<&Value>, after: &Value, strategies: Strategies<'_>) -> Self {
        let old = before.map_or_else(FieldSet::new, |before| owned(FieldSet::from_object(before, strategies)));
        let new = owned(FieldSet::from_object(after, strategies));
        let mut modified = new.intersection(&old);
        modified.retain(|path| {
            before.is_some_and(|before| differs(path.lookup(before, strategies), path.lookup(after, strategies)))
        });
        Self { touched: new.difference(&old).union(&modified), removed: old.difference(&new) }
    }

    /// Takes the changed fields away from `entries`: whoever made the change owns them
    /// now, and removed fields have no owner left.
    fn take_from(&self, entries: &mut [Entry]) {
        let lost = self.touched.union(&self.removed);
        for entry in entries {
            entry.give_up(&lost);
        }
    }
}

/// Whether a member changed value. Maps (map-list elements included) are tracked through
/// their fields, so only their presence counts here.
fn differs(before: Option<&Value>, after: Option<&Value>) -> bool {
    match (before, after) {
        (Some(Value::Object(_)), Some(Value::Object(_))) => false,
        (before, after) => before != after,
    }
}

/// Fails with every touched field another manager owns, sorted by manager then path.
fn conflicts(entries: &[Entry], touched: &FieldSet) -> Result<(), PatchError> {
    let mut found: Vec<(String, FieldPath)> = entries
        .iter()
        .flat_map(|entry| {
            entry
                .fields
                .intersection(touched)
                .iter()
                .map(|path| (entry.manager().to_owned(), path.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    found.sort();
    found.dedup();
    Err(PatchError::Conflicts(found.into_iter().map(|(manager, path)| (manager, path.to_string())).collect()))
}

/// Whether `live` records the last apply of `manager` under `api_version`.
fn same_apply_version(live: &Value, manager: &str, api_version: &str) -> bool {
    read_entries(live).iter().any(|entry| entry.is(manager, APPLY) && entry.text("apiVersion") == api_version)
}

/// One `metadata.managedFields` entry.
struct Entry {
    /// The entry as stored, so fields this module does not know survive.
    raw: Map<String, Value>,
    fields: FieldSet,
    /// Whether `fields` changed and `fieldsV1` must be written again.
    dirty: bool,
}

impl Entry {
    fn new(manager: &str, operation: &str, api_version: &str, now: &str, fields: FieldSet) -> Self {
        let mut raw = Map::new();
        for (name, value) in [
            ("manager", manager),
            ("operation", operation),
            ("apiVersion", api_version),
            ("time", now),
            ("fieldsType", "FieldsV1"),
        ] {
            // An unnamed client's entry has no manager, as the API server omits an empty one.
            if !value.is_empty() {
                raw.insert(name.to_owned(), Value::String(value.to_owned()));
            }
        }
        Self { raw, fields, dirty: true }
    }

    /// Reads an entry; one that is not `FieldsV1` or does not parse is dropped, as the
    /// API server drops managedFields it cannot decode.
    fn parse(value: &Value) -> Option<Self> {
        let raw = value.as_object()?.clone();
        if raw.get("fieldsType").is_some_and(|kind| kind != "FieldsV1") {
            return None;
        }
        let fields = match raw.get("fieldsV1") {
            Some(fields) => FieldSet::from_fields_v1(fields).ok()?,
            None => FieldSet::new(),
        };
        Some(Self { raw, fields, dirty: false })
    }

    fn text(&self, name: &str) -> &str {
        self.raw.get(name).and_then(Value::as_str).unwrap_or_default()
    }

    fn manager(&self) -> &str {
        self.text("manager")
    }

    /// Whether this is the main-resource entry of `manager` for `operation`.
    fn is(&self, manager: &str, operation: &str) -> bool {
        self.manager() == manager && self.text("operation") == operation && self.text("subresource").is_empty()
    }

    fn give_up(&mut self, fields: &FieldSet) {
        let kept = self.fields.difference(fields);
        if kept != self.fields {
            self.fields = kept;
            self.dirty = true;
        }
    }

    fn claim(&mut self, fields: &FieldSet, api_version: &str, now: &str) {
        self.fields = self.fields.union(fields);
        self.raw.insert("apiVersion".to_owned(), Value::String(api_version.to_owned()));
        self.raw.insert("time".to_owned(), Value::String(now.to_owned()));
        self.dirty = true;
    }

    /// The order the API server keeps entries in: appliers first, then oldest first.
    fn sort_key(&self) -> [&str; 5] {
        ["operation", "time", "manager", "apiVersion", "subresource"].map(|name| self.text(name))
    }

    fn into_value(mut self) -> Value {
        if self.dirty {
            self.raw.insert("fieldsType".to_owned(), Value::String("FieldsV1".to_owned()));
            self.raw.insert("fieldsV1".to_owned(), self.fields.to_fields_v1());
        }
        Value::Object(self.raw)
    }
}

fn read_entries(object: &Value) -> Vec<Entry> {
    match object.pointer("/metadata/managedFields") {
        Some(Value::Array(entries)) => entries.iter().filter_map(Entry::parse).collect(),
        _ => Vec::new(),
    }
}

/// The entries an update starts from: those the new object carries, none when it asks
/// for a reset with `[{}]`, else those of the old object (clients that do not know about
/// managedFields must not wipe them).
fn base_entries(before: Option<&Value>, after: &Value) -> Vec<Entry> {
    if let Some(Value::Array(list)) = after.pointer("/metadata/managedFields") {
        if let [Value::Object(only)] = list.as_slice()
            && only.is_empty()
        {
            return Vec::new();
        }
        let entries: Vec<Entry> = list.iter().filter_map(Entry::parse).collect();
        if !entries.is_empty() {
            return entries;
        }
    }
    before.map(read_entries).unwrap_or_default()
}

/// Removes the entries of `manager` for `operation` and answers what they owned
/// (normally one entry; several are merged rather than left to conflict with each other).
fn take_entries(entries: &mut Vec<Entry>, manager: &str, operation: &str) -> Option<FieldSet> {
    let (taken, kept): (Vec<Entry>, Vec<Entry>) =
        std::mem::take(entries).into_iter().partition(|entry| entry.is(manager, operation));
    *entries = kept;
    taken.into_iter().map(|entry| entry.fields).reduce(|all, fields| all.union(&fields))
}

/// Stores the entries that still own something, in the API server's order.
fn write_entries(object: &mut Value, entries: Vec<Entry>) {
    let mut entries: Vec<Entry> = entries.into_iter().filter(|entry| !entry.fields.is_empty()).collect();
    entries.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let Some(metadata) = object.get_mut("metadata") else {
        return;
    };
    if entries.is_empty() {
        remove_key(metadata, "managedFields");
    } else if let Some(metadata) = metadata.as_object_mut() {
        let list = entries.into_iter().map(Entry::into_value).collect();
        metadata.insert("managedFields".to_owned(), Value::Array(list));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const T1: &str = "2025-01-01T00:00:01Z";
    const T2: &str = "2025-01-01T00:00:02Z";
    const T3: &str = "2025-01-01T00:00:03Z";
    const T4: &str = "2025-01-01T00:00:04Z";

    fn strategies(path: &str) -> ListStrategy {
        if path.ends_with("containers") {
            ListStrategy::Map(vec!["name".into()])
        } else if path == "metadata.finalizers" {
            ListStrategy::Set
        } else {
            ListStrategy::Atomic
        }
    }

    fn apply(live: Option<&Value>, applied: &Value, manager: &str, force: bool, now: &str) -> Value {
        match server_side_apply(live, applied, manager, force, &strategies, "apps/v1", now) {
            Ok(object) => object,
            Err(error) => panic!("apply failed: {error:?}"),
        }
    }

    fn update(before: &Value, after: &Value, manager: &str, now: &str) -> Value {
        let mut after = after.clone();
        record_update(Some(before), &mut after, manager, &strategies, "apps/v1", now);
        after
    }

    /// A Deployment configuration with the given metadata additions and spec.
    fn deployment(metadata: Value, spec: Value) -> Value {
        let mut object = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": spec
        });
        if let (Some(target), Value::Object(extra)) = (object["metadata"].as_object_mut(), metadata) {
            target.extend(extra);
        }
        object
    }

    fn containers(items: Value) -> Value {
        json!({"replicas": 2, "template": {"spec": {"containers": items}}})
    }

    /// What the store adds on create, which an apply must never disturb.
    fn stored(mut object: Value) -> Value {
        if let Some(metadata) = object["metadata"].as_object_mut() {
            metadata.insert("uid".into(), json!("u-1"));
            metadata.insert("resourceVersion".into(), json!("7"));
            metadata.insert("creationTimestamp".into(), json!("2025-01-01T00:00:00Z"));
        }
        object
    }

    fn entry(manager: &str, operation: &str, time: &str, fields: Value) -> Value {
        json!({
            "manager": manager,
            "operation": operation,
            "apiVersion": "apps/v1",
            "time": time,
            "fieldsType": "FieldsV1",
            "fieldsV1": fields
        })
    }

    fn with_entries(mut object: Value, entries: Value) -> Value {
        object["metadata"]["managedFields"] = entries;
        object
    }

    fn container_fields(name: &str) -> Value {
        let mut fields = Map::new();
        fields.insert(format!("k:{{\"name\":\"{name}\"}}"), json!({".": {}, "f:image": {}, "f:name": {}}));
        json!({"f:template": {"f:spec": {"f:containers": fields}}})
    }

    /// `kubectl` created the Deployment by applying labels, replicas and container `c`.
    fn created() -> Value {
        let config = deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            containers(json!([{"name": "c", "image": "nginx"}])),
        );
        stored(apply(None, &config, "kubectl", false, T1))
    }

    fn kubectl_fields(labels: Value, spec: Value) -> Value {
        let mut fields = json!({"f:spec": spec});
        if !labels.is_null() {
            fields["f:metadata"] = json!({"f:labels": labels});
        }
        fields
    }

    fn full_spec_fields() -> Value {
        let mut spec = container_fields("c");
        spec["f:replicas"] = json!({});
        spec
    }

    #[test]
    fn apply_creates_the_object_with_managed_fields() {
        let config = deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            containers(json!([{"name": "c", "image": "nginx"}])),
        );
        let created = apply(None, &config, "kubectl", false, T1);
        let fields = kubectl_fields(json!({"f:app": {}, "f:tier": {}}), full_spec_fields());
        assert_eq!(created, with_entries(config, json!([entry("kubectl", "Apply", T1, fields)])));
    }

    #[test]
    fn reapplying_the_same_configuration_changes_nothing() {
        let live = created();
        let mut config = deployment(
            json!({"labels": {"tier": "fe", "app": "web"}, "uid": "forged", "resourceVersion": "1"}),
            containers(json!([{"name": "c", "image": "nginx", "ports": null}])),
        );
        config["status"] = json!({"replicas": 9});
        let again = apply(Some(&live), &config, "kubectl", false, T2);
        assert_eq!(again, live);
        assert!(same_ignoring_managed_fields(&again, &live));
    }

    #[test]
    fn dropping_an_owned_field_removes_it() {
        let live = created();
        let config = deployment(json!({}), containers(json!([{"name": "c", "image": "nginx"}])));
        let pruned = apply(Some(&live), &config, "kubectl", false, T2);
        let expected = with_entries(
            stored(config),
            json!([entry("kubectl", "Apply", T2, kubectl_fields(Value::Null, full_spec_fields()))]),
        );
        assert_eq!(pruned, expected);
    }

    #[test]
    fn a_field_another_manager_also_owns_is_kept() {
        let live = created();
        let mut helm = deployment(json!({"labels": {"app": "web"}}), Value::Null);
        remove_key(&mut helm, "spec");
        let shared = apply(Some(&live), &helm, "helm", false, T2);
        let config = deployment(json!({}), containers(json!([{"name": "c", "image": "nginx"}])));
        let result = apply(Some(&shared), &config, "kubectl", false, T3);
        let mut expected =
            stored(deployment(json!({"labels": {"app": "web"}}), containers(json!([{"name": "c", "image": "nginx"}]))));
        expected = with_entries(
            expected,
            json!([
                entry("helm", "Apply", T2, json!({"f:metadata": {"f:labels": {"f:app": {}}}})),
                entry("kubectl", "Apply", T3, kubectl_fields(Value::Null, full_spec_fields())),
            ]),
        );
        assert_eq!(result, expected);
    }

    /// `hpa` scales the Deployment with an ordinary update after `kubectl` applied it.
    fn scaled() -> Value {
        let live = created();
        let mut after = live.clone();
        after["spec"]["replicas"] = json!(5);
        update(&live, &after, "hpa", T2)
    }

    #[test]
    fn an_update_takes_the_fields_it_changes() {
        let expected = with_entries(
            {
                let mut object = created();
                object["spec"]["replicas"] = json!(5);
                object
            },
            json!([
                entry(
                    "kubectl",
                    "Apply",
                    T1,
                    kubectl_fields(json!({"f:app": {}, "f:tier": {}}), container_fields("c"))
                ),
                entry("hpa", "Update", T2, json!({"f:spec": {"f:replicas": {}}})),
            ]),
        );
        assert_eq!(scaled(), expected);
    }

    #[test]
    fn changing_a_field_an_updater_owns_conflicts() {
        let live = scaled();
        let config = deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            json!({"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}}),
        );
        let result = server_side_apply(Some(&live), &config, "kubectl", false, &strategies, "apps/v1", T3);
        assert_eq!(result, Err(PatchError::Conflicts(vec![("hpa".to_owned(), ".spec.replicas".to_owned())])));
        assert_eq!(result.map_err(|error| error.to_string()), Err("Apply failed with 1 conflict(s)".to_owned()));
    }

    #[test]
    fn applying_the_value_an_updater_set_shares_the_field() {
        let live = scaled();
        let config = deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            json!({"replicas": 5, "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}),
        );
        let result = apply(Some(&live), &config, "kubectl", false, T3);
        let fields = kubectl_fields(json!({"f:app": {}, "f:tier": {}}), full_spec_fields());
        let mut expected = live.clone();
        expected["metadata"]["managedFields"][0] = entry("kubectl", "Apply", T3, fields);
        assert_eq!(result, expected);
    }

    #[test]
    fn force_takes_the_field_over() {
        let live = scaled();
        let config = deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            containers(json!([{"name": "c", "image": "nginx"}])),
        );
        let result = apply(Some(&live), &config, "kubectl", true, T3);
        let fields = kubectl_fields(json!({"f:app": {}, "f:tier": {}}), full_spec_fields());
        let mut expected = live.clone();
        expected["spec"]["replicas"] = json!(2);
        expected["metadata"]["managedFields"] = json!([entry("kubectl", "Apply", T3, fields)]);
        assert_eq!(result, expected);
    }

    #[test]
    fn map_lists_merge_by_key_across_managers() {
        let live = created();
        let injector = deployment(
            json!({}),
            json!({"template": {"spec": {"containers": [{"name": "sidecar", "image": "envoy"}]}}}),
        );
        let injected = apply(Some(&live), &injector, "injector", false, T2);
        let both = json!([{"name": "c", "image": "nginx"}, {"name": "sidecar", "image": "envoy"}]);
        assert_eq!(injected["spec"]["template"]["spec"]["containers"], both);
        assert_eq!(
            injected["metadata"]["managedFields"][1],
            entry("injector", "Apply", T2, json!({"f:spec": container_fields("sidecar")}))
        );

        let bumped = deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            containers(json!([{"name": "c", "image": "nginx:2"}])),
        );
        let bumped = apply(Some(&injected), &bumped, "kubectl", false, T3);
        assert_eq!(
            bumped["spec"]["template"]["spec"]["containers"],
            json!([{"name": "c", "image": "nginx:2"}, {"name": "sidecar", "image": "envoy"}])
        );

        let without_c = deployment(json!({"labels": {"app": "web", "tier": "fe"}}), json!({"replicas": 2}));
        let result = apply(Some(&bumped), &without_c, "kubectl", false, T4);
        let mut expected = stored(deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            containers(json!([{"name": "sidecar", "image": "envoy"}])),
        ));
        expected = with_entries(
            expected,
            json!([
                entry("injector", "Apply", T2, json!({"f:spec": container_fields("sidecar")})),
                entry(
                    "kubectl",
                    "Apply",
                    T4,
                    kubectl_fields(json!({"f:app": {}, "f:tier": {}}), json!({"f:replicas": {}}))
                ),
            ]),
        );
        assert_eq!(result, expected);
    }

    #[test]
    fn set_lists_merge_as_a_union() {
        let with_finalizers = |items: Value| deployment(json!({"finalizers": items}), json!({"replicas": 1}));
        let live = stored(apply(None, &with_finalizers(json!(["a"])), "kubectl", false, T1));
        let mut after = live.clone();
        after["metadata"]["finalizers"] = json!(["a", "b"]);
        let live = update(&live, &after, "controller", T2);

        let grown = apply(Some(&live), &with_finalizers(json!(["a", "c"])), "kubectl", false, T3);
        assert_eq!(grown["metadata"]["finalizers"], json!(["a", "b", "c"]));

        let config = deployment(json!({}), json!({"replicas": 1}));
        let result = apply(Some(&grown), &config, "kubectl", false, T4);
        let mut expected = stored(deployment(json!({"finalizers": ["b"]}), json!({"replicas": 1})));
        expected = with_entries(
            expected,
            json!([
                entry("kubectl", "Apply", T4, json!({"f:spec": {"f:replicas": {}}})),
                entry("controller", "Update", T2, json!({"f:metadata": {"f:finalizers": {"v:\"b\"": {}}}})),
            ]),
        );
        assert_eq!(result, expected);
    }

    #[test]
    fn status_is_neither_applied_nor_owned() {
        let mut live = created();
        live["status"] = json!({"replicas": 2});
        let mut config = deployment(
            json!({"labels": {"app": "web", "tier": "fe"}}),
            containers(json!([{"name": "c", "image": "nginx"}])),
        );
        config["status"] = json!({"replicas": 0});
        assert_eq!(apply(Some(&live), &config, "kubectl", false, T2), live);
    }

    #[test]
    fn malformed_configurations_are_bad_requests() {
        let attempt = |config: &Value| server_side_apply(None, config, "kubectl", false, &strategies, "apps/v1", T1);
        let mut nameless = deployment(json!({}), json!({}));
        nameless["metadata"] = json!({"namespace": "default"});
        assert_eq!(
            attempt(&nameless),
            Err(PatchError::BadRequest("metadata.name must be set in the applied configuration".into()))
        );
        let twins = deployment(json!({}), containers(json!([{"name": "c"}, {"name": "c"}])));
        assert_eq!(
            attempt(&twins),
            Err(PatchError::BadRequest(
                ".spec.template.spec.containers: duplicate entries for key [name=\"c\"]".into()
            ))
        );
        let tracked = deployment(json!({"managedFields": []}), json!({}));
        assert_eq!(attempt(&tracked), Err(PatchError::BadRequest("metadata.managedFields must be nil".into())));
    }

    #[test]
    fn an_update_that_creates_owns_everything_but_server_fields() {
        let mut object = stored(deployment(json!({"labels": {"app": "web"}}), json!({"replicas": 1})));
        object["status"] = json!({"replicas": 0});
        let mut after = object.clone();
        record_update(None, &mut after, "kubectl-create", &strategies, "apps/v1", T1);
        let fields = json!({"f:metadata": {"f:labels": {"f:app": {}}}, "f:spec": {"f:replicas": {}}});
        assert_eq!(after, with_entries(object, json!([entry("kubectl-create", "Update", T1, fields)])));
    }

    #[test]
    fn an_update_removing_a_field_takes_it_from_its_owner() {
        let live = created();
        let mut after = live.clone();
        after["metadata"]["labels"] = json!({"app": "web"});
        let result = update(&live, &after, "kubectl-edit", T2);
        let fields = kubectl_fields(json!({"f:app": {}}), full_spec_fields());
        assert_eq!(result["metadata"]["managedFields"], json!([entry("kubectl", "Apply", T1, fields)]));
    }

    #[test]
    fn an_update_can_reset_managed_fields() {
        let live = created();
        let mut after = live.clone();
        after["metadata"]["managedFields"] = json!([{}]);
        let result = update(&live, &after, "kubectl-edit", T2);
        assert_eq!(result["metadata"].get("managedFields"), None);
        let mut untracked = live.clone();
        if let Some(metadata) = untracked["metadata"].as_object_mut() {
            metadata.retain(|key, _| key != "managedFields");
        }
        assert_eq!(update(&live, &untracked, "kubectl-edit", T2), live);
    }
}
