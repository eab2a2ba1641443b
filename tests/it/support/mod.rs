//! Fixtures shared by the integration tests.

pub mod cluster;
pub mod fake_hub;
pub mod kubectl;
pub mod proxy;
pub mod upstream;

/// The variable under which a test that needs a missing tool (kubectl, podman, the image)
/// fails instead of skipping; `.ci/run` sets it, since CI installs them all.
pub const REQUIRE_TOOLS: &str = "FLEETCTL_REQUIRE_TOOLS";

/// Says that a test cannot run here and why; under CI ([`REQUIRE_TOOLS`]) that is a
/// failure, elsewhere a notice (the caller then returns). The notice also goes straight to
/// the terminal, since the test runner shows nothing of what a passing test printed.
pub fn skip(why: &str) {
    assert!(std::env::var_os(REQUIRE_TOOLS).is_none(), "{why} ({REQUIRE_TOOLS} is set: CI provides every tool)");
    notice(why);
}

/// Says that a test cannot run here and why, on the terminal too (the runner shows nothing
/// of what a passing test printed); the caller then returns.
pub fn notice(why: &str) {
    use std::io::Write;
    let notice = format!("skipping {}: {why}", std::thread::current().name().unwrap_or("a test"));
    eprintln!("{notice}");
    if let Ok(mut terminal) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        let _ = writeln!(terminal, "{notice}");
    }
}

/// Whether a request was refused by authorization (403), not failed any other way.
pub fn forbidden<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> bool {
    match result {
        Err(kube::Error::Api(status)) => status.code == 403,
        other => panic!("expected 403 Forbidden, got {other:?}"),
    }
}

/// How long a test waits for something it expects to happen.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// Waits until `check` holds, for what no watch can show (an in-process counter such as a
/// controller's metrics); fails the test after [`PATIENCE`].
pub async fn until(what: &str, check: impl Fn() -> bool) {
    let polled = async {
        while !check() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(PATIENCE, polled).await.unwrap_or_else(|_| panic!("{what}: not within {PATIENCE:?}"));
}

/// A controller under test that can be replaced by a fresh one (which reconciles everything
/// it manages once) and whose writes can be counted.
pub trait Restartable {
    /// Starts a fresh controller; returns once it has reconciled and nothing is in flight.
    async fn restart_and_reconcile(&mut self);

    /// What has been written so far (resourceVersions of the stores it writes to).
    fn writes(&self) -> Vec<u64>;
}

/// Brings `target` to rest without a quiet period: restarts it until a fresh pass writes
/// nothing (a pass that writes is retriggered by its own writes), then asserts that one
/// more fresh pass over the unchanged state writes nothing either.
pub async fn assert_a_fresh_pass_writes_nothing(target: &mut impl Restartable) {
    let settled = async {
        loop {
            let before = target.writes();
            target.restart_and_reconcile().await;
            if target.writes() == before {
                return;
            }
        }
    };
    tokio::time::timeout(PATIENCE, settled).await.expect("a fresh pass that writes nothing");
    let before = target.writes();
    target.restart_and_reconcile().await;
    assert_eq!(target.writes(), before, "zero writes by a fresh pass over an unchanged state");
}
