//! The JSON the server keeps: objects the store serialized itself, or checked when it
//! loaded them from disk. Turning a value into bytes and those bytes back into a value
//! therefore cannot fail, and says so here once instead of hiding a failure as an empty
//! body or `null`.

use bytes::Bytes;
use serde::Serialize;

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
