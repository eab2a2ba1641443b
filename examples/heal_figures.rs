//! Figures of the klusterlet healing on `fleetctl dev up --clusters 1 --durable`, with
//! cluster1 imported: for each fault of the agent's hub credentials, the seconds from the
//! fault until the cluster fully works again — a hub kubeconfig the agent would use, a
//! ManifestWork created after the fault applied on the target, the cluster Available — the
//! CSRs the hub received meanwhile, and what the hub (ManagedCluster Available) and the
//! managed side (Klusterlet HubConnectionDegraded) showed in between. One figure per line.
//!
//! Faults: the secret deleted; its certificate corrupted; a certificate the hub refuses
//! (401: right subject, untrusted issuer); a certificate past 80 % of its life (signed by
//! the hub's CA, read from the durable store, with 60 s left), which the agent renews.
//!
//! ```text
//! cargo build --workspace && cargo run --example heal_figures -- runs=3
//! ```

#[path = "support/binary.rs"]
mod binary;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use fleetctl::cli::dev::up_options;
use fleetctl::cli::flags::TerminalFlags;
use fleetctl::cli::printer::Printer;
use fleetctl_agent::registration::credentials::{Expected, judge};
use fleetctl_api::conditions as c;
use fleetctl_api::names::{AGENT_NAMESPACE, HUB_KUBECONFIG_SECRET};
use fleetctl_api::{Klusterlet, ManagedCluster, Manifest, ManifestWork};
use fleetctl_devcluster::env::{self, UpOptions};
use fleetctl_kube::kubeconfig::{self, Credentials, Names};
use futures::StreamExt;
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::wait::await_condition;
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use parking_lot::Mutex;
use serde_json::json;

const CLUSTER: &str = "cluster1";
const WAIT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy)]
enum Fault {
    Deleted,
    Corrupted,
    Refused,
    Renewal,
}

impl Fault {
    const ALL: [Fault; 4] = [Fault::Deleted, Fault::Corrupted, Fault::Refused, Fault::Renewal];

    fn name(self) -> &'static str {
        match self {
            Self::Deleted => "secret deleted",
            Self::Corrupted => "certificate corrupted",
            Self::Refused => "refused by the hub (401)",
            Self::Renewal => "certificate due for renewal",
        }
    }
}

/// What one fault cost.
struct Figure {
    healed: Duration,
    csrs: usize,
    available: BTreeSet<String>,
    degraded: BTreeSet<String>,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("runs="))
        .map_or(Ok(3), str::parse)
        .context("runs= takes a whole number")?;
    ensure!(runs > 0, "runs must be ≥ 1");
    let binary = binary::fleetctl(None)?;
    let dir = tempfile::tempdir()?;
    let printer = Printer::new(&TerminalFlags::default());
    let options = up_options(&printer, binary.clone(), dir.path().to_path_buf(), 1, None, WAIT);
    let state = env::up(&UpOptions { durable: true, ..options }).await?;
    let result = figures(&binary, dir.path(), &state.kubeconfig, runs).await;
    env::down(dir.path(), Duration::from_secs(2)).await?;
    result
}

async fn figures(binary: &Path, dir: &Path, kubeconfig: &Path, runs: usize) -> Result<()> {
    let output = Command::new(binary)
        .args(["import", CLUSTER, "--hub-context", "hub", "--cluster-context", CLUSTER])
        .env("KUBECONFIG", kubeconfig)
        .env("NO_COLOR", "1")
        .output()?;
    if !output.status.success() {
        bail!("import failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let hub = env::client_for(kubeconfig, Some("hub")).await?;
    let target = env::client_for(kubeconfig, Some(CLUSTER)).await?;
    let ca = CaFiles {
        cert: std::fs::read_to_string(dir.join("hub/store/ca.crt")).context("the hub CA (durable store)")?,
        key: std::fs::read_to_string(dir.join("hub/store/ca.key")).context("the hub CA key (durable store)")?,
    };
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    println!("heal figures on dev up --clusters 1 ({cpus} CPUs), {runs} run(s) per fault:");
    let mut medians = Vec::new();
    for fault in Fault::ALL {
        let mut times = Vec::new();
        for run in 1..=runs {
            let figure = heal(&hub, &target, &ca, fault, run).await.with_context(|| fault.name())?;
            println!(
                "  {:<28} run {run}: {:>6.2} s to healthy, {} CSR(s); hub Available seen: {}; klusterlet \
                 HubConnectionDegraded seen: {}",
                fault.name(),
                figure.healed.as_secs_f64(),
                figure.csrs,
                join(&figure.available),
                join(&figure.degraded),
            );
            times.push((figure.healed, figure.csrs));
        }
        times.sort();
        medians.push((fault, times[times.len() / 2]));
    }
    for (fault, (time, csrs)) in medians {
        println!("  median {:<28} {:>6.2} s, {csrs} CSR(s)", fault.name(), time.as_secs_f64());
    }
    Ok(())
}

fn join(seen: &BTreeSet<String>) -> String {
    if seen.is_empty() { "-".into() } else { seen.iter().cloned().collect::<Vec<_>>().join(" → ") }
}

struct CaFiles {
    cert: String,
    key: String,
}

/// Records every distinct value `pick` finds in the objects a watch sees, until aborted.
fn observe<K>(
    api: Api<K>,
    name: &str,
    pick: fn(&K) -> Option<String>,
) -> (Arc<Mutex<BTreeSet<String>>>, tokio::task::JoinHandle<()>)
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let record = seen.clone();
    let task = tokio::spawn(async move {
        let mut events = watcher(api, config).boxed();
        while let Some(event) = events.next().await {
            if let Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object)) = event
                && let Some(value) = pick(&object)
            {
                record.lock().insert(value);
            }
        }
    });
    (seen, task)
}

async fn csr_count(hub: &Client) -> Result<usize> {
    let ours = ListParams::default().labels(&format!("{}={CLUSTER}", c::LABEL_CLUSTER_NAME));
    Ok(Api::<CertificateSigningRequest>::all(hub.clone()).list(&ours).await?.items.len())
}

async fn heal(hub: &Client, target: &Client, ca: &CaFiles, fault: Fault, run: usize) -> Result<Figure> {
    let secrets: Api<Secret> = Api::namespaced(target.clone(), AGENT_NAMESPACE);
    let klusterlet = Api::<Klusterlet>::all(target.clone()).get("klusterlet").await?;
    let agent_id = klusterlet.uid().context("the klusterlet has a uid")?;
    let expected = Expected { cluster: CLUSTER, agent_id: &agent_id };
    let fits = |s: &Secret| judge(Some(s), expected, None, jiff::Timestamp::now()).is_ok();
    // Start from a healthy cluster.
    let healthy = await_condition(secrets.clone(), HUB_KUBECONFIG_SECRET, |s: Option<&Secret>| s.is_some_and(fits));
    tokio::time::timeout(WAIT, healthy).await.context("healthy before the fault")??;
    let before = csr_count(hub).await?;
    let (available, watch_hub) = observe(Api::<ManagedCluster>::all(hub.clone()), CLUSTER, |cluster| {
        c::find(cluster.conditions(), c::MANAGED_CLUSTER_AVAILABLE).map(|c| c.status.clone())
    });
    let (degraded, watch_klusterlet) = observe(Api::<Klusterlet>::all(target.clone()), "klusterlet", |k| {
        let condition = c::find(&k.status.as_ref()?.conditions, c::KLUSTERLET_HUB_CONNECTION_DEGRADED)?;
        Some(format!("{}/{}", condition.status, condition.reason))
    });

    let started = Instant::now();
    let broken = break_secret(&secrets, ca, &agent_id, fault).await?;
    let work_name = format!("heal-{}-{run}", fault.name().split_whitespace().next().unwrap_or("fault"));
    let manifest = Manifest(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": work_name, "namespace": "default"}, "data": {"run": run.to_string()}}));
    let works: Api<ManifestWork> = Api::namespaced(hub.clone(), CLUSTER);
    works.create(&PostParams::default(), &ManifestWork::for_cluster(CLUSTER, &work_name, vec![manifest])).await?;

    let healed_secret = await_condition(secrets.clone(), HUB_KUBECONFIG_SECRET, move |s: Option<&Secret>| {
        s.is_some_and(|s| s.resource_version() != broken && fits(s))
    });
    let applied = await_condition(works.clone(), &work_name, |w: Option<&ManifestWork>| {
        w.is_some_and(|w| w.is_applied() && w.is_available())
    });
    let up = await_condition(Api::<ManagedCluster>::all(hub.clone()), CLUSTER, |m: Option<&ManagedCluster>| {
        m.is_some_and(|m| m.is_joined() && m.is_available())
    });
    let all = async { tokio::try_join!(healed_secret, applied, up) };
    tokio::time::timeout(WAIT, all).await.context("healed in time")??;
    let healed = started.elapsed();
    let csrs = csr_count(hub).await? - before;
    watch_hub.abort();
    watch_klusterlet.abort();
    works.delete(&work_name, &DeleteParams::default()).await?;
    let available = available.lock().clone();
    let degraded = degraded.lock().clone();
    Ok(Figure { healed, csrs, available, degraded })
}

/// Applies the fault; returns the resourceVersion it left the secret at (`None`: deleted).
async fn break_secret(secrets: &Api<Secret>, ca: &CaFiles, agent_id: &str, fault: Fault) -> Result<Option<String>> {
    let common_name = format!("system:open-cluster-management:{CLUSTER}:{agent_id}");
    let (cert, key) = match fault {
        Fault::Deleted => {
            secrets.delete(HUB_KUBECONFIG_SECRET, &DeleteParams::default()).await?;
            return Ok(None);
        }
        Fault::Corrupted => {
            let patch = json!({"data": {"tls.crt": BASE64.encode("not a certificate")}});
            let patched = secrets.patch(HUB_KUBECONFIG_SECRET, &PatchParams::default(), &Patch::Merge(patch)).await?;
            return Ok(patched.resource_version());
        }
        Fault::Refused => {
            // The right subject, issued by a CA of its own: the hub does not trust it.
            let key = rcgen::KeyPair::generate()?;
            let mut params = rcgen::CertificateParams::default();
            params.distinguished_name.push(rcgen::DnType::CommonName, common_name);
            (params.self_signed(&key)?.pem(), key.serialize_pem())
        }
        Fault::Renewal => {
            let issuer = rcgen::Issuer::from_ca_cert_pem(&ca.cert, rcgen::KeyPair::from_pem(&ca.key)?)?;
            let key = rcgen::KeyPair::generate()?;
            let mut params = rcgen::CertificateParams::default();
            params.distinguished_name.push(rcgen::DnType::CommonName, common_name);
            params
                .distinguished_name
                .push(rcgen::DnType::OrganizationName, format!("system:open-cluster-management:{CLUSTER}"));
            params.distinguished_name.push(
                rcgen::DnType::CustomDnType(vec![2, 5, 4, 10]),
                "system:open-cluster-management:managed-clusters",
            );
            params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
            let now = time::OffsetDateTime::now_utc();
            params.not_before = now - time::Duration::seconds(300);
            params.not_after = now + time::Duration::seconds(60);
            (params.signed_by(&key, &issuer)?.pem(), key.serialize_pem())
        }
    };
    let current = secrets.get(HUB_KUBECONFIG_SECRET).await?;
    let text = kubeconfig::secret_text(&current);
    let parsed = kube::config::Kubeconfig::from_yaml(text.get("kubeconfig").context("a kubeconfig")?)?;
    let endpoint = kubeconfig::endpoint(&parsed)?;
    let credentials = Credentials::Certificate { cert_pem: cert.clone(), key_pem: key.clone() };
    let config =
        kubeconfig::to_yaml(&kubeconfig::single(Names::same("hub"), &endpoint.server, &endpoint.ca_pem, credentials));
    let patch = json!({"data": {
        "kubeconfig": BASE64.encode(config), "tls.crt": BASE64.encode(cert), "tls.key": BASE64.encode(key),
    }});
    let patched = secrets.patch(HUB_KUBECONFIG_SECRET, &PatchParams::default(), &Patch::Merge(patch)).await?;
    Ok(patched.resource_version())
}
