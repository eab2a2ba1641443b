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
const SA_KEY: &str = "sa.key";

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
    crate::serve::write_private(path, bytes)
        .map_err(|source| SecurityError::Io { path: path.display().to_string(), source })
}

fn stored(dir: &Path, cluster: &str) -> Result<(Pki, TokenSigner), SecurityError> {
    let cert = read(&dir.join(CA_CERT))?;
    let key = read(&dir.join(CA_KEY))?;
    let pki = match (cert, key) {
        (Some(cert), Some(key)) => Pki::load(CertKey {
            cert_pem: String::from_utf8_lossy(&cert).into_owned(),
            key_pem: String::from_utf8_lossy(&key).into_owned(),
        })?,
        _ => {
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
