//! Table-driven encoding of one JSON object into a message: the reverse of [`super::transcode`],
//! from the same tables. What JSON leaves out is left off the wire; for a Go reader an absent
//! value field and a zero one are the same, and an absent pointer is nil, as JSON said.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Value};

use super::table::{Field, Rule, Type};
use super::wire::Writer;

/// Why a JSON object does not fit its message.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// The kind has no protobuf form here (a custom resource, a Table).
    #[error("{kind} in {api_version} has no protobuf form")]
    NoForm {
        /// The object's apiVersion.
        api_version: String,
        /// The object's kind.
        kind: String,
    },
    /// A field holds JSON its type cannot take (a string where a number belongs, …).
    #[error("field {field} does not hold {expected}")]
    Shape {
        /// The JSON name of the field.
        field: &'static str,
        /// What the field's type takes.
        expected: &'static str,
    },
}

/// Encodes the fields of `object` that `table` lists.
pub fn encode_message(object: &Map<String, Value>, table: &[Field]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Writer::default();
    for field in table {
        if let Rule::Inline = field.rule {
            // An inlined struct: its fields are the enclosing object's, its message a nested one.
            let Type::Message(inner) = field.ty else {
                return Err(EncodeError::Shape { field: field.name, expected: "an inlined struct" });
            };
            out.bytes(field.number, &encode_message(object, inner)?);
            continue;
        }
        let Some(value) = object.get(field.name).filter(|value| !value.is_null()) else { continue };
        match field.rule {
            Rule::List => {
                let items = value.as_array().ok_or(EncodeError::Shape { field: field.name, expected: "an array" })?;
                for item in items.iter().filter(|item| !item.is_null()) {
                    encode_value(&mut out, field, item)?;
                }
            }
            Rule::Map => {
                let entries =
                    value.as_object().ok_or(EncodeError::Shape { field: field.name, expected: "an object" })?;
                for (key, item) in entries {
                    let mut entry = Writer::default();
                    entry.bytes(1, key.as_bytes());
                    if !item.is_null() {
                        encode_value(&mut entry, &Field { number: 2, ..*field }, item)?;
                    }
                    out.bytes(field.number, &entry.0);
                }
            }
            Rule::OmitEmpty | Rule::Present | Rule::Inline => encode_value(&mut out, field, value)?,
        }
    }
    Ok(out.0)
}

/// Writes one value of the field's type as field `field.number`.
fn encode_value(out: &mut Writer, field: &Field, value: &Value) -> Result<(), EncodeError> {
    let shape = |expected| EncodeError::Shape { field: field.name, expected };
    let number = field.number;
    match field.ty {
        Type::Str => out.bytes(number, value.as_str().ok_or_else(|| shape("a string"))?.as_bytes()),
        Type::Bytes => {
            let text = value.as_str().ok_or_else(|| shape("base64 text"))?;
            out.bytes(number, &BASE64.decode(text).map_err(|_| shape("base64 text"))?);
        }
        Type::Bool => out.varint(number, i64::from(value.as_bool().ok_or_else(|| shape("a boolean"))?)),
        Type::Int => out.varint(number, value.as_i64().ok_or_else(|| shape("an integer"))?),
        Type::Double => out.double(number, value.as_f64().ok_or_else(|| shape("a number"))?),
        Type::Time | Type::MicroTime => {
            let text = value.as_str().ok_or_else(|| shape("an RFC 3339 time"))?;
            let time: jiff::Timestamp = text.parse().map_err(|_| shape("an RFC 3339 time"))?;
            let mut message = Writer::default();
            message.varint(1, time.as_second());
            // metav1.Time keeps whole seconds; MicroTime its fraction.
            if let Type::MicroTime = field.ty {
                message.varint(2, i64::from(time.subsec_nanosecond()));
            }
            out.bytes(number, &message.0);
        }
        Type::Quantity => {
            // A quantity written as a JSON number (`cpu: 1`) is the same quantity as text.
            let text = match value {
                Value::String(text) => text.clone(),
                Value::Number(number) => number.to_string(),
                _ => return Err(shape("a quantity")),
            };
            let mut message = Writer::default();
            message.bytes(1, text.as_bytes());
            out.bytes(number, &message.0);
        }
        Type::IntOrString => {
            let mut message = Writer::default();
            match value {
                Value::Number(int) => {
                    message.varint(1, 0);
                    message.varint(2, int.as_i64().ok_or_else(|| shape("an integer or a string"))?);
                }
                Value::String(text) => {
                    message.varint(1, 1);
                    message.bytes(3, text.as_bytes());
                }
                _ => return Err(shape("an integer or a string")),
            }
            out.bytes(number, &message.0);
        }
        Type::RawJson => {
            let mut message = Writer::default();
            message.bytes(1, &serde_json::to_vec(value).map_err(|_| shape("JSON"))?);
            out.bytes(number, &message.0);
        }
        Type::Items => {
            let mut message = Writer::default();
            for item in value.as_array().ok_or_else(|| shape("an array of strings"))? {
                message.bytes(1, item.as_str().ok_or_else(|| shape("an array of strings"))?.as_bytes());
            }
            out.bytes(number, &message.0);
        }
        Type::SchemaOrArray(schema) => {
            let mut message = Writer::default();
            match value {
                Value::Array(schemas) => {
                    for item in schemas {
                        message.bytes(2, &encode_message(item.as_object().ok_or_else(|| shape("schemas"))?, schema)?);
                    }
                }
                Value::Object(single) => message.bytes(1, &encode_message(single, schema)?),
                _ => return Err(shape("a schema or an array of schemas")),
            }
            out.bytes(number, &message.0);
        }
        Type::SchemaOrBool(schema) => {
            let mut message = Writer::default();
            match value {
                // Go's unmarshalling of a schema sets `allows` too.
                Value::Object(single) => {
                    message.varint(1, 1);
                    message.bytes(2, &encode_message(single, schema)?);
                }
                Value::Bool(allows) => message.varint(1, i64::from(*allows)),
                _ => return Err(shape("a schema or a boolean")),
            }
            out.bytes(number, &message.0);
        }
        Type::SchemaOrStringArray(schema) => {
            let mut message = Writer::default();
            match value {
                Value::Array(strings) => {
                    for item in strings {
                        message.bytes(2, item.as_str().ok_or_else(|| shape("strings"))?.as_bytes());
                    }
                }
                Value::Object(single) => message.bytes(1, &encode_message(single, schema)?),
                _ => return Err(shape("a schema or an array of strings")),
            }
            out.bytes(number, &message.0);
        }
        Type::Message(table) => {
            out.bytes(number, &encode_message(value.as_object().ok_or_else(|| shape("an object"))?, table)?)
        }
    }
    Ok(())
}
