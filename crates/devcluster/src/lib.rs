//! The embedded dev cluster: a Kubernetes-API-compatible server, the node simulator
//! that runs its Deployments, and the multi-cluster dev environment (`dev up`).

pub mod apiserver;
mod dial;
pub mod env;
pub mod envtest;
pub mod node;
pub mod serve;
