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

/// What the link order's names depend on: the compiler, and the crates of the in-cluster
/// build with their versions and features (each crate's symbols carry a hash of those).
/// `layout/recorded-for.txt` holds them as `layout/generate` recorded the order.
fn link_order_inputs() -> String {
    let cargo = std::path::Path::new(env!("CARGO"));
    let rustc = Command::new(cargo.with_file_name("rustc")).arg("-V").output().expect("rustc runs");
    assert!(rustc.status.success(), "{rustc:?}");
    let tree = Command::new(cargo)
        .args(["tree", "-p", "fleetctld", "-e", "normal", "--target", "x86_64-unknown-linux-gnu"])
        .args(["--prefix", "none", "--format", "{p} [{f}]", "--locked", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(tree.status.success(), "{}", String::from_utf8_lossy(&tree.stderr));
    // Without the parts that name this checkout or repeat a crate: `(/path)`, `(*)`, `(proc-macro)`.
    let crates: std::collections::BTreeSet<String> = String::from_utf8_lossy(&tree.stdout)
        .lines()
        .map(|line| {
            let mut kept = String::new();
            let mut rest = line;
            while let Some((before, after)) = rest.split_once(" (") {
                kept.push_str(before);
                rest = after.split_once(')').map_or("", |(_, after)| after);
            }
            kept.push_str(rest);
            kept
        })
        .collect();
    let mut inputs = String::from_utf8_lossy(&rustc.stdout).into_owned();
    for line in crates {
        inputs.push_str(&line);
        inputs.push('\n');
    }
    inputs
}

/// The names of the link order carry hashes of the toolchain and of each crate's version and
/// features: built with others, most no longer name a function, the linker skips them
/// silently and the roles keep twice the memory. The toolchain and the crates it was recorded
/// with are part of the checkout, so a change to either fails here until the order is
/// recorded again (what a change of the code itself renames stays under a tenth: 92% of the
/// names resolved after the controller runtime's rewrite).
#[test]
fn the_link_order_was_recorded_with_this_toolchain_and_these_crates() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("layout/recorded-for.txt");
    let inputs = link_order_inputs();
    if std::env::var_os("FLEETCTL_UPDATE_LAYOUT_INPUTS").is_some() {
        assert!(std::env::var_os("CI").is_none(), "FLEETCTL_UPDATE_LAYOUT_INPUTS is set under CI");
        std::fs::write(&path, &inputs).expect("write layout/recorded-for.txt");
        return;
    }
    let recorded = std::fs::read_to_string(&path).expect("layout/recorded-for.txt");
    let changed: Vec<String> = {
        let now: std::collections::BTreeSet<&str> = inputs.lines().collect();
        let then: std::collections::BTreeSet<&str> = recorded.lines().collect();
        let gone = then.difference(&now).map(|line| format!("- {line}"));
        gone.chain(now.difference(&then).map(|line| format!("+ {line}"))).collect()
    };
    assert!(
        changed.is_empty(),
        "the link order was recorded with another toolchain or other crates; record it again with \
         crates/fleetctld/layout/generate (MAINTAINING.md):\n{}",
        changed.join("\n")
    );
}
