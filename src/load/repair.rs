//! Repairs of schemas that are not valid JSON Schema 2020-12, so that every schema a tool
//! publishes is one its server and its clients can read and check values against.
//!
//! Real descriptions hold keywords no validator accepts: `type: user`, `type: date`, `type:
//! String`, `required: true` on a property, a `required` list written inside `properties`,
//! `multipleOf: -10`, a `pattern` that is not a regular expression. Copied as they are, they make
//! the published schema invalid: a client's validator may refuse all of it (as the servers did when
//! they checked values with the `jsonschema` crate, checking no argument of that tool at all). Each
//! such keyword is repaired where its meaning is plain (`String` is `string`, `date` a string of
//! format `date`) and dropped otherwise, with a warning naming the place in the document.
//! [`make_valid`] then checks the converted schema against the 2020-12 metaschema, dropping what is
//! still invalid (with a warning), and drops `$ref`s that point to nothing, so that what is
//! published is valid JSON Schema 2020-12.
//!
//! Patterns are read as a JSON Schema validator reads them, by the `jsonschema` crate
//! ([`regex_error`]), not by the `regex-lite` of the servers' own checker (the runtime's `schema`
//! module). The published schema is read by MCP clients too, whose validators read patterns as JSON
//! Schema has them, ECMA-262 regular expressions (ajv, as JavaScript `RegExp`s). A pattern with a
//! look-around, a backreference or a Unicode class is one such a client checks, so it is kept
//! although the server cannot read it: the server checks the rest of the schema, and `mcpgen build`
//! and `mcpgen check` warn of each such pattern (`schemas_compile` in src/lib.rs). A pattern
//! `jsonschema` refuses is, but for a few rare forms (a named backreference `\k<name>`), not
//! ECMA-262 either (an unclosed class `[a-`, a repeat without its lower bound `a{,3}`, Rust's own
//! `(?-u:\w)`), and a client that compiles the schema could fail on the whole of it, so it is
//! dropped with a warning even where `regex-lite` would read it.

use serde_json::{Map, Value, json};

/// The JSON Schema types.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Keywords whose value must be a non-negative integer.
const COUNTS: &[&str] = &[
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "maxContains",
    "minContains",
];

/// How many invalid places [`make_valid`] drops from one schema before it gives up on it.
const MAX_REPAIRS: usize = 64;

/// What to do with one keyword of a schema object.
pub(super) enum Fix {
    /// Replace its value, saying why.
    Replace(Value, String),
    /// Drop it, saying why.
    Drop(String),
}

/// The repair of the keyword `key` with `value` in a schema object, when it needs one.
/// `regex_error` tells why a pattern is not a regular expression JSON Schema validators read
/// ([`regex_error`], remembered per pattern), if it is not.
pub(super) fn keyword(
    key: &str,
    value: &Value,
    object: &Map<String, Value>,
    regex_error: &dyn Fn(&str) -> Option<String>,
) -> Option<Fix> {
    match key {
        "type" => repair_type(value, object),
        "required" => match value {
            Value::Array(names) if names.iter().all(Value::is_string) => {
                let mut unique: Vec<Value> = Vec::new();
                for name in names {
                    if !unique.contains(name) {
                        unique.push(name.clone());
                    }
                }
                (unique.len() != names.len()).then(|| {
                    Fix::Replace(
                        Value::Array(unique),
                        "`required` names a property twice; each is kept once".into(),
                    )
                })
            }
            Value::Array(names) => Some(Fix::Replace(
                Value::Array(names.iter().filter(|n| n.is_string()).cloned().collect()),
                "`required` lists something that is not a property name; only the names are kept"
                    .into(),
            )),
            other => Some(Fix::Drop(format!(
                "`required: {other}` is not JSON Schema (a schema lists its required properties by name, `required: [name, …]`, in the object that holds them); dropped"
            ))),
        },
        "multipleOf" => match value.as_f64() {
            Some(n) if n > 0.0 => None,
            _ => Some(Fix::Drop(format!(
                "`multipleOf: {value}` is not a number greater than 0; dropped"
            ))),
        },
        "pattern" => match value.as_str() {
            Some(pattern) => regex_error(pattern).map(|error| {
                Fix::Drop(format!(
                    "`pattern: {value}` is not a regular expression JSON Schema validators can read ({error}); dropped, so the value is not checked against it"
                ))
            }),
            None => Some(Fix::Drop(format!(
                "`pattern: {value}` is not text; dropped"
            ))),
        },
        key if COUNTS.contains(&key) => match value.as_u64() {
            Some(_) => None,
            None => match value.as_f64() {
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => {
                    Some(Fix::Replace(json!(n as u64), format!("`{key}: {value}` is written as a whole number")))
                }
                _ => Some(Fix::Drop(format!(
                    "`{key}: {value}` is not a whole number of 0 or more; dropped"
                ))),
            },
        },
        "enum" if !value.is_array() => Some(Fix::Replace(
            json!([value]),
            format!("`enum: {value}` is not a list; it is read as the list of that one value"),
        )),
        "uniqueItems" if !value.is_boolean() => Some(Fix::Drop(format!(
            "`uniqueItems: {value}` is not true or false; dropped"
        ))),
        _ => None,
    }
}

/// The repair of a `type` that is not one of the JSON Schema types (or a list of them).
fn repair_type(value: &Value, object: &Map<String, Value>) -> Option<Fix> {
    let names: Vec<&str> = match value {
        Value::String(name) => vec![name.as_str()],
        Value::Array(list) if list.iter().all(Value::is_string) => {
            list.iter().filter_map(Value::as_str).collect()
        }
        other => {
            return Some(Fix::Drop(format!(
                "`type: {other}` is not a type name; dropped, so any value is accepted"
            )));
        }
    };
    if names.iter().all(|name| TYPES.contains(name)) {
        let mut seen = Vec::new();
        for name in &names {
            if !seen.contains(name) {
                seen.push(name);
            }
        }
        if seen.len() == names.len() {
            return None;
        }
    }
    let mut types: Vec<&str> = Vec::new();
    let mut format = None;
    let mut unknown = Vec::new();
    for name in &names {
        match type_alias(name) {
            Some((kind, implied_format)) => {
                if !types.contains(&kind) {
                    types.push(kind);
                }
                format = format.or(implied_format);
            }
            None => unknown.push(*name),
        }
    }
    let written = match value {
        Value::String(name) => name.clone(),
        other => other.to_string(),
    };
    if types.is_empty() {
        return Some(Fix::Drop(format!(
            "`type: {written}` is not a JSON Schema type (null, boolean, object, array, number, string or integer); dropped, so any value is accepted"
        )));
    }
    let repaired = match types.as_slice() {
        [one] => json!(one),
        many => json!(many),
    };
    let mut message =
        format!("`type: {written}` is not a JSON Schema type; read as `type: {repaired}`");
    if let Some(format) = format.filter(|_| !object.contains_key("format")) {
        message.push_str(&format!(" with `format: {format}`"));
    }
    if !unknown.is_empty() {
        message.push_str(&format!(" (`{}` dropped)", unknown.join("`, `")));
    }
    Some(Fix::Replace(repaired, message))
}

/// The JSON Schema type (and the format it implies) that a type name written in a description
/// means: another casing of a type, or a name from a programming language or from OpenAPI's
/// formats.
fn type_alias(name: &str) -> Option<(&'static str, Option<&'static str>)> {
    let lower = name.trim().to_ascii_lowercase();
    if let Some(kind) = TYPES.iter().find(|kind| **kind == lower) {
        return Some((kind, None));
    }
    Some(match lower.as_str() {
        "int" | "long" | "short" | "int32" | "int64" | "bigint" => ("integer", None),
        "float" | "double" | "decimal" | "numeric" => ("number", None),
        "bool" => ("boolean", None),
        "str" | "text" => ("string", None),
        "date" => ("string", Some("date")),
        "date-time" | "datetime" | "timestamp" => ("string", Some("date-time")),
        "time" => ("string", Some("time")),
        "uuid" => ("string", Some("uuid")),
        "email" => ("string", Some("email")),
        "uri" | "url" => ("string", Some("uri")),
        // Swagger 2.0's file type: the bytes of a file.
        "file" | "binary" => ("string", Some("binary")),
        "list" => ("array", None),
        "map" | "dict" => ("object", None),
        _ => return None,
    })
}

/// The format a repaired `type` implies (`type: date` → `date`), for [`keyword`]'s caller to add.
pub(super) fn implied_format(value: &Value) -> Option<&'static str> {
    let names: Vec<&str> = match value {
        Value::String(name) => vec![name.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    names
        .iter()
        .filter(|name| !TYPES.contains(name))
        .find_map(|name| type_alias(name).and_then(|(_, format)| format))
}

/// Why `pattern` is not a regular expression as a JSON Schema validator reads one, if it is not:
/// the `jsonschema` crate's reading (ECMA-262's own escapes, `\d`, `\w`, `\cX`, translated, then
/// compiled by `fancy-regex`, which reads look-around and backreferences). See the module's
/// documentation for why this, and not the servers' `regex-lite`, decides what is dropped.
pub(super) fn regex_error(pattern: &str) -> Option<String> {
    match jsonschema::validator_for(&json!({ "pattern": pattern })) {
        Ok(_) => None,
        Err(error) => Some(error.to_string()),
    }
}

/// Makes the converted schema `schema` (of the document's schema at `pointer`) valid against the
/// 2020-12 metaschema: every `$ref` that points to
/// nothing in it and every value the metaschema rejects is dropped, each with a warning pushed
/// to `warnings`. Fails when the schema cannot be made valid that way.
pub(super) fn make_valid(
    schema: &mut Value,
    pointer: &str,
    warnings: &mut Vec<(String, String)>,
) -> Result<(), (String, String)> {
    if !schema.is_object() && !schema.is_boolean() {
        warnings.push((
            pointer.into(),
            format!("the schema `{schema}` is not a schema (an object, true or false); any value is accepted instead"),
        ));
        *schema = json!({});
        return Ok(());
    }
    let mut dangling = Vec::new();
    find_dangling_refs(schema, schema, &mut String::new(), &mut dangling);
    for (at, reference) in dangling.into_iter().rev() {
        remove_at(schema, &at);
        warnings.push((
            pointer.into(),
            format!(
                "`$ref: {reference}` (at {at} of the converted schema) points to nothing the schema holds; dropped, so that part accepts any value"
            ),
        ));
    }
    // Compiling each schema as well would catch nothing more (the patterns are checked one by
    // one as they are converted, the references above) and made loading GitHub's description
    // take more than twice as long; tests/corpus.rs compiles every published schema.
    let meta = jsonschema::draft202012::meta::validator();
    for _ in 0..MAX_REPAIRS {
        // Most schemas are valid: telling that is much cheaper than listing what is not.
        if meta.is_valid(schema) {
            return Ok(());
        }
        let Some((at, error)) = meta.iter_errors(schema).next().map(|error| {
            (
                error.instance_path().as_str().to_string(),
                error.to_string(),
            )
        }) else {
            return Ok(());
        };
        if at.is_empty() || !remove_at(schema, &at) {
            return Err((
                pointer.into(),
                format!(
                    "this schema is not valid JSON Schema 2020-12 and cannot be repaired: {error}"
                ),
            ));
        }
        warnings.push((
            pointer.into(),
            format!("{at} of this schema is not valid JSON Schema 2020-12 ({error}); dropped"),
        ));
    }
    Err((
        pointer.into(),
        format!(
            "this schema has more than {MAX_REPAIRS} places that are not valid JSON Schema 2020-12"
        ),
    ))
}

/// The `$ref`s in `value` (at the pointer `at` of `root`) that point to nothing in `root`: their
/// places (the object holding the `$ref`, with `/$ref`) and their text. `at` is one buffer that
/// grows and shrinks with the walk: a pointer built afresh for every value of every schema was
/// a tenth of loading Stripe's description.
fn find_dangling_refs(
    root: &Value,
    value: &Value,
    at: &mut String,
    out: &mut Vec<(String, String)>,
) {
    use std::fmt::Write;
    let length = at.len();
    match value {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get("$ref") {
                let resolves = reference
                    .strip_prefix('#')
                    .map(super::percent_decode)
                    .is_some_and(|target| root.pointer(&target).is_some());
                if !resolves {
                    out.push((format!("{at}/$ref"), reference.clone()));
                }
            }
            for (key, value) in object {
                // Literal data holds no references.
                if matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
                    continue;
                }
                at.push('/');
                super::push_pointer_token(at, key);
                find_dangling_refs(root, value, at, out);
                at.truncate(length);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                write!(at, "/{index}").expect("writing to a String does not fail");
                find_dangling_refs(root, item, at, out);
                at.truncate(length);
            }
        }
        _ => {}
    }
}

/// Removes the value at the JSON pointer `at` from `root`; whether there was one.
fn remove_at(root: &mut Value, at: &str) -> bool {
    let Some((parent, last)) = at.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match root.pointer_mut(parent) {
        Some(Value::Object(object)) => object.shift_remove(&last).is_some(),
        Some(Value::Array(items)) => match last.parse::<usize>() {
            Ok(index) if index < items.len() => {
                items.remove(index);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_metaschema_rejects_and_refs_to_nothing_are_dropped_with_a_warning_each() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": { "type": "integer", "maximum": "10" },
                "b": { "$ref": "#/components/schemas/B" },
            },
            "additionalProperties": "yes",
        });
        let mut warnings = Vec::new();
        make_valid(&mut schema, "/x", &mut warnings).expect("it can be repaired");
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": { "a": { "type": "integer" }, "b": {} },
            })
        );
        assert!(jsonschema::draft202012::meta::is_valid(&schema));
        let places: Vec<&str> = warnings
            .iter()
            .map(|(pointer, message)| {
                assert_eq!(pointer, "/x");
                message.split(' ').next().unwrap_or_default()
            })
            .collect();
        assert_eq!(places.len(), 3, "{warnings:?}");
        assert!(places.contains(&"`$ref:"), "{warnings:?}");
        assert!(places.contains(&"/additionalProperties"), "{warnings:?}");
        assert!(places.contains(&"/properties/a/maximum"), "{warnings:?}");
    }

    #[test]
    fn type_names_from_other_languages_are_read_as_json_schema_types() {
        let fix = |value: Value| match keyword("type", &value, &Map::new(), &|_| None) {
            Some(Fix::Replace(value, _)) => Some(value),
            Some(Fix::Drop(_)) => None,
            None => Some(value),
        };
        assert_eq!(fix(json!("Integer")), Some(json!("integer")));
        assert_eq!(fix(json!("long")), Some(json!("integer")));
        assert_eq!(
            fix(json!(["String", "null"])),
            Some(json!(["string", "null"]))
        );
        assert_eq!(fix(json!("date-time")), Some(json!("string")));
        assert_eq!(fix(json!("user")), None);
        assert_eq!(fix(json!("string")), Some(json!("string")));
    }
}
