//! What a Pod gets of its ServiceAccount, as a kubelet projects it: a token, the cluster
//! CA and the namespace, in the layout of `/var/run/secrets/kubernetes.io/serviceaccount`;
//! and, for containers that cannot be given that path, a kubeconfig with the same token.
//!
//! ```text
//! <pod dir>/kubeconfig                                        (0600)
//! <pod dir>/run/secrets/kubernetes.io/serviceaccount/token    (0644)
//!                                                    ca.crt
//!                                                    namespace
//! ```
//!
//! `<pod dir>/run` stands in for the Pod's `/run` (and so `/var/run`): a process in a mount
//! namespace of its own gets it bound there. The files are readable by any user, as a
//! kubelet's projected volume is (a container runs as its image's user); the Pod's
//! directory itself is its node's, mode 0700.

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use fleetctl_kube::kubeconfig::{self, Credentials as KubeCredentials, Names};

use super::process::private_dir;

/// Where a Pod's ServiceAccount files are mounted in its containers.
pub const SERVICE_ACCOUNT_MOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// A Pod's credentials on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The kubeconfig with the token.
    pub kubeconfig: PathBuf,
    /// The directory holding `token`, `ca.crt` and `namespace`.
    pub service_account: PathBuf,
    /// The directory to bind over `/run` in a mount namespace of the Pod's own.
    pub run: PathBuf,
}

impl Credentials {
    /// The files of the Pod whose directory is `pod_dir`.
    pub fn under(pod_dir: &Path) -> Self {
        let run = pod_dir.join("run");
        Self {
            kubeconfig: pod_dir.join("kubeconfig"),
            service_account: run.join("secrets/kubernetes.io/serviceaccount"),
            run,
        }
    }

    /// Writes them for a token of the Pod's ServiceAccount in `namespace`.
    pub fn write(&self, server_url: &str, ca_pem: &str, namespace: &str, token: &str) -> std::io::Result<()> {
        let names = Names { cluster: "cluster", user: "pod", context: "pod" };
        let config = kubeconfig::single(names, server_url, ca_pem, KubeCredentials::Token(token.to_string()));
        if let Some(dir) = self.kubeconfig.parent() {
            private_dir(dir)?;
        }
        fleetctl_apimachinery::private_file::write_private(&self.kubeconfig, kubeconfig::to_yaml(&config).as_bytes())?;
        std::fs::DirBuilder::new().recursive(true).mode(0o755).create(&self.service_account)?;
        for (file, contents) in [("token", token), ("ca.crt", ca_pem), ("namespace", namespace)] {
            write_readable(&self.service_account.join(file), contents.as_bytes())?;
        }
        Ok(())
    }
}

/// Writes a file readable by everyone, atomically (a reader never sees half of it).
fn write_readable(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o644).open(&tmp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_pod_gets_the_projected_files_and_a_private_kubeconfig() {
        let dir = tempfile::tempdir().unwrap();
        let credentials = Credentials::under(&dir.path().join("ns_pod"));
        credentials.write("https://127.0.0.1:1", "CA", "ns", "t0k").unwrap();
        let read = |file: &str| std::fs::read_to_string(credentials.service_account.join(file)).unwrap();
        assert_eq!((read("token"), read("ca.crt"), read("namespace")), ("t0k".into(), "CA".into(), "ns".into()));
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&credentials.service_account.join("token")), 0o644);
        assert_eq!(mode(&credentials.kubeconfig), 0o600);
        assert_eq!(mode(&dir.path().join("ns_pod")), 0o700);
        assert!(credentials.service_account.starts_with(&credentials.run));
        assert!(credentials.service_account.ends_with(SERVICE_ACCOUNT_MOUNT.trim_start_matches("/var/run/")));
        // A rewrite (a refreshed token) replaces the files in place.
        credentials.write("https://127.0.0.1:1", "CA", "ns", "t1k").unwrap();
        assert_eq!(read("token"), "t1k");
    }
}
