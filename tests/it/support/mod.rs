//! Fixtures shared by the integration tests.

pub mod cluster;
pub mod kubectl;
pub mod proxy;

/// The variable under which a test that needs a missing tool (kubectl, podman, the image)
/// fails instead of skipping; `.ci/run` sets it, since CI installs them all.
pub const REQUIRE_TOOLS: &str = "FLEETCTL_REQUIRE_TOOLS";

/// Says that a test cannot run here and why; under CI ([`REQUIRE_TOOLS`]) that is a
/// failure, elsewhere a notice (the caller then returns).
pub fn skip(why: &str) {
    assert!(std::env::var_os(REQUIRE_TOOLS).is_none(), "{why} ({REQUIRE_TOOLS} is set: CI provides every tool)");
    eprintln!("skipping: {why}");
}

/// Whether a request was refused by authorization (403), not failed any other way.
pub fn forbidden<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> bool {
    match result {
        Err(kube::Error::Api(status)) => status.code == 403,
        other => panic!("expected 403 Forbidden, got {other:?}"),
    }
}
