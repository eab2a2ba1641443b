//! Whether the stored hub credentials still fit the agent, judged from the secret alone
//! (pure): `hub-kubeconfig-secret` must hold a kubeconfig, a certificate and its key; name
//! this cluster and agent; point at the hub and CA the bootstrap kubeconfig names (a
//! changed bootstrap kubeconfig means a moved hub or a rotated CA); and its certificate
//! must be this agent's, match its key and not have expired. Upstream's registration agent
//! checks the same before it trusts the secret; anything else sends it back to bootstrap.

use k8s_openapi::api::core::v1::Secret;

use fleetctl_kube::kubeconfig::{self, Endpoint};

/// Why the stored credentials cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unfit {
    /// There is no secret.
    #[error("the hub kubeconfig secret is missing")]
    Missing,
    /// A key is missing or does not parse.
    #[error("the hub kubeconfig secret is corrupted: {0}")]
    Corrupted(String),
    /// The secret or its certificate names another cluster or agent.
    #[error("the hub kubeconfig secret is for {found}, not {wanted}")]
    OtherIdentity {
        /// What the secret names.
        found: String,
        /// What this agent is.
        wanted: String,
    },
    /// The kubeconfig points at another hub than the bootstrap kubeconfig.
    #[error("the hub kubeconfig points at {found}, the bootstrap kubeconfig at {wanted}")]
    OtherHub {
        /// The stored server.
        found: String,
        /// The bootstrap server.
        wanted: String,
    },
    /// The kubeconfig trusts another CA than the bootstrap kubeconfig.
    #[error("the hub CA changed: the bootstrap kubeconfig trusts another one")]
    CaChanged,
    /// The certificate has expired.
    #[error("the client certificate expired at {0}")]
    Expired(jiff::Timestamp),
}

/// Who the agent is.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    /// Cluster name.
    pub cluster: &'a str,
    /// Agent id.
    pub agent_id: &'a str,
}

impl Expected<'_> {
    /// The common name of the agent's certificate.
    pub fn common_name(&self) -> String {
        fleetctl_api::names::agent_user(self.cluster, self.agent_id)
    }
}

/// What a usable secret holds.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The certificate, PEM.
    pub cert_pem: String,
    /// Where the kubeconfig points.
    pub endpoint: Endpoint,
}

/// Judges the stored secret against the agent and, when it is known, the endpoint of the
/// bootstrap kubeconfig (a missing bootstrap secret does not make working credentials unfit).
pub fn judge(
    secret: Option<&Secret>,
    expected: Expected<'_>,
    bootstrap: Option<&Endpoint>,
    now: jiff::Timestamp,
) -> Result<Stored, Unfit> {
    let secret = secret.ok_or(Unfit::Missing)?;
    let text = kubeconfig::secret_text(secret);
    let value = |key: &str| text.get(key).filter(|v| !v.trim().is_empty()).ok_or_else(|| missing(key));
    for (key, wanted) in [("cluster-name", expected.cluster), ("agent-name", expected.agent_id)] {
        if let Some(found) = text.get(key).filter(|found| found.as_str() != wanted) {
            return Err(Unfit::OtherIdentity { found: format!("{key} {found}"), wanted: format!("{key} {wanted}") });
        }
    }
    value("kubeconfig")?;
    // Upstream's agent names its certificate files beside the kubeconfig: read from the secret.
    let parsed = kubeconfig::in_secret(&text).map_err(|e| corrupted("kubeconfig", &e))?;
    let endpoint = kubeconfig::endpoint(&parsed).map_err(|e| corrupted("kubeconfig", &e))?;
    let cert_pem = value("tls.crt")?;
    let (_, pem) = x509_parser::pem::parse_x509_pem(cert_pem.as_bytes()).map_err(|e| corrupted("tls.crt", &e))?;
    let (_, cert) = x509_parser::parse_x509_certificate(&pem.contents).map_err(|e| corrupted("tls.crt", &e))?;
    let key = public_key(value("tls.key")?).map_err(|e| corrupted("tls.key", &e))?;
    if key != cert.public_key().subject_public_key.data.as_ref() {
        return Err(Unfit::Corrupted("tls.key is not the key of tls.crt".into()));
    }
    let (common_name, _) = fleetctl_kube::certs::names(cert.subject());
    if common_name != expected.common_name() {
        return Err(Unfit::OtherIdentity { found: common_name, wanted: expected.common_name() });
    }
    if let Some(bootstrap) = bootstrap {
        if endpoint.server != bootstrap.server {
            return Err(Unfit::OtherHub { found: endpoint.server, wanted: bootstrap.server.clone() });
        }
        if !fleetctl_kube::certs::same_bundle(&endpoint.ca_pem, &bootstrap.ca_pem) {
            return Err(Unfit::CaChanged);
        }
    }
    let not_after =
        jiff::Timestamp::from_second(cert.validity().not_after.timestamp()).map_err(|e| corrupted("tls.crt", &e))?;
    if now >= not_after {
        return Err(Unfit::Expired(not_after));
    }
    Ok(Stored { cert_pem: cert_pem.clone(), endpoint })
}

/// The public key of a private key in PEM: PKCS#8 (`PRIVATE KEY`, what this agent writes) or
/// SEC1 (`EC PRIVATE KEY`, what upstream's agent writes; the structure holds the public key).
fn public_key(pem: &str) -> Result<Vec<u8>, String> {
    let (_, block) = x509_parser::pem::parse_x509_pem(pem.as_bytes()).map_err(|e| e.to_string())?;
    match block.label.as_str() {
        "EC PRIVATE KEY" => sec1_public_key(&block.contents).ok_or_else(|| "an EC key without its public key".into()),
        _ => rcgen::KeyPair::from_pem(pem).map(|key| key.public_key_raw().to_vec()).map_err(|e| e.to_string()),
    }
}

/// The public key field (`[1] BIT STRING`) of a SEC1 `ECPrivateKey`.
fn sec1_public_key(der: &[u8]) -> Option<Vec<u8>> {
    use x509_parser::der_parser::ber::BerObjectContent;
    use x509_parser::der_parser::der::parse_der;
    let (_, key) = parse_der(der).ok()?;
    let BerObjectContent::Sequence(fields) = key.content else { return None };
    fields.iter().find_map(|field| {
        let BerObjectContent::Unknown(tagged) = &field.content else { return None };
        if tagged.header.tag().0 != 1 {
            return None;
        }
        let (_, inner) = parse_der(tagged.data).ok()?;
        match inner.content {
            BerObjectContent::BitString(_, bits) => Some(bits.data.to_vec()),
            _ => None,
        }
    })
}

fn missing(key: &str) -> Unfit {
    Unfit::Corrupted(format!("no {key}"))
}

fn corrupted(key: &str, error: &dyn std::fmt::Display) -> Unfit {
    Unfit::Corrupted(format!("{key}: {error}"))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use base64::Engine as _;
    use fleetctl_kube::kubeconfig::{Credentials, Names, secret_data};

    use super::*;

    const CLUSTER: &str = "c1";
    const AGENT: &str = "a1";

    /// One P-256 key as upstream's agent writes it (SEC1) and as this one does (PKCS#8).
    const SEC1_KEY: &str = "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIMDQTFCOxFzv1GMWTG70hck974mbDstMBdKwaMhd2Q8KoAoGCCqGSM49
AwEHoUQDQgAEZxrdVTjgLo8bdIVr1umXojmBhM1NMM1W7u21K1caOelJZjbO2yjp
snEy/9rWx6obCD6UqrI6291/dPuBC/DI7w==
-----END EC PRIVATE KEY-----
";
    const PKCS8_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwNBMUI7EXO/UYxZM
bvSFyT3viZsOy0wF0rBoyF3ZDwqhRANCAARnGt1VOOAujxt0hWvW6ZeiOYGEzU0w
zVbu7bUrVxo56UlmNs7bKOmycTL/2tbHqhsIPpSqsjrb3X90+4EL8Mjv
-----END PRIVATE KEY-----
";

    #[test]
    fn an_ec_key_in_sec1_as_upstreams_agent_writes_it_has_the_public_key_of_its_pkcs8_form() {
        let sec1 = public_key(SEC1_KEY).expect("SEC1");
        assert_eq!(sec1.len(), 65, "an uncompressed P-256 point");
        assert_eq!(sec1, public_key(PKCS8_KEY).expect("PKCS#8"));
        assert!(public_key("not a key").is_err());
    }

    /// Upstream's registration agent writes a kubeconfig naming the files of the secret as
    /// mounted (`/spoke/hub-kubeconfig/tls.crt`): they are read from the secret's keys.
    #[test]
    fn a_secret_as_upstreams_agent_writes_it_with_its_files_named_is_fit() {
        let (ca, cert, key) = issued(&expected().common_name(), 3600);
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: hub\n  cluster:\n    server: {HUB}\n    \
             certificate-authority-data: {}\nusers:\n- name: agent\n  user:\n    \
             client-certificate: /spoke/hub-kubeconfig/tls.crt\n    client-key: /spoke/hub-kubeconfig/tls.key\n\
             contexts:\n- name: hub\n  context:\n    cluster: hub\n    user: agent\ncurrent-context: hub\n",
            base64::engine::general_purpose::STANDARD.encode(&ca)
        );
        let upstreams = secret(&[
            ("kubeconfig", &kubeconfig),
            ("tls.crt", &cert),
            ("tls.key", &key),
            ("cluster-name", CLUSTER),
            ("agent-name", AGENT),
        ]);
        let bootstrap = Endpoint { server: HUB.into(), ca_pem: ca };
        let stored = judge(Some(&upstreams), expected(), Some(&bootstrap), jiff::Timestamp::now()).expect("fit");
        assert_eq!(stored.endpoint.server, HUB);
    }

    const HUB: &str = "https://127.0.0.1:6443";

    fn expected() -> Expected<'static> {
        Expected { cluster: CLUSTER, agent_id: AGENT }
    }

    /// A CA and a certificate it signed for `cn`, valid for `seconds`.
    fn issued(cn: &str, seconds: i64) -> (String, String, String) {
        let ca_key = rcgen::KeyPair::generate().expect("key");
        let mut ca_params = rcgen::CertificateParams::default();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca_cert = ca_params.self_signed(&ca_key).expect("ca");
        let issuer = rcgen::Issuer::new(ca_params, ca_key);
        let key = rcgen::KeyPair::generate().expect("key");
        let mut params = rcgen::CertificateParams::default();
        params.distinguished_name.push(rcgen::DnType::CommonName, cn);
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::seconds(60);
        params.not_after = now + time::Duration::seconds(seconds);
        let cert = params.signed_by(&key, &issuer).expect("cert");
        (ca_cert.pem(), cert.pem(), key.serialize_pem())
    }

    fn secret(values: &[(&str, &str)]) -> Secret {
        let values = values.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
        Secret { data: Some(secret_data(values)), ..Secret::default() }
    }

    /// A secret as the agent writes it, and the bootstrap endpoint it fits.
    fn good(cn: &str, seconds: i64) -> (Secret, Endpoint) {
        let (ca, cert, key) = issued(cn, seconds);
        let credentials = Credentials::Certificate { cert_pem: cert.clone(), key_pem: key.clone() };
        let config = kubeconfig::to_yaml(&kubeconfig::single(Names::same("hub"), HUB, &ca, credentials));
        let secret = secret(&[
            ("kubeconfig", &config),
            ("tls.crt", &cert),
            ("tls.key", &key),
            ("cluster-name", CLUSTER),
            ("agent-name", AGENT),
        ]);
        (secret, Endpoint { server: HUB.into(), ca_pem: ca })
    }

    fn with(mut secret: Secret, key: &str, value: &str) -> Secret {
        secret.data.get_or_insert_default().insert(key.into(), k8s_openapi::ByteString(value.as_bytes().to_vec()));
        secret
    }

    fn now() -> jiff::Timestamp {
        jiff::Timestamp::now()
    }

    #[test]
    fn the_secret_the_agent_wrote_fits_its_bootstrap_hub() {
        let (secret, bootstrap) = good(&expected().common_name(), 3600);
        let stored = judge(Some(&secret), expected(), Some(&bootstrap), now()).expect("fits");
        assert_eq!(stored.endpoint, bootstrap);
    }

    #[test]
    fn a_missing_secret_is_missing() {
        assert_eq!(judge(None, expected(), None, now()).unwrap_err(), Unfit::Missing);
    }

    #[test]
    fn unparseable_kubeconfig_certificate_or_key_is_corrupted() {
        let (secret, bootstrap) = good(&expected().common_name(), 3600);
        for key in ["kubeconfig", "tls.crt", "tls.key"] {
            let broken = with(secret.clone(), key, "garbage: [");
            let unfit = judge(Some(&broken), expected(), Some(&bootstrap), now()).unwrap_err();
            assert!(matches!(&unfit, Unfit::Corrupted(why) if why.starts_with(key)), "{key}: {unfit}");
        }
        let (_, _, other_key) = issued(&expected().common_name(), 3600);
        let mismatched = with(secret, "tls.key", &other_key);
        assert_eq!(
            judge(Some(&mismatched), expected(), Some(&bootstrap), now()).unwrap_err(),
            Unfit::Corrupted("tls.key is not the key of tls.crt".into())
        );
    }

    #[test]
    fn a_secret_for_another_cluster_or_agent_is_not_ours() {
        let (secret, bootstrap) = good(&expected().common_name(), 3600);
        let other = with(secret, "cluster-name", "c2");
        assert!(matches!(
            judge(Some(&other), expected(), Some(&bootstrap), now()),
            Err(Unfit::OtherIdentity { found, .. }) if found == "cluster-name c2"
        ));
        let (foreign, bootstrap) = good("system:open-cluster-management:c2:a1", 3600);
        assert!(matches!(
            judge(Some(&foreign), expected(), Some(&bootstrap), now()),
            Err(Unfit::OtherIdentity { found, .. }) if found == "system:open-cluster-management:c2:a1"
        ));
    }

    #[test]
    fn another_hub_or_a_new_ca_in_the_bootstrap_kubeconfig_makes_the_secret_stale() {
        let (secret, bootstrap) = good(&expected().common_name(), 3600);
        let moved = Endpoint { server: "https://hub.example:6443".into(), ..bootstrap.clone() };
        assert!(matches!(judge(Some(&secret), expected(), Some(&moved), now()), Err(Unfit::OtherHub { .. })));
        let (new_ca, _, _) = issued("ca", 3600);
        // The same CA spelled otherwise (re-encoded, as a controller merging bundles does).
        let der = &fleetctl_kube::certs::bundle_certificates(&bootstrap.ca_pem).into_iter().next().expect("der");
        let respelled =
            Endpoint { ca_pem: format!("\n{}", fleetctl_kube::certs::pem_of_der(der)), ..bootstrap.clone() };
        assert!(judge(Some(&secret), expected(), Some(&respelled), now()).is_ok(), "the same CA is no change");
        let rotated = Endpoint { ca_pem: new_ca, ..bootstrap };
        assert_eq!(judge(Some(&secret), expected(), Some(&rotated), now()).unwrap_err(), Unfit::CaChanged);
        assert!(judge(Some(&secret), expected(), None, now()).is_ok(), "no bootstrap: nothing to compare");
    }

    #[test]
    fn an_expired_certificate_is_stale() {
        let (secret, bootstrap) = good(&expected().common_name(), 30);
        let later = now().checked_add(jiff::SignedDuration::from_secs(31)).expect("time");
        assert!(matches!(judge(Some(&secret), expected(), Some(&bootstrap), later), Err(Unfit::Expired(_))));
    }
}
