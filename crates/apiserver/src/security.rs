//! The cluster's security material — CA, serving certificate, token signing key — and
//! the authorizer, created once per cluster and kept beside a durable store.

use std::path::Path;

use super::pki::{CertKey, Pki, PkiError};
use super::rbac::Authorizer;
use super::token::{TokenError, TokenSigner};

/// Why the security material could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    /// Certificates.
    #[error("preparing certificates")]
    Pki(#[from] PkiError),
    /// The token key.
    #[error("preparing the token signing key")]
    Token(#[from] TokenError),
    /// A rotation was begun while another one is under way.
    #[error("the CA of {0} is already rotating: finish it (`retire`) before beginning another")]
    Rotating(String),
    /// Reading or writing the stored material.
    #[error("reading or writing {path}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Everything identity-related of one cluster.
#[derive(Debug)]
pub struct Security {
    /// The CA.
    pub pki: Pki,
    /// The serving certificate (made fresh at every start; it chains to the CA).
    pub serving: CertKey,
    /// ServiceAccount token signer.
    pub tokens: TokenSigner,
    /// RBAC (shared with the admission policies' `authorizer`).
    pub authorizer: std::sync::Arc<Authorizer>,
}

const CA_CERT: &str = "ca.crt";
const CA_KEY: &str = "ca.key";
/// The CA the serving certificate chains to while a rotation has not switched it.
const SERVING_CA_CERT: &str = "ca-serving.crt";
const SERVING_CA_KEY: &str = "ca-serving.key";
/// CA certificates trusted besides the signing one, while a rotation has not retired them.
const TRUSTED_CAS: &str = "ca-trusted.crt";
const SA_KEY: &str = "sa.key";

/// A step of rotating a stopped cluster's CA on its stored material, in the order a
/// kube-apiserver's CA is rotated by hand (kubernetes.io "Manual Rotation of CA
/// Certificates"); the next start works by it. Between the steps, every client gets to
/// learn the bundle, so none ever meets a server certificate it does not trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaRotation {
    /// A new CA signs from now on (CSRs, new client certificates) and is trusted beside
    /// the old one, which the serving certificate still chains to: `kube-root-ca.crt` and
    /// new kubeconfigs carry both.
    Trust,
    /// The serving certificate chains to the new CA.
    Serve,
    /// The old CA is no longer trusted: certificates it issued are refused.
    Retire,
}

impl CaRotation {
    /// The step as `dev serve --rotate-ca` names it.
    pub fn as_arg(self) -> &'static str {
        match self {
            Self::Trust => "trust",
            Self::Serve => "serve",
            Self::Retire => "retire",
        }
    }
}

/// Takes one step of a CA rotation on the material stored in `dir` (the cluster's
/// store, while the cluster is stopped). `Serve` and `Retire` with nothing left to do
/// do nothing.
pub fn rotate_ca(dir: &Path, cluster: &str, step: CaRotation) -> Result<(), SecurityError> {
    let remove = |name: &str| {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(SecurityError::Io { path: path.display().to_string(), source }),
        }
    };
    match step {
        CaRotation::Trust => {
            if read(&dir.join(SERVING_CA_CERT))?.is_some() || read(&dir.join(TRUSTED_CAS))?.is_some() {
                return Err(SecurityError::Rotating(cluster.to_string()));
            }
            let (old, _) = stored(dir, cluster)?;
            let old = old.ca().clone();
            let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            let new = super::pki::new_ca(&format!("fleetctl-dev-ca-{cluster}-{}", seconds.as_secs()))?;
            write(&dir.join(SERVING_CA_CERT), old.cert_pem.as_bytes())?;
            write(&dir.join(SERVING_CA_KEY), old.key_pem.as_bytes())?;
            write(&dir.join(TRUSTED_CAS), old.cert_pem.as_bytes())?;
            write(&dir.join(CA_KEY), new.key_pem.as_bytes())?;
            write(&dir.join(CA_CERT), new.cert_pem.as_bytes())
        }
        CaRotation::Serve => {
            remove(SERVING_CA_CERT)?;
            remove(SERVING_CA_KEY)
        }
        CaRotation::Retire => {
            remove(SERVING_CA_CERT)?;
            remove(SERVING_CA_KEY)?;
            remove(TRUSTED_CAS)
        }
    }
}

impl Security {
    /// New material, or the material stored in `dir` (created there on first use) so a
    /// restarted cluster keeps accepting the kubeconfigs and tokens it issued.
    pub fn load_or_create(dir: Option<&Path>, cluster: &str) -> Result<Self, SecurityError> {
        let (pki, tokens) = match dir {
            None => (Pki::generate(cluster)?, TokenSigner::generate()?),
            Some(dir) => stored(dir, cluster)?,
        };
        let serving = pki.serving()?;
        Ok(Self { pki, serving, tokens, authorizer: std::sync::Arc::default() })
    }
}

fn read(path: &Path) -> Result<Option<Vec<u8>>, SecurityError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SecurityError::Io { path: path.display().to_string(), source }),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), SecurityError> {
    fleetctl_apimachinery::private_file::write_private(path, bytes)
        .map_err(|source| SecurityError::Io { path: path.display().to_string(), source })
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A certificate and key stored as two files, if both are there.
fn stored_pair(dir: &Path, cert: &str, key: &str) -> Result<Option<CertKey>, SecurityError> {
    Ok(match (read(&dir.join(cert))?, read(&dir.join(key))?) {
        (Some(cert), Some(key)) => Some(CertKey { cert_pem: text(cert), key_pem: text(key) }),
        _ => None,
    })
}

fn stored(dir: &Path, cluster: &str) -> Result<(Pki, TokenSigner), SecurityError> {
    let pki = match stored_pair(dir, CA_CERT, CA_KEY)? {
        Some(ca) => {
            let serving = stored_pair(dir, SERVING_CA_CERT, SERVING_CA_KEY)?;
            let trusted = read(&dir.join(TRUSTED_CAS))?.map(text).unwrap_or_default();
            Pki::rotating(ca, serving.as_ref(), &trusted)?
        }
        None => {
            let pki = Pki::generate(cluster)?;
            write(&dir.join(CA_KEY), pki.ca().key_pem.as_bytes())?;
            write(&dir.join(CA_CERT), pki.ca().cert_pem.as_bytes())?;
            pki
        }
    };
    let tokens = match read(&dir.join(SA_KEY))? {
        Some(pkcs8) => TokenSigner::from_pkcs8(&pkcs8)?,
        None => {
            let tokens = TokenSigner::generate()?;
            write(&dir.join(SA_KEY), tokens.pkcs8())?;
            tokens
        }
    };
    Ok((pki, tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(pem: &str, issuer: bool) -> Vec<String> {
        super::super::pki::pem_certs(pem)
            .iter()
            .map(|der| {
                let (_, cert) = x509_parser::parse_x509_certificate(der).expect("x509");
                if issuer { cert.issuer() } else { cert.subject() }.to_string()
            })
            .collect()
    }

    fn issuer(pem: &str) -> String {
        names(pem, true).remove(0)
    }

    #[test]
    fn a_ca_rotation_trusts_the_new_ca_first_then_serves_by_it_then_retires_the_old_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dir = dir.path();
        let load = || Security::load_or_create(Some(dir), "c").expect("load");
        let old = names(&load().pki.ca().cert_pem, false).remove(0);

        rotate_ca(dir, "c", CaRotation::Trust).expect("trust");
        let trusting = load();
        let new = names(&trusting.pki.ca().cert_pem, false).remove(0);
        assert_ne!(old, new);
        assert_eq!(names(trusting.pki.trust_bundle(), false), [old.clone(), new.clone()], "old and new trusted");
        assert_eq!(issuer(&trusting.serving.cert_pem), old, "the old CA still serves");
        assert_eq!(issuer(&trusting.pki.client("u", &[]).expect("client").cert_pem), new, "the new CA signs");
        assert!(matches!(rotate_ca(dir, "c", CaRotation::Trust), Err(SecurityError::Rotating(_))));

        rotate_ca(dir, "c", CaRotation::Serve).expect("serve");
        let serving = load();
        assert_eq!(issuer(&serving.serving.cert_pem), new, "the new CA serves");
        assert_eq!(names(serving.pki.trust_bundle(), false), [old, new.clone()], "both still trusted");

        rotate_ca(dir, "c", CaRotation::Retire).expect("retire");
        assert_eq!(names(load().pki.trust_bundle(), false), [new], "the old CA retired");
    }
}
