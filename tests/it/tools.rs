//! The tools some tests need beside cargo: the one test that says, in every run, which of
//! them are missing here and so which tests skip (the runner shows its output; under CI a
//! missing tool fails the run instead).

use crate::support::skip;

#[test]
fn the_tools_some_tests_need_are_here_or_their_tests_skip_saying_so() {
    let kubectl = crate::support::kubectl::kubectl_path().is_some();
    let image = crate::e2e::image::missing();
    let terminal = crate::e2e::cli::terminal_available();
    let found = |yes: bool| if yes { "found" } else { "missing" };
    println!("kubectl: {} (the kubectl* tests and the pasted import command)", found(kubectl));
    println!("podman and the image: {} (e2e::image)", image.as_deref().unwrap_or("found"));
    println!("script: {} (the detach prompt at a terminal)", found(terminal));
    let upstream = std::env::var_os(crate::support::upstream::VARIABLE).is_some();
    println!(
        "upstream OCM executables: {} ({}; the upstream tests)",
        found(upstream),
        crate::support::upstream::VARIABLE
    );
    let skipped: Vec<&str> = [(!kubectl, "kubectl"), (image.is_some(), "podman and the image"), (!terminal, "script")]
        .into_iter()
        .filter_map(|(missing, tool)| missing.then_some(tool))
        .collect();
    if !skipped.is_empty() {
        skip(&format!("missing here: {}; the tests that need them pass without running", skipped.join(", ")));
    }
}
