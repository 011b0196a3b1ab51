//! Lint: what makes a planned tool surface hard for a model to use, and what a curation file's
//! token budgets forbid.
//!
//! Takes the [`Plan`] (and the curation file it came from, for positions and for what the user
//! wrote on purpose); returns [`Diagnostic`]s: warnings about tool design, errors for exceeded
//! budgets (warnings without a curation file). A curated tool's findings point at its name (or parameter) in the curation file; a
//! tool mirrored from an operation has no place in the file, so its findings are about the file
//! as a whole and name the operation.
//!
//! The lints and their rules:
//!
//! - **description**: missing, or shorter than [`MIN_DESCRIPTION_CHARS`] characters, or fewer than
//!   [`MIN_DESCRIPTION_SENTENCES`] sentences — too short to say what the tool does, when to use it
//!   and what it returns.
//! - **parameter description**: a parameter of the input schema without a description, unless
//!   it explains itself — its schema lists its values (`enum` or `const`), it is one mcpgen adds
//!   (`limit`, `response_format`), or the curation file says `description: null` on purpose.
//! - **name length**: more than [`MAX_NAME_LEN`] characters; clients put their own prefix in
//!   front (`mcp__<server>__`, about [`CLIENT_PREFIX_ALLOWANCE`] characters) and model APIs
//!   accept 64 in all.
//! - **annotations against the method** (what the tool's calls do, over all its steps): a tool
//!   that writes (POST, PUT, PATCH, DELETE) marked read-only; a tool that only reads without
//!   `readOnlyHint: true`; a tool that deletes marked `destructiveHint: false`; a tool that POSTs
//!   or PATCHes marked idempotent, unless a `stop_if` step comes first (the workflow then ends
//!   when the change is already in place); a tool whose writes are all PUT or DELETE marked
//!   `idempotentHint: false`; `readOnlyHint` and `destructiveHint` both true.
//! - **overlap**: two tools whose only call is the same operation — the model has to guess
//!   between them.
//! - **budgets**: a tool's definition over `budgets.per_tool` tokens (default
//!   [`DEFAULT_PER_TOOL_BUDGET`]), or all of them over `budgets.total` (default
//!   [`DEFAULT_TOTAL_BUDGET`]), naming the heaviest tools. Tokens are [`token_estimate`]s, and
//!   the total is the sum of the tools'. Errors with a curation file; without one, warnings, so
//!   the first look at an API (a bare mirror) always builds.
//! - **patterns**: a `pattern` (or `patternProperties` key) in a tool's schema, or in a
//!   discoverable operation's input schema, that the server's checker cannot read (a
//!   look-around, a backreference, a Unicode class; see [`crate::schemas_compile`]): the server
//!   checks the rest of the schema, and a value that breaks only that pattern reaches the API.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::api::Method;
use crate::curate::CurationError;
use crate::curate::diagnostics::{self, Diagnostic, Severity};
use crate::curate::model::{At, Curation, Spanned, ToolSpec};
use crate::plan::curated::{CuratedBody, ParamKind, StepPlan};
use crate::plan::{Action, Plan, Tool};

/// The most tokens one tool's definition may take when the curation file sets no budget.
pub const DEFAULT_PER_TOOL_BUDGET: usize = 800;
/// The most tokens the whole `tools/list` may take when the curation file sets no budget.
pub const DEFAULT_TOTAL_BUDGET: usize = 8000;
/// A description shorter than this cannot say what a tool does and when to use it.
pub const MIN_DESCRIPTION_CHARS: usize = 60;
/// What a tool does, and when to use it (or what it returns): two sentences at least.
pub const MIN_DESCRIPTION_SENTENCES: usize = 2;
/// What a client puts before a tool name, `mcp__<server>__` for a server name of up to 13
/// characters.
pub const CLIENT_PREFIX_ALLOWANCE: usize = 20;
/// The longest tool name that stays within 64 characters once a client's prefix is added.
pub const MAX_NAME_LEN: usize = crate::naming::MAX_TOOL_NAME - CLIENT_PREFIX_ALLOWANCE;
/// How many of the heaviest tools an exceeded total budget names.
const HEAVIEST_NAMED: usize = 5;

/// Every tool-design warning about `plan`, an error for every exceeded budget, and a warning
/// for every pattern the server cannot check.
pub fn lint(plan: &Plan, curation: Option<&Curation>) -> Vec<Diagnostic> {
    let mut out = design(plan, curation);
    out.extend(budgets(plan, curation));
    out.extend(unchecked_patterns(plan, curation));
    out
}

/// A warning for every pattern of the schemas the server checks values against that its checker
/// cannot read ([`crate::schemas_compile`]), as `mcpgen build` warns of them: at a curated
/// tool's name in the curation file, or about the file as a whole for a mirrored tool or a
/// discoverable operation.
pub fn unchecked_patterns(plan: &Plan, curation: Option<&Curation>) -> Vec<Diagnostic> {
    let unchecked = crate::schemas_compile(plan);
    if unchecked.is_empty() {
        return Vec::new();
    }
    // Curated tools are planned in the file's order, before any mirrored one.
    let mut names = curation.into_iter().flat_map(|c| c.tools.keys());
    let curated: Vec<Option<&Spanned<String>>> = plan
        .tools
        .iter()
        .map(|tool| match tool.action {
            Action::Curated(_) => names.next(),
            _ => None,
        })
        .collect();
    unchecked
        .into_iter()
        .map(|pattern| {
            let name = pattern.tool.and_then(|tool| curated[tool]);
            Diagnostic {
                severity: Severity::Warning,
                message: pattern.to_string(),
                at: name.map(|name| name.at),
                help: Some(
                    "the server reads patterns with `regex-lite`, which has no look-around, backreferences or Unicode classes; write the pattern in the spec without them if it can be"
                        .into(),
                ),
                tools: name.map(|name| vec![name.value.clone()]).unwrap_or_default(),
            }
        })
        .collect()
}

/// The tool-design warnings about `plan`: descriptions, parameters, names, annotations and
/// overlapping tools.
pub fn design(plan: &Plan, curation: Option<&Curation>) -> Vec<Diagnostic> {
    let tools = tool_infos(plan, curation);
    let mut out = Vec::new();
    for info in &tools {
        description(plan, info, &mut out);
        parameters(plan, info, &mut out);
        name_length(plan, info, &mut out);
        annotations(plan, info, &mut out);
    }
    overlaps(plan, &tools, &mut out);
    out
}

/// An error for every exceeded token budget, per tool and in total (and for a budget that is
/// not a positive number): what `mcpgen build` checks, too.
pub fn budgets(plan: &Plan, curation: Option<&Curation>) -> Vec<Diagnostic> {
    budget_diagnostics(plan, &tool_infos(plan, curation), curation, true)
}

/// Like [`budgets`], without the total: for a plan that holds only some of the tools.
pub fn tool_budgets(plan: &Plan, curation: Option<&Curation>) -> Vec<Diagnostic> {
    budget_diagnostics(plan, &tool_infos(plan, curation), curation, false)
}

/// For `mcpgen build`: `Err` with the rendered report when `plan` exceeds a budget the curation
/// file at `curation_file` sets (the default budgets only warn, and without a curation file this
/// is always `Ok`). The file has already been checked by
/// [`crate::curate::load`]; it is read again here for the budgets and the positions of the
/// tools.
pub fn check_budgets(plan: &Plan, curation_file: Option<&Path>) -> Result<(), CurationError> {
    let Some(path) = curation_file else {
        return Ok(());
    };
    let text = std::fs::read_to_string(path).map_err(|e| CurationError {
        diagnostics: Vec::new(),
        rendered: format!("{}: cannot read the curation file: {e}", path.display()),
    })?;
    let curation = crate::curate::parse(&text).map_err(|diagnostics| CurationError {
        rendered: diagnostics::render(path, &text, &diagnostics),
        diagnostics,
    })?;
    let diagnostics: Vec<Diagnostic> = budgets(plan, Some(&curation))
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if diagnostics.is_empty() {
        return Ok(());
    }
    Err(CurationError {
        rendered: diagnostics::render(path, &text, &diagnostics),
        diagnostics,
    })
}

/// How many cl100k tokens (the tokenizer of GPT-4-class models) the compact JSON of `value`
/// takes, estimated without the tokenizer's vocabulary.
///
/// The text is cut the way cl100k's pre-tokenizer cuts it — runs of letters (with the one space
/// or punctuation character before them), runs of digits, runs of other characters — and each
/// piece is charged what byte-pair encoding typically makes of it:
///
/// - a run of letters: one token per camelCase word, and one more for every
///   [`LETTERS_PER_TOKEN`] letters a word has beyond the first [`LETTERS_PER_TOKEN`];
/// - a run of digits: one token per three digits;
/// - a run of other characters (`":"`, `","`, `{"`): one token per
///   [`PUNCTUATION_PER_TOKEN`] characters;
/// - any character beyond ASCII: one token per character.
///
/// The constants were fitted against the real tokenizer on the 259 tool definitions mcpgen
/// makes of the specs at hand (tracker and petstore, curated and mirrored, the test fixtures,
/// and the Notion, Discourse and Spotify mirrors): per tool the estimate is off by 3.5% on
/// average and by 17% at worst (ids such as Spotify's `4iV5W9uYEdYUVa79Axb7Rh` cost more than
/// it charges); for a whole `tools/list` it is within 4%. It is deterministic: the same JSON
/// always gives the same number.
pub fn token_estimate(value: &Value) -> usize {
    let text = serde_json::to_string(value).unwrap_or_default();
    estimate_text(&text)
}

/// Letters one token covers in a word longer than that.
pub const LETTERS_PER_TOKEN: usize = 8;
/// Punctuation characters one token covers.
pub const PUNCTUATION_PER_TOKEN: usize = 4;

fn estimate_text(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !c.is_ascii() {
            tokens += 1;
            i += 1;
        } else if c.is_ascii_alphabetic() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_alphabetic() {
                i += 1;
            }
            tokens += letters_tokens(&chars[start..i]);
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            tokens += (i - start).div_ceil(3);
        } else {
            // Punctuation and spaces. One character before a word goes with the word.
            let start = i;
            while i < chars.len() && chars[i].is_ascii() && !chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let mut len = i - start;
            if i < chars.len() && chars[i].is_ascii_alphabetic() {
                len -= 1;
            }
            tokens += len.div_ceil(PUNCTUATION_PER_TOKEN);
        }
    }
    tokens
}

/// Tokens of a run of letters: its camelCase words, long words costing more.
fn letters_tokens(letters: &[char]) -> usize {
    let mut tokens = 0;
    let mut word = 0;
    for (index, c) in letters.iter().enumerate() {
        let boundary =
            index > 0 && c.is_ascii_uppercase() && letters[index - 1].is_ascii_lowercase();
        if boundary {
            tokens += word_tokens(word);
            word = 0;
        }
        word += 1;
    }
    tokens + word_tokens(word)
}

fn word_tokens(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        1 + len
            .saturating_sub(LETTERS_PER_TOKEN)
            .div_ceil(LETTERS_PER_TOKEN)
    }
}

/// The estimated tokens of each tool's definition, in `plan` order.
pub fn tool_tokens(plan: &Plan) -> Vec<usize> {
    plan.tools
        .iter()
        .map(|tool| token_estimate(&tool.definition()))
        .collect()
}

/// A tool with what the lints need to know about it.
struct ToolInfo<'a> {
    tool: &'a Tool,
    /// Its key in the curation file and what the file says, for a curated tool.
    curated: Option<(&'a Spanned<String>, &'a ToolSpec)>,
    /// The operations it calls (indices into `plan.operations`), in order.
    calls: Vec<Call>,
    /// Its definition's estimated tokens.
    tokens: usize,
}

struct Call {
    operation: usize,
    /// A `stop_if` step comes before this call.
    after_stop: bool,
}

fn tool_infos<'a>(plan: &'a Plan, curation: Option<&'a Curation>) -> Vec<ToolInfo<'a>> {
    // Curated tools are planned in the file's order, before any mirrored one.
    let mut specs = curation.into_iter().flat_map(|c| c.tools.iter());
    plan.tools
        .iter()
        .map(|tool| {
            let (curated, calls) = match &tool.action {
                Action::Call { operation, .. } => (
                    None,
                    vec![Call {
                        operation: *operation,
                        after_stop: false,
                    }],
                ),
                Action::Curated(curated) => (
                    specs.next(),
                    match &curated.body {
                        CuratedBody::Call { operation, .. } => vec![Call {
                            operation: *operation,
                            after_stop: false,
                        }],
                        CuratedBody::Steps(steps) => {
                            let mut stopped = false;
                            steps
                                .iter()
                                .filter_map(|step| match step {
                                    StepPlan::StopIf { .. } => {
                                        stopped = true;
                                        None
                                    }
                                    StepPlan::Call { operation, .. } => Some(Call {
                                        operation: *operation,
                                        after_stop: stopped,
                                    }),
                                    StepPlan::Find { .. } | StepPlan::Resolve { .. } => None,
                                })
                                .collect()
                        }
                    },
                ),
                // Discovery tools call whichever operation the model names.
                Action::Discovery(_) => (None, Vec::new()),
            };
            ToolInfo {
                tool,
                curated,
                calls,
                tokens: token_estimate(&tool.definition()),
            }
        })
        .collect()
}

impl ToolInfo<'_> {
    /// Where a finding about the tool goes: its name in the curation file.
    fn at(&self) -> Option<At> {
        self.curated.map(|(name, _)| name.at)
    }

    /// What a finding about the tool names as its owner: its key, for a curated tool.
    fn keys(&self) -> Vec<String> {
        self.curated
            .map(|(name, _)| vec![name.value.clone()])
            .unwrap_or_default()
    }

    /// How a message names the tool: a mirrored tool also by its operation.
    fn subject(&self, plan: &Plan) -> String {
        match (&self.curated, self.calls.first()) {
            (None, Some(call)) => {
                let operation = &plan.operations[call.operation];
                if operation.api_id == self.tool.name {
                    format!("tool `{}` ({})", self.tool.name, operation.label())
                } else {
                    format!(
                        "tool `{}` (operation `{}`, {})",
                        self.tool.name,
                        operation.api_id,
                        operation.label()
                    )
                }
            }
            _ => format!("tool `{}`", self.tool.name),
        }
    }

    fn warning(&self, message: String, help: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message,
            at: self.at(),
            help: Some(help.into()),
            tools: self.keys(),
        }
    }
}

fn description(plan: &Plan, info: &ToolInfo, out: &mut Vec<Diagnostic>) {
    let plan_help =
        "say what the tool does, when to use it and what it returns, in two sentences or more";
    let help = match info.curated {
        Some(_) => plan_help.to_string(),
        None => format!(
            "{plan_help}: curate the tool with a `description`, or describe the operation in the spec"
        ),
    };
    let text = info
        .tool
        .description
        .as_deref()
        .map(str::trim)
        .unwrap_or_default();
    let chars = text.chars().count();
    let count = crate::text::sentences(text);
    let message = if text.is_empty() {
        format!("{} has no description", info.subject(plan))
    } else if chars < MIN_DESCRIPTION_CHARS {
        // Only the measure that falls short is told: "2 sentences" beside a help that asks for
        // two sentences or more reads as a contradiction.
        format!(
            "the description of {} is too short to say when to use the tool ({chars} characters, fewer than {MIN_DESCRIPTION_CHARS})",
            info.subject(plan)
        )
    } else if count < MIN_DESCRIPTION_SENTENCES {
        format!(
            "the description of {} is too short to say when to use the tool (one sentence)",
            info.subject(plan)
        )
    } else {
        return;
    };
    out.push(info.warning(message, help));
}

fn parameters(plan: &Plan, info: &ToolInfo, out: &mut Vec<Diagnostic>) {
    let Some(properties) = info
        .tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
    else {
        return;
    };
    let made_by_mcpgen: Vec<&str> = match &info.tool.action {
        Action::Curated(curated) => curated
            .params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Limit { .. } | ParamKind::ResponseFormat))
            .map(|p| p.name.as_str())
            .collect(),
        Action::Call { .. } | Action::Discovery(_) => Vec::new(),
    };
    let mut undescribed = Vec::new();
    for (name, schema) in properties {
        let described = schema
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.trim().is_empty());
        let lists_values = schema.get("enum").is_some() || schema.get("const").is_some();
        let written = info
            .curated
            .and_then(|(_, spec)| spec.params.iter().find(|(key, _)| key.value == *name));
        let none_on_purpose =
            written.is_some_and(|(_, param)| matches!(param.description, Some(None)));
        if described || lists_values || none_on_purpose || made_by_mcpgen.contains(&name.as_str()) {
            continue;
        }
        match written {
            Some((key, _)) => out.push(Diagnostic {
                severity: Severity::Warning,
                message: format!("parameter `{name}` of `{}` has no description", info.tool.name),
                at: Some(key.at),
                help: Some(
                    "add a `description` that says what to pass (a format or an example helps), or `description: null` if the name says it all"
                        .into(),
                ),
                tools: info.keys(),
            }),
            None => undescribed.push(name.as_str()),
        }
    }
    if undescribed.is_empty() {
        return;
    }
    let list = undescribed
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (message, help) = match undescribed.len() {
        1 => (
            format!(
                "parameter {list} of {} has no description",
                info.subject(plan)
            ),
            "describe it in the spec, or curate the tool and give the parameter a `description`",
        ),
        _ => (
            format!(
                "parameters {list} of {} have no description",
                info.subject(plan)
            ),
            "describe them in the spec, or curate the tool and give its parameters a `description`",
        ),
    };
    out.push(info.warning(message, help));
}

fn name_length(plan: &Plan, info: &ToolInfo, out: &mut Vec<Diagnostic>) {
    let len = info.tool.name.chars().count();
    if len <= MAX_NAME_LEN {
        return;
    }
    let message = format!(
        "tool name `{}` has {len} characters: with a client's prefix such as `mcp__<server>__` it may pass the 64 that model APIs accept",
        info.tool.name
    );
    let help = match info.curated {
        Some(_) => format!("use at most {MAX_NAME_LEN} characters, prefix included"),
        None => format!(
            "curate the tool under a name of at most {MAX_NAME_LEN} characters (`tools: {{ short_name: {{ call: {} }} }}`)",
            info.calls
                .first()
                .map_or("operationId", |call| plan.operations[call.operation]
                    .api_id
                    .as_str())
        ),
    };
    out.push(info.warning(message, help));
}

fn annotations(plan: &Plan, info: &ToolInfo, out: &mut Vec<Diagnostic>) {
    if info.calls.is_empty() {
        return;
    }
    let hints = &info.tool.annotations;
    let operation = |call: &Call| &plan.operations[call.operation];
    let describe = |call: &Call| {
        let operation = operation(call);
        format!("`{}` ({})", operation.api_id, operation.label())
    };
    let writes: Vec<&Call> = info
        .calls
        .iter()
        .filter(|c| !operation(c).reads_only)
        .collect();
    let name = &info.tool.name;
    let mut warn = |message: String, help: &str| out.push(info.warning(message, help));

    if hints.read_only == Some(true) && hints.destructive == Some(true) {
        warn(
            format!("`{name}` is marked both readOnlyHint and destructiveHint"),
            "a read-only tool changes nothing, so it destroys nothing: drop one of them",
        );
    }
    match writes.first() {
        Some(write) if hints.read_only == Some(true) => warn(
            format!(
                "`{name}` is marked readOnlyHint: true but calls {}",
                describe(write)
            ),
            "set `readOnlyHint: false`: clients call read-only tools without asking the user",
        ),
        None if hints.read_only != Some(true) => warn(
            format!(
                "`{name}` only reads ({}) but is not marked readOnlyHint: true",
                info.calls
                    .iter()
                    .map(|c| operation(c).label())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "set `readOnlyHint: true`, so clients may call it without asking the user",
        ),
        _ => {}
    }
    if let Some(delete) = writes
        .iter()
        .find(|c| operation(c).method == Method::Delete)
        && hints.destructive == Some(false)
    {
        warn(
            format!(
                "`{name}` calls {} but is marked destructiveHint: false",
                describe(delete)
            ),
            "set `destructiveHint: true`: clients ask before running destructive tools",
        );
    }
    if hints.idempotent == Some(true)
        && let Some(post) = writes
            .iter()
            .find(|c| matches!(operation(c).method, Method::Post | Method::Patch) && !c.after_stop)
    {
        warn(
            format!(
                "`{name}` is marked idempotentHint: true but calls {}, which may act again when called again",
                describe(post)
            ),
            "set `idempotentHint: false`, or make the workflow end early when the change is already in place (a `stop_if` step before the call)",
        );
    }
    if hints.idempotent == Some(false)
        && !writes.is_empty()
        && writes
            .iter()
            .all(|c| matches!(operation(c).method, Method::Put | Method::Delete))
    {
        warn(
            format!(
                "`{name}` is marked idempotentHint: false but only writes with {}, which HTTP defines as idempotent",
                writes
                    .iter()
                    .map(|c| operation(c).method.as_upper())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            "set `idempotentHint: true`, so clients may retry it safely",
        );
    }
}

fn overlaps(plan: &Plan, tools: &[ToolInfo], out: &mut Vec<Diagnostic>) {
    let mut by_operation: BTreeMap<usize, Vec<&ToolInfo>> = BTreeMap::new();
    for info in tools {
        if let [call] = info.calls.as_slice() {
            by_operation.entry(call.operation).or_default().push(info);
        }
    }
    for (operation, group) in by_operation {
        let Some((first, rest)) = group.split_first() else {
            continue;
        };
        let operation = &plan.operations[operation];
        for info in rest {
            out.push(info.warning(
                format!(
                    "`{}` and `{}` both only call `{}` ({}): the model has to guess which one to use",
                    info.tool.name,
                    first.tool.name,
                    operation.api_id,
                    operation.label()
                ),
                "merge them into one tool (a parameter can tell the cases apart), or hide one",
            ));
        }
    }
}

fn budget_diagnostics(
    plan: &Plan,
    tools: &[ToolInfo],
    curation: Option<&Curation>,
    with_total: bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A budget the curation file sets is a limit: exceeding it fails `check` and `build`. The
    // defaults only warn, so the first look at an API (and `mcpgen init`'s starter) always builds.
    let uncurated = "the default budgets only warn; set `budgets:` in the curation file to make them limits that `mcpgen check` and `mcpgen build` enforce";
    let written = curation.and_then(|c| c.budgets.as_ref());
    let budget = |value: Option<&Spanned<i64>>,
                  key: &str,
                  label: &str,
                  default: usize,
                  out: &mut Vec<Diagnostic>| match value {
        Some(value) if value.value < 1 => {
            out.push(Diagnostic::error(
                value.at,
                "a budget is a positive number of tokens",
            ));
            None
        }
        Some(value) => Some(Budget {
            limit: usize::try_from(value.value).unwrap_or(usize::MAX),
            at: Some(value.at),
            named: format!("{label} budget of {} (`budgets.{key}`)", value.value),
            severity: Severity::Error,
        }),
        None => Some(Budget {
            limit: default,
            at: None,
            named: format!("default {label} budget of {default}"),
            severity: Severity::Warning,
        }),
    };
    let per_tool = budget(
        written.and_then(|b| b.per_tool.as_ref()),
        "per_tool",
        "per-tool",
        DEFAULT_PER_TOOL_BUDGET,
        &mut out,
    );
    let total = budget(
        written.and_then(|b| b.total.as_ref()),
        "total",
        "total",
        DEFAULT_TOTAL_BUDGET,
        &mut out,
    );

    if let Some(budget) = per_tool {
        for info in tools.iter().filter(|info| info.tokens > budget.limit) {
            let severity = budget.severity;
            let help = match (budget.at, info.curated) {
                (None, _) => format!("{uncurated}: curate the tool with a shorter description and the parameters and result fields the model needs"),
                (Some(_), Some(_)) => "shorten its description, drop parameters or result fields the model does not need, or raise `budgets.per_tool`".into(),
                (Some(_), None) => "curate the tool with a shorter description and the parameters and result fields the model needs, hide the operation, or raise `budgets.per_tool`".into(),
            };
            out.push(Diagnostic {
                severity,
                message: format!(
                    "{} takes about {} tokens, over the {}",
                    info.subject(plan),
                    info.tokens,
                    budget.named
                ),
                at: info.at().or(budget.at),
                help: Some(help),
                tools: info.keys(),
            });
        }
    }
    if let Some(budget) = total.filter(|_| with_total) {
        let sum: usize = tools.iter().map(|info| info.tokens).sum();
        if sum > budget.limit {
            let mut heaviest: Vec<&ToolInfo> = tools.iter().collect();
            heaviest.sort_by(|a, b| {
                b.tokens
                    .cmp(&a.tokens)
                    .then_with(|| a.tool.name.cmp(&b.tool.name))
            });
            let named = heaviest
                .iter()
                .take(HEAVIEST_NAMED)
                .map(|info| format!("`{}` ({})", info.tool.name, info.tokens))
                .collect::<Vec<_>>()
                .join(", ");
            let advice = "hide the operations no task needs (`operations: { mirror: none }` and curate the ones that matter) and merge tools into workflows";
            let severity = budget.severity;
            let help = match budget.at {
                None => format!("{uncurated}: {advice}"),
                Some(_) => format!("{advice}, or raise `budgets.total`"),
            };
            out.push(Diagnostic {
                severity,
                message: format!(
                    "the {} tools take about {sum} tokens, over the {}; the heaviest: {named}",
                    tools.len(),
                    budget.named
                ),
                at: budget.at,
                help: Some(help),
                tools: Vec::new(),
            });
        }
    }
    out
}

/// A token budget as the curation file sets it (or the default).
struct Budget {
    limit: usize,
    /// An error when the file sets the budget, a warning for the default.
    severity: Severity,
    /// Where the file sets it.
    at: Option<At>,
    /// How messages name it.
    named: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_estimate_is_deterministic_and_grows_with_the_text() {
        let small = json!({"name": "a", "description": "Search issues."});
        let large = json!({"name": "a", "description": "Search issues in one project of the tracker, newest first."});
        assert_eq!(token_estimate(&small), token_estimate(&small));
        assert!(token_estimate(&large) > token_estimate(&small));
        assert_eq!(token_estimate(&json!({})), 1);
    }
}
