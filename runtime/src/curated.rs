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
mod tests;
