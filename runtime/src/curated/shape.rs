//! Results reshaped for the model ([`shape_item`], [`shape_list`]): chosen fields, renamed, enum
//! codes and ids mapped back to readable names, concise or detailed, and marked when truncated.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::super::ToolOutput;
use super::paging::Collected;
use super::resolve::Code;
use super::values::value_at;

/// How a field's value is turned into what the model sees. A value that is an array is
/// converted element by element (a list of codes or of ids).
pub enum Convert {
    /// Copied as is.
    Copy,
    /// An API code mapped back to its readable name (unknown codes copied as is).
    Enum(&'static [(Code, &'static str)]),
    /// An id mapped to a readable name through `lookups[index]` (see [`shape_item`]); an id not
    /// in the map is copied as is.
    Lookup(usize),
}

/// One field of a shaped result.
pub struct FieldSpec {
    /// The field's name in the result.
    pub name: &'static str,
    /// JSON pointer to its value in the API's item.
    pub from: &'static str,
    pub convert: Convert,
}

/// The fields a curated tool returns for each item.
pub struct Shape {
    /// The concise fields, in output order.
    pub fields: &'static [FieldSpec],
    /// Extra fields added (after the concise ones) when detailed.
    pub detailed: &'static [FieldSpec],
}

/// One item reshaped: a JSON object with the fields in order. A field whose source is missing
/// or null is omitted, never null. With no fields configured the item is returned unchanged.
pub fn shape_item(
    shape: &Shape,
    item: &Value,
    detailed: bool,
    lookups: &[&HashMap<String, String>],
) -> Value {
    // Text is an answer that is not JSON: kept whole, so that the check against the output
    // schema reports it rather than an empty object passing for a result.
    if shape.fields.is_empty() || item.is_string() {
        return item.clone();
    }
    let extra: &[FieldSpec] = if detailed { shape.detailed } else { &[] };
    let mut shaped = Map::new();
    for field in shape.fields.iter().chain(extra) {
        let value = value_at(item, field.from);
        if !value.is_null() {
            shaped.insert(
                field.name.to_string(),
                convert(&field.convert, &value, lookups),
            );
        }
    }
    Value::Object(shaped)
}

fn convert(how: &Convert, value: &Value, lookups: &[&HashMap<String, String>]) -> Value {
    if let (Value::Array(values), Convert::Enum(_) | Convert::Lookup(_)) = (value, how) {
        return Value::Array(
            values
                .iter()
                .map(|value| convert(how, value, lookups))
                .collect(),
        );
    }
    match how {
        Convert::Copy => value.clone(),
        // An unknown code (one the API added later) is shown as its text, so the result still
        // fits the output schema, which promises a string.
        Convert::Enum(names) => names
            .iter()
            .find(|(code, _)| code.matches(value))
            .map(|(_, name)| Value::from(*name))
            .unwrap_or_else(|| as_text(value)),
        // An index beyond `lookups` is a generator bug; copying the id keeps the call working.
        Convert::Lookup(index) => {
            let id = match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                _ => None,
            };
            id.zip(lookups.get(*index))
                .and_then(|(id, names)| names.get(&id))
                .map(|name| Value::from(name.as_str()))
                .unwrap_or_else(|| as_text(value))
        }
    }
}

/// A scalar as text (an id or code with no readable name); other values as they are.
fn as_text(value: &Value) -> Value {
    match value {
        Value::Number(number) => Value::String(number.to_string()),
        Value::Bool(flag) => Value::String(flag.to_string()),
        other => other.clone(),
    }
}

/// A list result: `{ <list_name>: [shaped items], "truncated": more }`, with
/// `truncated_message` as a note when `more`.
pub fn shape_list(
    shape: &Shape,
    list_name: &str,
    collected: Collected,
    detailed: bool,
    lookups: &[&HashMap<String, String>],
    truncated_message: &str,
) -> ToolOutput {
    // An item that is no object (a `null` in a list of objects) stays as the API gave it, for the
    // output schema to refuse, rather than shaped into an empty object passed off as an item.
    let items: Vec<Value> = collected
        .items
        .iter()
        .map(|item| match item {
            Value::Object(_) => shape_item(shape, item, detailed, lookups),
            other => other.clone(),
        })
        .collect();
    let mut value = Map::new();
    value.insert(list_name.to_string(), Value::Array(items));
    value.insert("truncated".to_string(), Value::Bool(collected.more));
    let notes = if collected.more {
        vec![truncated_message.to_string()]
    } else {
        Vec::new()
    };
    ToolOutput {
        value: Value::Object(value),
        notes,
    }
}

// ---------------------------------------------------------------------------------------------
// OAuth2 client credentials
// ---------------------------------------------------------------------------------------------
