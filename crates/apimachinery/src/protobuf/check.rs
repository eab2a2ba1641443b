//! Checks the generated tables against the two independent descriptions of the API that kube-rs
//! ships: k8s-pb's prost types (field numbers and wire types) and k8s-openapi's serde types (JSON
//! names). For each kind, a message with every field of the table set is decoded three ways.

use serde_json::Value;

use super::decode;
use super::table::{Field, Rule, Type};
use super::tests::{body_of, double, int, len, message, string};

/// The tables of the messages being sampled, outermost first: a recursive message
/// (JSONSchemaProps) is sampled once, its own fields of its type left out below it.
type Path = Vec<*const Field>;

/// A sample value of every field of the table, each non-zero so that no rule drops it.
fn sample(table: &'static [Field], path: &mut Path) -> Vec<u8> {
    path.push(table.as_ptr());
    let mut out = Vec::new();
    for field in table.iter().filter(|field| !recurses(field.ty, path)).collect::<Vec<_>>() {
        out.extend(sample_field(field, path));
    }
    path.pop();
    out
}

fn recurses(ty: Type, path: &Path) -> bool {
    match ty {
        Type::Message(table)
        | Type::SchemaOrArray(table)
        | Type::SchemaOrBool(table)
        | Type::SchemaOrStringArray(table) => path.contains(&table.as_ptr()),
        _ => false,
    }
}

fn sample_field(field: &Field, path: &mut Path) -> Vec<u8> {
    let mut value = |number: u32| sample_value(number, field.ty, path);
    match field.rule {
        Rule::Map => {
            let value = value(2);
            message(field.number, &[string(1, "key"), value])
        }
        // Two items show that repeated fields accumulate.
        Rule::List => [value(field.number), value(field.number)].concat(),
        Rule::OmitEmpty | Rule::Present | Rule::Inline => value(field.number),
    }
}

fn sample_value(number: u32, ty: Type, path: &mut Path) -> Vec<u8> {
    match ty {
        Type::Str => string(number, "text"),
        Type::Bytes => len(number, &[0xff, 0x00, 0x01]),
        Type::Bool => int(number, 1),
        Type::Int => int(number, 7),
        Type::Double => double(number, 2.5),
        Type::Time => message(number, &[int(1, 1_704_164_645)]),
        Type::MicroTime => message(number, &[int(1, 1_704_164_645), int(2, 123_456_000)]),
        Type::Quantity => message(number, &[string(1, "5Mi")]),
        Type::IntOrString => message(number, &[int(1, 1), string(3, "25%")]),
        Type::RawJson => message(number, &[string(1, r#"{"a":{"b":1}}"#)]),
        Type::Items => message(number, &[string(1, "x"), string(1, "y")]),
        Type::SchemaOrArray(schema) => {
            let one = sample(schema, path);
            message(number, &[len(2, &one), len(2, &one)])
        }
        Type::SchemaOrBool(schema) => message(number, &[int(1, 1), len(2, &sample(schema, path))]),
        Type::SchemaOrStringArray(_) => message(number, &[string(2, "a"), string(2, "b")]),
        Type::Message(table) => len(number, &sample(table, path)),
    }
}

/// The table of `kind` decodes a full sample the same as the k8s-pb type re-encodes it, and the
/// JSON it gives survives a round trip through the k8s-openapi type unchanged.
pub fn check_kind<P, O>(api_version: &str, kind: &str)
where
    P: prost::Message + Default,
    O: serde::de::DeserializeOwned + serde::Serialize,
{
    let table = super::message_table(api_version, kind).unwrap_or_else(|e| panic!("{kind}: {e}"));
    let raw = sample(table, &mut Vec::new());
    let ours = decode(&body_of(api_version, kind, &raw)).unwrap_or_else(|e| panic!("{kind}: {e}"));

    // A field number k8s-pb does not know is dropped on re-encoding; a wrong wire type fails decoding.
    let typed = P::decode(raw.as_slice()).unwrap_or_else(|e| panic!("{kind}: k8s-pb cannot read the sample: {e}"));
    let reencoded = decode(&body_of(api_version, kind, &typed.encode_to_vec())).expect("re-encoded body decodes");
    assert_json_eq(kind, "k8s-pb", &ours, &reencoded);

    // A JSON name k8s-openapi does not know is dropped on deserializing.
    let openapi: O = serde_json::from_value(ours.clone()).unwrap_or_else(|e| panic!("{kind}: k8s-openapi: {e}"));
    let reserialized = serde_json::to_value(openapi).expect("serializes");
    assert_json_eq(kind, "k8s-openapi", &ours, &reserialized);

    // The encoder writes what the decoder reads: one table, both directions.
    let encoded = super::encode(&ours).unwrap_or_else(|e| panic!("{kind}: encoding: {e}"));
    let decoded = decode(&encoded).unwrap_or_else(|e| panic!("{kind}: decoding the encoded body: {e}"));
    assert_json_eq(kind, "its own encoding", &ours, &decoded);
}

/// Equality with a message naming the first path that differs (the whole objects are large).
fn assert_json_eq(kind: &str, against: &str, ours: &Value, theirs: &Value) {
    if let Some(path) = first_difference(ours, theirs, String::new()) {
        panic!("{kind}: the table disagrees with {against} at {path}");
    }
}

fn first_difference(a: &Value, b: &Value, path: String) -> Option<String> {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .find_map(|(key, value)| match b.get(key) {
                Some(other) => first_difference(value, other, format!("{path}.{key}")),
                None => Some(format!("{path}.{key} (only in the table's JSON)")),
            })
            // k8s-openapi writes apiVersion and kind on every object of a Resource type, nested ones
            // too (a StatefulSet's volumeClaimTemplates), where Go leaves the empty TypeMeta out.
            .or_else(|| {
                let nested_type_meta = |key: &str| !path.is_empty() && matches!(key, "apiVersion" | "kind");
                b.keys()
                    .find(|key| !a.contains_key(*key) && !nested_type_meta(key))
                    .map(|key| format!("{path}.{key} (missing)"))
            }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(i, (a, b))| first_difference(a, b, format!("{path}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{path} ({a} vs {b})")),
    }
}
