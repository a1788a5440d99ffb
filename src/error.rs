//! What kind of failure an error is. Every module's error enum says its
//! kind (`fn kind(&self) -> ErrorKind`); the command line turns the kind
//! into the exit status (`cli::exit_code`) and the Python bindings into the
//! exception class, so neither reads messages to decide.

/// The kinds of failure, by who has to act.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The command line is wrong: a flag's value, options that do not go
    /// together, a `--keys` template, a gate rule, SQL that does not run,
    /// an `--out` that holds something this command cannot add to.
    Usage,
    /// The input cannot be used: not a trace, no frames for the app, a
    /// damaged lake, a device that refused.
    Input,
    /// A file or folder that cannot be read or written.
    Io,
    /// A `--fail-if` gate tripped.
    Gate,
    /// Ctrl-C stopped the command (after it cleaned up).
    Interrupted,
}
