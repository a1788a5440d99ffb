//! Where the library's words to the user go while it works: status lines,
//! warnings and progress bars, on stderr. `cli` builds the one [`Sink`] of a
//! command ([`Sink::stderr`]: interactive when stderr is a terminal) and
//! hands it down to the reader, `compare` and `capture`; what runs without a
//! user (tests, benchmarks, embedding) uses [`Sink::quiet`]. Results are not
//! the sink's: commands return them for `cli` to print on stdout.

use std::time::Duration;

/// A message squeezed onto one line (its whitespace runs, newlines
/// included, become one space): every error and warning fpsan prints is one.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

use indicatif::{ProgressBar, ProgressStyle};

/// The user's stderr, or nobody.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sink {
    /// Draw bars and status lines (stderr is a terminal).
    interactive: bool,
}

impl Sink {
    /// The process's stderr: interactive when it is a terminal.
    pub fn stderr() -> Sink {
        use std::io::IsTerminal;
        Sink { interactive: std::io::stderr().is_terminal() }
    }

    /// Bars and status lines for nobody; warnings still go to stderr.
    pub fn quiet() -> Sink {
        Sink { interactive: false }
    }

    /// Whether bars and status lines are drawn.
    pub fn is_interactive(&self) -> bool {
        self.interactive
    }

    /// A status line, when interactive; above `bar` while one is drawn.
    pub fn info(&self, bar: Option<&ProgressBar>, msg: &str) {
        if !self.interactive {
            return;
        }
        match bar {
            Some(bar) => bar.println(format!("fpsan: {msg}")),
            None => eprintln!("fpsan: {msg}"),
        }
    }

    /// A warning, always (on a pipe too); `bar` is hidden while it is written.
    pub fn warn(&self, bar: Option<&ProgressBar>, msg: &str) {
        match bar {
            Some(bar) => bar.suspend(|| eprintln!("fpsan: warning: {msg}")),
            None => eprintln!("fpsan: warning: {msg}"),
        }
    }

    /// A bar of `len` units drawn with `template` (indicatif's), hidden when
    /// not interactive.
    pub fn bar(&self, len: u64, template: &str) -> ProgressBar {
        if !self.interactive {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(len);
        bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
        bar
    }

    /// A spinner that turns on its own, hidden when not interactive.
    pub fn spinner(&self) -> ProgressBar {
        if !self.interactive {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new_spinner();
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    }
}
