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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_item_that_is_no_object_is_kept_as_the_api_gave_it_not_shaped_into_an_empty_object() {
        const SHAPE: Shape = Shape {
            fields: &[FieldSpec {
                name: "name",
                from: "/name",
                convert: Convert::Copy,
            }],
            detailed: &[],
        };
        let collected = Collected {
            items: vec![json!({"name": "a", "b": 1}), Value::Null],
            more: false,
        };
        let output = shape_list(&SHAPE, "posts", collected, false, &[], "more");
        assert_eq!(
            output.value,
            json!({"posts": [{"name": "a"}, null], "truncated": false})
        );
    }

    #[test]
    fn a_result_field_through_a_list_is_the_list_of_the_items_values() {
        const SHAPE: Shape = Shape {
            fields: &[
                FieldSpec {
                    name: "name",
                    from: "/name",
                    convert: Convert::Copy,
                },
                FieldSpec {
                    name: "artists",
                    from: "/artists/name",
                    convert: Convert::Copy,
                },
            ],
            detailed: &[],
        };
        let item = json!({"name": "Song", "artists": [{"name": "X"}, {"name": "Y"}]});
        assert_eq!(
            shape_item(&SHAPE, &item, false, &[]),
            json!({"name": "Song", "artists": ["X", "Y"]})
        );
    }

    static STATES: &[(Code, &str)] = &[(Code::Int(1), "open"), (Code::Int(2), "closed")];

    static ISSUE: Shape = Shape {
        fields: &[
            FieldSpec {
                name: "key",
                from: "/key",
                convert: Convert::Copy,
            },
            FieldSpec {
                name: "state",
                from: "/state",
                convert: Convert::Enum(STATES),
            },
            FieldSpec {
                name: "assignee",
                from: "/assignee/id",
                convert: Convert::Lookup(0),
            },
            FieldSpec {
                name: "due",
                from: "/due_date",
                convert: Convert::Copy,
            },
        ],
        detailed: &[
            FieldSpec {
                name: "description",
                from: "/body",
                convert: Convert::Copy,
            },
            FieldSpec {
                name: "watchers",
                from: "/watcher_ids",
                convert: Convert::Lookup(0),
            },
        ],
    };

    fn users() -> HashMap<String, String> {
        [("7", "alice"), ("8", "bob")]
            .into_iter()
            .map(|(id, name)| (id.to_string(), name.to_string()))
            .collect()
    }

    fn issue() -> Value {
        json!({
            "key": "WEB-1",
            "state": 2,
            "assignee": {"id": 7},
            "due_date": null,
            "body": "Fix it",
            "watcher_ids": [8, 9],
            "internal": true,
        })
    }

    #[test]
    fn shape_item_picks_renames_and_converts_fields_in_order() {
        let users = users();
        let shaped = shape_item(&ISSUE, &issue(), false, &[&users]);
        assert_eq!(
            serde_json::to_string(&shaped).expect("serializes"),
            r#"{"key":"WEB-1","state":"closed","assignee":"alice"}"#
        );
    }

    #[test]
    fn shape_item_detailed_adds_the_detailed_fields_after() {
        let users = users();
        let shaped = shape_item(&ISSUE, &issue(), true, &[&users]);
        assert_eq!(
            serde_json::to_string(&shaped).expect("serializes"),
            r#"{"key":"WEB-1","state":"closed","assignee":"alice","description":"Fix it","watchers":["bob","9"]}"#
        );
    }

    #[test]
    fn shape_item_shows_unknown_codes_and_ids_as_text_and_omits_missing_fields() {
        let users = users();
        let item = json!({"key": "WEB-2", "state": 5, "assignee": {"id": "99"}});
        let shaped = shape_item(&ISSUE, &item, true, &[&users]);
        assert_eq!(
            shaped,
            json!({"key": "WEB-2", "state": "5", "assignee": "99"})
        );
        // A missing lookup table gives the id as text rather than failing.
        let shaped = shape_item(&ISSUE, &issue(), false, &[]);
        assert_eq!(shaped["assignee"], json!("7"));
        // String codes for integer enums are mapped too.
        let shaped = shape_item(&ISSUE, &json!({"state": "1"}), false, &[]);
        assert_eq!(shaped, json!({"state": "open"}));
    }

    #[test]
    fn shape_item_without_fields_returns_the_item() {
        static NONE: Shape = Shape {
            fields: &[],
            detailed: &[],
        };
        assert_eq!(shape_item(&NONE, &issue(), true, &[]), issue());
    }

    #[test]
    fn shape_list_reports_truncation_with_a_note() {
        let users = users();
        let collected = Collected {
            items: vec![issue(), json!({"key": "WEB-3", "state": 1})],
            more: true,
        };
        let output = shape_list(
            &ISSUE,
            "issues",
            collected,
            false,
            &[&users],
            "More issues exist; raise limit.",
        );
        assert_eq!(
            serde_json::to_string(&output.value).expect("serializes"),
            r#"{"issues":[{"key":"WEB-1","state":"closed","assignee":"alice"},{"key":"WEB-3","state":"open"}],"truncated":true}"#
        );
        assert_eq!(output.notes, ["More issues exist; raise limit."]);
    }

    #[test]
    fn shape_list_without_truncation_has_no_note() {
        let collected = Collected {
            items: Vec::new(),
            more: false,
        };
        let output = shape_list(&ISSUE, "issues", collected, false, &[], "unused");
        assert_eq!(
            serde_json::to_string(&output.value).expect("serializes"),
            r#"{"issues":[],"truncated":false}"#
        );
        assert!(output.notes.is_empty());
    }
}
