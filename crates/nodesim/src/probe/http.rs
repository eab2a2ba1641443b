//! `httpGet` probes as the kubelet sends them (`pkg/probe/http`): HTTP or HTTPS (any
//! certificate accepted), the probe's headers over the kubelet's defaults, a status from
//! 200 to 399 passes; redirects are not followed.

use bytes::Bytes;
use http_body_util::Empty;
use hyper::header::{ACCEPT, HOST, HeaderName, HeaderValue, USER_AGENT};

use super::tls;

/// The most of an answer's body a probe reads (the kubelet's `maxRespBodyLength`).
const MAX_BODY: usize = 10 * 1024;

/// What an `httpGet` probe asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct HttpGet {
    /// Whether it speaks TLS (`scheme: HTTPS`).
    pub tls: bool,
    /// Where it connects (`host`, else the Pod's address).
    pub host: String,
    pub port: u16,
    pub path: String,
    /// `httpHeaders`, in order.
    pub headers: Vec<(String, String)>,
}

impl HttpGet {
    fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}:{}{}", self.host, self.port, self.path)
    }

    /// Sends the GET; `Err` says why the probe failed, as the kubelet's event does.
    pub(super) async fn probe(&self) -> Result<(), String> {
        let url = self.url();
        let failed = |why: String| format!("Get \"{url}\": {why}");
        let tcp = fleetctl_apimachinery::dial::tcp(&self.host, self.port).await.map_err(failed)?;
        let request = self.request().map_err(failed)?;
        let (status, _) = if self.tls {
            let stream = tls::connect(tcp, &self.host).await.map_err(failed)?;
            fleetctl_apimachinery::dial::exchange(stream, request, MAX_BODY).await
        } else {
            fleetctl_apimachinery::dial::exchange(tcp, request, MAX_BODY).await
        }
        .map_err(failed)?;
        let status = status.as_u16();
        if (200..400).contains(&status) { Ok(()) } else { Err(format!("HTTP probe failed with statuscode: {status}")) }
    }

    /// The request: the probe's headers, and the kubelet's `Host`, `User-Agent` and
    /// `Accept` where it gives none of its own.
    fn request(&self) -> Result<hyper::Request<Empty<Bytes>>, String> {
        let mut request = hyper::Request::get(&self.path).body(Empty::<Bytes>::new()).map_err(|e| e.to_string())?;
        let headers = request.headers_mut();
        for (name, value) in &self.headers {
            let name = HeaderName::try_from(name.as_str()).map_err(|e| format!("header {name}: {e}"))?;
            let value = HeaderValue::try_from(value.as_str()).map_err(|e| format!("header {name}: {e}"))?;
            headers.append(name, value);
        }
        let defaults = [
            (HOST, format!("{}:{}", self.host, self.port)),
            (USER_AGENT, super::USER_AGENT.into()),
            (ACCEPT, "*/*".into()),
        ];
        for (name, value) in defaults {
            if !headers.contains_key(&name) {
                headers.insert(name, HeaderValue::try_from(value).map_err(|e| e.to_string())?);
            }
        }
        Ok(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probes_headers_replace_the_kubelets_defaults() {
        let get = |headers: Vec<(String, String)>| HttpGet {
            tls: true,
            host: "127.0.0.1".into(),
            port: 8443,
            path: "/healthz".into(),
            headers,
        };
        let plain = get(vec![]).request().unwrap();
        assert_eq!(plain.headers()[HOST], "127.0.0.1:8443");
        assert_eq!(plain.headers()[USER_AGENT], crate::probe::USER_AGENT);
        let custom =
            get(vec![("Host".into(), "example.com".into()), ("X-Probe".into(), "1".into())]).request().unwrap();
        assert_eq!(custom.headers().get_all(HOST).iter().collect::<Vec<_>>(), ["example.com"]);
        assert_eq!(custom.headers()["x-probe"], "1");
        assert_eq!(get(vec![]).url(), "https://127.0.0.1:8443/healthz");
    }
}
