//! Diff: the tool-level changes between two versions of an API, as the model sees them — tools
//! added, removed and renamed; parameters added, removed, made required or optional, of
//! another type, with enum values gone or new; output schemas, annotations and descriptions
//! changed; and references of the curation file the new version breaks. Each change is marked
//! breaking (a call that worked may now fail, or a tool is gone) or not.
//!
//! The comparison works on two [`Plan`]s, so it compares exactly what `tools/list` returns.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::plan::curated::{CuratedBody, StepPlan};
use crate::plan::{Action, Plan, Tool};

/// What kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    ToolAdded,
    ToolRemoved,
    ToolRenamed,
    ParameterAdded,
    ParameterRemoved,
    ParameterRequired,
    ParameterOptional,
    ParameterType,
    EnumValuesRemoved,
    EnumValuesAdded,
    OutputSchema,
    Annotations,
    Description,
    /// A reference of the curation file that the new version breaks.
    Curation,
}

/// One change, under the tool it concerns (none: the curation file as a whole).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub tool: Option<String>,
    pub kind: Kind,
    pub detail: String,
    pub breaking: bool,
}

/// A reference of the curation file that no longer holds against the new version, under the
/// tool (its name in the old plan) whose entry it is in, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurationBreak {
    pub tool: Option<String>,
    pub message: String,
}

/// The changes from `old` to `new`, grouped by tool (the curation file as a whole first, then
/// tools by name).
///
/// `new` is planned without the curated tools `broken` names (it is `None` when the curation
/// file cannot be used with the new version at all): those tools are reported by their broken
/// references, not as removed, and the one-to-one tools their operations would get in their
/// stead are not reported as added.
pub fn diff(old: &Plan, new: Option<&Plan>, broken: &[CurationBreak]) -> Vec<Change> {
    let mut changes: Vec<Change> = broken
        .iter()
        .map(|b| Change {
            tool: b.tool.clone(),
            kind: Kind::Curation,
            detail: b.message.clone(),
            breaking: true,
        })
        .collect();
    if let Some(new) = new {
        changes.extend(compare_plans(old, new, broken));
    }
    // Group by tool, keeping each tool's changes in the order found.
    let mut groups: BTreeMap<Option<String>, Vec<Change>> = BTreeMap::new();
    for change in changes {
        groups.entry(change.tool.clone()).or_default().push(change);
    }
    groups.into_values().flatten().collect()
}

/// Whether any of `changes` is breaking.
pub fn is_breaking(changes: &[Change]) -> bool {
    changes.iter().any(|c| c.breaking)
}

fn compare_plans(old: &Plan, new: &Plan, broken: &[CurationBreak]) -> Vec<Change> {
    let broken_tools: BTreeSet<&str> = broken.iter().filter_map(|b| b.tool.as_deref()).collect();
    // Operations only the broken tools called: their one-to-one tools in `new` are artefacts.
    let kept_calls: BTreeSet<String> = old
        .tools
        .iter()
        .filter(|t| !broken_tools.contains(t.name.as_str()))
        .flat_map(|t| calls(old, t))
        .collect();
    let orphaned: BTreeSet<String> = old
        .tools
        .iter()
        .filter(|t| broken_tools.contains(t.name.as_str()))
        .flat_map(|t| calls(old, t))
        .filter(|id| !kept_calls.contains(id))
        .collect();

    let old_names: BTreeSet<&str> = old.tools.iter().map(|t| t.name.as_str()).collect();
    let new_names: BTreeSet<&str> = new.tools.iter().map(|t| t.name.as_str()).collect();
    let removed: Vec<&Tool> = old
        .tools
        .iter()
        .filter(|t| !new_names.contains(t.name.as_str()) && !broken_tools.contains(t.name.as_str()))
        .collect();
    let mut added: Vec<&Tool> = new
        .tools
        .iter()
        .filter(|t| !old_names.contains(t.name.as_str()))
        .filter(|t| {
            let ids = calls(new, t);
            let artefact = matches!(t.action, Action::Call { .. })
                && !ids.is_empty()
                && ids.iter().all(|id| orphaned.contains(id));
            !artefact
        })
        .collect();

    let mut changes = Vec::new();
    // Renames: a removed and an added tool calling the same operations (or, for one-to-one
    // tools, the same method and path: the operationId changed).
    let mut renamed: Vec<(&Tool, &Tool)> = Vec::new();
    let mut still_removed = Vec::new();
    for gone in removed {
        let position = added
            .iter()
            .position(|candidate| same_calls(old, gone, new, candidate));
        match position {
            Some(index) => renamed.push((gone, added.remove(index))),
            None => still_removed.push(gone),
        }
    }
    for tool in still_removed {
        changes.push(change(
            &tool.name,
            Kind::ToolRemoved,
            format!("tool removed{}", what_it_calls(old, tool, "it called ")),
            true,
        ));
    }
    for tool in added {
        changes.push(change(
            &tool.name,
            Kind::ToolAdded,
            format!("tool added{}", what_it_calls(new, tool, "it calls ")),
            false,
        ));
    }
    for (gone, tool) in renamed {
        changes.push(change(
            &tool.name,
            Kind::ToolRenamed,
            format!(
                "renamed from `{}`{}",
                gone.name,
                what_it_calls(new, tool, "it calls ")
            ),
            true,
        ));
        changes.extend(compare_tools(gone, tool));
    }
    for tool in &old.tools {
        if let Some(now) = new.tools.iter().find(|t| t.name == tool.name) {
            changes.extend(compare_tools(tool, now));
        }
    }
    changes
}

fn change(tool: &str, kind: Kind, detail: String, breaking: bool) -> Change {
    Change {
        tool: Some(tool.to_string()),
        kind,
        detail,
        breaking,
    }
}

/// The operationIds a tool calls, in order.
fn calls(plan: &Plan, tool: &Tool) -> Vec<String> {
    let id = |index: usize| plan.operations.get(index).map(|o| o.api_id.clone());
    match &tool.action {
        Action::Call { operation, .. } => id(*operation).into_iter().collect(),
        Action::Curated(curated) => match &curated.body {
            CuratedBody::Call { operation, .. } => id(*operation).into_iter().collect(),
            CuratedBody::Steps(steps) => steps
                .iter()
                .filter_map(|step| match step {
                    StepPlan::Call { operation, .. } => id(*operation),
                    _ => None,
                })
                .collect(),
        },
        Action::Discovery(_) => Vec::new(),
    }
}

/// `GET /notes/{id}` for a one-to-one tool.
fn one_operation_label(plan: &Plan, tool: &Tool) -> Option<String> {
    match tool.action {
        Action::Call { operation, .. } => plan.operations.get(operation).map(|o| o.label()),
        Action::Curated(_) | Action::Discovery(_) => None,
    }
}

fn what_it_calls(plan: &Plan, tool: &Tool, lead: &str) -> String {
    if let Some(label) = one_operation_label(plan, tool) {
        return format!(" ({lead}{label})");
    }
    let ids = calls(plan, tool);
    if ids.is_empty() {
        return String::new();
    }
    let ids: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
    format!(" ({lead}{})", ids.join(", "))
}

fn same_calls(old: &Plan, gone: &Tool, new: &Plan, candidate: &Tool) -> bool {
    let before = calls(old, gone);
    if !before.is_empty() && before == calls(new, candidate) {
        return true;
    }
    matches!(
        (one_operation_label(old, gone), one_operation_label(new, candidate)),
        (Some(a), Some(b)) if a == b
    )
}

/// The changes of one tool, from its old definition to its new one.
fn compare_tools(old: &Tool, new: &Tool) -> Vec<Change> {
    let name = new.name.as_str();
    let mut changes = compare_inputs(name, &old.input_schema, &new.input_schema);
    if let Some(detail) = compare_outputs(old.output_schema.as_ref(), new.output_schema.as_ref()) {
        changes.push(change(name, Kind::OutputSchema, detail, false));
    }
    // A hint changes when a client reads it differently: a hint not given is MCP's default, so
    // `destructiveHint: true` written out and left unset are the same.
    let (was, is, unset) = (
        &old.annotations,
        &new.annotations,
        crate::plan::Annotations::default(),
    );
    let mut details = Vec::new();
    for (key, before, after, default) in [
        (
            "readOnlyHint",
            was.read_only,
            is.read_only,
            unset.read_only_hint(),
        ),
        (
            "destructiveHint",
            was.destructive,
            is.destructive,
            unset.destructive_hint(),
        ),
        (
            "idempotentHint",
            was.idempotent,
            is.idempotent,
            unset.idempotent_hint(),
        ),
        (
            "openWorldHint",
            was.open_world,
            is.open_world,
            unset.open_world_hint(),
        ),
    ] {
        if before.unwrap_or(default) != after.unwrap_or(default) {
            let show =
                |hint: Option<bool>| hint.map_or(format!("unset ({default})"), |h| h.to_string());
            details.push(format!("{key} {} → {}", show(before), show(after)));
        }
    }
    if !details.is_empty() {
        changes.push(change(name, Kind::Annotations, details.join(", "), false));
    }
    if old.title != new.title {
        let show = |title: &Option<String>| {
            title
                .as_ref()
                .map_or("none".to_string(), |t| format!("{t:?}"))
        };
        changes.push(change(
            name,
            Kind::Description,
            format!(
                "title changed from {} to {}",
                show(&old.title),
                show(&new.title)
            ),
            false,
        ));
    }
    if old.description != new.description {
        changes.push(change(
            name,
            Kind::Description,
            "description changed".into(),
            false,
        ));
    }
    changes
}

/// Parameter changes: by property name of the input schemas.
fn compare_inputs(tool: &str, old: &Value, new: &Value) -> Vec<Change> {
    let empty = Map::new();
    let properties = |schema: &'_ Value| -> Map<String, Value> {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .clone()
    };
    let required = |schema: &Value| -> BTreeSet<String> {
        schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let (old_properties, new_properties) = (properties(old), properties(new));
    let (old_required, new_required) = (required(old), required(new));
    let mut changes = Vec::new();
    for (name, before) in &old_properties {
        let Some(after) = new_properties.get(name) else {
            changes.push(change(
                tool,
                Kind::ParameterRemoved,
                format!("parameter `{name}` removed"),
                true,
            ));
            continue;
        };
        match (old_required.contains(name), new_required.contains(name)) {
            (false, true) => changes.push(change(
                tool,
                Kind::ParameterRequired,
                format!("parameter `{name}` is now required"),
                true,
            )),
            (true, false) => changes.push(change(
                tool,
                Kind::ParameterOptional,
                format!("parameter `{name}` is now optional"),
                false,
            )),
            _ => {}
        }
        let (type_before, type_after) = (type_of(before, old), type_of(after, new));
        if type_before != type_after {
            changes.push(change(
                tool,
                Kind::ParameterType,
                format!("parameter `{name}` type changed from {type_before} to {type_after}"),
                true,
            ));
            continue;
        }
        changes.extend(compare_enums(
            tool,
            name,
            enum_of(before, old),
            enum_of(after, new),
        ));
    }
    for (name, schema) in &new_properties {
        if old_properties.contains_key(name) {
            continue;
        }
        let required = new_required.contains(name);
        let detail = format!(
            "parameter `{name}` added ({}, {})",
            if required { "required" } else { "optional" },
            type_of(schema, new)
        );
        changes.push(change(tool, Kind::ParameterAdded, detail, required));
    }
    changes
}

fn compare_enums(
    tool: &str,
    name: &str,
    before: Option<Vec<Value>>,
    after: Option<Vec<Value>>,
) -> Vec<Change> {
    let show = |values: &[&Value]| {
        values
            .iter()
            .map(|v| match v {
                Value::String(s) => format!("`{s}`"),
                other => format!("`{other}`"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (before, after) {
        (None, None) => Vec::new(),
        (None, Some(values)) => vec![change(
            tool,
            Kind::EnumValuesRemoved,
            format!(
                "parameter `{name}` now accepts only {}",
                show(&values.iter().collect::<Vec<_>>())
            ),
            true,
        )],
        (Some(_), None) => vec![change(
            tool,
            Kind::EnumValuesAdded,
            format!("parameter `{name}` no longer limits its values to a list"),
            false,
        )],
        (Some(before), Some(after)) => {
            let mut changes = Vec::new();
            let gone: Vec<&Value> = before.iter().filter(|v| !after.contains(v)).collect();
            if !gone.is_empty() {
                changes.push(change(
                    tool,
                    Kind::EnumValuesRemoved,
                    format!("parameter `{name}` no longer accepts {}", show(&gone)),
                    true,
                ));
            }
            let new: Vec<&Value> = after.iter().filter(|v| !before.contains(v)).collect();
            if !new.is_empty() {
                changes.push(change(
                    tool,
                    Kind::EnumValuesAdded,
                    format!("parameter `{name}` also accepts {}", show(&new)),
                    false,
                ));
            }
            changes
        }
    }
}

/// What changed in the output schema, in words (`None`: nothing).
fn compare_outputs(old: Option<&Value>, new: Option<&Value>) -> Option<String> {
    match (old, new) {
        (None, None) => None,
        (Some(a), Some(b)) if a == b => None,
        (None, Some(_)) => Some("now returns structured content (an output schema)".into()),
        (Some(_), None) => Some("no longer returns structured content (no output schema)".into()),
        (Some(old), Some(new)) => {
            let fields = |schema: &Value| -> Vec<String> {
                resolve(schema, schema)
                    .get("properties")
                    .and_then(Value::as_object)
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default()
            };
            let (before, after) = (fields(old), fields(new));
            let quote = |names: Vec<&String>| {
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let removed: Vec<&String> = before.iter().filter(|f| !after.contains(f)).collect();
            let added: Vec<&String> = after.iter().filter(|f| !before.contains(f)).collect();
            let mut parts = Vec::new();
            if !added.is_empty() {
                parts.push(format!("fields added: {}", quote(added)));
            }
            if !removed.is_empty() {
                parts.push(format!("fields removed: {}", quote(removed)));
            }
            Some(if parts.is_empty() {
                "output schema changed".to_string()
            } else {
                format!("output schema changed ({})", parts.join("; "))
            })
        }
    }
}

/// `schema`, with `$ref`s into `root` followed.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..16 {
        let Some(target) = current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        else {
            break;
        };
        current = target;
    }
    current
}

/// A schema's type in words: `integer`, `array of string`, `string or null`, `any`.
fn type_of(schema: &Value, root: &Value) -> String {
    let schema = resolve(schema, root);
    let join = |types: Vec<String>| {
        let mut unique: Vec<String> = Vec::new();
        for t in types {
            if !unique.contains(&t) {
                unique.push(t);
            }
        }
        unique.join(" or ")
    };
    if let Some(variants) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        return join(variants.iter().map(|v| type_of(v, root)).collect());
    }
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        return parts
            .iter()
            .map(|p| type_of(p, root))
            .find(|t| t != "any")
            .unwrap_or_else(|| "any".to_string());
    }
    let name = |t: &str| match t {
        "array" => format!(
            "array of {}",
            schema
                .get("items")
                .map_or("any".to_string(), |items| type_of(items, root))
        ),
        other => other.to_string(),
    };
    match schema.get("type") {
        Some(Value::String(t)) => name(t),
        Some(Value::Array(types)) => {
            join(types.iter().filter_map(Value::as_str).map(name).collect())
        }
        _ => "any".to_string(),
    }
}

/// The values a schema (or the items of an array schema) is limited to.
fn enum_of(schema: &Value, root: &Value) -> Option<Vec<Value>> {
    let schema = resolve(schema, root);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    schema.get("items").and_then(|items| enum_of(items, root))
}

/// The changes as text: one line a change, `BREAKING` or `ok` first, then the tool, then what
/// changed; then a summary line.
pub fn render_text(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "no tool-level changes\n".to_string();
    }
    let tool = |c: &Change| c.tool.clone().unwrap_or_else(|| "(curation)".to_string());
    let width = changes
        .iter()
        .map(|c| tool(c).chars().count())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for change in changes {
        let mark = if change.breaking { "BREAKING" } else { "ok" };
        text.push_str(&format!(
            "{mark:<8}  {:<width$}  {}\n",
            tool(change),
            change.detail
        ));
    }
    let tools: BTreeSet<Option<&String>> = changes.iter().map(|c| c.tool.as_ref()).collect();
    let breaking = changes.iter().filter(|c| c.breaking).count();
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    let places = match (tools.contains(&None), tools.len()) {
        (true, 1) => "the curation file".to_string(),
        (true, n) => format!("{} and the curation file", plural(n - 1, "tool")),
        (false, n) => plural(n, "tool"),
    };
    text.push_str(&format!(
        "\n{} in {places}: {breaking} breaking\n",
        plural(changes.len(), "change"),
    ));
    text
}

/// The changes as JSON: `{"changes": [{tool, kind, detail, breaking}], "breaking": bool}`.
pub fn to_json(changes: &[Change]) -> Value {
    json!({
        "changes": changes,
        "breaking": is_breaking(changes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Annotations, OperationPlan, Server};

    fn server() -> Server {
        Server {
            name: "notes".into(),
            crate_name: "notes-mcp".into(),
            env_prefix: "NOTES".into(),
            title: "Notes".into(),
            api_version: "1".into(),
            description: None,
            instructions: None,
            default_base_url: None,
            auth: Vec::new(),
            tools_list_ttl_ms: 0,
            cache_public: true,
        }
    }

    fn operation(id: &str, method: crate::api::Method, path: &str) -> OperationPlan {
        OperationPlan {
            api_id: id.into(),
            method,
            reads_only: method.is_safe(),
            path: path.into(),
            summary: None,
            fn_name: id.into(),
            params_type: "Params".into(),
            fields: Vec::new(),
            body: None,
            input_schema: json!({}).into(),
            link_paged: false,
            server: None,
            credentials: Vec::new(),
            response: None,
        }
    }

    /// A one-to-one tool `name` calling operation `index`, with these input properties.
    fn tool(name: &str, index: usize, properties: Value, required: &[&str]) -> Tool {
        Tool {
            name: name.into(),
            title: None,
            description: Some(format!("{name}.")),
            input_schema: json!({ "type": "object", "properties": properties, "required": required }),
            output_schema: None,
            annotations: Annotations::default(),
            action: Action::Call {
                operation: index,
                wrap: false,
            },
        }
    }

    fn plan(operations: Vec<OperationPlan>, tools: Vec<Tool>) -> Plan {
        Plan {
            server: server(),
            tools,
            operations,
            enums: Vec::new(),
            resolvers: Vec::new(),
            discovery: None,
            scopes: Vec::new(),
        }
    }

    use crate::api::Method::{Get, Post};

    fn lines(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .map(|c| {
                format!(
                    "{} {} {:?}: {}",
                    if c.breaking { "BREAKING" } else { "ok" },
                    c.tool.as_deref().unwrap_or("-"),
                    c.kind,
                    c.detail
                )
            })
            .collect()
    }

    #[test]
    fn identical_plans_have_no_changes() {
        let p = plan(
            vec![operation("getNote", Get, "/notes/{id}")],
            vec![tool(
                "get_note",
                0,
                json!({"id": {"type": "integer"}}),
                &["id"],
            )],
        );
        assert_eq!(diff(&p, Some(&p.clone()), &[]), []);
        assert!(!is_breaking(&[]));
        assert_eq!(render_text(&[]), "no tool-level changes\n");
    }

    #[test]
    fn parameter_changes_are_breaking_only_when_a_call_that_worked_may_fail() {
        let old = plan(
            vec![operation("listNotes", Get, "/notes")],
            vec![tool(
                "list_notes",
                0,
                json!({
                    "tag": {"type": "string"},
                    "q": {"type": "string"},
                    "limit": {"type": "integer"},
                    "page": {"type": "integer"},
                    "status": {"type": "string", "enum": ["open", "done", "gone"]},
                    "kind": {"$ref": "#/$defs/Kind"},
                }),
                &["page"],
            )],
        );
        let mut new = old.clone();
        new.tools[0].input_schema = json!({
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "limit": {"type": "string"},
                "page": {"type": "integer"},
                "status": {"type": "string", "enum": ["open", "done", "draft"]},
                "kind": {"$ref": "#/$defs/Kind"},
                "sort": {"type": "string"},
                "owner": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["q", "owner"],
            "$defs": {"Kind": {"type": "string", "enum": ["a", "b"]}},
        });
        new.tools[0].input_schema["$defs"] =
            json!({"Kind": {"type": "string", "enum": ["a", "b"]}});
        let mut old = old;
        old.tools[0].input_schema["$defs"] =
            json!({"Kind": {"type": "string", "enum": ["a", "b", "c"]}});
        let changes = diff(&old, Some(&new), &[]);
        assert_eq!(
            lines(&changes),
            [
                "BREAKING list_notes ParameterRemoved: parameter `tag` removed",
                "BREAKING list_notes ParameterRequired: parameter `q` is now required",
                "BREAKING list_notes ParameterType: parameter `limit` type changed from integer to string",
                "ok list_notes ParameterOptional: parameter `page` is now optional",
                "BREAKING list_notes EnumValuesRemoved: parameter `status` no longer accepts `gone`",
                "ok list_notes EnumValuesAdded: parameter `status` also accepts `draft`",
                "BREAKING list_notes EnumValuesRemoved: parameter `kind` no longer accepts `c`",
                "ok list_notes ParameterAdded: parameter `sort` added (optional, string)",
                "BREAKING list_notes ParameterAdded: parameter `owner` added (required, array of string)",
            ]
        );
        assert!(is_breaking(&changes));
    }

    #[test]
    fn a_new_operation_id_for_the_same_method_and_path_is_a_rename() {
        let old = plan(
            vec![
                operation("listTags", Get, "/tags"),
                operation("deleteTag", Post, "/tags/x"),
            ],
            vec![
                tool("list_tags", 0, json!({}), &[]),
                tool("delete_tag", 1, json!({}), &[]),
            ],
        );
        let new = plan(
            vec![
                operation("getTags", Get, "/tags"),
                operation("export", Get, "/export"),
            ],
            vec![
                tool("get_tags", 0, json!({"q": {"type": "string"}}), &[]),
                tool("export", 1, json!({}), &[]),
            ],
        );
        assert_eq!(
            lines(&diff(&old, Some(&new), &[])),
            [
                "BREAKING delete_tag ToolRemoved: tool removed (it called POST /tags/x)",
                "ok export ToolAdded: tool added (it calls GET /export)",
                "BREAKING get_tags ToolRenamed: renamed from `list_tags` (it calls GET /tags)",
                "ok get_tags ParameterAdded: parameter `q` added (optional, string)",
                "ok get_tags Description: description changed",
            ]
        );
    }

    #[test]
    fn outputs_annotations_and_titles_are_noted_without_breaking() {
        let old = plan(
            vec![operation("getNote", Get, "/notes/{id}")],
            vec![tool("get_note", 0, json!({}), &[])],
        );
        let mut new = old.clone();
        let mut before = old.clone();
        before.tools[0].output_schema =
            Some(json!({"type": "object", "properties": {"id": {}, "body": {}}}));
        before.tools[0].annotations = Annotations::from_method(crate::api::Method::Put);
        new.tools[0].output_schema =
            Some(json!({"type": "object", "properties": {"id": {}, "url": {}}}));
        new.tools[0].annotations = Annotations::from_method(Post);
        new.tools[0].title = Some("Note".into());
        let changes = diff(&before, Some(&new), &[]);
        assert_eq!(
            lines(&changes),
            [
                "ok get_note OutputSchema: output schema changed (fields added: `url`; fields removed: `body`)",
                "ok get_note Annotations: idempotentHint true → unset (false)",
                "ok get_note Description: title changed from none to \"Note\"",
            ]
        );
        assert!(!is_breaking(&changes));
        assert_eq!(
            lines(&diff(&old, Some(&before), &[]))[0],
            "ok get_note OutputSchema: now returns structured content (an output schema)"
        );
    }

    #[test]
    fn a_hint_written_as_its_default_and_the_hint_left_unset_are_no_change() {
        let mut old = plan(
            vec![operation("addNote", Post, "/notes")],
            vec![tool("add_note", 0, json!({}), &[])],
        );
        old.tools[0].annotations = Annotations {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(false),
            open_world: Some(true),
        };
        let mut new = old.clone();
        new.tools[0].annotations = Annotations::from_method(Post);
        assert_eq!(lines(&diff(&old, Some(&new), &[])), Vec::<String>::new());
        new.tools[0].annotations = Annotations::from_method(Get);
        assert_eq!(
            lines(&diff(&old, Some(&new), &[])),
            ["ok add_note Annotations: readOnlyHint false → true"]
        );
    }

    #[test]
    fn broken_curated_tools_are_reported_by_their_references_not_as_removed() {
        // Old: the curated tool `archive` calls archiveNote, so it has no one-to-one tool. New:
        // `archive` was left out of the plan (broken), and the plan mirrors archiveNote instead.
        let mut archive = tool("archive", 0, json!({}), &[]);
        archive.action = Action::Curated(Box::new(crate::plan::curated::CuratedTool {
            params: Vec::new(),
            body: CuratedBody::Call {
                operation: 0,
                fixed: Vec::new(),
                paging: None,
            },
            results: Default::default(),
            errors: Vec::new(),
        }));
        let old = plan(
            vec![operation("archiveNote", Post, "/notes/{id}/archive")],
            vec![archive],
        );
        let new = plan(
            vec![operation("archiveNote", Post, "/notes/{id}/archive")],
            vec![tool("archive_note", 0, json!({}), &[])],
        );
        let broken = [
            CurationBreak {
                tool: Some("archive".into()),
                message: "mcpgen.yaml:3:11: operation `archiveNote` has no parameter `id`".into(),
            },
            CurationBreak {
                tool: None,
                message: "mcpgen.yaml:1:1: something else".into(),
            },
        ];
        let changes = diff(&old, Some(&new), &broken);
        assert_eq!(
            lines(&changes),
            [
                "BREAKING - Curation: mcpgen.yaml:1:1: something else",
                "BREAKING archive Curation: mcpgen.yaml:3:11: operation `archiveNote` has no parameter `id`",
            ]
        );
        assert_eq!(lines(&diff(&old, None, &broken)), lines(&changes));
        let text = render_text(&changes);
        assert_eq!(
            text,
            "BREAKING  (curation)  mcpgen.yaml:1:1: something else\n\
             BREAKING  archive     mcpgen.yaml:3:11: operation `archiveNote` has no parameter `id`\n\
             \n\
             2 changes in 1 tool and the curation file: 2 breaking\n"
        );
    }

    #[test]
    fn json_has_the_changes_and_whether_any_breaks() {
        let changes = [change(
            "t",
            Kind::ParameterOptional,
            "parameter `a` is now optional".into(),
            false,
        )];
        assert_eq!(
            to_json(&changes),
            json!({
                "changes": [{"tool": "t", "kind": "parameter_optional", "detail": "parameter `a` is now optional", "breaking": false}],
                "breaking": false,
            })
        );
    }
}
