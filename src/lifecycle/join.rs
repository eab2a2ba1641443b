//! Import into a plain OCM hub — cluster-manager, no import controller — the way
//! `clusteradm` joins a cluster, with fleetctl's klusterlet:
//!
//! - the hub's bootstrap identity, the ServiceAccount
//!   `open-cluster-management/agent-registration-bootstrap` that `clusteradm init` makes: a
//!   token of it for an hour, as `clusteradm get token` hands out;
//! - the hub's CA as `clusteradm join` reads it: the kubeconfig of `kube-public/cluster-info`,
//!   else `kube-public/kube-root-ca.crt`;
//! - the klusterlet rendered here exactly as fleetctl's hub renders an import secret, and
//!   applied to the target;
//! - then what `clusteradm accept` does: the cluster's pending CSR from a bootstrap identity
//!   approved (the ManagedCluster was written accepted beforehand).
//!
//! A detach there ends as `clusteradm unjoin` does: nothing on such a hub removes the
//! klusterlet, so detach removes it from the target itself.

use std::time::Duration;

use futures::TryStreamExt;
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::certificates::v1::{
    CertificateSigningRequest, CertificateSigningRequestCondition, CertificateSigningRequestStatus,
};
use k8s_openapi::api::core::v1::{ConfigMap, ServiceAccount};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};

use super::LifecycleError;
use fleetctl_api::ManifestWork;
use fleetctl_api::conditions::LABEL_CLUSTER_NAME;
use fleetctl_api::names::{
    BOOTSTRAP_SERVICE_ACCOUNT, OCM_NAMESPACE, ROOT_CA_CONFIGMAP, default_image, is_hub_bootstrap_user,
};
use fleetctl_api::operator::InstallMode;
use fleetctl_hub::manifests::import::{ImportInputs, objects};
use fleetctl_kube::{kube_error, kubeconfig};

/// How long the bootstrap token lives (`clusteradm get token`'s hour).
const TOKEN_SECONDS: i64 = 3600;
/// The namespace every user may read the hub's public facts from.
const PUBLIC_NAMESPACE: &str = "kube-public";
/// kubeadm's public ConfigMap of the cluster's address and CA.
const CLUSTER_INFO: &str = "cluster-info";

/// Whether the hub has OCM's bootstrap identity, which clusters join with.
pub async fn has_bootstrap_identity(hub: &Client) -> Result<bool, LifecycleError> {
    let accounts: Api<ServiceAccount> = Api::namespaced(hub.clone(), OCM_NAMESPACE);
    let found = accounts.get_opt(BOOTSTRAP_SERVICE_ACCOUNT).await;
    Ok(found.map_err(super::hub_read("get", "serviceaccounts"))?.is_some())
}

/// The klusterlet for cluster `name`: `crds.yaml` and `import.yaml`, with a bootstrap
/// kubeconfig of a fresh token of the hub's bootstrap identity.
pub async fn manifests(
    hub: &Client,
    hub_url: &str,
    name: &str,
    mode: InstallMode,
) -> Result<(String, String), LifecycleError> {
    let ca = hub_ca(hub).await?;
    let request = TokenRequest {
        spec: TokenRequestSpec { expiration_seconds: Some(TOKEN_SECONDS), ..TokenRequestSpec::default() },
        ..TokenRequest::default()
    };
    let token = Api::<ServiceAccount>::namespaced(hub.clone(), OCM_NAMESPACE)
        .create_token_request(BOOTSTRAP_SERVICE_ACCOUNT, &PostParams::default(), &request)
        .await
        .map_err(kube_error(format!("asking a token of {OCM_NAMESPACE}/{BOOTSTRAP_SERVICE_ACCOUNT}")))?
        .status
        .map(|s| s.token)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| LifecycleError::Failed(format!("the hub issued no token for {BOOTSTRAP_SERVICE_ACCOUNT}")))?;
    let image = default_image();
    let inputs = ImportInputs {
        cluster: name,
        hub_url,
        hub_ca_pem: &ca,
        token: &token,
        image: &image,
        image_pull_secret: None,
        mode,
        recovery: None,
    };
    let import = fleetctl_hub::manifests::to_yaml(&objects(&inputs));
    Ok((fleetctl_hub::import::crds_yaml().to_string(), import))
}

/// The hub's CA bundle (PEM) as `clusteradm join` finds it.
async fn hub_ca(hub: &Client) -> Result<String, LifecycleError> {
    let public: Api<ConfigMap> = Api::namespaced(hub.clone(), PUBLIC_NAMESPACE);
    let read = super::hub_read("get", "configmaps");
    let from_cluster_info = public.get_opt(CLUSTER_INFO).await.map_err(&read)?.and_then(|info| {
        let text = info.data?.remove("kubeconfig")?;
        let endpoint = kubeconfig::endpoint(&kubeconfig::parse(&text).ok()?).ok()?;
        Some(endpoint.ca_pem).filter(|ca| !ca.trim().is_empty())
    });
    if let Some(ca) = from_cluster_info {
        return Ok(ca);
    }
    public
        .get_opt(ROOT_CA_CONFIGMAP)
        .await
        .map_err(read)?
        .and_then(|map| map.data?.remove("ca.crt"))
        .filter(|ca| !ca.trim().is_empty())
        .ok_or_else(|| {
            LifecycleError::Refused(format!(
                "the hub publishes no CA bundle ({PUBLIC_NAMESPACE}/{CLUSTER_INFO} or \
                 {PUBLIC_NAMESPACE}/{ROOT_CA_CONFIGMAP}) for the klusterlet to trust it by"
            ))
        })
}

/// What `clusteradm accept` does to the CSRs of cluster `name`: approves the first pending
/// one a bootstrap identity asked for a client certificate with, when it comes; done at once
/// when one is approved already (a rerun).
pub async fn approve_csr(hub: &Client, name: &str, timeout: Duration) -> Result<(), LifecycleError> {
    let csrs: Api<CertificateSigningRequest> = Api::all(hub.clone());
    let config = watcher::Config::default().labels(&format!("{LABEL_CLUSTER_NAME}={name}"));
    let what = format!("the klusterlet of {name} to ask the hub for a certificate");
    let approved = async {
        let mut csrs_seen = std::pin::pin!(watcher(csrs.clone(), config).applied_objects());
        while let Some(csr) = csrs_seen.try_next().await.map_err(|source| LifecycleError::Watch {
            what: what.clone(),
            source: kube::runtime::wait::Error::ProbeFailed(source),
        })? {
            match state(&csr) {
                State::Approved => return Ok(()),
                State::Pending if joins(&csr, name) => {
                    let approval = approval(&csr);
                    csrs.patch_approval(&csr.name_any(), &PatchParams::default(), &Patch::Merge(&approval))
                        .await
                        .map_err(kube_error(format!("approving the CSR {}", csr.name_any())))?;
                    return Ok(());
                }
                State::Pending | State::Decided => {}
            }
        }
        Err(LifecycleError::Failed(format!("the watch of {name}'s CSRs ended")))
    };
    tokio::time::timeout(timeout, approved)
        .await
        .unwrap_or_else(|_| Err(LifecycleError::Timeout { what, after: timeout }))
}

/// Waits until the hub holds no ManifestWork for cluster `name` any more: on a detach, OCM's
/// hub deletes them once the ManagedCluster goes, and the work agent removes what they
/// applied — which it must still be there to do.
pub async fn works_gone(hub: &Client, name: &str, timeout: Duration) -> Result<(), LifecycleError> {
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), name);
    let what = format!("the works of cluster {name} to be removed");
    let gone = async {
        let mut left = std::collections::BTreeSet::new();
        let mut listed = false;
        let mut events = std::pin::pin!(watcher(works, watcher::Config::default()));
        while let Some(event) = events.try_next().await.map_err(|source| LifecycleError::Watch {
            what: what.clone(),
            source: kube::runtime::wait::Error::ProbeFailed(source),
        })? {
            match event {
                watcher::Event::Init => left.clear(),
                watcher::Event::InitApply(work) | watcher::Event::Apply(work) => {
                    left.insert(work.name_any());
                }
                watcher::Event::Delete(work) => {
                    left.remove(&work.name_any());
                }
                watcher::Event::InitDone => listed = true,
            }
            if listed && left.is_empty() {
                return Ok(());
            }
        }
        Err(LifecycleError::Failed(format!("the watch of cluster {name}'s works ended")))
    };
    tokio::time::timeout(timeout, gone).await.unwrap_or_else(|_| Err(LifecycleError::Timeout { what, after: timeout }))
}

/// Where a CSR stands.
enum State {
    Pending,
    Approved,
    /// Denied or failed.
    Decided,
}

fn state(csr: &CertificateSigningRequest) -> State {
    let conditions = csr.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or(&[]);
    let has = |kind: &str| conditions.iter().any(|c| c.type_ == kind && c.status == "True");
    if has("Approved") {
        State::Approved
    } else if has("Denied") || has("Failed") {
        State::Decided
    } else {
        State::Pending
    }
}

/// Whether a CSR is cluster `name`'s first: asked by a bootstrap identity, for what a
/// registration agent of `name` may have (as fleetctl's hub judges it) — not merely
/// labelled with the cluster's name, which any holder of the hub-wide token could do.
fn joins(csr: &CertificateSigningRequest, name: &str) -> bool {
    let bootstrap = csr.spec.username.as_deref().is_some_and(is_hub_bootstrap_user);
    bootstrap && fleetctl_hub::registration::approval::agent_request(csr, name).is_ok()
}

/// The approval, as `clusteradm accept` words its own.
fn approval(csr: &CertificateSigningRequest) -> CertificateSigningRequest {
    let condition = CertificateSigningRequestCondition {
        type_: "Approved".into(),
        status: "True".into(),
        reason: Some("fleetctl import".into()),
        message: Some("This CSR was approved by fleetctl import, as clusteradm accept approves it.".into()),
        last_update_time: Some(Time(jiff::Timestamp::now())),
        ..CertificateSigningRequestCondition::default()
    };
    CertificateSigningRequest {
        metadata: csr.metadata.clone(),
        spec: csr.spec.clone(),
        status: Some(CertificateSigningRequestStatus { conditions: Some(vec![condition]), certificate: None }),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::ByteString;
    use k8s_openapi::api::certificates::v1::CertificateSigningRequestSpec;

    use super::*;

    const BOOTSTRAP: &str = "system:serviceaccount:open-cluster-management:agent-registration-bootstrap";
    const CLIENT_SIGNER: &str = "kubernetes.io/kube-apiserver-client";

    fn csr(user: &str, signer: &str, for_cluster: &str) -> CertificateSigningRequest {
        let (pem, _key) = fleetctl_agent::registration::request(for_cluster, "agent1").expect("a CSR");
        CertificateSigningRequest {
            spec: CertificateSigningRequestSpec {
                username: Some(user.into()),
                signer_name: signer.into(),
                request: ByteString(pem.into_bytes()),
                usages: Some(vec!["digital signature".into(), "key encipherment".into(), "client auth".into()]),
                ..CertificateSigningRequestSpec::default()
            },
            ..CertificateSigningRequest::default()
        }
    }

    #[test]
    fn only_a_bootstrap_identitys_request_for_the_clusters_agent_is_approved_as_clusteradm_accept_approves() {
        assert!(joins(&csr(BOOTSTRAP, CLIENT_SIGNER, "cluster1"), "cluster1"));
        assert!(joins(&csr("system:bootstrap:abcdef", CLIENT_SIGNER, "cluster1"), "cluster1"));
        // Labelled cluster1 but asking for another cluster's identity: not cluster1's join.
        assert!(!joins(&csr(BOOTSTRAP, CLIENT_SIGNER, "cluster2"), "cluster1"));
        // A renewal comes from the cluster's own identity; another signer is not a join.
        assert!(!joins(&csr("system:open-cluster-management:cluster1:agent1", CLIENT_SIGNER, "cluster1"), "cluster1"));
        assert!(!joins(&csr(BOOTSTRAP, "kubernetes.io/kubelet-serving", "cluster1"), "cluster1"));
        let approved = approval(&csr(BOOTSTRAP, CLIENT_SIGNER, "cluster1"));
        assert!(matches!(state(&approved), State::Approved));
        assert!(matches!(state(&csr(BOOTSTRAP, CLIENT_SIGNER, "cluster1")), State::Pending));
    }
}
