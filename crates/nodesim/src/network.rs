//! A network of its own for each Pod whose containers podman runs, as a CNI plugin gives one
//! on a real node: a network namespace with its loopback up and the Pod's address on it, so
//! that two Pods listen on the same port without colliding, and a server bound to the Pod's
//! address or to `0.0.0.0` is reached at the address the Pod's status and Endpoints show.
//!
//! Nothing is routed in or out, so a Pod reaches only what it is given, and no Pod reaches
//! any address of this machine's networks:
//! - the API servers of the dev environment: the simulator listens inside the namespace at
//!   their loopback addresses (`127.0.0.1:<port>`, and this cluster's service address), and
//!   connects each connection accepted there to the same address outside. A Pod's in-cluster
//!   configuration and the kubeconfigs naming `https://127.0.0.1:<port>` work unchanged.
//! - the Pod's own address, from this process (the probes, the API server's webhook calls
//!   through a Service's endpoints): a connection made from inside the namespace
//!   ([`fleetctl_apimachinery::dial::POD_ROUTES`]).
//!
//! Pods do not reach each other. The namespaces are named after the node
//! (`fleetctl-<hash of the node's label>-<pod uid>`) under `/run/netns`, as `ip netns` keeps
//! them, so that what a killed process left is found and removed ([`remove_node`]). Making
//! them takes `CAP_SYS_ADMIN` (podman's containers here run as root) and `ip` (iproute2).

use std::collections::BTreeSet;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use fleetctl_apimachinery::dial::POD_ROUTES;
use parking_lot::Mutex;
use tokio::task::{JoinHandle, JoinSet};

/// Where `ip netns` keeps named network namespaces.
const NETNS_DIR: &str = "/run/netns";

/// The Pod addresses a node gives out: `10.244.0.0/16`, as kind's default Pod subnet.
const SUBNET: Ipv4Addr = Ipv4Addr::new(10, 244, 0, 0);

/// How long a connection into a Pod's network may take (a probe's own timeout is shorter).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a Pod got no network of its own.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// Every address of the subnet is taken.
    #[error("no free Pod address in {SUBNET}/16")]
    Exhausted,
    /// `ip` could not run.
    #[error("running ip {args}")]
    Spawn {
        /// The arguments.
        args: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// `ip` failed.
    #[error("ip {args}: {stderr}")]
    Ip {
        /// The arguments.
        args: String,
        /// What it said.
        stderr: String,
    },
    /// The namespace could not be entered, or a forwarder could not listen in it.
    #[error("{what} in the network namespace {name}")]
    Inside {
        /// What was done.
        what: String,
        /// The namespace.
        name: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// The Pod addresses of a node that are in use.
#[derive(Debug, Default)]
pub(crate) struct Addresses(Mutex<BTreeSet<u16>>);

impl Addresses {
    /// The lowest free address (neither the subnet's first nor its last).
    fn take(&self) -> Result<Ipv4Addr, NetworkError> {
        let mut taken = self.0.lock();
        let free = (1..u16::MAX).find(|host| !taken.contains(host)).ok_or(NetworkError::Exhausted)?;
        taken.insert(free);
        Ok(Ipv4Addr::from(u32::from(SUBNET) | u32::from(free)))
    }

    fn release(&self, ip: Ipv4Addr) {
        if let Ok(host) = u16::try_from(u32::from(ip) & 0xffff) {
            self.0.lock().remove(&host);
        }
    }
}

/// A Pod's network namespace, its address and the forwarders listening in it; removed with
/// [`PodNetwork::remove`].
pub(crate) struct PodNetwork {
    name: String,
    ip: Ipv4Addr,
    addresses: Arc<Addresses>,
    forwarders: Vec<JoinHandle<()>>,
}

impl PodNetwork {
    /// Makes the namespace of the Pod `uid` on the node labelled `node_label`, with an
    /// address from `addresses` and a forwarder for each address of `reach`.
    pub(crate) async fn create(
        node_label: &str,
        uid: &str,
        addresses: Arc<Addresses>,
        reach: &[SocketAddr],
    ) -> Result<Self, NetworkError> {
        let ip = addresses.take()?;
        let mut network = Self { name: name(node_label, uid), ip, addresses, forwarders: Vec::new() };
        if let Err(e) = network.set_up(reach).await {
            network.remove().await;
            return Err(e);
        }
        Ok(network)
    }

    async fn set_up(&mut self, reach: &[SocketAddr]) -> Result<(), NetworkError> {
        // A namespace of the same name is what a killed run left for the same Pod.
        if self.path().exists() {
            ip(&["netns", "delete", &self.name]).await?;
        }
        ip(&["netns", "add", &self.name]).await?;
        ip(&["-n", &self.name, "link", "set", "lo", "up"]).await?;
        ip(&["-n", &self.name, "address", "add", &format!("{}/32", self.ip), "dev", "lo"]).await?;
        let inside = |what: &str, source| NetworkError::Inside { what: what.into(), name: self.name.clone(), source };
        let netns = Arc::new(File::open(self.path()).map_err(|e| inside("opening", e))?);
        for &addr in reach {
            let listener = enter(&netns, move || {
                let listener = std::net::TcpListener::bind(addr)?;
                listener.set_nonblocking(true)?;
                Ok(listener)
            })
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| inside(&format!("listening on {addr}"), e))?;
            self.forwarders.push(tokio::spawn(forward(listener, addr)));
        }
        POD_ROUTES.add(
            IpAddr::V4(self.ip),
            Arc::new(move |target| {
                enter(&netns, move || std::net::TcpStream::connect_timeout(&target, CONNECT_TIMEOUT))
            }),
        );
        Ok(())
    }

    /// The Pod's address.
    pub(crate) fn ip(&self) -> Ipv4Addr {
        self.ip
    }

    /// The namespace's file, as podman's `--network ns:<path>` takes it.
    pub(crate) fn path(&self) -> PathBuf {
        PathBuf::from(NETNS_DIR).join(&self.name)
    }

    /// Stops its forwarders, forgets its route and deletes the namespace.
    pub(crate) async fn remove(self) {
        POD_ROUTES.remove(IpAddr::V4(self.ip));
        for forwarder in &self.forwarders {
            forwarder.abort();
        }
        if self.path().exists()
            && let Err(e) = ip(&["netns", "delete", &self.name]).await
        {
            tracing::warn!(netns = %self.name, error = %e, "removing a Pod's network");
        }
        self.addresses.release(self.ip);
    }
}

/// The namespace's name: the node's and the Pod's, short enough for any file system.
/// The loopback block a Pod on the host's network gets its address from: `127.16.0.0/12`.
const HOST_NETWORK_BLOCK: u32 = 0x7f10_0000;
/// The size of [`HOST_NETWORK_BLOCK`].
const HOST_NETWORK_SIZE: u32 = 1 << 20;

/// The address of a Pod on the host's network (one whose containers run as processes or
/// tasks of this machine): a loopback address of its own, picked by its uid, so that two
/// such Pods bound to their address on the same port (a webhook on 9443) do not collide —
/// every `127.0.0.0/8` address is this machine's loopback, with no setup — while a server
/// bound to `0.0.0.0` is reached there too. Two Pods of the million addresses collide as
/// rarely as their uids' hashes do.
pub(crate) fn host_network_address(uid: &str) -> Ipv4Addr {
    let mut hasher = std::hash::DefaultHasher::new();
    uid.hash(&mut hasher);
    // Neither the block's first address nor its last.
    let offset = u32::try_from(hasher.finish() % u64::from(HOST_NETWORK_SIZE - 2)).map_or(1, |o| o + 1);
    Ipv4Addr::from(HOST_NETWORK_BLOCK + offset)
}

fn name(node_label: &str, uid: &str) -> String {
    let uid: String = uid.chars().filter(char::is_ascii_alphanumeric).take(12).collect();
    format!("{}{uid}", node_prefix(node_label))
}

/// What the names of a node's namespaces start with.
fn node_prefix(node_label: &str) -> String {
    let mut hasher = std::hash::DefaultHasher::new();
    node_label.hash(&mut hasher);
    format!("fleetctl-{:08x}-", hasher.finish() & 0xffff_ffff)
}

/// Deletes every namespace of the node labelled `node_label` (what a killed process left).
pub async fn remove_node(node_label: &str) {
    let prefix = node_prefix(node_label);
    let Ok(entries) = std::fs::read_dir(NETNS_DIR) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix)
            && let Err(e) = ip(&["netns", "delete", &name]).await
        {
            tracing::warn!(netns = %name, error = %e, "removing what an earlier Pod left");
        }
    }
}

/// Runs `f` on a thread of its own inside the network namespace `netns`: the sockets it
/// makes belong to that namespace for their whole life. The thread ends with `f`, so no
/// other work runs in the namespace.
fn enter<T: Send>(netns: &File, f: impl FnOnce() -> std::io::Result<T> + Send) -> std::io::Result<T> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                nix::sched::setns(netns, nix::sched::CloneFlags::CLONE_NEWNET)?;
                f()
            })
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the thread entering a network namespace panicked")))
    })
}

/// Accepts connections inside a Pod's network at `addr` and joins each with a connection
/// to the same address outside; the connections end with the forwarder.
async fn forward(listener: tokio::net::TcpListener, addr: SocketAddr) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((mut inside, _)) => {
                    connections.spawn(async move {
                        match tokio::net::TcpStream::connect(addr).await {
                            Ok(mut outside) => {
                                let _ = tokio::io::copy_bidirectional(&mut inside, &mut outside).await;
                            }
                            Err(e) => tracing::debug!(%addr, error = %e, "forwarding out of a Pod's network"),
                        }
                    });
                }
                Err(e) => {
                    tracing::warn!(%addr, error = %e, "accepting in a Pod's network");
                    return;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// Runs `ip` with `args`.
async fn ip(args: &[&str]) -> Result<(), NetworkError> {
    let joined = args.join(" ");
    let output = tokio::process::Command::new("ip")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .map_err(|source| NetworkError::Spawn { args: joined.clone(), source })?;
    if output.status.success() {
        Ok(())
    } else {
        Err(NetworkError::Ip { args: joined, stderr: String::from_utf8_lossy(&output.stderr).trim().to_string() })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pod_on_the_host_network_gets_a_loopback_address_of_its_own() {
        let a = super::host_network_address("0b7c1a52-7d0e-4c57-9a1d-3f2f5b0d9e11");
        let b = super::host_network_address("5e0f9c3d-1b2a-4e6f-8c7d-9a0b1c2d3e4f");
        assert!(a.is_loopback() && b.is_loopback(), "{a} {b}");
        assert_ne!(a, b, "two Pods, two addresses");
        assert_eq!(a, super::host_network_address("0b7c1a52-7d0e-4c57-9a1d-3f2f5b0d9e11"), "one Pod, one address");
        assert_ne!(a, std::net::Ipv4Addr::LOCALHOST);
    }

    use super::*;

    #[test]
    fn addresses_are_the_lowest_free_ones_of_kinds_pod_subnet_and_come_back_when_released() {
        let addresses = Addresses::default();
        let first = addresses.take().unwrap();
        let second = addresses.take().unwrap();
        assert_eq!((first, second), (Ipv4Addr::new(10, 244, 0, 1), Ipv4Addr::new(10, 244, 0, 2)));
        addresses.release(first);
        assert_eq!(addresses.take().unwrap(), first);
    }

    #[test]
    fn a_namespace_is_named_after_its_node_and_pod_so_a_node_finds_what_it_left() {
        let a = name("/dev/pods/cluster1", "0b6f8a2e-1d4c-4e5f-9a7b-2c3d4e5f6a7b");
        assert!(a.starts_with(&node_prefix("/dev/pods/cluster1")), "{a}");
        assert!(a.ends_with("-0b6f8a2e1d4c"), "{a}");
        assert!(!a.starts_with(&node_prefix("/dev/pods/cluster2")), "{a}");
        assert!(a.len() <= 40, "{a}");
    }
}
