//! Progress of the lifecycle operations for a person: a spinner per cluster on a TTY
//! (indicatif), plain lines otherwise; nothing at all with `-q` or `-o json|yaml`.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use parking_lot::Mutex;

use crate::lifecycle::Progress;

/// Shows progress events.
pub struct Reporter {
    quiet: bool,
    bars: Option<(MultiProgress, Mutex<BTreeMap<String, ProgressBar>>)>,
}

impl Reporter {
    /// A reporter for this terminal; `quiet` shows nothing.
    pub fn new(quiet: bool) -> Self {
        let tty = std::io::stderr().is_terminal();
        let bars = (tty && !quiet)
            .then(|| (MultiProgress::with_draw_target(ProgressDrawTarget::stderr()), Mutex::new(BTreeMap::new())));
        Self { quiet, bars }
    }

    fn bar(&self, cluster: &str) -> Option<ProgressBar> {
        let (multi, bars) = self.bars.as_ref()?;
        let mut bars = bars.lock();
        let bar = bars.entry(cluster.to_string()).or_insert_with(|| {
            let bar = multi.add(ProgressBar::new_spinner());
            let style = ProgressStyle::with_template("{spinner} {prefix:.bold} {wide_msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.set_prefix(cluster.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Some(bar.clone())
    }

    /// Shows one event.
    pub fn show(&self, event: Progress) {
        if self.quiet {
            return;
        }
        match (&event, self.bar(cluster_of(&event))) {
            (Progress::Started { step, .. }, Some(bar)) => bar.set_message(format!("{step}…")),
            (Progress::Finished { step, elapsed, .. }, Some(bar)) => {
                bar.println(format!("✓ {} {step} ({:.2}s)", cluster_of(&event), elapsed.as_secs_f64()));
            }
            (Progress::Note { message, .. }, Some(bar)) => bar.println(format!("! {} {message}", cluster_of(&event))),
            (Progress::Started { .. }, None) => {}
            (Progress::Finished { cluster, step, elapsed }, None) => {
                eprintln!("✓ {cluster} {step} ({:.2}s)", elapsed.as_secs_f64())
            }
            (Progress::Note { cluster, message }, None) => eprintln!("! {cluster} {message}"),
        }
    }

    /// Ends the spinners.
    pub fn finish(&self) {
        if let Some((_, bars)) = &self.bars {
            for bar in bars.lock().values() {
                bar.finish_and_clear();
            }
        }
    }
}

fn cluster_of(event: &Progress) -> &str {
    match event {
        Progress::Started { cluster, .. } | Progress::Finished { cluster, .. } | Progress::Note { cluster, .. } => {
            cluster
        }
    }
}
