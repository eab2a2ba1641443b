//! The dev environment: API servers (`fleetctl-apiserver`) and the node simulators that
//! run their Deployments (`fleetctl-nodesim`) put together — one cluster served in the
//! foreground (`serve`), the multi-cluster environment of `dev up` (`env`), and envtest's
//! personality (`envtest`).

pub mod env;
pub mod envtest;
pub mod serve;
