//! A tool call's arguments: deserializing them into the tool's input type, and describing a
//! value that breaks the tool's input schema (or an answer that breaks its output schema) in
//! words the model can act on.

use rmcp::model::JsonObject;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::schema::{ErrorKind as Kind, Schema, SchemaError};
use super::tool::{ToolError, shorten};

/// Where and how `value` breaks `schema`, if it does: `at /gid: 100 is not of type "string"`;
/// `the answer: text, not JSON: "<html>…"`.
pub(crate) fn misfit(schema: &Schema, value: &Value) -> Option<String> {
    let errors = schema.errors(value, 1);
    let error = errors.first()?;
    let place = match error.path.as_str() {
        "" => "the answer".to_string(),
        pointer => format!("at {pointer}"),
    };
    let found = match error.instance {
        Value::String(text) if error.path.is_empty() => {
            format!("text, not JSON: {:?}", shorten(text, 200))
        }
        _ => shorten(&error.to_string(), 300),
    };
    Some(format!("{place}: {found}"))
}

/// The checker of one of a tool's schemas. A pattern it cannot read (a look-around, say) is
/// logged and left unchecked; the rest of the schema is checked.
pub(crate) fn compile_schema(tool: &str, which: &str, schema: &Value) -> Schema {
    let (schema, problems) = Schema::new(schema);
    for problem in problems {
        tracing::warn!(tool, "in the {which} schema, {problem}");
    }
    schema
}

/// One way a call's arguments break the tool's input schema, as a sentence that names the
/// argument, the value given, what is valid and an example where the schema gives or implies
/// one: "Invalid argument `priority`: 7 is above the maximum 5; give an integer from 1 to 5,
/// e.g. 3."
pub(super) fn describe_argument_error(error: &SchemaError<'_>) -> String {
    let path = error.path.as_str();
    let rule = error.rule;
    let value = error.instance;
    let given = show(value);
    let valid = || valid_with_example(rule);
    let (argument, problem) = match &error.kind {
        Kind::Required { property } => {
            let name = *property;
            let member = format!("/properties/{}", escape_pointer(name));
            let wanted = rule.pointer(&member).unwrap_or(&Value::Null);
            let argument = format!("{path}/{}", escape_pointer(name));
            return format!(
                "Missing argument `{}`: it is required; give {}.",
                argument_name(&argument),
                valid_with_example(wanted)
            );
        }
        Kind::AdditionalProperties { unexpected } => {
            let names: Vec<String> = unexpected
                .iter()
                .map(|name| {
                    format!(
                        "`{}`",
                        argument_name(&format!("{path}/{}", escape_pointer(name)))
                    )
                })
                .collect();
            let known: Vec<String> = rule
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| properties.keys().map(|key| format!("`{key}`")).collect())
                .unwrap_or_default();
            let takes = if known.is_empty() {
                "no arguments here".to_string()
            } else {
                format!("only {}", known.join(", "))
            };
            let noun = if names.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            return format!(
                "Unknown {noun} {}: the tool takes {takes}.",
                names.join(", ")
            );
        }
        Kind::Enum { options } => (
            path,
            format!("{given} is not allowed; use one of {}", list(options)),
        ),
        Kind::Const { expected } => (
            path,
            format!("{given} is not allowed; use {}", show(expected)),
        ),
        Kind::Type { .. } => (
            path,
            format!("{given} is {}; give {}", kind_of(value), valid()),
        ),
        Kind::Minimum { limit } => (
            path,
            format!("{given} is below the minimum {limit}; give {}", valid()),
        ),
        Kind::Maximum { limit } => (
            path,
            format!("{given} is above the maximum {limit}; give {}", valid()),
        ),
        Kind::ExclusiveMinimum { limit } => (
            path,
            format!("{given} is not above {limit}; give {}", valid()),
        ),
        Kind::ExclusiveMaximum { limit } => (
            path,
            format!("{given} is not below {limit}; give {}", valid()),
        ),
        Kind::MinLength { limit } => (
            path,
            format!(
                "{given} is shorter than {limit} characters; give {}",
                valid()
            ),
        ),
        Kind::MaxLength { limit } => {
            let length = value.as_str().map_or(0, |text| text.chars().count());
            (
                path,
                format!(
                    "the text given has {length} characters, more than the maximum {limit}; give {}",
                    valid()
                ),
            )
        }
        Kind::Pattern { pattern } => (
            path,
            format!(
                "{given} does not match the pattern `{pattern}`; give {}",
                valid()
            ),
        ),
        Kind::Format { format } => (
            path,
            format!("{given} is not a valid {format}; give {}", valid()),
        ),
        Kind::MinItems { limit } => (
            path,
            format!("{given} has fewer than {limit} items; give {}", valid()),
        ),
        Kind::MaxItems { limit } => (
            path,
            format!(
                "the list given has more than {limit} items; give {}",
                valid()
            ),
        ),
        Kind::UniqueItems => (
            path,
            format!("{given} has repeated items; give each item once"),
        ),
        _ => (path, shorten(&error.to_string(), 300)),
    };
    if argument.is_empty() {
        format!("Invalid arguments: {problem}.")
    } else {
        format!("Invalid argument `{}`: {problem}.", argument_name(argument))
    }
}

/// An argument's name from its JSON pointer in the arguments: `/priority` → `priority`,
/// `/labels/0` → `labels[0]`, `/body/name` → `body.name`.
pub(super) fn argument_name(pointer: &str) -> String {
    let mut name = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !name.is_empty() && !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            name.push_str(&format!("[{segment}]"));
        } else {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(&segment);
        }
    }
    name
}

fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A value as the model wrote it, shortened.
fn show(value: &Value) -> String {
    shorten(&value.to_string(), 100)
}

/// Values listed for the model: `1, 2, 3` or `"open", "closed"`.
fn list(values: &Value) -> String {
    match values {
        Value::Array(values) => values.iter().map(show).collect::<Vec<_>>().join(", "),
        other => show(other),
    }
}

/// What kind of JSON value `value` is: `a string`, `an integer`, ….
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// What a schema accepts, with an example when it gives or implies one.
pub(super) fn valid_with_example(rule: &Value) -> String {
    let valid = valid_values(rule);
    match example(rule) {
        Some(example) if !valid.starts_with("one of") => {
            format!("{valid}, e.g. {}", show(&example))
        }
        _ => valid,
    }
}

/// What a schema accepts, in words: `an integer from 1 to 5`, `a string of at most 200
/// characters`, `one of "open", "closed"`.
fn valid_values(rule: &Value) -> String {
    if let Some(options) = rule.get("enum") {
        return format!("one of {}", list(options));
    }
    if let Some(expected) = rule.get("const") {
        return format!("exactly {}", show(expected));
    }
    let types: Vec<&str> = match rule.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let number = |key: &str| rule.get(key).filter(|value| value.is_number());
    let mut text = match types.iter().copied().find(|name| *name != "null") {
        Some(kind @ ("integer" | "number")) => {
            let mut text = if kind == "integer" {
                "an integer".to_string()
            } else {
                "a number".to_string()
            };
            match (number("minimum"), number("maximum")) {
                (Some(min), Some(max)) => text.push_str(&format!(" from {min} to {max}")),
                (Some(min), None) => text.push_str(&format!(" of at least {min}")),
                (None, Some(max)) => text.push_str(&format!(" of at most {max}")),
                (None, None) => {}
            }
            if let Some(limit) = number("exclusiveMinimum") {
                text.push_str(&format!(" above {limit}"));
            }
            if let Some(limit) = number("exclusiveMaximum") {
                text.push_str(&format!(" below {limit}"));
            }
            text
        }
        Some("string") => {
            let mut text = match rule.get("format").and_then(Value::as_str) {
                Some(format) => format!("a string in {format} format"),
                None => "a string".to_string(),
            };
            match (number("minLength"), number("maxLength")) {
                (Some(min), Some(max)) => text.push_str(&format!(" of {min} to {max} characters")),
                (Some(min), None) => text.push_str(&format!(" of at least {min} characters")),
                (None, Some(max)) => text.push_str(&format!(" of at most {max} characters")),
                (None, None) => {}
            }
            if let Some(pattern) = rule.get("pattern").and_then(Value::as_str) {
                text.push_str(&format!(" matching `{pattern}`"));
            }
            text
        }
        Some("boolean") => "true or false".to_string(),
        Some("array") => {
            let mut text = "a list".to_string();
            match (number("minItems"), number("maxItems")) {
                (Some(min), Some(max)) => text.push_str(&format!(" of {min} to {max} items")),
                (Some(min), None) => text.push_str(&format!(" of at least {min} items")),
                (None, Some(max)) => text.push_str(&format!(" of at most {max} items")),
                (None, None) => {}
            }
            text
        }
        Some("object") => "an object".to_string(),
        _ => "a value the tool's schema allows".to_string(),
    };
    if types.contains(&"null") {
        text.push_str(" or null");
    }
    text
}

/// An example of a valid value: the schema's own (`examples`, `default`, the first `enum`
/// value) when it fits the schema's `format`, else one of the format's (a date for `date`, not a
/// date-time), or for a bounded number one inside the bounds.
fn example(rule: &Value) -> Option<Value> {
    let given = rule
        .pointer("/examples/0")
        .or_else(|| rule.get("default"))
        .or_else(|| rule.pointer("/enum/0"));
    let format = rule.get("format").and_then(Value::as_str);
    if let Some(given) = given
        && format.is_none_or(|format| super::schema::fits_format(format, given))
    {
        return Some(given.clone());
    }
    if let Some(example) = format.and_then(format_example) {
        return Some(Value::from(example));
    }
    let integer = rule.get("type").and_then(Value::as_str) == Some("integer");
    let min = rule.get("minimum").and_then(Value::as_f64);
    let max = rule.get("maximum").and_then(Value::as_f64);
    let middle = match (min, max) {
        (Some(min), Some(max)) => min + (max - min) / 2.0,
        (Some(bound), None) | (None, Some(bound)) => bound,
        (None, None) => return None,
    };
    if integer {
        // Bounds of an integer are whole, and the middle is rounded down between them.
        Some(Value::from(middle.floor() as i64))
    } else {
        serde_json::Number::from_f64(middle).map(Value::Number)
    }
}

/// A value of each string format JSON Schema defines that a model may be asked for.
pub(super) fn format_example(format: &str) -> Option<&'static str> {
    Some(match format {
        "date" => "2026-01-31",
        "date-time" => "2026-01-31T09:30:00Z",
        "time" => "09:30:00Z",
        "duration" => "P3DT4H",
        "email" | "idn-email" => "someone@example.com",
        "hostname" | "idn-hostname" => "api.example.com",
        "ipv4" => "192.0.2.10",
        "ipv6" => "2001:db8::10",
        "uri" | "iri" => "https://example.com/path",
        "uri-reference" | "iri-reference" => "/path?query=1",
        "uuid" => "123e4567-e89b-12d3-a456-426614174000",
        _ => return None,
    })
}

/// Deserializes a tool's arguments into its input type, naming the argument that does not fit.
pub fn parse_arguments<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, ToolError> {
    let value = Value::Object(arguments);
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        ToolError::InvalidArguments(if path == "." {
            format!("Invalid arguments: {inner}.")
        } else {
            format!("Invalid argument `{path}`: {inner}.")
        })
    })
}

/// Checks that an integer argument is one of the values the API accepts.
pub fn check_one_of(argument: &str, value: Option<i64>, allowed: &[i64]) -> Result<(), ToolError> {
    match value {
        Some(value) if !allowed.contains(&value) => {
            let allowed: Vec<String> = allowed.iter().map(i64::to_string).collect();
            Err(ToolError::InvalidArguments(format!(
                "Invalid argument `{argument}`: {value} is not allowed; use one of {}.",
                allowed.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema::fits_format;
    use super::*;
    use serde_json::json;

    #[test]
    fn every_format_example_fits_its_format_and_a_wrong_one_does_not() {
        for format in [
            "date",
            "date-time",
            "time",
            "duration",
            "email",
            "idn-email",
            "hostname",
            "idn-hostname",
            "ipv4",
            "ipv6",
            "uri",
            "iri",
            "uri-reference",
            "iri-reference",
            "uuid",
        ] {
            let example = format_example(format).expect("an example for each format listed");
            assert!(fits_format(format, &json!(example)), "{format}: {example}");
        }
        assert!(!fits_format("date", &json!("2026-01-31T09:30:00Z")));
        assert!(!fits_format("uuid", &json!("x")));
        assert!(!fits_format("email", &json!("nobody")));
    }

    #[test]
    fn what_a_schema_accepts_is_put_in_words_with_an_example() {
        let cases = [
            (
                json!({"type": "integer", "minimum": 1, "maximum": 5}),
                "an integer from 1 to 5, e.g. 3",
            ),
            (
                json!({"type": "integer", "minimum": 1, "examples": [10]}),
                "an integer of at least 1, e.g. 10",
            ),
            (
                json!({"type": "number", "exclusiveMinimum": 0}),
                "a number above 0",
            ),
            (
                json!({"type": "string", "maxLength": 20}),
                "a string of at most 20 characters",
            ),
            (
                json!({"type": "string", "format": "uuid", "default": "x"}),
                "a string in uuid format, e.g. \"123e4567-e89b-12d3-a456-426614174000\"",
            ),
            (
                json!({"type": "string", "format": "uuid", "default": "9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b"}),
                "a string in uuid format, e.g. \"9b2f6c1e-0d4a-4f5e-8a7b-3c2d1e0f9a8b\"",
            ),
            (
                json!({"type": "string", "format": "date", "examples": ["2024-05-01T00:00:00Z"]}),
                "a string in date format, e.g. \"2026-01-31\"",
            ),
            (
                json!({"type": "string", "format": "date"}),
                "a string in date format, e.g. \"2026-01-31\"",
            ),
            (
                json!({"type": "string", "format": "date-time"}),
                "a string in date-time format, e.g. \"2026-01-31T09:30:00Z\"",
            ),
            (
                json!({"type": "string", "format": "email"}),
                "a string in email format, e.g. \"someone@example.com\"",
            ),
            (
                json!({"type": "string", "format": "uri"}),
                "a string in uri format, e.g. \"https://example.com/path\"",
            ),
            (
                json!({"type": "string", "format": "int-ish", "default": "x"}),
                "a string in int-ish format, e.g. \"x\"",
            ),
            (
                json!({"type": ["string", "null"], "pattern": "^a"}),
                "a string matching `^a` or null",
            ),
            (
                json!({"type": "string", "enum": ["a", "b"]}),
                "one of \"a\", \"b\"",
            ),
            (
                json!({"type": "array", "maxItems": 3}),
                "a list of at most 3 items",
            ),
            (json!({"type": "boolean"}), "true or false"),
        ];
        for (schema, expected) in cases {
            assert_eq!(valid_with_example(&schema), expected, "{schema}");
        }
    }

    #[test]
    fn argument_names_are_read_from_json_pointers() {
        assert_eq!(argument_name("/priority"), "priority");
        assert_eq!(argument_name("/labels/0"), "labels[0]");
        assert_eq!(argument_name("/body/a~1b"), "body.a/b");
    }
}
