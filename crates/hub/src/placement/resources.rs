//! A cluster's allocatable and capacity of a resource, as numbers: what the
//! ResourceAllocatable prioritizers compare (upstream's `Quantity.AsApproximateFloat64`).

use fleetctl_api::ManagedCluster;
use fleetctl_api::quantity::approximate;

/// The cluster's allocatable and capacity of `resource`, if it reports both and they read.
pub fn allocatable_and_capacity(cluster: &ManagedCluster, resource: &str) -> Option<(f64, f64)> {
    let status = cluster.status.as_ref()?;
    let allocatable = approximate(&status.allocatable.get(resource)?.0)?;
    let capacity = approximate(&status.capacity.get(resource)?.0)?;
    Some((allocatable, capacity))
}
