//! Strategic merge patch (`application/strategic-merge-patch+json`), the patch type
//! kubectl sends by default for built-in kinds.
//!
//! Behaviour follows the API server's rather than an idealised spec, because clients
//! observe it: lists merged by key keep the live order for elements the patch touches
//! but put elements the patch introduces *before* the untouched live ones unless the
//! patch carries `$setElementOrder` (kubectl's `apply` always does, `patch` does not).

use super::super::protobuf::{self, Patch};
use super::{ListStrategy, PatchError, Strategies};
use serde_json::{Map, Value};

const PATCH: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";

/// Applies a Kubernetes strategic merge patch to `target`.
///
/// Maps merge recursively and a `null` deletes a key; lists follow
/// `strategies(path)` for their dotted field path (list positions left out): atomic
/// lists are replaced, keyed lists merge element by element, set lists take the
/// union. The directives `$patch` (`replace`, and `delete` on maps and keyed list
/// elements), `$setElementOrder/<field>`, `$deleteFromPrimitiveList/<field>` and
/// `$retainKeys` are honoured and never stored. A malformed patch is
/// [`PatchError::BadRequest`]; on error `target` is unchanged.
pub fn strategic_merge_patch(target: &mut Value, patch: &Value, strategies: Strategies<'_>) -> Result<(), PatchError> {
    let Value::Object(patch) = patch else {
        return Err(bad("a strategic merge patch must be a JSON object"));
    };
    let mut merged = match target {
        Value::Object(members) => members.clone(),
        _ => Map::new(),
    };
    Merger { strategies }.merge_map(&mut merged, patch, "")?;
    *target = Value::Object(merged);
    Ok(())
}

/// Answers how the list at `path` of a built-in kind merges: its Go field's `patchStrategy`
/// and `patchMergeKey`, found by walking the kind's generated message table (the protobuf
/// codec's, which carries each field's tags) field by field.
///
/// `path` is the dotted field path without list positions, e.g.
/// `spec.template.spec.containers.env`. Lists without tags are atomic, as is every list of a
/// kind without a table (a custom resource's) but those of its `metadata`, an ObjectMeta like
/// every object's.
pub fn builtin_strategy(api_version: &str, kind: &str, path: &str) -> ListStrategy {
    let field = match (protobuf::message(api_version, kind), path.strip_prefix("metadata.")) {
        (Some(message), _) => protobuf::field_at(message, path),
        (None, Some(in_metadata)) => protobuf::field_at(protobuf::OBJECT_META, in_metadata),
        (None, None) => None,
    };
    match field.map(|field| field.patch) {
        Some(Patch::MergeKey(key) | Patch::MergeKeyRetainKeys(key)) => ListStrategy::Map(vec![key.to_string()]),
        Some(Patch::Merge) => ListStrategy::Set,
        Some(Patch::Plain | Patch::RetainKeys | Patch::Replace) | None => ListStrategy::Atomic,
    }
}

fn bad(message: impl Into<String>) -> PatchError {
    PatchError::BadRequest(message.into())
}

fn child_path(path: &str, field: &str) -> String {
    if path.is_empty() { field.to_string() } else { format!("{path}.{field}") }
}

/// What a key of a patch map means.
enum Key<'k> {
    Field(&'k str),
    Patch,
    RetainKeys,
    SetElementOrder(&'k str),
    DeleteFromPrimitiveList(&'k str),
}

fn classify(key: &str) -> Result<Key<'_>, PatchError> {
    let list_directive = |prefix: &str| -> Result<Option<&str>, PatchError> {
        let Some(rest) = key.strip_prefix(prefix) else {
            return Ok(None);
        };
        match rest.strip_prefix('/') {
            Some(field) if !field.is_empty() => Ok(Some(field)),
            _ => Err(bad(format!("invalid directive {key:?}: expected \"{prefix}/<field>\""))),
        }
    };
    Ok(match key {
        PATCH => Key::Patch,
        RETAIN_KEYS => Key::RetainKeys,
        _ => {
            if let Some(field) = list_directive(SET_ELEMENT_ORDER)? {
                Key::SetElementOrder(field)
            } else if let Some(field) = list_directive(DELETE_FROM_PRIMITIVE_LIST)? {
                Key::DeleteFromPrimitiveList(field)
            } else {
                Key::Field(key)
            }
        }
    })
}

/// How list elements are told apart: whole value for scalars and atomic lists, key
/// fields for lists merged by key.
enum Identity<'k> {
    Whole,
    Keys(&'k [String]),
}

impl Identity<'_> {
    fn of(&self, element: &Value) -> Value {
        match self {
            Identity::Whole => element.clone(),
            Identity::Keys(keys) => key_tuple(keys, |key| element.get(key)),
        }
    }
}

/// A patch element that is only a directive (`{"$patch": ...}` in a list).
fn is_directive_element(element: &Value) -> bool {
    element.get(PATCH).is_some()
}

/// Walks a patch alongside the object, asking `strategies` how each list merges.
struct Merger<'a> {
    strategies: Strategies<'a>,
}

impl Merger<'_> {
    fn merge_map(
        &self,
        target: &mut Map<String, Value>,
        patch: &Map<String, Value>,
        path: &str,
    ) -> Result<(), PatchError> {
        if let Some(directive) = patch.get(PATCH) {
            return self.map_directive(target, patch, directive, path);
        }
        let entries =
            patch.iter().map(|(key, value)| Ok((classify(key)?, value))).collect::<Result<Vec<_>, PatchError>>()?;
        // Retained keys are pruned before merging, which is equivalent to pruning
        // after: every key the patch sets must be in the retained list anyway.
        for (key, value) in &entries {
            if let Key::RetainKeys = key {
                retain_keys(target, &entries, value, path)?;
            }
        }
        let mut ordered = Vec::new();
        for (key, value) in &entries {
            if let Key::SetElementOrder(field) = key {
                self.set_element_order(target, patch, field, value, path)?;
                ordered.push(*field);
            }
        }
        for (key, value) in &entries {
            if let Key::Field(field) = key
                && !ordered.contains(field)
            {
                self.merge_field(target, field, value, path)?;
            }
        }
        // Deletions run last so that an element re-added elsewhere in the same patch
        // cannot resurrect one the patch removes.
        for (key, value) in &entries {
            if let Key::DeleteFromPrimitiveList(field) = key {
                delete_from_list(target, field, value, path)?;
            }
        }
        Ok(())
    }

    /// `$patch` on a map: `replace` swaps in the rest of the patch, `delete` empties it.
    fn map_directive(
        &self,
        target: &mut Map<String, Value>,
        patch: &Map<String, Value>,
        directive: &Value,
        path: &str,
    ) -> Result<(), PatchError> {
        match directive.as_str() {
            Some("replace") => {
                let mut rest = patch.clone();
                rest.remove(PATCH);
                *target = self.fresh_map(&rest, path)?;
                Ok(())
            }
            Some("delete") => {
                target.clear();
                Ok(())
            }
            _ => Err(bad(format!("unknown {PATCH} directive {directive} at {:?}", display_path(path)))),
        }
    }

    fn merge_field(
        &self,
        target: &mut Map<String, Value>,
        field: &str,
        patch: &Value,
        path: &str,
    ) -> Result<(), PatchError> {
        let path = child_path(path, field);
        if patch.is_null() {
            target.remove(field);
            return Ok(());
        }
        match (target.get_mut(field), patch) {
            (Some(Value::Object(existing)), Value::Object(patch)) => self.merge_map(existing, patch, &path),
            (Some(Value::Array(existing)), Value::Array(patch)) => {
                *existing = self.merge_list(existing, patch, &path)?;
                Ok(())
            }
            // Absent, scalar, or of another JSON type: the patch value wins whole.
            _ => {
                match self.fresh_value(patch, &path)? {
                    Some(value) => target.insert(field.to_string(), value),
                    None => target.remove(field),
                };
                Ok(())
            }
        }
    }

    fn merge_list(&self, target: &[Value], patch: &[Value], path: &str) -> Result<Vec<Value>, PatchError> {
        match (self.strategies)(path) {
            ListStrategy::Atomic => self.fresh_list(patch, path),
            ListStrategy::Set => merge_set(target, patch, path),
            ListStrategy::Map(keys) => self.merge_keyed(target, patch, &keys, path),
        }
    }

    fn merge_keyed(
        &self,
        target: &[Value],
        patch: &[Value],
        keys: &[String],
        path: &str,
    ) -> Result<Vec<Value>, PatchError> {
        let identity = Identity::Keys(keys);
        let mut merged = target.to_vec();
        let mut plain = Vec::new();
        let mut replace = false;
        for element in patch {
            let Value::Object(fields) = element else {
                return Err(bad(format!(
                    "{:?} is merged by key, so element {element} must be an object",
                    display_path(path)
                )));
            };
            match fields.get(PATCH).map(|d| (d, d.as_str())) {
                None => plain.push(fields),
                Some((_, Some("delete"))) => {
                    let key = merge_key(fields, keys, path)?;
                    merged.retain(|item| !item.is_object() || identity.of(item) != key);
                }
                Some((_, Some("replace"))) => replace = true,
                Some((directive, _)) => {
                    return Err(bad(format!("unknown {PATCH} directive {directive} in list {:?}", display_path(path))));
                }
            }
        }
        if replace {
            return self.fresh_list(patch, path);
        }
        let server_order: Vec<Value> = merged.iter().map(|item| identity.of(item)).collect();
        let mut patch_order = Vec::with_capacity(plain.len());
        for fields in plain {
            let key = merge_key(fields, keys, path)?;
            let existing = merged.iter_mut().find(|item| item.is_object() && identity.of(item) == key);
            match existing {
                Some(Value::Object(existing)) => self.merge_map(existing, fields, path)?,
                _ => merged.push(Value::Object(self.fresh_map(fields, path)?)),
            }
            patch_order.push(key);
        }
        Ok(normalize_order(merged, &patch_order, &server_order, &identity))
    }

    /// `$setElementOrder/<field>`: merge the list as usual, then order the elements the
    /// directive names by it, interleaving the rest where they sat in the live list.
    fn set_element_order(
        &self,
        target: &mut Map<String, Value>,
        patch: &Map<String, Value>,
        field: &str,
        order: &Value,
        path: &str,
    ) -> Result<(), PatchError> {
        let list_path = child_path(path, field);
        let Value::Array(order) = order else {
            return Err(bad(format!("{SET_ELEMENT_ORDER}/{field} at {:?} must be a list", display_path(path))));
        };
        let patch_list = match patch.get(field) {
            None => None,
            Some(Value::Array(list)) => Some(list),
            Some(_) => {
                return Err(bad(format!(
                    "{:?} must be a list when {SET_ELEMENT_ORDER}/{field} is given",
                    display_path(&list_path)
                )));
            }
        };
        let live = match target.get(field) {
            Some(Value::Array(list)) => Some(list.clone()),
            _ => None,
        };
        let strategy = (self.strategies)(&list_path);
        let identity = match &strategy {
            ListStrategy::Map(keys) => Identity::Keys(keys),
            ListStrategy::Atomic | ListStrategy::Set => Identity::Whole,
        };
        if let ListStrategy::Map(keys) = &strategy {
            for element in order {
                require_keys(element, keys, &list_path)?;
            }
        }
        if let Some(list) = patch_list {
            check_order(list, order, &identity, &list_path)?;
        }
        let merged = match (&live, patch_list) {
            (None, None) => return Ok(()),
            (Some(live), None) => live.clone(),
            (None, Some(list)) => self.fresh_list(list, &list_path)?,
            (Some(live), Some(list)) => self.merge_list(live, list, &list_path)?,
        };
        let order_ids: Vec<Value> = order.iter().map(|item| identity.of(item)).collect();
        let live_ids = match (&live, patch_list, &strategy) {
            (Some(live), Some(list), ListStrategy::Map(_)) => live_order_after_merge(live, list, &identity),
            _ => live.iter().flatten().map(|item| identity.of(item)).collect(),
        };
        let ordered = normalize_order(merged, &order_ids, &live_ids, &identity);
        target.insert(field.to_string(), Value::Array(ordered));
        Ok(())
    }

    /// A patch value stored where nothing merges with it, with directives resolved
    /// and `null` members dropped; `None` when it deletes itself (`$patch: delete`).
    fn fresh_value(&self, patch: &Value, path: &str) -> Result<Option<Value>, PatchError> {
        match patch {
            Value::Object(fields) if fields.get(PATCH) == Some(&Value::from("delete")) => Ok(None),
            Value::Object(fields) => Ok(Some(Value::Object(self.fresh_map(fields, path)?))),
            Value::Array(items) => Ok(Some(Value::Array(self.fresh_list(items, path)?))),
            scalar => Ok(Some(scalar.clone())),
        }
    }

    fn fresh_map(&self, patch: &Map<String, Value>, path: &str) -> Result<Map<String, Value>, PatchError> {
        let mut fresh = Map::new();
        self.merge_map(&mut fresh, patch, path)?;
        Ok(fresh)
    }

    /// A list taken from the patch as is, less its directive-only elements.
    fn fresh_list(&self, patch: &[Value], path: &str) -> Result<Vec<Value>, PatchError> {
        let mut fresh = Vec::with_capacity(patch.len());
        for element in patch.iter().filter(|e| !is_directive_element(e)) {
            fresh.extend(self.fresh_value(element, path)?);
        }
        Ok(fresh)
    }
}

/// Union of two scalar lists; duplicates anywhere collapse to their first occurrence.
fn merge_set(target: &[Value], patch: &[Value], path: &str) -> Result<Vec<Value>, PatchError> {
    if let Some(element) = patch.iter().find(|e| e.is_object() || e.is_array()) {
        return Err(bad(format!("{:?} is a list of scalars and cannot merge element {element}", display_path(path))));
    }
    let mut merged: Vec<Value> = Vec::with_capacity(target.len() + patch.len());
    for element in target.iter().chain(patch) {
        if !merged.contains(element) {
            merged.push(element.clone());
        }
    }
    Ok(normalize_order(merged, patch, target, &Identity::Whole))
}

/// The key fields of a keyed-list patch element, which it must all carry.
fn merge_key(fields: &Map<String, Value>, keys: &[String], path: &str) -> Result<Value, PatchError> {
    if let Some(key) = keys.iter().find(|key| !fields.contains_key(key.as_str())) {
        return Err(bad(format!(
            "element {} of {:?} does not contain its merge key {key:?}",
            Value::Object(fields.clone()),
            display_path(path)
        )));
    }
    Ok(key_tuple(keys, |key| fields.get(key)))
}

/// The values of `keys` as one comparable value; a missing key reads as `null`.
fn key_tuple<'v>(keys: &[String], lookup: impl Fn(&str) -> Option<&'v Value>) -> Value {
    Value::Array(keys.iter().map(|key| lookup(key).cloned().unwrap_or(Value::Null)).collect())
}

fn require_keys(element: &Value, keys: &[String], path: &str) -> Result<(), PatchError> {
    match element {
        Value::Object(fields) => merge_key(fields, keys, path).map(|_| ()),
        other => Err(bad(format!("{SET_ELEMENT_ORDER} element {other} of {:?} must be an object", display_path(path)))),
    }
}

/// The patch list must list its elements in the same relative order as
/// `$setElementOrder`, and only elements it names; deletions are exempt.
fn check_order(list: &[Value], order: &[Value], identity: &Identity<'_>, path: &str) -> Result<(), PatchError> {
    let mut remaining = order.iter().map(|item| identity.of(item));
    for element in list.iter().filter(|e| !is_directive_element(e)) {
        let wanted = identity.of(element);
        if !remaining.any(|item| item == wanted) {
            return Err(bad(format!(
                "the order of list {:?} in the patch does not match its {SET_ELEMENT_ORDER} list",
                display_path(path)
            )));
        }
    }
    Ok(())
}

fn retain_keys(
    target: &mut Map<String, Value>,
    entries: &[(Key<'_>, &Value)],
    retained: &Value,
    path: &str,
) -> Result<(), PatchError> {
    let Value::Array(retained) = retained else {
        return Err(bad(format!("{RETAIN_KEYS} at {:?} must be a list of field names", display_path(path))));
    };
    let retained: Vec<&str> = retained.iter().filter_map(Value::as_str).collect();
    for (key, value) in entries {
        if let Key::Field(field) = key
            && !value.is_null()
            && !retained.contains(field)
        {
            return Err(bad(format!(
                "{RETAIN_KEYS} at {:?} does not list {field:?}, which the patch sets",
                display_path(path)
            )));
        }
    }
    target.retain(|key, _| retained.contains(&key.as_str()));
    Ok(())
}

fn delete_from_list(
    target: &mut Map<String, Value>,
    field: &str,
    doomed: &Value,
    path: &str,
) -> Result<(), PatchError> {
    let Value::Array(doomed) = doomed else {
        return Err(bad(format!("{DELETE_FROM_PRIMITIVE_LIST}/{field} at {:?} must be a list", display_path(path))));
    };
    if let Some(Value::Array(items)) = target.get_mut(field) {
        items.retain(|item| !doomed.contains(item));
    }
    Ok(())
}

/// The live order the API server consults when `$setElementOrder` meets a keyed list
/// that the patch also changes. The server's record of the live list is updated in
/// place by the merge, so it sees `$patch: delete` removals and, in the slots those
/// free, the first elements the patch adds. Reproducing that puts server-only
/// elements where kubectl users see them land on a real cluster.
fn live_order_after_merge(live: &[Value], patch: &[Value], identity: &Identity<'_>) -> Vec<Value> {
    let deleted: Vec<Value> = patch
        .iter()
        .filter(|element| element.get(PATCH).and_then(Value::as_str) == Some("delete"))
        .map(|element| identity.of(element))
        .collect();
    let mut ids: Vec<Value> =
        live.iter().map(|element| identity.of(element)).filter(|id| !deleted.contains(id)).collect();
    for element in patch.iter().filter(|e| !is_directive_element(e)) {
        let id = identity.of(element);
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids.truncate(live.len());
    ids
}

/// Orders a merged list the way the API server does. Elements named by `patch_ids`
/// come in that order; the others keep their live order (`server_ids`), and each
/// of those is placed before a patch element only when the live list had it first.
fn normalize_order(
    merged: Vec<Value>,
    patch_ids: &[Value],
    server_ids: &[Value],
    identity: &Identity<'_>,
) -> Vec<Value> {
    let position = |ids: &[Value], item: &Value| {
        let id = identity.of(item);
        ids.iter().position(|candidate| *candidate == id)
    };
    let (mut from_patch, mut server_only): (Vec<Value>, Vec<Value>) =
        merged.into_iter().partition(|item| position(patch_ids, item).is_some());
    from_patch.sort_by_key(|item| position(patch_ids, item));
    server_only.sort_by_key(|item| position(server_ids, item).unwrap_or(usize::MAX));

    let mut ordered = Vec::with_capacity(from_patch.len() + server_only.len());
    let mut left = server_only.into_iter().peekable();
    let mut right = from_patch.into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (Some(l), Some(r)) => matches!(
                (position(server_ids, l), position(server_ids, r)),
                (Some(li), Some(ri)) if li < ri
            ),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        ordered.extend(if take_left { left.next() } else { right.next() });
    }
    ordered
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

#[cfg(test)]
mod tests {
    use super::{ListStrategy, PatchError, builtin_strategy, strategic_merge_patch};
    use serde_json::{Value, json};

    fn deployment_strategy(path: &str) -> ListStrategy {
        builtin_strategy("apps/v1", "Deployment", path)
    }

    fn patch_deployment(target: Value, patch: Value) -> Result<Value, PatchError> {
        let mut target = target;
        strategic_merge_patch(&mut target, &patch, &deployment_strategy)?;
        Ok(target)
    }

    fn assert_patched(target: Value, patch: Value, expected: Value) {
        assert_eq!(patch_deployment(target, patch.clone()), Ok(expected), "patch {patch}");
    }

    fn assert_bad_request(target: Value, patch: Value) {
        let result = patch_deployment(target, patch.clone());
        assert!(matches!(result, Err(PatchError::BadRequest(_))), "patch {patch} gave {result:?}");
    }

    /// A Deployment whose pod template has two containers.
    fn deployment() -> Value {
        json!({
            "metadata": {"name": "web", "labels": {"app": "web"}, "finalizers": ["a", "b"]},
            "spec": {
                "replicas": 1,
                "template": {"spec": {"containers": [
                    {
                        "name": "app",
                        "image": "app:1",
                        "args": ["--x", "--y"],
                        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
                    },
                    {"name": "sidecar", "image": "proxy:1"}
                ]}}
            }
        })
    }

    fn containers(value: &Value) -> &Value {
        &value["spec"]["template"]["spec"]["containers"]
    }

    fn names(list: &Value) -> Vec<&str> {
        list.as_array().map(|items| items.iter().filter_map(|i| i["name"].as_str()).collect()).unwrap_or_default()
    }

    fn template_patch(containers: Value) -> Value {
        json!({"spec": {"template": {"spec": {"containers": containers}}}})
    }

    #[test]
    fn maps_merge_and_null_deletes() {
        assert_patched(
            json!({"metadata": {"labels": {"app": "web", "tier": "x"}}, "spec": {"replicas": 1}}),
            json!({"metadata": {"labels": {"tier": null, "env": "dev"}}, "spec": {"replicas": 2}}),
            json!({"metadata": {"labels": {"app": "web", "env": "dev"}}, "spec": {"replicas": 2}}),
        );
    }

    #[test]
    fn null_for_missing_key_is_dropped() {
        assert_patched(json!({"a": 1}), json!({"b": null, "c": {"d": null, "e": 1}}), json!({"a": 1, "c": {"e": 1}}));
    }

    #[test]
    fn containers_merge_by_name_and_env_merges_by_name() {
        let patch = template_patch(json!([
            {"name": "app", "image": "app:2", "env": [{"name": "B", "value": "20"}, {"name": "C", "value": "3"}]}
        ]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(
            result.as_ref().map(containers),
            Ok(&json!([
                {
                    "name": "app",
                    "image": "app:2",
                    "args": ["--x", "--y"],
                    "env": [
                        {"name": "A", "value": "1"},
                        {"name": "B", "value": "20"},
                        {"name": "C", "value": "3"}
                    ]
                },
                {"name": "sidecar", "image": "proxy:1"}
            ]))
        );
    }

    #[test]
    fn new_keyed_elements_go_before_untouched_live_ones() {
        // The API server puts elements the patch adds ahead of live elements the
        // patch does not mention (kubectl's patch docs show the same).
        let patch = template_patch(json!([{"name": "extra", "image": "x:1"}]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(|r| names(containers(r))), Ok(vec!["extra", "app", "sidecar"]));
    }

    #[test]
    fn new_keyed_elements_after_a_mentioned_live_one_follow_it() {
        let patch = template_patch(json!([
            {"name": "sidecar", "image": "proxy:2"},
            {"name": "extra", "image": "x:1"}
        ]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(|r| names(containers(r))), Ok(vec!["app", "sidecar", "extra"]));
        assert_eq!(result.as_ref().map(|r| &containers(r)[1]), Ok(&json!({"name": "sidecar", "image": "proxy:2"})));
    }

    #[test]
    fn patch_delete_removes_a_container() {
        let patch = template_patch(json!([{"name": "sidecar", "$patch": "delete"}]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(|r| names(containers(r))), Ok(vec!["app"]));
    }

    #[test]
    fn patch_delete_removes_an_env_var() {
        let patch = template_patch(json!([
            {"name": "app", "env": [{"name": "A", "$patch": "delete"}]}
        ]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(|r| &containers(r)[0]["env"]), Ok(&json!([{"name": "B", "value": "2"}])));
    }

    #[test]
    fn patch_delete_of_missing_element_is_a_no_op() {
        let patch = template_patch(json!([{"name": "nope", "$patch": "delete"}]));
        assert_eq!(patch_deployment(deployment(), patch), Ok(deployment()));
    }

    #[test]
    fn patch_delete_removes_every_duplicate() {
        let strategy = |_: &str| ListStrategy::Map(vec!["name".to_string()]);
        let mut target = json!({"list": [{"name": 1}, {"name": 1}, {"name": 2, "v": "a"}]});
        let patch = json!({"list": [{"name": 1, "$patch": "delete"}]});
        assert_eq!(strategic_merge_patch(&mut target, &patch, &strategy), Ok(()));
        assert_eq!(target, json!({"list": [{"name": 2, "v": "a"}]}));
    }

    #[test]
    fn atomic_list_is_replaced() {
        let patch = template_patch(json!([{"name": "app", "args": ["--z"]}]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(|r| &containers(r)[0]["args"]), Ok(&json!(["--z"])));
    }

    #[test]
    fn finalizers_union_as_a_set() {
        assert_patched(
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"finalizers": ["b", "c"]}}),
            json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
        );
        // Like the API server, an element only the patch has goes first when the
        // patch mentions no live element before it.
        assert_patched(
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"finalizers": ["c"]}}),
            json!({"metadata": {"finalizers": ["c", "a", "b"]}}),
        );
        assert_patched(
            json!({"metadata": {"name": "x"}}),
            json!({"metadata": {"finalizers": ["f"]}}),
            json!({"metadata": {"name": "x", "finalizers": ["f"]}}),
        );
    }

    #[test]
    fn set_union_collapses_duplicates() {
        assert_patched(
            json!({"metadata": {"finalizers": ["a", "a", "b"]}}),
            json!({"metadata": {"finalizers": ["b", "b"]}}),
            json!({"metadata": {"finalizers": ["a", "b"]}}),
        );
    }

    #[test]
    fn delete_from_primitive_list_removes_finalizers() {
        assert_patched(
            json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b", "zz"]}}),
            json!({"metadata": {"finalizers": ["a", "c"]}}),
        );
    }

    #[test]
    fn delete_from_primitive_list_never_creates_the_list() {
        assert_patched(
            json!({"metadata": {"name": "x"}}),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}}),
            json!({"metadata": {"name": "x"}}),
        );
    }

    #[test]
    fn kubectl_apply_style_finalizer_removal() {
        assert_patched(
            json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
            json!({"metadata": {
                "$setElementOrder/finalizers": ["a", "c"],
                "$deleteFromPrimitiveList/finalizers": ["b"]
            }}),
            json!({"metadata": {"finalizers": ["a", "c"]}}),
        );
    }

    #[test]
    fn set_element_order_reorders_containers() {
        let patch = json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}]
        }}}});
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(|r| names(containers(r))), Ok(vec!["sidecar", "app"]));
        assert_eq!(
            result.as_ref().map(|r| &containers(r)[1]),
            Ok(&deployment()["spec"]["template"]["spec"]["containers"][0])
        );
    }

    #[test]
    fn set_element_order_with_additions_and_changes() {
        let patch = json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "new"}, {"name": "app"}, {"name": "sidecar"}],
            "containers": [{"name": "new", "image": "n:1"}, {"name": "sidecar", "image": "proxy:2"}]
        }}}});
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(|r| names(containers(r))), Ok(vec!["new", "app", "sidecar"]));
        assert_eq!(result.as_ref().map(|r| &containers(r)[2]["image"]), Ok(&json!("proxy:2")));
    }

    #[test]
    fn set_element_order_interleaves_unmentioned_live_elements() {
        let strategy = |_: &str| ListStrategy::Map(vec!["name".to_string()]);
        let mut target = json!({"list": [
            {"name": 1, "other": "a"}, {"name": 2}, {"name": 9}, {"name": 3}, {"name": 4}
        ]});
        let patch = json!({"$setElementOrder/list": [
            {"name": 2}, {"name": 1}, {"name": 4}, {"name": 3}
        ]});
        assert_eq!(strategic_merge_patch(&mut target, &patch, &strategy), Ok(()));
        assert_eq!(
            target,
            json!({"list": [
                {"name": 2}, {"name": 1, "other": "a"}, {"name": 9}, {"name": 4}, {"name": 3}
            ]})
        );
    }

    #[test]
    fn set_element_order_keeps_trailing_live_elements_last() {
        let strategy = |_: &str| ListStrategy::Map(vec!["name".to_string()]);
        let mut target = json!({"list": [{"name": 1}, {"name": 3}, {"name": 4}, {"name": 2}, {"name": 9}]});
        let patch = json!({"$setElementOrder/list": [{"name": 4}, {"name": 2}, {"name": 3}, {"name": 1}]});
        assert_eq!(strategic_merge_patch(&mut target, &patch, &strategy), Ok(()));
        assert_eq!(target, json!({"list": [{"name": 4}, {"name": 2}, {"name": 3}, {"name": 1}, {"name": 9}]}));
    }

    fn patch_named_list(target: Value, patch: Value) -> Result<Value, PatchError> {
        let strategy = |_: &str| ListStrategy::Map(vec!["name".to_string()]);
        let mut target = target;
        strategic_merge_patch(&mut target, &patch, &strategy)?;
        Ok(target)
    }

    #[test]
    fn set_element_order_places_server_only_after_mentioned_live_ones() {
        // "c" is server-only: it follows "a", which the live list had before it, but
        // not the new "b", which the live list never had.
        assert_eq!(
            patch_named_list(
                json!({"list": [{"name": "a", "x": 1}, {"name": "c"}]}),
                json!({
                    "$setElementOrder/list": [{"name": "a"}, {"name": "b"}],
                    "list": [{"name": "b"}]
                }),
            ),
            Ok(json!({"list": [{"name": "a", "x": 1}, {"name": "b"}, {"name": "c"}]}))
        );
    }

    #[test]
    fn set_element_order_with_delete_and_add_matches_the_server() {
        // The server's view of the live order sees the deletion and the addition
        // that takes the freed slot, so server-only "d" stays ahead of new "c".
        assert_eq!(
            patch_named_list(
                json!({"list": [{"name": "a"}, {"name": "b", "x": 1}, {"name": "d", "x": 2}]}),
                json!({
                    "$setElementOrder/list": [{"name": "b"}, {"name": "c"}],
                    "list": [{"name": "c"}, {"name": "a", "$patch": "delete"}]
                }),
            ),
            Ok(json!({"list": [{"name": "b", "x": 1}, {"name": "d", "x": 2}, {"name": "c"}]}))
        );
        assert_eq!(
            patch_named_list(
                json!({"list": [{"name": "a"}, {"name": "d", "x": 2}]}),
                json!({
                    "$setElementOrder/list": [{"name": "b"}, {"name": "c"}],
                    "list": [{"name": "b"}, {"name": "c"}, {"name": "a", "$patch": "delete"}]
                }),
            ),
            Ok(json!({"list": [{"name": "d", "x": 2}, {"name": "b"}, {"name": "c"}]}))
        );
    }

    #[test]
    fn set_element_order_for_scalar_set() {
        assert_patched(
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"$setElementOrder/finalizers": ["a", "b", "c"], "finalizers": ["c"]}}),
            json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
        );
    }

    #[test]
    fn set_element_order_creates_missing_list_in_order() {
        assert_patched(
            json!({"metadata": {"name": "x"}}),
            json!({"metadata": {"$setElementOrder/finalizers": ["b", "a"], "finalizers": ["b", "a"]}}),
            json!({"metadata": {"name": "x", "finalizers": ["b", "a"]}}),
        );
    }

    #[test]
    fn set_element_order_mismatch_is_bad_request() {
        assert_bad_request(
            deployment(),
            json!({"spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                "containers": [{"name": "sidecar", "image": "s"}, {"name": "app", "image": "a"}]
            }}}}),
        );
        assert_bad_request(
            deployment(),
            json!({"spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "app"}],
                "containers": [{"name": "other", "image": "o"}]
            }}}}),
        );
        assert_bad_request(
            deployment(),
            json!({"spec": {"template": {"spec": {"$setElementOrder/containers": [{"image": "x"}]}}}}),
        );
        assert_bad_request(
            deployment(),
            json!({"spec": {"template": {"spec": {"$setElementOrder/containers": "app"}}}}),
        );
    }

    #[test]
    fn retain_keys_prunes_unlisted_fields() {
        assert_patched(
            json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}),
            json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
            json!({"spec": {"strategy": {"type": "Recreate"}}}),
        );
    }

    #[test]
    fn retain_keys_keeps_listed_fields_and_merges() {
        assert_patched(
            json!({"v": {"name": "data", "emptyDir": {}, "hostPath": {"path": "/x"}}}),
            json!({"v": {"$retainKeys": ["name", "configMap"], "configMap": {"name": "cm"}, "emptyDir": null}}),
            json!({"v": {"name": "data", "configMap": {"name": "cm"}}}),
        );
    }

    #[test]
    fn retain_keys_must_list_patched_fields() {
        assert_bad_request(
            json!({"spec": {"strategy": {"type": "RollingUpdate"}}}),
            json!({"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}}),
        );
        assert_bad_request(json!({"spec": {}}), json!({"spec": {"$retainKeys": "type"}}));
    }

    #[test]
    fn patch_replace_on_a_map() {
        assert_patched(
            json!({"metadata": {"labels": {"a": "1", "b": "2"}}}),
            json!({"metadata": {"labels": {"$patch": "replace", "c": "3"}}}),
            json!({"metadata": {"labels": {"c": "3"}}}),
        );
        assert_patched(
            json!({"name": 1, "value": 1}),
            json!({"$patch": "replace", "other": "a"}),
            json!({"other": "a"}),
        );
    }

    #[test]
    fn patch_replace_on_a_missing_map_stores_it() {
        assert_patched(
            json!({"metadata": {}}),
            json!({"metadata": {"labels": {"$patch": "replace", "c": "3"}}}),
            json!({"metadata": {"labels": {"c": "3"}}}),
        );
    }

    #[test]
    fn patch_delete_on_a_map_empties_it() {
        assert_patched(
            json!({"metadata": {"labels": {"a": "1"}}}),
            json!({"metadata": {"labels": {"$patch": "delete"}}}),
            json!({"metadata": {"labels": {}}}),
        );
        assert_patched(
            json!({"metadata": {}}),
            json!({"metadata": {"labels": {"$patch": "delete"}}}),
            json!({"metadata": {}}),
        );
    }

    #[test]
    fn patch_replace_element_replaces_the_list() {
        let patch = template_patch(json!([
            {"$patch": "replace"},
            {"name": "only", "image": "o:1"}
        ]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(result.as_ref().map(containers), Ok(&json!([{"name": "only", "image": "o:1"}])));
        let result = patch_deployment(deployment(), template_patch(json!([{"$patch": "replace"}])));
        assert_eq!(result.as_ref().map(containers), Ok(&json!([])));
    }

    #[test]
    fn directives_never_reach_the_result() {
        let patch = template_patch(json!([{
            "name": "new",
            "image": "n:1",
            "$setElementOrder/env": [{"name": "X"}],
            "env": [{"name": "X", "value": "1"}, {"name": "gone", "$patch": "delete"}],
            "resources": {"$patch": "replace", "limits": {"cpu": "1"}},
            "securityContext": {"$patch": "delete"}
        }]));
        let result = patch_deployment(deployment(), patch);
        assert_eq!(
            result.as_ref().map(|r| &containers(r)[0]),
            Ok(&json!({
                "name": "new",
                "image": "n:1",
                "env": [{"name": "X", "value": "1"}],
                "resources": {"limits": {"cpu": "1"}}
            }))
        );
    }

    #[test]
    fn type_change_replaces_value() {
        assert_patched(
            json!({"a": {"b": 1}, "c": [1], "d": "x"}),
            json!({"a": [1], "c": {"e": null, "f": 2}, "d": {"g": 1}}),
            json!({"a": [1], "c": {"f": 2}, "d": {"g": 1}}),
        );
    }

    #[test]
    fn malformed_directives_are_bad_requests() {
        assert_bad_request(json!({}), json!({"$patch": "merge"}));
        assert_bad_request(json!({"m": {}}), json!({"m": {"$patch": 1}}));
        assert_bad_request(deployment(), template_patch(json!([{"name": "app", "$patch": "explode"}])));
        assert_bad_request(deployment(), template_patch(json!([{"$patch": "delete", "image": "x"}])));
        assert_bad_request(deployment(), template_patch(json!([{"image": "x"}])));
        assert_bad_request(deployment(), template_patch(json!(["app"])));
        assert_bad_request(
            json!({"metadata": {"finalizers": ["a"]}}),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}}),
        );
        assert_bad_request(json!({"metadata": {}}), json!({"metadata": {"$deleteFromPrimitiveList": ["a"]}}));
        assert_bad_request(json!({"metadata": {}}), json!({"metadata": {"$setElementOrder/": ["a"]}}));
        assert_bad_request(json!({"metadata": {"finalizers": ["a"]}}), json!({"metadata": {"finalizers": [{"x": 1}]}}));
    }

    #[test]
    fn non_object_patch_is_bad_request() {
        let mut target = json!({"a": 1});
        let result = strategic_merge_patch(&mut target, &json!([1]), &deployment_strategy);
        assert!(matches!(result, Err(PatchError::BadRequest(_))));
    }

    #[test]
    fn failure_leaves_target_unchanged() {
        let mut target = deployment();
        let patch = json!({
            "metadata": {"labels": {"app": "changed"}},
            "spec": {"template": {"spec": {"containers": [{"image": "no-name"}]}}}
        });
        let result = strategic_merge_patch(&mut target, &patch, &deployment_strategy);
        assert!(matches!(result, Err(PatchError::BadRequest(_))));
        assert_eq!(target, deployment());
    }

    #[test]
    fn owner_references_merge_by_uid() {
        assert_patched(
            json!({"metadata": {"ownerReferences": [{"uid": "1", "name": "a"}, {"uid": "2", "name": "b"}]}}),
            json!({"metadata": {"ownerReferences": [{"uid": "1", "controller": true}]}}),
            json!({"metadata": {"ownerReferences": [
                {"uid": "1", "name": "a", "controller": true},
                {"uid": "2", "name": "b"}
            ]}}),
        );
    }

    #[test]
    fn status_conditions_merge_by_type() {
        let strategy = |path: &str| builtin_strategy("v1", "Pod", path);
        let mut pod = json!({"status": {"conditions": [
            {"type": "Ready", "status": "False"},
            {"type": "Scheduled", "status": "True"}
        ]}});
        let patch = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        assert_eq!(strategic_merge_patch(&mut pod, &patch, &strategy), Ok(()));
        assert_eq!(
            pod,
            json!({"status": {"conditions": [
                {"type": "Ready", "status": "True"},
                {"type": "Scheduled", "status": "True"}
            ]}})
        );
    }

    /// Each case is the Go field's tags upstream (`patchStrategy`, `patchMergeKey`), read from the
    /// generated tables: no hand-kept list answers any of them.
    #[test]
    fn builtin_lists_merge_by_the_patch_merge_key_of_their_go_field() {
        const ADMISSION: &str = "admissionregistration.k8s.io/v1";
        let key = |k: &str| ListStrategy::Map(vec![k.to_string()]);
        let cases = [
            ("v1", "Pod", "spec.containers", key("name")),
            ("v1", "Pod", "spec.initContainers.env", key("name")),
            // EphemeralContainer inlines EphemeralContainerCommon, where the list is.
            ("v1", "Pod", "spec.ephemeralContainers.volumeMounts", key("mountPath")),
            ("v1", "Pod", "spec.containers.ports", key("containerPort")),
            ("v1", "Pod", "spec.containers.volumeDevices", key("devicePath")),
            // `merge,retainKeys`: merged by name; the retained keys are kubectl's to send.
            ("v1", "Pod", "spec.volumes", key("name")),
            ("v1", "Pod", "spec.imagePullSecrets", key("name")),
            ("v1", "Pod", "spec.resourceClaims", key("name")),
            ("v1", "Pod", "spec.schedulingGates", key("name")),
            ("v1", "Pod", "spec.hostAliases", key("ip")),
            ("v1", "Pod", "spec.topologySpreadConstraints", key("topologyKey")),
            ("v1", "Pod", "status.conditions", key("type")),
            ("v1", "Pod", "status.podIPs", key("ip")),
            ("v1", "Pod", "spec.tolerations", ListStrategy::Atomic),
            ("v1", "Pod", "spec.containers.args", ListStrategy::Atomic),
            ("v1", "Pod", "spec.containers.command", ListStrategy::Atomic),
            ("v1", "Pod", "spec.template.spec.containers", ListStrategy::Atomic),
            ("apps/v1", "Deployment", "spec.template.spec.containers", key("name")),
            ("apps/v1", "Deployment", "spec.template.spec.containers.env", key("name")),
            ("apps/v1", "Deployment", "spec.containers", ListStrategy::Atomic),
            ("apps/v1", "Deployment", "status.conditions", key("type")),
            ("apps/v1", "Deployment", "spec.template.metadata.finalizers", ListStrategy::Set),
            ("apps/v1", "StatefulSet", "spec.template.spec.containers.ports", key("containerPort")),
            ("batch/v1", "CronJob", "spec.jobTemplate.spec.template.spec.volumes", key("name")),
            ("v1", "Namespace", "status.conditions", key("type")),
            ("v1", "Namespace", "spec.finalizers", ListStrategy::Atomic),
            ("v1", "Node", "status.conditions", key("type")),
            ("v1", "Node", "status.addresses", key("type")),
            ("v1", "Node", "spec.podCIDRs", ListStrategy::Set),
            ("v1", "Node", "spec.taints", ListStrategy::Atomic),
            ("v1", "Service", "spec.ports", key("port")),
            ("v1", "ServiceAccount", "secrets", key("name")),
            ("v1", "ServiceAccount", "imagePullSecrets", ListStrategy::Atomic),
            (ADMISSION, "ValidatingWebhookConfiguration", "webhooks", key("name")),
            (ADMISSION, "ValidatingWebhookConfiguration", "webhooks.rules", ListStrategy::Atomic),
            (ADMISSION, "MutatingWebhookConfiguration", "webhooks.matchConditions", key("name")),
            // Tagged `+listType=map` only, a server-side apply rule: a strategic merge replaces them.
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "status.conditions", ListStrategy::Atomic),
            ("certificates.k8s.io/v1", "CertificateSigningRequest", "status.conditions", ListStrategy::Atomic),
            // `properties` is a map: the segment after it is a property's name.
            (
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                "spec.versions.schema.openAPIV3Schema.properties.spec.x-kubernetes-validations",
                key("rule"),
            ),
            ("rbac.authorization.k8s.io/v1", "ClusterRole", "rules", ListStrategy::Atomic),
            ("rbac.authorization.k8s.io/v1", "RoleBinding", "subjects", ListStrategy::Atomic),
            ("v1", "ConfigMap", "metadata.finalizers", ListStrategy::Set),
            ("v1", "ConfigMap", "metadata.ownerReferences", key("uid")),
            ("coordination.k8s.io/v1", "Lease", "metadata.ownerReferences", key("uid")),
            ("example.com/v1", "Widget", "metadata.finalizers", ListStrategy::Set),
            ("example.com/v1", "Widget", "metadata.ownerReferences", key("uid")),
            ("example.com/v1", "Widget", "status.conditions", ListStrategy::Atomic),
            ("v1", "Event", "metadata.managedFields", ListStrategy::Atomic),
        ];
        for (api_version, kind, path, expected) in cases {
            assert_eq!(builtin_strategy(api_version, kind, path), expected, "{api_version} {kind} {path}");
        }
    }
}
