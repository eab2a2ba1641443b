//! What an earlier version of the operator rendered for a Klusterlet and this one does not —
//! RBAC under fleetctl's former names, before it took upstream's — deleted, found through
//! the operator's label ([`LABEL_KLUSTERLET`]): only what an operator of fleetctl's made.

use std::collections::BTreeSet;
use std::fmt::Debug;

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::api::{Api, DeleteParams, ListParams};
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use super::render::{Desired, LABEL_KLUSTERLET};
use super::{Context, OperatorError};
use fleetctl_kube::kube_error;
use fleetctl_kube::reconcile::delete;

/// Deletes the Klusterlet's labelled RBAC that `desired` does not hold.
pub async fn rbac(ctx: &Context, klusterlet: &str, desired: &Desired) -> Result<(), OperatorError> {
    let selector = format!("{LABEL_KLUSTERLET}={klusterlet}");
    let client = &ctx.client;
    cluster_scoped::<ClusterRole>(client, &selector, &desired.cluster_roles).await?;
    cluster_scoped::<ClusterRoleBinding>(client, &selector, &desired.cluster_role_bindings).await?;
    namespaced::<Role>(client, &selector, &desired.roles).await?;
    namespaced::<RoleBinding>(client, &selector, &desired.role_bindings).await?;
    Ok(())
}

/// The labelled objects of a kind that are not among `desired`.
async fn stale<K>(api: Api<K>, selector: &str, desired: &[K]) -> Result<Vec<K>, OperatorError>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
{
    let keep: BTreeSet<(Option<String>, String)> = desired.iter().map(|o| (o.namespace(), o.name_any())).collect();
    let live = api
        .list(&ListParams::default().labels(selector))
        .await
        .map_err(kube_error(format!("listing the operator's {}s", K::kind(&()))))?;
    Ok(live.items.into_iter().filter(|o| !keep.contains(&(o.namespace(), o.name_any()))).collect())
}

async fn cluster_scoped<K>(client: &Client, selector: &str, desired: &[K]) -> Result<(), OperatorError>
where
    K: Resource<DynamicType = (), Scope = ClusterResourceScope> + Clone + DeserializeOwned + Debug,
{
    let api: Api<K> = Api::all(client.clone());
    for object in stale(api.clone(), selector, desired).await? {
        tracing::info!(kind = %K::kind(&()), name = %object.name_any(), "no longer rendered: deleted");
        delete(&api, &object.name_any(), &DeleteParams::background()).await?;
    }
    Ok(())
}

async fn namespaced<K>(client: &Client, selector: &str, desired: &[K]) -> Result<(), OperatorError>
where
    K: Resource<DynamicType = (), Scope = NamespaceResourceScope> + Clone + DeserializeOwned + Debug,
{
    for object in stale(Api::all(client.clone()), selector, desired).await? {
        let Some(namespace) = object.namespace() else { continue };
        tracing::info!(kind = %K::kind(&()), %namespace, name = %object.name_any(), "no longer rendered: deleted");
        delete(&Api::<K>::namespaced(client.clone(), &namespace), &object.name_any(), &DeleteParams::background())
            .await?;
    }
    Ok(())
}
