//! Figures for the dev cluster's API server: memory per object, request throughput
//! per verb and watch delivery latency. It prints figures next to their targets; it
//! asserts nothing.
//!
//! ```text
//! cargo run --release --example apiserver_bench
//! cargo run --release --example apiserver_bench -- n=5000 c=8
//! BENCH_N=5000 BENCH_C=8 cargo run --release --example apiserver_bench
//! ```
//!
//! Overrides (argument `key=value`, or the environment variable; the argument wins):
//! `n`/`BENCH_N` requests per verb, `c`/`BENCH_C` concurrent clients, `mem`/`BENCH_MEM`
//! objects for the memory figure, `watchers`/`BENCH_WATCHERS`, `events`/`BENCH_EVENTS`,
//! `interval_us`/`BENCH_INTERVAL_US` between watch events.
//!
//! The client is a minimal HTTP/1.1 client over `tokio::net::TcpStream` (keep-alive,
//! Content-Length and chunked bodies). Server and client share the machine's cores, so
//! every microsecond the client spends is one the server does not get: kube's `Client`
//! (tower stack, buffer task, typed (de)serialization) would spend several times more
//! per request than the server's own work we want to measure, and hyper/hyper-util
//! are not direct dependencies of this crate.
//!
//! The server runs on its own runtime whose threads are named, so the per-thread CPU
//! time in `/proc/self/task/*/schedstat` splits into server and client shares: that
//! is the evidence for where the time goes when a figure misses its target.

#[path = "support/numbers.rs"]
mod numbers;

use std::io::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use bytes::{Buf, Bytes, BytesMut};
use fleetctl_apiserver::{ApiServer, GroupResource, ServerConfig, Settings};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::runtime::Handle;
use tokio::time::MissedTickBehavior;

/// The argument (`memory-server=HISTORY`) under which this program is the memory figure's
/// server, in a process of its own so that its memory is its alone.
const MEMORY_SERVER: &str = "memory-server=";
/// Thread name prefix of the server's runtime (`comm` keeps 15 bytes).
const SERVER_THREAD: &str = "bench-server";
/// Thread name prefix of the client's runtime.
const CLIENT_THREAD: &str = "bench-client";
const JSON: &str = "application/json";
const MERGE_PATCH: &str = "application/merge-patch+json";
/// Targets on the 2-core reference machine.
const TARGET_CREATES: f64 = 10_000.0;
const TARGET_GETS: f64 = 30_000.0;
const TARGET_WATCH_P99: Duration = Duration::from_millis(5);
const TARGET_BYTES_PER_OBJECT: f64 = 2048.0;
/// How long watchers may still wait for events after the generator finished.
const WATCH_GRACE: Duration = Duration::from_secs(5);

struct Config {
    n: usize,
    c: usize,
    mem: usize,
    watchers: usize,
    events: usize,
    interval: Duration,
}

impl Config {
    fn load() -> Result<Self> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let get = |key: &str, env: &str, default: usize| -> Result<usize> {
            let arg = args.iter().find_map(|a| a.strip_prefix(key).and_then(|rest| rest.strip_prefix('=')));
            let raw = match arg {
                Some(v) => Some(v.to_string()),
                None => std::env::var(env).ok(),
            };
            match raw {
                None => Ok(default),
                // Accept 20_000 and 20,000 as well as 20000.
                Some(v) => {
                    v.replace(['_', ','], "").parse().with_context(|| format!("{key}={v} is not a whole number"))
                }
            }
        };
        let config = Self {
            n: get("n", "BENCH_N", 20_000)?,
            c: get("c", "BENCH_C", 16)?,
            mem: get("mem", "BENCH_MEM", 10_000)?,
            watchers: get("watchers", "BENCH_WATCHERS", 100)?,
            events: get("events", "BENCH_EVENTS", 2_000)?,
            interval: Duration::from_micros(get("interval_us", "BENCH_INTERVAL_US", 1_000)? as u64),
        };
        ensure!(config.c > 0, "c must be at least 1");
        ensure!(config.n > 0 && config.mem > 0 && config.events > 0, "n, mem and events must be at least 1");
        Ok(config)
    }
}

fn main() -> Result<()> {
    if let Some(history) = std::env::args().nth(1).and_then(|a| a.strip_prefix(MEMORY_SERVER).map(str::to_owned)) {
        return memory_server(history.parse().context("the memory server's history")?);
    }
    let config = Config::load()?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    // Two runtimes with as many workers as cores each: the server gets what it would get
    // under `#[tokio::main]`, and named threads let us split CPU time by side.
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .thread_name(SERVER_THREAD)
        .enable_all()
        .build()
        .context("building the server runtime")?;
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .thread_name(CLIENT_THREAD)
        .enable_all()
        .build()
        .context("building the client runtime")?;
    let started = Instant::now();
    let result = client_rt.block_on(run(&config, cores, server_rt.handle().clone()));
    println!("total {:.1} s", started.elapsed().as_secs_f64());
    // Runtimes must be dropped outside of async context; stragglers get a second.
    client_rt.shutdown_timeout(Duration::from_secs(1));
    server_rt.shutdown_timeout(Duration::from_secs(1));
    result
}

async fn run(config: &Config, cores: usize, server_rt: Handle) -> Result<()> {
    println!(
        "apiserver_bench: n={} c={} mem={} watchers={} events={} interval={} µs on {cores} CPUs",
        numbers::thousands(config.n),
        config.c,
        numbers::thousands(config.mem),
        config.watchers,
        numbers::thousands(config.events),
        config.interval.as_micros(),
    );
    println!(
        "(server and client run in this one process and share the CPUs; \
         CPU/request is per-thread CPU time split by runtime)"
    );
    // Memory first, on fresh servers, while the process has allocated little else.
    memory(config).await?;
    throughput(config, &server_rt, cores).await?;
    watch_latency(config, &server_rt).await?;
    Ok(())
}

// ---------------------------------------------------------------------------------
// Memory

struct MemoryFigures {
    bytes_per_object: f64,
    rss_before_kib: u64,
    rss_after_kib: u64,
    len_before: usize,
    len_after: usize,
    json_per_object: f64,
}

async fn memory(config: &Config) -> Result<()> {
    println!();
    println!(
        "memory: RSS growth of a fresh server (a process of its own) while {} small ConfigMaps \
         (name + one data key) are created in it",
        numbers::thousands(config.mem)
    );
    let default = measure_memory(config, Settings::default().history).await?;
    let history = Settings::default().history;
    println!(
        "  {:>8.0} B/object   (target ≤ {:.0} B)  {}   VmRSS {} KiB -> {} KiB",
        default.bytes_per_object,
        TARGET_BYTES_PER_OBJECT,
        verdict(default.bytes_per_object <= TARGET_BYTES_PER_OBJECT),
        numbers::thousands(default.rss_before_kib),
        numbers::thousands(default.rss_after_kib),
    );
    println!(
        "  store.len() {} -> {}; stored JSON {:.0} B/object; default settings (history={history} events/resource)",
        numbers::thousands(default.len_before),
        numbers::thousands(default.len_after),
        default.json_per_object,
    );
    // Diagnostic: the same with the smallest event history, to show what history costs.
    let lean = measure_memory(config, 1).await?;
    println!(
        "  {:>8.0} B/object   with history=1 (diagnostic): the event history costs ~{:.0} B per object it holds",
        lean.bytes_per_object,
        (default.bytes_per_object - lean.bytes_per_object) * config.mem as f64 / config.mem.min(history) as f64,
    );
    Ok(())
}

/// What this measures: the growth of the server process's resident set while `mem`
/// objects are created through HTTP — everything the server keeps per object (the stored
/// JSON, the BTreeMap and uid index entries, the event history of the resource with its
/// parsed copy of each object), allocator overhead and fragmentation; the client runs in
/// this process and is not counted. The server's connections and threads are warmed up
/// before the first reading.
async fn measure_memory(config: &Config, history: usize) -> Result<MemoryFigures> {
    let mut server = MemoryServer::start(history)?;
    let mut workers = connect_workers(&server.endpoint, config.c).await?;
    // Warm-up: one object per connection, in another namespace, so every connection,
    // thread and code path has allocated its steady-state buffers before the first
    // reading. (Their history events are pushed out later, a ~2 KB × c error.)
    assign(&mut workers, 900_000, config.c, config.mem);
    let (mut workers, _) = run_phase(workers, Op::Create, "kube-public").await?;
    let before = server.held()?;
    let rss_before_kib = server.rss_kib()?;
    assign(&mut workers, 0, config.mem, config.mem);
    let (workers, _) = run_phase(workers, Op::Create, "default").await?;
    let rss_after_kib = server.rss_kib()?;
    let after = server.held()?;
    drop(workers);
    Ok(MemoryFigures {
        bytes_per_object: rss_after_kib.saturating_sub(rss_before_kib) as f64 * 1024.0 / config.mem as f64,
        rss_before_kib,
        rss_after_kib,
        len_before: before.len,
        len_after: after.len,
        json_per_object: after.default_json_bytes as f64 / after.default_items.max(1) as f64,
    })
}

/// How the memory server says where it listens and who may talk to it.
#[derive(Serialize, Deserialize)]
struct Hello {
    addr: SocketAddr,
    ca_pem: String,
    cert_pem: String,
    key_pem: String,
}

/// What the memory server holds.
#[derive(Serialize, Deserialize)]
struct Held {
    /// Objects in the store.
    len: usize,
    /// ConfigMaps in `default`, and their stored JSON.
    default_items: usize,
    default_json_bytes: usize,
}

/// This program as the memory figure's server: it starts an API server with `history`,
/// prints a [`Hello`] line, then a [`Held`] line for every line it reads, until its input
/// ends.
fn memory_server(history: usize) -> Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("building the runtime")?;
    runtime.block_on(async {
        let settings = Settings { history, ..Settings::default() };
        let server = ApiServer::start(ServerConfig { port: 0, settings, ..ServerConfig::default() }).await?;
        let client = server.client_certificate("bench", &["system:masters"])?;
        let hello = Hello {
            addr: server.addr(),
            ca_pem: server.ca_pem().into(),
            cert_pem: client.cert_pem,
            key_pem: client.key_pem,
        };
        println!("{}", serde_json::to_string(&hello)?);
        let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        while lines.next_line().await?.is_some() {
            let store = &server.state().store;
            let page = store.list(&GroupResource::new("", "configmaps"), Some("default"), None, 0, &|_| true);
            let held = Held {
                len: store.len(),
                default_items: page.items.len(),
                default_json_bytes: page.items.iter().map(|s| s.json().len()).sum(),
            };
            println!("{}", serde_json::to_string(&held)?);
        }
        server.shutdown().await;
        Ok(())
    })
}

/// The memory server, a child process; killed when dropped.
struct MemoryServer {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
    endpoint: Endpoint,
}

impl MemoryServer {
    fn start(history: usize) -> Result<Self> {
        let mut child = std::process::Command::new(std::env::current_exe().context("this program")?)
            .arg(format!("{MEMORY_SERVER}{history}"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .context("starting the memory server")?;
        let input = child.stdin.take().context("the server's input")?;
        let mut output = std::io::BufReader::new(child.stdout.take().context("the server's output")?);
        let hello: Hello = serde_json::from_str(&read_line(&mut output)?).context("the server's hello")?;
        let endpoint = Endpoint::new(hello.addr, &hello.ca_pem, &hello.cert_pem, &hello.key_pem)?;
        Ok(Self { child, input, output, endpoint })
    }

    fn held(&mut self) -> Result<Held> {
        writeln!(self.input).context("asking the server")?;
        serde_json::from_str(&read_line(&mut self.output)?).context("the server's answer")
    }

    fn rss_kib(&self) -> Result<u64> {
        let path = format!("/proc/{}/status", self.child.id());
        let status = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
        let line = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).context("no VmRSS")?;
        line.trim().trim_end_matches("kB").trim().parse().context("VmRSS is not a number")
    }
}

impl Drop for MemoryServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_line(output: &mut impl std::io::BufRead) -> Result<String> {
    let mut line = String::new();
    ensure!(output.read_line(&mut line).context("reading the server")? > 0, "the memory server ended");
    Ok(line)
}

// ---------------------------------------------------------------------------------
// Throughput

async fn throughput(config: &Config, rt: &Handle, cores: usize) -> Result<()> {
    println!();
    println!(
        "throughput: {} requests per verb from {} keep-alive connections, fresh server",
        numbers::thousands(config.n),
        config.c
    );
    let server = start_server(rt, Settings::default()).await?;
    let mut workers = connect_workers(&Endpoint::of(&server)?, config.c).await?;
    assign(&mut workers, 0, config.n, config.n);
    let report = |label: &str, stats: &PhaseStats, target: Option<f64>| {
        let rate = stats.rate();
        let goal = match target {
            Some(t) => format!("(target ≥ {}) {}", numbers::thousands(t as u64), verdict(rate >= t)),
            None => String::new(),
        };
        println!("  {label:<28} {:>8}/s {goal:<24}", numbers::thousands(rate as u64));
        println!(
            "  {:<28} latency p50 {} p99 {}; CPU/request server {:.1} µs, client {:.1} µs; server busy {:.0}% of {cores} CPUs",
            "",
            millis(stats.percentile(0.50)),
            millis(stats.percentile(0.99)),
            stats.cpu.server as f64 / 1e3 / stats.requests as f64,
            stats.cpu.client as f64 / 1e3 / stats.requests as f64,
            stats.cpu.server as f64 / stats.wall.as_nanos() as f64 / cores as f64 * 100.0,
        );
    };
    let (workers, stats) = run_phase(workers, Op::Create, "default").await?;
    report("creates (POST)", &stats, Some(TARGET_CREATES));
    let (workers, stats) = run_phase(workers, Op::Update, "default").await?;
    report("updates (PUT with rv)", &stats, None);
    let (workers, stats) = run_phase(workers, Op::Patch, "default").await?;
    report("updates (merge PATCH)", &stats, None);
    let (workers, stats) = run_phase(workers, Op::Get, "default").await?;
    report("gets (GET by name)", &stats, Some(TARGET_GETS));
    println!("  store.len() after: {}", numbers::thousands(server.state().store.len()));
    drop(workers);
    shutdown(rt, server).await
}

#[derive(Clone, Copy)]
enum Op {
    Create,
    Update,
    Patch,
    Get,
}

/// One client: a connection and the objects it works on.
struct Worker {
    conn: Conn,
    ids: Vec<usize>,
    /// resourceVersion of each of `ids` as last returned (for PUT).
    rvs: Vec<u64>,
    latencies: Vec<Duration>,
}

impl Worker {
    async fn run(mut self, op: Op, namespace: &str) -> Result<Self> {
        self.latencies.clear();
        let collection = format!("/api/v1/namespaces/{namespace}/configmaps");
        let mut body = Vec::with_capacity(256);
        for slot in 0..self.ids.len() {
            let id = self.ids[slot];
            body.clear();
            let started = Instant::now();
            let reply = match op {
                Op::Create => {
                    write!(
                        body,
                        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{id}"}},"data":{{"key":"value-{id}"}}}}"#
                    )?;
                    self.conn.request("POST", &collection, JSON, &body).await?
                }
                Op::Update => {
                    write!(
                        body,
                        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{id}","namespace":"{namespace}","resourceVersion":"{}"}},"data":{{"key":"updated-{id}"}}}}"#,
                        self.rvs[slot]
                    )?;
                    let path = format!("{collection}/cm-{id}");
                    self.conn.request("PUT", &path, JSON, &body).await?
                }
                Op::Patch => {
                    write!(body, r#"{{"data":{{"key":"patched-{id}"}}}}"#)?;
                    let path = format!("{collection}/cm-{id}");
                    self.conn.request("PATCH", &path, MERGE_PATCH, &body).await?
                }
                Op::Get => {
                    let path = format!("{collection}/cm-{id}");
                    self.conn.request("GET", &path, JSON, &[]).await?
                }
            };
            self.latencies.push(started.elapsed());
            let want = if matches!(op, Op::Create) { 201 } else { 200 };
            reply.expect(want, "cm")?;
            if matches!(op, Op::Create | Op::Update | Op::Patch) {
                self.rvs[slot] = resource_version(&reply.body)?;
            }
        }
        Ok(self)
    }
}

async fn connect_workers(endpoint: &Endpoint, c: usize) -> Result<Vec<Worker>> {
    let mut workers = Vec::with_capacity(c);
    for _ in 0..c {
        workers.push(Worker {
            conn: Conn::connect(endpoint).await?,
            ids: Vec::new(),
            rvs: Vec::new(),
            latencies: Vec::new(),
        });
    }
    Ok(workers)
}

/// Deals ids `first..first + count` round-robin to the workers, and reserves room for
/// `capacity` objects overall so later phases allocate nothing new on the client.
fn assign(workers: &mut [Worker], first: usize, count: usize, capacity: usize) {
    let per_worker = capacity.div_ceil(workers.len()).max(1);
    for w in workers.iter_mut() {
        w.ids.clear();
        w.ids.reserve(per_worker);
        w.rvs.clear();
        w.rvs.reserve(per_worker);
        w.latencies.reserve(per_worker);
    }
    let c = workers.len();
    for (i, id) in (first..first + count).enumerate() {
        let w = &mut workers[i % c];
        w.ids.push(id);
        w.rvs.push(0);
    }
}

struct PhaseStats {
    requests: usize,
    wall: Duration,
    /// Request latencies in nanoseconds, sorted.
    latencies: Vec<u64>,
    cpu: CpuSplit,
}

impl PhaseStats {
    fn rate(&self) -> f64 {
        self.requests as f64 / self.wall.as_secs_f64()
    }

    fn percentile(&self, p: f64) -> u64 {
        percentile(&self.latencies, p)
    }
}

/// Runs every worker's share of `op` concurrently; the clock starts after the
/// connections exist.
async fn run_phase(workers: Vec<Worker>, op: Op, namespace: &'static str) -> Result<(Vec<Worker>, PhaseStats)> {
    let cpu_before = cpu_split();
    let started = Instant::now();
    let handles: Vec<_> = workers.into_iter().map(|w| tokio::spawn(w.run(op, namespace))).collect();
    let mut workers = Vec::with_capacity(handles.len());
    for handle in handles {
        workers.push(handle.await.context("a client task panicked")??);
    }
    let wall = started.elapsed();
    let cpu = cpu_split().since(cpu_before);
    let mut latencies: Vec<u64> = workers.iter().flat_map(|w| w.latencies.iter().map(|d| nanos(*d))).collect();
    latencies.sort_unstable();
    let stats = PhaseStats { requests: latencies.len(), wall, latencies, cpu };
    Ok((workers, stats))
}

// ---------------------------------------------------------------------------------
// Watch latency

/// A watch event, read only as far as the send time the generator embedded.
#[derive(Deserialize)]
struct WatchLine<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    object: WatchObject<'a>,
}

#[derive(Deserialize)]
struct WatchObject<'a> {
    #[serde(default, borrow)]
    data: Option<SentData<'a>>,
}

#[derive(Deserialize)]
struct SentData<'a> {
    #[serde(default)]
    sent: Option<&'a str>,
}

#[derive(Deserialize)]
struct ListMeta {
    metadata: ListMetadata,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListMetadata {
    resource_version: String,
}

#[derive(Default)]
struct WatchResult {
    /// Receive time minus send time, nanoseconds.
    latencies: Vec<u64>,
    errors: usize,
    unparsed: usize,
}

async fn watch_latency(config: &Config, rt: &Handle) -> Result<()> {
    let creates = config.events - config.events / 2;
    let patches = config.events / 2;
    println!();
    println!(
        "watch: {} watchers on default/configmaps; {} events ({} creates then {} merge patches), one every {} µs",
        config.watchers,
        numbers::thousands(config.events),
        numbers::thousands(creates),
        numbers::thousands(patches),
        config.interval.as_micros(),
    );
    let server = start_server(rt, Settings::default()).await?;
    let endpoint = Endpoint::of(&server)?;
    let collection = "/api/v1/namespaces/default/configmaps";
    let mut generator = Conn::connect(&endpoint).await?;
    let list = generator.request("GET", &format!("{collection}?limit=1"), JSON, &[]).await?;
    list.expect(200, "list")?;
    let rv = serde_json::from_slice::<ListMeta>(&list.body)
        .context("reading the list's resourceVersion")?
        .metadata
        .resource_version;

    // All clocks are offsets from one Instant: monotonic and shared by every task.
    let base = Instant::now();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut watchers = Vec::with_capacity(config.watchers);
    for _ in 0..config.watchers {
        let mut conn = Conn::connect(&endpoint).await?;
        // From the current resourceVersion: events the server commits before this
        // watch's subscription is in place are replayed from history, not lost.
        let path = format!("{collection}?watch=true&resourceVersion={rv}");
        let (status, framing) = conn.send("GET", &path, JSON, &[]).await?;
        ensure!(status == 200 && matches!(framing, Framing::Chunked), "watch answered HTTP {status}");
        watchers.push(tokio::spawn(watch_one(conn, base, config.events, stop_rx.clone())));
    }

    let cpu_before = cpu_split();
    let interval = config.interval;
    let events = config.events;
    let generated = tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        // Keep the spacing if we fall behind rather than bursting to catch up.
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut write_latencies = Vec::with_capacity(events);
        let started = Instant::now();
        let mut body = Vec::with_capacity(256);
        for i in 0..events {
            ticker.tick().await;
            body.clear();
            let sent = since(base);
            let reply = if i < creates {
                write!(
                    body,
                    r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"w-{i}"}},"data":{{"sent":"{sent}"}}}}"#
                )?;
                generator.request("POST", collection, JSON, &body).await?
            } else {
                write!(body, r#"{{"data":{{"sent":"{sent}"}}}}"#)?;
                let path = format!("{collection}/w-{}", i - creates);
                generator.request("PATCH", &path, MERGE_PATCH, &body).await?
            };
            write_latencies.push(since(base) - sent);
            reply.expect(if i < creates { 201 } else { 200 }, "watch event")?;
        }
        let elapsed = started.elapsed();
        write_latencies.sort_unstable();
        anyhow::Ok((elapsed, write_latencies))
    });
    let (elapsed, write_latencies) = generated.await.context("the generator panicked")??;

    // Wait for every watcher to have seen every event, at most WATCH_GRACE more.
    let all = futures::future::join_all(watchers);
    tokio::pin!(all);
    let joined = tokio::select! {
        joined = &mut all => joined,
        () = tokio::time::sleep(WATCH_GRACE) => {
            let _ = stop_tx.send(true);
            all.await
        }
    };
    let cpu = cpu_split().since(cpu_before);
    let mut latencies = Vec::with_capacity(config.watchers * config.events);
    let (mut errors, mut unparsed) = (0, 0);
    for result in joined {
        let result = result.context("a watcher panicked")??;
        latencies.extend(result.latencies);
        errors += result.errors;
        unparsed += result.unparsed;
    }
    latencies.sort_unstable();
    let expected = config.watchers * config.events;
    let p99 = percentile(&latencies, 0.99);
    println!(
        "  delivered {} of {} events; {} ERROR events, {} unreadable; generator {:.0} events/s, write latency p50 {} p99 {}",
        numbers::thousands(latencies.len()),
        numbers::thousands(expected),
        errors,
        unparsed,
        config.events as f64 / elapsed.as_secs_f64(),
        millis(percentile(&write_latencies, 0.50)),
        millis(percentile(&write_latencies, 0.99)),
    );
    println!(
        "  delivery latency p50 {} p99 {} (target ≤ {}) {}  max {}",
        millis(percentile(&latencies, 0.50)),
        millis(p99),
        millis(nanos(TARGET_WATCH_P99)),
        verdict(latencies.len() == expected && p99 <= nanos(TARGET_WATCH_P99)),
        millis(latencies.last().copied().unwrap_or_default()),
    );
    let deliveries = latencies.len().max(1) as f64;
    println!(
        "  CPU/delivery server {:.2} µs, client {:.2} µs (writes included)",
        cpu.server as f64 / 1e3 / deliveries,
        cpu.client as f64 / 1e3 / deliveries,
    );
    shutdown(rt, server).await
}

/// Reads one watch until it has seen `expected` events or is told to stop; each event
/// is timed at the moment the read that completed it returned.
async fn watch_one(
    mut conn: Conn,
    base: Instant,
    expected: usize,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<WatchResult> {
    let mut result = WatchResult { latencies: Vec::with_capacity(expected), ..WatchResult::default() };
    let mut lines = BytesMut::new();
    let mut received_at = since(base);
    loop {
        while let Some(chunk) = conn.try_chunk()? {
            if chunk.is_empty() {
                // The server ended the watch.
                return Ok(result);
            }
            lines.extend_from_slice(&chunk);
            while let Some(end) = lines.iter().position(|b| *b == b'\n') {
                let line = lines.split_to(end + 1);
                match serde_json::from_slice::<WatchLine<'_>>(&line) {
                    Ok(event) if event.kind == "ERROR" => result.errors += 1,
                    Ok(event) => match event.object.data.and_then(|d| d.sent).and_then(|s| s.parse::<u64>().ok()) {
                        Some(sent) => result.latencies.push(received_at.saturating_sub(sent)),
                        None => result.unparsed += 1,
                    },
                    Err(_) => result.unparsed += 1,
                }
            }
        }
        if result.latencies.len() + result.errors >= expected {
            return Ok(result);
        }
        // `fill` only completes a read or does nothing, so dropping it on stop is safe.
        tokio::select! {
            filled = conn.fill() => filled?,
            _ = stop.changed() => return Ok(result),
        }
        received_at = since(base);
    }
}

// ---------------------------------------------------------------------------------
// A minimal HTTP/1.1 client

/// How a response body is delimited.
enum Framing {
    Length(usize),
    Chunked,
}

struct Reply {
    status: u16,
    body: Bytes,
}

impl Reply {
    fn expect(&self, status: u16, what: &str) -> Result<()> {
        if self.status != status {
            bail!("{what}: HTTP {} (wanted {status}): {}", self.status, String::from_utf8_lossy(&self.body));
        }
        Ok(())
    }
}

/// Where and how to connect: the server's address and a TLS client holding the
/// cluster CA and an admin client certificate (the dev cluster speaks only HTTPS).
#[derive(Clone)]
struct Endpoint {
    addr: SocketAddr,
    tls: tokio_rustls::TlsConnector,
}

impl Endpoint {
    fn of(server: &ApiServer) -> Result<Self> {
        let client = server.client_certificate("bench", &["system:masters"])?;
        Self::new(server.addr(), server.ca_pem(), &client.cert_pem, &client.key_pem)
    }

    fn new(addr: SocketAddr, ca_pem: &str, cert_pem: &str, key_pem: &str) -> Result<Self> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
            roots.add(cert.context("reading the CA")?)?;
        }
        let chain = CertificateDer::pem_slice_iter(cert_pem.as_bytes()).collect::<Result<Vec<_>, _>>()?;
        let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes())?;
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_client_auth_cert(chain, key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self { addr, tls: tokio_rustls::TlsConnector::from(std::sync::Arc::new(config)) })
    }
}

/// One keep-alive connection; requests go one at a time.
struct Conn {
    stream: tokio_rustls::client::TlsStream<TcpStream>,
    /// Bytes read and not yet consumed.
    buf: BytesMut,
    /// The request being written, reused.
    out: Vec<u8>,
    host: String,
}

impl Conn {
    async fn connect(endpoint: &Endpoint) -> Result<Self> {
        let addr = endpoint.addr;
        let tcp = TcpStream::connect(addr).await.with_context(|| format!("connecting to {addr}"))?;
        // Requests go out in one write, but Nagle would still hold one back while the
        // previous segment waits for a (delayed) ACK.
        tcp.set_nodelay(true)?;
        let name = rustls::pki_types::ServerName::IpAddress(addr.ip().into());
        let stream = endpoint.tls.connect(name, tcp).await.context("TLS handshake")?;
        Ok(Self {
            stream,
            buf: BytesMut::with_capacity(64 * 1024),
            out: Vec::with_capacity(1024),
            host: addr.to_string(),
        })
    }

    /// Sends a request and reads the response head.
    async fn send(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) -> Result<(u16, Framing)> {
        self.out.clear();
        write!(self.out, "{method} {path} HTTP/1.1\r\nhost: {}\r\naccept: application/json\r\n", self.host)?;
        if !body.is_empty() {
            write!(self.out, "content-type: {content_type}\r\ncontent-length: {}\r\n", body.len())?;
        }
        self.out.extend_from_slice(b"\r\n");
        self.out.extend_from_slice(body);
        self.stream.write_all(&self.out).await?;
        self.read_head().await
    }

    async fn request(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) -> Result<Reply> {
        let (status, framing) = self.send(method, path, content_type, body).await?;
        let body = match framing {
            Framing::Length(len) => {
                while self.buf.len() < len {
                    self.fill().await?;
                }
                self.buf.split_to(len).freeze()
            }
            Framing::Chunked => {
                let mut all = BytesMut::new();
                loop {
                    let chunk = self.next_chunk().await?;
                    if chunk.is_empty() {
                        break;
                    }
                    all.extend_from_slice(&chunk);
                }
                all.freeze()
            }
        };
        Ok(Reply { status, body })
    }

    /// Reads more bytes; cancel-safe (a read either completes or takes nothing).
    async fn fill(&mut self) -> Result<()> {
        self.buf.reserve(16 * 1024);
        let read = self.stream.read_buf(&mut self.buf).await?;
        ensure!(read > 0, "the server closed the connection");
        Ok(())
    }

    async fn read_head(&mut self) -> Result<(u16, Framing)> {
        loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                let head = self.buf.split_to(end + 4);
                return parse_head(&head);
            }
            self.fill().await?;
        }
    }

    /// The next chunk of a chunked body if it is all buffered; empty at the end.
    fn try_chunk(&mut self) -> Result<Option<Bytes>> {
        let Some(line_end) = find(&self.buf, b"\r\n") else {
            return Ok(None);
        };
        let size_line = std::str::from_utf8(&self.buf[..line_end]).context("chunk size")?;
        let hex = size_line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(hex, 16).with_context(|| format!("chunk size {size_line:?}"))?;
        if self.buf.len() < line_end + 2 + size + 2 {
            return Ok(None);
        }
        self.buf.advance(line_end + 2);
        let data = self.buf.split_to(size).freeze();
        // No trailers are expected after the last chunk.
        ensure!(self.buf.starts_with(b"\r\n"), "malformed chunk");
        self.buf.advance(2);
        Ok(Some(data))
    }

    async fn next_chunk(&mut self) -> Result<Bytes> {
        loop {
            if let Some(chunk) = self.try_chunk()? {
                return Ok(chunk);
            }
            self.fill().await?;
        }
    }
}

fn parse_head(head: &[u8]) -> Result<(u16, Framing)> {
    let text = std::str::from_utf8(head).context("response head is not UTF-8")?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("status line {status_line:?}"))?;
    let mut framing = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            framing = Some(Framing::Length(value.parse().context("content-length")?));
        } else if name.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked") {
            framing = Some(Framing::Chunked);
        }
    }
    let framing = framing.context("response has neither content-length nor chunked body")?;
    Ok((status, framing))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `metadata.resourceVersion` of an object response, found without parsing the whole
/// object (the client's CPU is the server's CPU here). The server writes keys in
/// sorted order and a ConfigMap has only this one resourceVersion.
fn resource_version(body: &[u8]) -> Result<u64> {
    const FIELD: &[u8] = b"\"resourceVersion\":\"";
    let start = find(body, FIELD).context("no resourceVersion in the response")? + FIELD.len();
    let digits = body[start..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&body[start..start + digits])?.parse().context("resourceVersion is not a number")
}

// ---------------------------------------------------------------------------------
// Server lifecycle, process figures, formatting

async fn start_server(rt: &Handle, settings: Settings) -> Result<ApiServer> {
    // Started from a task of the server runtime, so everything it spawns (the accept
    // loop, connections, watches, controllers) runs on the server's threads.
    rt.spawn(ApiServer::start(ServerConfig { port: 0, settings, ..ServerConfig::default() }))
        .await
        .context("the server start task panicked")?
        .context("starting the API server")
}

async fn shutdown(rt: &Handle, server: ApiServer) -> Result<()> {
    rt.spawn(server.shutdown()).await.context("the server shutdown task panicked")
}

/// CPU time in nanoseconds, by side.
#[derive(Clone, Copy, Default)]
struct CpuSplit {
    server: u64,
    client: u64,
}

impl CpuSplit {
    fn since(self, before: Self) -> Self {
        Self { server: self.server.saturating_sub(before.server), client: self.client.saturating_sub(before.client) }
    }
}

/// Sums each thread's CPU time (`schedstat`'s first field, in ns) by runtime: threads
/// named for the server are the server; the rest (client runtime, main thread) is the
/// client. Threads that exited between readings are lost, which only the idle
/// blocking pool does.
fn cpu_split() -> CpuSplit {
    let mut split = CpuSplit::default();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return split;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let (Ok(comm), Ok(schedstat)) =
            (std::fs::read_to_string(path.join("comm")), std::fs::read_to_string(path.join("schedstat")))
        else {
            continue;
        };
        let ns: u64 = schedstat.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0);
        if comm.starts_with(SERVER_THREAD) {
            split.server += ns;
        } else {
            split.client += ns;
        }
    }
    split
}

/// The process's resident set in KiB, from `/proc/self/status`.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn since(base: Instant) -> u64 {
    nanos(base.elapsed())
}

fn millis(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

fn verdict(met: bool) -> &'static str {
    if met { "ok" } else { "MISSED" }
}
