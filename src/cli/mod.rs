//! The `mcpgen` command line: flags parsed into commands, each in a module of its own, sharing
//! one [`Output`] for what goes to stdout and stderr.

mod build;
mod check;
mod diff;
mod init;
mod output;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

pub use output::Output;

#[derive(Debug, Parser)]
#[command(
    name = "mcpgen",
    version,
    about = "Generate a Rust MCP server crate from an OpenAPI document",
    long_about = "mcpgen turns an OpenAPI document and a curation file into a complete Rust crate \
that is an MCP server over that API: typed, workflow-shaped tools, an upstream client, stdio and \
Streamable HTTP transports. Commit the crate and regenerate it when the API changes.",
    after_help = "Examples:\n  \
mcpgen init api.yaml -o mcpgen.yaml          # a starter curation file\n  \
mcpgen check api.yaml -c mcpgen.yaml         # every mistake and tool-design lint\n  \
mcpgen tools api.yaml -c mcpgen.yaml         # what tools/list will return\n  \
mcpgen build api.yaml -c mcpgen.yaml -o api-mcp\n  \
mcpgen build api.yaml -c mcpgen.yaml -o api-mcp --check   # in CI: is the crate up to date?\n  \
mcpgen diff old.yaml new.yaml -c mcpgen.yaml # what changes for the tools"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Say more: -v lists what was written, -vv also each stage and how long it took.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Say nothing but errors.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// When to colour the output (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// How a command prints what it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    Text,
    /// For programs.
    Json,
}

/// The inputs most commands read: the spec, an optional curation file and a name.
#[derive(Debug, Args)]
pub struct Inputs {
    /// The API description: OpenAPI 3.0 or 3.1, or Swagger 2.0 (YAML or JSON).
    pub spec: PathBuf,
    /// The curation file: which tools, named and shaped how (see `mcpgen schema`).
    #[arg(short, long, value_name = "FILE")]
    pub curation: Option<PathBuf>,
    /// The server's name: the crate is `<name>-mcp` and its environment variables start with
    /// `<NAME>_` [default: the curation file's server.name, else the document's info.title].
    #[arg(long)]
    pub name: Option<String>,
    /// Without a curation file, a spec with more operations than this gets three discovery
    /// tools (search, describe, call) instead of one tool per operation [default: 40].
    #[arg(long, value_name = "N")]
    pub discovery_threshold: Option<usize>,
    /// One tool per operation however large the spec is: no discovery tools without a curation
    /// file.
    #[arg(long, conflicts_with = "discovery_threshold")]
    pub no_discovery: bool,
    /// A folder external `$ref`s may read files from, for documents split across sibling folders
    /// [default: the document's own folder; files outside it are refused].
    #[arg(long, value_name = "DIR")]
    pub refs_root: Option<PathBuf>,
}

impl Inputs {
    pub fn options(&self) -> crate::Options {
        crate::Options {
            name: self.name.clone(),
            discovery_threshold: self.discovery_threshold,
            no_discovery: self.no_discovery,
            refs_root: self.refs_root.clone(),
        }
    }

    /// Refuses an API description given as the curation file (`-c`), with one error that says
    /// so, rather than one error per top-level key of the document.
    pub fn refuse_a_spec_as_curation(&self) -> anyhow::Result<()> {
        match &self.curation {
            Some(path) => refuse_a_spec_as_curation(path),
            None => Ok(()),
        }
    }

    /// Is the spec large enough that generating it takes a moment (and progress is worth
    /// showing)?
    pub fn is_large(&self) -> bool {
        const LARGE_SPEC_BYTES: u64 = 1024 * 1024;
        std::fs::metadata(&self.spec).is_ok_and(|m| m.len() >= LARGE_SPEC_BYTES)
    }

    /// Generates the crate in memory, with progress on stderr for a large spec.
    pub fn generate(
        &self,
        out: &mut Output,
    ) -> anyhow::Result<(crate::plan::Plan, Vec<crate::File>)> {
        self.generate_with(out, &crate::render::Runtime::Vendored)
    }

    /// [`Inputs::generate`], taking the runtime from `runtime`.
    pub fn generate_with(
        &self,
        out: &mut Output,
        runtime: &crate::render::Runtime,
    ) -> anyhow::Result<(crate::plan::Plan, Vec<crate::File>)> {
        self.generate_telling(out, runtime, &|_| {})
    }

    /// [`Inputs::generate_with`], telling `finished` of each file whose contents are final
    /// while the rest still renders (see [`crate::generate_telling`]).
    pub fn generate_telling(
        &self,
        out: &mut Output,
        runtime: &crate::render::Runtime,
        finished: &crate::render::Finished,
    ) -> anyhow::Result<(crate::plan::Plan, Vec<crate::File>)> {
        self.refuse_a_spec_as_curation()?;
        let slow = self.is_large();
        let generated = crate::generate_telling(
            &self.spec,
            self.curation.as_deref(),
            &self.options(),
            runtime,
            &mut |stage| out.progress(slow, stage),
            finished,
        )?;
        if let Some(note) = discovery_note(&generated.0) {
            out.status(&note);
        }
        Ok(generated)
    }
}

/// Refuses `path`, given with `-c`, when it is an API description (a mapping with an `openapi` or
/// `swagger` key) rather than a curation file. A file that cannot be read or parsed is left to
/// the curation loader, which reports it with its position.
pub fn refuse_a_spec_as_curation(path: &std::path::Path) -> anyhow::Result<()> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(());
    };
    let Ok(serde_json::Value::Object(root)) = yaml_serde::from_str::<serde_json::Value>(&text)
    else {
        return Ok(());
    };
    match ["openapi", "swagger"]
        .iter()
        .find(|key| root.contains_key(**key))
    {
        Some(key) => anyhow::bail!(
            "{}: this is an API description (it has `{key}:`), not a curation file: give it as \
             SPEC and the curation file with -c (`mcpgen build SPEC -c CURATION`)",
            path.display()
        ),
        None => Ok(()),
    }
}

/// One line on what discovery mode did, when it was chosen for the spec's size.
pub fn discovery_note(plan: &crate::plan::Plan) -> Option<String> {
    use crate::plan::discovery::Mode;
    let discovery = plan.discovery.as_ref()?;
    let Mode::Automatic { threshold } = discovery.mode else {
        return None;
    };
    Some(format!(
        "note: the spec has {} operations (more than {threshold}), so the server has 3 discovery tools ({}, {}, {}) instead of one tool per operation; --no-discovery gives one tool per operation, a curation file (mcpgen init) chooses tools",
        discovery.operations.len(),
        discovery.search_tool,
        discovery.describe_tool,
        discovery.call_tool,
    ))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate the server crate.
    ///
    /// Writes only what changed, all or nothing: new contents are staged beside the output
    /// directory and then moved into place. The files mcpgen wrote are listed in the crate's
    /// `.mcpgen-files`; those it no longer generates are removed, every other file is left
    /// alone, and a file of yours in the way of a generated one is never replaced.
    #[command(after_help = "Examples:\n  \
mcpgen build specs/tracker/openapi.yaml                 # writes ./tracker-mcp\n  \
mcpgen build specs/tracker/openapi.yaml -o servers/tracker\n  \
mcpgen build specs/tracker/openapi.yaml -c specs/tracker/mcpgen.yaml -o tracker-mcp\n  \
mcpgen build api.yaml --name billing                    # crate billing-mcp, env BILLING_*\n  \
mcpgen build api.yaml -c mcpgen.yaml -o api-mcp --check # exit 1 when api-mcp is stale\n  \
mcpgen build api.yaml --runtime-crate 0.1.0             # depend on mcpgen-runtime 0.1.0\n\n\
The runtime every server shares is written into the crate as src/runtime/ (the same files in\n\
every crate, the parts it uses turned on as features); --runtime-crate VERSION depends on the\n\
published mcpgen-runtime crate instead, with those features, and writes no src/runtime/\n\
(VERSION, a Cargo requirement such as 0.1.0 or ^0.1, must accept the runtime this mcpgen\n\
generates code for; mcpgen says which when it does not).\n\n\
With --check, stdout lists each file that differs (`changed PATH`, `missing PATH`, or `extra PATH`\n\
for one a build would remove) after `stale: DIR`, and -v adds a unified diff; an up-to-date\n\
directory gives `up to date: DIR` on stderr and exit code 0.")]
    Build(build::BuildArgs),
    /// Report every mistake in a curation file and every tool-design lint.
    ///
    /// Errors: every mistake in the curation file (unknown operations, parameters, fields, ...)
    /// and every exceeded token budget (`budgets: { per_tool: 800, total: 8000 }` in the file;
    /// those are the defaults). Warnings: a description too short to say when to use the tool, a
    /// parameter without a description, a name too long once a client adds its prefix,
    /// annotations that contradict the HTTP method, two tools that call the same operation.
    /// Without -c, the tools mirrored from the spec are linted, and budgets only warn. The spec
    /// itself is checked either way: what makes it invalid against its OpenAPI version, and
    /// what loading repaired, are warnings at its FILE:LINE:COL.
    ///
    /// Exit status: 0 when clean or with warnings only, 1 with errors (or with warnings and
    /// --deny-warnings).
    #[command(after_help = "Examples:\n  \
mcpgen check specs/tracker/openapi.yaml -c specs/tracker/mcpgen.yaml\n  \
mcpgen check api.yaml -c mcpgen.yaml --deny-warnings   # in CI: warnings fail too\n  \
mcpgen check api.yaml -c mcpgen.yaml --format json     # for editors and scripts\n  \
mcpgen check api.yaml                                  # lint the tools a bare mirror would have")]
    Check(check::CheckArgs),
    /// Show exactly what `tools/list` will return, with token estimates.
    ///
    /// The table has one row per tool: its name, its annotations as clients read them
    /// (read-only; destructive or additive; idempotent; closed-world), its parameters (`*` marks
    /// the required ones) and the estimated tokens of its definition (cl100k), then the total.
    /// With --format json: the definitions exactly as `tools/list` returns them, and the
    /// estimates.
    #[command(after_help = "Examples:\n  \
mcpgen tools specs/tracker/openapi.yaml -c specs/tracker/mcpgen.yaml\n  \
mcpgen tools api.yaml                                  # the tools without a curation file\n  \
mcpgen tools api.yaml -c mcpgen.yaml --format json | jq '.tools[].name'")]
    Tools(tools::ToolsArgs),
    /// Show the tool-level changes between two versions of an API.
    ///
    /// Compares what `tools/list` returns with each version: tools added, removed and renamed
    /// (the same operation under a new name); parameters added, removed, made required or
    /// optional, of another type, with enum values removed or added; output schemas,
    /// annotations and descriptions changed; and, with a curation file, each of its references
    /// the new version breaks. Each change is marked BREAKING (a call that worked may fail, or a
    /// tool is gone) or ok.
    #[command(after_help = "Examples:\n  \
mcpgen diff old.yaml new.yaml                     # the one-to-one tools of each version\n  \
mcpgen diff old.yaml new.yaml -c mcpgen.yaml      # the curated server\n  \
mcpgen diff old.yaml new.yaml --format json       # {changes: [{tool, kind, detail, breaking}]}\n\n\
Exit codes: 0 when nothing breaks, 2 when a change is breaking (so CI can ask a human), 1 on\n\
errors, such as a curation file that does not check against the old version.")]
    Diff(diff::DiffArgs),
    /// Write a starter curation file that lists every operation.
    ///
    /// The file names the server, sets up the credentials the spec asks for, lists every
    /// operation by tag with its method, path and summary, and shows every feature of the
    /// curation file as a commented example made from the spec's own operations. It builds as
    /// written: every operation is a tool until you curate. Without -o it goes to stdout; -o
    /// never replaces an existing file unless --force is given.
    #[command(after_help = "Examples:\n  \
mcpgen init api.yaml -o mcpgen.yaml           # write the starter file\n  \
mcpgen init api.yaml | less                   # read it first\n  \
mcpgen init api.yaml -o mcpgen.yaml --force   # start over, replacing mcpgen.yaml\n  \
mcpgen build api.yaml -c mcpgen.yaml          # then build the server from it")]
    Init(init::InitArgs),
    /// Print the JSON Schema of the curation file.
    #[command(
        after_help = "Editors complete and check a curation file with it: save it and start the file with\n  # yaml-language-server: $schema=path/to/mcpgen.schema.json"
    )]
    Schema,
    /// Print a shell completion script.
    #[command(after_help = "Examples:\n  \
mcpgen completions bash > ~/.local/share/bash-completion/completions/mcpgen\n  \
mcpgen completions zsh > ~/.zfunc/_mcpgen\n  \
mcpgen completions fish > ~/.config/fish/completions/mcpgen.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Runs the command line `cli`; the exit code says how it went. Made for `main`, once per
/// process: `build` leaves what it generated for the process's end to free.
pub fn run(cli: Cli) -> ExitCode {
    let mut out = Output::new(&cli.global);
    let result = match cli.command {
        Command::Build(args) => build::run(args, &mut out),
        Command::Check(args) => check::run(args, &mut out),
        Command::Tools(args) => tools::run(args, &mut out),
        Command::Diff(args) => diff::run(args, &mut out),
        Command::Init(args) => init::run(args, &mut out),
        Command::Schema => {
            let schema = crate::curate::model::json_schema();
            let text = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
            out.stdout_line(&text);
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions { shell } => {
            let mut buffer = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "mcpgen", &mut buffer);
            out.stdout(&String::from_utf8_lossy(&buffer));
            Ok(ExitCode::SUCCESS)
        }
    };
    out.end_stage();
    match result {
        Ok(code) => code,
        Err(error) => {
            out.error(&error);
            ExitCode::from(1)
        }
    }
}
