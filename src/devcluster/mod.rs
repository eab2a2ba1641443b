//! The embedded dev cluster: a Kubernetes-API-compatible server (and, later, the
//! node simulator and the multi-cluster dev environment).

pub mod apiserver;
pub mod serve;
