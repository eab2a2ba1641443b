//! The OCM API types fleetctl reads and writes, wire-compatible with upstream
//! (`open-cluster-management-io/api`, `stolostron/klusterlet-addon-controller`), and the CRDs
//! generated from them. Types only: nothing here does I/O.

pub mod cluster;
pub mod conditions;
mod fields;

pub use cluster::{ManagedCluster, ManagedClusterSpec, ManagedClusterStatus};

/// API group of ManagedCluster.
pub const CLUSTER_GROUP: &str = "cluster.open-cluster-management.io";
