//! JSON merge patch (RFC 7386), the `application/merge-patch+json` patch type.

use serde_json::{Map, Value};

/// Applies an RFC 7386 merge patch to `target` in place.
///
/// Members of an object patch merge recursively into the target object, a `null`
/// member deletes the key, and any other value (arrays included) replaces what was
/// there. A patch that is not an object replaces the target whole. Merge patches
/// cannot fail: every JSON document is a valid merge patch.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch_members) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        // The RFC merges an object patch into `{}` when the target is anything else,
        // so nested `null`s in the patch vanish instead of being stored.
        *target = Value::Object(Map::new());
    }
    if let Value::Object(target_members) = target {
        merge_members(target_members, patch_members);
    }
}

fn merge_members(target: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (key, value) in patch {
        if value.is_null() {
            target.remove(key);
        } else {
            merge_patch(target.entry(key.as_str()).or_insert(Value::Null), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::merge_patch;
    use serde_json::{Value, json};

    fn merged(target: Value, patch: Value) -> Value {
        let mut target = target;
        merge_patch(&mut target, &patch);
        target
    }

    #[test]
    fn rfc7386_appendix_examples() {
        let cases = [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "b"}), json!({"b": "c"}), json!({"a": "b", "b": "c"})),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (json!({"a": "b", "b": "c"}), json!({"a": null}), json!({"b": "c"})),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "c"}), json!({"a": ["b"]}), json!({"a": ["b"]})),
            (json!({"a": {"b": "c"}}), json!({"a": {"b": "d", "c": null}}), json!({"a": {"b": "d"}})),
            (json!({"a": [{"b": "c"}]}), json!({"a": [1]}), json!({"a": [1]})),
            (json!(["a", "b"]), json!(["c", "d"]), json!(["c", "d"])),
            (json!({"a": "b"}), json!(["c"]), json!(["c"])),
            (json!({"a": "foo"}), json!(null), json!(null)),
            (json!({"a": "foo"}), json!("bar"), json!("bar")),
            (json!({"e": null}), json!({"a": 1}), json!({"e": null, "a": 1})),
            (json!([1, 2]), json!({"a": "b", "c": null}), json!({"a": "b"})),
            (json!({}), json!({"a": {"bb": {"ccc": null}}}), json!({"a": {"bb": {}}})),
        ];
        for (target, patch, expected) in cases {
            assert_eq!(merged(target, patch.clone()), expected, "patch {patch}");
        }
    }

    #[test]
    fn merges_kubernetes_metadata() {
        let target = json!({
            "metadata": {"name": "x", "labels": {"app": "a", "tier": "web"}},
            "spec": {"replicas": 1}
        });
        let patch = json!({"metadata": {"labels": {"tier": null, "env": "dev"}}, "spec": {"replicas": 3}});
        assert_eq!(
            merged(target, patch),
            json!({
                "metadata": {"name": "x", "labels": {"app": "a", "env": "dev"}},
                "spec": {"replicas": 3}
            })
        );
    }

    #[test]
    fn deleting_a_missing_key_is_a_no_op() {
        assert_eq!(merged(json!({"a": 1}), json!({"b": null})), json!({"a": 1}));
    }

    #[test]
    fn empty_patch_changes_nothing() {
        assert_eq!(merged(json!({"a": {"b": 1}}), json!({})), json!({"a": {"b": 1}}));
    }
}
