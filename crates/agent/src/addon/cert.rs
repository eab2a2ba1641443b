//! `cert-policy-controller`: watches `kubernetes.io/tls` Secrets, parses their
//! certificates and reports those that expire within a window (or have expired) as
//! non-compliant, by name.
//!
//! Secrets are watched (only the TLS type, by field selector); what is kept per Secret is
//! its certificate's expiry, never its data. Time passing can also make a certificate
//! non-compliant, so the report is re-evaluated every [`REEVALUATE`] as well.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use serde_json::json;
use tokio::sync::watch;

use super::{Report, offer};
use fleetctl_kube::watch::BackedOff as _;

/// The Secret type whose certificates are checked.
pub const TLS_TYPE: &str = "kubernetes.io/tls";
/// Default window: a certificate expiring within 30 days is non-compliant.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(30 * 86_400);
/// How often expiries are compared with the clock without any Secret changing.
const REEVALUATE: Duration = Duration::from_secs(60);

/// What is known of one Secret's certificate.
#[derive(Debug, Clone, PartialEq)]
pub enum Certificate {
    /// Expires at this Unix time (seconds).
    Expires(i64),
    /// `tls.crt` is missing or is not a PEM certificate.
    Unreadable(String),
}

/// Certificates by `namespace/name`.
pub type Certificates = BTreeMap<String, Certificate>;

/// Reads the (first) certificate of a TLS Secret.
pub fn certificate(secret: &Secret) -> Certificate {
    let Some(pem) = secret.data.as_ref().and_then(|d| d.get("tls.crt")) else {
        return Certificate::Unreadable("no tls.crt".into());
    };
    let parsed = x509_parser::pem::parse_x509_pem(&pem.0).map_err(|e| e.to_string()).and_then(|(_, pem)| {
        pem.parse_x509().map(|cert| cert.validity().not_after.timestamp()).map_err(|e| e.to_string())
    });
    match parsed {
        Ok(not_after) => Certificate::Expires(not_after),
        Err(e) => Certificate::Unreadable(e),
    }
}

fn key(secret: &Secret) -> String {
    format!("{}/{}", secret.namespace().unwrap_or_default(), secret.name_any())
}

/// Watches TLS Secrets forever, offering a report after every change and periodically.
pub async fn run(client: Client, window: Duration, reports: watch::Sender<Option<Report>>) {
    let secrets: Api<Secret> = Api::all(client);
    let config = watcher::Config::default().fields(&format!("type={TLS_TYPE}"));
    let mut events = watcher(secrets, config).backed_off().boxed();
    let mut known = Certificates::new();
    // A relist (after a watch expired) builds a fresh set, swapped in when complete.
    let mut relisting: Option<Certificates> = None;
    let mut ticks = tokio::time::interval(REEVALUATE);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut listed = false;
    loop {
        tokio::select! {
            event = events.next() => match event {
                Some(Ok(watcher::Event::Init)) => relisting = Some(Certificates::new()),
                Some(Ok(watcher::Event::InitApply(secret))) => {
                    relisting.get_or_insert_with(Certificates::new).insert(key(&secret), certificate(&secret));
                }
                Some(Ok(watcher::Event::InitDone)) => {
                    known = relisting.take().unwrap_or_default();
                    listed = true;
                }
                Some(Ok(watcher::Event::Apply(secret))) => {
                    known.insert(key(&secret), certificate(&secret));
                }
                Some(Ok(watcher::Event::Delete(secret))) => {
                    known.remove(&key(&secret));
                }
                Some(Err(e)) => tracing::warn!(error = %e, "watching TLS secrets"),
                None => return,
            },
            _ = ticks.tick() => {}
        }
        // Partial knowledge during the first list would report wrongly: wait for it.
        if listed && relisting.is_none() {
            offer(&reports, report(&known, window, jiff::Timestamp::now().as_second()));
        }
    }
}

/// The report on `certificates` at Unix time `now`.
pub fn report(certificates: &Certificates, window: Duration, now: i64) -> Report {
    let horizon = now.saturating_add(i64::try_from(window.as_secs()).unwrap_or(i64::MAX));
    let mut expired = Vec::new();
    let mut expiring = Vec::new();
    let mut unreadable = Vec::new();
    let mut details = Vec::new();
    for (name, cert) in certificates {
        match cert {
            Certificate::Expires(at) if *at <= now => {
                expired.push(name.clone());
                details.push(json!({"secret": name, "notAfter": rfc3339(*at), "expired": true}));
            }
            Certificate::Expires(at) if *at <= horizon => {
                expiring.push(name.clone());
                let days = (at - now) / 86_400;
                details.push(json!({"secret": name, "notAfter": rfc3339(*at), "expired": false, "daysLeft": days}));
            }
            Certificate::Expires(_) => {}
            Certificate::Unreadable(why) => unreadable.push(json!({"secret": name, "error": why})),
        }
    }
    let compliant = expired.is_empty() && expiring.is_empty();
    let days = window.as_secs() / 86_400;
    let summary = if compliant {
        format!("Compliant: {} certificates valid for more than {days}d", certificates.len() - unreadable.len())
    } else {
        let mut parts = Vec::new();
        if !expired.is_empty() {
            parts.push(format!("expired: {}", expired.join(", ")));
        }
        if !expiring.is_empty() {
            parts.push(format!("expiring within {days}d: {}", expiring.join(", ")));
        }
        format!("NonCompliant: {}", parts.join("; "))
    };
    Report {
        summary,
        report: json!({
            "windowDays": days,
            "checked": certificates.len(),
            "expired": expired,
            "expiring": expiring,
            "nonCompliant": details,
            "unreadable": unreadable,
        }),
        compliant: Some(compliant),
    }
}

fn rfc3339(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds).map_or_else(|_| seconds.to_string(), |t| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::ByteString;

    const DAY: i64 = 86_400;

    fn secret_with(pem: &str) -> Secret {
        Secret {
            data: Some(BTreeMap::from([("tls.crt".to_string(), ByteString(pem.as_bytes().to_vec()))])),
            ..Secret::default()
        }
    }

    #[test]
    fn a_generated_certificate_is_read() {
        let mut params = rcgen::CertificateParams::new(vec!["x".to_string()]).unwrap();
        params.not_after = rcgen::date_time_ymd(2030, 1, 2);
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        let expected = jiff::civil::date(2030, 1, 2).to_zoned(jiff::tz::TimeZone::UTC).unwrap().timestamp().as_second();
        assert_eq!(certificate(&secret_with(&cert.pem())), Certificate::Expires(expected));
        assert!(matches!(certificate(&secret_with("junk")), Certificate::Unreadable(_)));
        assert!(matches!(certificate(&Secret::default()), Certificate::Unreadable(_)));
    }

    #[test]
    fn expired_and_expiring_certificates_are_named() {
        let now = 1_000 * DAY;
        let certs = Certificates::from([
            ("ns/old".to_string(), Certificate::Expires(now - DAY)),
            ("ns/soon".to_string(), Certificate::Expires(now + 3 * DAY)),
            ("ns/fine".to_string(), Certificate::Expires(now + 365 * DAY)),
            ("ns/bad".to_string(), Certificate::Unreadable("x".into())),
        ]);
        let report = report(&certs, DEFAULT_WINDOW, now);
        assert_eq!(report.compliant, Some(false));
        assert_eq!(report.summary, "NonCompliant: expired: ns/old; expiring within 30d: ns/soon");
        assert_eq!(report.report["expired"], json!(["ns/old"]));
        assert_eq!(report.report["expiring"], json!(["ns/soon"]));
        assert_eq!(report.report["nonCompliant"][1]["daysLeft"], 3);
        let fine = Certificates::from([("ns/fine".to_string(), Certificate::Expires(now + 365 * DAY))]);
        let ok = super::report(&fine, DEFAULT_WINDOW, now);
        assert_eq!(ok.compliant, Some(true));
        assert_eq!(ok.summary, "Compliant: 1 certificates valid for more than 30d");
    }
}
