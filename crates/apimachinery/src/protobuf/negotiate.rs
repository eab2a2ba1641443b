//! Which form an `Accept` header asks an answer in: JSON, or the protobuf form with or without
//! JSON as a fallback.

/// The answer a client accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    /// JSON (or no preference).
    Json,
    /// Protobuf first; `or_json` when a later part accepts JSON, which serves the kinds without a
    /// protobuf form (custom resources), as kube-apiserver answers client-go's
    /// `application/vnd.kubernetes.protobuf, application/json`.
    Protobuf { or_json: bool },
}

/// Reads the header in the client's order (client-go's and kubectl's headers carry no q-values).
/// A protobuf part that asks for another form (`as=Table`, `as=PartialObjectMetadataList`) is
/// passed over: those forms are answered in JSON, which such clients list after it.
pub fn accepted(accept: &str) -> Accepted {
    let mut parts = accept.split(',').map(|part| {
        let mut params = part.split(';').map(str::trim);
        let media = params.next().unwrap_or_default().to_ascii_lowercase();
        let converted = params.any(|param| param.starts_with("as="));
        (media, converted)
    });
    let is_json = |media: &str| matches!(media, "application/json" | "application/*" | "*/*" | "");
    for (media, converted) in parts.by_ref() {
        if media == super::MEDIA_TYPE && !converted {
            return Accepted::Protobuf { or_json: parts.any(|(media, _)| is_json(&media)) };
        }
        if is_json(&media) || media.contains("json") || media.contains("yaml") {
            return Accepted::Json;
        }
    }
    Accepted::Json
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_go_asks_for_protobuf_with_json_as_the_fallback() {
        let client_go = "application/vnd.kubernetes.protobuf, application/json";
        assert_eq!(accepted(client_go), Accepted::Protobuf { or_json: true });
        assert_eq!(accepted("application/vnd.kubernetes.protobuf"), Accepted::Protobuf { or_json: false });
    }

    #[test]
    fn json_first_or_no_header_is_answered_in_json() {
        assert_eq!(accepted("application/json, application/vnd.kubernetes.protobuf"), Accepted::Json);
        assert_eq!(accepted(""), Accepted::Json);
        assert_eq!(accepted("*/*"), Accepted::Json);
    }

    #[test]
    fn protobuf_asking_for_another_form_is_passed_over_for_the_json_after_it() {
        let metadata_informer = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,\
                                 application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
        assert_eq!(accepted(metadata_informer), Accepted::Json);
    }
}
