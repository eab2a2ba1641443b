//! kube-runtime's Controller, finalizer() helper and await_condition against the server.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{Event, finalizer};
use kube::runtime::wait::await_condition;
use kube::runtime::watcher;
use serde_json::json;

use crate::support::cluster::TestCluster;

const FINALIZER: &str = "example.com/cleanup";

#[derive(Debug, thiserror::Error)]
#[error("reconcile failed: {0}")]
struct ReconcileError(String);

async fn reconcile(object: Arc<ConfigMap>, api: Arc<Api<ConfigMap>>) -> Result<Action, ReconcileError> {
    finalizer(&api, FINALIZER, object, |event| async {
        match event {
            Event::Apply(cm) => {
                let name = cm.metadata.name.clone().unwrap_or_default();
                let mark = json!({"metadata": {"annotations": {"example.com/seen": "yes"}}});
                api.patch(&name, &PatchParams::default(), &Patch::Merge(mark))
                    .await
                    .map_err(|e| ReconcileError(e.to_string()))?;
                Ok::<_, ReconcileError>(Action::await_change())
            }
            Event::Cleanup(_) => Ok(Action::await_change()),
        }
    })
    .await
    .map_err(|e| ReconcileError(e.to_string()))
}

#[tokio::test]
async fn a_controller_with_finalizer_adds_and_then_removes_its_finalizer() {
    let c = TestCluster::start().await;
    let api: Api<ConfigMap> = Api::namespaced(c.client.clone(), "default");
    let shared = Arc::new(api.clone());
    let controller = Controller::new(api.clone(), watcher::Config::default())
        .run(reconcile, |_, _, _| Action::requeue(Duration::from_millis(100)), shared)
        .for_each(|_| async {});
    let running = tokio::spawn(controller);

    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "managed"}})).expect("cm");
    let created = api.create(&PostParams::default(), &cm).await.expect("create");
    let handled = await_condition(api.clone(), "managed", |o: Option<&ConfigMap>| {
        o.is_some_and(|o| {
            o.metadata.finalizers.iter().flatten().any(|f| f == FINALIZER)
                && o.metadata.annotations.as_ref().is_some_and(|a| a.contains_key("example.com/seen"))
        })
    });
    tokio::time::timeout(Duration::from_secs(10), handled).await.expect("finalizer added in time").expect("watch");

    api.delete("managed", &DeleteParams::default()).await.expect("delete");
    let uid = created.metadata.uid.expect("uid");
    let removed = await_condition(api.clone(), "managed", kube::runtime::conditions::is_deleted(&uid));
    tokio::time::timeout(Duration::from_secs(10), removed).await.expect("finalizer removed in time").expect("watch");
    running.abort();
}
