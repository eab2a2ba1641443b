//! What every long-running fleetctl process shares — the hub controllers and the
//! klusterlet agents: health and metrics endpoints, leader election, shutdown.

pub mod health;
pub mod leader;
pub mod metrics;

/// Resolves when the process receives SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            // Without a SIGTERM handler only SIGINT stops us.
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}
