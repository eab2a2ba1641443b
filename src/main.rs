/// mimalloc, not glibc's malloc: the dev cluster's API server and the fleet simulator
/// allocate from many threads at once, where glibc's arenas spent nearly half the
/// simulator's CPU at 10,000 clusters and kept freed memory from the OS.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    fleetctl::cli::main()
}
