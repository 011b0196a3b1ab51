//! mcpgen turns an OpenAPI document (and, optionally, a curation file) into the source of a Rust
//! MCP server crate.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! load (document → api::Api) → plan (tool model) → render (files) → emit (format, verify) → write
//! ```

pub mod api;
pub mod emit;
pub mod load;
pub mod naming;
pub mod plan;
pub mod render;
pub mod write;

use std::path::Path;

pub use plan::Options;
pub use render::File;

/// Loads `spec`, plans the server and renders its files, without touching the disk.
pub fn generate(spec: &Path, options: &Options) -> anyhow::Result<(plan::Plan, Vec<File>)> {
    let api = load::load(spec)?;
    let plan = plan::plan(&api, options).map_err(anyhow::Error::msg)?;
    let files = render::render(&plan).map_err(anyhow::Error::msg)?;
    Ok((plan, files))
}
