//! `exec` probes (`pkg/probe/exec`): the command runs where the container runs — `podman
//! exec` in a podman container; for a process (or task) container, on this machine with the
//! container's environment, in its process's working directory. Exit code 0 passes; any
//! other fails with the command's output as the reason. A command still running at the
//! probe's timeout is killed.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;

use super::super::container::Podman;

/// The most of a command's output a failure reports (the kubelet's `maxReadLength`).
const MAX_OUTPUT: usize = 10 * 1024;

/// Where a container's exec probes run.
#[derive(Debug, Clone)]
pub(crate) enum Exec {
    /// In the podman container of this name.
    Podman { podman: Podman, container: String },
    /// On this machine, with the container's environment, in the working directory of its
    /// process (when it has one: a task shares this one's).
    Host { env: Vec<(OsString, OsString)>, process: Option<u32> },
}

impl Exec {
    /// Runs `command`; `Err` says why the probe failed.
    pub(super) async fn probe(&self, command: &[String]) -> Result<(), String> {
        let Some((program, args)) = command.split_first() else {
            return Err("the exec probe names no command".into());
        };
        let mut process = match self {
            Self::Podman { podman, container } => podman.exec(container, command),
            Self::Host { env, process: pid } => {
                let mut process = tokio::process::Command::new(program);
                process.args(args).env_clear().envs(env.iter().map(|(k, v)| (k, v)));
                // The link follows the process into its mount namespace, wherever it moved.
                if let Some(pid) = pid {
                    process.current_dir(PathBuf::from(format!("/proc/{pid}/cwd")));
                }
                process
            }
        };
        process.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        let output = process.output().await.map_err(|e| format!("exec {program:?}: {e}"))?;
        if output.status.success() {
            return Ok(());
        }
        let mut said = output.stdout;
        said.extend_from_slice(&output.stderr);
        said.truncate(MAX_OUTPUT);
        let said = String::from_utf8_lossy(&said).trim_end().to_string();
        match output.status.code() {
            _ if !said.is_empty() => Err(said),
            Some(code) => Err(format!("command {command:?} exited with code {code}")),
            None => Err(format!("command {command:?} was killed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(env: &[(&str, &str)], process: Option<u32>) -> Exec {
        let mut env: Vec<(OsString, OsString)> = env.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        env.push(("PATH".into(), std::env::var_os("PATH").unwrap_or_default()));
        Exec::Host { env, process }
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[tokio::test]
    async fn a_command_runs_with_the_containers_env_in_its_working_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("healthy"), "").unwrap();
        let mut container = tokio::process::Command::new("sleep");
        let mut container = container.arg("30").current_dir(dir.path()).kill_on_drop(true).spawn().unwrap();
        let exec = host(&[("WANT", "yes")], container.id());
        assert_eq!(exec.probe(&sh("test \"$WANT\" = yes && test -f healthy")).await, Ok(()));
        assert_eq!(exec.probe(&sh("echo not healthy; exit 3")).await, Err("not healthy".into()));
        assert_eq!(exec.probe(&sh("exit 4")).await, Err(r#"command ["sh", "-c", "exit 4"] exited with code 4"#.into()));
        assert!(host(&[], None).probe(&["/nonexistent/probe".into()]).await.is_err());
        container.kill().await.unwrap();
    }
}
