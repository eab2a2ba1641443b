//! One operator per Klusterlet. The klusterlet operator's Deployment is `klusterlet`,
//! labelled `app: klusterlet`, in the import manifests' namespace (fleetctl's and ACM's:
//! `open-cluster-management-agent`) or `clusteradm join`'s (`open-cluster-management`). When
//! another hand installs a second operator beside the running one — a hub told to put its
//! klusterlet on a cluster that joined with upstream's, or `clusteradm join` on a cluster
//! that ran fleetctl's — the two would render the same Klusterlet's agents in turn, each with
//! its own images. The newer one has taken over: this operator retires an older operator
//! Deployment of another namespace, and stands by while a newer one runs.

use k8s_openapi::api::apps::v1::Deployment;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams};

use super::{Context, OperatorError};
use fleetctl_api::names::KLUSTERLET;
use fleetctl_kube::kube_error;
use fleetctl_kube::reconcile::delete;

/// The label every klusterlet operator Deployment carries (upstream's chart, clusteradm's and
/// ACM's import manifests, fleetctl's).
const OPERATOR_APP: &str = "app=klusterlet";

/// Who runs the Klusterlet's agents, as this operator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operators {
    /// This one: no other operator, or only older ones (now retired).
    This,
    /// A newer operator, in the namespace named, took the Klusterlet over.
    Newer(String),
}

/// Retires operators older than this one's Deployment and tells whether a newer one runs.
/// An operator whose own Deployment is not found (run by hand) retires nothing.
pub async fn settle(ctx: &Context) -> Result<Operators, OperatorError> {
    let api: Api<Deployment> = Api::all(ctx.client.clone());
    let params = ListParams::default().labels(OPERATOR_APP).fields(&format!("metadata.name={KLUSTERLET}"));
    let operators = api.list(&params).await.map_err(kube_error("listing the klusterlet operators"))?.items;
    let own = &ctx.settings.namespace;
    let Some(this) = operators.iter().find(|d| d.namespace().as_ref() == Some(own)) else {
        return Ok(Operators::This);
    };
    match decide(this, &operators) {
        Decision::Retire(older) => {
            for namespace in older {
                tracing::info!(%namespace, "an older klusterlet operator: retired, this one took over");
                delete(
                    &Api::<Deployment>::namespaced(ctx.client.clone(), &namespace),
                    KLUSTERLET,
                    &DeleteParams::background(),
                )
                .await?;
            }
            Ok(Operators::This)
        }
        Decision::StandBy(newer) => Ok(Operators::Newer(newer)),
    }
}

/// What to do about the other operators.
#[derive(Debug, PartialEq, Eq)]
enum Decision {
    /// Delete these (namespaces of older operators; maybe none).
    Retire(Vec<String>),
    /// A newer operator runs in this namespace.
    StandBy(String),
}

/// The decision for `this` among `operators` (which include it): the newest by creation
/// time wins; equal times fall to the namespace's name, so two operators never both stand by.
fn decide(this: &Deployment, operators: &[Deployment]) -> Decision {
    let key = |d: &Deployment| (d.creation_timestamp().map(|t| t.0), d.namespace().unwrap_or_default());
    let this_key = key(this);
    let others = operators.iter().filter(|d| d.namespace() != this.namespace());
    if let Some(newer) = others.clone().filter(|d| key(d) > this_key).max_by_key(|d| key(d)) {
        return Decision::StandBy(newer.namespace().unwrap_or_default());
    }
    Decision::Retire(others.filter_map(ResourceExt::namespace).collect())
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    use super::*;

    fn operator(namespace: &str, created: &str) -> Deployment {
        let mut d = Deployment::default();
        d.metadata.name = Some(KLUSTERLET.into());
        d.metadata.namespace = Some(namespace.into());
        d.metadata.creation_timestamp = Some(Time(created.parse().unwrap()));
        d
    }

    #[test]
    fn the_newest_operator_of_a_klusterlet_takes_it_over_and_the_older_ones_are_retired() {
        let ours = operator("open-cluster-management-agent", "2026-12-06T10:00:00Z");
        let clusteradms = operator("open-cluster-management", "2026-12-01T10:00:00Z");
        let both = [ours.clone(), clusteradms.clone()];
        assert_eq!(decide(&ours, &both), Decision::Retire(vec!["open-cluster-management".into()]));
        assert_eq!(decide(&clusteradms, &both), Decision::StandBy("open-cluster-management-agent".into()));
        assert_eq!(decide(&ours, std::slice::from_ref(&ours)), Decision::Retire(vec![]), "alone: nothing to retire");
    }

    #[test]
    fn operators_made_in_the_same_second_are_told_apart_by_namespace() {
        let a = operator("a", "2026-12-06T10:00:00Z");
        let b = operator("b", "2026-12-06T10:00:00Z");
        let both = [a.clone(), b.clone()];
        assert_eq!(decide(&b, &both), Decision::Retire(vec!["a".into()]));
        assert_eq!(decide(&a, &both), Decision::StandBy("b".into()));
    }
}
