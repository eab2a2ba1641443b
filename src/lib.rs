//! fleetctl, the CLI: manage a fleet of Kubernetes clusters from one hub cluster,
//! wire-compatible with Open Cluster Management and Red Hat ACM.
//!
//! The layers below it are crates of their own: `fleetctl-api` (types and wire names),
//! `fleetctl-kube` (talking to clusters), `fleetctl-hub` and `fleetctl-agent` (the in-cluster
//! roles, run by `fleetctld`) and `fleetctl-devcluster` (the embedded dev cluster).

pub mod cli;
pub mod fleet;
pub mod in_process;
pub mod lifecycle;
pub mod simulator;
