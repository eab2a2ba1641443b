//! What the examples read of processes from /proc: memory, CPU time, and which processes
//! of a dev environment run a role.

/// A `Field:   N kB` line of `/proc/PID/FILE`, KiB.
fn kib_in(pid: u32, file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
    text.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()
}

fn status_kib(pid: u32, field: &str) -> Option<u64> {
    kib_in(pid, "status", field)
}

/// Resident memory now, KiB.
#[allow(dead_code, reason = "not every example reads it")]
pub fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

/// Resident memory of the process itself (not its executable's pages), KiB.
#[allow(dead_code, reason = "not every example reads it")]
pub fn anon_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "RssAnon:")
}

/// Proportional set size: each shared page divided among the processes mapping it, KiB.
#[allow(dead_code, reason = "not every example reads it")]
pub fn pss_kib(pid: u32) -> Option<u64> {
    kib_in(pid, "smaps_rollup", "Pss:")
}

/// Peak resident memory (high-water mark), KiB.
#[allow(dead_code, reason = "not every example reads it")]
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM:")
}

/// User plus system CPU time the process has used, in seconds (clock ticks as the
/// machine counts them: `getconf CLK_TCK`).
#[allow(dead_code, reason = "not every example reads it")]
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): utime and stime are the
    // 12th and 13th after the closing parenthesis.
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let output = std::process::Command::new("getconf").arg("CLK_TCK").output().ok()?;
    let per_second: f64 = String::from_utf8_lossy(&output.stdout).trim().parse().ok()?;
    Some(ticks as f64 / per_second)
}

/// Pids of the processes whose command line holds `needle` and that `keep` accepts, given
/// the process's /proc directory (`None`: it could not be read, or is gone).
fn pids_where(needle: &str, keep: impl Fn(&std::path::Path) -> Option<bool>) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_string_lossy().parse().ok()?;
            let cmdline =
                String::from_utf8_lossy(&std::fs::read(entry.path().join("cmdline")).ok()?).replace('\0', " ");
            (cmdline.contains(needle) && keep(&entry.path())?).then_some(pid)
        })
        .collect()
}

/// Pids of the processes of process group `group` whose command line holds `needle` (a
/// dev cluster process leads the group of the containers its node simulator starts).
#[allow(dead_code, reason = "not every example looks for processes")]
pub fn pids_in_group(group: u32, needle: &str) -> Vec<u32> {
    pids_where(needle, |dir| {
        let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
        // After the command name (which may hold spaces): state, ppid, pgrp.
        let pgrp: u32 = stat.rsplit_once(')')?.1.split_whitespace().nth(2)?.parse().ok()?;
        Some(pgrp == group)
    })
}
