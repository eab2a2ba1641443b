//! Table-driven decoding of one message into JSON, with apimachinery's special types.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Number, Value};

use super::ProtobufError;
use super::table::{Field, Rule, Type};
use super::wire::{Reader, Wire, utf8};

/// Decodes one message into a JSON object, skipping field numbers its table does not list (newer
/// clients may send fields this server has no use for).
pub fn decode_message(buf: &[u8], table: &[Field]) -> Result<Map<String, Value>, ProtobufError> {
    let mut object = Map::new();
    for item in Reader(buf) {
        let (number, wire) = item?;
        if let Some(field) = table.iter().find(|field| field.number == number) {
            decode_field(field, wire, &mut object)?;
        }
    }
    Ok(object)
}

/// Adds one wire value to the object under construction, according to the field's rule.
fn decode_field(field: &Field, wire: Wire<'_>, object: &mut Map<String, Value>) -> Result<(), ProtobufError> {
    let name = field.name;
    match field.rule {
        Rule::Map => {
            let Wire::Len(entry) = wire else { return Err(ProtobufError::WireType(name)) };
            let (key, value) = decode_map_entry(entry, field)?;
            if let Value::Object(entries) = object.entry(name).or_insert_with(|| Value::Object(Map::new())) {
                entries.insert(key, value);
            }
        }
        Rule::List => {
            if let Some(value) = decode_value(field, wire)?
                && let Value::Array(items) = object.entry(name).or_insert_with(|| Value::Array(Vec::new()))
            {
                items.push(value);
            }
        }
        Rule::OmitEmpty => {
            if let Some(value) = decode_value(field, wire)?.filter(|value| !is_zero(value)) {
                object.insert(name.into(), value);
            }
        }
        // A field Go writes whatever its value: a zero Time or raw JSON it writes as null
        // (a Deployment condition's unset `lastUpdateTime` reads back as null, as from
        // kube-apiserver).
        Rule::Present => {
            object.insert(name.into(), decode_value(field, wire)?.unwrap_or(Value::Null));
        }
        Rule::Inline => {
            if let Some(Value::Object(inlined)) = decode_value(field, wire)? {
                object.extend(inlined);
            }
        }
    }
    Ok(())
}

/// Decodes a map entry {1 key string, 2 value}; a missing value is the zero value of its type.
fn decode_map_entry(entry: &[u8], field: &Field) -> Result<(String, Value), ProtobufError> {
    let mut key = String::new();
    let mut value = None;
    for item in Reader(entry) {
        match item? {
            (1, Wire::Len(bytes)) => key = utf8(bytes)?,
            (1, _) => return Err(ProtobufError::WireType(field.name)),
            (2, wire) => value = decode_value(field, wire)?,
            _ => {}
        }
    }
    let zero = match field.ty {
        Type::Items => Value::Array(Vec::new()),
        Type::Quantity => Value::String("0".into()),
        Type::Message(_) => Value::Object(Map::new()),
        _ => Value::String(String::new()),
    };
    Ok((key, value.unwrap_or(zero)))
}

/// Decodes one value of the field's type; `None` for an empty Time or raw JSON, which Go reads as
/// the zero value and writes as null.
fn decode_value(field: &Field, wire: Wire<'_>) -> Result<Option<Value>, ProtobufError> {
    let value = match (field.ty, wire) {
        (Type::Str, Wire::Len(bytes)) => Value::String(utf8(bytes)?),
        (Type::Bytes, Wire::Len(bytes)) => Value::String(BASE64.encode(bytes)),
        (Type::Bool, Wire::Varint(raw)) => Value::Bool(raw != 0),
        // Reinterpreting the bits is the protobuf rule for int32/int64 (two's complement, sign-extended).
        (Type::Int, Wire::Varint(raw)) => Value::Number(Number::from(raw as i64)),
        (Type::Double, Wire::Fixed64(bits)) => double(f64::from_bits(bits))?,
        (Type::Time, Wire::Len(bytes)) => return decode_time(bytes, Precision::Seconds),
        (Type::MicroTime, Wire::Len(bytes)) => return decode_time(bytes, Precision::Micros),
        (Type::Quantity, Wire::Len(bytes)) => decode_quantity(bytes)?,
        (Type::IntOrString, Wire::Len(bytes)) => decode_int_or_string(bytes)?,
        (Type::RawJson, Wire::Len(bytes)) => return decode_raw_json(bytes),
        (Type::Items, Wire::Len(bytes)) => Value::Array(decode_items(bytes)?),
        (Type::SchemaOrArray(schema), Wire::Len(bytes)) => return decode_schema_or_array(bytes, schema),
        (Type::SchemaOrBool(schema), Wire::Len(bytes)) => decode_schema_or_bool(bytes, schema)?,
        (Type::SchemaOrStringArray(schema), Wire::Len(bytes)) => return decode_schema_or_strings(bytes, schema),
        (Type::Message(table), Wire::Len(bytes)) => Value::Object(decode_message(bytes, table)?),
        _ => return Err(ProtobufError::WireType(field.name)),
    };
    Ok(Some(value))
}

/// A float64 as Go's encoding/json writes it: integral values without a fraction (`5`, not `5.0`).
fn double(value: f64) -> Result<Value, ProtobufError> {
    // Below 2^53 every integral float64 is an exact i64.
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        return Ok(Value::Number(Number::from(value as i64)));
    }
    Number::from_f64(value).map(Value::Number).ok_or(ProtobufError::Malformed("a double is not a finite number"))
}

/// Reads JSONSchemaPropsOrArray {1 schema, 2 jSONSchemas}: the array when it has items, else the
/// schema (Go writes `null` for neither, which the object then leaves out).
fn decode_schema_or_array(buf: &[u8], schema: &[Field]) -> Result<Option<Value>, ProtobufError> {
    let (mut single, mut many) = (None, Vec::new());
    for item in Reader(buf) {
        match item? {
            (1, Wire::Len(bytes)) => single = Some(Value::Object(decode_message(bytes, schema)?)),
            (2, Wire::Len(bytes)) => many.push(Value::Object(decode_message(bytes, schema)?)),
            (1 | 2, _) => return Err(ProtobufError::WireType("items")),
            _ => {}
        }
    }
    Ok(if many.is_empty() { single } else { Some(Value::Array(many)) })
}

/// Reads JSONSchemaPropsOrBool {1 allows, 2 schema}: the schema when set, else the boolean.
fn decode_schema_or_bool(buf: &[u8], schema: &[Field]) -> Result<Value, ProtobufError> {
    let (mut allows, mut single) = (false, None);
    for item in Reader(buf) {
        match item? {
            (1, Wire::Varint(raw)) => allows = raw != 0,
            (2, Wire::Len(bytes)) => single = Some(Value::Object(decode_message(bytes, schema)?)),
            (1 | 2, _) => return Err(ProtobufError::WireType("additionalProperties")),
            _ => {}
        }
    }
    Ok(single.unwrap_or(Value::Bool(allows)))
}

/// Reads JSONSchemaPropsOrStringArray {1 schema, 2 property}: the strings when there are some,
/// else the schema (else `null`, which the object then leaves out).
fn decode_schema_or_strings(buf: &[u8], schema: &[Field]) -> Result<Option<Value>, ProtobufError> {
    let (mut single, mut strings) = (None, Vec::new());
    for item in Reader(buf) {
        match item? {
            (1, Wire::Len(bytes)) => single = Some(Value::Object(decode_message(bytes, schema)?)),
            (2, Wire::Len(bytes)) => strings.push(Value::String(utf8(bytes)?)),
            (1 | 2, _) => return Err(ProtobufError::WireType("dependencies")),
            _ => {}
        }
    }
    Ok(if strings.is_empty() { single } else { Some(Value::Array(strings)) })
}

/// Reads ExtraValue: `repeated string items = 1`.
fn decode_items(buf: &[u8]) -> Result<Vec<Value>, ProtobufError> {
    let mut items = Vec::new();
    for item in Reader(buf) {
        match item? {
            (1, Wire::Len(bytes)) => items.push(Value::String(utf8(bytes)?)),
            (1, _) => return Err(ProtobufError::WireType("items")),
            _ => {}
        }
    }
    Ok(items)
}

/// Reads resource.Quantity {1 string}: the canonical text is the JSON form.
fn decode_quantity(buf: &[u8]) -> Result<Value, ProtobufError> {
    let mut text = String::new();
    for item in Reader(buf) {
        match item? {
            (1, Wire::Len(bytes)) => text = utf8(bytes)?,
            (1, _) => return Err(ProtobufError::WireType("quantity")),
            _ => {}
        }
    }
    // The zero Quantity marshals as "0", as in Go.
    Ok(Value::String(if text.is_empty() { "0".into() } else { text }))
}

/// Reads intstr.IntOrString {1 type (0 int, 1 string), 2 intVal, 3 strVal}.
fn decode_int_or_string(buf: &[u8]) -> Result<Value, ProtobufError> {
    let (mut is_string, mut number, mut text) = (false, 0i64, String::new());
    for item in Reader(buf) {
        match item? {
            (1, Wire::Varint(raw)) => is_string = raw == 1,
            // int32 on the wire, sign-extended like every varint integer.
            (2, Wire::Varint(raw)) => number = raw as i64,
            (3, Wire::Len(bytes)) => text = utf8(bytes)?,
            (1..=3, _) => return Err(ProtobufError::WireType("intOrString")),
            _ => {}
        }
    }
    Ok(if is_string { Value::String(text) } else { Value::Number(Number::from(number)) })
}

/// Reads runtime.RawExtension or meta/v1 FieldsV1 {1 raw}: JSON text that the object embeds.
fn decode_raw_json(buf: &[u8]) -> Result<Option<Value>, ProtobufError> {
    let mut raw: &[u8] = &[];
    for item in Reader(buf) {
        match item? {
            (1, Wire::Len(bytes)) => raw = bytes,
            (1, _) => return Err(ProtobufError::WireType("raw")),
            _ => {}
        }
    }
    if raw.is_empty() {
        return Ok(None);
    }
    serde_json::from_slice(raw).map(Some).map_err(|_| ProtobufError::Malformed("an embedded raw object is not JSON"))
}

/// How many fractional digits a timestamp keeps in JSON.
#[derive(Clone, Copy)]
enum Precision {
    /// meta/v1 Time: whole seconds, as the Go decoder keeps (JSON has no room for nanos).
    Seconds,
    /// meta/v1 MicroTime: `2006-01-02T15:04:05.000000Z`.
    Micros,
}

/// Reads meta/v1 Time or MicroTime {1 seconds int64, 2 nanos int32}.
fn decode_time(buf: &[u8], precision: Precision) -> Result<Option<Value>, ProtobufError> {
    if buf.is_empty() {
        return Ok(None);
    }
    let (mut seconds, mut nanos) = (0i64, 0i64);
    for item in Reader(buf) {
        match item? {
            // Same two's-complement reinterpretation as for Int: pre-1970 times are negative.
            (1, Wire::Varint(raw)) => seconds = raw as i64,
            (2, Wire::Varint(raw)) => nanos = raw as i64,
            (1 | 2, _) => return Err(ProtobufError::WireType("seconds")),
            _ => {}
        }
    }
    let text = rfc3339(seconds)?;
    Ok(Some(Value::String(match precision {
        Precision::Seconds => text,
        Precision::Micros => format!("{}.{:06}Z", text.trim_end_matches('Z'), nanos.clamp(0, 999_999_999) / 1000),
    })))
}

/// Seconds of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: RFC 3339 has four-digit years only.
const RFC3339_SECONDS: std::ops::RangeInclusive<i64> = -62_167_219_200..=253_402_300_799;

/// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`, the form metav1.Time takes in JSON.
pub fn rfc3339(seconds: i64) -> Result<String, ProtobufError> {
    if !RFC3339_SECONDS.contains(&seconds) {
        return Err(ProtobufError::Malformed("a timestamp lies outside years 0000-9999"));
    }
    let (year, month, day) = civil_date(seconds.div_euclid(86_400));
    let time = seconds.rem_euclid(86_400);
    Ok(format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", time / 3600, time / 60 % 60, time % 60))
}

/// Converts days since 1970-01-01 to a proleptic Gregorian (year, month, day). It counts in 400-year
/// eras starting on March 1st, so the leap day falls at the end of each counted year.
fn civil_date(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let march_month = (5 * day_of_year + 2) / 153; // 0 = March … 11 = February
    let day = day_of_year - (153 * march_month + 2) / 5 + 1;
    let month = if march_month < 10 { march_month + 3 } else { march_month - 9 };
    let year = era * 400 + year_of_era + i64::from(month <= 2);
    (year, month, day)
}

/// Go's `omitempty` test for the scalar values this module produces.
fn is_zero(value: &Value) -> bool {
    match value {
        Value::String(text) => text.is_empty(),
        Value::Bool(flag) => !flag,
        Value::Number(number) => number.as_i64() == Some(0),
        Value::Null => true,
        Value::Array(_) | Value::Object(_) => false,
    }
}
