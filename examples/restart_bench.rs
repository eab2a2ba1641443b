//! Figures for the durable store (`dev serve --store DIR`): creates per second over HTTP
//! with and without the store, and the time a server takes to start again on a store
//! of 100,000 objects, after a clean shutdown and after a crash. It prints figures next
//! to their targets; it asserts nothing.
//!
//! ```text
//! cargo run --release --example restart_bench
//! cargo run --release --example restart_bench -- objects=20000 c=8
//! ```
//!
//! Overrides (argument `key=value`): `objects` created — in memory and with the store, the
//! same count so the two rates compare like with like — and stored before the restart
//! (default 100,000), `c` concurrent clients (16), `restarts` timed restarts of each kind (3).
//!
//! Server and client share one runtime and the machine's cores. The clients are
//! kube-rs clients built from the server's admin kubeconfig (TLS and a client
//! certificate), sending raw JSON and reading raw answers so that they spend little
//! on (de)serialization. Its client costs differ from `apiserver_bench`'s (plain
//! HTTP/1.1), so compare the two creates figures here with each other only.
//!
//! A restart is timed from `ApiServer::start` on the store directory until `/readyz`
//! answers a new client (TLS handshake included); the loaded object count is checked.
//!
//! The crash figure starts a server on a copy of the database file taken while the
//! server that wrote it is still running: the copy holds what a SIGKILL at that moment
//! would leave (the page cache is the file as the next process sees it), so opening it
//! includes redb's repair after an unclean shutdown.

#[path = "support/numbers.rs"]
mod numbers;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use fleetctl_apiserver::{ApiServer, ServerConfig, Settings};
use http_body_util::BodyExt;
use kube::Client;
use kube::config::{KubeConfigOptions, Kubeconfig};

/// Target on the 2-core reference machine.
const TARGET_RESTART: Duration = Duration::from_secs(2);

struct Config {
    objects: usize,
    c: usize,
    restarts: usize,
}

impl Config {
    fn load() -> Result<Self> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let get = |key: &str, default: usize| -> Result<usize> {
            match args.iter().find_map(|a| a.strip_prefix(key).and_then(|rest| rest.strip_prefix('='))) {
                None => Ok(default),
                Some(v) => {
                    v.replace(['_', ','], "").parse().with_context(|| format!("{key}={v} is not a whole number"))
                }
            }
        };
        let config = Self { objects: get("objects", 100_000)?, c: get("c", 16)?, restarts: get("restarts", 3)? };
        ensure!(config.c > 0 && config.objects > 0 && config.restarts > 0, "objects, c and restarts must be ≥ 1");
        Ok(config)
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let config = Config::load()?;
    let dir = tempfile::tempdir().context("a temporary directory")?;
    let store = dir.path().join("store");
    println!("durable store figures; store directory {}", store.display());

    creates(&config, Settings::default(), "in memory:       ").await?;
    let durable = Settings { store: Some(store.clone()), ..Settings::default() };
    let want = creates(&config, durable.clone(), "--store:         ").await?;
    let file = store.join("store.redb");
    let size = std::fs::metadata(&file).with_context(|| format!("reading {}", file.display()))?.len();
    println!(
        "store file: {:.1} MiB for {} objects",
        size as f64 / (1 << 20) as f64,
        numbers::thousands(config.objects)
    );

    let mut clean = Vec::new();
    for _ in 0..config.restarts {
        let (elapsed, server) = timed_start(durable.clone(), want).await?;
        clean.push(elapsed);
        server.shutdown().await;
    }
    report("restart after a clean shutdown", &clean, config.objects);

    let mut crashed = Vec::new();
    for i in 0..config.restarts {
        // The image of a crash: copied while its server runs (and holds the file open).
        let running = start(durable.clone()).await?;
        let image = dir.path().join(format!("crash-{i}"));
        std::fs::create_dir_all(&image)?;
        std::fs::copy(&file, image.join("store.redb")).context("copying the store file")?;
        running.shutdown().await;
        let (elapsed, server) =
            timed_start(Settings { store: Some(image.clone()), ..Settings::default() }, want).await?;
        crashed.push(elapsed);
        server.shutdown().await;
        std::fs::remove_dir_all(&image)?;
    }
    report("restart after a crash (repair)", &crashed, config.objects);
    Ok(())
}

/// Creates `objects` ConfigMaps in a fresh server with `settings`, prints the rate, and
/// returns how many objects the server holds.
async fn creates(config: &Config, settings: Settings, label: &str) -> Result<usize> {
    let durable = settings.store.is_some();
    let server = start(settings).await?;
    let rate = create_many(&client(&server).await?, config.objects, config.c).await?;
    let held = server.state().store.len();
    ensure!(held >= config.objects, "the server holds {held} objects after {} creates", config.objects);
    println!(
        "creates (POST), {label} {:>8}/s  ({} objects, {} concurrent clients{})",
        numbers::thousands(rate as u64),
        numbers::thousands(config.objects),
        config.c,
        if durable { ", each fsynced before its answer" } else { "" }
    );
    server.shutdown().await;
    Ok(held)
}

async fn start(settings: Settings) -> Result<ApiServer> {
    ApiServer::start(ServerConfig { port: 0, settings, ..ServerConfig::default() })
        .await
        .context("starting the API server")
}

/// An admin client of `server`.
async fn client(server: &ApiServer) -> Result<Client> {
    let kubeconfig: Kubeconfig = server.kubeconfig("bench");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    Ok(Client::try_from(config)?)
}

/// Sends one request; returns the status and body.
async fn send(client: &Client, method: &str, path: &str, body: Vec<u8>) -> Result<(u16, Vec<u8>)> {
    let request = axum::http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(kube::client::Body::from(body))?;
    let response = client.send(request).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes().to_vec();
    Ok((status, body))
}

/// Starts a server on a store and waits until it answers a list of all it holds.
async fn timed_start(settings: Settings, want: usize) -> Result<(Duration, ApiServer)> {
    let started = Instant::now();
    let server = start(settings).await?;
    let (status, _) = send(&client(&server).await?, "GET", "/readyz", Vec::new()).await?;
    ensure!(status == 200, "/readyz answered {status}");
    let elapsed = started.elapsed();
    let held = server.state().store.len();
    ensure!(held == want, "the restarted server holds {held} objects, not {want}");
    Ok((elapsed, server))
}

fn report(label: &str, times: &[Duration], objects: usize) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let median = sorted[sorted.len() / 2];
    let all: Vec<String> = times.iter().map(|t| format!("{} ms", t.as_millis())).collect();
    println!(
        "{label} with {} objects: median {} ms (target ≤ {} s) {}; runs: {}",
        numbers::thousands(objects),
        median.as_millis(),
        TARGET_RESTART.as_secs(),
        if median <= TARGET_RESTART { "MET" } else { "MISSED" },
        all.join(", ")
    );
}

/// Creates ConfigMaps `cm-0..n` in `default` from `c` concurrent tasks; returns creates per second.
async fn create_many(client: &Client, n: usize, c: usize) -> Result<f64> {
    let started = Instant::now();
    let tasks: Vec<_> = (0..c)
        .map(|worker| {
            let client = client.clone();
            tokio::spawn(async move {
                for id in (worker..n).step_by(c) {
                    let body = format!(
                        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{id}"}},"data":{{"key":"value-{id}"}}}}"#
                    );
                    let path = "/api/v1/namespaces/default/configmaps";
                    let (status, reply) = send(&client, "POST", path, body.into_bytes()).await?;
                    if status != 201 {
                        bail!("create cm-{id}: HTTP {status}: {}", String::from_utf8_lossy(&reply));
                    }
                }
                anyhow::Ok(())
            })
        })
        .collect();
    for task in tasks {
        task.await.context("a client task panicked")??;
    }
    Ok(n as f64 / started.elapsed().as_secs_f64())
}
