//! Request bodies: the size limit, and objects as JSON, YAML or Kubernetes protobuf.

use axum::extract::Request;
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::Value;

use super::super::protobuf;
use super::super::status::ApiError;

/// The largest request body accepted, as kube-apiserver's limit.
pub const MAX_BODY: usize = 3 * 1024 * 1024;

/// The whole body, within [`MAX_BODY`].
pub async fn read_body(request: Request) -> Result<Bytes, ApiError> {
    match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<LengthLimitError>() => Err(ApiError::too_large(MAX_BODY)),
        Err(e) => Err(ApiError::bad_request(format!("reading the request body failed: {e}"))),
    }
}

/// The media type of a Content-Type header, without its parameters.
fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// Whether a body is in the Kubernetes protobuf form.
pub fn is_protobuf(content_type: &str) -> bool {
    media_type(content_type) == protobuf::MEDIA_TYPE
}

/// A protobuf body as the JSON it stands for: a 415 for a kind without a protobuf form, a 400 for
/// a broken body.
pub fn decode_protobuf(body: &[u8]) -> Result<Value, ApiError> {
    protobuf::decode(body).map_err(|e| {
        if e.is_unsupported() {
            ApiError::unsupported_media_type(e.to_string())
        } else {
            ApiError::bad_request(e.to_string())
        }
    })
}

/// Reads a JSON, YAML or (for the built-in kinds) protobuf object body.
pub async fn read_object(request: Request, content_type: &str) -> Result<Value, ApiError> {
    let media = media_type(content_type);
    let body = read_body(request).await?;
    let value: Value = match media.as_str() {
        protobuf::MEDIA_TYPE => decode_protobuf(&body)?,
        "application/yaml" | "application/x-yaml" => serde_yaml::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("the request body is not valid YAML: {e}")))?,
        "" | "application/json" | "*/*" => serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("the request body is not valid JSON: {e}")))?,
        other => {
            return Err(ApiError::unsupported_media_type(format!(
                "the body of the request was in an unknown format ({other}) - accepted media types include: application/json, application/yaml"
            )));
        }
    };
    if !value.is_object() {
        return Err(ApiError::bad_request("the request body must be a JSON object"));
    }
    Ok(value)
}
