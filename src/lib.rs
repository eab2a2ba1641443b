//! fleetctl: manage a fleet of Kubernetes clusters from one hub cluster,
//! wire-compatible with Open Cluster Management and Red Hat ACM.

pub mod cli;
pub mod devcluster;
pub mod runner;
