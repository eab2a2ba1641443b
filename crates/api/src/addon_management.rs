//! OCM's `ClusterManagementAddOn` in the version fleetctl reads and writes; it lives with the
//! other addon kinds in [`crate::addon::v1alpha1`].

pub use crate::addon::v1alpha1::{
    ClusterManagementAddOn, ClusterManagementAddOnSpec, ClusterManagementAddOnStatus, ConfigMeta, ConfigReferent,
    DefaultConfigReference, InstallConfigReference, InstallProgression, InstallStrategy, InstallStrategyType,
    PlacementRef, PlacementStrategy,
};
