//! A progress indicator on stderr (indicatif) that appears only for work that lasts longer than
//! a second, only when stderr is a terminal, and never with `--quiet`; it is cleared when the
//! work ends, so what stays on the screen is the report.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before the indicator appears.
const DELAY: Duration = Duration::from_secs(1);
const REFRESH: Duration = Duration::from_millis(100);

/// What the indicator counts.
pub enum Measure {
    /// Warp-instructions executed so far (a spinner with a rate).
    WarpInstructions,
    /// Items done out of a known total (a bar), e.g. specs checked.
    Items { total: u64, what: &'static str },
}

/// A running indicator; `finish` (or drop) clears it.
pub struct Progress {
    counter: Arc<AtomicU64>,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts the indicator (a no-op when `enabled` is false or stderr is not a terminal).
    pub fn start(enabled: bool, label: String, measure: Measure) -> Progress {
        let counter = Arc::new(AtomicU64::new(0));
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress {
                counter,
                stop: None,
                thread: None,
            };
        }
        let (tx, rx) = channel::<()>();
        let c = Arc::clone(&counter);
        let thread = std::thread::spawn(move || {
            match rx.recv_timeout(DELAY) {
                Err(RecvTimeoutError::Timeout) => {}
                _ => return,
            }
            let bar = match measure {
                Measure::WarpInstructions => {
                    let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                    b.set_style(
                        ProgressStyle::with_template(
                            "{spinner} {msg} {elapsed}: {pos} warp-instructions ({per_sec})",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    b
                }
                Measure::Items { total, what } => {
                    let b =
                        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
                    let template =
                        format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {what} {{elapsed}}");
                    b.set_style(
                        ProgressStyle::with_template(&template)
                            .unwrap_or_else(|_| ProgressStyle::default_bar())
                            .progress_chars("=> "),
                    );
                    b
                }
            };
            // The bar appears after DELAY; its clock counts from the start of the work.
            let bar = bar.with_elapsed(DELAY);
            bar.set_message(label);
            loop {
                bar.set_position(c.load(Ordering::Relaxed));
                bar.tick();
                match rx.recv_timeout(REFRESH) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    _ => break,
                }
            }
            bar.finish_and_clear();
        });
        Progress {
            counter,
            stop: Some(tx),
            thread: Some(thread),
        }
    }

    /// The counter the work adds to.
    pub fn counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.counter)
    }

    /// Stops and clears the indicator.
    pub fn finish(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
