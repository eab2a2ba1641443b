//! Lays out the in-cluster build's code by what runs: the functions the roles execute
//! first, those every role runs ahead of those fewer roles run, and code no role ran
//! in the recorded lifecycle (error paths, other roles' options) after them all.
//!
//! Each role maps only the part of the executable it touches, but the kernel maps file
//! pages 64 KiB around each fault: with the linker's default order a klusterlet agent
//! touched a function in nearly every 64 KiB of the 8.4 MiB of code and so had almost all
//! of it resident. `layout/symbol-order.txt` (made by `layout/generate`, which records
//! the roles under callgrind) gives the linker that order; a name it no longer finds is
//! skipped, so a stale list costs memory, never correctness.
//!
//! Only the size-optimised in-cluster build (`--profile dist`, opt-level "z") for
//! x86_64 Linux is ordered: rustc links that target with its bundled LLD, which reads
//! `--symbol-ordering-file`, and the list names that build's symbols.

use std::env;
use std::path::Path;

fn main() -> Result<(), env::VarError> {
    // Cargo sets these for every build script; without them there is nothing to decide.
    let order = Path::new(&env::var("CARGO_MANIFEST_DIR")?).join("layout").join("symbol-order.txt");
    println!("cargo:rerun-if-changed={}", order.display());
    let target = env::var("TARGET")?;
    let opt_level = env::var("OPT_LEVEL")?;
    if target == "x86_64-unknown-linux-gnu" && opt_level == "z" {
        println!("cargo:rustc-link-arg-bin=fleetctld=-Wl,--symbol-ordering-file={}", order.display());
        println!("cargo:rustc-link-arg-bin=fleetctld=-Wl,--no-warn-symbol-ordering");
        // A static executable relocates itself at start: packed relative relocations
        // (DT_RELR, which the static C library applies itself) keep that table to a few
        // KiB instead of half a MiB of RELA entries that every process maps.
        let features = env::var("CARGO_CFG_TARGET_FEATURE");
        if features.is_ok_and(|features| features.split(',').any(|feature| feature == "crt-static")) {
            println!("cargo:rustc-link-arg-bin=fleetctld=-Wl,-z,pack-relative-relocs");
        }
    }
    Ok(())
}
