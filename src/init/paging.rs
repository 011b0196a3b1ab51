//! Guessing pagination: the paging style most of the API's list operations share, its parameters
//! and where the items and the next cursor are.

use serde_json::Value;

use super::resolvers::is_string;
use super::schemas::{properties, type_of};
use super::text::simple_name;
use crate::api::{Api, Location, Method, Operation};
use crate::curate::schema::{only_array, success_schema};

/// The guessed paging style: what it is, its parameters and where the items are.
pub(super) struct Paging {
    /// How many GET operations page this way; 0 when nothing was found.
    pub(super) operations: usize,
    pub(super) style: &'static str,
    /// `(key, parameter)`: `page_param: page`.
    pub(super) params: Vec<(&'static str, String)>,
    pub(super) items: Option<String>,
    pub(super) max_page_size: Option<i64>,
    pub(super) next_cursor: Option<String>,
}

pub(super) const PAGE_PARAMS: &[&str] = &["page", "page_number", "pageNumber", "page_num"];
pub(super) const OFFSET_PARAMS: &[&str] = &["offset", "skip", "start"];
pub(super) const CURSOR_PARAMS: &[&str] = &[
    "cursor",
    "after",
    "starting_after",
    "start_cursor",
    "page_token",
    "pageToken",
    "next_token",
    "nextToken",
    "continuation_token",
    "continuationToken",
    "marker",
];
pub(super) const SIZE_PARAMS: &[&str] = &[
    "per_page",
    "page_size",
    "pageSize",
    "perPage",
    "limit",
    "size",
    "count",
    "max_results",
    "maxResults",
];
pub(super) const NEXT_CURSOR_FIELDS: &[&str] = &[
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
    "next_start_cursor",
    "cursor",
    "next",
];

/// Where a response says the next cursor is (`response_metadata.next_cursor`), up to three
/// fields deep.
pub(super) fn next_cursor_path(root: &Value, schema: &Value, depth: usize) -> Option<String> {
    let fields: Vec<(String, Value)> = properties(root, schema, 0)
        .into_iter()
        .filter(|(name, _)| simple_name(name))
        .collect();
    for wanted in NEXT_CURSOR_FIELDS {
        if let Some((name, value)) = fields.iter().find(|(n, _)| n == wanted)
            && is_string(value)
        {
            return Some(name.clone());
        }
    }
    if depth >= 2 {
        return None;
    }
    fields.iter().find_map(|(name, value)| {
        (type_of(value) == Some("object") || value.get("properties").is_some())
            .then(|| next_cursor_path(root, value, depth + 1).map(|rest| format!("{name}.{rest}")))
            .flatten()
    })
}

pub(super) fn guess_pagination(api: &Api) -> Paging {
    // (style, first parameter, size parameter) and the operations that page that way.
    type Way = (&'static str, &'static str, &'static str);
    let mut counts: Vec<(Way, Vec<&Operation>)> = Vec::new();
    for operation in api.operations.iter().filter(|op| op.method == Method::Get) {
        let query = |name: &str| {
            operation
                .parameters
                .iter()
                .any(|p| p.name == name && p.location == Location::Query)
        };
        let Some(size) = SIZE_PARAMS.iter().find(|n| query(n)) else {
            continue;
        };
        for (style, firsts) in [
            ("page", PAGE_PARAMS),
            ("offset", OFFSET_PARAMS),
            ("cursor", CURSOR_PARAMS),
        ] {
            if let Some(first) = firsts.iter().find(|n| query(n)) {
                if style == "cursor"
                    && success_schema(operation)
                        .and_then(|s| next_cursor_path(s, s, 0))
                        .is_none()
                {
                    continue;
                }
                let key = (style, *first, *size);
                match counts.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, ops)) => ops.push(operation),
                    None => counts.push((key, vec![operation])),
                }
                break;
            }
        }
    }
    // The most common way; the earliest on a tie.
    let best = counts
        .iter()
        .enumerate()
        .max_by_key(|(index, (_, ops))| (ops.len(), std::cmp::Reverse(*index)))
        .map(|(_, found)| found);
    let Some(((style, first, size), ops)) = best else {
        return Paging {
            operations: 0,
            style: "page",
            params: vec![
                ("page_param", "page".into()),
                ("size_param", "per_page".into()),
            ],
            items: None,
            max_page_size: None,
            next_cursor: None,
        };
    };
    let first_key = match *style {
        "page" => "page_param",
        "offset" => "offset_param",
        _ => "cursor_param",
    };
    let operation = ops[0];
    let max_page_size = operation
        .parameters
        .iter()
        .find(|p| p.name == *size)
        .and_then(|p| p.schema.get("maximum"))
        .and_then(Value::as_i64)
        .filter(|max| *max >= 1);
    let items = ops
        .iter()
        .filter_map(|op| success_schema(op).and_then(only_array))
        .find(|path| path.is_empty() || path.split('.').all(simple_name));
    let next_cursor = (*style == "cursor")
        .then(|| success_schema(operation).and_then(|s| next_cursor_path(s, s, 0)))
        .flatten();
    Paging {
        operations: ops.len(),
        style,
        params: vec![
            (first_key, first.to_string()),
            ("size_param", size.to_string()),
        ],
        items,
        max_page_size,
        next_cursor,
    }
}

impl Paging {
    /// The API parameters the server drives when paging.
    pub(super) fn drives(&self, name: &str) -> bool {
        self.operations > 0 && self.params.iter().any(|(_, p)| p == name)
    }
}

/// Names of parameters that page, in any style: never a tool parameter in the example.
pub(super) fn is_paging_name(name: &str, paging: &Paging) -> bool {
    paging.drives(name)
        || PAGE_PARAMS.contains(&name)
        || OFFSET_PARAMS.contains(&name)
        || CURSOR_PARAMS.contains(&name)
        || SIZE_PARAMS.contains(&name)
}
