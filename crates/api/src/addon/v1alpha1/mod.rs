//! `addon.open-cluster-management.io/v1alpha1`: the version the hub stores, and the one
//! fleetctl's own parts read and write.

mod cluster_management_addon;
mod deployment_config;
mod managed_cluster_addon;

pub use cluster_management_addon::*;
pub use deployment_config::*;
pub use managed_cluster_addon::*;
