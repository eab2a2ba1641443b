//! ConfigMaps and Secrets: immutability once `immutable: true`, and Secrets' `type`
//! default, `stringData` folded into `data`, and the keys their type requires.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

use super::super::status::Cause;
use super::Strategy;

/// The ConfigMap strategy.
pub struct ConfigMaps;

/// The Secret strategy.
pub struct Secrets;

const IMMUTABLE_WHEN_SET: &str = "Forbidden: field is immutable when `immutable` is set";

/// The data fields of a kind may not change, nor `immutable` be unset, once it is set.
fn immutability(old: &Value, new: &Value, data_fields: &[&str]) -> Vec<Cause> {
    if old["immutable"] != true {
        return Vec::new();
    }
    let mut causes = Vec::new();
    if new["immutable"] != true {
        causes.push(Cause::new("FieldValueForbidden", "immutable", IMMUTABLE_WHEN_SET));
    }
    for field in data_fields {
        if old[*field] != new[*field] {
            causes.push(Cause::new("FieldValueForbidden", *field, IMMUTABLE_WHEN_SET));
        }
    }
    causes
}

impl Strategy for ConfigMaps {
    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutability(old, new, &["data", "binaryData"])
    }
}

/// `stringData` is write-only: its values are encoded into `data` (winning over keys
/// there) and it is never stored.
fn fold_string_data(secret: &mut Value) {
    let Some(map) = secret.as_object_mut() else { return };
    let Some(Value::Object(strings)) = map.remove("stringData") else { return };
    let data = map.entry("data").or_insert_with(|| json!({}));
    if !data.is_object() {
        *data = json!({});
    }
    for (key, value) in strings {
        let text = value.as_str().unwrap_or_default();
        data[key.as_str()] = json!(BASE64.encode(text));
    }
}

fn default_type(secret: &mut Value) {
    if secret["type"].as_str().is_none_or(str::is_empty) {
        secret["type"] = json!("Opaque");
    }
}

/// The keys a Secret type requires in `data`.
fn required_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "kubernetes.io/tls" => &["tls.crt", "tls.key"],
        "kubernetes.io/dockerconfigjson" => &[".dockerconfigjson"],
        "kubernetes.io/dockercfg" => &[".dockercfg"],
        "kubernetes.io/basic-auth" | "kubernetes.io/ssh-auth" | "bootstrap.kubernetes.io/token" => &[],
        _ => &[],
    }
}

impl Strategy for Secrets {
    fn prepare_create(&self, object: &mut Value) {
        fold_string_data(object);
        default_type(object);
    }

    fn prepare_update(&self, _old: &Value, new: &mut Value) {
        fold_string_data(new);
        default_type(new);
    }

    fn validate_create(&self, object: &Value) -> Vec<Cause> {
        let kind = object["type"].as_str().unwrap_or("Opaque");
        required_keys(kind)
            .iter()
            .filter(|key| object["data"].get(**key).is_none())
            .map(|key| Cause::new("FieldValueRequired", format!("data[{key}]"), "Required value"))
            .collect()
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        let mut causes = self.validate_create(new);
        if old["type"] != new["type"] {
            causes.push(Cause::new(
                "FieldValueInvalid",
                "type",
                format!("Invalid value: {}: field is immutable", new["type"]),
            ));
        }
        causes.extend(immutability(old, new, &["data"]));
        causes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_string_data_is_encoded_into_data_and_the_type_defaults_to_opaque() {
        let mut secret = json!({"data": {"a": "eA==", "b": "eQ=="}, "stringData": {"b": "hunter2"}});
        Secrets.prepare_create(&mut secret);
        assert_eq!(secret, json!({"data": {"a": "eA==", "b": "aHVudGVyMg=="}, "type": "Opaque"}));
    }

    #[test]
    fn tls_secrets_need_their_keys_and_types_never_change() {
        let tls = json!({"type": "kubernetes.io/tls", "data": {"tls.crt": "eA=="}});
        let causes = Secrets.validate_create(&tls);
        assert_eq!(causes.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(), ["data[tls.key]"]);
        let causes = Secrets.validate_update(&json!({"type": "Opaque"}), &json!({"type": "other"}));
        assert!(causes.iter().any(|c| c.field == "type" && c.message.contains("immutable")));
    }

    #[test]
    fn immutable_config_maps_keep_their_data_and_stay_immutable() {
        let old = json!({"immutable": true, "data": {"a": "b"}});
        assert!(ConfigMaps.validate_update(&old, &old.clone()).is_empty());
        let changed = json!({"immutable": true, "data": {"a": "c"}});
        assert_eq!(ConfigMaps.validate_update(&old, &changed)[0].field, "data");
        let unset = json!({"immutable": false, "data": {"a": "b"}});
        assert_eq!(ConfigMaps.validate_update(&old, &unset)[0].field, "immutable");
        let mutable = json!({"data": {"a": "b"}});
        assert!(ConfigMaps.validate_update(&mutable, &changed).is_empty());
    }
}
