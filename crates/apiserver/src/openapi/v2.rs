//! A minimal OpenAPI v2 document (no paths, no definitions). kubectl 1.32 reads kinds'
//! schemas from `/openapi/v3`; from v2 it would take client-side validation (only for
//! kinds whose PATCH does not declare `fieldValidation`: none here) and strategic merge
//! patch metadata (it then falls back to its compiled-in types, as it does for any kind
//! v2 does not list). kubectl asks for the gnostic protobuf form; others get JSON.

use serde_json::json;

/// The document, as protobuf or JSON.
pub fn document(protobuf: bool) -> Vec<u8> {
    if !protobuf {
        return json!({"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.32.0"}, "paths": {}})
            .to_string()
            .into_bytes();
    }
    // openapi_v2.Document { swagger = 1; info = 2 { title = 1; version = 2 } }
    let info = [field(1, b"Kubernetes"), field(2, b"v1.32.0")].concat();
    [field(1, b"2.0"), field(2, &info)].concat()
}

/// One length-delimited protobuf field.
fn field(number: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![(number << 3) | 2];
    let mut len = bytes.len();
    while len >= 0x80 {
        out.push(u8::try_from(len & 0x7f).unwrap_or(0) | 0x80);
        len >>= 7;
    }
    out.push(u8::try_from(len).unwrap_or(0));
    out.extend_from_slice(bytes);
    out
}
