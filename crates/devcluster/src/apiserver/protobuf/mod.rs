//! Decoder for the Kubernetes protobuf request bodies that kubectl and client-go send.
//!
//! kubectl prefers `application/vnd.kubernetes.protobuf` for the built-in kinds it builds itself
//! (`create deployment|role|rolebinding|clusterrole|clusterrolebinding|priorityclass|namespace|…`,
//! `auth reconcile`, `auth can-i`, `certificate approve`). One generic transcoder serves every kind:
//! a wire-format reader ([`wire`]) walks the message, and the field tables of [`generated`] — one
//! per message, generated once from the Go API types and checked against the k8s-pb and k8s-openapi
//! types by a test — say how each field maps onto the JSON form the same request would have carried
//! ([`transcode`], where apimachinery's special types are handled once). The rest of the server
//! only ever sees JSON.

mod generated;
mod table;
mod transcode;
mod wire;

#[cfg(test)]
mod check;
#[cfg(test)]
mod check_kinds;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use table::Field;
use wire::{Reader, Wire, utf8};

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
    let mut same_kind = generated::KINDS.iter().filter(|(_, known_kind, _)| *known_kind == kind).peekable();
    if same_kind.peek().is_none() {
        return Err(ProtobufError::UnsupportedKind { kind: kind.to_owned() });
    }
    same_kind
        .find(|(known_version, _, _)| *known_version == api_version)
        .map(|(_, _, table)| *table)
        .ok_or_else(|| ProtobufError::UnsupportedVersion { kind: kind.to_owned(), api_version: api_version.to_owned() })
}
