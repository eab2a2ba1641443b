//! The JSON the server keeps: objects the store serialized itself, or checked when it
//! loaded them from disk. Turning a value into bytes and those bytes back into a value
//! therefore cannot fail, and says so here once instead of hiding a failure as an empty
//! body or `null`.

use std::borrow::Cow;

use bytes::Bytes;
use serde::Serialize;

/// JSON of this size or more is kept compressed. The objects a hub holds for each of its
/// clusters that reach it — the import secret (~38 KB, most of it the same CRD for every
/// cluster), the two klusterlet ManifestWorks (12–15 KB with their status) — compress
/// about 2.5 times with LZ4; the many small ones (leases, RBAC, CSRs) would gain little
/// and are read most often.
const PACK_FROM: usize = 4096;

/// An object's JSON as the store and its history keep it: as written when small, LZ4-
/// compressed when large. Cloning shares the bytes.
#[derive(Debug, Clone)]
pub struct Packed {
    bytes: Bytes,
    compressed: bool,
}

impl Packed {
    /// Keeps `json`, compressed if it is large.
    pub fn new(json: Bytes) -> Self {
        if json.len() < PACK_FROM {
            return Self { bytes: json, compressed: false };
        }
        Self { bytes: Bytes::from(lz4_flex::compress_prepend_size(&json)), compressed: true }
    }

    /// The JSON (decompressed, when it was kept compressed).
    pub fn json(&self) -> Cow<'_, [u8]> {
        if !self.compressed {
            return Cow::Borrowed(&self.bytes);
        }
        // The bytes are what `new` compressed, never anything read from outside.
        #[allow(clippy::expect_used)]
        Cow::Owned(lz4_flex::decompress_size_prepended(&self.bytes).expect("the store's own compressed JSON"))
    }

    /// The JSON as shared bytes: the kept bytes themselves when they are not compressed.
    pub fn to_bytes(&self) -> Bytes {
        match self.json() {
            Cow::Borrowed(_) => self.bytes.clone(),
            Cow::Owned(json) => Bytes::from(json),
        }
    }

    /// The bytes kept, which is what it costs in memory.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }
}

/// The JSON of a value made of JSON data — a [`serde_json::Value`], or a type whose fields are
/// strings, numbers, booleans, sequences and maps keyed by strings.
pub fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Bytes {
    // serde_json fails only on maps with non-string keys and on custom `Serialize` errors,
    // which JSON data has neither of.
    #[allow(clippy::expect_used)]
    Bytes::from(serde_json::to_vec(value).expect("JSON data always serializes"))
}

/// JSON this server wrote itself — an object the store holds, a response, a watch event —
/// parsed (as a `Value`, or as a type that reads the part of it wanted).
pub fn parse_own<T: serde::de::DeserializeOwned>(json: &[u8]) -> T {
    // Such bytes come only from `to_bytes`, or from disk through `persist`, which checks them.
    #[allow(clippy::expect_used)]
    serde_json::from_slice(json).expect("the server's own JSON is valid")
}

/// Whether `json` is one JSON document (checked without building it).
pub fn is_valid(json: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(json).is_ok()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn packed_json_is_compressed_only_when_large_and_reads_back_as_written() {
        let small = to_bytes(&json!({"metadata": {"name": "a"}}));
        let packed = Packed::new(small.clone());
        assert_eq!(packed.size(), small.len());
        assert_eq!(&packed.json()[..], &small[..]);
        let manifest = json!({"kind": "CustomResourceDefinition", "spec": {"description": "a field".repeat(1000)}});
        let large = to_bytes(&json!({"metadata": {"name": "b"}, "manifests": [manifest.clone(), manifest]}));
        let packed = Packed::new(large.clone());
        assert!(packed.size() < large.len() / 4, "{} of {} bytes kept", packed.size(), large.len());
        assert_eq!(&packed.json()[..], &large[..]);
        assert_eq!(packed.to_bytes(), large);
    }

    #[test]
    fn values_round_trip_through_bytes() {
        let value = json!({"metadata": {"name": "a", "labels": {"k": "v"}}, "data": [1, 2.5, null, true]});
        assert_eq!(parse_own::<Value>(&to_bytes(&value)), value);
    }

    #[test]
    fn only_whole_documents_are_valid() {
        assert!(is_valid(br#"{"a": [1, 2]}"#));
        assert!(!is_valid(br#"{"a": [1, 2]"#));
        assert!(!is_valid(b"{} {}"));
        assert!(!is_valid(b""));
    }
}
