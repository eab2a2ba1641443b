//! `addon.open-cluster-management.io/v1beta1`: served beside v1alpha1 for upstream's newer
//! addon managers and agents; the API server stores its objects as v1alpha1, converting them
//! through [`crate::addon::conversion`]. The types whose schema is the same in both versions
//! are v1alpha1's, re-exported here.

mod cluster_management_addon;
mod deployment_config;
mod managed_cluster_addon;

pub use cluster_management_addon::*;
pub use deployment_config::*;
pub use managed_cluster_addon::*;

pub use super::v1alpha1::{
    AddOnConfig, AddOnMeta, ConfigGroupResource, ConfigSpecHash, ContainerResourceRequirements, CustomizedVariable,
    DefaultConfigReference, HealthCheck, HealthCheckMode, ImageMirror, InstallConfigReference, InstallProgression,
    InstallStrategy, InstallStrategyType, KubeClientDriver, NodePlacement, ObjectReference, PlacementRef,
    PlacementStrategy, ProxyConfig,
};
