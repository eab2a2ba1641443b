//! Fixtures shared by the integration tests.

pub mod cluster;
pub mod kubectl;
pub mod proxy;
