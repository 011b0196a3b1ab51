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
    // Most schemas have none: telling that takes one walk without the places.
    if any_dangling_ref(schema, schema) {
        find_dangling_refs(schema, schema, &mut String::new(), &mut dangling);
    }
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
    if plainly_valid(schema) {
        // Every test that loads a document holds the walk to the crate's answer.
        debug_assert!(meta.is_valid(schema), "shown valid, but is not: {schema}");
        return Ok(());
    }
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

/// Whether `schema` is shown valid against the JSON Schema 2020-12 metaschema by a walk over the
/// shapes that metaschema allows; `false` when it is not, or when the walk cannot tell (a
/// keyword whose check needs more than the value's shape: `$id`, `$anchor`, `$schema`,
/// `$vocabulary`, a `patternProperties` name, a number written with a fraction where a whole
/// number is asked, …), and the caller asks the `jsonschema` crate's metaschema validator.
///
/// Written by hand beside that crate because it gives the same answer for far less work: to
/// check the 2020-12 metaschema, the crate resolves its `$dynamicRef`s and applies the seven
/// vocabulary schemas to every subschema, which took about 20 times as long as this walk over
/// Stripe's 2272 converted schemas (all of them valid, 14.6 MB as JSON), a tenth of generating
/// from that description. The keywords below are the metaschema's (`schema.json` and
/// `meta/*.json` of 2020-12): each applies to the value under its own name only, a keyword
/// none of them names accepts any value, and a schema is an object or a boolean. The tests of
/// this module hold the walk to the crate's answer over every keyword with values of every
/// kind, and [`make_valid`] asserts the crate agrees in every debug build, so over every schema
/// of every document the tests load (tests/corpus and the large descriptions among them).
pub(super) fn plainly_valid(schema: &Value) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(object) => object
            .iter()
            .all(|(key, value)| plainly_valid_keyword(key, value)),
        _ => false,
    }
}

/// Whether the keyword `key` with `value` is shown valid in a schema object ([`plainly_valid`]).
fn plainly_valid_keyword(key: &str, value: &Value) -> bool {
    let schemas = |value: &Value| match value {
        Value::Array(items) => !items.is_empty() && items.iter().all(plainly_valid),
        _ => false,
    };
    let schema_map = |value: &Value| match value {
        Value::Object(map) => map.values().all(plainly_valid),
        _ => false,
    };
    let unique_names = |value: &Value| match value {
        Value::Array(names) if names.len() <= 16 => names
            .iter()
            .enumerate()
            .all(|(index, name)| name.is_string() && !names[..index].contains(name)),
        // A long list (GitHub's objects require up to 75 fields) is sorted rather than compared
        // pair by pair.
        Value::Array(names) => {
            let mut sorted: Vec<&str> = Vec::with_capacity(names.len());
            for name in names {
                match name.as_str() {
                    Some(name) => sorted.push(name),
                    None => return false,
                }
            }
            sorted.sort_unstable();
            sorted.windows(2).all(|pair| pair[0] != pair[1])
        }
        _ => false,
    };
    match key {
        // Applicators of one subschema.
        "items"
        | "contains"
        | "additionalProperties"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "not"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => plainly_valid(value),
        "prefixItems" | "allOf" | "anyOf" | "oneOf" => schemas(value),
        "properties" | "dependentSchemas" | "$defs" | "definitions" => schema_map(value),
        "type" => match value {
            Value::String(name) => TYPES.contains(&name.as_str()),
            Value::Array(names) => {
                !names.is_empty()
                    && unique_names(value)
                    && names
                        .iter()
                        .all(|name| name.as_str().is_some_and(|name| TYPES.contains(&name)))
            }
            _ => false,
        },
        "const" | "default" => true,
        "enum" | "examples" => value.is_array(),
        "multipleOf" => value.as_f64().is_some_and(|n| n > 0.0),
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => value.is_number(),
        key if COUNTS.contains(&key) => value.is_u64(),
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
        "required" => unique_names(value),
        "dependentRequired" => match value {
            Value::Object(map) => map.values().all(unique_names),
            _ => false,
        },
        // Strings of format `regex` or `uri-reference`, which the metaschema validator takes
        // as annotations (it asserts no format).
        "title" | "description" | "format" | "contentEncoding" | "contentMediaType"
        | "$comment" | "pattern" | "$ref" | "$dynamicRef" => value.is_string(),
        // Keywords whose values the metaschema checks further than their shape.
        "$id" | "$schema" | "$anchor" | "$dynamicAnchor" | "$vocabulary" | "$recursiveAnchor"
        | "$recursiveRef" | "patternProperties" | "dependencies" => false,
        _ => true,
    }
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
            if let Some(Value::String(reference)) = object.get("$ref")
                && !resolves(root, reference)
            {
                out.push((format!("{at}/$ref"), reference.clone()));
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

/// Whether [`find_dangling_refs`] would find any `$ref` in `value` that points to nothing in
/// `root`: the same walk over the same keys, without building the places.
fn any_dangling_ref(root: &Value, value: &Value) -> bool {
    match value {
        Value::Object(object) => object.iter().any(|(key, value)| match key.as_str() {
            "$ref" => match value {
                Value::String(reference) => !resolves(root, reference),
                // Not a reference, but walked through as any other value is.
                other => any_dangling_ref(root, other),
            },
            // Literal data holds no references.
            "enum" | "const" | "default" | "examples" => false,
            _ => any_dangling_ref(root, value),
        }),
        Value::Array(items) => items.iter().any(|item| any_dangling_ref(root, item)),
        _ => false,
    }
}

/// Whether the `$ref` text `reference` points to something in `root`: a fragment (`#` and a
/// JSON pointer, percent-encoded) that names a value of `root`.
fn resolves(root: &Value, reference: &str) -> bool {
    let Some(fragment) = reference.strip_prefix('#') else {
        return false;
    };
    if fragment.contains(['%', '~']) {
        return root.pointer(&super::percent_decode(fragment)).is_some();
    }
    // A pointer with nothing to decode (`#/$defs/Name`, nearly every one) is followed through
    // the objects it names without the copy of each token that `Value::pointer` makes.
    if fragment.is_empty() {
        return true;
    }
    let Some(tokens) = fragment.strip_prefix('/') else {
        return false;
    };
    let mut target = root;
    for token in tokens.split('/') {
        target = match target {
            Value::Object(object) => match object.get(token) {
                Some(value) => value,
                None => return false,
            },
            // An index: read as `Value::pointer` reads it.
            Value::Array(_) => return root.pointer(fragment).is_some(),
            _ => return false,
        };
    }
    true
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

    /// Each keyword the walk of [`plainly_valid`] reads, with values of every kind of JSON.
    fn keyword_cases() -> Vec<Value> {
        let odd = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(3),
            json!(-2),
            json!(1.5),
            json!(2.0),
            json!(""),
            json!("string"),
            json!("user"),
            json!("#/$defs/A"),
            json!("(unclosed"),
            json!([]),
            json!(["string"]),
            json!(["string", "null"]),
            json!(["string", "string"]),
            json!(["a", 1]),
            json!([{}]),
            json!([{ "type": "date" }]),
            json!([true, { "type": "integer" }]),
            json!({}),
            json!({ "a": {} }),
            json!({ "a": 1 }),
            json!({ "a": ["b", "c"] }),
            json!({ "a": ["b", "b"] }),
            json!({ "type": "string" }),
            json!({ "type": 7 }),
            json!({ "$ref": 7 }),
            Value::Array((0..40).map(|n| json!(format!("f{n}"))).collect()),
            Value::Array((0..40).map(|n| json!(format!("f{}", n % 39))).collect()),
            Value::Array(
                (0..40)
                    .map(|n| {
                        if n == 20 {
                            json!(20)
                        } else {
                            json!(format!("f{n}"))
                        }
                    })
                    .collect(),
            ),
        ];
        let keywords = [
            "items",
            "contains",
            "additionalProperties",
            "propertyNames",
            "if",
            "then",
            "else",
            "not",
            "unevaluatedItems",
            "unevaluatedProperties",
            "contentSchema",
            "prefixItems",
            "allOf",
            "anyOf",
            "oneOf",
            "properties",
            "dependentSchemas",
            "$defs",
            "definitions",
            "patternProperties",
            "dependencies",
            "type",
            "const",
            "default",
            "enum",
            "examples",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "maxItems",
            "minItems",
            "maxContains",
            "minContains",
            "maxProperties",
            "minProperties",
            "uniqueItems",
            "deprecated",
            "readOnly",
            "writeOnly",
            "required",
            "dependentRequired",
            "title",
            "description",
            "format",
            "contentEncoding",
            "contentMediaType",
            "$comment",
            "pattern",
            "$ref",
            "$dynamicRef",
            "$id",
            "$schema",
            "$anchor",
            "$dynamicAnchor",
            "$vocabulary",
            "$recursiveAnchor",
            "$recursiveRef",
            "x-mcp-header",
            "unknownKeyword",
        ];
        let mut cases = vec![
            json!(true),
            json!(false),
            json!(null),
            json!(1),
            json!("s"),
            json!([]),
        ];
        for keyword in keywords {
            for value in &odd {
                let one = json!({ keyword: value });
                // Also one level down, where a schema is read as a subschema.
                cases.push(json!({ "type": "object", "properties": { "p": one.clone() } }));
                cases.push(json!({ "items": one.clone(), "$defs": { "D": one.clone() } }));
                cases.push(json!({ "anyOf": [ { "type": "null" }, one.clone() ] }));
                cases.push(one);
            }
        }
        cases
    }

    #[test]
    fn the_walk_shows_valid_no_invalid_schema_and_every_valid_one_whose_keywords_it_reads() {
        let meta = jsonschema::draft202012::meta::validator();
        // What the walk leaves to the crate: keywords it does not check, whole numbers written
        // with a fraction.
        let left = [
            "\"$id\"",
            "\"$schema\"",
            "\"$anchor\"",
            "\"$dynamicAnchor\"",
            "\"$vocabulary\"",
            "\"$recursiveAnchor\"",
            "\"$recursiveRef\"",
            "\"patternProperties\"",
            "\"dependencies\"",
            "2.0",
        ];
        let (mut valid, mut shown) = (0, 0);
        for schema in keyword_cases() {
            let is_valid = meta.is_valid(&schema);
            if plainly_valid(&schema) {
                shown += 1;
                assert!(is_valid, "shown valid, but is not: {schema}");
            } else if is_valid {
                let text = schema.to_string();
                assert!(
                    left.iter().any(|left| text.contains(left)),
                    "valid, but not shown valid: {schema}"
                );
            }
            valid += usize::from(is_valid);
        }
        assert!(
            shown > 1000 && valid > shown,
            "{shown} shown valid of {valid} valid"
        );
        let common = json!({
            "type": "object",
            "description": "A thing",
            "required": ["id", "kind"],
            "properties": {
                "id": { "type": "string", "pattern": "^[a-z]+$", "maxLength": 40, "format": "uuid" },
                "kind": { "enum": ["a", "b"], "default": "a" },
                "count": { "type": ["integer", "null"], "minimum": 0, "multipleOf": 2 },
                "tags": { "type": "array", "items": { "type": "string" }, "uniqueItems": true },
                "child": { "$ref": "#/$defs/Thing" },
                "either": { "anyOf": [ { "type": "string" }, { "type": "number", "exclusiveMaximum": 1.5 } ] },
                "free": true,
            },
            "additionalProperties": false,
            "examples": [ { "id": "x" } ],
            "x-mcp-header": "X-Thing",
            "$defs": { "Thing": { "type": "object", "readOnly": true, "title": "Thing" } },
        });
        assert!(plainly_valid(&common));
        assert!(meta.is_valid(&common));
    }

    #[test]
    fn the_metaschema_validator_takes_formats_as_annotations_which_the_walk_relies_on() {
        // `$ref` is a `uri-reference` and `pattern` a `regex` to the metaschema: the walk takes
        // any string there because the validator asserts no format.
        let meta = jsonschema::draft202012::meta::validator();
        for schema in [
            json!({ "$ref": "not a uri reference: <%%>" }),
            json!({ "pattern": "(unclosed" }),
            json!({ "format": "no-such-format" }),
        ] {
            assert!(meta.is_valid(&schema), "{schema}");
            assert!(plainly_valid(&schema), "{schema}");
        }
    }

    #[test]
    fn the_walk_without_places_finds_a_dangling_ref_exactly_when_the_walk_with_places_does() {
        let root = json!({
            "$defs": {
                "A": {},
                "a/b": {},
                "c~d": {},
                "list": [ {}, { "x": {} } ],
                "per%cent": {},
            },
            "enum": [ { "$ref": "#/nowhere" } ],
        });
        let references = [
            "#",
            "",
            "#/",
            "#/$defs",
            "#/$defs/A",
            "#/$defs/B",
            "#/$defs/a~1b",
            "#/$defs/a/b",
            "#/$defs/c~0d",
            "#/$defs/c~d",
            "#/%24defs/A",
            "#/$defs/per%25cent",
            "#/$defs/A%",
            "#/$defs/list/0",
            "#/$defs/list/1/x",
            "#/$defs/list/01",
            "#/$defs/list/+1",
            "#/$defs/list/2",
            "#/$defs/list/x",
            "#/$defs/A/x",
            "other.json#/$defs/A",
            "#$defs",
        ];
        for reference in references {
            let old = reference
                .strip_prefix('#')
                .map(super::super::percent_decode)
                .is_some_and(|target| root.pointer(&target).is_some());
            assert_eq!(resolves(&root, reference), old, "{reference}");
            // Where a walk meets it: in a subschema, and inside a `$ref` that is not text.
            for place in [
                json!({ "p": { "items": [ { "$ref": reference } ] } }),
                json!({ "p": { "$ref": { "$ref": reference } } }),
            ] {
                let mut schema = root.clone();
                schema["properties"] = place;
                let mut found = Vec::new();
                find_dangling_refs(&schema, &schema, &mut String::new(), &mut found);
                assert_eq!(
                    any_dangling_ref(&schema, &schema),
                    !found.is_empty(),
                    "{reference}"
                );
                assert_eq!(found.is_empty(), old, "{reference}");
            }
        }
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
