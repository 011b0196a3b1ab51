//! What the examples are made of: the types and properties of schemas, the operations that list
//! things, and the noun an operation is about.

use serde_json::Value;

use super::text::simple_name;
use crate::api::{Method, Operation};
use crate::curate::schema::{only_array, schema_at, success_schema};
use crate::naming;

/// The declared `type` of a schema (the first that is not `null`).
pub(super) fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

/// `schema` with a `$ref` into `root` followed.
pub(super) fn deref<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(schema),
        None => schema,
    }
}

/// The properties of an object schema (merged across `allOf`), by name.
pub(super) fn properties(root: &Value, schema: &Value, depth: usize) -> Vec<(String, Value)> {
    let schema = deref(root, schema);
    let mut found: Vec<(String, Value)> = Vec::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        found.extend(
            props
                .iter()
                .map(|(k, v)| (k.clone(), deref(root, v).clone())),
        );
    }
    if depth < 4 {
        for part in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for (name, value) in properties(root, part, depth + 1) {
                if !found.iter().any(|(n, _)| *n == name) {
                    found.push((name, value));
                }
            }
        }
    }
    found
}

/// Where a response's list usually is.
pub(super) const LIST_FIELDS: &[&str] = &[
    "items", "data", "results", "records", "entries", "values", "list", "elements", "objects",
];
/// Operations whose name says they list.
pub(super) const LIST_VERBS: &[&str] = &["list", "search", "find", "query", "browse", "all"];

/// A GET operation that returns a list of objects: where the list is and its items' fields.
pub(super) struct Listing {
    pub(super) items: String,
    pub(super) fields: Vec<(String, Value)>,
}

pub(super) fn listing(operation: &Operation) -> Option<Listing> {
    if operation.method != Method::Get {
        return None;
    }
    let schema = success_schema(operation)?;
    let items = only_array(schema)?;
    if !items
        .split('.')
        .all(|part| items.is_empty() || simple_name(part))
    {
        return None;
    }
    // The list must be what the operation is about, not a list inside one object.
    let about_lists = items.is_empty()
        || LIST_FIELDS.contains(&items.as_str())
        || naming::snake(&operation.id).is_some_and(|id| {
            id.split('_')
                .next()
                .is_some_and(|verb| LIST_VERBS.contains(&verb))
        });
    if !about_lists {
        return None;
    }
    let list = schema_at(schema, &items).ok()??;
    let item = list.get("items")?;
    let fields: Vec<(String, Value)> = properties(schema, item, 0)
        .into_iter()
        .filter(|(name, _)| simple_name(name))
        .collect();
    (!fields.is_empty()).then_some(Listing { items, fields })
}

/// The fields of an operation's single-object response.
pub(super) fn object_fields(operation: &Operation) -> Vec<(String, Value)> {
    let Some(schema) = success_schema(operation) else {
        return Vec::new();
    };
    if crate::curate::schema::is_array(schema) {
        return Vec::new();
    }
    properties(schema, schema, 0)
        .into_iter()
        .filter(|(name, _)| simple_name(name))
        .collect()
}

pub(super) const VERBS: &[&str] = &[
    "list", "get", "find", "search", "fetch", "query", "read", "retrieve", "all", "show", "lookup",
    "browse", "index",
];

/// Words that only qualify what an operation lists (`getMyFilters`, `getRecent` projects).
pub(super) const QUALIFIERS: &[&str] = &["my", "all", "recent"];

/// A singular noun for what an operation returns: `listProjects` → `project`,
/// `findPetsByStatus` → `pet`.
pub(super) fn noun_of(operation: &Operation) -> Option<String> {
    // The id's last segment names the operation: `issues/list-labels-for-repo` lists labels.
    let last = operation.id.rsplit('/').next().unwrap_or_default();
    let snake = naming::snake(last).unwrap_or_default();
    let mut words: Vec<&str> = snake.split('_').filter(|w| !w.is_empty()).collect();
    // `searchForIssuesUsingJql`, `getMyFilters`, `getIssueAllTypes`: verbs and what only
    // qualifies the noun go.
    words.retain(|w| !QUALIFIERS.contains(w));
    while words
        .first()
        .is_some_and(|w| VERBS.contains(w) || *w == "for")
    {
        words.remove(0);
    }
    if let Some(by) = words
        .iter()
        .position(|w| matches!(*w, "by" | "for" | "using" | "with"))
    {
        words.truncate(by);
    }
    // `getDashboardsPaginated` lists dashboards.
    while words.len() > 1
        && words
            .last()
            .is_some_and(|w| matches!(*w, "paginated" | "page"))
    {
        words.pop();
    }
    if words.is_empty() {
        let segment = operation.path.split('/').rev().find(|s| {
            let lower = s.to_ascii_lowercase();
            !s.is_empty()
                && !s.starts_with('{')
                && !lower.starts_with("by")
                && !VERBS.contains(&lower.as_str())
                && !QUALIFIERS.contains(&lower.as_str())
        })?;
        return naming::snake(segment).map(|s| naming::singular(&s));
    }
    let start = words.len().saturating_sub(2);
    let noun = words[start..].join("_");
    Some(naming::singular(&noun))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operation(id: &str, path: &str) -> Operation {
        Operation {
            id: id.into(),
            method: crate::api::Method::Get,
            path: path.into(),
            summary: None,
            description: None,
            tags: Vec::new(),
            deprecated: false,
            declared_read_only: false,
            parameters: Vec::new(),
            body: None,
            success: None,
            security: None,
            server: None,
            credentials: Vec::new(),
        }
    }

    #[test]
    fn a_resolvers_noun_leaves_out_verbs_qualifiers_and_paging_words() {
        let noun = |id: &str, path: &str| noun_of(&operation(id, path));
        assert_eq!(
            noun("listProjects", "/projects").as_deref(),
            Some("project")
        );
        assert_eq!(
            noun("findPetsByStatus", "/pet/findByStatus").as_deref(),
            Some("pet")
        );
        assert_eq!(
            noun("searchForIssuesUsingJql", "/rest/api/3/search").as_deref(),
            Some("issue")
        );
        assert_eq!(
            noun("getDashboardsPaginated", "/rest/api/3/dashboard/search").as_deref(),
            Some("dashboard")
        );
        assert_eq!(
            noun("getIssueAllTypes", "/rest/api/3/issuetype").as_deref(),
            Some("issue_type")
        );
        assert_eq!(
            noun("getMyFilters", "/rest/api/3/filter/my").as_deref(),
            Some("filter")
        );
        assert_eq!(
            noun("getStatuses", "/rest/api/3/status").as_deref(),
            Some("status")
        );
        assert_eq!(
            noun("getRecent", "/rest/api/3/project/recent").as_deref(),
            Some("project")
        );
        assert_eq!(noun("listBoxes", "/boxes").as_deref(), Some("box"));
    }
}
