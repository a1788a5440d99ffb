//! The scenario a capture drives (`--drive`): a few device steps run with
//! the same timing on every run, so that runs of two builds differ by the
//! build, not by what a finger did (docs/capture.md, "Driving a scenario").
//!
//! A scenario is a step file or inline steps separated by `;`. One step per
//! line; `#` starts a comment. Steps:
//! - `input …` (swipe, tap, keyevent, text, draganddrop, roll, press,
//!   motionevent), `am …`, `uiautomator …`, `cmd …`, `wm …`: run as
//!   `adb shell` commands, word for word;
//! - `sleep SECS` (decimal seconds, at most an hour), on the host;
//! - `wait-idle [SECS]`: until the app has drawn no frame for a second
//!   (`dumpsys gfxinfo`'s frame count stands still), at most SECS (10).

use std::time::Duration;

/// One step of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A command run with `adb shell`, as its words.
    Shell(Vec<String>),
    /// A pause on the host.
    Sleep(Duration),
    /// Wait until the app stops drawing, at most this long.
    WaitIdle(Duration),
}

/// The device programs a step may run: those that drive the UI or an app,
/// nothing that changes files or settings behind the experiment's back.
const PROGRAMS: &[&str] = &["input", "am", "uiautomator", "cmd", "wm"];

/// The subcommands of `input` that Android's `input` tool knows.
const INPUT_VERBS: &[&str] =
    &["swipe", "tap", "keyevent", "text", "draganddrop", "roll", "press", "motionevent", "keycombination"];

const MAX_SLEEP: Duration = Duration::from_secs(3600);
/// `wait-idle`'s bound when none is given.
pub const DEFAULT_IDLE_WAIT: Duration = Duration::from_secs(10);
/// A scenario is a handful of gestures, not a program.
const MAX_STEPS: usize = 10_000;

/// A parsed scenario.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scenario {
    pub steps: Vec<Step>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ScenarioError {
    #[error("scenario step {step}: {why}")]
    Step { step: usize, why: StepError },
    #[error("scenario has no steps")]
    Empty,
    #[error("scenario has more than {MAX_STEPS} steps")]
    TooLong,
}

impl ScenarioError {
    /// A scenario is what the user typed (`--drive`), or a step file standing in for it.
    pub fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::Usage
    }
}

impl Scenario {
    /// Parse step text: lines, each possibly holding several `;`-separated
    /// steps; blank lines and `#` comments are skipped. Steps are numbered
    /// from 1 in order, for the error message.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        let mut steps = Vec::new();
        let pieces = text.lines().map(|l| l.split('#').next().unwrap_or_default()).flat_map(|l| l.split(';'));
        for piece in pieces.map(str::trim).filter(|p| !p.is_empty()) {
            if steps.len() == MAX_STEPS {
                return Err(ScenarioError::TooLong);
            }
            let step = parse_step(piece).map_err(|why| ScenarioError::Step { step: steps.len() + 1, why })?;
            steps.push(step);
        }
        if steps.is_empty() {
            return Err(ScenarioError::Empty);
        }
        Ok(Scenario { steps })
    }
}

/// One step per line, as it would be written in a step file.
impl std::fmt::Display for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (k, step) in self.steps.iter().enumerate() {
            if k > 0 {
                writeln!(f)?;
            }
            match step {
                Step::Shell(words) => write!(f, "{}", words.join(" "))?,
                Step::Sleep(d) => write!(f, "sleep {}", d.as_secs_f64())?,
                Step::WaitIdle(d) => write!(f, "wait-idle {}", d.as_secs_f64())?,
            }
        }
        Ok(())
    }
}

/// What is wrong with one step (its text first).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum StepError {
    #[error("`{piece}`: {secs} is not a number of seconds from 0 to 3600")]
    Seconds { piece: String, secs: String },
    #[error("`{piece}`: sleep takes one number of seconds")]
    SleepArgs { piece: String },
    #[error("`{piece}`: wait-idle takes at most one number of seconds")]
    WaitIdleArgs { piece: String },
    #[error("`{piece}`: unknown step {program:?} (steps: {}, sleep, wait-idle)", PROGRAMS.join(", "))]
    Unknown { piece: String, program: String },
    #[error("`{piece}`: input needs one of {}", INPUT_VERBS.join(", "))]
    InputVerb { piece: String },
    #[error("`{piece}`: {program} needs arguments")]
    NoArguments { piece: String, program: String },
    #[error("`{piece}`: {word:?} holds shell syntax; steps are plain words")]
    ShellSyntax { piece: String, word: String },
}

fn parse_step(piece: &str) -> Result<Step, StepError> {
    let words: Vec<String> = piece.split_whitespace().map(str::to_string).collect();
    let program = words[0].as_str();
    let piece = || piece.to_string();
    let seconds = |secs: &str| {
        secs.parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64)
            .filter(|d| *d <= MAX_SLEEP)
            .ok_or_else(|| StepError::Seconds { piece: piece(), secs: secs.to_string() })
    };
    match (program, words.as_slice()) {
        ("sleep", [_, secs]) => return Ok(Step::Sleep(seconds(secs)?)),
        ("sleep", _) => return Err(StepError::SleepArgs { piece: piece() }),
        ("wait-idle", [_]) => return Ok(Step::WaitIdle(DEFAULT_IDLE_WAIT)),
        ("wait-idle", [_, secs]) => return Ok(Step::WaitIdle(seconds(secs)?)),
        ("wait-idle", _) => return Err(StepError::WaitIdleArgs { piece: piece() }),
        _ => {}
    }
    if !PROGRAMS.contains(&program) {
        return Err(StepError::Unknown { piece: piece(), program: program.to_string() });
    }
    if program == "input" {
        // `input [source] verb args`: the verb is the first known one.
        if !words[1..].iter().any(|w| INPUT_VERBS.contains(&w.as_str())) {
            return Err(StepError::InputVerb { piece: piece() });
        }
    }
    if words.len() == 1 {
        return Err(StepError::NoArguments { piece: piece(), program: program.to_string() });
    }
    // adb joins the words into one device shell line: a word with shell
    // syntax would run more than the step says.
    if let Some(w) = words.iter().find(|w| w.chars().any(|c| "|&<>`$(){}\\\"'".contains(c))) {
        return Err(StepError::ShellSyntax { piece: piece(), word: w.clone() });
    }
    Ok(Step::Shell(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(words: &[&str]) -> Step {
        Step::Shell(words.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn inline_and_file_steps() {
        let s = Scenario::parse("input swipe 500 1500 500 300 300; sleep 1").unwrap();
        assert_eq!(
            s.steps,
            vec![shell(&["input", "swipe", "500", "1500", "500", "300", "300"]), Step::Sleep(Duration::from_secs(1))]
        );
        let file = "# open the feed\nam start -W -n com.example/.Main\n\nsleep 0.5  # settle\ninput tap 10 20; input keyevent 4\n";
        let s = Scenario::parse(file).unwrap();
        assert_eq!(s.steps.len(), 4);
        assert_eq!(s.steps[1], Step::Sleep(Duration::from_millis(500)));
        assert_eq!(s.steps[3], shell(&["input", "keyevent", "4"]));
    }

    #[test]
    fn bad_steps_name_their_number_and_why() {
        let err = |t: &str| Scenario::parse(t).unwrap_err().to_string();
        assert_eq!(
            err("input tap 1 2; swip 1 2"),
            "scenario step 2: `swip 1 2`: unknown step \"swip\" (steps: input, am, uiautomator, cmd, wm, sleep, wait-idle)"
        );
        assert_eq!(err("sleep"), "scenario step 1: `sleep`: sleep takes one number of seconds");
        assert_eq!(err("sleep -1"), "scenario step 1: `sleep -1`: -1 is not a number of seconds from 0 to 3600");
        assert_eq!(err("sleep 4000"), "scenario step 1: `sleep 4000`: 4000 is not a number of seconds from 0 to 3600");
        assert_eq!(err("input 1 2"), "scenario step 1: `input 1 2`: input needs one of swipe, tap, keyevent, text, draganddrop, roll, press, motionevent, keycombination");
        assert_eq!(err("am"), "scenario step 1: `am`: am needs arguments");
        assert_eq!(
            err("input text a>b"),
            "scenario step 1: `input text a>b`: \"a>b\" holds shell syntax; steps are plain words"
        );
        assert_eq!(err("# nothing\n\n"), "scenario has no steps");
        assert_eq!(Scenario::parse(&"sleep 0;".repeat(MAX_STEPS + 1)).unwrap_err(), ScenarioError::TooLong);
    }

    #[test]
    fn wait_idle_takes_an_optional_bound() {
        let s = Scenario::parse("wait-idle; wait-idle 2.5").unwrap();
        assert_eq!(s.steps, vec![Step::WaitIdle(DEFAULT_IDLE_WAIT), Step::WaitIdle(Duration::from_millis(2500))]);
        assert_eq!(s.to_string(), "wait-idle 10\nwait-idle 2.5");
        let err = Scenario::parse("wait-idle 1 2").unwrap_err().to_string();
        assert_eq!(err, "scenario step 1: `wait-idle 1 2`: wait-idle takes at most one number of seconds");
    }

    #[test]
    fn input_with_a_source_is_accepted() {
        let s = Scenario::parse("input touchscreen swipe 1 2 3 4").unwrap();
        assert_eq!(s.steps, vec![shell(&["input", "touchscreen", "swipe", "1", "2", "3", "4"])]);
    }
}
