//! The requests a dev API server answered, read from its `/metrics`
//! (`apiserver_request_total`), so a benchmark can say which calls its figure is made of.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use kube::Client;

/// Requests answered, by `VERB resource[/subresource]`, every status code summed.
#[derive(Debug, Default, Clone)]
pub struct Requests(pub BTreeMap<String, u64>);

impl Requests {
    /// The server's counters now.
    pub async fn read(client: &Client) -> Result<Self> {
        let request = http::Request::get("/metrics").body(Vec::new()).context("the /metrics request")?;
        let text = client.request_text(request).await.context("reading /metrics")?;
        let mut counts = BTreeMap::new();
        for line in text.lines().filter(|l| l.starts_with("apiserver_request_total{")) {
            let (labels, count) = line.rsplit_once(' ').context("a counter line without a value")?;
            let label = |name: &str| {
                let start = labels.find(&format!("{name}=\"")).map(|i| i + name.len() + 2)?;
                labels[start..].split('"').next()
            };
            let (verb, resource) = (label("verb").unwrap_or("?"), label("resource").unwrap_or("?"));
            let key = match label("subresource").filter(|s| !s.is_empty()) {
                Some(sub) => format!("{verb} {resource}/{sub}"),
                None => format!("{verb} {resource}"),
            };
            *counts.entry(key).or_insert(0) += count.parse::<u64>().context("a counter that is not a number")?;
        }
        Ok(Self(counts))
    }

    /// What was answered since `before`.
    pub fn since(&self, before: &Self) -> Self {
        let counts = self
            .0
            .iter()
            .map(|(key, n)| (key.clone(), n.saturating_sub(before.0.get(key).copied().unwrap_or(0))))
            .filter(|(_, n)| *n > 0)
            .collect();
        Self(counts)
    }

    /// All requests.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// The `top` most frequent, most first, each with its count per `per` (clusters).
    pub fn print_top(&self, top: usize, per: usize) {
        let mut sorted: Vec<_> = self.0.iter().collect();
        sorted.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (key, n) in sorted.into_iter().take(top) {
            println!("    {n:>9}  {:>7.2} per cluster  {key}", *n as f64 / per.max(1) as f64);
        }
    }
}
