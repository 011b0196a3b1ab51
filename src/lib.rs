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
#[path = "../templates/search.rs"]
pub mod search;
pub mod text;
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
    generate_with_progress(spec, curation, options, &mut |_| {})
}

/// [`generate`], telling `progress` what each stage is about to do (for large specs, where a
/// stage takes a moment).
pub fn generate_with_progress(
    spec: &Path,
    curation: Option<&Path>,
    options: &Options,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<(plan::Plan, Vec<File>)> {
    progress(&format!("loading {}", spec.display()));
    let api = load::load_with(spec, options.refs_root.as_deref())?;
    load::print_warnings(spec, &api);
    if let Some(path) = curation {
        progress(&format!("checking {}", path.display()));
    }
    let checked = curation.map(|path| curate::load(path, &api)).transpose()?;
    progress(&format!(
        "planning tools for {} operations",
        api.operations.len()
    ));
    let plan = plan::plan(&api, options, checked.as_ref().map(|c| &c.curation))
        .map_err(anyhow::Error::msg)?;
    // The plan holds all that rendering needs; for a large API the model is tens of megabytes.
    drop((checked, api));
    release_freed_memory();
    progress(&format!("rendering {} tools", plan.tools.len()));
    let files = render::render(&plan).map_err(anyhow::Error::msg)?;
    Ok((plan, files))
}

/// Returns the memory freed so far to the operating system. mimalloc (the binary's allocator)
/// keeps freed pages for a second before it does; for a large API the document and the model
/// are most of what generation ever holds, and rendering, on other threads, would take fresh
/// pages instead of theirs. Harmless under any other allocator.
fn release_freed_memory() {
    // SAFETY: mi_collect has no preconditions; it only frees what mimalloc holds unused.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
