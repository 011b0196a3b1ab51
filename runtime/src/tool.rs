//! What a tool gives back: its output ([`ToolOutput`]) or why it failed ([`ToolError`]), worded
//! for the model that called it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

use super::upstream::seconds;

/// The future a tool's handler returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send>>;

/// What a tool returns: its result, and notes for the model (such as how to get the rest of a
/// truncated result), sent as extra text after the result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub value: Value,
    pub notes: Vec<String>,
}

impl ToolOutput {
    /// The output with `note` told after it, as a text block of its own.
    pub fn with_note(mut self, note: String) -> Self {
        self.notes.push(note);
        self
    }
}

impl From<Value> for ToolOutput {
    fn from(value: Value) -> Self {
        Self {
            value,
            notes: Vec::new(),
        }
    }
}

/// Why a tool call failed, worded for the model that made it.
#[derive(Debug)]
pub enum ToolError {
    /// The arguments do not fit the tool's input schema.
    InvalidArguments(String),
    /// The upstream API answered with an error status.
    Status {
        operation: &'static str,
        status: u16,
        reason: &'static str,
        message: String,
        /// How long the API asked callers to wait (`Retry-After`), in seconds.
        retry_after: Option<u64>,
    },
    /// The upstream API could not be reached or its answer could not be read.
    Transport {
        operation: &'static str,
        message: String,
    },
    /// The API answered, but not with something the tool can return; the text says what
    /// happened and what to do.
    Answer(String),
    /// Readable values (a project key, user names) that match nothing the API has.
    NotFound(NotFound),
}

/// The most available values a "not found" error lists.
pub const MAX_LISTED_VALUES: usize = 20;

/// Words that say how a thing is named rather than what it is (`display name`, `key`).
const NAMING_WORDS: &[&str] = &[
    "key", "name", "email", "id", "username", "login", "slug", "title", "handle", "display", "full",
];

/// What `what` names, capitalized, to begin a sentence about it: `"project key"` → `Project`,
/// `"issue type name"` → `Issue type`.
pub fn subject(what: &str) -> String {
    // The thing, without the kind of value that names it: `issue type name` → `Issue type`,
    // `user (display name or email)` → `User`.
    let first = what.split(" or ").next().unwrap_or_default();
    let first = first.split('(').next().unwrap_or_default();
    let mut words: Vec<&str> = first.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|word| NAMING_WORDS.contains(word)) {
        words.pop();
    }
    let thing = if words.is_empty() {
        "value".to_string()
    } else {
        words.join(" ")
    };
    let mut chars = thing.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Value".to_string(),
    }
}

/// The plural of `what`, each of its alternatives made plural: `project key` → `project keys`,
/// `user name or email` → `user names or emails`; a remark in parentheses stays as it is
/// (`user (display name or email)` → `users (display name or email)`).
pub fn plural(what: &str) -> String {
    if let Some((thing, remark)) = what.split_once('(') {
        return format!("{} ({remark}", plural(thing.trim_end()));
    }
    what.split(" or ")
        .map(|one| format!("{one}s"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Readable values that match nothing: `Project "WEBB" not found. Available project keys: WEB,
/// API, MOBILE.` for `what` = `"project key"`; every unknown value of a list is named at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {
    /// What the values are ("project key").
    pub what: String,
    /// The values that match nothing, as the model wrote them.
    pub values: Vec<String>,
    /// The values the model can use instead, when they are known.
    pub available: Vec<String>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = subject(&self.what);
        let quoted: Vec<String> = self.values.iter().map(|v| format!("\"{v}\"")).collect();
        match quoted.as_slice() {
            [one] => write!(f, "{subject} {one} not found.")?,
            [init @ .., last] => write!(f, "{subject}s {} and {last} not found.", init.join(", "))?,
            [] => write!(f, "{subject} not found.")?,
        }
        // Two items may show the same value (two people named alike): it is listed once.
        let mut available: Vec<&str> = Vec::with_capacity(self.available.len());
        for value in &self.available {
            if !available.contains(&value.as_str()) {
                available.push(value);
            }
        }
        if !available.is_empty() {
            let listed = &available[..available.len().min(MAX_LISTED_VALUES)];
            write!(
                f,
                " Available {}: {}",
                plural(&self.what),
                listed.join(", ")
            )?;
            if available.len() > listed.len() {
                write!(f, " and {} more", available.len() - listed.len())?;
            }
            write!(f, ".")?;
        }
        Ok(())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::InvalidArguments(message) => write!(f, "{message}"),
            ToolError::Status {
                operation,
                status,
                reason,
                message,
                retry_after,
            } => {
                write!(
                    f,
                    "The API rejected {operation} with HTTP {status} {reason}"
                )?;
                if !message.is_empty() {
                    // The API's own sentence may end with a full stop already.
                    write!(f, ": {}", message.trim_end_matches('.'))?;
                }
                match status {
                    // The API's message says what to change; the same arguments fail again.
                    400 | 422 => write!(
                        f,
                        ". Change what the API's message points to before calling again; the same arguments will be refused the same way."
                    ),
                    401 => write!(
                        f,
                        ". The server's credentials for the API are missing or not allowed to do this; the user must fix the server's configuration."
                    ),
                    // A refusal by the API's own rules (approving one's own change, a player
                    // that cannot skip) as much as one of missing access.
                    403 => write!(
                        f,
                        ". The API does not allow this: if its message is about access, the server's credentials lack it and the user must fix the server's configuration; otherwise it cannot be done as asked."
                    ),
                    404 => write!(f, ". Check the identifiers in the arguments."),
                    429 => match retry_after {
                        Some(wait) => write!(
                            f,
                            ". The API is rate limited; wait {} before calling again.",
                            seconds(Duration::from_secs(*wait))
                        ),
                        None => write!(f, ". The API is rate limited; wait before calling again."),
                    },
                    500..=599 => write!(f, ". The API failed; try again later."),
                    _ => Ok(()),
                }
            }
            ToolError::Transport { operation, message } => {
                write!(
                    f,
                    "Could not complete {operation}: {message}. Try again later."
                )
            }
            ToolError::Answer(message) => write!(f, "{message}"),
            ToolError::NotFound(not_found) => write!(f, "{not_found}"),
        }
    }
}

impl std::error::Error for ToolError {}

pub(crate) fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_not_found_message_names_the_thing_and_lists_in_the_plural_of_what() {
        assert_eq!(subject("project key"), "Project");
        assert_eq!(subject("issue type name"), "Issue type");
        assert_eq!(subject("user name or email"), "User");
        assert_eq!(subject("user (display name or email)"), "User");
        assert_eq!(subject("label"), "Label");
        assert_eq!(subject("user display name"), "User");
        assert_eq!(plural("user name or email"), "user names or emails");
        assert_eq!(
            plural("user (display name or email)"),
            "users (display name or email)"
        );
        let missing = NotFound {
            what: "issue type name".to_string(),
            values: vec!["Epic".to_string()],
            available: vec!["Bug".to_string(), "Task".to_string()],
        };
        assert!(
            missing.to_string().starts_with(
                "Issue type \"Epic\" not found. Available issue type names: Bug, Task."
            ),
            "{missing}"
        );
    }

    #[test]
    fn an_api_message_ending_in_a_full_stop_is_not_doubled() {
        let error = ToolError::Status {
            operation: "GET /things",
            status: 404,
            reason: "Not Found",
            message: "No such thing.".into(),
            retry_after: None,
        };
        assert_eq!(
            error.to_string(),
            "The API rejected GET /things with HTTP 404 Not Found: No such thing. Check the identifiers in the arguments."
        );
    }

    #[test]
    fn a_refusal_by_the_apis_rules_is_not_blamed_on_credentials_nor_worth_repeating() {
        let refused = |status, reason, message: &str| {
            ToolError::Status {
                operation: "POST /approve",
                status,
                reason,
                message: message.into(),
                retry_after: None,
            }
            .to_string()
        };
        assert_eq!(
            refused(
                403,
                "Forbidden",
                "Player command failed: Restriction violated"
            ),
            "The API rejected POST /approve with HTTP 403 Forbidden: Player command failed: Restriction violated. The API does not allow this: if its message is about access, the server's credentials lack it and the user must fix the server's configuration; otherwise it cannot be done as asked."
        );
        assert_eq!(
            refused(
                400,
                "Bad Request",
                "You can't approve your own pull request."
            ),
            "The API rejected POST /approve with HTTP 400 Bad Request: You can't approve your own pull request. Change what the API's message points to before calling again; the same arguments will be refused the same way."
        );
    }

    #[test]
    fn a_rate_limit_says_how_long_to_wait_in_plain_words() {
        let limited = |retry_after| ToolError::Status {
            operation: "GET /things",
            status: 429,
            reason: "Too Many Requests",
            message: String::new(),
            retry_after,
        };
        assert!(
            limited(Some(1))
                .to_string()
                .ends_with("The API is rate limited; wait 1 second before calling again."),
            "{}",
            limited(Some(1))
        );
        assert!(
            limited(Some(30))
                .to_string()
                .ends_with("The API is rate limited; wait 30 seconds before calling again.")
        );
    }
}
