//! A cluster being moved to another hub (`fleetctl move`): [`ANNOTATION_MOVING_TO`] on the
//! cluster and, in its namespace, the new hub's bootstrap kubeconfig ([`move_secret`]). Its
//! klusterlet works carry that kubeconfig in place of this hub's, so the registration agent
//! bootstraps with the new hub (upstream's rule: a bootstrap kubeconfig of another hub than its
//! hub kubeconfig's is a switch of hubs), and orphan what they applied when they are deleted:
//! once the cluster has joined the new hub, this one forgets it without touching it. The
//! import secret is not written again (its token is this hub's).

use fleetctl_api::names::{ANNOTATION_MOVING_TO, move_secret};
use fleetctl_api::operator::InstallMode;
use fleetctl_api::work::{DeleteOption, DeletePropagationPolicy};
use fleetctl_api::{ManagedCluster, ManifestWork};
use fleetctl_kube::errors::chain;
use fleetctl_kube::kube_error;
use fleetctl_kube::kubeconfig::{self, secret_text};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::{Resource, ResourceExt};

use super::secret::klusterlet_crd;
use crate::context::{Ctx, HUB, HubError};
use crate::manifests::import::{self, ImportInputs};
use crate::works;

/// Whether the cluster is being moved to another hub.
pub(super) fn is_moving(cluster: &ManagedCluster) -> bool {
    cluster.annotations().contains_key(ANNOTATION_MOVING_TO)
}

/// What the klusterlet is handed: the new hub's address, CA and bootstrap token.
#[derive(Debug, PartialEq, Eq)]
struct Destination {
    url: String,
    ca_pem: String,
    token: String,
}

/// The new hub of a moving cluster, from its move secret. [`HubError::Moving`] says what is
/// wrong with it (never what it holds).
async fn destination(ctx: &Ctx, cluster: &str) -> Result<Destination, HubError> {
    let name = move_secret(cluster);
    let refuse = |why: String| HubError::Moving { cluster: cluster.to_string(), why };
    let secret = Api::<Secret>::namespaced(ctx.client.clone(), cluster)
        .get_opt(&name)
        .await
        .map_err(kube_error(format!("reading secret {cluster}/{name}")))?
        .ok_or_else(|| refuse(format!("secret {cluster}/{name} with the new hub's bootstrap kubeconfig is missing")))?;
    let text = secret_text(&secret);
    let parsed = kubeconfig::in_secret(&text).map_err(|e| refuse(format!("secret {cluster}/{name}: {}", chain(&e))))?;
    let endpoint =
        kubeconfig::endpoint(&parsed).map_err(|e| refuse(format!("secret {cluster}/{name}: {}", chain(&e))))?;
    let token = kubeconfig::token(&parsed)
        .ok_or_else(|| refuse(format!("the kubeconfig of secret {cluster}/{name} has no bootstrap token")))?;
    Ok(Destination { url: endpoint.server, ca_pem: endpoint.ca_pem, token })
}

/// Writes the klusterlet works of a moving cluster: the klusterlet of `image` (and `mode`) with
/// the new hub's bootstrap kubeconfig, orphaned when deleted.
pub(super) async fn hand_over(
    ctx: &Ctx,
    cluster: &ManagedCluster,
    image: &str,
    image_pull_secret: Option<&ByteString>,
    mode: InstallMode,
) -> Result<(), HubError> {
    let name = cluster.name_any();
    let to = destination(ctx, &name).await?;
    let inputs = ImportInputs {
        cluster: &name,
        hub_url: &to.url,
        hub_ca_pem: &to.ca_pem,
        token: &to.token,
        image,
        image_pull_secret,
        mode,
        recovery: None,
    };
    let owner = cluster.controller_owner_ref(&()).ok_or_else(|| HubError::NoUid(name.clone()))?;
    let works_api: Api<ManifestWork> = Api::namespaced(ctx.client.clone(), &name);
    for mut work in works::klusterlet_works(&name, vec![klusterlet_crd().clone()], import::objects(&inputs), &owner) {
        work.spec.delete_option =
            Some(DeleteOption { propagation_policy: DeletePropagationPolicy::Orphan, ..DeleteOption::default() });
        ctx.written.apply(HUB, &works_api, &work).await?;
    }
    tracing::info!(cluster = %name, to = %to.url, "moving: the klusterlet is handed the new hub's bootstrap kubeconfig");
    Ok(())
}
