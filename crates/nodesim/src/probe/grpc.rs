//! `grpc` probes (`pkg/probe/grpc`): one `grpc.health.v1.Health/Check` call over plain-text
//! HTTP/2; `SERVING` passes. The two messages are hand-encoded — a request with one string
//! field, an answer with one enum field — rather than pulling in a gRPC stack for them.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::{TokioExecutor, TokioIo};

/// The most of an answer a probe reads.
const MAX_ANSWER: usize = 10 * 1024;
/// `HealthCheckResponse.ServingStatus.SERVING`.
const SERVING: u64 = 1;

/// What a `grpc` probe asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GrpcCheck {
    pub host: String,
    pub port: u16,
    /// `grpc.service`: the service whose health is asked ("" for the server's).
    pub service: String,
}

impl GrpcCheck {
    /// Calls `Check`; `Err` says why the probe failed, worded as the kubelet's.
    pub(super) async fn probe(&self) -> Result<(), String> {
        let addr = format!("{}:{}", self.host, self.port);
        let connect_failed = |why: String| format!("timeout: failed to connect service {addr:?}: {why}");
        let tcp = fleetctl_apimachinery::dial::tcp(&self.host, self.port).await.map_err(connect_failed)?;
        let (mut sender, connection) = hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .map_err(|e| connect_failed(e.to_string()))?;
        let connection = tokio::spawn(connection);
        let answer = self.call(&mut sender, &addr).await;
        connection.abort();
        let status = answer.map_err(|e| format!("error: health rpc probe failed: {e}"))?;
        if status == SERVING {
            Ok(())
        } else {
            Err(format!("service unhealthy (responded with {:?})", status_name(status)))
        }
    }

    async fn call(
        &self,
        sender: &mut hyper::client::conn::http2::SendRequest<Full<Bytes>>,
        addr: &str,
    ) -> Result<u64, String> {
        let request = hyper::Request::post(format!("http://{addr}/grpc.health.v1.Health/Check"))
            .header(hyper::header::CONTENT_TYPE, "application/grpc")
            .header(hyper::header::TE, "trailers")
            .header(hyper::header::USER_AGENT, super::USER_AGENT)
            .body(Full::new(framed(&request_message(&self.service))))
            .map_err(|e| e.to_string())?;
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let (parts, body) = response.into_parts();
        let collected = Limited::new(body, MAX_ANSWER).collect().await.map_err(|e| e.to_string())?;
        // `grpc-status` comes in the trailers, or in the headers of a trailers-only answer.
        let trailers = collected.trailers().cloned().unwrap_or_default();
        let field = |name: &str| {
            trailers.get(name).or_else(|| parts.headers.get(name)).and_then(|v| v.to_str().ok()).map(str::to_string)
        };
        match field("grpc-status").as_deref() {
            Some("0") => {}
            Some("12") => {
                return Err("this server does not implement the grpc health protocol (grpc.health.v1.Health)".into());
            }
            code => {
                let message = field("grpc-message").unwrap_or_default();
                return Err(format!("rpc error: code = {} desc = {message}", code.unwrap_or("none")));
            }
        }
        let mut answer = collected.to_bytes();
        if answer.len() < 5 {
            return Err("the answer holds no message".into());
        }
        answer.advance(5);
        serving_status(&answer).ok_or_else(|| "the answer is not a HealthCheckResponse".into())
    }
}

/// `HealthCheckRequest { string service = 1; }`.
fn request_message(service: &str) -> Bytes {
    let mut message = BytesMut::new();
    if !service.is_empty() {
        message.put_u8(0x0a);
        put_varint(&mut message, service.len() as u64);
        message.put_slice(service.as_bytes());
    }
    message.freeze()
}

/// A gRPC message on the wire: uncompressed, its length, itself.
fn framed(message: &[u8]) -> Bytes {
    let mut frame = BytesMut::with_capacity(5 + message.len());
    frame.put_u8(0);
    frame.put_u32(u32::try_from(message.len()).unwrap_or(u32::MAX));
    frame.put_slice(message);
    frame.freeze()
}

fn put_varint(out: &mut BytesMut, mut value: u64) {
    while value >= 0x80 {
        out.put_u8((value as u8) | 0x80);
        value >>= 7;
    }
    out.put_u8(value as u8);
}

fn varint(input: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

/// `HealthCheckResponse { ServingStatus status = 1; }`: the status (0, `UNKNOWN`, when
/// absent); unknown fields are skipped.
fn serving_status(mut message: &[u8]) -> Option<u64> {
    let mut status = 0;
    while !message.is_empty() {
        let key = varint(&mut message)?;
        match (key >> 3, key & 7) {
            (1, 0) => status = varint(&mut message)?,
            (_, 0) => {
                varint(&mut message)?;
            }
            (_, 1) => message = message.get(8..)?,
            (_, 2) => {
                let len = usize::try_from(varint(&mut message)?).ok()?;
                message = message.get(len..)?;
            }
            (_, 5) => message = message.get(4..)?,
            _ => return None,
        }
    }
    Some(status)
}

/// `ServingStatus` as the kubelet quotes it.
fn status_name(status: u64) -> String {
    match status {
        0 => "UNKNOWN".into(),
        1 => "SERVING".into(),
        2 => "NOT_SERVING".into(),
        3 => "SERVICE_UNKNOWN".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use http_body_util::StreamBody;
    use hyper::body::Frame;

    use super::*;

    #[test]
    fn the_messages_are_encoded_as_protobuf() {
        assert_eq!(request_message("").as_ref(), b"");
        assert_eq!(request_message("a.B").as_ref(), b"\x0a\x03a.B");
        assert_eq!(framed(b"\x08\x01").as_ref(), b"\x00\x00\x00\x00\x02\x08\x01");
        assert_eq!(serving_status(b"\x08\x01"), Some(1));
        assert_eq!(serving_status(b""), Some(0));
        assert_eq!(serving_status(b"\x12\x01x\x08\x02"), Some(2), "an unknown field is skipped");
        assert_eq!(serving_status(b"\x08"), None);
    }

    /// A health server answering `status` for the service "ok" and NOT_FOUND otherwise.
    async fn health_server(status: u8) -> u16 {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let service =
                hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| async move {
                    assert_eq!(request.uri().path(), "/grpc.health.v1.Health/Check");
                    let asked = request.into_body().collect().await.unwrap().to_bytes();
                    let mut trailers = hyper::HeaderMap::new();
                    let frames: Vec<Result<Frame<Bytes>, Infallible>> =
                        if asked.as_ref() == framed(&request_message("ok")) {
                            trailers.insert("grpc-status", "0".parse().unwrap());
                            vec![Ok(Frame::data(framed(&[0x08, status]))), Ok(Frame::trailers(trailers))]
                        } else {
                            trailers.insert("grpc-status", "5".parse().unwrap());
                            trailers.insert("grpc-message", "unknown service".parse().unwrap());
                            vec![Ok(Frame::trailers(trailers))]
                        };
                    let response = hyper::Response::builder()
                        .header("content-type", "application/grpc")
                        .body(StreamBody::new(futures::stream::iter(frames)))
                        .unwrap();
                    Ok::<_, Infallible>(response)
                });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
        port
    }

    #[tokio::test]
    async fn serving_passes_and_anything_else_fails_as_the_kubelet_says() {
        let check = |port, service: &str| GrpcCheck { host: "127.0.0.1".into(), port, service: service.into() };
        assert_eq!(check(health_server(1).await, "ok").probe().await, Ok(()));
        assert_eq!(
            check(health_server(2).await, "ok").probe().await,
            Err(r#"service unhealthy (responded with "NOT_SERVING")"#.into())
        );
        let unknown = check(health_server(1).await, "other").probe().await.unwrap_err();
        assert_eq!(unknown, "error: health rpc probe failed: rpc error: code = 5 desc = unknown service");
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap().port();
        let refused = check(closed, "").probe().await.unwrap_err();
        assert!(refused.starts_with("timeout: failed to connect service"), "{refused}");
    }
}
