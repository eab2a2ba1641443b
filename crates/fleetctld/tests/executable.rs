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

/// The in-cluster build's link order (`build.rs`, made by `layout/generate`): each function
/// once, the code of every role in it, and first what every role runs as it starts.
#[test]
fn the_link_order_lists_each_function_once_with_every_role_and_the_start_first() {
    let order = include_str!("../layout/symbol-order.txt");
    let names: Vec<&str> = order.lines().collect();
    let unique: std::collections::HashSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "a function is listed twice");
    assert!(names.iter().all(|name| !name.is_empty() && !name.contains(char::is_whitespace)), "one symbol per line");
    for role in [
        "_ZN14fleetctl_agent8operator",
        "_ZN14fleetctl_agent12registration",
        "_ZN14fleetctl_agent4work",
        "_ZN14fleetctl_agent5addon",
        "_ZN12fleetctl_hub6import",
    ] {
        assert!(names.iter().any(|name| name.starts_with(role)), "no function of {role} in the link order");
    }
    let start = names.iter().position(|name| *name == "_start").expect("the C runtime's entry is listed");
    let operator = names.iter().position(|name| name.starts_with("_ZN14fleetctl_agent8operator")).expect("listed");
    assert!(start < operator, "code every role runs comes before one role's");
}
