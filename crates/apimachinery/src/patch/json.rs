//! JSON patch (RFC 6902), the `application/json-patch+json` patch type.
//!
//! The whole document is parsed before anything is applied, so a malformed patch is
//! always a 400 no matter where the bad operation sits, and the operations run on a
//! copy of the target so a failing operation leaves the stored object untouched.

use super::PatchError;
use serde_json::{Map, Value};

/// Applies an RFC 6902 JSON patch (`ops`, an array of operations) to `target`.
///
/// Supports `add`, `remove`, `replace`, `move`, `copy` and `test` with RFC 6901
/// pointers (`~0`/`~1` escapes, `-` to append to an array). A malformed document is
/// [`PatchError::BadRequest`]; an operation that cannot apply (missing path, failed
/// `test`, index out of range) is [`PatchError::Unprocessable`]. The patch is atomic:
/// on any error `target` is left exactly as it was.
///
/// As in the real API server, `test` with a `null` value passes when the member is
/// absent from an existing parent: kube-runtime's finalizer helper relies on that to
/// guard the first `add` of `/metadata/finalizers`.
pub fn json_patch(target: &mut Value, ops: &Value) -> Result<(), PatchError> {
    let operations = parse_operations(ops)?;
    let mut working = target.clone();
    for (index, operation) in operations.iter().enumerate() {
        operation.apply(&mut working).map_err(|reason| {
            PatchError::Unprocessable(format!(
                "json patch operation {index} ({}) does not apply: {reason}",
                operation.name()
            ))
        })?;
    }
    *target = working;
    Ok(())
}

/// One parsed operation of the patch document.
#[derive(Debug)]
enum Operation {
    Add { path: Pointer, value: Value },
    Remove { path: Pointer },
    Replace { path: Pointer, value: Value },
    Move { from: Pointer, path: Pointer },
    Copy { from: Pointer, path: Pointer },
    Test { path: Pointer, value: Value },
}

impl Operation {
    fn name(&self) -> &'static str {
        match self {
            Operation::Add { .. } => "add",
            Operation::Remove { .. } => "remove",
            Operation::Replace { .. } => "replace",
            Operation::Move { .. } => "move",
            Operation::Copy { .. } => "copy",
            Operation::Test { .. } => "test",
        }
    }

    /// Runs the operation; the error is a human reason, wrapped by the caller.
    fn apply(&self, doc: &mut Value) -> Result<(), String> {
        match self {
            Operation::Add { path, value } => add(doc, path, value.clone()),
            Operation::Remove { path } => remove(doc, path).map(|_| ()),
            Operation::Replace { path, value } => replace(doc, path, value.clone()),
            Operation::Move { from, path } => move_value(doc, from, path),
            Operation::Copy { from, path } => {
                let value = doc.pointer_tokens(&from.tokens).cloned().ok_or_else(|| missing(from))?;
                add(doc, path, value)
            }
            Operation::Test { path, value } => test(doc, path, value),
        }
    }
}

fn parse_operations(ops: &Value) -> Result<Vec<Operation>, PatchError> {
    let Value::Array(items) = ops else {
        return Err(PatchError::BadRequest("json patch must be a JSON array of operations".to_string()));
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            parse_operation(item)
                .map_err(|reason| PatchError::BadRequest(format!("json patch operation {index}: {reason}")))
        })
        .collect()
}

fn parse_operation(item: &Value) -> Result<Operation, String> {
    let Value::Object(fields) = item else {
        return Err("an operation must be a JSON object".to_string());
    };
    let op = match fields.get("op") {
        Some(Value::String(op)) => op.as_str(),
        Some(_) => return Err("\"op\" must be a string".to_string()),
        None => return Err("missing \"op\"".to_string()),
    };
    let path = || pointer_field(fields, "path");
    let from = || pointer_field(fields, "from");
    let value = || value_field(fields, op);
    match op {
        "add" => Ok(Operation::Add { path: path()?, value: value()? }),
        "remove" => Ok(Operation::Remove { path: path()? }),
        "replace" => Ok(Operation::Replace { path: path()?, value: value()? }),
        "move" => Ok(Operation::Move { from: from()?, path: path()? }),
        "copy" => Ok(Operation::Copy { from: from()?, path: path()? }),
        "test" => Ok(Operation::Test { path: path()?, value: value()? }),
        other => Err(format!("unknown op {other:?}")),
    }
}

fn pointer_field(fields: &Map<String, Value>, name: &str) -> Result<Pointer, String> {
    match fields.get(name) {
        Some(Value::String(text)) => Pointer::parse(text),
        Some(_) => Err(format!("{name:?} must be a string")),
        None => Err(format!("missing {name:?}")),
    }
}

fn value_field(fields: &Map<String, Value>, op: &str) -> Result<Value, String> {
    // An explicit `"value": null` is a real value (and the one `test` callers use to
    // assert absence), so only a missing member is an error.
    fields.get("value").cloned().ok_or_else(|| format!("missing \"value\" for op {op:?}"))
}

/// A parsed RFC 6901 JSON pointer, kept with its text for error messages.
#[derive(Debug, PartialEq)]
struct Pointer {
    text: String,
    tokens: Vec<String>,
}

impl Pointer {
    fn parse(text: &str) -> Result<Pointer, String> {
        let tokens = match text.strip_prefix('/') {
            None if text.is_empty() => Vec::new(),
            None => {
                return Err(format!("invalid JSON pointer {text:?}: it must be empty or start with \"/\""));
            }
            Some(rest) => rest.split('/').map(|token| unescape(token, text)).collect::<Result<_, _>>()?,
        };
        Ok(Pointer { text: text.to_string(), tokens })
    }

    /// Splits into the parent's tokens and the last token; `None` for the root.
    fn split_last(&self) -> Option<(&[String], &str)> {
        self.tokens.split_last().map(|(last, parent)| (parent, last.as_str()))
    }
}

fn unescape(token: &str, pointer: &str) -> Result<String, String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('0') => out.push('~'),
            Some('1') => out.push('/'),
            _ => {
                return Err(format!("invalid JSON pointer {pointer:?}: \"~\" must be followed by 0 or 1"));
            }
        }
    }
    Ok(out)
}

/// Pointer resolution over already-unescaped tokens.
trait Resolve {
    fn pointer_tokens(&self, tokens: &[String]) -> Option<&Value>;
    fn pointer_tokens_mut(&mut self, tokens: &[String]) -> Option<&mut Value>;
}

impl Resolve for Value {
    fn pointer_tokens(&self, tokens: &[String]) -> Option<&Value> {
        tokens.iter().try_fold(self, |node, token| match node {
            Value::Object(members) => members.get(token),
            Value::Array(items) => array_index(token).and_then(|i| items.get(i)),
            _ => None,
        })
    }

    fn pointer_tokens_mut(&mut self, tokens: &[String]) -> Option<&mut Value> {
        tokens.iter().try_fold(self, |node, token| match node {
            Value::Object(members) => members.get_mut(token),
            Value::Array(items) => array_index(token).and_then(|i| items.get_mut(i)),
            _ => None,
        })
    }
}

/// Parses an array index token; RFC 6901 forbids signs and leading zeros.
fn array_index(token: &str) -> Option<usize> {
    let canonical =
        token == "0" || (!token.is_empty() && !token.starts_with('0') && token.bytes().all(|b| b.is_ascii_digit()));
    if canonical { token.parse().ok() } else { None }
}

fn missing(pointer: &Pointer) -> String {
    format!("path {:?} does not exist", pointer.text)
}

fn add(doc: &mut Value, path: &Pointer, value: Value) -> Result<(), String> {
    let Some((parent, last)) = path.split_last() else {
        *doc = value;
        return Ok(());
    };
    // The parent must already exist: `add /metadata/finalizers/-` on an object without
    // finalizers fails, which is what makes kube-runtime add the whole array instead.
    let container =
        doc.pointer_tokens_mut(parent).ok_or_else(|| format!("parent of path {:?} does not exist", path.text))?;
    match container {
        Value::Object(members) => {
            members.insert(last.to_string(), value);
            Ok(())
        }
        Value::Array(items) if last == "-" => {
            items.push(value);
            Ok(())
        }
        Value::Array(items) => {
            let index =
                array_index(last).filter(|i| *i <= items.len()).ok_or_else(|| out_of_range(path, items.len()))?;
            items.insert(index, value);
            Ok(())
        }
        _ => Err(format!("parent of path {:?} is neither an object nor an array", path.text)),
    }
}

fn remove(doc: &mut Value, path: &Pointer) -> Result<Value, String> {
    let Some((parent, last)) = path.split_last() else {
        return Err("the whole document cannot be removed".to_string());
    };
    match doc.pointer_tokens_mut(parent) {
        Some(Value::Object(members)) => members.remove(last).ok_or_else(|| missing(path)),
        Some(Value::Array(items)) => {
            let index =
                array_index(last).filter(|i| *i < items.len()).ok_or_else(|| out_of_range(path, items.len()))?;
            Ok(items.remove(index))
        }
        _ => Err(missing(path)),
    }
}

fn replace(doc: &mut Value, path: &Pointer, value: Value) -> Result<(), String> {
    let slot = doc.pointer_tokens_mut(&path.tokens).ok_or_else(|| missing(path))?;
    *slot = value;
    Ok(())
}

fn move_value(doc: &mut Value, from: &Pointer, path: &Pointer) -> Result<(), String> {
    if from == path {
        return doc.pointer_tokens(&from.tokens).map(|_| ()).ok_or_else(|| missing(from));
    }
    if path.tokens.starts_with(&from.tokens) {
        return Err(format!("cannot move {:?} into its own child {:?}", from.text, path.text));
    }
    let value = remove(doc, from)?;
    add(doc, path, value)
}

fn test(doc: &Value, path: &Pointer, expected: &Value) -> Result<(), String> {
    let passed = match doc.pointer_tokens(&path.tokens) {
        Some(actual) => json_equal(actual, expected),
        // An absent member equals `null`, but only under an object that exists: the API
        // server fails the test for a missing parent or an array index out of range.
        None => {
            expected.is_null()
                && path.split_last().and_then(|(parent, _)| doc.pointer_tokens(parent)).is_some_and(Value::is_object)
        }
    };
    if passed { Ok(()) } else { Err(format!("test of path {:?} failed", path.text)) }
}

fn out_of_range(path: &Pointer, len: usize) -> String {
    format!("path {:?} is not a valid index of an array of length {len}", path.text)
}

/// Compares JSON values the RFC 6902 way: numbers by numeric value, so `1` equals `1.0`.
fn json_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(l), Value::Number(r)) => numbers_equal(l, r),
        (Value::Array(l), Value::Array(r)) => l.len() == r.len() && l.iter().zip(r).all(|(a, b)| json_equal(a, b)),
        (Value::Object(l), Value::Object(r)) => {
            l.len() == r.len() && l.iter().all(|(key, a)| r.get(key).is_some_and(|b| json_equal(a, b)))
        }
        _ => left == right,
    }
}

fn numbers_equal(left: &serde_json::Number, right: &serde_json::Number) -> bool {
    if let (Some(l), Some(r)) = (left.as_i64(), right.as_i64()) {
        return l == r;
    }
    if let (Some(l), Some(r)) = (left.as_u64(), right.as_u64()) {
        return l == r;
    }
    left.as_f64() == right.as_f64()
}

#[cfg(test)]
mod tests {
    use super::{PatchError, json_patch};
    use serde_json::{Value, json};

    fn patched(target: Value, ops: Value) -> Result<Value, PatchError> {
        let mut target = target;
        json_patch(&mut target, &ops)?;
        Ok(target)
    }

    fn assert_patched(target: Value, ops: Value, expected: Value) {
        assert_eq!(patched(target, ops.clone()), Ok(expected), "ops {ops}");
    }

    fn assert_unprocessable(target: Value, ops: Value) {
        let result = patched(target, ops.clone());
        assert!(matches!(result, Err(PatchError::Unprocessable(_))), "ops {ops} gave {result:?}");
    }

    fn assert_bad_request(ops: Value) {
        let result = patched(json!({"a": 1}), ops.clone());
        assert!(matches!(result, Err(PatchError::BadRequest(_))), "ops {ops} gave {result:?}");
    }

    #[test]
    fn add_object_member() {
        assert_patched(
            json!({"foo": "bar"}),
            json!([{"op": "add", "path": "/baz", "value": "qux"}]),
            json!({"baz": "qux", "foo": "bar"}),
        );
    }

    #[test]
    fn add_array_element_inserts_before_index() {
        assert_patched(
            json!({"foo": ["bar", "baz"]}),
            json!([{"op": "add", "path": "/foo/1", "value": "qux"}]),
            json!({"foo": ["bar", "qux", "baz"]}),
        );
    }

    #[test]
    fn add_at_array_length_appends() {
        assert_patched(
            json!({"foo": ["bar"]}),
            json!([{"op": "add", "path": "/foo/1", "value": "qux"}]),
            json!({"foo": ["bar", "qux"]}),
        );
    }

    #[test]
    fn add_dash_appends() {
        assert_patched(
            json!({"metadata": {"finalizers": ["a"]}}),
            json!([{"op": "add", "path": "/metadata/finalizers/-", "value": "b"}]),
            json!({"metadata": {"finalizers": ["a", "b"]}}),
        );
    }

    #[test]
    fn add_dash_requires_existing_array() {
        assert_unprocessable(
            json!({"metadata": {"name": "x"}}),
            json!([{"op": "add", "path": "/metadata/finalizers/-", "value": "b"}]),
        );
    }

    #[test]
    fn add_whole_member_creates_it() {
        assert_patched(
            json!({"metadata": {"name": "x"}}),
            json!([{"op": "add", "path": "/metadata/finalizers", "value": ["f"]}]),
            json!({"metadata": {"name": "x", "finalizers": ["f"]}}),
        );
    }

    #[test]
    fn add_replaces_existing_member() {
        assert_patched(
            json!({"a": 1}),
            json!([{"op": "add", "path": "/a", "value": {"b": 2}}]),
            json!({"a": {"b": 2}}),
        );
    }

    #[test]
    fn add_root_replaces_document() {
        assert_patched(json!({"a": 1}), json!([{"op": "add", "path": "", "value": [1]}]), json!([1]));
    }

    #[test]
    fn add_with_missing_parent_fails() {
        assert_unprocessable(json!({"foo": "bar"}), json!([{"op": "add", "path": "/baz/bat", "value": "qux"}]));
    }

    #[test]
    fn add_index_out_of_range_fails() {
        assert_unprocessable(json!({"foo": ["bar", "baz"]}), json!([{"op": "add", "path": "/foo/3", "value": "x"}]));
        assert_unprocessable(json!({"foo": ["bar"]}), json!([{"op": "add", "path": "/foo/01", "value": "x"}]));
        assert_unprocessable(json!({"foo": ["bar"]}), json!([{"op": "add", "path": "/foo/-1", "value": "x"}]));
    }

    #[test]
    fn remove_member_and_element() {
        assert_patched(
            json!({"baz": "qux", "foo": "bar"}),
            json!([{"op": "remove", "path": "/baz"}]),
            json!({"foo": "bar"}),
        );
        assert_patched(
            json!({"foo": ["bar", "qux", "baz"]}),
            json!([{"op": "remove", "path": "/foo/1"}]),
            json!({"foo": ["bar", "baz"]}),
        );
    }

    #[test]
    fn remove_missing_fails() {
        assert_unprocessable(json!({"a": 1}), json!([{"op": "remove", "path": "/b"}]));
        assert_unprocessable(json!({"a": [1]}), json!([{"op": "remove", "path": "/a/1"}]));
        assert_unprocessable(json!({"a": [1]}), json!([{"op": "remove", "path": "/a/-"}]));
        assert_unprocessable(json!({"a": 1}), json!([{"op": "remove", "path": ""}]));
    }

    #[test]
    fn replace_value() {
        assert_patched(
            json!({"baz": "qux", "foo": "bar"}),
            json!([{"op": "replace", "path": "/baz", "value": "boo"}]),
            json!({"baz": "boo", "foo": "bar"}),
        );
        assert_patched(
            json!({"a": [1, 2]}),
            json!([{"op": "replace", "path": "/a/0", "value": null}]),
            json!({"a": [null, 2]}),
        );
        assert_patched(json!({"a": 1}), json!([{"op": "replace", "path": "", "value": {"b": 2}}]), json!({"b": 2}));
    }

    #[test]
    fn replace_missing_fails() {
        assert_unprocessable(json!({"a": 1}), json!([{"op": "replace", "path": "/b", "value": 2}]));
    }

    #[test]
    fn move_value_between_objects() {
        assert_patched(
            json!({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}),
            json!([{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}]),
            json!({"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
        );
    }

    #[test]
    fn move_array_element() {
        assert_patched(
            json!({"foo": ["all", "grass", "cows", "eat"]}),
            json!([{"op": "move", "from": "/foo/1", "path": "/foo/3"}]),
            json!({"foo": ["all", "cows", "eat", "grass"]}),
        );
    }

    #[test]
    fn move_into_own_child_fails() {
        assert_unprocessable(json!({"a": {"b": 1}}), json!([{"op": "move", "from": "/a", "path": "/a/c"}]));
    }

    #[test]
    fn move_to_same_place_is_a_no_op() {
        assert_patched(json!({"a": 1}), json!([{"op": "move", "from": "/a", "path": "/a"}]), json!({"a": 1}));
        assert_unprocessable(json!({"a": 1}), json!([{"op": "move", "from": "/b", "path": "/b"}]));
    }

    #[test]
    fn copy_value() {
        assert_patched(
            json!({"a": {"b": [1]}}),
            json!([{"op": "copy", "from": "/a/b", "path": "/c"}]),
            json!({"a": {"b": [1]}, "c": [1]}),
        );
        assert_unprocessable(json!({"a": 1}), json!([{"op": "copy", "from": "/x", "path": "/c"}]));
    }

    #[test]
    fn test_passes_and_fails() {
        let doc = json!({"baz": "qux", "foo": ["a", 2, "c"]});
        assert_patched(
            doc.clone(),
            json!([
                {"op": "test", "path": "/baz", "value": "qux"},
                {"op": "test", "path": "/foo/1", "value": 2}
            ]),
            doc.clone(),
        );
        assert_unprocessable(doc.clone(), json!([{"op": "test", "path": "/baz", "value": "bar"}]));
        assert_unprocessable(doc, json!([{"op": "test", "path": "/nope", "value": 1}]));
    }

    #[test]
    fn test_compares_numbers_by_value() {
        assert_patched(
            json!({"a": {"n": 1.0, "l": [1]}}),
            json!([{"op": "test", "path": "/a", "value": {"n": 1, "l": [1.0]}}]),
            json!({"a": {"n": 1.0, "l": [1]}}),
        );
    }

    #[test]
    fn test_null_passes_on_missing_member() {
        // kube-runtime's finalizer(): guard with `test == null`, then add the array.
        assert_patched(
            json!({"metadata": {"name": "x"}}),
            json!([
                {"op": "test", "path": "/metadata/finalizers", "value": null},
                {"op": "add", "path": "/metadata/finalizers", "value": ["f"]}
            ]),
            json!({"metadata": {"name": "x", "finalizers": ["f"]}}),
        );
    }

    #[test]
    fn test_null_passes_on_explicit_null_and_fails_on_value() {
        assert_patched(json!({"a": null}), json!([{"op": "test", "path": "/a", "value": null}]), json!({"a": null}));
        assert_unprocessable(
            json!({"metadata": {"finalizers": ["f"]}}),
            json!([{"op": "test", "path": "/metadata/finalizers", "value": null}]),
        );
    }

    #[test]
    fn test_null_fails_when_parent_is_missing() {
        assert_unprocessable(json!({}), json!([{"op": "test", "path": "/metadata/finalizers", "value": null}]));
        assert_unprocessable(json!({"list": [1]}), json!([{"op": "test", "path": "/list/1", "value": null}]));
    }

    #[test]
    fn escapes_are_decoded() {
        assert_patched(
            json!({"a/b": 1, "m~n": 2}),
            json!([
                {"op": "replace", "path": "/a~1b", "value": 10},
                {"op": "replace", "path": "/m~0n", "value": 20},
                {"op": "add", "path": "/~01", "value": 30}
            ]),
            json!({"a/b": 10, "m~n": 20, "~1": 30}),
        );
    }

    #[test]
    fn annotation_with_slash_is_addressable() {
        assert_patched(
            json!({"metadata": {"annotations": {}}}),
            json!([{"op": "add", "path": "/metadata/annotations/example.com~1key", "value": "v"}]),
            json!({"metadata": {"annotations": {"example.com/key": "v"}}}),
        );
    }

    #[test]
    fn failure_leaves_target_unchanged() {
        let original = json!({"a": 1, "list": [1, 2]});
        let mut target = original.clone();
        let result = json_patch(
            &mut target,
            &json!([
                {"op": "replace", "path": "/a", "value": 2},
                {"op": "remove", "path": "/list/0"},
                {"op": "test", "path": "/a", "value": 3}
            ]),
        );
        assert!(matches!(result, Err(PatchError::Unprocessable(_))));
        assert_eq!(target, original);
    }

    #[test]
    fn malformed_documents_are_bad_requests() {
        assert_bad_request(json!({"op": "add", "path": "/a", "value": 1}));
        assert_bad_request(json!([1]));
        assert_bad_request(json!([{"path": "/a", "value": 1}]));
        assert_bad_request(json!([{"op": 1, "path": "/a"}]));
        assert_bad_request(json!([{"op": "frobnicate", "path": "/a"}]));
        assert_bad_request(json!([{"op": "add", "value": 1}]));
        assert_bad_request(json!([{"op": "add", "path": "/a"}]));
        assert_bad_request(json!([{"op": "replace", "path": "/a"}]));
        assert_bad_request(json!([{"op": "test", "path": "/a"}]));
        assert_bad_request(json!([{"op": "move", "path": "/a"}]));
        assert_bad_request(json!([{"op": "copy", "path": "/a"}]));
        assert_bad_request(json!([{"op": "remove", "path": "a"}]));
        assert_bad_request(json!([{"op": "remove", "path": "/a~2"}]));
        assert_bad_request(json!([{"op": "remove", "path": 5}]));
    }

    #[test]
    fn malformed_op_after_valid_ones_applies_nothing() {
        let mut target = json!({"a": 1});
        let result = json_patch(&mut target, &json!([{"op": "remove", "path": "/a"}, {"op": "nope"}]));
        assert!(matches!(result, Err(PatchError::BadRequest(_))));
        assert_eq!(target, json!({"a": 1}));
    }

    #[test]
    fn error_messages_name_the_operation() {
        let result = patched(json!({}), json!([{"op": "remove", "path": "/x"}]));
        assert_eq!(
            result,
            Err(PatchError::Unprocessable(
                "json patch operation 0 (remove) does not apply: path \"/x\" does not exist".to_string()
            ))
        );
        let result = patched(json!({}), json!([{"op": "add", "path": "/x"}]));
        assert_eq!(
            result,
            Err(PatchError::BadRequest("json patch operation 0: missing \"value\" for op \"add\"".to_string()))
        );
    }

    #[test]
    fn empty_patch_is_a_no_op() {
        assert_patched(json!({"a": 1}), json!([]), json!({"a": 1}));
    }

    #[test]
    fn operations_apply_in_sequence() {
        assert_patched(
            json!({"spec": {"replicas": 1}}),
            json!([
                {"op": "add", "path": "/spec/template", "value": {}},
                {"op": "add", "path": "/spec/template/labels", "value": {"a": "b"}},
                {"op": "copy", "from": "/spec/template/labels", "path": "/spec/selector"},
                {"op": "replace", "path": "/spec/replicas", "value": 3}
            ]),
            json!({"spec": {
                "replicas": 3,
                "template": {"labels": {"a": "b"}},
                "selector": {"a": "b"}
            }}),
        );
    }
}
