//! The server's log ([`log_to_stderr`]): its warnings and errors and those of the crates it is
//! built on (rmcp, hyper), one line each on stderr, which stdout's stdio transport leaves free.
//!
//! Written here rather than taken from `tracing-subscriber`, whose `fmt` subscriber printed the
//! same lines before: that crate and the three it needs (`sharded-slab`, `thread_local`,
//! `lazy_static`) were about 2 % of the CPU of a cold debug build of a generated crate
//! (BENCHMARKS.md, issue 26), for a server that prints a warning now and then and keeps no spans
//! (rmcp's are at INFO and TRACE, below what is printed).

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// Prints every warning and error event of this process to stderr from now on, as
/// `2026-12-07T08:01:02.345678Z  WARN target: message field=value`: the time in UTC, the level,
/// where it comes from, the message, then its other fields (`Debug`-formatted). Control
/// characters but newline and tab (an escape sequence in a string an API returned) are written
/// as `\u{1b}`, so that the log cannot drive the terminal it is read in. A second call keeps the
/// first subscriber.
pub fn log_to_stderr() {
    let _ = tracing::subscriber::set_global_default(StderrLog {
        next_span: AtomicU64::new(1),
    });
}

/// The most detailed level printed.
const MAX_LEVEL: Level = Level::WARN;

struct StderrLog {
    /// Spans are not printed, but each needs an id of its own (none is 0).
    next_span: AtomicU64,
}

impl Subscriber for StderrLog {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.enabled(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= MAX_LEVEL
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::from_level(MAX_LEVEL))
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(self.next_span.fetch_add(1, Ordering::Relaxed))
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let line = format_event(SystemTime::now(), event);
        // Nothing to do when stderr is gone; one write per line, so that lines of different
        // threads do not interleave.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

/// One line of the log, its newline included.
fn format_event(now: SystemTime, event: &Event<'_>) -> String {
    let metadata = event.metadata();
    let mut line = String::with_capacity(128);
    let _ = write!(
        line,
        "{} {:>5} {}: ",
        Timestamp(now),
        metadata.level().as_str(),
        metadata.target()
    );
    let mut fields = Fields { line, first: true };
    event.record(&mut fields);
    let mut line = fields.line;
    line.push('\n');
    line
}

/// Writes an event's fields: the message as it reads, the others as `name=value`.
struct Fields {
    line: String,
    first: bool,
}

impl Fields {
    fn separate(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.line.push(' ');
        }
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.separate();
        if field.name() == "message" {
            // The message is `format_args!`, whose `Debug` is its text.
            let _ = write!(Escaped(&mut self.line), "{value:?}");
        } else {
            let name = field.name().trim_start_matches("r#");
            let _ = write!(Escaped(&mut self.line), "{name}={value:?}");
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        // The error and the chain of its causes, as `{:#}` shows an anyhow error.
        let mut text = value.to_string();
        let mut source = value.source();
        while let Some(cause) = source {
            let _ = write!(text, ": {cause}");
            source = cause.source();
        }
        self.record_debug(field, &format_args!("{text}"));
    }
}

/// Writes into a line with each control character but newline and tab as its `\u{…}` escape.
struct Escaped<'a>(&'a mut String);

impl fmt::Write for Escaped<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        for c in text.chars() {
            if c.is_control() && c != '\n' && c != '\t' {
                write!(self.0, "{}", c.escape_unicode())?;
            } else {
                self.0.push(c);
            }
        }
        Ok(())
    }
}

/// A moment as RFC 3339 in UTC to the microsecond: `2026-12-07T08:01:02.345678Z`.
struct Timestamp(SystemTime);

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // chrono is built anyway (rmcp's dependency); its calendar does the arithmetic.
        let utc = chrono::DateTime::<chrono::Utc>::from(self.0);
        f.write_str(&utc.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn times_are_rfc_3339_in_utc_to_the_microsecond() {
        let at = |micros: u64| Timestamp(UNIX_EPOCH + Duration::from_micros(micros)).to_string();
        assert_eq!(at(0), "1970-01-01T00:00:00.000000Z");
        // 2000 was a leap year (divisible by 400).
        assert_eq!(at(951_782_400_000_000), "2000-02-29T00:00:00.000000Z");
        assert_eq!(at(1_796_634_062_345_678), "2026-12-07T09:01:02.345678Z");
    }

    /// The lines an event of each level gives, captured by a subscriber that formats them as
    /// [`StderrLog`] does.
    struct Captured(Arc<Mutex<Vec<String>>>);

    impl Subscriber for Captured {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            StderrLog {
                next_span: AtomicU64::new(1),
            }
            .enabled(metadata)
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let line = format_event(UNIX_EPOCH + Duration::from_secs(1_796_634_062), event);
            self.0.lock().unwrap().push(line);
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    #[test]
    fn warnings_and_errors_are_printed_one_line_each_and_nothing_less_severe() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        tracing::subscriber::with_default(Captured(lines.clone()), || {
            let tool = "search_issues";
            let error = std::io::Error::other("the API answered 503");
            tracing::info!("serving MCP on http://127.0.0.1:8000/mcp");
            tracing::debug!("connection closed");
            tracing::warn!(tool, %error, "tool call failed");
            tracing::error!(attempts = 3, "gave up: \u{1b}[31mred\u{1b}[0m\nsecond line");
        });
        assert_eq!(
            *lines.lock().unwrap(),
            [
                "2026-12-07T09:01:02.000000Z  WARN mcpgen_runtime::log::tests: tool call failed tool=\"search_issues\" error=the API answered 503\n",
                "2026-12-07T09:01:02.000000Z ERROR mcpgen_runtime::log::tests: gave up: \\u{1b}[31mred\\u{1b}[0m\nsecond line attempts=3\n",
            ]
        );
    }
}
