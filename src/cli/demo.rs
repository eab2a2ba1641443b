//! `fleetctl demo`: a tour on the embedded dev cluster, told step by step.
//!
//! For now the dev cluster's API server is what exists end to end; the three acts of
//! the lifecycle (import, upgrade, detach) join this tour as they land.

use std::time::Instant;

use anyhow::Context;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::{conditions, wait::await_condition};
use serde_json::json;

use crate::devcluster::apiserver::{ApiServer, ServerConfig};

/// Runs the tour; fails on the first step that fails.
pub async fn run() -> anyhow::Result<()> {
    let started = Instant::now();
    let server = ApiServer::start(ServerConfig::default()).await.context("starting the dev cluster")?;
    step(started, &format!("dev cluster API server listening on {}", server.url()));
    let client = kube::Client::try_from(kube::Config::new(server.url().parse().context("server url")?))
        .context("building a client")?;

    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    crds.create(&PostParams::default(), &managed_cluster_crd()?).await.context("creating the ManagedCluster CRD")?;
    let established = await_condition(
        crds.clone(),
        "managedclusters.cluster.open-cluster-management.io",
        conditions::is_crd_established(),
    );
    established.await.context("waiting for the CRD")?;
    step(started, "CRD managedclusters.cluster.open-cluster-management.io established and served");

    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": "cluster1"}}))?;
    let ns = namespaces.create(&PostParams::default(), &ns).await.context("creating namespace cluster1")?;
    let configmaps: Api<ConfigMap> = Api::namespaced(client.clone(), "cluster1");
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "hello"}, "data": {"greeting": "hi"}}))?;
    configmaps.create(&PostParams::default(), &cm).await.context("creating a ConfigMap")?;
    let patch = Patch::Apply(
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hello"}, "data": {"greeting": "hello"}}),
    );
    configmaps.patch("hello", &PatchParams::apply("fleetctl").force(), &patch).await.context("server-side apply")?;
    step(started, "namespace cluster1 with a ConfigMap, updated by server-side apply");

    namespaces.delete("cluster1", &DeleteParams::default()).await.context("deleting namespace cluster1")?;
    let uid = ns.metadata.uid.unwrap_or_default();
    await_condition(namespaces, "cluster1", conditions::is_deleted(&uid))
        .await
        .context("waiting for the namespace to go")?;
    step(started, "namespace cluster1 terminated: content removed, then the namespace");

    server.shutdown().await;
    step(started, "dev cluster stopped");
    Ok(())
}

fn step(started: Instant, what: &str) {
    println!("[{:>6.3}s] {what}", started.elapsed().as_secs_f64());
}

fn managed_cluster_crd() -> anyhow::Result<CustomResourceDefinition> {
    Ok(serde_json::from_value(json!({
        "metadata": {"name": "managedclusters.cluster.open-cluster-management.io"},
        "spec": {"group": "cluster.open-cluster-management.io", "scope": "Cluster",
            "names": {"plural": "managedclusters", "singular": "managedcluster", "kind": "ManagedCluster", "shortNames": ["mcl", "mcls"]},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))?)
}
