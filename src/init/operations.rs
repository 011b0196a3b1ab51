//! The `operations` section: every operation of the API listed by tag, and the `discovery`
//! example.

use super::out::Out;
use super::text::{clip, first_sentence, one_line, scalar};
use crate::api::{Api, Method, Operation};

/// The tag an operation is listed under: its first, or none.
pub(super) fn group_of(operation: &Operation) -> Option<&str> {
    operation.tags.first().map(String::as_str)
}

/// The tags in the order operations first use them.
pub(super) fn tag_order(api: &Api) -> Vec<&str> {
    let mut tags: Vec<&str> = Vec::new();
    for operation in &api.operations {
        if let Some(tag) = group_of(operation)
            && !tags.contains(&tag)
        {
            tags.push(tag);
        }
    }
    tags
}

/// A path glob for the `include` example: a parent path with `/*`, deeper and matching more
/// operations first.
pub(super) fn path_glob_example(api: &Api) -> Option<String> {
    let mut best: Option<(usize, usize, String)> = None;
    for operation in &api.operations {
        let segments: Vec<&str> = operation
            .path
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        if segments.len() < 2
            || segments[..segments.len() - 1]
                .iter()
                .any(|s| s.contains(['{', '}', '*']))
        {
            continue;
        }
        let glob = format!("/{}/*", segments[..segments.len() - 1].join("/"));
        let matched = api
            .operations
            .iter()
            .filter(|op| crate::curate::semantics::glob_matches(&glob, &op.path))
            .count();
        let rank = (usize::from(segments.len() >= 3), matched);
        if best
            .as_ref()
            .is_none_or(|(deep, count, _)| rank > (*deep, *count))
        {
            best = Some((rank.0, rank.1, glob));
        }
    }
    best.map(|(_, _, glob)| glob)
}

/// The heading of the untagged operations in the listing.
pub const UNTAGGED: &str = "(no tag)";

/// A commented `discovery` section: how the operations without a tool stay reachable.
pub(super) fn discovery(out: &mut Out, api: &Api) {
    out.prose(
        "# ",
        &format!(
            "Discovery tools search, describe and call the operations that have no tool of their \
             own, so that curated tools and the rest of the API's {} operations fit in one server. \
             Uncomment with `mirror: none` above; `read_only: true` keeps writes out.",
            api.operations.len()
        ),
    );
    out.line("# discovery: { read_only: false, exclude: [{ method: DELETE }] }");
    out.blank();
}

pub(super) fn operations(out: &mut Out, api: &Api, prefix: &str) {
    out.line("operations:");
    out.note(
        "  mirror: all",
        "each operation below is a tool; `none` once your tools suffice",
    );
    let delete = api.operations.iter().find(|op| op.method == Method::Delete);
    let hide_example = delete.or(api.operations.last()).map_or_else(
        || "[deleteThing]".to_string(),
        |op| format!("[{}]", scalar(&op.id, true)),
    );
    out.note(
        "  hide: []",
        &format!("operationIds with no tool, no client code: {hide_example}"),
    );

    let mut include = Vec::new();
    if let Some(tag) = tag_order(api).first() {
        include.push(format!("{{ tag: {} }}", scalar(tag, true)));
    }
    if let Some(glob) = path_glob_example(api) {
        include.push(format!("{{ path: {} }}", scalar(&glob, true)));
    }
    if !include.is_empty() {
        out.note(
            &format!("  # include: [{}]", include.join(", ")),
            "mirror only operations matching one of these",
        );
    }
    let mut exclude = Vec::new();
    if let Some(op) = delete {
        exclude.push("{ method: DELETE }".to_string());
        exclude.push(format!("{{ operation: {} }}", scalar(&op.id, true)));
    } else if let Some(op) = api.operations.last() {
        exclude.push(format!("{{ method: {} }}", op.method.as_upper()));
        exclude.push(format!("{{ operation: {} }}", scalar(&op.id, true)));
    }
    if !exclude.is_empty() {
        out.note(
            &format!("  # exclude: [{}]", exclude.join(", ")),
            "and none of these",
        );
    }

    out.line("  #");
    if api.operations.is_empty() {
        out.line("  # The spec has no operations.");
        out.blank();
        return;
    }
    let count = api.operations.len();
    out.prose(
        "  # ",
        &format!(
            "The {count} operation{} of the API by tag; with `mirror: all` each is the tool \
             {prefix}<operationId in snake_case>:",
            if count == 1 { "" } else { "s" }
        ),
    );
    let rows: Vec<(String, &str, String, String)> = api
        .operations
        .iter()
        .map(|op| {
            let about = op
                .summary
                .as_deref()
                .filter(|s| !one_line(s).is_empty())
                .or(op.description.as_deref())
                .map(|s| first_sentence(s, 100))
                .unwrap_or_default();
            let about = match (about.is_empty(), op.deprecated) {
                (true, false) => String::new(),
                (true, true) => "(deprecated)".to_string(),
                (false, false) => about,
                (false, true) => format!("(deprecated) {about}"),
            };
            (
                one_line(&op.id),
                op.method.as_upper(),
                one_line(&op.path),
                about,
            )
        })
        .collect();
    let id_width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let method_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let path_width = rows
        .iter()
        .map(|r| r.2.chars().count())
        .max()
        .unwrap_or(0)
        .min(60);
    let row = |(id, method, path, about): &(String, &str, String, String)| {
        let mut line = format!(
            "  #   {id}{}  {method}{}  {path}",
            " ".repeat(id_width - id.chars().count()),
            " ".repeat(method_width - method.len())
        );
        if !about.is_empty() {
            line.push_str(&" ".repeat(path_width.saturating_sub(path.chars().count())));
            line.push_str("  — ");
            line.push_str(about);
        }
        line
    };
    let mut groups: Vec<Option<&str>> = tag_order(api).into_iter().map(Some).collect();
    if api.operations.iter().any(|op| group_of(op).is_none()) {
        groups.push(None);
    }
    for group in groups {
        out.line("  #");
        out.line(&format!(
            "  # {}",
            group.map_or_else(|| UNTAGGED.to_string(), |tag| clip(&one_line(tag), 80))
        ));
        for (op, columns) in api.operations.iter().zip(&rows) {
            if group_of(op) == group {
                out.line(&row(columns));
            }
        }
    }
    out.blank();
}
