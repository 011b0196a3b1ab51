//! Writing the example sections: `enums`, `resolvers`, `pagination`, `errors`, the token budgets
//! and the commented curated tool, each from what was guessed.

use super::PLACEHOLDER_PREFIX;
use super::codes::{EnumExample, code_text};
use super::out::Out;
use super::paging::Paging;
use super::resolvers::{ResolverExample, Source};
use super::schemas::object_fields;
use super::text::{capitalized, clip, first_sentence, one_line, scalar, words_of};
use super::tool_example::{ToolExample, result_fields, tool_params};
use crate::api::{Api, Method};

pub(super) fn enums(out: &mut Out, example: &EnumExample, tool: Option<&ToolExample>) {
    let used_by = match (&example.param, tool.and_then(|t| t.enum_param.as_ref())) {
        (Some(_), Some(_)) => format!(
            "readable names for the API's codes (used by `enum: {}` below)",
            example.name
        ),
        _ => "readable names for the API's codes, for `enum: NAME` on parameters and fields"
            .to_string(),
    };
    out.note("# enums:", &used_by);
    let entries: Vec<String> = example
        .entries
        .iter()
        .map(|(name, code)| format!("{}: {}", scalar(name, true), code_text(code)))
        .collect();
    let flow = format!("#   {}: {{ {} }}", example.name, entries.join(", "));
    if entries.len() <= 6 && flow.chars().count() <= 90 {
        out.line(&flow);
    } else {
        out.line(&format!("#   {}:", example.name));
        for entry in entries {
            out.line(&format!("#     {entry}"));
        }
    }
    out.blank();
}

pub(super) fn resolvers_section(out: &mut Out, resolvers: &[ResolverExample]) {
    out.note(
        "# resolvers:",
        "readable values (keys, names, `me`) turned into the API's ids",
    );
    if resolvers.is_empty() {
        let list = format!("{PLACEHOLDER_PREFIX}ListOperation");
        let lookup = format!("{PLACEHOLDER_PREFIX}LookupOperation");
        out.note(
            "#   item:",
            "no operation of this spec fits: put yours in place of the your… names",
        );
        out.note(
            "#     what: item name",
            "for messages: Item name \"X\" not found. Available item names: …",
        );
        out.note(
            &format!("#     list: {list}"),
            "lists every item (pages are walked) and caches it",
        );
        out.note(
            "#     match: [name]",
            "the item fields a value is matched against, case-insensitively",
        );
        out.note("#     id: id", "the item field the API takes");
        out.note(
            &format!("#   other: {{ what: other key, lookup: {lookup} }}"),
            "one call per value instead of a list",
        );
        out.blank();
        return;
    }
    let mut first_list = true;
    for resolver in resolvers {
        match &resolver.source {
            Source::List {
                operation,
                items,
                matching,
                id,
                alias,
            } => {
                let noted = |out: &mut Out, code: String, comment: &str| {
                    if first_list {
                        out.note(&code, comment);
                    } else {
                        out.line(&code);
                    }
                };
                out.line(&format!("#   {}:", resolver.name));
                noted(
                    out,
                    format!("#     what: {}", scalar(&resolver.what, false)),
                    &format!(
                        "for messages: {} \"X\" not found. Available {}s: …",
                        capitalized(&resolver.what),
                        resolver.what
                    ),
                );
                noted(
                    out,
                    format!("#     list: {}", scalar(operation, false)),
                    "lists every item (pages are walked) and caches it",
                );
                if !items.is_empty() {
                    noted(
                        out,
                        format!("#     items: {items}"),
                        "where the items are in its response",
                    );
                }
                noted(
                    out,
                    format!("#     match: [{matching}]"),
                    "the item fields a value is matched against, case-insensitively",
                );
                noted(
                    out,
                    format!("#     id: {id}"),
                    "the item field the API takes",
                );
                if let Some(alias) = alias {
                    out.note(
                        &format!("#     aliases: {{ me: {} }}", scalar(alias, true)),
                        "`me` is whoever the server's credentials belong to",
                    );
                }
                noted(
                    out,
                    "#     cache_seconds: 300".to_string(),
                    "how long a fetched list stays fresh",
                );
                first_list = false;
            }
            Source::Lookup { operation } => {
                out.note(
                    &format!(
                        "#   {}: {{ what: {}, lookup: {} }}",
                        resolver.name,
                        scalar(&resolver.what, true),
                        scalar(operation, true)
                    ),
                    "one call per value instead of a list",
                );
            }
        }
    }
    out.blank();
}

pub(super) fn pagination(out: &mut Out, paging: &Paging) {
    let why = if paging.operations > 0 {
        format!(
            "how the API pages lists (guessed from {} operation{})",
            paging.operations,
            if paging.operations == 1 { "" } else { "s" }
        )
    } else {
        "how the API pages lists (none found in the spec: an example)".to_string()
    };
    out.note("# pagination:", &why);
    out.note(
        &format!("#   style: {}", paging.style),
        "page | offset | cursor | link (a `Link: rel=\"next\"` header)",
    );
    for (key, param) in &paging.params {
        out.line(&format!("#   {key}: {}", scalar(param, false)));
    }
    if let Some(next) = &paging.next_cursor {
        out.note(
            &format!("#   next_cursor: {}", scalar(next, false)),
            "where the next cursor is in a response",
        );
    }
    if let Some(items) = &paging.items {
        out.note(
            &format!("#   items: {}", scalar(items, false)),
            "where the items are in a response",
        );
    }
    match paging.max_page_size {
        Some(max) => out.note(
            &format!("#   max_page_size: {max}"),
            "the largest page the API gives",
        ),
        None => out.note(
            "#   max_page_size: 100",
            "the largest page the API gives (default 100)",
        ),
    }
    out.blank();
}

pub(super) fn errors(out: &mut Out, auth_env: Option<&str>) {
    out.note(
        "# errors:",
        "messages for API errors by status, for every tool",
    );
    let who = match auth_env {
        Some(env) => {
            format!("The user must set {env} to valid credentials and restart the server;")
        }
        None => "The user must configure the server's credentials and restart it;".to_string(),
    };
    out.line(&format!(
        "#   401: The API refused the server's credentials. {who} calling again will not help."
    ));
    out.line("#   429: The API is limiting how fast the server may call it. Wait a minute before calling again.");
    out.blank();
}

/// Where the budgets line goes, until the rest of the file is written and can be measured.
pub(super) const BUDGETS_MARK: &str = "# mcpgen:budgets";

/// `text` with its budgets line: an example the starter fits as written, with the figures of the
/// tools the file as written generates (measured by planning it, as `mcpgen tools` does), so that
/// uncommenting it gives limits to tighten while curating. A starter that does not check (which
/// would be a bug of `init`) gets the line without figures rather than figures that are not true.
pub(super) fn budgets(text: String, api: &Api, file: &str) -> String {
    let measured = crate::curate::check_text(std::path::Path::new(file), &text, api)
        .ok()
        .and_then(|checked| {
            crate::plan::plan(api, &crate::Options::default(), Some(&checked.model)).ok()
        })
        .map(|plan| crate::lint::tool_tokens(&plan));
    let mut out = Out::default();
    match measured {
        Some(tokens) => {
            let heaviest = tokens.iter().copied().max().unwrap_or(0);
            let total: usize = tokens.iter().sum();
            let round_up = |value: usize, step: usize| value.div_ceil(step) * step;
            let per_tool = round_up(heaviest + heaviest / 4, 100).max(800);
            let all = round_up(total + total / 4, 1000).max(8000);
            out.note(
                &format!("# budgets: {{ per_tool: {per_tool}, total: {all} }}"),
                &format!(
                    "token limits; as written the heaviest tool takes ~{heaviest} and all {} ~{total}: lower them as you curate",
                    tokens.len()
                ),
            );
        }
        None => out.note(
            "# budgets: { per_tool: 800, total: 8000 }",
            "token limits for tools/list: lower them as you curate",
        ),
    }
    text.replacen(&format!("{BUDGETS_MARK}\n"), &out.text, 1)
}

pub(super) fn tools(
    out: &mut Out,
    api: &Api,
    tool: Option<&ToolExample>,
    enum_example: &EnumExample,
    resolvers: &[ResolverExample],
    paging: &Paging,
    prefix: &str,
) {
    out.note(
        "# tools:",
        "a few tools shaped for the model's tasks, not one per operation",
    );
    let Some(tool) = tool else {
        out.note(
            "#   do_something:",
            "the spec has no operations: put yours in place of the your… name",
        );
        out.line("#     title: Do something");
        out.line("#     description: Say what the tool does and when to use it, for the model.");
        out.line(&format!("#     call: {PLACEHOLDER_PREFIX}Operation"));
        return;
    };
    let operation = &api.operations[tool.operation];
    out.note(
        &format!("#   {}:", tool.name),
        &format!("the tool is {prefix}{}", tool.name),
    );
    let title = operation
        .summary
        .as_deref()
        .map(|s| clip(one_line(s).trim_end_matches('.'), 60))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| capitalized(&words_of(&operation.id)));
    out.line(&format!("#     title: {}", scalar(&title, false)));
    out.note(
        "#     description: >-",
        "what it does and when to use it, written for the model",
    );
    let mut description = operation
        .summary
        .as_deref()
        .or(operation.description.as_deref())
        .map(|s| first_sentence(s, 200))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("Calls {}", one_line(&operation.id)));
    if !description.ends_with(['.', '!', '?', '…']) {
        description.push('.');
    }
    if tool.listing.is_some() {
        description.push_str(
            " Returns at most `limit` results, in the concise format unless you need every field; \
             if more match, the result says so: narrow the search instead of raising the limit.",
        );
    }
    out.prose("#       ", &description);
    out.note(
        &format!("#     call: {}", scalar(&operation.id, false)),
        "one operation; `steps:` runs several in order (see the README)",
    );

    let params = tool_params(operation, tool, enum_example, resolvers, paging);
    if !params.is_empty() {
        out.note(
            "#     params:",
            "in the order the model sees them; parameters not listed are hidden",
        );
        for (index, param) in params.iter().enumerate() {
            out.line(&format!("#       {}:", param.name));
            let from = format!("#         from: {}", scalar(&param.from, false));
            if index == 0 {
                out.note(&from, "the API parameter it fills");
            } else {
                out.line(&from);
            }
            if let Some(resolver) = &param.resolve {
                out.note(
                    &format!("#         resolve: {resolver}"),
                    param.comment.as_deref().unwrap_or(""),
                );
            }
            if let Some(name) = &param.enumerated {
                out.note(
                    &format!("#         enum: {name}"),
                    param.comment.as_deref().unwrap_or(""),
                );
            }
            if let Some(description) = &param.description {
                let code = format!("#         description: {}", scalar(description, false));
                if index == 0 {
                    out.note(&code, "default: the API's; `null` for none");
                } else {
                    out.line(&code);
                }
            }
            if let Some(header) = &param.header {
                out.note(
                    &format!("#         header: {header}"),
                    &format!("clients over Streamable HTTP also send it as Mcp-Param-{header}"),
                );
            }
        }
    }

    let (fields, listed) = match &tool.listing {
        Some(listing) => (listing.fields.clone(), true),
        None => (object_fields(operation), false),
    };
    if listed || !fields.is_empty() {
        out.note("#     results:", "how the result is shaped for the model");
        if let Some(listing) = &tool.listing {
            out.note(
                &format!("#       items: {}", scalar(&listing.items, false)),
                "where the list is in the response",
            );
            out.note(
                "#       limit: { default: 20, max: 50 }",
                "adds a `limit` parameter; pages are walked up to it",
            );
        }
        let (concise, detailed) = result_fields(&fields, enum_example, resolvers);
        if !concise.is_empty() {
            out.note(
                "#       fields:",
                "the concise format: only these, renamed, in this order",
            );
            for (key, spec) in &concise {
                out.line(&format!("#         {key}: {spec}"));
            }
            if !detailed.is_empty() {
                out.note(
                    "#       detailed_fields:",
                    "added with `response_format: detailed`",
                );
                for (key, spec) in &detailed {
                    out.line(&format!("#         {key}: {spec}"));
                }
            }
        }
        if listed {
            out.note(
                "#       truncated_message: >-",
                "sent with a result cut at the limit",
            );
            out.line("#         More results match than were returned. Narrow the search instead of raising the limit.");
        }
    }
    let annotations = match operation.method {
        Method::Get | Method::Head | Method::Options => {
            "{ readOnlyHint: true, openWorldHint: false }".to_string()
        }
        method => format!(
            "{{ readOnlyHint: false, destructiveHint: {}, idempotentHint: {}, openWorldHint: false }}",
            method == Method::Delete,
            matches!(method, Method::Put | Method::Delete)
        ),
    };
    out.note(
        &format!("#     annotations: {annotations}"),
        "as written; without them, the HTTP method decides",
    );
}
