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

pub mod allocator;
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
    generate_telling(spec, curation, options, runtime, progress, &|_| {})
}

/// [`generate_with`], telling `finished` of each file whose contents are final while the rest of
/// the crate still renders (see [`render::render_with_rustfmt`]): `mcpgen build` writes them
/// then.
pub fn generate_telling(
    spec: &Path,
    curation: Option<&Path>,
    options: &Options,
    runtime: &render::Runtime,
    progress: &mut dyn FnMut(&str),
    finished: &render::Finished,
) -> anyhow::Result<(plan::Plan, Vec<File>)> {
    return_freed_memory_promptly();
    // rustfmt formats the pieces of the crate that are not written directly (see
    // `emit::Part::direct`). A curation file's tools are printed: rustfmt gets ready while the
    // spec loads (see `emit::Rustfmt::start`). Without one, a large API's crate is written
    // directly throughout, and rustfmt starts only once a piece is printed, if one is.
    let rustfmt = match curation {
        Some(_) => emit::Rustfmt::start(),
        None => emit::Rustfmt::when_needed(),
    }
    .map_err(anyhow::Error::msg)?;
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
    // Only a curation file reads into the schemas the loader cut short: without one, the
    // document is freed while the tools are planned.
    let document = match curation {
        None => std::mem::take(&mut api.document),
        Some(_) => api::Document::default(),
    };
    if let Some(path) = curation {
        progress(&format!("checking {}", path.display()));
    }
    let checked = curation.map(|path| curate::load(path, &api)).transpose()?;
    progress(&format!(
        "planning tools for {} operations",
        api.operations.len()
    ));
    // Planned on a thread of its own while this one frees the document: for a large API it is
    // tens of megabytes of values, 5 to 10 ms of one core that planning, at 1.3 to 1.6 cores,
    // leaves to spare; freed before planning, it held up everything after loading.
    let plan = std::thread::scope(|scope| {
        let planning = std::thread::Builder::new()
            .name("plan".into())
            .stack_size(RENDER_STACK)
            .spawn_scoped(scope, || {
                plan::plan(&api, options, checked.as_ref().map(|c| &c.model))
            })
            .expect("the operating system starts a thread");
        drop(document);
        release_freed_memory();
        planning
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
    .map_err(anyhow::Error::msg)?;
    // The schemas compile on a thread of their own and the crate renders, which reads the plan
    // only, on another, while this one frees the model: the stage `rendering` is announced once
    // they compile, so that the patterns the server cannot check are told right after planning.
    let files = std::thread::scope(|scope| {
        let compiling = scope.spawn(|| schemas_compile(&plan));
        let rendering = std::thread::Builder::new()
            .name("render".into())
            .stack_size(RENDER_STACK)
            .spawn_scoped(scope, || {
                render::render_with_rustfmt(&plan, runtime, rustfmt, finished)
            })
            .expect("the operating system starts a thread");
        // The plan holds all that rendering needs; for a large API the model is tens of
        // megabytes, freed here, on the thread that took most of it. Freed before rendering
        // began, it kept a core idle for 10 to 25 ms; freed beside it, the peak RSS is up to 4 MiB
        // higher (BENCHMARKS.md, issue 26's eighth round), still well within half the peer's.
        drop((checked, api));
        release_freed_memory();
        let unchecked = compiling
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        for pattern in unchecked {
            eprintln!("warning: {}: {pattern}", spec.display());
        }
        progress(&format!("rendering {} tools", plan.tools.len()));
        rendering.join()
    });
    let files = files
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        .map_err(anyhow::Error::msg)?;
    Ok((plan, files))
}

/// The stack of the threads that plan and render: the main thread's usual 8 MiB, where they ran
/// before they had threads of their own (a spawned thread gets 2 MiB).
const RENDER_STACK: usize = 8 << 20;

/// A pattern in one of the schemas the server checks values against that the server's checker
/// (the runtime's `schema` module, on `regex-lite`) cannot read. The server leaves it unchecked,
/// saying so in its log when it starts, and checks the rest of the schema: a value that breaks
/// only that pattern reaches the API.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UncheckedPattern {
    /// The tool whose schema holds it, or the discoverable operation (its `operationId`).
    pub name: String,
    /// Which of its schemas: `input`, `output` or `operation input` (a discoverable
    /// operation's).
    pub which: &'static str,
    pub pattern: String,
    /// Why the checker cannot read it, in `regex-lite`'s words.
    pub reason: String,
    /// The tool's index in [`plan::Plan::tools`]; `None` for a discoverable operation.
    pub tool: Option<usize>,
}

impl std::fmt::Display for UncheckedPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self {
            name,
            which,
            pattern,
            reason,
            ..
        } = self;
        // As JSON, so that a quote or a line break in the pattern reads unambiguously.
        let pattern = serde_json::Value::from(pattern.as_str());
        write!(
            f,
            "the server cannot check the pattern {pattern} of the {which} schema of `{name}` ({reason}); it checks the rest of that schema"
        )
    }
}

/// Compiles every schema the server will check values against (each tool's input and output
/// schema, and each discoverable operation's input schema) as the server compiles it, with the
/// runtime's checker, and returns what the server would report: the patterns it cannot read,
/// sorted by tool (or operation), schema and pattern. Nothing else can fail to compile. Loading
/// already dropped the patterns no JSON Schema validator can read (src/load/repair.rs); what is
/// left here is written for ECMA-262, as JSON Schema has it, in a syntax `regex-lite` does not
/// take (a look-around, a backreference, a Unicode class), so a warning, not an error: the
/// published schema keeps the pattern for the clients that read it.
pub fn schemas_compile(plan: &plan::Plan) -> Vec<UncheckedPattern> {
    use mcpgen_runtime::schema::{each_pattern, pattern_problem};
    use rayon::prelude::*;
    use std::collections::HashMap;
    let tools = plan.tools.iter().enumerate().flat_map(|(index, tool)| {
        std::iter::once((Some(index), tool.name.as_str(), "input", &tool.input_schema)).chain(
            tool.output_schema
                .iter()
                .map(move |schema| (Some(index), tool.name.as_str(), "output", schema)),
        )
    });
    let discoverable = plan.discovery.iter().flat_map(|discovery| {
        discovery.operations.iter().map(|operation| {
            (
                None,
                operation.name.as_str(),
                "operation input",
                &*plan.operations[operation.operation].input_schema,
            )
        })
    });
    let schemas: Vec<(Option<usize>, &str, &'static str, &serde_json::Value)> =
        tools.chain(discoverable).collect();
    // Each schema read once: operations with the same input schema share one value (for
    // Kubernetes, 1,067 operations have 443).
    let mut distinct: Vec<&serde_json::Value> = Vec::new();
    let mut seen: HashMap<*const serde_json::Value, usize> = HashMap::new();
    let which_schema: Vec<usize> = schemas
        .iter()
        .map(|(.., schema)| {
            *seen.entry(*schema as *const _).or_insert_with(|| {
                distinct.push(schema);
                distinct.len() - 1
            })
        })
        .collect();
    // The patterns of each distinct schema, each once.
    let patterns_of: Vec<Vec<&str>> = distinct
        .par_iter()
        .map(|schema| {
            let mut patterns = Vec::new();
            each_pattern(schema, &mut |pattern| {
                if !patterns.contains(&pattern) {
                    patterns.push(pattern);
                }
            });
            patterns
        })
        .collect();
    // Each pattern compiled once, wherever it is written (a large API repeats a few hundred
    // patterns across thousands of schemas).
    let mut patterns: Vec<&str> = patterns_of.iter().flatten().copied().collect();
    patterns.sort_unstable();
    patterns.dedup();
    let problems: HashMap<&str, String> = patterns
        .par_iter()
        .filter_map(|pattern| Some((*pattern, pattern_problem(pattern)?)))
        .collect();
    if problems.is_empty() {
        return Vec::new();
    }
    let mut unchecked: Vec<UncheckedPattern> = schemas
        .iter()
        .zip(which_schema)
        .flat_map(|((tool, name, which, _), schema)| {
            let problems = &problems;
            patterns_of[schema].iter().filter_map(move |pattern| {
                Some(UncheckedPattern {
                    name: name.to_string(),
                    which,
                    pattern: pattern.to_string(),
                    reason: problems.get(pattern)?.clone(),
                    tool: *tool,
                })
            })
        })
        .collect();
    unchecked.sort();
    unchecked
}

/// Has mimalloc return freed memory to the operating system within [`PURGE_DELAY_MS`] of its
/// freeing, unless `MIMALLOC_PURGE_DELAY` in the environment asks for another delay. mimalloc's
/// own delay, a second, is longer than a stage of generation: what loading, planning and
/// rendering free in passing stayed resident beside what the next step takes afresh. Set once
/// per process (generations may run side by side on threads of one process, and mimalloc's
/// options are plain variables).
fn return_freed_memory_promptly() {
    static SET: std::sync::Once = std::sync::Once::new();
    SET.call_once(|| {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            // SAFETY: mi_option_set has no preconditions; options may be set at any time.
            unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
        }
    });
}

/// How long, in milliseconds, mimalloc keeps freed memory before returning it to the operating
/// system, during generation.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

/// `mi_option_purge_delay`, which libmimalloc-sys does not name: its place in `mi_option_t`
/// (mimalloc.h), the same in mimalloc 2 and 3.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Returns the memory freed so far to the operating system. mimalloc (the binary's allocator)
/// keeps freed pages a while before it does (see [`return_freed_memory_promptly`]); for a large
/// API the document and the model are most of what generation ever holds, and rendering, on
/// other threads, would take fresh pages instead of theirs. Harmless under any other allocator.
fn release_freed_memory() {
    // SAFETY: mi_collect has no preconditions; it only frees what mimalloc holds unused.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A zero-configuration crate in discovery mode whose every Rust file is written directly
    /// (the tracker's API: bearer credentials, a base URL, discovery tools and their tests)
    /// starts no rustfmt: rendered with a "rustfmt" that fails whatever it is given, it is the
    /// same crate as with the real rustfmt, and no warning is due.
    #[test]
    fn a_crate_written_directly_throughout_runs_no_rustfmt() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let failing =
            std::env::temp_dir().join(format!("mcpgen-failing-rustfmt-{}", std::process::id()));
        let write_failing = || {
            std::fs::write(&failing, "#!/bin/sh\nexit 1\n").expect("the script is written");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&failing, std::fs::Permissions::from_mode(0o755))
                    .expect("the script is executable");
            }
        };
        write_failing();
        let options = Options {
            discovery_threshold: Some(0),
            ..Default::default()
        };
        let (plan, _) = generate(&root.join("specs/tracker/openapi.yaml"), None, &options)
            .expect("the tracker generates");
        assert!(plan.discovery.is_some());
        let runtime = render::Runtime::Vendored;
        let real = emit::Rustfmt::named_when_needed("rustfmt").expect("a rustfmt");
        let expected = render::render_with_rustfmt(&plan, &runtime, real, &|_| {})
            .expect("the crate renders with rustfmt");
        let fails = emit::Rustfmt::named_when_needed(failing.to_str().expect("a UTF-8 path"))
            .expect("a rustfmt");
        let rendered = render::render_with_rustfmt(&plan, &runtime, fails, &|_| {});
        let _ = std::fs::remove_file(&failing);
        let rendered = rendered.expect("nothing goes to the failing rustfmt");
        assert_eq!(rendered.len(), expected.len());
        for (file, want) in rendered.iter().zip(&expected) {
            assert_eq!(file.path, want.path);
            assert!(file.contents == want.contents, "{} differs", file.path);
        }
        // The failing program does fail whatever it is given: a printed piece would have
        // failed the rendering.
        let mut files = vec![("src/x.rs".to_string(), "fn  x() {}\n".to_string())];
        write_failing();
        let refused = emit::rustfmt_files_with(failing.as_os_str(), &mut files);
        let _ = std::fs::remove_file(&failing);
        assert!(refused.is_err(), "{refused:?}");
    }

    /// A plan with discovery tools for three operations that take the same input (one shared
    /// schema) and one that takes another.
    fn discovery_plan() -> plan::Plan {
        let spec = [
            "openapi: 3.0.3",
            "info: { title: Things, version: '1' }",
            "paths:",
            "  /a/{id}: { get: { operationId: getA, parameters: [{ name: id, in: path, required: true, schema: { type: string } }], responses: { '200': { description: ok } } } }",
            "  /b/{id}: { get: { operationId: getB, parameters: [{ name: id, in: path, required: true, schema: { type: string } }], responses: { '200': { description: ok } } } }",
            "  /c/{id}: { get: { operationId: getC, parameters: [{ name: id, in: path, required: true, schema: { type: string } }], responses: { '200': { description: ok } } } }",
            "  /d: { get: { operationId: getD, parameters: [{ name: q, in: query, schema: { type: integer } }], responses: { '200': { description: ok } } } }",
        ]
        .join("\n");
        let api = load::load_text(Path::new("openapi.yaml"), &spec).expect("the spec loads");
        let options = plan::Options {
            discovery_threshold: Some(1),
            ..Default::default()
        };
        plan::plan(&api, &options, None).expect("the spec plans")
    }

    /// `plan` with the shared input schema of getA and getB given `pattern` on `id`.
    fn with_shared_pattern(plan: &mut plan::Plan, pattern: &str) {
        let index = |name: &str| {
            plan.operations
                .iter()
                .position(|op| op.api_id == name)
                .expect(name)
        };
        let (a, b) = (index("getA"), index("getB"));
        assert!(Arc::ptr_eq(
            &plan.operations[a].input_schema,
            &plan.operations[b].input_schema
        ));
        let mut changed = (*plan.operations[a].input_schema).clone();
        changed["properties"]["id"]["pattern"] = serde_json::json!(pattern);
        let changed = Arc::new(changed);
        for operation in [a, b] {
            plan.operations[operation].input_schema = Arc::clone(&changed);
        }
    }

    #[test]
    fn schemas_whose_patterns_the_server_reads_give_no_warning() {
        let mut plan = discovery_plan();
        assert_eq!(schemas_compile(&plan), []);
        with_shared_pattern(&mut plan, r"^[A-Z]{3}-\d+$");
        assert_eq!(schemas_compile(&plan), []);
    }

    #[test]
    fn a_pattern_the_server_cannot_read_in_a_shared_schema_names_every_operation_that_takes_it() {
        let mut plan = discovery_plan();
        with_shared_pattern(&mut plan, "(?<=a)b");
        let unchecked = schemas_compile(&plan);
        let lines: Vec<String> = unchecked.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "the server cannot check the pattern \"(?<=a)b\" of the operation input schema of `getA` (look-around is not supported); it checks the rest of that schema",
                "the server cannot check the pattern \"(?<=a)b\" of the operation input schema of `getB` (look-around is not supported); it checks the rest of that schema",
            ]
        );
        assert!(unchecked.iter().all(|pattern| pattern.tool.is_none()));
    }

    #[test]
    fn an_unreadable_pattern_is_told_once_per_schema_and_the_server_agrees() {
        let spec = [
            "openapi: 3.0.3",
            "info: { title: Things, version: '1' }",
            "paths:",
            "  /a/{id}:",
            "    get:",
            "      operationId: getA",
            "      parameters:",
            "        - { name: id, in: path, required: true, schema: { type: string, pattern: '(a)\\1' } }",
            "        - { name: code, in: query, schema: { type: string, pattern: '(a)\\1' } }",
            "        - { name: ok, in: query, schema: { type: string, pattern: '^[a-z]+$' } }",
            "      responses: { '200': { description: ok } }",
        ]
        .join("\n");
        let api = load::load_text(Path::new("openapi.yaml"), &spec).expect("the spec loads");
        let plan = plan::plan(&api, &plan::Options::default(), None).expect("the spec plans");
        let unchecked = schemas_compile(&plan);
        assert_eq!(
            unchecked,
            [UncheckedPattern {
                name: "get_a".into(),
                which: "input",
                pattern: "(a)\\1".into(),
                reason: "backreferences are not supported".into(),
                tool: Some(0),
            }]
        );
        // The server's checker reports the same pattern when it compiles the schema.
        let (_, problems) = mcpgen_runtime::schema::Schema::new(&plan.tools[0].input_schema);
        assert_eq!(
            problems,
            ["the pattern `(a)\\1` is not checked: backreferences are not supported"]
        );
    }
}
