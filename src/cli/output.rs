//! Where a command's words go: results to stdout (a closed pipe is not an error), everything
//! else to stderr, quieter with `-q`, louder with `-v`, coloured only on a terminal.

use std::io::{IsTerminal, Write};

use super::{ColorChoice, GlobalArgs};

/// The command's voice.
#[derive(Debug, Clone)]
pub struct Output {
    /// 0 with `-q`, 1 by default, 2 and more with `-v`.
    pub verbosity: u8,
    /// Colour what goes to stderr.
    pub color: bool,
    /// The stage [`Output::progress`] announced last and when it began: with `-vv`, how long
    /// it took is said when the next one begins or the command ends ([`Output::end_stage`]).
    stage: Option<(String, std::time::Instant)>,
}

impl Output {
    pub fn new(global: &GlobalArgs) -> Self {
        let verbosity = if global.quiet { 0 } else { 1 + global.verbose };
        let color = match global.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        };
        Self {
            verbosity,
            color,
            stage: None,
        }
    }

    /// A quiet, colourless voice (for tests).
    pub fn plain() -> Self {
        Self {
            verbosity: 1,
            color: false,
            stage: None,
        }
    }

    /// Writes `text` to stdout as is. A closed pipe (`mcpgen tools | head`) ends the output
    /// quietly.
    pub fn stdout(&mut self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }

    /// Writes `text` and a newline to stdout.
    pub fn stdout_line(&mut self, text: &str) {
        self.stdout(&format!("{text}\n"));
    }

    /// A status line on stderr (`wrote tracker-mcp …`), unless `-q`.
    pub fn status(&mut self, text: &str) {
        if self.verbosity >= 1 {
            let _ = writeln!(std::io::stderr(), "{text}");
        }
    }

    /// Detail on stderr, only with `-v`.
    pub fn detail(&mut self, text: &str) {
        if self.verbosity >= 2 {
            let _ = writeln!(std::io::stderr(), "{text}");
        }
    }

    /// A progress line on stderr for work that takes a moment: shown when `slow` (a large spec)
    /// or with `-vv`, never with `-q`. With `-vv` the stage it ends is timed: `  loading took
    /// 0.391 s` (wall time; the stage's name is the line's first word).
    pub fn progress(&mut self, slow: bool, text: &str) {
        self.end_stage();
        if self.verbosity >= 3 || (slow && self.verbosity >= 1) {
            let _ = writeln!(std::io::stderr(), "{text}…");
        }
        if self.verbosity >= 3 {
            let name = text.split_whitespace().next().unwrap_or_default();
            self.stage = Some((name.to_string(), std::time::Instant::now()));
        }
    }

    /// With `-vv`, says how long the stage [`Output::progress`] announced last took (once).
    pub fn end_stage(&mut self) {
        if let Some((name, start)) = self.stage.take() {
            let seconds = start.elapsed().as_secs_f64();
            let _ = writeln!(std::io::stderr(), "  {name} took {seconds:.3} s");
        }
    }

    /// Text already formatted for stderr (diagnostics), always shown.
    pub fn stderr(&mut self, text: &str) {
        let _ = write!(std::io::stderr(), "{text}");
    }

    /// Reports a failed command on stderr: `error: …` with its causes, or curation diagnostics
    /// as rendered.
    pub fn error(&mut self, error: &anyhow::Error) {
        let text = match error.downcast_ref::<crate::curate::CurationError>() {
            Some(diagnostics) => diagnostics.to_string(),
            None => {
                let label = if self.color {
                    "\u{1b}[1;31merror\u{1b}[0m"
                } else {
                    "error"
                };
                format!("{label}: {error:#}")
            }
        };
        let _ = writeln!(std::io::stderr(), "{text}");
    }
}
