//! Runtime support for curated tools: the tools a curation file shapes for a model, rather than
//! the one-tool-per-operation defaults.
//!
//! - readable values (project keys, user names) resolved to the API's ids through a cached list
//!   ([`resolve`]), with "not found" errors that list the values the model can use;
//! - pages walked until a limit is reached ([`paging`]);
//! - results reshaped ([`shape`]): chosen fields, renamed, enum codes and ids mapped back to
//!   readable names, concise or detailed, and marked when truncated;
//! - errors reworded for the model ([`explain`]);
//! - the values a tool's steps pass on: arguments, earlier answers, templates and quoting
//!   ([`values`]).
//!
//! Everything works on the API's JSON as [`serde_json::Value`].

pub mod explain;
pub mod paging;
pub mod resolve;
pub mod shape;
pub mod values;

pub use explain::*;
pub use paging::*;
pub use resolve::*;
pub use shape::*;
pub use values::*;

#[cfg(test)]
mod tests {
    //! What the tests of several curated modules share.

    use super::super::ToolError;

    /// The message the model reads for an error the curated runtime words itself.
    pub(crate) fn text(error: ToolError) -> String {
        match error {
            ToolError::InvalidArguments(text) => text,
            ToolError::NotFound(not_found) => not_found.to_string(),
            ToolError::Answer(text) => text,
            other => panic!("expected InvalidArguments, NotFound or Answer, got {other:?}"),
        }
    }

    /// `names` as owned strings, as listed values are.
    pub(crate) fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    /// The API's refusal of `GET /projects/{id}` with `status`.
    pub(crate) fn status_error(status: u16) -> ToolError {
        ToolError::Status {
            operation: "GET /projects/{id}",
            status,
            reason: "Not Found",
            message: "no such project".to_string(),
            retry_after: None,
        }
    }
}
