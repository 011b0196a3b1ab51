//! Guessing resolvers: which list operations turn a readable value (a project's key) into the id
//! another operation takes.

use serde_json::Value;

use super::schemas::{LIST_FIELDS, LIST_VERBS, listing, noun_of, object_fields, type_of};
use super::text::{simple_name, words_of};
use crate::api::{Api, Location, Method};
use crate::curate::schema::{only_array, operation_inputs, success_schema};
use crate::naming;

/// The item fields a readable value is matched against, best first.
pub(super) const MATCH_FIELDS: &[&str] = &[
    "key",
    "slug",
    "username",
    "login",
    "handle",
    "name",
    "email",
    "title",
    "display_name",
];
/// Match fields that already say what they are (`username`, not `user username`).
pub(super) const SELF_DESCRIBING: &[&str] = &["username", "login", "handle", "email", "slug"];

/// A resolver the examples show.
pub(super) struct ResolverExample {
    pub(super) name: String,
    pub(super) what: String,
    pub(super) source: Source,
}

pub(super) enum Source {
    List {
        operation: String,
        items: String,
        matching: String,
        id: String,
        alias: Option<String>,
    },
    Lookup {
        operation: String,
    },
}

pub(super) fn is_string(schema: &Value) -> bool {
    matches!(type_of(schema), Some("string") | None)
}

pub(super) fn ends_with_id(name: &str) -> bool {
    let snake = naming::snake(name).unwrap_or_default();
    snake == "id"
        || snake == "ids"
        || snake.ends_with("_id")
        || snake.ends_with("uuid")
        || snake.ends_with("_ids")
}

/// The resolvers the spec's operations allow: lists of items with a readable field and an id,
/// and lookups by one readable value.
pub(super) fn find_resolvers(api: &Api) -> Vec<ResolverExample> {
    let mut found: Vec<ResolverExample> = Vec::new();
    for operation in &api.operations {
        let Some(listing) = listing(operation) else {
            continue;
        };
        if operation_inputs(operation)
            .iter()
            .any(|(_, _, required)| *required)
        {
            continue;
        }
        let Some(noun) = noun_of(operation) else {
            continue;
        };
        if found.iter().any(|r| r.name == noun) || !simple_name(&noun) {
            continue;
        }
        let field = |name: &str| listing.fields.iter().find(|(n, _)| n == name);
        let Some(id) = ["id", "uuid"]
            .into_iter()
            .find(|n| field(n).is_some())
            .map(str::to_string)
            .or_else(|| {
                listing
                    .fields
                    .iter()
                    .find(|(n, _)| naming::snake(n).as_deref() == Some(&format!("{noun}_id")))
                    .map(|(n, _)| n.clone())
            })
        else {
            continue;
        };
        let Some(matching) = MATCH_FIELDS
            .iter()
            .find(|n| field(n).is_some_and(|(_, schema)| is_string(schema)) && **n != id)
        else {
            continue;
        };
        let what = if SELF_DESCRIBING.contains(matching) || matching.starts_with(noun.as_str()) {
            words_of(matching)
        } else {
            format!("{} {}", words_of(&noun), words_of(matching))
        };
        let alias = api.operations.iter().find(|op| {
            let words = naming::snake(&op.id).unwrap_or_default();
            let me_like = words
                .split('_')
                .any(|w| matches!(w, "me" | "current" | "self" | "whoami" | "myself"))
                || op
                    .path
                    .rsplit('/')
                    .next()
                    .is_some_and(|s| matches!(s, "me" | "self" | "whoami"));
            let fields = object_fields(op);
            op.method == Method::Get
                && op.id != operation.id
                && me_like
                && op.parameters.iter().all(|p| !p.required)
                && op.body.is_none()
                && fields.iter().any(|(n, _)| *n == id)
                && fields.iter().any(|(n, _)| n == matching)
        });
        found.push(ResolverExample {
            name: noun,
            what,
            source: Source::List {
                operation: operation.id.clone(),
                items: listing.items,
                matching: matching.to_string(),
                id,
                alias: alias.map(|op| op.id.clone()),
            },
        });
    }
    for operation in &api.operations {
        // A lookup gets one thing: `getIssueByKey`, not `listGroupMembers`.
        // The verb starts the id's last segment: `users/get-by-username`, `getIssueByKey`.
        let last = operation.id.rsplit('/').next().unwrap_or_default();
        let verb = naming::snake(last).unwrap_or_default();
        let verb = verb.split('_').next().unwrap_or_default();
        if operation.method != Method::Get
            || LIST_VERBS.contains(&verb)
            || object_fields(operation).is_empty()
            || success_schema(operation)
                .and_then(only_array)
                .is_some_and(|items| items.is_empty() || LIST_FIELDS.contains(&items.as_str()))
        {
            continue;
        }
        let inputs = operation_inputs(operation);
        let required: Vec<_> = inputs.iter().filter(|(_, _, r)| *r).collect();
        let [(param, schema, _)] = required.as_slice() else {
            continue;
        };
        let Some(parameter) = operation.parameters.iter().find(|p| p.name == *param) else {
            continue;
        };
        if !matches!(parameter.location, Location::Path | Location::Query)
            || ends_with_id(param)
            || !is_string(schema)
            || schema.get("enum").is_some()
        {
            continue;
        }
        // What the value names must be what the operation gets: `issue_key` for an issue.
        // A parameter named for the thing itself (`/invoices/{invoice}`) is its id already: a
        // lookup is for a readable value that is not the id (a key, a name, a login).
        let snake = naming::snake(param).unwrap_or_default();
        let name = match snake.as_str() {
            "username" | "user_name" | "login" | "handle" => "user".to_string(),
            _ => match ["_key", "_name", "_slug", "_code", "_handle"]
                .iter()
                .find_map(|suffix| snake.strip_suffix(suffix))
            {
                Some(stem) => stem.to_string(),
                None => continue,
            },
        };
        let gets = noun_of(operation).unwrap_or_default();
        if (gets != name && !gets.ends_with(&format!("_{name}")))
            || found.iter().any(|r| r.name == name)
            || !simple_name(&name)
        {
            continue;
        }
        found.push(ResolverExample {
            name,
            what: words_of(param),
            source: Source::Lookup {
                operation: operation.id.clone(),
            },
        });
    }
    found
}

/// The resolver that turns a readable value into the id parameter `param` takes (`project_id`).
pub(super) fn resolver_for<'r>(
    param: &str,
    resolvers: &'r [ResolverExample],
) -> Option<&'r ResolverExample> {
    let snake = naming::snake(param)?;
    let stem = snake.strip_suffix("_id")?;
    resolvers.iter().find(|r| r.name == stem)
}
