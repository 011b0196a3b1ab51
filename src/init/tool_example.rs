//! The tool example: the operation the commented curated tool is made from, with its parameters
//! and result fields.

use std::collections::BTreeSet;

use serde_json::Value;

use super::codes::{EnumExample, enum_param};
use super::paging::{Paging, is_paging_name};
use super::resolvers::{MATCH_FIELDS, ResolverExample, Source, ends_with_id, resolver_for};
use super::schemas::{Listing, listing, noun_of, type_of};
use super::text::{capitalized, first_sentence};
use crate::api::{Api, Method, Operation};
use crate::curate::schema::operation_inputs;
use crate::naming;

pub(super) struct ToolExample {
    pub(super) operation: usize,
    /// What the operation returns, for names (`issue`).
    pub(super) noun: Option<String>,
    pub(super) listing: Option<Listing>,
    /// The enum parameter the example maps: its name, codes and description.
    pub(super) enum_param: Option<(String, Vec<Value>, Option<String>)>,
    pub(super) name: String,
}

/// The operation the tool example calls: the list operation with the most to show (a
/// parameter a resolver fills, an enum, filters), else the first GET, else the first.
pub(super) fn pick_tool(
    api: &Api,
    resolvers: &[ResolverExample],
    paging: &Paging,
    prefix: &str,
) -> Option<ToolExample> {
    let score = |op: &Operation| {
        let inputs = operation_inputs(op);
        let resolvable = inputs
            .iter()
            .any(|(name, _, _)| resolver_for(name, resolvers).is_some());
        let enumerated = enum_param(op, &[]).is_some();
        let filters = inputs
            .iter()
            .filter(|(name, _, required)| !required && !is_paging_name(name, paging))
            .count()
            .min(3);
        4 * usize::from(resolvable) + 2 * usize::from(enumerated) + filters
    };
    let usable = |op: &Operation| op.body.is_none() || op.method != Method::Get;
    let listed = api
        .operations
        .iter()
        .enumerate()
        .filter(|(_, op)| usable(op) && listing(op).is_some())
        .max_by_key(|(index, op)| (score(op), std::cmp::Reverse(*index)))
        .map(|(index, _)| index);
    let index = listed
        .or_else(|| {
            api.operations
                .iter()
                .position(|op| op.method == Method::Get)
        })
        .or(if api.operations.is_empty() {
            None
        } else {
            Some(0)
        })?;
    let operation = &api.operations[index];
    let mut name = naming::snake(&operation.id).unwrap_or_else(|| "tool".into());
    let room = naming::MAX_TOOL_NAME.saturating_sub(prefix.len()).max(1);
    if name.len() > room {
        name = name[..room].trim_end_matches('_').to_string();
    }
    let resolved: Vec<&str> = operation
        .parameters
        .iter()
        .filter(|p| resolver_for(&p.name, resolvers).is_some())
        .map(|p| p.name.as_str())
        .collect();
    Some(ToolExample {
        operation: index,
        noun: noun_of(operation),
        listing: listing(operation),
        enum_param: enum_param(operation, &resolved),
        name,
    })
}

pub(super) struct ParamExample {
    pub(super) name: String,
    pub(super) from: String,
    pub(super) resolve: Option<String>,
    pub(super) enumerated: Option<String>,
    pub(super) description: Option<String>,
    pub(super) header: Option<String>,
    pub(super) comment: Option<String>,
}

/// `Mcp-Param-<name>` header name for a tool parameter (`issue_key` → `Issue-Key`).
pub(super) fn header_name(param: &str) -> String {
    param
        .split('_')
        .filter(|w| !w.is_empty())
        .map(capitalized)
        .collect::<Vec<_>>()
        .join("-")
}

pub(super) fn tool_params(
    operation: &Operation,
    tool: &ToolExample,
    enum_example: &EnumExample,
    resolvers: &[ResolverExample],
    paging: &Paging,
) -> Vec<ParamExample> {
    let inputs = operation_inputs(operation);
    // Every required input, then optional ones worth showing: one a resolver fills, the enum,
    // and a plain filter; four at most unless more are required.
    let mut chosen: Vec<&(String, Value, bool)> =
        inputs.iter().filter(|(_, _, required)| *required).collect();
    type Pick<'p> = &'p dyn Fn(&str, &Value) -> bool;
    let picks: [Pick; 3] = [
        &|name, _| resolver_for(name, resolvers).is_some(),
        &|name, _| tool.enum_param.as_ref().is_some_and(|(p, _, _)| p == name),
        &|name, schema| {
            resolver_for(name, resolvers).is_none()
                && !ends_with_id(name)
                && schema.get("enum").is_none()
                && matches!(
                    type_of(schema),
                    Some("string" | "integer" | "number" | "boolean")
                )
        },
    ];
    for pick in picks {
        if chosen.len() >= 4 {
            break;
        }
        let found = inputs.iter().find(|(name, schema, required)| {
            !required
                && !is_paging_name(name, paging)
                && !chosen.iter().any(|c| c.0 == *name)
                && pick(name, schema)
        });
        chosen.extend(found);
    }
    let mut taken: BTreeSet<String> = ["limit", "response_format"]
        .into_iter()
        .map(String::from)
        .collect();
    let mut params = Vec::new();
    let mut header_given = false;
    for (from, schema, _) in chosen {
        let resolver = resolver_for(from, resolvers);
        // The example enum's parameter may be another operation's of the same name: only a
        // parameter that takes one value gets `enum` (check refuses it on a list).
        let enumerated = (enum_example.param.as_deref() == Some(from.as_str())
            && resolver.is_none()
            && !crate::curate::schema::is_array(schema))
        .then(|| enum_example.name.clone());
        let base = match resolver {
            Some(r) => r.name.clone(),
            None => naming::snake(from).unwrap_or_else(|| "value".into()),
        };
        let mut name = base.clone();
        let mut n = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}_{n}");
            n += 1;
        }
        let api_description = operation
            .parameters
            .iter()
            .find(|p| p.name == *from)
            .and_then(|p| p.description.clone())
            .or_else(|| {
                schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .map(|d| first_sentence(&d, 90))
            .filter(|d| !d.is_empty());
        let (description, comment) = if let Some(r) = resolver {
            (
                Some(capitalized(&r.what)),
                Some(format!(
                    "the model passes a {}, the API gets the id",
                    r.what
                )),
            )
        } else if enumerated.is_some() {
            let names: Vec<&str> = enum_example
                .entries
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            let shown = match names.as_slice() {
                [] => String::new(),
                [one] => (*one).to_string(),
                [rest @ .., last] if names.len() <= 6 => format!("{} or {last}", rest.join(", ")),
                _ => format!("{}, …", names[..5].join(", ")),
            };
            (
                Some(format!("One of {shown}")),
                Some("readable names in, the API's codes out".to_string()),
            )
        } else {
            (api_description, None)
        };
        let header = (!header_given && (resolver.is_some() || type_of(schema) == Some("string")))
            .then(|| header_name(&name))
            .filter(|h| !h.is_empty());
        header_given |= header.is_some();
        params.push(ParamExample {
            name,
            from: from.clone(),
            resolve: resolver.map(|r| r.name.clone()),
            enumerated,
            description,
            header,
            comment,
        });
    }
    params
}

/// Fields of a shaped result: `(name in the result, how it is written)`.
pub(super) type ResultFields = Vec<(String, String)>;

/// The fields of a shaped result, concise and detailed.
pub(super) fn result_fields(
    fields: &[(String, Value)],
    enum_example: &EnumExample,
    resolvers: &[ResolverExample],
) -> (ResultFields, ResultFields) {
    #[derive(Default)]
    struct Picked<'f> {
        keys: BTreeSet<String>,
        used: BTreeSet<&'f str>,
    }
    impl<'f> Picked<'f> {
        fn add(
            &mut self,
            list: &mut Vec<(String, String)>,
            key: String,
            from: &'f str,
            spec: String,
        ) {
            if !self.used.contains(from) && self.keys.insert(key.clone()) {
                self.used.insert(from);
                list.push((key, spec));
            }
        }
    }
    let key = |name: &str| naming::snake(name).unwrap_or_else(|| name.to_string());
    let mut picked = Picked::default();
    let mut concise: Vec<(String, String)> = Vec::new();
    for label in MATCH_FIELDS.iter().chain(["summary"].iter()) {
        if concise.len() >= 2 {
            break;
        }
        if let Some((name, _)) = fields.iter().find(|(n, _)| n == label) {
            picked.add(&mut concise, key(name), name, name.clone());
        }
    }
    if let Some(param) = &enum_example.param
        && let Some((name, schema)) = fields.iter().find(|(n, _)| n == param)
        && (schema.get("enum").is_some() || matches!(type_of(schema), Some("integer" | "string")))
    {
        picked.add(
            &mut concise,
            key(name),
            name,
            format!("{{ from: {name}, enum: {} }}", enum_example.name),
        );
    }
    if let Some((name, resolver)) = fields.iter().find_map(|(n, _)| {
        resolver_for(n, resolvers)
            .filter(|r| matches!(r.source, Source::List { .. }))
            .map(|r| (n, r))
    }) {
        picked.add(
            &mut concise,
            resolver.name.clone(),
            name,
            format!("{{ from: {name}, resolve: {} }}", resolver.name),
        );
    }
    for (name, _) in fields {
        if concise.len() >= 2 {
            break;
        }
        picked.add(&mut concise, key(name), name, name.clone());
    }
    let mut detailed = Vec::new();
    for (name, _) in fields {
        if detailed.len() >= 4 {
            break;
        }
        picked.add(&mut detailed, key(name), name, name.clone());
    }
    (concise, detailed)
}
