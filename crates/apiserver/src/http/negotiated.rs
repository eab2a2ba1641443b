//! Answers in the form the client's `Accept` asks for: the handlers write JSON, and a client that
//! prefers `application/vnd.kubernetes.protobuf` (client-go's typed clients) gets the same answer
//! re-encoded — objects, lists, Status errors, and watch events in kube-apiserver's
//! length-prefixed protobuf frames.

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use futures::StreamExt;
use serde_json::Value;

use super::super::protobuf::{self, Accepted, EncodeError};
use super::super::status::ApiError;
use super::error_response;

/// What a resource's custom resources and the kinds without a protobuf form accept.
const JSON_FORMS: &str = "application/json, application/yaml";

/// The form a request for a resource of `kind` in `api_version` is answered in: protobuf only where
/// it is asked for first and the kind has a protobuf form; a 406 where protobuf is all the client
/// takes and the kind (a custom resource) has none, as kube-apiserver negotiates.
pub fn form(accepted: Accepted, api_version: &str, kind: &str) -> Result<Accepted, ApiError> {
    match accepted {
        Accepted::Protobuf { .. } if protobuf::message(api_version, kind).is_some() => Ok(accepted),
        Accepted::Protobuf { or_json: false } => Err(ApiError::not_acceptable(JSON_FORMS)),
        _ => Ok(Accepted::Json),
    }
}

/// The handler's JSON response in the negotiated form (`watch`: a stream of JSON lines).
pub async fn answer(response: Response, form: Accepted, watch: bool) -> Response {
    let Accepted::Protobuf { or_json } = form else { return response };
    let json = response.headers().get(header::CONTENT_TYPE).is_some_and(|value| value == "application/json");
    if !json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(protobuf::MEDIA_TYPE));
    parts.headers.remove(header::CONTENT_LENGTH);
    if watch {
        return Response::from_parts(
            parts,
            Body::from_stream(body.into_data_stream().map(|chunk| watch_frames(&chunk?))),
        );
    }
    // The handlers' answers are whole in memory already: collecting them costs no wait.
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => return error_response(&ApiError::internal(format!("reading the answer to re-encode it: {e}"))),
    };
    let encoded = serde_json::from_slice::<Value>(&bytes)
        .map_err(|_| None)
        .and_then(|value| protobuf::encode(&value).map_err(Some));
    match encoded {
        Ok(encoded) => Response::from_parts(parts, Body::from(encoded)),
        // A form without a protobuf message (a Table) stays JSON where the client takes JSON.
        Err(_) if or_json => {
            parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            Response::from_parts(parts, Body::from(bytes))
        }
        Err(Some(EncodeError::NoForm { .. })) => error_response(&ApiError::not_acceptable(JSON_FORMS)),
        Err(e) => error_response(&ApiError::internal(format!(
            "encoding the answer as protobuf: {}",
            e.map_or_else(|| "it is not JSON".to_string(), |e| e.to_string())
        ))),
    }
}

/// One chunk of JSON watch events (one per line) as protobuf frames.
fn watch_frames(chunk: &[u8]) -> Result<Bytes, axum::Error> {
    let mut frames = Vec::with_capacity(chunk.len());
    for line in chunk.split(|b| *b == b'\n').filter(|line| !line.is_empty()) {
        let event: Value = serde_json::from_slice(line).map_err(axum::Error::new)?;
        frames.extend_from_slice(&protobuf::encode_watch_event(&event).map_err(axum::Error::new)?);
    }
    Ok(Bytes::from(frames))
}
