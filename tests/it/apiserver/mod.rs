//! kube-rs against in-process dev-cluster API servers.

mod admission;
mod bad_input;
mod controller;
mod crd;
mod cronjobs;
mod deletion;
mod discovery;
mod events;
mod list;
mod objects;
mod patch;
mod protobuf;
mod quotas;
mod security;
mod upstream_rules;
mod watch;
mod webhooks;
