//! A TCP forwarder on loopback that a test can cut and restore: the hub "briefly
//! unreachable" without stopping it. While cut, new connections are closed at once and
//! open ones are dropped; each refused connection is counted.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The forwarder; it stops when dropped.
pub struct Proxy {
    addr: SocketAddr,
    open: Arc<watch::Sender<bool>>,
    refused: Arc<watch::Sender<u64>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    /// Forwards `127.0.0.1:<free port>` to `target` (inside a tokio runtime).
    pub fn start(target: SocketAddr) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        listener.set_nonblocking(true).expect("non-blocking");
        let listener = TcpListener::from_std(listener).expect("tokio listener");
        let addr = listener.local_addr().expect("proxy address");
        let open = Arc::new(watch::Sender::new(true));
        let refused = Arc::new(watch::Sender::new(0u64));
        let (task_open, task_refused) = (open.clone(), refused.clone());
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !*task_open.borrow() {
                    task_refused.send_modify(|n| *n += 1);
                    drop(inbound);
                    continue;
                }
                let mut until_cut = task_open.subscribe();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(target).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = until_cut.wait_for(|open| !open) => {}
                    }
                });
            }
        });
        Self { addr, open, refused, task }
    }

    /// `https://127.0.0.1:<port>` (the hub's serving certificate covers 127.0.0.1).
    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// Makes the target unreachable.
    pub fn cut(&self) {
        self.open.send_replace(false);
    }

    /// Makes it reachable again.
    pub fn restore(&self) {
        self.open.send_replace(true);
    }

    /// Returns once `n` connections were refused since the start.
    pub async fn until_refused(&self, n: u64) {
        let mut count = self.refused.subscribe();
        let _ = count.wait_for(|refused| *refused >= n).await;
    }
}
