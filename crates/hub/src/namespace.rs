//! A cluster's namespace on the hub, which both the import and the registration controller
//! need (whichever runs first makes it).

use fleetctl_api::conditions::{LABEL_CLUSTER_NAME, LABEL_MANAGED_CLUSTER};
use fleetctl_api::names::ANNOTATION_CREATED_FOR_CLUSTER;
use fleetctl_kube::kube_error;
use fleetctl_kube::objects::{self, MetaExt, labels, meta};
use k8s_openapi::api::core::v1::Namespace;
use kube::ResourceExt;
use kube::api::Api;

use super::context::{Ctx, HUB, HubError};

/// The cluster namespace, with the upstream labels. One the hub (or `fleetctl import`)
/// makes is marked as made for this cluster, so detach may delete it; one that existed
/// before is only labelled.
pub async fn ensure(ctx: &Ctx, cluster: &str) -> Result<(), HubError> {
    // Whether it was made for the cluster is decided once; what was written stands.
    if ctx.written.holds::<Namespace>(None, cluster) {
        return Ok(());
    }
    let namespaces = Api::<Namespace>::all(ctx.client.clone());
    let labelled = meta(cluster).with_labels(labels([(LABEL_MANAGED_CLUSTER, cluster), (LABEL_CLUSTER_NAME, cluster)]));
    let existing = namespaces.get_opt(cluster).await.map_err(kube_error(format!("reading namespace {cluster}")))?;
    // The mark stays in every apply once made: an apply that left it out would drop it.
    let made_for_it =
        existing.is_none_or(|ns| ns.annotations().get(ANNOTATION_CREATED_FOR_CLUSTER).is_some_and(|c| c == cluster));
    let namespace = if made_for_it {
        objects::namespace(labelled.with_annotations(labels([(ANNOTATION_CREATED_FOR_CLUSTER, cluster)])))
    } else {
        objects::namespace(labelled)
    };
    ctx.written.apply(HUB, &namespaces, &namespace).await?;
    Ok(())
}
