//! The values a curated tool's steps pass on: arguments checked against the API's schema, fields
//! read from earlier answers, templates, quoting for query languages, and argument checks
//! ([`check_range`], [`check_length`]).

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::super::tool::shorten;
use super::super::{MAX_LISTED_VALUES, ToolError};
use super::explain::fill_placeholders;

/// Checks that an integer argument lies in `min..=max`.
pub fn check_range(argument: &str, value: i64, min: i64, max: i64) -> Result<(), ToolError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "Invalid argument `{argument}`: {value} is out of range; use a value from {min} to {max}."
        )))
    }
}

/// Checks that a text argument has at most `max_chars` characters (not bytes).
pub fn check_length(argument: &str, value: &str, max_chars: usize) -> Result<(), ToolError> {
    let length = value.chars().count();
    if length <= max_chars {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "Invalid argument `{argument}`: {length} characters is too long; use at most {max_chars}."
        )))
    }
}

// ---------------------------------------------------------------------------------------------
// Codes
// ---------------------------------------------------------------------------------------------

/// Where a value the generated code passes to an operation comes from, which says whose mistake
/// it is when the value does not fit the parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Argument,
    Checked,
    Answer(usize),
}

/// The value of the parameter `name` of `operation` as its Rust type wants it (JSON null is
/// `None`), from the tool's arguments as the server maps and resolves them or from the curation
/// file: `mcpgen check` proved both fit, so a failure here is a mistake of the server. Generated
/// code fills each parameter struct as a Rust literal, field by field, through this and
/// [`from_answer`] and [`from_argument`]: the compiler checks the fields, these each value.
pub fn checked<T: serde::de::DeserializeOwned>(
    operation: &str,
    name: &str,
    value: &Value,
) -> Result<T, ToolError> {
    parameter_value(operation, name, value, Origin::Checked)
}

/// What a workflow's later steps read of one step's answer, as JSON Schema (the answer's type
/// and the fields on the paths read, nothing else): the answer is checked before they rely on it,
/// so that a garbled answer (text, a list for an object, a flag that is not one) stops the
/// workflow at the step that got it, as the API's fault, rather than feed a later request.
pub struct Documented {
    schema: &'static str,
    checker: OnceLock<Option<super::super::schema::Schema>>,
}

impl Documented {
    pub const fn new(schema: &'static str) -> Self {
        Self {
            schema,
            checker: OnceLock::new(),
        }
    }

    /// `Ok` when `answer`, the API's answer to step `step` (`operation`), has the documented
    /// shape; else the API's error, which says whether the step most likely changed something.
    pub fn check(
        &self,
        answer: &Value,
        step: usize,
        operation: &str,
        writes: bool,
    ) -> Result<(), ToolError> {
        let checker = self.checker.get_or_init(|| {
            let schema = serde_json::from_str(self.schema).ok()?;
            Some(super::super::compile_schema(operation, "answer", &schema))
        });
        let Some(problem) = checker
            .as_ref()
            .and_then(|checker| super::super::misfit(checker, answer))
        else {
            return Ok(());
        };
        Err(ToolError::Answer(if writes {
            format!(
                "The API accepted step {step} ({operation}), but its answer does not have the shape the API documents ({problem}), so the server stopped there. The change was most likely made: do not call again; tell the user to check it, and that the API may have changed."
            )
        } else {
            format!(
                "The API's answer to step {step} ({operation}) does not have the shape the API documents ({problem}), so the server stopped there. Calling again will likely fail the same way; tell the user the API may have changed."
            )
        }))
    }
}

/// Like [`checked`], for a value from the API's answer to an earlier step (its number, from 1):
/// a failure is the API's.
pub fn from_answer<T: serde::de::DeserializeOwned>(
    step: usize,
    operation: &str,
    name: &str,
    value: &Value,
) -> Result<T, ToolError> {
    parameter_value(operation, name, value, Origin::Answer(step))
}

/// Like [`checked`], for a value the model gave as it is (a readable key the API looks up): a
/// failure is the model's to fix.
pub fn from_argument<T: serde::de::DeserializeOwned>(
    operation: &str,
    name: &str,
    value: &Value,
) -> Result<T, ToolError> {
    parameter_value(operation, name, value, Origin::Argument)
}

fn parameter_value<T: serde::de::DeserializeOwned>(
    operation: &str,
    name: &str,
    value: &Value,
    origin: Origin,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let at = if path == "." {
            name.to_string()
        } else if path.starts_with('[') {
            format!("{name}{path}")
        } else {
            format!("{name}.{path}")
        };
        let error = error.into_inner();
        match origin {
            Origin::Argument => ToolError::InvalidArguments(format!(
                "{operation} cannot take {} as `{at}`: {error}.",
                shorten(&value.to_string(), 80)
            )),
            Origin::Checked => ToolError::Answer(format!(
                "This server built a value for `{at}` of {operation} that {operation} does not take ({error}). This is a mistake of the server, not of the arguments: tell the user to report it to the server's maintainers."
            )),
            // Nothing where a value is read: an empty list, or a field the answer leaves out. The
            // API answered as it may; there is just nothing to go on with.
            Origin::Answer(step) if error.to_string().starts_with("invalid type: null") => {
                ToolError::Answer(format!(
                    "The answer to step {step} has nothing for `{at}` of {operation} (an empty list, or a field it leaves out), so the server stopped before calling {operation}. Tell the user what was not found; calling again with the same arguments gives the same answer."
                ))
            }
            Origin::Answer(step) => ToolError::Answer(format!(
                "The API's answer to step {step} does not fit `{at}` of {operation} ({error}); the API may have changed. Tell the user this tool cannot complete the request."
            )),
        }
    })
}

/// A template's text for a parameter the API requires: refused when every clause dropped out
/// (none of the arguments it is built from given), which the API would refuse or read as "all".
pub fn required_text(parameter: &str, from: &str, text: String) -> Result<String, ToolError> {
    if text.trim().is_empty() {
        return Err(ToolError::InvalidArguments(format!(
            "Give at least one of {from}: the API needs `{parameter}`, which is built from them."
        )));
    }
    Ok(text)
}

/// A template's text, or `None` (the parameter left out) when every clause dropped out: an
/// optional parameter is not sent empty (`uris=`) for an empty list.
pub fn unless_blank(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

/// The value of `name` in a resolver's scope, or null.
pub fn scoped(scope: &Map<String, Value>, name: &str) -> Value {
    scope.get(name).cloned().unwrap_or(Value::Null)
}

/// Any serializable argument as JSON (null when it cannot be represented).
pub fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// One value per item of `list` (an `$each` object), made by `item`; an absent list stays
/// absent, and one value is taken as a list of one.
pub fn each(list: &Value, item: impl Fn(&Value) -> Value) -> Value {
    match list {
        Value::Null => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(item).collect()),
        one => Value::Array(vec![item(one)]),
    }
}

/// An object of the fields that have a value: a field whose value is null (an optional argument
/// the model left out) is left out, as an optional parameter without a value is left out of a
/// request.
pub fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(scope(fields))
}

/// The fields that have a value, as a map: a resolver's scoping arguments, and [`object`]'s fields.
pub fn scope<const N: usize>(fields: [(&str, Value); N]) -> Map<String, Value> {
    fields
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| (name.to_string(), value))
        .collect()
}

/// The value at `pointer` in `value`, or null. Where the value on the way is a list, a number
/// picks one item (`/items/0/uri`: the first item's) and a name applies to every item
/// (`/items/uri`: the list of the items' `uri`, items without one left out), as `mcpgen check`
/// reads the same path in the answer's schema.
pub fn value_at(value: &Value, pointer: &str) -> Value {
    fn walk(value: &Value, segments: &[String]) -> Value {
        let Some((first, rest)) = segments.split_first() else {
            return value.clone();
        };
        match value {
            Value::Object(fields) => fields.get(first).map_or(Value::Null, |v| walk(v, rest)),
            Value::Array(items) => match first.parse::<usize>() {
                Ok(index) => items.get(index).map_or(Value::Null, |v| walk(v, rest)),
                Err(_) => Value::Array(
                    items
                        .iter()
                        .map(|item| walk(item, segments))
                        .filter(|v| !v.is_null())
                        .collect(),
                ),
            },
            _ => Value::Null,
        }
    }
    let Some(path) = pointer.strip_prefix('/') else {
        return value.clone();
    };
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect();
    walk(value, &segments)
}

/// Do two values mean the same? Numbers and booleans equal their text (an enum code given as
/// text matches the API's integer; a `stop_if` comparing a flag with `true` in the curation
/// file, which reads it as text, matches the API's boolean).
pub fn same(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n)) => {
            n.to_string() == *s
        }
        (Value::Bool(b), Value::String(s)) | (Value::String(s), Value::Bool(b)) => {
            b.to_string() == *s
        }
        // `null` written in the file (`when: { equal: [$device, null] }`) is an absent value.
        (Value::Null, Value::String(s)) | (Value::String(s), Value::Null) => s == "null",
        _ => left == right,
    }
}

/// [`same`], with text compared ignoring case and surrounding spaces: how `find`, resolvers and
/// `stop_if` compare (a status "in progress" is the issue's "In Progress").
pub fn same_text(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::String(left), Value::String(right)) => {
            left.trim().to_lowercase() == right.trim().to_lowercase()
        }
        _ => same(left, right),
    }
}

/// The values of `field` in the items of the list at `pointer` in `value`, joined with `, `: what
/// a `find` step's `missing` message shows as `{available}`.
pub fn item_values(value: &Value, pointer: &str, field: &str) -> String {
    let list = value_at(value, pointer);
    let mut values: Vec<String> = Vec::new();
    // Each value once: two transitions to `Done` are one value to choose.
    for item in list.as_array().into_iter().flatten() {
        let text = match value_at(item, field) {
            Value::String(text) => text,
            Value::Number(number) => number.to_string(),
            _ => continue,
        };
        if !values.contains(&text) {
            values.push(text);
        }
    }
    if values.is_empty() {
        "none".to_string()
    } else {
        values.join(", ")
    }
}

/// The item of the list at `pointer` in `value` whose fields equal the conditions (`(field
/// pointer, value)`): none, or the one that matches, or — when several different items match —
/// a description of them that tells them apart, never a silent pick of the first. Text is
/// compared as resolvers compare it, ignoring case and surrounding spaces (`done` finds the
/// transition named `Done`).
pub fn find_one(
    value: &Value,
    pointer: &str,
    conditions: &[(&str, &Value)],
) -> Result<Option<Value>, String> {
    let list = value_at(value, pointer);
    let mut matching: Vec<&Value> = Vec::new();
    for item in list.as_array().into_iter().flatten() {
        let fits = conditions.iter().all(|(field, wanted)| {
            // A field read through a list (`labels/name`) holds when one of its values does.
            match value_at(item, field) {
                Value::Null => false,
                Value::Array(found) => found.iter().any(|found| same_text(found, wanted)),
                found => same_text(&found, wanted),
            }
        });
        if fits && !matching.contains(&item) {
            matching.push(item);
        }
    }
    match matching.as_slice() {
        [] => Ok(None),
        [only] => Ok(Some((*only).clone())),
        several => Err(candidates(several)),
    }
}

/// Several items, each by the top-level fields that tell them apart (at most three, those whose
/// values differ first), for a message: `id 31, name Done (dev); id 41, name Done (qa)`.
fn candidates(items: &[&Value]) -> String {
    let scalar = |item: &Value, key: &str| match item.get(key) {
        Some(Value::String(text)) => Some(text.clone()),
        Some(value @ (Value::Number(_) | Value::Bool(_))) => Some(value.to_string()),
        _ => None,
    };
    let keys: Vec<&String> = items
        .first()
        .and_then(|item| item.as_object())
        .map(|object| object.keys().collect())
        .unwrap_or_default();
    let differs = |key: &str| {
        let first = scalar(items[0], key);
        items.iter().any(|item| scalar(item, key) != first)
    };
    let mut shown: Vec<&String> = keys.iter().copied().filter(|key| differs(key)).collect();
    shown.extend(keys.iter().copied().filter(|key| !differs(key)));
    shown.retain(|key| items.iter().all(|item| scalar(item, key).is_some()));
    shown.truncate(3);
    let described: Vec<String> = items
        .iter()
        .take(MAX_LISTED_VALUES)
        .map(|item| {
            let fields: Vec<String> = shown
                .iter()
                .filter_map(|key| scalar(item, key).map(|value| format!("{key} {value}")))
                .collect();
            if fields.is_empty() {
                item.to_string()
            } else {
                fields.join(", ")
            }
        })
        .collect();
    let more = items.len().saturating_sub(MAX_LISTED_VALUES);
    if more > 0 {
        format!("{} (and {more} more)", described.join("; "))
    } else {
        described.join("; ")
    }
}

/// `template` with each `{name}` replaced by the value of `name` in `vars`, in one pass (a value
/// that itself looks like `{name}` is not expanded again).
pub fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    fill_placeholders(template, vars)
}

/// Borrows owned message variables as [`Explain::explain`] takes them.
pub fn borrow_vars<'a>(vars: &'a [(&'a str, String)]) -> Vec<(&'a str, &'a str)> {
    vars.iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}

/// The text of an argument for messages: text as is, other values as JSON, nothing when absent.
pub fn text<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => text,
        Ok(Value::Null) | Err(_) => String::new(),
        Ok(other) => other.to_string(),
    }
}

/// The answer of a step whose list a `find` searches, every page walked: `items` at `pointer`
/// (`"/data"` → `{"data": [...]}`; `""`: the list itself), which is all the find reads of it.
pub fn list_answer(pointer: &str, items: Vec<Value>) -> Value {
    let mut answer = Value::Array(items);
    for segment in pointer
        .split('/')
        .skip(1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let name = segment.replace("~1", "/").replace("~0", "~");
        answer = Value::Object(Map::from_iter([(name, answer)]));
    }
    answer
}

/// `value` as the API takes it where a field is text: a number as its digits (an id the API gives
/// as an integer, sent where it takes text), each item of a list so; anything else as it is.
pub fn id_text(value: Value) -> Value {
    match value {
        Value::Number(number) => Value::String(number.to_string()),
        Value::Array(items) => Value::Array(items.into_iter().map(id_text).collect()),
        other => other,
    }
}

/// A scoping value where the API takes a number: text of digits becomes the number (Jira's
/// project ids are text in its answers and integers in its parameters); anything else stays as
/// it is.
pub fn numeric_id(value: Value) -> Value {
    if let Value::String(text) = &value
        && let Ok(number) = text.parse::<i64>()
    {
        return Value::from(number);
    }
    value
}

/// A resolved id as the API wants it: a number when the parameter is an integer.
pub fn id_value(id: String, integer: bool) -> Result<Value, ToolError> {
    if !integer {
        return Ok(Value::String(id));
    }
    id.parse::<i64>().map(Value::from).map_err(|_| {
        ToolError::InvalidArguments(format!(
            "The API gave the id {id:?}, which is not a number as expected."
        ))
    })
}

// Templates: text arguments (search queries, JQL) built from clauses over the arguments.
// ---------------------------------------------------------------------------------------------

/// The texts a template placeholder stands for: none for an absent argument (null, blank text or
/// an empty list), which drops its clause; each item of a list, which repeats it; otherwise the
/// value's text (a number or boolean as written).
pub fn template_values(value: &Value) -> Vec<String> {
    let text = |value: &Value| match value {
        Value::Null => None,
        Value::String(text) if text.trim().is_empty() => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    };
    match value {
        Value::Array(items) => items.iter().filter_map(text).collect(),
        other => text(other).into_iter().collect(),
    }
}

/// Is a value there, for `$if`: not absent, not blank text, not an empty list.
pub fn present(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(text) => !text.trim().is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => true,
    }
}

/// A list without the items left out (`$if` objects whose value is absent).
pub fn present_items(items: Vec<Value>) -> Value {
    Value::Array(items.into_iter().filter(|item| !item.is_null()).collect())
}

/// Is a template's `{name:if}` flag on? Only `true` keeps its clause: `false` and absent drop it.
pub fn switched_on(value: &Value) -> bool {
    *value == Value::Bool(true)
}

/// Refuses blank text for a required argument a template writes, whose clause would otherwise
/// drop out and widen the query (`"  "` for the words of a search).
pub fn not_blank(argument: &str, value: &Value) -> Result<(), ToolError> {
    let blank = |value: &Value| value.as_str().is_some_and(|text| text.trim().is_empty());
    match value {
        Value::String(_) if blank(value) => Err(ToolError::InvalidArguments(format!(
            "Invalid argument `{argument}`: it is required and cannot be blank."
        ))),
        // A required list: at least one value that is not blank.
        Value::Array(items) if items.iter().all(blank) => {
            Err(ToolError::InvalidArguments(format!(
                "Invalid argument `{argument}`: it is required; give at least one value that is not blank."
            )))
        }
        _ => Ok(()),
    }
}

/// How a template writes a value into its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// As it is.
    None,
    /// GitHub search: as it is when made of letters, digits and `-_./@#+`, else between double
    /// quotes; a double quote cannot be escaped there, so a value holding one is refused.
    Github,
    /// Slack search: the rule of GitHub's.
    Slack,
    /// JQL: a quoted string, with backslashes, quotes and control characters escaped.
    Jql,
}

impl Quote {
    /// Free text (of the argument `argument`) as plain words: each word written by the rule,
    /// joined by single spaces, so that `login fails` stays two words rather than a quoted
    /// phrase while a word the syntax would read as an operator (`is:open`) is quoted.
    pub fn write_words(self, argument: &str, value: &str) -> Result<String, ToolError> {
        let words: Vec<String> = value
            .split_whitespace()
            .map(|word| self.write(argument, word, false))
            .collect::<Result<_, _>>()?;
        Ok(words.join(" "))
    }

    /// `value` (of the argument `argument`) as its clause writes it; `quoted` when the clause puts
    /// it between quotes itself (`label:"{label}"`).
    pub fn write(self, argument: &str, value: &str, quoted: bool) -> Result<String, ToolError> {
        match self {
            Quote::None => Ok(value.to_string()),
            Quote::Github | Quote::Slack => {
                // Said without naming GitHub or Slack: other APIs' searches (Trello's) share
                // the syntax, and the model knows only the tool.
                if value.contains('"') {
                    return Err(ToolError::InvalidArguments(format!(
                        "Invalid argument `{argument}`: {value:?} has a double quote, which this search cannot hold; leave it out."
                    )));
                }
                let plain = value
                    .chars()
                    .all(|c| c.is_alphanumeric() || "-_./@#+".contains(c));
                if quoted || plain {
                    Ok(value.to_string())
                } else {
                    Ok(format!("\"{value}\""))
                }
            }
            Quote::Jql => {
                let mut escaped = String::with_capacity(value.len() + 2);
                for c in value.chars() {
                    match c {
                        '\\' => escaped.push_str("\\\\"),
                        '"' => escaped.push_str("\\\""),
                        '\'' => escaped.push_str("\\'"),
                        '\n' => escaped.push_str("\\n"),
                        '\r' => escaped.push_str("\\r"),
                        '\t' => escaped.push_str("\\t"),
                        c if c.is_control() => {
                            escaped.push_str(&format!("\\u{:04x}", u32::from(c)))
                        }
                        c => escaped.push(c),
                    }
                }
                if quoted {
                    Ok(escaped)
                } else {
                    Ok(format!("\"{escaped}\""))
                }
            }
        }
    }
}

/// The concise or detailed format of a result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseFormat {
    /// Only what is needed to answer.
    #[default]
    Concise,
    /// Adds the fields needed for follow-up calls.
    Detailed,
}

impl ResponseFormat {
    pub fn is_detailed(self) -> bool {
        self == ResponseFormat::Detailed
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::text;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_required_argument_a_template_writes_is_refused_blank_or_as_an_empty_list() {
        assert!(not_blank("words", &json!("  ")).is_err());
        assert!(not_blank("words", &json!("moon")).is_ok());
        assert!(not_blank("states", &json!([])).is_err());
        assert!(not_blank("states", &json!(["  "])).is_err());
        assert!(not_blank("states", &json!(["OPEN", ""])).is_ok());
    }

    #[test]
    fn nothing_read_from_an_earlier_answer_says_what_is_missing_and_does_not_blame_the_api() {
        // `uris: [$found.tracks.items.0.uri]` after a search that found nothing.
        let error = from_answer::<Vec<String>>(1, "addTracks", "uris", &json!([null]))
            .expect_err("nothing to send");
        let ToolError::Answer(message) = error else {
            panic!("not an answer error: {error:?}");
        };
        assert!(
            message.starts_with("The answer to step 1 has nothing for `uris[0]` of addTracks"),
            "{message}"
        );
        assert!(!message.contains("may have changed"), "{message}");
        // A value of the wrong type is still the API's.
        let error =
            from_answer::<Vec<String>>(1, "addTracks", "uris", &json!([7])).expect_err("not text");
        assert!(
            matches!(&error, ToolError::Answer(m) if m.contains("the API may have changed")),
            "{error:?}"
        );
    }

    #[test]
    fn a_walked_list_is_answered_at_its_place() {
        assert_eq!(list_answer("", vec![json!(1)]), json!([1]));
        assert_eq!(list_answer("/data", vec![json!(1)]), json!({"data": [1]}));
        assert_eq!(
            list_answer("/a/b~1c", vec![json!(1)]),
            json!({"a": {"b/c": [1]}})
        );
    }

    #[test]
    fn id_text_writes_numbers_as_their_digits_and_leaves_the_rest() {
        assert_eq!(id_text(json!(101)), json!("101"));
        assert_eq!(id_text(json!([101, 102])), json!(["101", "102"]));
        assert_eq!(id_text(json!("a-1")), json!("a-1"));
        assert_eq!(id_text(Value::Null), Value::Null);
    }

    #[test]
    fn each_makes_one_object_per_item_and_keeps_an_absent_list_absent() {
        let make = |item: &Value| object([("uuid", item.clone())]);
        assert_eq!(
            each(&json!(["{a}", "{b}"]), make),
            json!([{"uuid": "{a}"}, {"uuid": "{b}"}])
        );
        assert_eq!(each(&Value::Null, make), Value::Null);
        assert_eq!(each(&json!("{a}"), make), json!([{"uuid": "{a}"}]));
    }

    #[test]
    fn a_required_parameter_built_from_no_argument_is_refused_naming_the_arguments() {
        let refused = required_text("q", "artist, year", "  ".to_string());
        let Err(ToolError::InvalidArguments(message)) = refused else {
            panic!("a blank query is refused: {refused:?}");
        };
        assert_eq!(
            message,
            "Give at least one of artist, year: the API needs `q`, which is built from them."
        );
        assert_eq!(
            required_text("q", "artist, year", "artist:Bach".to_string()).ok(),
            Some("artist:Bach".to_string())
        );
        assert_eq!(unless_blank(String::new()), None);
        assert_eq!(unless_blank("x".to_string()), Some("x".to_string()));
    }

    #[test]
    fn numbers_booleans_and_null_are_the_same_as_their_text() {
        assert!(same(&json!(true), &json!("true")));
        assert!(same(&json!("false"), &json!(false)));
        assert!(!same(&json!(true), &json!("false")));
        assert!(!same(&json!(true), &json!("yes")));
        assert!(same(&json!(3), &json!("3")));
        assert!(same(&Value::Null, &json!("null")));
        assert!(!same(&Value::Null, &json!("")));
        assert!(!same(&json!("a"), &json!("A")));
        assert!(same_text(&json!(" In Progress"), &json!("in progress")));
        assert!(same_text(&json!(3), &json!("3")));
    }

    #[test]
    fn a_path_through_a_list_takes_each_items_field_and_a_number_picks_one_item() {
        let answer = json!({
            "tracks": {"items": [
                {"uri": "a", "artists": [{"name": "X"}, {"name": "Y"}]},
                {"name": "no uri"},
                {"uri": "c/d", "artists": []}
            ]}
        });
        assert_eq!(value_at(&answer, "/tracks/items/uri"), json!(["a", "c/d"]));
        assert_eq!(value_at(&answer, "/tracks/items/0/uri"), json!("a"));
        assert_eq!(value_at(&answer, "/tracks/items/5/uri"), Value::Null);
        assert_eq!(
            value_at(&answer, "/tracks/items/artists/name"),
            json!([["X", "Y"], []])
        );
        assert_eq!(
            value_at(&answer, "/tracks/items/0/artists/name"),
            json!(["X", "Y"])
        );
        assert_eq!(value_at(&json!({"a/b": 1}), "/a~1b"), json!(1));
        assert_eq!(value_at(&answer, ""), answer);
        assert_eq!(value_at(&answer, "/nothing/here"), Value::Null);
    }

    #[test]
    fn an_absent_argument_gives_a_template_no_value_and_a_list_one_per_item() {
        assert!(template_values(&Value::Null).is_empty());
        assert!(template_values(&json!("  ")).is_empty());
        assert!(template_values(&json!([])).is_empty());
        assert_eq!(template_values(&json!("open")), ["open"]);
        assert_eq!(template_values(&json!(42)), ["42"]);
        assert_eq!(template_values(&json!(["bug", "", "ui"])), ["bug", "ui"]);
    }

    #[test]
    fn github_quoting_keeps_plain_values_quotes_the_rest_and_refuses_a_double_quote() {
        let write = |value: &str, quoted: bool| Quote::Github.write("label", value, quoted);
        assert_eq!(write("octocat", false).ok().as_deref(), Some("octocat"));
        assert_eq!(
            write("v1.2-rc/x@y#1+", false).ok().as_deref(),
            Some("v1.2-rc/x@y#1+")
        );
        assert_eq!(
            write("good first issue", false).ok().as_deref(),
            Some("\"good first issue\"")
        );
        assert_eq!(write("a:b", false).ok().as_deref(), Some("\"a:b\""));
        // Between the clause's own quotes a value goes in as it is.
        assert_eq!(
            write("good first issue", true).ok().as_deref(),
            Some("good first issue")
        );
        let refused = text(write("say \"hi\"", true).expect_err("a double quote is refused"));
        assert_eq!(
            refused,
            "Invalid argument `label`: \"say \\\"hi\\\"\" has a double quote, which this search cannot hold; leave it out."
        );
        assert!(Quote::Slack.write("in", "a\"b", false).is_err());
    }

    #[test]
    fn jql_quoting_escapes_quotes_backslashes_and_controls_and_quotes_unquoted_values() {
        assert_eq!(
            Quote::Jql
                .write("status", "In \"Review\"", true)
                .ok()
                .as_deref(),
            Some("In \\\"Review\\\"")
        );
        assert_eq!(
            Quote::Jql
                .write("status", "it's a\\b\n", false)
                .ok()
                .as_deref(),
            Some("\"it\\'s a\\\\b\\n\"")
        );
        assert_eq!(
            Quote::None.write("q", "a \"b\"", false).ok().as_deref(),
            Some("a \"b\"")
        );
    }

    #[test]
    fn a_step_answer_is_checked_only_where_later_steps_read_it_and_a_write_says_it_likely_happened()
    {
        static READ: Documented = Documented::new(
            r#"{"type":"object","properties":{"data":{"type":"object","properties":{"completed":{"type":"boolean"}}}}}"#,
        );
        // Fields nobody reads may stray from the documentation.
        let fits = serde_json::json!({"data": {"completed": true, "gid": 7}, "extra": null});
        assert!(READ.check(&fits, 1, "getTask", false).is_ok());
        let garbled = serde_json::json!({"data": {"completed": "yes"}});
        let error = READ.check(&garbled, 1, "getTask", false).unwrap_err();
        assert_eq!(
            text(error),
            "The API's answer to step 1 (getTask) does not have the shape the API documents (at /data/completed: \"yes\" is not of type \"boolean\"), so the server stopped there. Calling again will likely fail the same way; tell the user the API may have changed."
        );
        let error = READ
            .check(&Value::String("<html>".into()), 2, "createTask", true)
            .unwrap_err();
        assert_eq!(
            text(error),
            "The API accepted step 2 (createTask), but its answer does not have the shape the API documents (the answer: text, not JSON: \"<html>\"), so the server stopped there. The change was most likely made: do not call again; tell the user to check it, and that the API may have changed."
        );
    }

    #[test]
    fn check_range_accepts_the_bounds_and_words_the_error() {
        assert!(check_range("limit", 1, 1, 50).is_ok());
        assert!(check_range("limit", 50, 1, 50).is_ok());
        let error = check_range("limit", 80, 1, 50).expect_err("80 is out of range");
        assert_eq!(
            text(error),
            "Invalid argument `limit`: 80 is out of range; use a value from 1 to 50."
        );
        assert!(check_range("limit", 0, 1, 50).is_err());
    }

    #[test]
    fn check_length_counts_characters_and_words_the_error() {
        assert!(check_length("title", &"é".repeat(200), 200).is_ok());
        let error = check_length("title", &"x".repeat(230), 200).expect_err("too long");
        assert_eq!(
            text(error),
            "Invalid argument `title`: 230 characters is too long; use at most 200."
        );
    }

    #[test]
    fn find_one_takes_the_only_match_and_describes_several_by_the_fields_that_differ() {
        let answer = json!({"items": [
            {"id": 1, "name": "Done", "team": "web"},
            {"id": 2, "name": "Start", "team": "web"},
            {"id": 3, "name": "DONE ", "team": "api"},
            {"id": 2, "name": "Start", "team": "web"},
        ]});
        let start = json!("start");
        assert_eq!(
            find_one(&answer, "/items", &[("/name", &start)]),
            Ok(Some(json!({"id": 2, "name": "Start", "team": "web"})))
        );
        let done = json!("done");
        assert_eq!(
            find_one(&answer, "/items", &[("/name", &done)]),
            Err("id 1, name Done, team web; id 3, name DONE , team api".to_string())
        );
        let web = json!("web");
        assert_eq!(
            find_one(&answer, "/items", &[("/name", &done), ("/team", &web)]),
            Ok(Some(json!({"id": 1, "name": "Done", "team": "web"})))
        );
        let close = json!("close");
        assert_eq!(find_one(&answer, "/items", &[("/name", &close)]), Ok(None));
        assert_eq!(
            find_one(&json!({}), "/items", &[("/name", &close)]),
            Ok(None)
        );
    }

    #[test]
    fn find_one_and_item_values_read_paths_through_lists_as_check_does() {
        let answer = json!({"page": {"boards": [
            {"id": 1, "name": "Todo", "tags": [{"name": "web"}]},
            {"id": 2, "name": "Doing", "tags": [{"name": "api"}, {"name": "web"}]},
        ]}});
        let doing = json!("doing");
        assert_eq!(
            find_one(&answer, "/page/boards", &[("/name", &doing)])
                .map(|found| found.map(|item| item["id"].clone())),
            Ok(Some(json!(2)))
        );
        // A field read through a list (`tags.name`: every tag's name) holds when one of its
        // values does.
        let api = json!("API");
        assert_eq!(
            find_one(&answer, "/page/boards", &[("/tags/name", &api)])
                .map(|found| found.map(|item| item["id"].clone())),
            Ok(Some(json!(2)))
        );
        let web = json!("web");
        assert!(find_one(&answer, "/page/boards", &[("/tags/name", &web)]).is_err());
        assert_eq!(item_values(&answer, "/page/boards", "/name"), "Todo, Doing");
        assert_eq!(item_values(&answer, "/page/none", "/name"), "none");
        let twice = json!({"transitions": [{"to": "Done"}, {"to": "Done"}, {"to": "Open"}]});
        assert_eq!(item_values(&twice, "/transitions", "/to"), "Done, Open");
    }
}
