//! Reading and writing the metadata of objects held as JSON.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::status::Cause;

/// An object's metadata alone: the rest of its JSON is skipped unbuilt.
#[derive(Deserialize)]
pub struct MetadataOnly {
    /// The object's `metadata`.
    pub metadata: Value,
}

/// The object this server serialized, with its metadata alone (`{"metadata": …}`): what
/// selectors on labels and `metadata.` fields, and owner checks, read. A work's or an
/// import secret's body is many times its metadata.
pub fn metadata_only(json: &[u8]) -> Value {
    json!({ "metadata": super::encoding::parse_own::<MetadataOnly>(json).metadata })
}

/// The object's metadata map, created if missing. The object must be a JSON object
/// (request bodies are checked for that before anything else).
pub fn metadata_mut(object: &mut Value) -> &mut Map<String, Value> {
    ensure_object(&mut object["metadata"])
}

/// Turns `value` into an empty object unless it is one, and returns the map.
pub fn ensure_object(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    match value {
        Value::Object(map) => map,
        _ => unreachable!("the value was made an object above"),
    }
}

fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object.get("metadata")?.get(field)?.as_str()
}

/// `metadata.name`.
pub fn name(object: &Value) -> Option<&str> {
    meta_str(object, "name").filter(|n| !n.is_empty())
}

/// `metadata.namespace`.
pub fn namespace(object: &Value) -> Option<&str> {
    meta_str(object, "namespace").filter(|n| !n.is_empty())
}

/// `metadata.uid`.
pub fn uid(object: &Value) -> Option<&str> {
    meta_str(object, "uid")
}

/// `metadata.deletionTimestamp`.
pub fn deletion_timestamp(object: &Value) -> Option<&str> {
    meta_str(object, "deletionTimestamp")
}

/// `metadata.deletionGracePeriodSeconds`: what is left of a deletion's grace period as
/// marked (0 when it names none, as for every deletion but a Pod's).
pub fn deletion_grace_period(object: &Value) -> i64 {
    object["metadata"]["deletionGracePeriodSeconds"].as_i64().unwrap_or(0)
}

/// `metadata.resourceVersion` as a number; `Err` when present but not ours.
pub fn resource_version(object: &Value) -> Result<Option<u64>, String> {
    match meta_str(object, "resourceVersion") {
        None | Some("") => Ok(None),
        Some(rv) => rv.parse().map(Some).map_err(|_| rv.to_string()),
    }
}

/// Stamps `metadata.resourceVersion`.
pub fn set_resource_version(object: &mut Value, rv: u64) {
    metadata_mut(object).insert("resourceVersion".into(), Value::String(rv.to_string()));
}

/// `metadata.finalizers`.
pub fn finalizers(object: &Value) -> Vec<String> {
    object["metadata"]["finalizers"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Replaces `metadata.finalizers` (removing the field when empty, as upstream does).
pub fn set_finalizers(object: &mut Value, finalizers: &[String]) {
    let meta = metadata_mut(object);
    if finalizers.is_empty() {
        meta.remove("finalizers");
    } else {
        meta.insert("finalizers".into(), json!(finalizers));
    }
}

/// Removes empty `labels`, `annotations`, `finalizers` and `ownerReferences`, as Go's
/// `omitempty` does when kube-apiserver stores an object.
pub fn drop_empty_metadata(object: &mut Value) {
    let meta = metadata_mut(object);
    for field in ["labels", "annotations", "finalizers", "ownerReferences"] {
        let empty = match meta.get(field) {
            Some(Value::Object(m)) => m.is_empty(),
            Some(Value::Array(a)) => a.is_empty(),
            Some(Value::Null) => true,
            _ => false,
        };
        if empty {
            meta.remove(field);
        }
    }
}

/// `metadata.labels`.
pub fn labels(object: &Value) -> Option<&Map<String, Value>> {
    object.get("metadata")?.get("labels")?.as_object()
}

/// Owner uids from `metadata.ownerReferences`.
pub fn owner_uids(object: &Value) -> impl Iterator<Item = &str> {
    object["metadata"]["ownerReferences"].as_array().into_iter().flatten().filter_map(|r| r.get("uid")?.as_str())
}

/// The current time as Kubernetes writes `metav1.Time` (RFC 3339, seconds).
pub fn now() -> String {
    time(jiff::Timestamp::now())
}

/// A time as Kubernetes writes `metav1.Time`.
pub fn time(at: jiff::Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A random suffix for `generateName`, from the alphabet upstream uses.
pub fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let bytes = uuid::Uuid::new_v4().into_bytes();
    bytes.iter().take(5).map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char).collect()
}

/// A new object uid.
pub fn new_uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Problems with `name` as a DNS-1123 subdomain (most object names).
pub fn check_subdomain(field: &str, name: &str) -> Option<Cause> {
    let ok = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|part| {
            !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && part.as_bytes().first().is_some_and(u8::is_ascii_alphanumeric)
                && part.as_bytes().last().is_some_and(u8::is_ascii_alphanumeric)
        });
    (!ok).then(|| {
        Cause::new(
            "FieldValueInvalid",
            field,
            format!(
                "Invalid value: \"{name}\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ),
        )
    })
}

/// Problems with `name` as a DNS-1123 label (namespace names).
pub fn check_label(field: &str, name: &str) -> Option<Cause> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && name.as_bytes().first().is_some_and(u8::is_ascii_alphanumeric)
        && name.as_bytes().last().is_some_and(u8::is_ascii_alphanumeric);
    (!ok).then(|| {
        Cause::new(
            "FieldValueInvalid",
            field,
            format!(
                "Invalid value: \"{name}\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ),
        )
    })
}

/// Problems with a path-segment name (RBAC objects allow any name usable in a path).
pub fn check_path_segment(field: &str, name: &str) -> Option<Cause> {
    let bad = name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('%');
    bad.then(|| {
        Cause::new("FieldValueInvalid", field, format!("Invalid value: \"{name}\": may not contain '/' or '%'"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_upstream() {
        assert!(check_subdomain("metadata.name", "a.b-c").is_none());
        assert!(check_subdomain("metadata.name", "A").is_some());
        assert!(check_subdomain("metadata.name", "-a").is_some());
        assert!(check_label("metadata.name", "a.b").is_some());
        assert!(check_label("metadata.name", "cluster1").is_none());
        assert!(check_path_segment("metadata.name", "system:node:x").is_none());
    }

    #[test]
    fn generated_suffixes_use_the_upstream_alphabet() {
        let s = random_suffix();
        assert_eq!(s.len(), 5);
        assert!(s.bytes().all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)));
    }

    #[test]
    fn timestamps_are_rfc3339_seconds() {
        let t = now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z'));
    }
}
