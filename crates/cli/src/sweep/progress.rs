//! The sweep's progress bar: on a terminal, once the sweep has taken a second.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::run;

/// Points done of the sweep's, shown once it is slow enough to need it.
pub struct Progress {
    started: Instant,
    total: usize,
    done: usize,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total: usize) -> Self {
        Self { started: Instant::now(), total, done: 0, bar: None }
    }

    /// One more point done.
    pub fn step(&mut self) {
        self.done += 1;
        if self.bar.is_none() && self.started.elapsed() > run::PROGRESS_AFTER && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(self.total as u64);
            let style = ProgressStyle::with_template("{bar:30} {pos}/{len} points · {elapsed} (about {eta} left)");
            bar.set_style(style.unwrap_or(ProgressStyle::default_bar()));
            // A simulated point can take minutes: keep the clock moving between points.
            bar.enable_steady_tick(Duration::from_millis(250));
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
        }
    }
}

/// Clears the bar however the sweep ends, an error included.
impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
