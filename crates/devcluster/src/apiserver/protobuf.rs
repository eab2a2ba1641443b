//! Decoder for the Kubernetes protobuf request bodies that kubectl sends.
//!
//! kubectl prefers `application/vnd.kubernetes.protobuf` for the built-in kinds it creates itself
//! (`create namespace|configmap|secret|serviceaccount|token`, `auth can-i`, `certificate approve|deny`).
//! Rather than generating code for the whole API, this module knows only those kinds: a generic
//! wire-format reader walks the message and a per-message field table (numbers and types checked
//! against the upstream `generated.proto` files) says how each field maps onto the JSON form the same
//! request would have carried, so the rest of the server only ever sees JSON.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Map, Number, Value};

/// The four bytes that open every Kubernetes protobuf body, ahead of the `runtime.Unknown` envelope.
const MAGIC: &[u8] = b"k8s\0";

/// Why a protobuf body could not be turned into JSON.
#[derive(Debug, thiserror::Error)]
pub enum ProtobufError {
    /// The body lacks the `k8s\0` prefix, so it is not a Kubernetes protobuf body at all.
    #[error("the protobuf body does not start with the Kubernetes magic prefix k8s\\0")]
    MissingMagic,
    /// The bytes break the protobuf wire format (truncation, bad lengths, invalid UTF-8, …).
    #[error("malformed protobuf body: {0}")]
    Malformed(&'static str),
    /// A known field arrived with a wire type its declared type cannot have.
    #[error("malformed protobuf body: field {0} has the wrong wire type")]
    WireType(&'static str),
    /// The envelope names no kind, so there is no way to know which message the body holds.
    #[error("the protobuf body names no kind in its type metadata: send JSON (application/json)")]
    MissingKind,
    /// The body holds a kind this decoder does not know.
    #[error("protobuf bodies of kind {kind} are not supported: send JSON (application/json)")]
    UnsupportedKind {
        /// The kind named by the envelope.
        kind: String,
    },
    /// The kind is known, but not in the API version the envelope names.
    #[error("protobuf bodies of kind {kind} in {api_version} are not supported: send JSON (application/json)")]
    UnsupportedVersion {
        /// The kind named by the envelope.
        kind: String,
        /// The API version named by the envelope.
        api_version: String,
    },
    /// The envelope says its payload is compressed or not protobuf.
    #[error("protobuf bodies with {0} are not supported: send JSON (application/json)")]
    UnsupportedContent(String),
}

impl ProtobufError {
    /// True when the body was readable but of a kind or encoding this decoder does not handle (fits a
    /// 415), false when the body itself is broken (fits a 400).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Self::UnsupportedKind { .. } | Self::UnsupportedVersion { .. } | Self::UnsupportedContent(_))
    }
}

/// Decodes a Kubernetes protobuf body (the `k8s\0` envelope around `runtime.Unknown`) into the JSON
/// object the same request would have carried as JSON (`apiVersion`, `kind`, `metadata`, `spec`, …).
pub fn decode(body: &[u8]) -> Result<Value, ProtobufError> {
    let envelope = Envelope::parse(body.strip_prefix(MAGIC).ok_or(ProtobufError::MissingMagic)?)?;
    let table = message_table(&envelope.api_version, &envelope.kind)?;
    let mut object = Map::new();
    object.insert("apiVersion".into(), Value::String(envelope.api_version));
    object.insert("kind".into(), Value::String(envelope.kind));
    // The object message itself carries no type metadata; that lives only in the envelope.
    object.extend(decode_message(envelope.raw, table)?);
    Ok(Value::Object(object))
}

/// The parts of `runtime.Unknown` the decoder needs.
struct Envelope<'a> {
    api_version: String,
    kind: String,
    raw: &'a [u8],
}

impl<'a> Envelope<'a> {
    /// Reads `runtime.Unknown`: 1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType.
    fn parse(buf: &'a [u8]) -> Result<Self, ProtobufError> {
        let mut envelope = Envelope { api_version: String::new(), kind: String::new(), raw: &[] };
        for field in Reader(buf) {
            match field? {
                (1, Wire::Len(type_meta)) => {
                    for inner in Reader(type_meta) {
                        match inner? {
                            (1, Wire::Len(bytes)) => envelope.api_version = utf8(bytes)?,
                            (2, Wire::Len(bytes)) => envelope.kind = utf8(bytes)?,
                            _ => {}
                        }
                    }
                }
                (2, Wire::Len(raw)) => envelope.raw = raw,
                // kubectl writes both as empty strings; anything else means raw is not plain protobuf.
                (3, Wire::Len(bytes)) if !bytes.is_empty() => {
                    return Err(ProtobufError::UnsupportedContent(format!("content encoding {:?}", utf8(bytes)?)));
                }
                (4, Wire::Len(bytes)) if !bytes.is_empty() && bytes != b"application/vnd.kubernetes.protobuf" => {
                    return Err(ProtobufError::UnsupportedContent(format!("content type {:?}", utf8(bytes)?)));
                }
                _ => {}
            }
        }
        if envelope.kind.is_empty() {
            return Err(ProtobufError::MissingKind);
        }
        Ok(envelope)
    }
}

/// Finds the field table for a kind, telling an unknown kind apart from a known kind in another version.
fn message_table(api_version: &str, kind: &str) -> Result<&'static [Field], ProtobufError> {
    let mut same_kind = KINDS.iter().filter(|(_, known_kind, _)| *known_kind == kind).peekable();
    if same_kind.peek().is_none() {
        return Err(ProtobufError::UnsupportedKind { kind: kind.to_owned() });
    }
    same_kind
        .find(|(known_version, _, _)| *known_version == api_version)
        .map(|(_, _, table)| *table)
        .ok_or_else(|| ProtobufError::UnsupportedVersion { kind: kind.to_owned(), api_version: api_version.to_owned() })
}

// ---------------------------------------------------------------------------------------------------
// Wire format
// ---------------------------------------------------------------------------------------------------

/// One field value as it sits on the wire.
enum Wire<'a> {
    Varint(u64),
    Len(&'a [u8]),
    /// A fixed32 or fixed64 value: no Kubernetes field this module reads uses them, so only skipped.
    Fixed,
}

/// Iterates over the `(field number, value)` pairs of one message; stops after the first error.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, ProtobufError> {
        let mut value = 0u64;
        // A u64 takes at most ten 7-bit groups; a longer run is corrupt, not just large.
        for (index, &byte) in self.0.iter().enumerate().take(10) {
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte & 0x80 == 0 {
                self.0 = &self.0[index + 1..];
                return Ok(value);
            }
        }
        Err(ProtobufError::Malformed("truncated or overlong varint"))
    }

    fn take(&mut self, len: u64) -> Result<&'a [u8], ProtobufError> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&len| len <= self.0.len())
            .ok_or(ProtobufError::Malformed("a length runs past the end of its message"))?;
        let (head, tail) = self.0.split_at(len);
        self.0 = tail;
        Ok(head)
    }

    fn field(&mut self) -> Result<(u32, Wire<'a>), ProtobufError> {
        let key = self.varint()?;
        let number = u32::try_from(key >> 3)
            .ok()
            .filter(|&number| number != 0)
            .ok_or(ProtobufError::Malformed("invalid field number"))?;
        let value = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => self.take(8).map(|_| Wire::Fixed)?,
            2 => {
                let len = self.varint()?;
                Wire::Len(self.take(len)?)
            }
            5 => self.take(4).map(|_| Wire::Fixed)?,
            // Wire types 3 and 4 are proto2 groups, which generated Kubernetes messages never use.
            _ => return Err(ProtobufError::Malformed("unsupported wire type")),
        };
        Ok((number, value))
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<(u32, Wire<'a>), ProtobufError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.0 = &[];
        }
        Some(field)
    }
}

fn utf8(bytes: &[u8]) -> Result<String, ProtobufError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ProtobufError::Malformed("a string field is not valid UTF-8"))
}

// ---------------------------------------------------------------------------------------------------
// Field tables
// ---------------------------------------------------------------------------------------------------

/// How a field's value is read and written as JSON.
#[derive(Clone, Copy)]
enum Type {
    Str,
    /// Bytes, written as standard base64 as Go's encoding/json does for `[]byte`.
    Bytes,
    Bool,
    /// Any varint integer (int32 or int64): negative int32s are sign-extended to ten bytes on the wire.
    Int,
    /// meta/v1 Time {1 seconds int64, 2 nanos int32}, written as RFC 3339 in whole seconds.
    Time,
    /// A message holding only `repeated string items = 1` (ExtraValue), written as a bare array.
    Items,
    Message(&'static [Field]),
}

/// How a field maps onto JSON, mirroring the Go struct field's shape and `omitempty`.
#[derive(Clone, Copy)]
enum Rule {
    /// A value field with `omitempty`: left out when zero. The Go encoder writes these even when empty.
    OmitEmpty,
    /// A pointer, a struct, or a field without `omitempty`: written whenever it is on the wire.
    Present,
    /// A repeated field: a JSON array, left out when empty.
    List,
    /// A `map<string, T>` (repeated entries {1 key, 2 value}): a JSON object, left out when empty.
    Map,
}

/// One entry of a message table.
struct Field {
    number: u32,
    name: &'static str,
    ty: Type,
    rule: Rule,
}

const fn omit(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::OmitEmpty }
}

const fn keep(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::Present }
}

const fn list(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::List }
}

const fn map(number: u32, name: &'static str, ty: Type) -> Field {
    Field { number, name, ty, rule: Rule::Map }
}

use Type::{Bool, Bytes, Int, Items, Message, Str, Time};

/// The kinds this decoder reads: (apiVersion, kind, top-level message table).
const KINDS: &[(&str, &str, &[Field])] = &[
    ("v1", "Namespace", NAMESPACE),
    ("v1", "ConfigMap", CONFIG_MAP),
    ("v1", "Secret", SECRET),
    ("v1", "ServiceAccount", SERVICE_ACCOUNT),
    ("authentication.k8s.io/v1", "TokenRequest", TOKEN_REQUEST),
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview", SELF_SUBJECT_ACCESS_REVIEW),
    ("authentication.k8s.io/v1", "SelfSubjectReview", SELF_SUBJECT_REVIEW),
    ("certificates.k8s.io/v1", "CertificateSigningRequest", CERTIFICATE_SIGNING_REQUEST),
];

// apimachinery pkg/apis/meta/v1/generated.proto. managedFields (17) is skipped: clients do not send it
// on create, and the server owns it anyway.
const OBJECT_META: &[Field] = &[
    omit(1, "name", Str),
    omit(2, "generateName", Str),
    omit(3, "namespace", Str),
    omit(4, "selfLink", Str),
    omit(5, "uid", Str),
    omit(6, "resourceVersion", Str),
    omit(7, "generation", Int),
    omit(8, "creationTimestamp", Time),
    keep(9, "deletionTimestamp", Time),
    keep(10, "deletionGracePeriodSeconds", Int),
    map(11, "labels", Str),
    map(12, "annotations", Str),
    list(13, "ownerReferences", Message(OWNER_REFERENCE)),
    list(14, "finalizers", Str),
];

const OWNER_REFERENCE: &[Field] = &[
    keep(5, "apiVersion", Str),
    keep(1, "kind", Str),
    keep(3, "name", Str),
    keep(4, "uid", Str),
    keep(6, "controller", Bool),
    keep(7, "blockOwnerDeletion", Bool),
];

// api core/v1/generated.proto.
const NAMESPACE: &[Field] = &[
    keep(1, "metadata", Message(OBJECT_META)),
    keep(2, "spec", Message(&[list(1, "finalizers", Str)])),
    keep(3, "status", Message(&[omit(1, "phase", Str), list(2, "conditions", Message(NAMESPACE_CONDITION))])),
];

const NAMESPACE_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(2, "status", Str),
    omit(4, "lastTransitionTime", Time),
    omit(5, "reason", Str),
    omit(6, "message", Str),
];

const CONFIG_MAP: &[Field] = &[
    keep(1, "metadata", Message(OBJECT_META)),
    keep(4, "immutable", Bool),
    map(2, "data", Str),
    map(3, "binaryData", Bytes),
];

const SECRET: &[Field] = &[
    keep(1, "metadata", Message(OBJECT_META)),
    keep(5, "immutable", Bool),
    map(2, "data", Bytes),
    map(4, "stringData", Str),
    omit(3, "type", Str),
];

const SERVICE_ACCOUNT: &[Field] = &[
    keep(1, "metadata", Message(OBJECT_META)),
    list(2, "secrets", Message(OBJECT_REFERENCE)),
    list(3, "imagePullSecrets", Message(&[omit(1, "name", Str)])),
    keep(4, "automountServiceAccountToken", Bool),
];

const OBJECT_REFERENCE: &[Field] = &[
    omit(1, "kind", Str),
    omit(2, "namespace", Str),
    omit(3, "name", Str),
    omit(4, "uid", Str),
    omit(5, "apiVersion", Str),
    omit(6, "resourceVersion", Str),
    omit(7, "fieldPath", Str),
];

// api authentication/v1/generated.proto. spec.attestations (5) is skipped: kubectl 1.32 cannot send it.
// authentication/v1 SelfSubjectReview {1 metadata, 2 status}: `kubectl auth whoami` sends it empty.
const SELF_SUBJECT_REVIEW: &[Field] = &[keep(1, "metadata", Message(OBJECT_META))];

const TOKEN_REQUEST: &[Field] = &[
    keep(1, "metadata", Message(OBJECT_META)),
    keep(2, "spec", Message(TOKEN_REQUEST_SPEC)),
    keep(3, "status", Message(&[keep(1, "token", Str), omit(2, "expirationTimestamp", Time)])),
];

const TOKEN_REQUEST_SPEC: &[Field] = &[
    list(1, "audiences", Str),
    keep(4, "expirationSeconds", Int),
    keep(3, "boundObjectRef", Message(BOUND_OBJECT_REFERENCE)),
];

// The proto field is named uID, but the JSON name is uid.
const BOUND_OBJECT_REFERENCE: &[Field] =
    &[omit(1, "kind", Str), omit(2, "apiVersion", Str), omit(3, "name", Str), omit(4, "uid", Str)];

// api authorization/v1/generated.proto.
const SELF_SUBJECT_ACCESS_REVIEW: &[Field] = &[
    keep(1, "metadata", Message(OBJECT_META)),
    keep(2, "spec", Message(SELF_SUBJECT_ACCESS_REVIEW_SPEC)),
    keep(3, "status", Message(SUBJECT_ACCESS_REVIEW_STATUS)),
];

const SELF_SUBJECT_ACCESS_REVIEW_SPEC: &[Field] = &[
    keep(1, "resourceAttributes", Message(RESOURCE_ATTRIBUTES)),
    keep(2, "nonResourceAttributes", Message(&[omit(1, "path", Str), omit(2, "verb", Str)])),
];

const RESOURCE_ATTRIBUTES: &[Field] = &[
    omit(1, "namespace", Str),
    omit(2, "verb", Str),
    omit(3, "group", Str),
    omit(4, "version", Str),
    omit(5, "resource", Str),
    omit(6, "subresource", Str),
    omit(7, "name", Str),
    keep(8, "fieldSelector", Message(SELECTOR_ATTRIBUTES)),
    keep(9, "labelSelector", Message(SELECTOR_ATTRIBUTES)),
];

// FieldSelectorAttributes and LabelSelectorAttributes share one layout, as do their requirements
// (meta/v1 FieldSelectorRequirement and LabelSelectorRequirement).
const SELECTOR_ATTRIBUTES: &[Field] = &[omit(1, "rawSelector", Str), list(2, "requirements", Message(REQUIREMENT))];

const REQUIREMENT: &[Field] = &[keep(1, "key", Str), keep(2, "operator", Str), list(3, "values", Str)];

const SUBJECT_ACCESS_REVIEW_STATUS: &[Field] =
    &[keep(1, "allowed", Bool), omit(4, "denied", Bool), omit(2, "reason", Str), omit(3, "evaluationError", Str)];

// api certificates/v1/generated.proto.
const CERTIFICATE_SIGNING_REQUEST: &[Field] = &[
    keep(1, "metadata", Message(OBJECT_META)),
    keep(2, "spec", Message(CSR_SPEC)),
    keep(3, "status", Message(&[list(1, "conditions", Message(CSR_CONDITION)), omit(2, "certificate", Bytes)])),
];

const CSR_SPEC: &[Field] = &[
    keep(1, "request", Bytes),
    keep(7, "signerName", Str),
    keep(8, "expirationSeconds", Int),
    list(5, "usages", Str),
    omit(2, "username", Str),
    omit(3, "uid", Str),
    list(4, "groups", Str),
    map(6, "extra", Items),
];

const CSR_CONDITION: &[Field] = &[
    keep(1, "type", Str),
    keep(6, "status", Str),
    omit(2, "reason", Str),
    omit(3, "message", Str),
    omit(4, "lastUpdateTime", Time),
    omit(5, "lastTransitionTime", Time),
];

// ---------------------------------------------------------------------------------------------------
// Table-driven decoding
// ---------------------------------------------------------------------------------------------------

/// Decodes one message into a JSON object, skipping field numbers its table does not list (newer
/// clients may send fields this server has no use for).
fn decode_message(buf: &[u8], table: &[Field]) -> Result<Map<String, Value>, ProtobufError> {
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
        Rule::Present => {
            if let Some(value) = decode_value(field, wire)? {
                object.insert(name.into(), value);
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
        Items => Value::Array(Vec::new()),
        _ => Value::String(String::new()),
    };
    Ok((key, value.unwrap_or(zero)))
}

/// Decodes one value of the field's type; `None` for an empty Time, which Go reads as the zero time
/// and writes as null.
fn decode_value(field: &Field, wire: Wire<'_>) -> Result<Option<Value>, ProtobufError> {
    let value = match (field.ty, wire) {
        (Str, Wire::Len(bytes)) => Value::String(utf8(bytes)?),
        (Bytes, Wire::Len(bytes)) => Value::String(BASE64.encode(bytes)),
        (Bool, Wire::Varint(raw)) => Value::Bool(raw != 0),
        // Reinterpreting the bits is the protobuf rule for int32/int64 (two's complement, sign-extended).
        (Int, Wire::Varint(raw)) => Value::Number(Number::from(raw as i64)),
        (Time, Wire::Len(bytes)) => return decode_time(bytes),
        (Items, Wire::Len(bytes)) => Value::Array(decode_items(bytes)?),
        (Message(table), Wire::Len(bytes)) => Value::Object(decode_message(bytes, table)?),
        _ => return Err(ProtobufError::WireType(field.name)),
    };
    Ok(Some(value))
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

/// Reads meta/v1 Time. Like the Go decoder, it keeps whole seconds only (JSON has no room for nanos).
fn decode_time(buf: &[u8]) -> Result<Option<Value>, ProtobufError> {
    if buf.is_empty() {
        return Ok(None);
    }
    let mut seconds = 0i64;
    for item in Reader(buf) {
        match item? {
            // Same two's-complement reinterpretation as for Int: pre-1970 times are negative.
            (1, Wire::Varint(raw)) => seconds = raw as i64,
            (1, _) => return Err(ProtobufError::WireType("seconds")),
            _ => {}
        }
    }
    rfc3339(seconds).map(|text| Some(Value::String(text)))
}

/// Seconds of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: RFC 3339 has four-digit years only.
const RFC3339_SECONDS: std::ops::RangeInclusive<i64> = -62_167_219_200..=253_402_300_799;

/// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`, the form metav1.Time takes in JSON.
fn rfc3339(seconds: i64) -> Result<String, ProtobufError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // A tiny encoder, enough to build the messages under test by hand.

    fn varint(mut value: u64, out: &mut Vec<u8>) {
        while value >= 0x80 {
            out.push((value as u8) | 0x80);
            value >>= 7;
        }
        out.push(value as u8);
    }

    fn key(number: u32, wire_type: u8) -> Vec<u8> {
        let mut out = Vec::new();
        varint(u64::from(number) << 3 | u64::from(wire_type), &mut out);
        out
    }

    /// A length-delimited field (string, bytes, embedded message, map entry).
    fn len(number: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = key(number, 2);
        varint(payload.len() as u64, &mut out);
        out.extend_from_slice(payload);
        out
    }

    fn string(number: u32, text: &str) -> Vec<u8> {
        len(number, text.as_bytes())
    }

    fn int(number: u32, value: i64) -> Vec<u8> {
        let mut out = key(number, 0);
        varint(value as u64, &mut out);
        out
    }

    fn message(number: u32, fields: &[Vec<u8>]) -> Vec<u8> {
        len(number, &fields.concat())
    }

    fn entry(number: u32, map_key: &str, value: &[u8]) -> Vec<u8> {
        message(number, &[string(1, map_key), len(2, value)])
    }

    fn time(number: u32, seconds: i64) -> Vec<u8> {
        message(number, &[int(1, seconds), int(2, 0)])
    }

    /// The `k8s\0` prefix plus runtime.Unknown, the way kubectl frames a body.
    fn body(api_version: &str, kind: &str, fields: &[Vec<u8>]) -> Vec<u8> {
        let type_meta = message(1, &[string(1, api_version), string(2, kind)]);
        [MAGIC.to_vec(), type_meta, message(2, fields), string(3, ""), string(4, "")].concat()
    }

    fn hex(text: &str) -> Vec<u8> {
        let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
        digits
            .chunks(2)
            .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).expect("ascii"), 16).expect("hex digit"))
            .collect()
    }

    /// ObjectMeta the way Go writes it for a new object: every string present, even when empty.
    fn new_meta(name: &str) -> Vec<u8> {
        message(
            1,
            &[
                string(1, name),
                string(2, ""),
                string(3, ""),
                string(4, ""),
                string(5, ""),
                string(6, ""),
                int(7, 0),
                len(8, &[]),
            ],
        )
    }

    #[test]
    fn namespace_with_full_object_meta() {
        let meta = message(
            1,
            &[
                string(1, "team-a"),
                string(2, "team-"),
                string(3, ""),
                string(5, "0b5e"),
                string(6, "42"),
                int(7, 3),
                time(8, 1_704_164_645),
                time(9, 1_704_164_700),
                int(10, 0),
                entry(11, "env", b"prod"),
                entry(11, "tier", b"web"),
                entry(12, "note", b"hi"),
                message(
                    13,
                    &[string(5, "apps/v1"), string(1, "Deployment"), string(3, "web"), string(4, "u-1"), int(6, 1)],
                ),
                string(14, "a/b"),
                string(14, "c/d"),
                message(17, &[string(1, "kubectl")]),
            ],
        );
        let spec = message(2, &[string(1, "kubernetes")]);
        let status = message(3, &[string(1, "Active")]);
        let decoded = decode(&body("v1", "Namespace", &[meta, spec, status])).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {
                    "name": "team-a",
                    "generateName": "team-",
                    "uid": "0b5e",
                    "resourceVersion": "42",
                    "generation": 3,
                    "creationTimestamp": "2024-01-02T03:04:05Z",
                    "deletionTimestamp": "2024-01-02T03:05:00Z",
                    "deletionGracePeriodSeconds": 0,
                    "labels": {"env": "prod", "tier": "web"},
                    "annotations": {"note": "hi"},
                    "ownerReferences": [
                        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u-1", "controller": true}
                    ],
                    "finalizers": ["a/b", "c/d"],
                },
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            })
        );
    }

    #[test]
    fn config_map_with_binary_data_and_immutable_false() {
        let fields =
            [new_meta("cfg"), entry(2, "a", b"b"), entry(2, "empty", b""), entry(3, "bin", &[0xff, 0, 1]), int(4, 0)];
        let decoded = decode(&body("v1", "ConfigMap", &fields)).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "cfg"},
                "data": {"a": "b", "empty": ""},
                "binaryData": {"bin": "/wAB"},
                "immutable": false,
            })
        );
    }

    #[test]
    fn secret_data_is_base64() {
        let fields = [
            new_meta("s"),
            entry(2, "k", b"v"),
            message(2, &[string(1, "no-value")]),
            string(3, "kubernetes.io/basic-auth"),
            entry(4, "plain", b"text"),
            int(5, 1),
        ];
        let decoded = decode(&body("v1", "Secret", &fields)).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": "s"},
                "data": {"k": "dg==", "no-value": ""},
                "stringData": {"plain": "text"},
                "type": "kubernetes.io/basic-auth",
                "immutable": true,
            })
        );
    }

    #[test]
    fn service_account_references() {
        let secret_ref = message(
            2,
            &[
                string(1, "Secret"),
                string(2, "default"),
                string(3, "tok"),
                string(4, ""),
                string(5, "v1"),
                string(6, ""),
                string(7, ""),
            ],
        );
        let fields = [new_meta("robot"), secret_ref, message(3, &[string(1, "registry")]), int(4, 0)];
        let decoded = decode(&body("v1", "ServiceAccount", &fields)).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": "robot"},
                "secrets": [{"kind": "Secret", "namespace": "default", "name": "tok", "apiVersion": "v1"}],
                "imagePullSecrets": [{"name": "registry"}],
                "automountServiceAccountToken": false,
            })
        );
    }

    #[test]
    fn token_request_spec() {
        let bound = message(3, &[string(1, "Pod"), string(2, "v1"), string(3, "web-0"), string(4, "p-1")]);
        let spec = message(2, &[string(1, "api"), string(1, "vault"), bound, int(4, 3600)]);
        let fields = [new_meta(""), spec, message(3, &[string(1, ""), len(2, &[])])];
        let decoded = decode(&body("authentication.k8s.io/v1", "TokenRequest", &fields)).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "metadata": {},
                "spec": {
                    "audiences": ["api", "vault"],
                    "expirationSeconds": 3600,
                    "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web-0", "uid": "p-1"},
                },
                "status": {"token": ""},
            })
        );
    }

    #[test]
    fn self_subject_access_review_resource_attributes() {
        let requirement = message(2, &[string(1, "app"), string(2, "In"), string(3, "web"), string(3, "db")]);
        let attributes = message(
            1,
            &[
                string(1, "prod"),
                string(2, "get"),
                string(3, "apps"),
                string(4, "v1"),
                string(5, "deployments"),
                string(6, "scale"),
                string(7, "web"),
                message(8, &[string(1, "metadata.name=web")]),
                message(9, &[string(1, ""), requirement]),
            ],
        );
        let status = message(3, &[int(1, 0), string(2, ""), string(3, ""), int(4, 0)]);
        let fields = [new_meta(""), message(2, &[attributes]), status];
        let decoded = decode(&body("authorization.k8s.io/v1", "SelfSubjectAccessReview", &fields)).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "metadata": {},
                "spec": {"resourceAttributes": {
                    "namespace": "prod",
                    "verb": "get",
                    "group": "apps",
                    "version": "v1",
                    "resource": "deployments",
                    "subresource": "scale",
                    "name": "web",
                    "fieldSelector": {"rawSelector": "metadata.name=web"},
                    "labelSelector": {"requirements": [{"key": "app", "operator": "In", "values": ["web", "db"]}]},
                }},
                "status": {"allowed": false},
            })
        );
    }

    #[test]
    fn self_subject_access_review_non_resource_attributes() {
        let spec = message(2, &[message(2, &[string(1, "/healthz"), string(2, "get")])]);
        let decoded = decode(&body("authorization.k8s.io/v1", "SelfSubjectAccessReview", &[spec])).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}},
            })
        );
    }

    #[test]
    fn certificate_signing_request_spec_and_status() {
        let spec = message(
            2,
            &[
                len(1, b"hello"),
                string(2, "alice"),
                string(3, "u-9"),
                string(4, "devs"),
                string(4, "system:authenticated"),
                string(5, "digital signature"),
                string(5, "client auth"),
                entry(6, "scopes", &[string(1, "read"), string(1, "write")].concat()),
                message(6, &[string(1, "empty")]),
                string(7, "kubernetes.io/kube-apiserver-client"),
                int(8, -1),
            ],
        );
        let approved = message(
            1,
            &[
                string(1, "Approved"),
                string(2, "KubectlApprove"),
                string(3, "ok"),
                time(4, 1_704_164_645),
                len(5, &[]),
                string(6, "True"),
            ],
        );
        let status = message(3, &[approved, len(2, b"cert")]);
        let fields = [new_meta("csr1"), spec, status];
        let decoded = decode(&body("certificates.k8s.io/v1", "CertificateSigningRequest", &fields)).expect("decodes");
        assert_eq!(
            decoded,
            json!({
                "apiVersion": "certificates.k8s.io/v1",
                "kind": "CertificateSigningRequest",
                "metadata": {"name": "csr1"},
                "spec": {
                    "request": "aGVsbG8=",
                    "signerName": "kubernetes.io/kube-apiserver-client",
                    "expirationSeconds": -1,
                    "usages": ["digital signature", "client auth"],
                    "username": "alice",
                    "uid": "u-9",
                    "groups": ["devs", "system:authenticated"],
                    "extra": {"scopes": ["read", "write"], "empty": []},
                },
                "status": {
                    "conditions": [{
                        "type": "Approved",
                        "status": "True",
                        "reason": "KubectlApprove",
                        "message": "ok",
                        "lastUpdateTime": "2024-01-02T03:04:05Z",
                    }],
                    "certificate": "Y2VydA==",
                },
            })
        );
    }

    #[test]
    fn unknown_fields_of_every_wire_type_are_skipped() {
        let fixed64 = [key(90, 1), vec![0; 8]].concat();
        let fixed32 = [key(91, 5), vec![0; 4]].concat();
        let fields = [int(89, 7), fixed64, fixed32, string(92, "later"), new_meta("x"), entry(2, "a", b"b")];
        let decoded = decode(&body("v1", "ConfigMap", &fields)).expect("decodes");
        assert_eq!(
            decoded,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "b"}})
        );
    }

    #[test]
    fn unsupported_kinds_and_versions_name_the_kind() {
        let error = decode(&body("v1", "Pod", &[])).expect_err("Pod is not supported");
        assert_eq!(error.to_string(), "protobuf bodies of kind Pod are not supported: send JSON (application/json)");
        assert!(error.is_unsupported());
        let error =
            decode(&body("certificates.k8s.io/v1beta1", "CertificateSigningRequest", &[])).expect_err("v1beta1");
        assert_eq!(
            error.to_string(),
            "protobuf bodies of kind CertificateSigningRequest in certificates.k8s.io/v1beta1 are not supported: \
             send JSON (application/json)"
        );
    }

    #[test]
    fn envelope_errors() {
        assert!(matches!(decode(b"{\"kind\":\"ConfigMap\"}"), Err(ProtobufError::MissingMagic)));
        assert!(matches!(decode(MAGIC), Err(ProtobufError::MissingKind)));
        let gzip = [body("v1", "ConfigMap", &[]), string(3, "gzip")].concat();
        let error = decode(&gzip).expect_err("compressed raw");
        assert!(error.is_unsupported());
        assert_eq!(
            error.to_string(),
            "protobuf bodies with content encoding \"gzip\" are not supported: send JSON (application/json)"
        );
    }

    #[test]
    fn malformed_bodies_are_rejected() {
        let truncated = [body("v1", "ConfigMap", &[]), vec![0x12, 0x05, 0x0a]].concat();
        assert!(matches!(decode(&truncated), Err(ProtobufError::Malformed(_))));
        let endless_varint = [MAGIC.to_vec(), vec![0x08], vec![0xff; 11]].concat();
        assert!(matches!(decode(&endless_varint), Err(ProtobufError::Malformed(_))));
        let group = [MAGIC.to_vec(), key(5, 3)].concat();
        assert!(matches!(decode(&group), Err(ProtobufError::Malformed(_))));
        let bad_utf8 = body("v1", "ConfigMap", &[message(1, &[len(1, &[0xff, 0xfe])])]);
        assert!(matches!(decode(&bad_utf8), Err(ProtobufError::Malformed(_))));
        let name_as_varint = body("v1", "ConfigMap", &[message(1, &[int(1, 5)])]);
        let error = decode(&name_as_varint).expect_err("wrong wire type");
        assert_eq!(error.to_string(), "malformed protobuf body: field name has the wrong wire type");
        assert!(!error.is_unsupported());
    }

    #[test]
    fn timestamps_format_as_rfc3339() {
        let cases = [
            (0, "1970-01-01T00:00:00Z"),
            (-1, "1969-12-31T23:59:59Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_704_164_645, "2024-01-02T03:04:05Z"),
            (-62_135_596_800, "0001-01-01T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
        ];
        for (seconds, text) in cases {
            assert_eq!(rfc3339(seconds).expect("in range"), text);
        }
        assert!(rfc3339(253_402_300_800).is_err());
    }

    // Bodies captured from kubectl v1.32.4 (its request bodies, verbatim) by pointing it at a loopback
    // listener that answered discovery and recorded each POST/PUT body.

    /// `kubectl create namespace ns1`
    const KUBECTL_CREATE_NAMESPACE: &str = "6b3873000a0f0a02763112094e616d657370616365121b0a130a036e733112001a0022002a00\
        32003800420012001a020a001a002200";

    /// `kubectl create configmap cm3 --from-file=blob=<the bytes ff 00 01> --from-literal=c=d`
    const KUBECTL_CREATE_CONFIGMAP: &str = "6b3873000a0f0a0276311209436f6e6669674d6170122a0a130a03636d3312001a0022002a\
        0032003800420012060a01631201641a0b0a04626c6f621203ff00011a002200";

    /// `kubectl create secret generic s2 --from-literal=a=b --type=Opaque`
    const KUBECTL_CREATE_SECRET: &str = "6b3873000a0c0a027631120653656372657412240a120a02733212001a0022002a0032003800\
        420012060a01611201621a064f70617175651a002200";

    /// `kubectl create serviceaccount sa1`
    const KUBECTL_CREATE_SERVICEACCOUNT: &str = "6b3873000a140a027631120e536572766963654163636f756e7412150a130a037361\
        3112001a0022002a003200380042001a002200";

    /// `kubectl create token default --audience=aud1 --audience=aud2 --duration=10m --bound-object-kind=Secret
    /// --bound-object-name=s1 --bound-object-uid=uid-1`
    const KUBECTL_CREATE_TOKEN: &str = "6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b65\
        6e5265717565737412420a100a0012001a0022002a0032003800420012280a04617564310a04617564321a170a065365637265741202\
        76311a02733122057569642d3120d8041a040a0012001a002200";

    /// `kubectl auth can-i list deployments.apps --subresource=status -n kube-system` (the test server did not
    /// serve the apps group, so kubectl sent the resource unresolved)
    const KUBECTL_AUTH_CAN_I_RESOURCE: &str = "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c\
        665375626a65637441636365737352657669657712530a100a0012001a0022002a003200380042001235\
        0a330a0b6b7562652d73797374656d12046c6973741a0022002a106465706c6f796d656e74732e617070733206737461747573\
        3a001a08080012001a0020001a002200";

    /// `kubectl auth can-i get /healthz`
    const KUBECTL_AUTH_CAN_I_NON_RESOURCE: &str = "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f763112\
        1753656c665375626a656374416363657373526576696577122f0a100a0012001a0022002a003200380042001211120f0a082f686561\
        6c74687a12036765741a08080012001a0020001a002200";

    /// `kubectl certificate approve csr1`, after a GET that returned csr1 with one Failed condition
    const KUBECTL_CERTIFICATE_APPROVE: &str = "6b3873000a330a166365727469666963617465732e6b38732e696f2f76311219436572\
        74696669636174655369676e696e67526571756573741295020a200a046373723112001a0022002a03752d313201373800420808a5fa\
        cdac061000125b0a0568656c6c6f1205616c6963651a00221473797374656d3a61757468656e746963617465642a0b636c69656e7420\
        617574683a236b756265726e657465732e696f2f6b7562652d6170697365727665722d636c69656e7440901c1a93010a2c0a06466169\
        6c65641204507265761a016d220808a5facdac0610002a0808a5facdac061000320546616c73650a630a08417070726f766564120e4b\
        75626563746c417070726f76651a3554686973204353522077617320617070726f766564206279206b75626563746c2063657274696669\
        6361746520617070726f76652e220808e494b5d80610002a003204547275651a002200";

    fn decode_hex(text: &str) -> Value {
        decode(&hex(text)).expect("kubectl body decodes")
    }

    #[test]
    fn kubectl_create_core_kinds() {
        assert_eq!(
            decode_hex(KUBECTL_CREATE_NAMESPACE),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns1"}, "spec": {}, "status": {}})
        );
        assert_eq!(
            decode_hex(KUBECTL_CREATE_CONFIGMAP),
            json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "cm3"},
                "data": {"c": "d"},
                "binaryData": {"blob": "/wAB"},
            })
        );
        assert_eq!(
            decode_hex(KUBECTL_CREATE_SECRET),
            json!({
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": "s2"},
                "data": {"a": "Yg=="},
                "type": "Opaque",
            })
        );
        assert_eq!(
            decode_hex(KUBECTL_CREATE_SERVICEACCOUNT),
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa1"}})
        );
    }

    #[test]
    fn kubectl_create_token() {
        assert_eq!(
            decode_hex(KUBECTL_CREATE_TOKEN),
            json!({
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "metadata": {},
                "spec": {
                    "audiences": ["aud1", "aud2"],
                    "expirationSeconds": 600,
                    "boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "s1", "uid": "uid-1"},
                },
                "status": {"token": ""},
            })
        );
    }

    #[test]
    fn kubectl_auth_can_i() {
        assert_eq!(
            decode_hex(KUBECTL_AUTH_CAN_I_RESOURCE),
            json!({
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "metadata": {},
                "spec": {"resourceAttributes": {
                    "namespace": "kube-system",
                    "verb": "list",
                    "resource": "deployments.apps",
                    "subresource": "status",
                }},
                "status": {"allowed": false},
            })
        );
        assert_eq!(
            decode_hex(KUBECTL_AUTH_CAN_I_NON_RESOURCE),
            json!({
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "metadata": {},
                "spec": {"nonResourceAttributes": {"path": "/healthz", "verb": "get"}},
                "status": {"allowed": false},
            })
        );
    }

    #[test]
    fn kubectl_certificate_approve() {
        assert_eq!(
            decode_hex(KUBECTL_CERTIFICATE_APPROVE),
            json!({
                "apiVersion": "certificates.k8s.io/v1",
                "kind": "CertificateSigningRequest",
                "metadata": {
                    "name": "csr1",
                    "uid": "u-1",
                    "resourceVersion": "7",
                    "creationTimestamp": "2024-01-02T03:04:05Z",
                },
                "spec": {
                    "request": "aGVsbG8=",
                    "signerName": "kubernetes.io/kube-apiserver-client",
                    "expirationSeconds": 3600,
                    "usages": ["client auth"],
                    "username": "alice",
                    "groups": ["system:authenticated"],
                },
                "status": {"conditions": [
                    {
                        "type": "Failed",
                        "status": "False",
                        "reason": "Prev",
                        "message": "m",
                        "lastUpdateTime": "2024-01-02T03:04:05Z",
                        "lastTransitionTime": "2024-01-02T03:04:05Z",
                    },
                    {
                        "type": "Approved",
                        "status": "True",
                        "reason": "KubectlApprove",
                        "message": "This CSR was approved by kubectl certificate approve.",
                        "lastUpdateTime": "2026-11-30T10:05:24Z",
                    },
                ]},
            })
        );
    }
}
