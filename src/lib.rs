//! mcpgen turns an OpenAPI document (and, optionally, a curation file) into the source of a Rust
//! MCP server crate.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! load (document → api::Api) → plan (tool model) → render (files) → emit (format, verify) → write
//! ```

pub mod api;
pub mod cli;
pub mod curate;
pub mod diff;
pub mod emit;
pub mod init;
pub mod lint;
pub mod load;
pub mod naming;
pub mod plan;
pub mod render;
pub mod write;

use std::path::Path;

pub use plan::Options;
pub use render::File;

/// Loads `spec` (and the curation file `curation`, when given), plans the server and renders its
/// files, without touching the disk.
pub fn generate(
    spec: &Path,
    curation: Option<&Path>,
    options: &Options,
) -> anyhow::Result<(plan::Plan, Vec<File>)> {
    let api = load::load(spec)?;
    let checked = curation.map(|path| curate::load(path, &api)).transpose()?;
    let plan = plan::plan(&api, options, checked.as_ref().map(|c| &c.curation))
        .map_err(anyhow::Error::msg)?;
    let files = render::render(&plan).map_err(anyhow::Error::msg)?;
    Ok((plan, files))
}
