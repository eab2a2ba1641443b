//! fleetctl: manage a fleet of Kubernetes clusters from one hub cluster,
//! wire-compatible with Open Cluster Management and Red Hat ACM.

pub mod addon;
pub mod agent;
pub mod api;
pub mod certs;
pub mod cli;
pub mod devcluster;
pub mod duration;
pub mod errors;
pub mod hub;
pub mod kube;
pub mod lifecycle;
pub mod manifests;
pub mod runner;
