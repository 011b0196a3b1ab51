//! Guessing enums: a parameter whose values are a short list of codes, with readable names for them
//! taken from the values or the description.

use std::collections::BTreeSet;

use serde_json::Value;

use super::schemas::noun_of;
use super::text::{one_line, plain_ok, scalar};
use super::tool_example::ToolExample;
use crate::api::{Api, Operation};
use crate::curate::model::typed_scalars;
use crate::curate::schema::operation_inputs;
use crate::naming;

/// A parameter of an operation whose values are a short list of codes (integers best).
pub(super) fn enum_param(
    operation: &Operation,
    exclude: &[&str],
) -> Option<(String, Vec<Value>, Option<String>)> {
    let candidates = operation_inputs(operation)
        .into_iter()
        .filter_map(|(name, schema, _)| {
            // A list of codes is one value per call only in a workflow (`[$param]`): `check`
            // refuses `enum` on a parameter that fills a list.
            if exclude.contains(&name.as_str()) || crate::curate::schema::is_array(&schema) {
                return None;
            }
            let values = schema.get("enum")?.as_array()?.clone();
            if !(2..=12).contains(&values.len()) {
                return None;
            }
            let integers = values.iter().all(|v| v.as_i64().is_some());
            // Text codes must read back as text (`"1"` would become a number).
            let texts = values.iter().all(|v| {
                v.as_str().is_some_and(|s| {
                    !one_line(s).is_empty()
                        && one_line(s) == s
                        && matches!(typed_scalars(v.clone()), Value::String(_))
                })
            });
            let description = operation
                .parameters
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.description.clone())
                .or_else(|| {
                    schema
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            (integers || texts).then_some((integers, name, values, description))
        });
    let mut all: Vec<_> = candidates.collect();
    all.sort_by_key(|(integers, ..)| !*integers);
    all.into_iter()
        .next()
        .map(|(_, name, values, description)| (name, values, description))
}

/// Readable names for integer codes from a description such as "`1` open, `2` in progress".
pub(super) fn names_from_description(description: &str, codes: &[i64]) -> Option<Vec<String>> {
    const STOP: &[&str] = &[
        "to", "and", "or", "of", "the", "a", "an", "is", "for", "from", "by", "with",
    ];
    let clean: String = one_line(description)
        .chars()
        .map(|c| {
            if matches!(c, '`' | '"' | '\'' | '*') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut names = Vec::new();
    for code in codes {
        let digits = code.to_string();
        let found = clean.match_indices(&digits).find_map(|(at, _)| {
            let before = clean[..at].chars().next_back();
            let after = &clean[at + digits.len()..];
            let standalone = before
                .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '-' && c != '.')
                && after.chars().next().is_none_or(|c| {
                    !c.is_ascii_alphanumeric() && c != '.' || after.starts_with(". ")
                });
            if !standalone {
                return None;
            }
            let rest = after.trim_start_matches([' ', '=', ':', '-', '–', '—', '(', ')']);
            let phrase: String = rest
                .chars()
                .take_while(|c| c.is_alphabetic() || *c == ' ')
                .collect();
            let words: Vec<&str> = phrase.split_whitespace().take(3).collect();
            let first = words.first()?;
            if STOP.contains(&first.to_lowercase().as_str()) {
                return None;
            }
            naming::snake(&words.join(" "))
        })?;
        names.push(found);
    }
    let unique: BTreeSet<&String> = names.iter().collect();
    (unique.len() == names.len()).then_some(names)
}

/// The example of `enums`: a name, its readable names and codes, and the parameter it fits.
pub(super) struct EnumExample {
    pub(super) name: String,
    pub(super) entries: Vec<(String, Value)>,
    /// The API parameter (of the tool example's operation, when it has one) the codes are for.
    pub(super) param: Option<String>,
}

pub(super) fn readable_names(values: &[Value], description: Option<&str>) -> Vec<String> {
    let integers: Option<Vec<i64>> = values.iter().map(Value::as_i64).collect();
    if let Some(codes) = &integers
        && let Some(names) = description.and_then(|d| names_from_description(d, codes))
    {
        return names;
    }
    let mut taken = BTreeSet::new();
    values
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let base = match value {
                Value::String(s) => naming::snake(s),
                Value::Number(n) => naming::snake(&format!("code {n}")),
                _ => None,
            }
            .filter(|s| plain_ok(s, true))
            .unwrap_or_else(|| format!("value_{}", index + 1));
            if taken.insert(base.clone()) {
                base
            } else {
                let other = format!("value_{}", index + 1);
                taken.insert(other.clone());
                other
            }
        })
        .collect()
}

pub(super) fn enum_example(api: &Api, tool: Option<&ToolExample>) -> EnumExample {
    let from_tool = tool.and_then(|t| t.enum_param.clone().map(|p| (t.noun.clone(), p)));
    let found = from_tool.or_else(|| {
        api.operations
            .iter()
            .find_map(|op| enum_param(op, &[]).map(|p| (noun_of(op), p)))
    });
    match found {
        Some((noun, (param, values, description))) => {
            let snake = naming::snake(&param).unwrap_or_else(|| "code".into());
            let name = match noun {
                Some(noun) if !snake.starts_with(&noun) => format!("{noun}_{snake}"),
                _ => snake,
            };
            let names = readable_names(&values, description.as_deref());
            EnumExample {
                name,
                entries: names.into_iter().zip(values).collect(),
                param: Some(param),
            }
        }
        None => EnumExample {
            name: "status".into(),
            entries: vec![
                ("open".into(), Value::from(1)),
                ("in_progress".into(), Value::from(2)),
                ("done".into(), Value::from(3)),
            ],
            param: None,
        },
    }
}

pub(super) fn code_text(value: &Value) -> String {
    match value {
        Value::String(s) => scalar(s, true),
        other => other.to_string(),
    }
}
