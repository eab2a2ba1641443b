//! The Kubernetes protobuf form of the built-in kinds, in and out.
//!
//! kubectl prefers `application/vnd.kubernetes.protobuf` for the built-in kinds it builds itself,
//! and client-go's typed clients (OCM's controllers, library-go's operators) send every body that
//! way — DeleteOptions included — and ask for protobuf answers. One generic transcoder serves
//! every kind: a wire-format reader and writer ([`wire`]) and the field tables of [`generated`] —
//! one per message, written by `cargo run -p xtask -- protobuf` from k8s-pb and k8s-openapi, and
//! checked against both by a test — say how each field maps onto the JSON form
//! ([`transcode`] reads, [`encode`] writes; apimachinery's special types are handled there once).
//! The rest of the server only ever sees JSON. The same tables carry each field's strategic merge
//! patch tags ([`Patch`]), which the patch code finds with [`field_at`].

mod encode;
mod generated;
mod negotiate;
mod table;
mod transcode;
mod wire;
mod zero_nulls;

pub use encode::EncodeError;
pub use generated::OBJECT_META;
pub use negotiate::{Accepted, accepted};
pub use table::{Field, Patch, field_at};
pub use zero_nulls::keep_zero_nulls;

#[cfg(test)]
mod check;
#[cfg(test)]
mod check_kinds;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_out;

use serde_json::{Map, Value};

use wire::{Reader, Wire, Writer, utf8};

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
    object.extend(transcode::decode_message(envelope.raw, table)?);
    Ok(Value::Object(object))
}

/// Encodes an object, a `<Kind>List` of a kind with a protobuf form, or a Status (by its
/// `apiVersion` and `kind`) as a Kubernetes protobuf body: `k8s\0` and the `runtime.Unknown`
/// envelope around the message.
pub fn encode(object: &Value) -> Result<Vec<u8>, EncodeError> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    let no_form = || EncodeError::NoForm { api_version: api_version.to_owned(), kind: kind.to_owned() };
    let fields = object.as_object().ok_or_else(no_form)?;
    let raw = match message(api_version, kind) {
        Some(table) => encode::encode_message(fields, table)?,
        None => {
            let item = kind.strip_suffix("List").and_then(|item| message(api_version, item)).ok_or_else(no_form)?;
            encode_list(fields, item)?
        }
    };
    let mut type_meta = Writer::default();
    type_meta.bytes(1, api_version.as_bytes());
    type_meta.bytes(2, kind.as_bytes());
    let mut unknown = Writer(MAGIC.to_vec());
    unknown.bytes(1, &type_meta.0);
    unknown.bytes(2, &raw);
    // Go writes contentEncoding and contentType, empty for plain protobuf.
    unknown.bytes(3, b"");
    unknown.bytes(4, b"");
    Ok(unknown.0)
}

/// A `<Kind>List`: {1 metadata ListMeta, 2 items}, each item without its own type metadata.
fn encode_list(list: &Map<String, Value>, item: &'static [Field]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Writer::default();
    if let Some(Value::Object(metadata)) = list.get("metadata") {
        out.bytes(1, &encode::encode_message(metadata, generated::LIST_META)?);
    }
    for object in list.get("items").and_then(Value::as_array).into_iter().flatten() {
        let object = object.as_object().ok_or(EncodeError::Shape { field: "items", expected: "objects" })?;
        out.bytes(2, &encode::encode_message(object, item)?);
    }
    Ok(out.0)
}

/// One event of a protobuf watch (`{"type": …, "object": …}` as JSON): kube-apiserver's framing,
/// a four-byte big-endian length and a `metav1.WatchEvent` {1 type, 2 object} without envelope,
/// whose object is a RawExtension {1 raw} holding the object's own protobuf body.
pub fn encode_watch_event(event: &Value) -> Result<Vec<u8>, EncodeError> {
    let kind = event["type"].as_str().ok_or(EncodeError::Shape { field: "type", expected: "a string" })?;
    let mut object = Writer::default();
    object.bytes(1, &encode(&event["object"])?);
    let mut message = Writer::default();
    message.bytes(1, kind.as_bytes());
    message.bytes(2, &object.0);
    let length =
        u32::try_from(message.0.len()).map_err(|_| EncodeError::Shape { field: "object", expected: "under 4 GiB" })?;
    let mut frame = length.to_be_bytes().to_vec();
    frame.extend_from_slice(&message.0);
    Ok(frame)
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

/// The media type of the Kubernetes protobuf form.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The kinds `metav1.AddToGroupVersion` registers in every group version, besides `meta.k8s.io/v1`
/// (of the option kinds, the only one client-go sends as a body).
const OPTION_KINDS: &[&str] = &["DeleteOptions"];
const META_V1: &str = "meta.k8s.io/v1";

/// The message of a kind with a protobuf form (the built-in kinds, the option kinds in every
/// group version, Status, PartialObjectMetadata); `None` for the others (custom resources).
pub fn message(api_version: &str, kind: &str) -> Option<&'static [Field]> {
    message_table(api_version, kind).ok()
}

/// Finds the field table for a kind, telling an unknown kind apart from a known kind in another version.
fn message_table(api_version: &str, kind: &str) -> Result<&'static [Field], ProtobufError> {
    let served_version = || generated::KINDS.iter().any(|(known_version, _, _)| *known_version == api_version);
    let api_version = if OPTION_KINDS.contains(&kind) && served_version() { META_V1 } else { api_version };
    let mut same_kind = generated::KINDS.iter().filter(|(_, known_kind, _)| *known_kind == kind).peekable();
    if same_kind.peek().is_none() {
        return Err(ProtobufError::UnsupportedKind { kind: kind.to_owned() });
    }
    same_kind
        .find(|(known_version, _, _)| *known_version == api_version)
        .map(|(_, _, table)| *table)
        .ok_or_else(|| ProtobufError::UnsupportedVersion { kind: kind.to_owned(), api_version: api_version.to_owned() })
}
