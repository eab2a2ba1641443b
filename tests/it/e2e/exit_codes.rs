//! The README's exit-code table, checked the way a pipeline meets it: one case of each class
//! through every command that talks to a hub. Success, a failure (the output cannot be
//! written: stdout is `/dev/full`) and a usage error run on `dev up`; a timeout, a refusal
//! (a user who may only look at other things) and an interrupt run against a hub that
//! answers `/version` and then hangs or refuses everything.

use std::process::Stdio;
use std::time::{Duration, Instant};

use super::DevUp;
use crate::support::fake_hub::{FakeHub, Mode, write_kubeconfig};

/// The commands, by the name the table row gives them.
const COMMANDS: [&str; 8] = ["import", "upgrade", "detach", "get", "describe", "plan", "apply", "hub install"];

/// A command's arguments that succeed on the dev environment (cluster1 imported; `fleet`
/// lists it as it is): nothing to change, or a dry run.
fn succeeding(command: &str, fleet: &str, version: &str) -> Vec<String> {
    let args: Vec<&str> = match command {
        "import" => vec!["import", "cluster1", "--hub-context", "hub"],
        "upgrade" => vec!["upgrade", "cluster1", "--to", version, "--hub-context", "hub"],
        "detach" => vec!["detach", "cluster1", "--yes", "--dry-run", "--hub-context", "hub"],
        "get" => vec!["get", "clusters", "--hub-context", "hub"],
        "describe" => vec!["describe", "cluster", "cluster1", "--hub-context", "hub"],
        "plan" => vec!["plan", "-f", fleet],
        "apply" => vec!["apply", "-f", fleet],
        _ => vec!["hub", "install", "--dry-run", "--hub-context", "hub"],
    };
    args.into_iter().map(str::to_string).collect()
}

/// A command's arguments against the fake hub (context `hub`; `c1` is a cluster behind
/// another fake server).
fn against_fake(command: &str, fleet: &str) -> Vec<String> {
    let args: Vec<&str> = match command {
        "import" => vec!["import", "c1", "--hub-context", "hub"],
        "upgrade" => vec!["upgrade", "c1", "--to", "0.2.0", "--hub-context", "hub"],
        "detach" => vec!["detach", "c1", "--yes", "--hub-context", "hub"],
        "get" => vec!["get", "clusters", "--hub-context", "hub"],
        "describe" => vec!["describe", "cluster", "c1", "--hub-context", "hub"],
        "plan" => vec!["plan", "-f", fleet],
        "apply" => vec!["apply", "-f", fleet],
        _ => vec!["hub", "install", "--hub-context", "hub"],
    };
    args.into_iter().map(str::to_string).collect()
}

fn fleet_file(dir: &std::path::Path, kubeconfig: &std::path::Path, cluster: &str) -> String {
    let stem = kubeconfig.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let path = dir.join(format!("fleet-{stem}-{cluster}.yaml"));
    let text = format!(
        "apiVersion: fleetctl.io/v1alpha1\nkind: Fleet\nhub: {{kubeconfig: {}, context: hub}}\nclusters:\n- name: {cluster}\n",
        kubeconfig.display()
    );
    std::fs::write(&path, text).expect("fleet file");
    path.to_string_lossy().into_owned()
}

/// Runs fleetctl with `kubeconfig`, stdout to `stdout`; with `interrupt`, sends SIGINT once
/// it catches it and a second has passed. Returns the exit code and stderr.
async fn run(
    kubeconfig: &std::path::Path,
    args: &[String],
    stdout: Stdio,
    interrupt: bool,
) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_fleetctl"))
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env_remove("FLEETCTL_HUB_KUBECONFIG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("fleetctl runs");
    if interrupt {
        let pid = child.id().expect("pid");
        crate::support::until("fleetctl catches SIGINT", || super::cli::catches(pid, 2)).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid"));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
    }
    let output = child.wait_with_output().await.expect("fleetctl ends");
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned(), started.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn every_command_exits_with_the_code_of_the_readme_table_for_each_fault_class() {
    let env = DevUp::start(1);
    let imported = env.fleetctl(&["import", "cluster1", "--hub-context", "hub"]);
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    let hub = env.client("hub").await;
    let cluster1 = kube::Api::<fleetctl_api::ManagedCluster>::all(hub).get("cluster1").await.expect("cluster1");
    let version = fleetctl::lifecycle::upgrade::running_version(&cluster1).expect("a version").to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let real_fleet = fleet_file(dir.path(), &env.kubeconfig(), "cluster1");

    let hang = FakeHub::start(Mode::Hang).await;
    let hang_target = FakeHub::start(Mode::Hang).await;
    let forbidden = FakeHub::start(Mode::Forbidden).await;
    let forbidden_target = FakeHub::start(Mode::Forbidden).await;
    let unauthorized = FakeHub::start(Mode::Unauthorized).await;
    let hanging = dir.path().join("hang.kubeconfig");
    write_kubeconfig(&hanging, &[("hub", &hang.url()), ("c1", &hang_target.url())]);
    let refusing = dir.path().join("forbidden.kubeconfig");
    write_kubeconfig(&refusing, &[("hub", &forbidden.url()), ("c1", &forbidden_target.url())]);
    let strangers = dir.path().join("unauthorized.kubeconfig");
    write_kubeconfig(&strangers, &[("hub", &unauthorized.url())]);
    let hang_fleet = fleet_file(dir.path(), &hanging, "c1");
    let forbidden_fleet = fleet_file(dir.path(), &refusing, "c1");

    let mut wrong = Vec::new();
    let check = |what: String, code: Option<i32>, want: i32, stderr: &str, says: &str| {
        let right = code == Some(want) && stderr.contains(says) && !stderr.contains("Status {");
        (!right).then(|| format!("{what}: exit {code:?}, want {want} saying {says:?}; stderr {stderr:?}"))
    };
    for command in COMMANDS {
        let real = succeeding(command, &real_fleet, &version);
        let (code, stderr, _) = run(&env.kubeconfig(), &real, Stdio::null(), false).await;
        wrong.extend(check(format!("{command}: success"), code, 0, &stderr, ""));

        let json = [real.clone(), vec!["-o".into(), "json".into()]].concat();
        let json = if command == "hub install" { real.clone() } else { json };
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let (code, stderr, _) = run(&env.kubeconfig(), &json, Stdio::from(full), false).await;
        wrong.extend(check(format!("{command}: output cannot be written"), code, 1, &stderr, "writing to stdout"));

        let usage = [real, vec!["--timeout".into(), "0s".into()]].concat();
        let (code, stderr, _) = run(&env.kubeconfig(), &usage, Stdio::null(), false).await;
        wrong.extend(check(format!("{command}: usage"), code, 2, &stderr, "greater than zero"));

        let fake = [against_fake(command, &hang_fleet), vec!["--timeout".into(), "2s".into()]].concat();
        let (code, stderr, took) = run(&hanging, &fake, Stdio::null(), false).await;
        wrong.extend(check(format!("{command}: timeout"), code, 3, &stderr, "timed out"));
        if took > Duration::from_secs(3) {
            wrong.push(format!("{command}: --timeout 2s took {took:?}"));
        }

        let fake = against_fake(command, &forbidden_fleet);
        let (code, stderr, _) = run(&refusing, &fake, Stdio::null(), false).await;
        wrong.extend(check(format!("{command}: forbidden"), code, 4, &stderr, "does not let you"));

        let fake = against_fake(command, &hang_fleet);
        let (code, stderr, _) = run(&hanging, &fake, Stdio::null(), true).await;
        wrong.extend(check(format!("{command}: interrupted"), code, 130, &stderr, "stopped by SIGINT"));
    }
    // Credentials the hub does not know: refused, said plainly (no client debug text).
    let (code, stderr, _) = run(&strangers, &against_fake("get", ""), Stdio::null(), false).await;
    wrong.extend(check("get: unauthorized".into(), code, 4, &stderr, "does not accept the credentials"));
    assert!(wrong.is_empty(), "{wrong:#?}");
}
