//! `/metrics`: kube-apiserver's request counter and stored-object gauge, in the
//! Prometheus text format (served to who may `get` the non-resource URL, as upstream's
//! `system:monitoring` role grants it).

use std::collections::BTreeMap;
use std::fmt::Write;

use parking_lot::Mutex;

use super::filters::RequestInfo;

/// The labels of one `apiserver_request_total` series.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Series {
    verb: String,
    group: String,
    version: String,
    resource: String,
    subresource: String,
    code: u16,
}

/// Requests answered, by verb, resource and status code.
#[derive(Debug, Default)]
pub struct RequestMetrics {
    counts: Mutex<BTreeMap<Series, u64>>,
}

impl RequestMetrics {
    /// Counts one answered request (resource requests only, as upstream labels them).
    pub fn record(&self, info: &RequestInfo, code: u16) {
        let Some(resource) = &info.resource else { return };
        let series = Series {
            verb: info.verb.to_ascii_uppercase(),
            group: resource.group.clone(),
            version: resource.version.clone(),
            resource: resource.resource.clone(),
            subresource: resource.subresource.clone().unwrap_or_default(),
            code,
        };
        *self.counts.lock().entry(series).or_insert(0) += 1;
    }

    /// The exposition, with `objects` as `apiserver_storage_objects` (resource → count).
    pub fn render(&self, objects: &BTreeMap<String, usize>) -> String {
        let mut out = String::from(
            "# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, \
             group, version, resource, subresource, and HTTP response code.\n# TYPE apiserver_request_total counter\n",
        );
        for (s, count) in self.counts.lock().iter() {
            let _ = writeln!(
                out,
                "apiserver_request_total{{code=\"{}\",group=\"{}\",resource=\"{}\",subresource=\"{}\",verb=\"{}\",version=\"{}\"}} {count}",
                s.code, s.group, s.resource, s.subresource, s.verb, s.version
            );
        }
        out.push_str(
            "# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last check split by kind.\n\
             # TYPE apiserver_storage_objects gauge\n",
        );
        for (resource, count) in objects {
            let _ = writeln!(out, "apiserver_storage_objects{{resource=\"{resource}\"}} {count}");
        }
        out
    }
}
