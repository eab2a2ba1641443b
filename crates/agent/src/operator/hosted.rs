//! A Hosted Klusterlet (`deployOption.mode: Hosted`), as upstream's operator keeps one: its
//! agents run on this cluster (the management cluster), in the namespace named as the
//! Klusterlet (the operator makes it), and reach the managed cluster through the kubeconfig
//! its owner writes into that namespace ([`EXTERNAL_MANAGED_KUBECONFIG`]); `ReadyToApply` says
//! whether that kubeconfig is there and usable. On the managed cluster the operator keeps
//! the AppliedManifestWork CRD, the klusterlet and addon namespaces, and the agents'
//! ServiceAccounts with their rules; the agents get kubeconfigs with tokens of those
//! ServiceAccounts (`external-managed-kubeconfig-registration`, `-work`), refreshed before they
//! expire. Deleted, it removes the agents, their records and what it made on both clusters —
//! the agents' namespace here last, as it holds the kubeconfig the cleanup reaches the managed
//! cluster with — never the operator, which serves every Klusterlet here.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{Namespace, Secret, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, PostParams};
use kube::runtime::controller::Action;
use kube::{Client, Resource, ResourceExt};

use super::cleanup::{hub_notified, release_applied_works, stop_agents};
use super::reconcile::{Agents, applied, apply_failed, install_on, namespace_of, ready_to_apply, update_status};
use super::render::{APPLIED_MANIFEST_WORK_CRD, Desired, Hosted, LABEL_KLUSTERLET, render_hosted};
use super::{Context, OPERATOR, OperatorError};
use fleetctl_api::Klusterlet;
use fleetctl_api::names::EXTERNAL_MANAGED_KUBECONFIG;
use fleetctl_kube::errors::chain;
use fleetctl_kube::kube_error;
use fleetctl_kube::kubeconfig::{self, Credentials, Endpoint, Names, secret_data};
use fleetctl_kube::objects::{self, MetaExt, labels, meta, namespaced_meta};
use fleetctl_kube::reconcile::delete;

/// How long the agents' tokens on the managed cluster last, in seconds (30 days).
const TOKEN_SECONDS: i64 = 30 * 24 * 3600;
/// A token is asked for again with a fifth of its life left.
const RENEW_BEFORE: jiff::SignedDuration = jiff::SignedDuration::from_secs(TOKEN_SECONDS / 5);
/// Annotation on an agent's kubeconfig Secret: when its token expires (RFC 3339).
const ANNOTATION_TOKEN_EXPIRES: &str = "fleetctl.io/token-expires";
/// A periodic pass, as the Default mode's.
const RESYNC: Duration = Duration::from_secs(300);

/// The managed cluster of a Hosted Klusterlet, as its external kubeconfig reaches it.
struct Spoke {
    client: Client,
    endpoint: Endpoint,
}

/// One pass over a live Hosted Klusterlet.
pub async fn reconcile(klusterlet: &Klusterlet, ctx: &Context) -> Result<Action, OperatorError> {
    let api: Api<Klusterlet> = Api::all(ctx.client.clone());
    let generation = klusterlet.meta().generation.unwrap_or_default();
    let refuse = |message: String| {
        let api = api.clone();
        async move {
            tracing::warn!(error = %message, "the Hosted Klusterlet cannot be deployed");
            update_status(&api, klusterlet, |status| apply_failed(status, generation, &message)).await
        }
    };
    let hosted = match render_hosted(klusterlet) {
        Ok(hosted) => hosted,
        Err(error) => {
            refuse(chain(&error)).await?;
            return Ok(Action::await_change());
        }
    };
    let name = klusterlet.name_any();
    let namespace = objects::namespace(meta(&name).with_labels(labels([(LABEL_KLUSTERLET, name.as_str())])));
    OPERATOR.apply(&Api::<Namespace>::all(ctx.client.clone()), &namespace).await?;
    let reached = match spoke(ctx, &name).await {
        Ok(Some(spoke)) => Ok(spoke),
        Ok(None) => Err(format!(
            "secret {name}/{EXTERNAL_MANAGED_KUBECONFIG} is missing: write the managed cluster's kubeconfig into it \
             (its `kubeconfig` key)"
        )),
        Err(error @ OperatorError::ExternalKubeconfig { .. }) => Err(chain(&error)),
        Err(error) => return Err(error),
    };
    let why_not = reached.as_ref().err().map(String::as_str);
    update_status(&api, klusterlet, |status| ready_to_apply(status, generation, why_not.map_or(Ok(()), Err))).await?;
    let spoke = match reached {
        Ok(spoke) => spoke,
        Err(why) => {
            // The Secret's changes are watched: they bring the Klusterlet back.
            refuse(why).await?;
            return Ok(Action::await_change());
        }
    };
    let installed = async {
        install_on(ctx, &spoke.client, &hosted.spoke).await?;
        let refresh = kubeconfigs(ctx, &spoke, &hosted, &name).await?;
        let deployments = install_on(ctx, &ctx.client, &hosted.management).await?;
        Ok::<_, OperatorError>((refresh, deployments))
    };
    match installed.await {
        Ok((refresh, deployments)) => {
            let agents = Agents::of(&deployments);
            update_status(&api, klusterlet, |status| applied(status, generation, &agents)).await?;
            Ok(Action::requeue(refresh.min(RESYNC)))
        }
        Err(error) => {
            if let Err(status_error) = refuse(chain(&error)).await {
                tracing::debug!(error = %chain(&status_error), "reporting the apply failure");
            }
            Err(error)
        }
    }
}

/// A client of the managed cluster from [`EXTERNAL_MANAGED_KUBECONFIG`] in `namespace`, if the
/// Secret is there.
async fn spoke(ctx: &Context, namespace: &str) -> Result<Option<Spoke>, OperatorError> {
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), namespace);
    let Some(secret) = secrets
        .get_opt(EXTERNAL_MANAGED_KUBECONFIG)
        .await
        .map_err(kube_error(format!("reading secret {namespace}/{EXTERNAL_MANAGED_KUBECONFIG}")))?
    else {
        return Ok(None);
    };
    let text = kubeconfig::secret_text(&secret);
    let invalid = |why: String| OperatorError::ExternalKubeconfig {
        secret: format!("{namespace}/{EXTERNAL_MANAGED_KUBECONFIG}"),
        why,
    };
    let parsed = kubeconfig::in_secret(&text).map_err(|e| invalid(chain(&e)))?;
    let (endpoint, config) = kubeconfig::from_parsed(parsed).await.map_err(|e| invalid(chain(&e)))?;
    let client = Client::try_from(config).map_err(|e| invalid(chain(&e)))?;
    Ok(Some(Spoke { client, endpoint }))
}

/// Writes each agent's kubeconfig of the managed cluster (a token of its ServiceAccount there)
/// unless the one written still has a fifth of its life; returns when the first is due again.
async fn kubeconfigs(
    ctx: &Context,
    spoke: &Spoke,
    hosted: &Hosted,
    namespace: &str,
) -> Result<Duration, OperatorError> {
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), namespace);
    let accounts: Api<ServiceAccount> = Api::namespaced(spoke.client.clone(), &hosted.spoke_namespace);
    let now = jiff::Timestamp::now();
    let mut next = Duration::from_secs(TOKEN_SECONDS.unsigned_abs());
    for (account, secret_name) in &hosted.kubeconfigs {
        let written =
            secrets.get_opt(secret_name).await.map_err(kube_error(format!("reading secret {secret_name}")))?;
        let expires = written
            .as_ref()
            .and_then(|s| s.annotations().get(ANNOTATION_TOKEN_EXPIRES)?.parse::<jiff::Timestamp>().ok());
        let refresh_at = |expires: jiff::Timestamp| expires - RENEW_BEFORE;
        if let Some(expires) = expires.filter(|e| refresh_at(*e) > now && same_endpoint(written.as_ref(), spoke)) {
            next = next.min(refresh_at(expires).duration_since(now).unsigned_abs());
            continue;
        }
        let request = TokenRequest {
            spec: TokenRequestSpec { expiration_seconds: Some(TOKEN_SECONDS), ..TokenRequestSpec::default() },
            ..TokenRequest::default()
        };
        let issued = accounts.create_token_request(account, &PostParams::default(), &request).await.map_err(
            kube_error(format!("asking a token of {}/{account} on the managed cluster", hosted.spoke_namespace)),
        )?;
        let status = issued.status.ok_or_else(|| OperatorError::ExternalKubeconfig {
            secret: format!("{namespace}/{EXTERNAL_MANAGED_KUBECONFIG}"),
            why: format!("the managed cluster answered the token request of {account} without a token"),
        })?;
        let names = Names { cluster: "managed", user: "agent", context: "managed" };
        let config =
            kubeconfig::single(names, &spoke.endpoint.server, &spoke.endpoint.ca_pem, Credentials::Token(status.token));
        let expires = status.expiration_timestamp.0;
        let secret = Secret {
            metadata: namespaced_meta(namespace, secret_name)
                .with_annotations([(ANNOTATION_TOKEN_EXPIRES.to_string(), expires.to_string())].into()),
            data: Some(secret_data([("kubeconfig".to_string(), kubeconfig::to_yaml(&config))].into())),
            type_: Some("Opaque".into()),
            ..Secret::default()
        };
        OPERATOR.apply(&secrets, &secret).await?;
        tracing::info!(%namespace, secret = %secret_name, %expires, "the agent's kubeconfig of the managed cluster");
        next = next.min(refresh_at(expires).duration_since(now).unsigned_abs());
    }
    Ok(next)
}

/// Whether a written kubeconfig still names the managed cluster the external one does.
fn same_endpoint(written: Option<&Secret>, spoke: &Spoke) -> bool {
    let Some(secret) = written else { return false };
    let text = kubeconfig::secret_text(secret);
    let endpoint = text.get("kubeconfig").and_then(|k| kubeconfig::endpoint(&kubeconfig::parse(k).ok()?).ok());
    endpoint.is_some_and(|e| e.server == spoke.endpoint.server && e.ca_pem == spoke.endpoint.ca_pem)
}

/// A Hosted Klusterlet being deleted: its agents stopped, their records released on the
/// managed cluster, what the operator made there and here removed. Resumable: each step
/// is idempotent.
pub async fn cleanup(klusterlet: &Klusterlet, ctx: &Context) -> Result<Action, OperatorError> {
    let hosted = match render_hosted(klusterlet) {
        Ok(hosted) => hosted,
        // Nothing could have been deployed.
        Err(_) => return Ok(Action::await_change()),
    };
    let name = klusterlet.name_any();
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), &name);
    hub_notified(klusterlet, ctx, &deployments, &[hosted.registration_deployment.as_str()]).await?;
    let agents: Vec<String> = hosted.management.deployments.iter().map(ResourceExt::name_any).collect();
    stop_agents(&deployments, agents.iter().map(String::as_str)).await?;
    match spoke(ctx, &name).await? {
        Some(spoke) => {
            let others_remain =
                release_applied_works(&spoke.client, klusterlet.uid().as_deref().unwrap_or_default()).await?;
            remove(&spoke.client, &hosted.spoke).await?;
            if !others_remain {
                delete(
                    &Api::<CustomResourceDefinition>::all(spoke.client.clone()),
                    APPLIED_MANIFEST_WORK_CRD,
                    &DeleteParams::default(),
                )
                .await?;
            }
        }
        None => tracing::warn!(klusterlet = %name, "no kubeconfig of the managed cluster: what was made there stays"),
    }
    remove(&ctx.client, &hosted.management).await?;
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), &name);
    for (_, secret) in &hosted.kubeconfigs {
        delete(&secrets, secret, &DeleteParams::default()).await?;
    }
    // Last: it holds the managed cluster's kubeconfig, which a cleanup cut short needs again.
    delete(&Api::<Namespace>::all(ctx.client.clone()), &name, &DeleteParams::background()).await?;
    Ok(Action::await_change())
}

/// Deletes what `desired` lists (not its CRD, not the Deployments: they went first).
async fn remove(client: &Client, desired: &Desired) -> Result<(), OperatorError> {
    let background = DeleteParams::background();
    for binding in &desired.cluster_role_bindings {
        delete(&Api::<ClusterRoleBinding>::all(client.clone()), &binding.name_any(), &background).await?;
    }
    for role in &desired.cluster_roles {
        delete(&Api::<ClusterRole>::all(client.clone()), &role.name_any(), &background).await?;
    }
    for binding in &desired.role_bindings {
        delete(
            &Api::<RoleBinding>::namespaced(client.clone(), &namespace_of(binding)),
            &binding.name_any(),
            &background,
        )
        .await?;
    }
    for role in &desired.roles {
        delete(&Api::<Role>::namespaced(client.clone(), &namespace_of(role)), &role.name_any(), &background).await?;
    }
    for account in &desired.service_accounts {
        delete(
            &Api::<ServiceAccount>::namespaced(client.clone(), &namespace_of(account)),
            &account.name_any(),
            &background,
        )
        .await?;
    }
    for namespace in &desired.namespaces {
        delete(&Api::<Namespace>::all(client.clone()), &namespace.name_any(), &background).await?;
    }
    Ok(())
}
