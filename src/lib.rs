//! mcpgen turns an OpenAPI document (and, optionally, a curation file) into the source of a Rust
//! MCP server crate.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! load (document → api::Api) → plan (tool model) → render (files) → emit (format, verify) → write
//!                                ↑
//! curate (curation file → parse → check → bind → curate::Model, references resolved)
//! ```
//!
//! `plan` reads a curation file only as the bound `curate::Model`; `lint`, `diff` and `init`
//! also read the parsed file (`curate::Curation`) for the positions they report.

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
pub mod text;
pub mod write;

use std::path::Path;

/// The discovery search index, which mcpgen builds and the generated server reads (the runtime
/// crate's `search` module, so the two cannot drift apart).
pub use mcpgen_runtime::search;
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
    generate_with(
        spec,
        curation,
        options,
        &render::Runtime::Vendored,
        progress,
    )
}

/// [`generate_with_progress`], taking the generated crate's runtime from `runtime` (its vendored
/// files, or the published crate).
pub fn generate_with(
    spec: &Path,
    curation: Option<&Path>,
    options: &Options,
    runtime: &render::Runtime,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<(plan::Plan, Vec<File>)> {
    progress(&format!("loading {}", spec.display()));
    // Without a curation file, an API with more operations than the discovery threshold is
    // served by the discovery tools alone, which read little of each operation's answer.
    let answers = curation
        .is_none()
        .then(|| plan::discovery_planner::automatic_threshold(options))
        .flatten()
        .map(|above| load::Answers {
            above,
            keep: &plan::discovery_planner::answer_as_read,
        });
    let mut api = load::load_keeping(spec, options.refs_root.as_deref(), answers.as_ref())?;
    load::print_warnings(spec, &api);
    if curation.is_none() {
        // Only a curation file reads into the schemas the loader cut short.
        api.document = api::Document::default();
        release_freed_memory();
    }
    if let Some(path) = curation {
        progress(&format!("checking {}", path.display()));
    }
    let checked = curation.map(|path| curate::load(path, &api)).transpose()?;
    progress(&format!(
        "planning tools for {} operations",
        api.operations.len()
    ));
    let plan = plan::plan(&api, options, checked.as_ref().map(|c| &c.model))
        .map_err(anyhow::Error::msg)?;
    schemas_compile(&plan).map_err(anyhow::Error::msg)?;
    // The plan holds all that rendering needs; for a large API the model is tens of megabytes.
    drop((checked, api));
    release_freed_memory();
    progress(&format!("rendering {} tools", plan.tools.len()));
    let files = render::render_with(&plan, runtime).map_err(anyhow::Error::msg)?;
    Ok((plan, files))
}

/// Every schema the server will check values against (each tool's input and output schema, and
/// each discoverable operation's input schema) compiles in the validator the generated server
/// runs, with its options. Loading already makes each schema valid JSON Schema 2020-12 and drops
/// patterns the validator refuses (src/load/repair.rs); a schema that still does not compile
/// would make the server skip every check of that tool's values at run time, so it is an error
/// here that names the tool, never a silent loss of validation.
pub fn schemas_compile(plan: &plan::Plan) -> Result<(), String> {
    use rayon::prelude::*;
    let tools = plan.tools.iter().flat_map(|tool| {
        std::iter::once((tool.name.as_str(), "input", &tool.input_schema)).chain(
            tool.output_schema
                .iter()
                .map(move |schema| (tool.name.as_str(), "output", schema)),
        )
    });
    let discoverable = plan.discovery.iter().flat_map(|discovery| {
        discovery.operations.iter().map(|operation| {
            (
                operation.name.as_str(),
                "operation input",
                &*plan.operations[operation.operation].input_schema,
            )
        })
    });
    let schemas: Vec<(&str, &str, &serde_json::Value)> = tools.chain(discoverable).collect();
    let mut problems: Vec<String> = schemas
        .par_iter()
        .filter_map(|(name, which, schema)| {
            let error = jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .err()?;
            Some(format!(
                "the {which} schema of `{name}` cannot be compiled by the server's validator ({error}), so the server could not check its values; fix the schema in the spec"
            ))
        })
        .collect();
    problems.sort();
    match problems.is_empty() {
        true => Ok(()),
        false => Err(problems.join("\n")),
    }
}

/// Returns the memory freed so far to the operating system. mimalloc (the binary's allocator)
/// keeps freed pages for a second before it does; for a large API the document and the model
/// are most of what generation ever holds, and rendering, on other threads, would take fresh
/// pages instead of theirs. Harmless under any other allocator.
fn release_freed_memory() {
    // SAFETY: mi_collect has no preconditions; it only frees what mimalloc holds unused.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
