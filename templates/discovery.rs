//! The discovery tools: search the operations that have no tool of their own, describe one,
//! call one. A call goes through the operation's own handler in `operations.rs` — the same
//! argument parsing, checks, client, credentials, limits and error translation as every other
//! tool — so its arguments are checked before any request is sent.
//!
//! This file is the same in every crate mcpgen generates with discovery tools; the operations,
//! their index and their descriptions are in `operations.rs` and `data/`.

use std::sync::{Arc, OnceLock};

use rmcp::model::JsonObject;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::client::Client;
use crate::operations::{CATALOG, INDEX, OPERATIONS, TOOL_NAMES, UNAVAILABLE};
use crate::runtime::search::{Filter, Index};
use crate::runtime::{self, ToolError, ToolFuture, ToolOutput};

/// The most results one search returns, and how many unless asked.
const MAX_RESULTS: usize = 50;
const DEFAULT_RESULTS: usize = 10;
/// How many names an unknown-operation message suggests.
const SUGGESTIONS: usize = 5;

/// One discoverable operation: its name, whether it only reads, and its handler.
pub struct Operation {
    pub name: &'static str,
    pub read_only: bool,
    pub call: fn(Arc<Client>, JsonObject) -> ToolFuture,
}

/// Why an operation of the API is not reachable through the discovery tools, by its name: it
/// has a tool of its own, only reading operations are reached, or the server leaves it out.
pub type Unavailable = (&'static str, &'static str);

/// The names of the three discovery tools.
pub struct ToolNames {
    pub search: &'static str,
    pub describe: &'static str,
    pub call: &'static str,
}

/// The index and the descriptions, read once; they were written by mcpgen for exactly the
/// operations of [`OPERATIONS`], in the same order.
struct Catalog {
    index: Index,
    descriptions: Vec<&'static str>,
    /// The objects the descriptions share, each written once in the catalog (see [`expand`]).
    shared: Vec<&'static str>,
    /// How an object that stands for a shared one begins, `{"<marker key>":` (the marker key
    /// is a key no other object of the catalog has).
    marker_open: String,
}

/// The catalog's first line that is not a comment.
#[derive(Deserialize)]
struct CatalogHead {
    marker: String,
}

fn catalog() -> Result<&'static Catalog, ToolError> {
    static CATALOG_CELL: OnceLock<Result<Catalog, String>> = OnceLock::new();
    CATALOG_CELL
        .get_or_init(|| {
            let index = Index::parse(INDEX)?;
            // The marker key's line, a line per operation, then the shared objects.
            let mut lines = CATALOG.lines().filter(|line| !line.starts_with("//"));
            let head: CatalogHead = lines
                .next()
                .and_then(|line| serde_json::from_str(line).ok())
                .ok_or("the operation catalog does not name its marker key")?;
            let descriptions: Vec<&'static str> = lines.by_ref().take(OPERATIONS.len()).collect();
            let shared: Vec<&'static str> = lines.collect();
            let names_match = index.entries.len() == OPERATIONS.len()
                && descriptions.len() == OPERATIONS.len()
                && index
                    .entries
                    .iter()
                    .zip(OPERATIONS)
                    .all(|(e, o)| e.name == o.name);
            if !names_match {
                return Err("the search index does not list the server's operations".to_string());
            }
            Ok(Catalog {
                index,
                descriptions,
                shared,
                marker_open: format!(
                    "{{{}:",
                    serde_json::to_string(&head.marker).map_err(|error| error.to_string())?
                ),
            })
        })
        .as_ref()
        .map_err(|message| ToolError::Transport {
            operation: "the operation catalog",
            message: format!("{message}; regenerate the server with mcpgen"),
        })
}

/// The position of the operation called `name`, or an error that says why an operation of the
/// API these tools do not reach is out of reach, or suggests close names.
fn find(catalog: &Catalog, name: &str) -> Result<usize, ToolError> {
    if let Some(position) = catalog.index.find(name) {
        return Ok(position);
    }
    if let Some((found, why)) = UNAVAILABLE
        .iter()
        .find(|(operation, _)| operation.eq_ignore_ascii_case(name.trim()))
    {
        return Err(ToolError::InvalidArguments(format!(
            "Invalid argument `operation`: `{found}` is not one of the operations these tools reach: {why}."
        )));
    }
    let suggestions = catalog.index.suggest(name, SUGGESTIONS);
    let hint = if suggestions.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
        format!(" Did you mean {}?", quoted.join(", "))
    };
    Err(ToolError::InvalidArguments(format!(
        "Invalid argument `operation`: there is no operation `{name}`.{hint} `{}` finds operations by what they do.",
        TOOL_NAMES.search
    )))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArguments {
    query: String,
    #[serde(default)]
    tag: Option<String>,
    #[serde(default)]
    read_only: bool,
    #[serde(default)]
    limit: Option<i64>,
}

/// The search tool: the best matches for the query, best first.
pub fn search(arguments: JsonObject) -> Result<ToolOutput, ToolError> {
    let arguments: SearchArguments = runtime::parse_arguments(arguments)?;
    let limit = match arguments.limit {
        None => DEFAULT_RESULTS,
        Some(limit) if (1..=MAX_RESULTS as i64).contains(&limit) => limit as usize,
        Some(limit) => {
            return Err(ToolError::InvalidArguments(format!(
                "Invalid argument `limit`: {limit} is out of range; use 1 to {MAX_RESULTS}."
            )));
        }
    };
    let catalog = catalog()?;
    let filter = Filter {
        tag: arguments.tag.as_deref(),
        read_only: arguments.read_only,
    };
    if let Some(tag) = filter.tag
        && !catalog
            .index
            .entries
            .iter()
            .any(|e| e.tags.iter().any(|t| t.eq_ignore_ascii_case(tag)))
    {
        return Err(ToolError::InvalidArguments(format!(
            "Invalid argument `tag`: no operation has the tag `{tag}`; leave it out to search them all."
        )));
    }
    let hits = catalog.index.search(&arguments.query, &filter, limit);
    let results: Vec<Value> = hits
        .iter()
        .map(|hit| {
            let entry = &catalog.index.entries[hit.entry];
            json!({
                "operation": entry.name,
                "request": entry.request,
                "summary": entry.summary,
                "read_only": entry.read_only,
            })
        })
        .collect();
    let mut output = ToolOutput::from(json!({ "results": results }));
    if hits.is_empty() {
        output.notes.push(
            "No operation matches. Try other words (what the operation does, or the thing it works on), or drop the filters."
                .to_string(),
        );
    } else {
        output.notes.push(format!(
            "Next: `{}` with an operation's name shows its arguments; `{}` runs it.",
            TOOL_NAMES.describe, TOOL_NAMES.call
        ));
    }
    Ok(output)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DescribeArguments {
    operation: String,
}

/// The describe tool: one operation's input schema, what it returns and its annotations.
pub fn describe(arguments: JsonObject) -> Result<ToolOutput, ToolError> {
    let arguments: DescribeArguments = runtime::parse_arguments(arguments)?;
    let catalog = catalog()?;
    let position = find(catalog, &arguments.operation)?;
    let damaged = |error: String| ToolError::Transport {
        operation: "the operation catalog",
        message: format!(
            "the description of `{}` is damaged ({error}); regenerate the server with mcpgen",
            arguments.operation
        ),
    };
    let description: Value = EXPANDED
        .with_borrow_mut(|text| {
            text.clear();
            expand(catalog, catalog.descriptions[position], text, 0)?;
            serde_json::from_str(text).map_err(|error| error.to_string())
        })
        .map_err(damaged)?;
    Ok(description.into())
}

thread_local! {
    /// The text of the last answer [`describe`] expanded on this thread, kept for its memory:
    /// a large answer (Kubernetes' largest is 110 KB) would otherwise take fresh pages each time.
    static EXPANDED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Writes `line` (a line of the catalog) to `out` with each object that stands for a shared one,
/// `{"<marker key>":N}`, replaced by the text of the shared object N, expanded the same way,
/// and nothing else: the answer is then parsed once. Such an object can be told in the text: in
/// JSON a quotation mark inside a string is escaped, so `{"` opens an object, and no object
/// but these has the marker key. `depth` counts the shared objects `line` is within, so that a
/// damaged catalog whose objects stand for each other in a cycle is an error rather than a
/// stack overflow.
fn expand(catalog: &Catalog, line: &str, out: &mut String, depth: usize) -> Result<(), String> {
    // Looked for by the marker key's first character (a search as fast as `memchr`), then
    // checked whole: a search for the whole pattern was slower than parsing the answer.
    let open = catalog.marker_open.as_str();
    let first = open[2..].chars().next().unwrap_or('"');
    let mut rest = line;
    let mut from = 0;
    while let Some(found) = rest[from..].find(first) {
        let key = from + found;
        if !(rest[..key].ends_with("{\"") && rest[key..].starts_with(&open[2..])) {
            from = key + first.len_utf8();
            continue;
        }
        out.push_str(&rest[..key - 2]);
        let (number, after) = rest[key + open.len() - 2..]
            .split_once('}')
            .ok_or("an object that stands for a shared one does not end")?;
        let shared = number
            .parse::<usize>()
            .ok()
            .and_then(|number| catalog.shared.get(number))
            .ok_or_else(|| format!("there is no shared object {number}"))?;
        if depth >= catalog.shared.len() {
            return Err("its shared objects stand for each other in a cycle".to_string());
        }
        expand(catalog, shared, out, depth + 1)?;
        rest = after;
        from = 0;
    }
    out.push_str(rest);
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallArguments {
    operation: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

/// The call tool: runs the operation's own handler and says whether the operation only read.
pub async fn call(client: Arc<Client>, arguments: JsonObject) -> Result<ToolOutput, ToolError> {
    let arguments: CallArguments = runtime::parse_arguments(arguments)?;
    let catalog = catalog()?;
    let position = find(catalog, &arguments.operation)?;
    let operation = &OPERATIONS[position];
    let entry = &catalog.index.entries[position];
    let output = (operation.call)(client, arguments.arguments.unwrap_or_default())
        .await
        .map_err(|error| match error {
            ToolError::InvalidArguments(message) => ToolError::InvalidArguments(format!(
                "{message} Nothing was sent. `{}` shows the arguments `{}` takes.",
                TOOL_NAMES.describe, operation.name
            )),
            other => other,
        })?;
    let mut notes = Vec::new();
    if !operation.read_only {
        notes.push(format!(
            "`{}` ({}) is not read-only: it may have changed data.",
            operation.name, entry.request
        ));
    }
    notes.extend(output.notes);
    Ok(ToolOutput {
        value: json!({
            "operation": operation.name,
            "request": entry.request,
            "read_only": operation.read_only,
            "result": output.value,
        }),
        notes,
    })
}
