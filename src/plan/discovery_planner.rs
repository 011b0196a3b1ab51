//! The discovery planner: decides whether discovery mode applies ([`mode`]) and makes its part
//! of the plan ([`super::discovery`]'s types): which operations the three tools reach, their
//! definitions, the search index and what `describe` returns of each operation.

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::catalog::write_string;
use super::discovery::{
    DEFAULT_DISCOVERY_THRESHOLD, DEFAULT_RESULTS, Described, Discoverable, DiscoveryPlan,
    DiscoveryTool, MAX_RESULTS, Mode,
};
use super::{Action, Annotations, Builder, OperationPlan, Options, Tool};
use crate::api::{Api, Method, Operation};
use crate::curate::Model;
use crate::curate::bound::Discovery;
use crate::naming::{self, Scope};
use crate::search::{self, Document, Entry, Field};

/// The most tags listed as the search tool's `tag` values (more would cost too many tokens).
const MAX_LISTED_TAGS: usize = 60;

/// Decides the mode for `api` and the curation file (`None` when there is none).
pub fn mode(api: &Api, options: &Options, model: Option<&Model>) -> Result<Mode, String> {
    match model {
        Some(model) if model.discovery.is_some() => {
            if options.no_discovery {
                return Err(
                    "--no-discovery contradicts the curation file's `discovery` section: remove one of them"
                        .to_string(),
                );
            }
            Ok(Mode::Curated)
        }
        Some(_) => Ok(Mode::Off),
        None => match automatic_threshold(options) {
            Some(threshold) if api.operations.len() > threshold => {
                Ok(Mode::Automatic { threshold })
            }
            _ => Ok(Mode::Off),
        },
    }
}

/// Without a curation file: the number of operations above which an API gets the discovery
/// tools only, or `None` when `--no-discovery` rules them out. The loader reads it too, to keep
/// of each answer only what those tools read.
pub fn automatic_threshold(options: &Options) -> Option<usize> {
    (!options.no_discovery).then(|| {
        options
            .discovery_threshold
            .unwrap_or(DEFAULT_DISCOVERY_THRESHOLD)
    })
}

/// Is `operation` discoverable under `section`? (Hidden, curated and mirrored operations are
/// ruled out by the caller.)
fn admitted(section: &Discovery, operation: &Operation) -> bool {
    let included =
        section.include.is_empty() || section.include.iter().any(|f| f.matches(operation));
    included
        && !section.exclude.iter().any(|f| f.matches(operation))
        && (!section.read_only || is_read_only(operation))
}

fn is_read_only(operation: &Operation) -> bool {
    operation.reads_only()
}

/// Plans discovery for `candidates` (operations with no tool of their own, not hidden): the
/// operations' client code, the index, the catalog and the three tools.
pub fn plan(
    builder: &mut Builder<'_>,
    mode: Mode,
    section: &Discovery,
    candidates: &[&Operation],
    tool_prefix: &str,
    tool_names: &mut Scope,
    mut unavailable: Vec<(String, String)>,
) -> Result<(DiscoveryPlan, Vec<Tool>), String> {
    let chosen: Vec<&Operation> = candidates
        .iter()
        .copied()
        .filter(|op| admitted(section, op))
        .collect();
    for operation in candidates.iter().filter(|op| !admitted(section, op)) {
        let why = match section.read_only && !is_read_only(operation) {
            true => "it changes data, and these tools reach only operations that read",
            false => "the server leaves it out",
        };
        unavailable.push((operation.id.clone(), why.to_string()));
    }
    if chosen.is_empty() {
        return Err(
            "the `discovery` section reaches no operation: every operation has a tool, is hidden, or is left out by its filters; \
             operations get one-to-one tools unless `operations: { mirror: none }` (or an `exclude`) says otherwise"
                .to_string(),
        );
    }
    // The search index reads the operations alone, not their plans: it is made beside the
    // plans and what `describe` returns of each operation (the catalog but the input schemas,
    // which the plans hold).
    let ((operations, described), index) = rayon::join(
        || {
            let planned = builder.operations(&chosen);
            let operations: Vec<Discoverable> = chosen
                .iter()
                .zip(planned)
                .map(|(operation, index)| Discoverable {
                    operation: index,
                    name: operation.id.clone(),
                    read_only: is_read_only(operation),
                })
                .collect();
            let plans = &builder.operations;
            let described = chosen
                .par_iter()
                .zip(&operations)
                .map(|(operation, found)| {
                    described(operation, &plans[found.operation], found.read_only)
                })
                .collect::<Vec<Described>>();
            (operations, described)
        },
        || {
            let documents: Vec<Document> = chosen
                .iter()
                .map(|operation| {
                    document(
                        operation,
                        is_read_only(operation),
                        &search_words(section, operation),
                    )
                })
                .collect();
            search::build(&documents)
        },
    );
    let search_tool = tool_names.tool_name(&format!("{tool_prefix}search_operations"));
    let describe_tool = tool_names.tool_name(&format!("{tool_prefix}describe_operation"));
    let call_tool = tool_names.tool_name(&format!("{tool_prefix}call_operation"));
    let all_read_only = operations.iter().all(|o| o.read_only);
    let mut tags: Vec<&String> = chosen.iter().flat_map(|op| &op.tags).collect();
    tags.sort();
    tags.dedup();
    let tools = vec![
        search_definition(
            &search_tool,
            &describe_tool,
            &call_tool,
            operations.len(),
            &tags,
        ),
        describe_definition(&describe_tool, &search_tool, &call_tool),
        call_definition(
            &call_tool,
            &search_tool,
            &describe_tool,
            all_read_only,
            &chosen,
        ),
    ];
    Ok((
        DiscoveryPlan {
            mode,
            operations,
            search_tool,
            describe_tool,
            call_tool,
            index,
            described,
            unavailable,
        },
        tools,
    ))
}

/// The discovery tools' name prefix: the curation file's prefix, else the server's name (its
/// leading words, see [`naming::tool_prefix`]).
pub fn tool_prefix(prefix: &str, server_name: &str) -> String {
    if prefix.is_empty() {
        naming::tool_prefix(server_name)
    } else {
        prefix.to_string()
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A line of the catalog the describe tool reads, but its input schema (see [`Described`]).
#[derive(Serialize)]
struct CatalogHead<'a> {
    operation: &'a str,
    request: String,
    summary: String,
    description: &'a str,
    tags: &'a [String],
    read_only: bool,
    annotations: Value,
}

/// The catalog's line for `operation` (planned as `plan`), but its input schema: the JSON object
/// of [`CatalogHead`]'s fields, then `input_schema` (written by [`DiscoveryPlan::catalog`]), then
/// `returns` (its text here).
fn described(operation: &Operation, plan: &OperationPlan, read_only: bool) -> Described {
    let head = CatalogHead {
        operation: &operation.id,
        request: plan.label(),
        summary: operation
            .summary
            .as_deref()
            .map(one_line)
            .unwrap_or_default(),
        description: operation
            .description
            .as_deref()
            .map(str::trim)
            .unwrap_or_default(),
        tags: &operation.tags,
        read_only,
        annotations: Annotations::for_operation(operation)
            .to_json()
            .unwrap_or(json!({})),
    };
    let mut head = serde_json::to_string(&head).expect("a JSON value always serializes");
    // The object goes on: `{…}` loses its `}`.
    head.pop();
    head.push_str(",\"input_schema\":");
    Described {
        head,
        returns: returns(operation),
    }
}

/// Is `operation` deprecated: marked so, or its description says so first (Kubernetes'
/// `watch…` operations: "deprecated: use the 'watch' parameter with a list operation instead")?
fn is_deprecated(operation: &Operation) -> bool {
    let said = |text: Option<&str>| {
        text.and_then(|t| t.trim().split("\n\n").next())
            .is_some_and(|first| {
                let first = first.to_lowercase();
                first.starts_with("deprecated") || first.contains("deprecated:")
            })
    };
    operation.deprecated
        || said(operation.summary.as_deref())
        || said(operation.description.as_deref())
}

/// The curation file's search words for `operation` (those for it and for its tags), in the
/// file's order.
fn search_words(section: &Discovery, operation: &Operation) -> String {
    section
        .search_words
        .iter()
        .filter(|(filter, _)| filter.matches(operation))
        .flat_map(|(_, words)| words.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the index knows of `operation`, with the curation file's `search_words` for it.
fn document(operation: &Operation, read_only: bool, search_words: &str) -> Document {
    let path_words: Vec<&str> = operation
        .path
        .split('/')
        .filter(|segment| !segment.is_empty() && !segment.starts_with('{'))
        .collect();
    let mut parameters: Vec<String> = operation
        .parameters
        .iter()
        .map(|p| p.name.clone())
        .collect();
    if let Some(body) = &operation.body
        && let Some(properties) = body.schema.get("properties").and_then(Value::as_object)
    {
        parameters.extend(properties.keys().cloned());
    }
    // The first paragraph says what the operation is for; the rest is detail that would drown
    // the words that matter.
    let description = operation
        .description
        .as_deref()
        .map(|d| {
            d.trim()
                .split("\n\n")
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default();
    Document {
        entry: Entry {
            name: operation.id.clone(),
            request: format!("{} {}", operation.method.as_upper(), operation.path),
            read_only,
            summary: operation
                .summary
                .as_deref()
                .map(one_line)
                .unwrap_or_default(),
            tags: operation.tags.clone(),
        },
        fields: vec![
            (Field::Name, operation.id.clone()),
            // Without a summary (Slack's Web API has none), the description's first sentence
            // says what the operation does.
            (
                Field::Summary,
                match operation.summary.as_deref() {
                    Some(summary) if !summary.trim().is_empty() => summary.to_string(),
                    _ => crate::text::first_sentence(&description).to_string(),
                },
            ),
            (Field::Tags, operation.tags.join(" ")),
            (Field::Path, path_words.join(" ")),
            (Field::Description, description),
            (Field::Parameters, parameters.join(" ")),
            (Field::Curated, search_words.to_string()),
            (Field::Schema, objects(operation).join(" ")),
        ],
        deprecated: is_deprecated(operation),
    }
}

/// What the objects `operation` takes and returns are: the first sentence of the description
/// (and the title) of its body's schema and of its success response's, or of the items of a
/// list it returns (`data` or `items` of a Stripe or Kubernetes list), each once.
fn objects(operation: &Operation) -> Vec<String> {
    let mut out = Vec::new();
    let schemas = operation
        .body
        .iter()
        .map(|body| &body.schema)
        .chain(operation.success.iter().filter_map(|r| r.schema.as_ref()));
    for schema in schemas {
        describe_object(schema, schema, 2, &mut out);
    }
    out
}

/// Adds to `out` what `schema` (in the document `root`, whose `$defs` its references name) says
/// it is, looking `depth` levels into lists and alternatives.
fn describe_object(root: &Value, schema: &Value, depth: usize, out: &mut Vec<String>) {
    let schema = resolve(root, schema);
    for key in ["title", "description"] {
        if let Some(text) = schema.get(key).and_then(Value::as_str) {
            let paragraph = text.trim().split("\n\n").next().unwrap_or_default();
            let sentence = crate::text::first_sentence(paragraph).trim();
            if !sentence.is_empty() && !out.iter().any(|said| said == sentence) {
                out.push(sentence.to_string());
            }
        }
    }
    if depth == 0 {
        return;
    }
    if let Some(items) = schema.get("items") {
        describe_object(root, items, depth - 1, out);
    }
    for key in ["data", "items"] {
        if let Some(items) = schema
            .get("properties")
            .and_then(|properties| properties.get(key))
            .map(|list| resolve(root, list))
            .and_then(|list| list.get("items"))
        {
            describe_object(root, items, depth - 1, out);
        }
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            for branch in branches.iter().take(3) {
                describe_object(root, branch, depth - 1, out);
            }
        }
    }
}

/// `schema`, or what its local `$ref` (`#/$defs/…` of `root`) names, a few references deep.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..5 {
        let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix("#/$defs/"))
            .and_then(|name| root.get("$defs")?.get(name))
        else {
            break;
        };
        schema = target;
    }
    schema
}

/// What `operation` returns, briefly: the response's description and the shape of its body
/// two levels deep, as the JSON text of an object (compact, as `serde_json` writes a value):
/// `status`, `description` and `schema` ([`write_brief`]).
fn returns(operation: &Operation) -> String {
    let Some(success) = &operation.success else {
        return r#"{"description":"Nothing is documented."}"#.to_string();
    };
    let mut out = Vec::new();
    out.extend_from_slice(b"{\"status\":");
    write_string(&success.status, &mut out);
    if let Some(description) = &success.description {
        out.extend_from_slice(b",\"description\":");
        write_string(&one_line(description), &mut out);
    }
    if let Some(schema) = &success.schema {
        out.extend_from_slice(b",\"schema\":");
        write_brief(schema, 2, &mut out);
    }
    out.push(b'}');
    String::from_utf8(out).expect("JSON text is UTF-8")
}

/// Appends the JSON text of `schema` cut down to its types and property names, `depth` levels
/// deep: its `type`, `format` and `enum`, a `description` that says a `$ref` is "the same
/// shape, nested", its `anyOf`, `oneOf` and `allOf` (one level less deep), `items`, and each of
/// its `properties` (one level less deep, or its `type` alone at the last level), in that
/// order. Written as text rather than made a value to be written: for GitHub's answers, the
/// values made cost more than the text.
fn write_brief(schema: &Value, depth: usize, out: &mut Vec<u8>) {
    let Some(object) = schema.as_object() else {
        out.extend_from_slice(b"{}");
        return;
    };
    out.push(b'{');
    let mut first = true;
    let mut key = |key: &str, out: &mut Vec<u8>| {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        write_string(key, out);
        out.push(b':');
    };
    for name in ["type", "format", "enum"] {
        if let Some(value) = object.get(name) {
            key(name, out);
            serde_json::to_writer(&mut *out, value).expect("a JSON value serializes");
        }
    }
    if object.contains_key("$ref") {
        key("description", out);
        out.extend_from_slice(b"\"the same shape, nested\"");
    }
    for name in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(items)) = object.get(name)
            && depth > 0
        {
            key(name, out);
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_brief(item, depth - 1, out);
            }
            out.push(b']');
        }
    }
    if let Some(items) = object.get("items") {
        key("items", out);
        write_brief(items, depth, out);
    }
    if let Some(Value::Object(properties)) = object.get("properties") {
        key("properties", out);
        out.push(b'{');
        for (i, (name, property)) in properties.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_string(name, out);
            out.push(b':');
            if depth > 1 {
                write_brief(property, depth - 1, out);
            } else {
                out.push(b'{');
                if let Some(ty) = property.get("type") {
                    out.extend_from_slice(b"\"type\":");
                    serde_json::to_writer(&mut *out, ty).expect("a JSON value serializes");
                }
                out.push(b'}');
            }
        }
        out.push(b'}');
    }
    out.push(b'}');
}

/// The part of an operation's success response `schema` that the discovery tools read ([`returns`]
/// and [`objects`] give the same of it as of the whole schema), the rest left out: the loader
/// keeps only this of each answer when the discovery tools reach every operation, and in an API
/// like Stripe's the answers' schemas, whole, are most of what loading holds. The parts kept are
/// moved out of `schema`, not copied.
pub fn answer_as_read(schema: Value) -> Value {
    let mut read = Read::default();
    read_brief(&schema, 2, &mut read);
    read_object(&schema, &schema, &[], 2, &mut read);
    read.keep(schema)
}

/// The places in a schema something reads, each named by where its value is in memory: every
/// value on the way from the root to a value read (`false`), and the values read whole
/// (`true`). A value's place is the same until the schema is changed, and moving a map or a
/// list moves neither its entries nor its items (they are on the heap): [`Read::keep`] looks up
/// a value's entries after moving it.
#[derive(Default)]
struct Read {
    /// Looked up by place only, never iterated: a hasher faster than the standard one (the
    /// loader cuts every answer of a large API with this).
    places: std::collections::HashMap<*const Value, bool, foldhash::fast::RandomState>,
}

impl Read {
    /// Marks `value` as on the way to a value read.
    fn at(&mut self, value: &Value) {
        self.places.entry(value).or_insert(false);
    }

    /// Marks each of `path`'s values as on the way to a value read.
    fn at_path(&mut self, path: &[&Value]) {
        for value in path {
            self.at(value);
        }
    }

    /// The value `key` of `value` is read whole, when there is one.
    fn whole_at(&mut self, value: &Value, key: &str) {
        if let Some(read) = value.get(key) {
            self.places.insert(read, true);
        }
    }

    /// What of `value` (the root, or a value on the way to one read) is read: a mapping keeps
    /// the entries read, in its order; a list keeps its length, the items nothing reads being
    /// null.
    fn keep(&self, value: Value) -> Value {
        let read = |item: &Value| self.places.get(&std::ptr::from_ref(item)).copied();
        let kept = |item: Value, whole: bool| if whole { item } else { self.keep(item) };
        match value {
            Value::Object(object) => {
                let reads: Vec<Option<bool>> = object.values().map(read).collect();
                let mut copy = Map::with_capacity(reads.iter().flatten().count());
                for ((key, item), whole) in object.into_iter().zip(reads) {
                    if let Some(whole) = whole {
                        copy.insert(key, kept(item, whole));
                    }
                }
                Value::Object(copy)
            }
            Value::Array(items) => {
                let reads: Vec<Option<bool>> = items.iter().map(read).collect();
                Value::Array(
                    items
                        .into_iter()
                        .zip(reads)
                        .map(|(item, whole)| whole.map_or(Value::Null, |whole| kept(item, whole)))
                        .collect(),
                )
            }
            scalar => scalar,
        }
    }
}

/// Marks what [`write_brief`] reads of `schema` (itself marked by the caller).
fn read_brief(schema: &Value, depth: usize, read: &mut Read) {
    let Some(object) = schema.as_object() else {
        return;
    };
    for key in ["type", "format", "enum", "$ref"] {
        read.whole_at(schema, key);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(list @ Value::Array(items)) = object.get(key)
            && depth > 0
        {
            read.at(list);
            for item in items {
                read.at(item);
                read_brief(item, depth - 1, read);
            }
        }
    }
    if let Some(items) = object.get("items") {
        read.at(items);
        read_brief(items, depth, read);
    }
    if let Some(properties @ Value::Object(entries)) = object.get("properties") {
        read.at(properties);
        for property in entries.values() {
            read.at(property);
            if depth > 1 {
                read_brief(property, depth - 1, read);
            } else {
                read.whole_at(property, "type");
            }
        }
    }
}

/// Marks what [`describe_object`] reads of `schema`, at `path` in `root` (the values from the
/// root's entry down to `schema`, none for the root itself).
fn read_object<'a>(
    root: &'a Value,
    schema: &'a Value,
    path: &[&'a Value],
    depth: usize,
    read: &mut Read,
) {
    let (schema, mut path) = read_resolve(root, schema, path.to_vec(), read);
    read.at_path(&path);
    for key in ["title", "description"] {
        read.whole_at(schema, key);
    }
    if depth == 0 {
        return;
    }
    let inside = |path: &mut Vec<&'a Value>, values: &[&'a Value], read: &mut Read| {
        let length = path.len();
        path.extend(values);
        let value = values[values.len() - 1];
        read_object(root, value, path, depth - 1, read);
        path.truncate(length);
    };
    if let Some(items) = schema.get("items") {
        inside(&mut path, &[items], read);
    }
    for key in ["data", "items"] {
        if let Some(properties) = schema.get("properties")
            && let Some(list) = properties.get(key)
        {
            let mut list_path = path.clone();
            list_path.extend([properties, list]);
            read.at_path(&list_path);
            let (list, mut list_path) = read_resolve(root, list, list_path, read);
            if let Some(items) = list.get("items") {
                inside(&mut list_path, &[items], read);
            }
        }
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(list @ Value::Array(branches)) = schema.get(key) {
            for branch in branches.iter().take(3) {
                inside(&mut path, &[list, branch], read);
            }
        }
    }
}

/// Marks what [`resolve`] reads following `schema` (at `path`) through `root`'s `$defs`, and
/// returns where it ends.
fn read_resolve<'a>(
    root: &'a Value,
    schema: &'a Value,
    path: Vec<&'a Value>,
    read: &mut Read,
) -> (&'a Value, Vec<&'a Value>) {
    let (mut schema, mut path) = (schema, path);
    for _ in 0..5 {
        read.at_path(&path);
        read.whole_at(schema, "$ref");
        let Some((definitions, target)) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix("#/$defs/"))
            .and_then(|name| {
                let definitions = root.get("$defs")?;
                Some((definitions, definitions.get(name)?))
            })
        else {
            break;
        };
        path = vec![definitions, target];
        read.at_path(&path);
        schema = target;
    }
    (schema, path)
}

fn search_definition(
    name: &str,
    describe: &str,
    call: &str,
    count: usize,
    tags: &[&String],
) -> Tool {
    let mut properties = Map::new();
    properties.insert(
        "query".into(),
        json!({
            "type": "string",
            "description": "What you want to do, in a few words (\"list the open issues of a project\").",
        }),
    );
    let mut tag = json!({
        "type": "string",
        "description": "Only operations with this tag.",
    });
    if !tags.is_empty() && tags.len() <= MAX_LISTED_TAGS {
        tag["enum"] = json!(tags);
    }
    properties.insert("tag".into(), tag);
    properties.insert(
        "read_only".into(),
        json!({
            "type": "boolean",
            "description": "Only operations that change nothing.",
            "default": false,
        }),
    );
    properties.insert(
        "limit".into(),
        json!({
            "type": "integer",
            "description": "The most results to return.",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_RESULTS,
        }),
    );
    Tool {
        name: name.to_string(),
        title: Some("Search the API's operations".into()),
        description: Some(format!(
            "Find the operation for a task among {count} operations of this API that have no tool of their own. \
             Returns the best matches first: each operation's name, HTTP request, summary and whether it only reads. \
             Then call `{describe}` with the name to learn its arguments, and `{call}` to run it."
        )),
        input_schema: json!({
            "type": "object",
            "properties": properties,
            "required": ["query"],
            "additionalProperties": false,
        }),
        output_schema: Some(json!({
            "type": "object",
            "properties": {
                "results": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "operation": { "type": "string" },
                            "request": { "type": "string" },
                            "summary": { "type": "string" },
                            "read_only": { "type": "boolean" },
                        },
                        "required": ["operation", "request", "summary", "read_only"],
                    },
                },
            },
            "required": ["results"],
        })),
        annotations: Annotations {
            read_only: Some(true),
            destructive: None,
            idempotent: None,
            open_world: Some(false),
        },
        action: Action::Discovery(DiscoveryTool::Search),
    }
}

fn describe_definition(name: &str, search: &str, call: &str) -> Tool {
    Tool {
        name: name.to_string(),
        title: Some("Describe an operation".into()),
        description: Some(format!(
            "Describe one operation found with `{search}`: its input schema (the `arguments` `{call}` takes), \
             what it returns, and whether it changes anything. Use it before calling an operation, so that the arguments fit."
        )),
        input_schema: json!({
            "type": "object",
            "properties": {
                "operation": {
                    "type": "string",
                    "description": format!("The operation's name, as `{search}` returned it."),
                },
            },
            "required": ["operation"],
            "additionalProperties": false,
        }),
        output_schema: Some(json!({
            "type": "object",
            "properties": {
                "operation": { "type": "string" },
                "request": { "type": "string" },
                "summary": { "type": "string" },
                "description": { "type": "string" },
                "tags": { "type": "array", "items": { "type": "string" } },
                "read_only": { "type": "boolean" },
                "annotations": { "type": "object" },
                "input_schema": { "type": "object" },
                "returns": { "type": "object" },
            },
            "required": ["operation", "request", "read_only", "input_schema", "returns"],
        })),
        annotations: Annotations {
            read_only: Some(true),
            destructive: None,
            idempotent: None,
            open_world: Some(false),
        },
        action: Action::Discovery(DiscoveryTool::Describe),
    }
}

fn call_definition(
    name: &str,
    search: &str,
    describe: &str,
    all_read_only: bool,
    chosen: &[&Operation],
) -> Tool {
    // Only the hints that differ from MCP's defaults, as for the tools mcpgen derives from a
    // method: `destructiveHint: false` when no reachable operation updates or deletes (PUT,
    // DELETE), else nothing (not read-only, destructive, not idempotent).
    let annotations = if all_read_only {
        Annotations {
            read_only: Some(true),
            ..Annotations::default()
        }
    } else {
        let destructive = chosen
            .iter()
            .any(|op| matches!(op.method, Method::Put | Method::Delete));
        Annotations {
            read_only: Some(false),
            destructive: Some(destructive),
            idempotent: Some(false),
            open_world: None,
        }
        .without_defaults()
    };
    let effect = if all_read_only {
        "Every operation it reaches only reads."
    } else {
        "Some operations change data: the result's `read_only` says whether this one did."
    };
    Tool {
        name: name.to_string(),
        title: Some("Call an operation".into()),
        description: Some(format!(
            "Call one operation found with `{search}`, with arguments that match the input schema `{describe}` shows. \
             The arguments are checked before anything is sent. {effect}"
        )),
        input_schema: json!({
            "type": "object",
            "properties": {
                "operation": {
                    "type": "string",
                    "description": format!("The operation's name, as `{search}` returned it."),
                },
                "arguments": {
                    "type": "object",
                    "description": format!("The operation's arguments, as its input schema from `{describe}` says."),
                    "default": {},
                },
            },
            "required": ["operation"],
            "additionalProperties": false,
        }),
        output_schema: Some(json!({
            "type": "object",
            "properties": {
                "operation": { "type": "string" },
                "request": { "type": "string" },
                "read_only": { "type": "boolean" },
                "result": {},
            },
            "required": ["operation", "request", "read_only", "result"],
        })),
        annotations,
        action: Action::Discovery(DiscoveryTool::Call),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operation_answering(schema: Value) -> Operation {
        let mut api = crate::load::load_text(
            std::path::Path::new("openapi.yaml"),
            "openapi: 3.1.0\ninfo: {title: A, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok}\n",
        )
        .expect("the document loads");
        let mut operation = api.operations.remove(0);
        operation
            .success
            .as_mut()
            .expect("a success response")
            .schema = Some(std::sync::Arc::new(schema));
        operation
    }

    #[test]
    fn what_an_operation_returns_is_written_as_serde_json_writes_its_brief_value() {
        let schema = json!({
            "$ref": "#/$defs/Page",
            "description": "Dropped.",
            "properties": {
                "say \"hi\"\n": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "enum": ["a\u{2028}", null, 1.5],
                    "minLength": 1,
                },
                "nested": {
                    "type": "object",
                    "properties": { "leaf": { "type": "integer", "format": "int64" }, "bare": {} },
                    "items": { "type": "string", "anyOf": [{ "type": "string" }] },
                    "anyOf": [{ "type": "string", "properties": { "x": { "type": "string" } } }],
                },
                "list": { "type": "array", "items": { "properties": { "id": { "type": "string" } } } },
                "odd": true,
            },
            "oneOf": [true, { "allOf": [{ "type": "null" }] }],
            "type": "object",
            "format": "page",
        });
        let expected = json!({
            "status": "200",
            "description": "ok",
            "schema": {
                "type": "object",
                "format": "page",
                "description": "the same shape, nested",
                "oneOf": [{}, { "allOf": [{ "type": "null" }] }],
                "properties": {
                    "say \"hi\"\n": {
                        "type": ["string", "null"],
                        "format": "date-time",
                        "enum": ["a\u{2028}", null, 1.5],
                    },
                    "nested": {
                        "type": "object",
                        "anyOf": [{ "type": "string", "properties": { "x": { "type": "string" } } }],
                        "items": { "type": "string", "anyOf": [{ "type": "string" }] },
                        "properties": { "leaf": { "type": "integer" }, "bare": {} },
                    },
                    "list": {
                        "type": "array",
                        "items": { "properties": { "id": { "type": "string" } } },
                    },
                    "odd": {},
                },
            },
        });
        let returned = returns(&operation_answering(schema));
        assert_eq!(
            returned,
            serde_json::to_string(&expected).expect("serializes")
        );
        let nothing = returns(&Operation {
            success: None,
            ..operation_answering(json!({}))
        });
        assert_eq!(nothing, r#"{"description":"Nothing is documented."}"#);
    }

    #[test]
    fn an_answer_is_cut_to_exactly_what_is_read_in_its_order_lists_keeping_their_length() {
        let schema = json!({
            "description": "Kept.",
            "examples": [{ "id": 1 }],
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "title": "Dropped: `objects` reads the title of its items.",
                    "items": {
                        "$ref": "#/$defs/Item",
                        "description": "Dropped: `objects` reads what the reference names.",
                        "default": null,
                    },
                },
                "deep": {
                    "type": "object",
                    "description": "Dropped: `objects` reads no property's description.",
                    "properties": {
                        "leaf": { "type": "string", "format": "date", "enum": ["a"], "pattern": "x" },
                        "list": { "type": "array", "items": { "type": "integer", "minimum": 1 } },
                    },
                },
            },
            "anyOf": [
                { "type": "string", "maxLength": 3 },
                { "$ref": "#/$defs/Item" },
                { "not": {} },
                { "oneOf": [{ "type": "null", "title": "Dropped: three levels down." }, { "type": "integer" }] },
            ],
            "$defs": {
                "Item": { "title": "Item", "type": "object", "required": ["x"], "properties": { "x": { "type": "string" } } },
                "Unread": { "title": "Unread" },
            },
        });
        let expected = json!({
            "description": "Kept.",
            "type": "object",
            "properties": {
                "items": { "type": "array", "items": { "$ref": "#/$defs/Item" } },
                "deep": {
                    "type": "object",
                    "properties": { "leaf": { "type": "string" }, "list": { "type": "array" } },
                },
            },
            "anyOf": [
                { "type": "string" },
                { "$ref": "#/$defs/Item" },
                {},
                { "oneOf": [{ "type": "null" }, { "type": "integer" }] },
            ],
            "$defs": { "Item": { "title": "Item" } },
        });
        let kept = answer_as_read(schema.clone());
        assert_eq!(kept, expected);
        // In the same order, keys and items.
        assert_eq!(
            serde_json::to_string(&kept).expect("serializes"),
            serde_json::to_string(&expected).expect("serializes")
        );
        let (whole, read) = (operation_answering(schema), operation_answering(kept));
        assert_eq!(returns(&read), returns(&whole));
        assert_eq!(objects(&read), objects(&whole));
    }

    #[test]
    fn what_is_kept_of_an_answer_is_described_and_briefed_as_the_whole_answer() {
        let schema = json!({
            "title": "List",
            "description": "A list of charges.\n\nMore.",
            "type": "object",
            "required": ["data"],
            "properties": {
                "object": { "type": "string", "enum": ["list"], "description": "Dropped." },
                "data": { "$ref": "#/$defs/Charges" },
                "url": { "type": "string", "maxLength": 5000 },
                "nested": {
                    "type": "object",
                    "properties": { "deep": { "type": "integer", "description": "Dropped." } }
                },
                "choice": {
                    "anyOf": [
                        { "$ref": "#/$defs/Charge" },
                        { "type": "string", "description": "An id." },
                        { "type": "null" },
                        { "type": "object", "description": "A fourth." }
                    ]
                }
            },
            "$defs": {
                "Charges": { "type": "array", "items": { "$ref": "#/$defs/Charge" } },
                "Charge": {
                    "description": "A charge. It moves money.",
                    "type": "object",
                    "properties": { "id": { "type": "string" }, "amount": { "type": "integer" } }
                },
                "Unused": { "type": "object", "description": "Nothing reads this." }
            }
        });
        let kept = answer_as_read(schema.clone());
        let whole = operation_answering(schema.clone());
        let read = operation_answering(kept.clone());
        assert_eq!(returns(&read), returns(&whole));
        assert_eq!(objects(&read), objects(&whole));
        let returned: Value = serde_json::from_str(&returns(&whole)).expect("JSON text");
        assert!(!objects(&whole).is_empty() && returned["schema"]["properties"].is_object());
        assert!(kept["$defs"].get("Unused").is_none(), "{kept}");
        assert!(
            kept["properties"]["url"].get("maxLength").is_none(),
            "{kept}"
        );
        assert!(kept.get("required").is_none(), "{kept}");
        assert!(
            kept["properties"]["object"].get("description").is_none(),
            "{kept}"
        );
        assert_eq!(
            kept["properties"]["choice"]["anyOf"][3],
            json!({ "type": "object" })
        );
    }
}
