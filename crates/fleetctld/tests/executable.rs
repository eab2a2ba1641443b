//! The in-cluster executable as a pod runs it: its roles, and how it ends on bad input.
//! (Cargo builds `fleetctld` for these tests; the workspace's e2e tests then find it
//! beside `fleetctl` and run it for every simulated container.)

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::process::{Command, Output};

fn fleetctld(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fleetctld"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", env!("CARGO_TARGET_TMPDIR"))
        .output()
        .expect("fleetctld runs")
}

#[test]
fn help_lists_every_in_cluster_role() {
    let output = fleetctld(&["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for role in ["hub", "agent", "addon"] {
        assert!(help.lines().any(|l| l.trim_start().starts_with(role)), "{role} in:\n{help}");
    }
    let agents = String::from_utf8_lossy(&fleetctld(&["agent", "--help"]).stdout).into_owned();
    for agent in ["operator", "registration", "work"] {
        assert!(agents.contains(agent), "{agent} in:\n{agents}");
    }
}

#[test]
fn an_unknown_role_is_a_usage_error() {
    let output = fleetctld(&["kubelet"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unrecognized subcommand"));
}

#[test]
fn a_role_without_a_cluster_fails_with_exit_1_naming_the_fix() {
    let output = fleetctld(&["agent", "operator", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/kubeconfig") && stderr.contains("no such file"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
