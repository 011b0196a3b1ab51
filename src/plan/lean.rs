//! Lean schemas: what a tool's schemas derived from the spec keep, so that `tools/list` carries
//! what a model or a client uses and nothing the API documentation adds for other readers.
//!
//! - An **output schema** keeps only the keywords that validate ([`output`]). The output schema
//!   is what a client validates `structuredContent` against; model APIs do not take it (the
//!   reference article's own output schema has no descriptions). The generated server checks
//!   each upstream answer against exactly the schema it publishes, so dropping annotations there
//!   changes what is checked only where a `format` was (the server no longer rejects an answer
//!   whose `date-time` is malformed); every other dropped keyword validates nothing.
//!   Below the root, a `type` that lists several types (`["string", "null"]`, how OpenAPI's
//!   nullable arrives) is written as `anyOf` of one `type` each, which validates exactly the same
//!   values: clients that map schemas onto a one-`type` dialect (Gemini's function declarations)
//!   cannot say a list of types, and the MCP Inspector's `--strict` warns about each one.
//! - An **input schema** is what the model reads, so it keeps descriptions, examples, defaults
//!   and the formats that say something (`date-time`, `uuid`, `email`, `uri`, …); it loses only
//!   the formats that restate the JSON type (`int32`, `int64`, `float`, `double` on an integer or
//!   a number — no validator checks them, and the Rust field is an `i64`/`f64` whatever they say)
//!   and empty descriptions ([`input`]).
//!
//! Both walk the schema keyword by keyword, so a property *named* `description` or `format` (a
//! key of `properties`, `$defs`, …) is kept, as are the values of `enum`, `const`, `default` and
//! `examples`, which are data, not schemas.

use serde_json::{Map, Value};

use crate::api::subschemas;

/// Annotation keywords: they document a value but never make one valid or invalid (`format` is
/// an assertion only for validators told to check it, and then only for the formats they know).
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "examples",
    "example",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "$comment",
    "externalDocs",
    "xml",
];

/// The formats that only say how wide a number is.
const NUMBER_FORMATS: &[&str] = &["int32", "int64", "float", "double"];

/// `schema` with only the keywords that validate: no [`ANNOTATIONS`], no `x-` extensions and no
/// `type` that an `enum` or `const` beside it already implies, and a `type` listing several types
/// written as `anyOf` of one type each ([`one_type_each`]), at any depth below the root. The root
/// keeps its `type`: an output schema must say `type: object` (clients and the 2025 protocol
/// versions leave out one that does not), even where its `enum` lists only objects.
pub fn output(schema: &Value) -> Value {
    let lean = one_type_each(
        &walk(schema, None, &|key, value, object, _| {
            let annotation = ANNOTATIONS.contains(&key) || key.starts_with("x-");
            if annotation || (key == "type" && implied_by_values(value, object)) {
                Edit::Drop
            } else {
                Edit::Keep
            }
        }),
        true,
    );
    match (schema.get("type"), lean) {
        (Some(kind), Value::Object(object)) if !object.contains_key("type") => {
            let mut typed = Map::new();
            typed.insert("type".into(), kind.clone());
            typed.extend(object);
            Value::Object(typed)
        }
        (_, lean) => lean,
    }
}

/// `schema` with each `"type": [A, B, …]` below the root written as `"anyOf": [{"type": A},
/// {"type": B}, …]` in its place, the same set of values: every other keyword beside it already
/// applies to the values of its own type only (`minLength` to strings, `items` to arrays). An
/// object that has an `anyOf` already keeps its list.
fn one_type_each(schema: &Value, root: bool) -> Value {
    let Value::Object(object) = schema else {
        return schema.clone();
    };
    let types = match object.get("type") {
        Some(Value::Array(types))
            if !root
                && types.len() > 1
                && types.iter().all(Value::is_string)
                && !object.contains_key("anyOf") =>
        {
            Some(types)
        }
        _ => None,
    };
    let mut out = Map::new();
    for (key, value) in object {
        match (key.as_str(), types) {
            ("type", Some(types)) => {
                let each = types.iter().map(|t| serde_json::json!({ "type": t }));
                out.insert("anyOf".into(), Value::Array(each.collect()));
            }
            _ => {
                out.insert(
                    key.clone(),
                    subschemas_mapped(key, value, &|s| one_type_each(s, false)),
                );
            }
        }
    }
    Value::Object(out)
}

/// `value`, the value of keyword `key` of a schema object, with `map` applied to each of its
/// subschemas (the value itself, the items of a list of schemas, or the values of a map of them).
/// A value that holds no subschemas is returned as it is.
fn subschemas_mapped(key: &str, value: &Value, map: &dyn Fn(&Value) -> Value) -> Value {
    match value {
        Value::Object(_) if subschemas::ONE.contains(&key) => map(value),
        Value::Array(list) if subschemas::LISTS.contains(&key) || key == "items" => {
            Value::Array(list.iter().map(map).collect())
        }
        Value::Object(entries) if subschemas::MAPS.contains(&key) => Value::Object(
            entries
                .iter()
                .map(|(name, s)| (name.clone(), map(s)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// Whether `type` (in a schema `object`) only repeats what the object's `enum` or `const` says:
/// every value it allows already has one of the types, so `{"type": "string", "enum": ["a",
/// "b"]}` validates exactly what `{"enum": ["a", "b"]}` does.
fn implied_by_values(types: &Value, object: &Map<String, Value>) -> bool {
    let types: Vec<&str> = match types {
        Value::String(one) => vec![one.as_str()],
        Value::Array(list) => match list.iter().map(Value::as_str).collect::<Option<_>>() {
            Some(names) => names,
            None => return false,
        },
        _ => return false,
    };
    let has_type = |value: &Value| {
        types.iter().any(|name| match *name {
            "null" => value.is_null(),
            "boolean" => value.is_boolean(),
            "string" => value.is_string(),
            "number" => value.is_number(),
            "integer" => value.is_i64() || value.is_u64(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            _ => false,
        })
    };
    match (object.get("enum"), object.get("const")) {
        (_, Some(value)) => has_type(value),
        (Some(Value::Array(values)), None) => !values.is_empty() && values.iter().all(has_type),
        _ => false,
    }
}

/// `schema` without the formats that restate the JSON type and without empty descriptions (a
/// description's leading and trailing white space, which YAML block scalars leave, trimmed), at
/// any depth; everything else kept.
pub fn input(schema: &Value) -> Value {
    into_input(schema.clone())
}

/// [`input`] of a schema of one's own, edited where it is rather than copied: the planner's
/// input schemas are fresh copies already (Kubernetes' 1,067 are 12 MB of JSON).
pub fn into_input(mut schema: Value) -> Value {
    walk_in_place(&mut schema, None, &input_edit);
    schema
}

/// What [`input`] does with one keyword (see [`Editor`]).
fn input_edit(key: &str, value: &Value, object: &Map<String, Value>, _: Option<&str>) -> Edit {
    match (key, value) {
        ("format", _) if restates_type(value, object) => Edit::Drop,
        ("description", Value::String(text)) if text.trim().is_empty() => Edit::Drop,
        ("description", Value::String(text)) if text.trim().len() != text.len() => {
            Edit::Replace(Value::String(text.trim().to_string()))
        }
        _ => Edit::Keep,
    }
}

/// `schema` without the descriptions that only restate their property's name (`"userStatus":
/// {"description": "User Status"}`), at any depth: a model reads the name already. What a
/// curation file writes is never passed through this; it applies to what the spec says.
pub fn without_restated_names(schema: &Value) -> Value {
    walk(
        schema,
        None,
        &|key, value, _, property| match (key, value, property) {
            ("description", Value::String(text), Some(name)) if restates_name(text, name) => {
                Edit::Drop
            }
            _ => Edit::Keep,
        },
    )
}

/// Whether `text` is `name` in other words: the same [`words`](crate::text::words), case,
/// punctuation and casing style aside.
fn restates_name(text: &str, name: &str) -> bool {
    let said = crate::text::words(text);
    !said.is_empty() && said == crate::text::words(name)
}

/// Whether `format` (in a schema `object`) only repeats that the value is a number.
fn restates_type(format: &Value, object: &Map<String, Value>) -> bool {
    let numeric = |t: &Value| matches!(t.as_str(), Some("integer" | "number"));
    let is_number = match object.get("type") {
        Some(Value::Array(types)) => {
            types.iter().any(numeric) && types.iter().all(|t| numeric(t) || t == "null")
        }
        Some(t) => numeric(t),
        None => false,
    };
    is_number && format.as_str().is_some_and(|f| NUMBER_FORMATS.contains(&f))
}

/// What [`walk`] does with one keyword of a schema object.
enum Edit {
    Keep,
    Drop,
    /// Keep the keyword with this value instead (a value that is not a schema).
    Replace(Value),
}

/// Decides about one keyword of a schema object, given the keyword, its value, the object and
/// the name of the property the object is the schema of (if it is one).
type Editor = dyn Fn(&str, &Value, &Map<String, Value>, Option<&str>) -> Edit;

/// A copy of `schema` (the schema of the property named `property`, if it is one) in which
/// `edit` decides, in each schema object, about each keyword (given the keyword, its value, the
/// object it is in and the object's property name); the subschemas of the keywords kept are
/// walked in turn.
fn walk(schema: &Value, property: Option<&str>, edit: &Editor) -> Value {
    let Value::Object(object) = schema else {
        // `true`/`false` schemas, and anything that is not a schema.
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in object {
        let kept = match edit(key, value, object, property) {
            Edit::Drop => continue,
            Edit::Replace(replaced) => replaced,
            Edit::Keep => match value {
                Value::Object(_) if subschemas::ONE.contains(&key.as_str()) => {
                    walk(value, None, edit)
                }
                Value::Array(list)
                    if subschemas::LISTS.contains(&key.as_str()) || key == "items" =>
                {
                    Value::Array(list.iter().map(|s| walk(s, None, edit)).collect())
                }
                Value::Object(map) if subschemas::MAPS.contains(&key.as_str()) => {
                    let is_properties = key == "properties";
                    Value::Object(
                        map.iter()
                            .map(|(name, s)| {
                                let property = is_properties.then_some(name.as_str());
                                (name.clone(), walk(s, property, edit))
                            })
                            .collect(),
                    )
                }
                _ => value.clone(),
            },
        };
        out.insert(key.clone(), kept);
    }
    Value::Object(out)
}

/// [`walk`] done to `schema` itself: what it makes of a copy, made of the value in place. Each
/// schema object's keywords are all decided on first, as `walk` decides them, on the object as
/// it was.
fn walk_in_place(schema: &mut Value, property: Option<&str>, edit: &Editor) {
    let Value::Object(object) = schema else {
        return;
    };
    let mut edits: Vec<Edit> = object
        .iter()
        .map(|(key, value)| edit(key, value, object, property))
        .collect();
    if edits.iter().any(|edit| matches!(edit, Edit::Drop)) {
        // `retain` visits the keywords in their order and keeps the order of those it keeps.
        let mut decided = edits.iter();
        object.retain(|_, _| !matches!(decided.next(), Some(Edit::Drop)));
        edits.retain(|edit| !matches!(edit, Edit::Drop));
    }
    for ((key, value), decided) in object.iter_mut().zip(edits) {
        match decided {
            Edit::Drop => unreachable!("the dropped keywords are gone"),
            Edit::Replace(replaced) => *value = replaced,
            Edit::Keep => match value {
                Value::Object(_) if subschemas::ONE.contains(&key.as_str()) => {
                    walk_in_place(value, None, edit)
                }
                Value::Array(list)
                    if subschemas::LISTS.contains(&key.as_str()) || key == "items" =>
                {
                    list.iter_mut().for_each(|s| walk_in_place(s, None, edit))
                }
                Value::Object(map) if subschemas::MAPS.contains(&key.as_str()) => {
                    let is_properties = key == "properties";
                    for (name, s) in map.iter_mut() {
                        walk_in_place(s, is_properties.then_some(name.as_str()), edit);
                    }
                }
                _ => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_schemas_keep_only_the_keywords_that_validate() {
        let schema = json!({
            "type": "object",
            "title": "Pet",
            "description": "A pet for sale.",
            "required": ["name"],
            "x-internal": true,
            "externalDocs": { "url": "https://example.com" },
            "properties": {
                "id": { "type": "integer", "format": "int64", "examples": [10], "readOnly": true },
                "name": { "type": "string", "minLength": 1, "example": "doggie", "default": "rex" },
                "born": { "type": "string", "format": "date-time", "deprecated": true, "$comment": "UTC" },
                "secret": { "type": "string", "writeOnly": true, "xml": { "name": "s" } },
                "status": { "type": "string", "enum": ["available", "sold"], "description": "the status" },
            },
            "additionalProperties": false,
        });
        assert_eq!(
            output(&schema),
            json!({
                "type": "object",
                "required": ["name"],
                "properties": {
                    "id": { "type": "integer" },
                    "name": { "type": "string", "minLength": 1 },
                    "born": { "type": "string" },
                    "secret": { "type": "string" },
                    "status": { "enum": ["available", "sold"] },
                },
                "additionalProperties": false,
            })
        );
    }

    #[test]
    fn output_schemas_lose_a_type_their_enum_or_const_implies() {
        let schema = json!({
            "type": "object",
            "properties": {
                "status": { "type": "string", "enum": ["open", "done"] },
                "code": { "type": "integer", "enum": [1, 2, 3] },
                "kind": { "type": "string", "const": "pet" },
                "maybe": { "type": ["string", "null"], "enum": ["a", null] },
            },
        });
        assert_eq!(
            output(&schema),
            json!({
                "type": "object",
                "properties": {
                    "status": { "enum": ["open", "done"] },
                    "code": { "enum": [1, 2, 3] },
                    "kind": { "const": "pet" },
                    "maybe": { "enum": ["a", null] },
                },
            })
        );
    }

    #[test]
    fn an_output_schema_keeps_its_root_type_beside_an_enum_of_objects() {
        let schema = json!({ "type": "object", "enum": [{ "state": "up" }] });
        assert_eq!(output(&schema), schema);
        let nested = json!({ "type": "object", "properties": { "s": schema } });
        assert_eq!(
            output(&nested),
            json!({ "type": "object", "properties": { "s": { "enum": [{ "state": "up" }] } } })
        );
    }

    #[test]
    fn output_schemas_keep_a_type_that_rules_out_some_of_their_values() {
        let schema = json!({
            "type": "object",
            "properties": {
                // 1.5 is not an integer: the type narrows the enum.
                "level": { "type": "integer", "enum": [1, 1.5] },
                "mixed": { "type": "string", "enum": ["a", 1] },
                "empty": { "type": "string", "enum": [] },
                "tagged": { "type": "object", "const": "pet" },
            },
        });
        assert_eq!(output(&schema), schema);
    }

    #[test]
    fn output_schemas_lose_annotations_in_every_subschema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "result": {
                    "type": "array",
                    "description": "the pets",
                    "items": { "$ref": "#/$defs/Pet", "description": "one pet" },
                    "prefixItems": [{ "type": "string", "title": "first" }],
                },
                "either": { "oneOf": [{ "type": "string", "format": "uuid" }, { "type": "null", "title": "none" }] },
                "map": { "type": "object", "additionalProperties": { "type": "integer", "format": "int32" } },
                "by_pattern": { "patternProperties": { "^x": { "type": "string", "examples": ["a"] } } },
                "not_this": { "not": { "const": 1, "description": "one" } },
            },
            "$defs": {
                "Pet": { "type": "object", "title": "Pet", "properties": { "name": { "type": "string", "description": "its name" } } },
            },
        });
        assert_eq!(
            output(&schema),
            json!({
                "type": "object",
                "properties": {
                    "result": {
                        "type": "array",
                        "items": { "$ref": "#/$defs/Pet" },
                        "prefixItems": [{ "type": "string" }],
                    },
                    "either": { "oneOf": [{ "type": "string" }, { "type": "null" }] },
                    "map": { "type": "object", "additionalProperties": { "type": "integer" } },
                    "by_pattern": { "patternProperties": { "^x": { "type": "string" } } },
                    "not_this": { "not": { "const": 1 } },
                },
                "$defs": {
                    "Pet": { "type": "object", "properties": { "name": { "type": "string" } } },
                },
            })
        );
    }

    #[test]
    fn output_schemas_write_a_list_of_types_as_any_of_one_type_each() {
        let schema = json!({
            "type": "object",
            "properties": {
                "assignee": { "type": ["string", "null"], "minLength": 1 },
                "items": {
                    "type": "array",
                    "items": { "type": ["integer", "number", "null"], "minimum": 0 },
                },
                "tags": { "type": ["array", "null"], "items": { "type": ["string", "null"] } },
                "either": { "type": ["string", "null"], "anyOf": [{ "minLength": 1 }, { "type": "null" }] },
                "properties": { "type": "string" },
            },
        });
        assert_eq!(
            output(&schema),
            json!({
                "type": "object",
                "properties": {
                    "assignee": { "anyOf": [{ "type": "string" }, { "type": "null" }], "minLength": 1 },
                    "items": {
                        "type": "array",
                        "items": {
                            "anyOf": [{ "type": "integer" }, { "type": "number" }, { "type": "null" }],
                            "minimum": 0,
                        },
                    },
                    "tags": {
                        "anyOf": [{ "type": "array" }, { "type": "null" }],
                        "items": { "anyOf": [{ "type": "string" }, { "type": "null" }] },
                    },
                    // An anyOf of its own: the list of types stays.
                    "either": { "type": ["string", "null"], "anyOf": [{ "minLength": 1 }, { "type": "null" }] },
                    "properties": { "type": "string" },
                },
            })
        );
        // The root keeps its type as it is.
        let root = json!({ "type": ["object", "null"], "properties": {} });
        assert_eq!(output(&root), root);
    }

    #[test]
    fn properties_named_like_annotations_are_kept_and_so_are_values() {
        let schema = json!({
            "type": "object",
            "properties": {
                "description": { "type": "string", "description": "the issue's text" },
                "title": { "type": "string" },
                "format": { "type": "string", "enum": ["description", "title"] },
                "default": { "const": { "description": "not a keyword here" } },
                "examples": { "type": "array", "items": { "type": "string" } },
            },
            "required": ["description", "title"],
            "$defs": { "description": { "type": "string", "title": "Text" } },
        });
        assert_eq!(
            output(&schema),
            json!({
                "type": "object",
                "properties": {
                    "description": { "type": "string" },
                    "title": { "type": "string" },
                    "format": { "enum": ["description", "title"] },
                    "default": { "const": { "description": "not a keyword here" } },
                    "examples": { "type": "array", "items": { "type": "string" } },
                },
                "required": ["description", "title"],
                "$defs": { "description": { "type": "string" } },
            })
        );
    }

    #[test]
    fn input_schemas_lose_formats_that_restate_the_type() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": { "type": "integer", "format": "int64", "examples": [10] },
                "count": { "type": "integer", "format": "int32", "minimum": 0 },
                "price": { "type": "number", "format": "double" },
                "ratio": { "type": ["number", "null"], "format": "float" },
                "tags": { "type": "array", "items": { "type": "integer", "format": "int32" } },
            },
            "additionalProperties": false,
        });
        assert_eq!(
            input(&schema),
            json!({
                "type": "object",
                "properties": {
                    "id": { "type": "integer", "examples": [10] },
                    "count": { "type": "integer", "minimum": 0 },
                    "price": { "type": "number" },
                    "ratio": { "type": ["number", "null"] },
                    "tags": { "type": "array", "items": { "type": "integer" } },
                },
                "additionalProperties": false,
            })
        );
    }

    #[test]
    fn input_schemas_keep_informative_formats_examples_and_descriptions() {
        let schema = json!({
            "type": "object",
            "properties": {
                "when": { "type": "string", "format": "date-time", "description": "Since when" },
                "day": { "type": "string", "format": "date" },
                "id": { "type": "string", "format": "uuid", "examples": ["7d4e…"] },
                "email": { "type": "string", "format": "email" },
                "home": { "type": "string", "format": "uri" },
                // A number written as a string: the format says what the string holds.
                "big": { "type": "string", "format": "int64" },
                // No type to restate.
                "any": { "format": "int32" },
                "format": { "type": "string", "default": "json" },
            },
        });
        assert_eq!(input(&schema), schema);
    }

    #[test]
    fn input_schemas_lose_empty_descriptions_and_trim_the_others() {
        let schema = json!({
            "type": "object",
            "properties": {
                "api_key": { "type": "string", "description": "" },
                "note": { "type": "string", "description": "  " },
                "petId": { "type": "integer", "description": "Pet id to delete\n" },
                "description": { "type": "string" },
            },
        });
        assert_eq!(
            input(&schema),
            json!({
                "type": "object",
                "properties": {
                    "api_key": { "type": "string" },
                    "note": { "type": "string" },
                    "petId": { "type": "integer", "description": "Pet id to delete" },
                    "description": { "type": "string" },
                },
            })
        );
    }

    /// Editing a schema in place makes of it exactly what a copying walk makes, keyword order
    /// included, with every editor: keywords dropped, replaced and kept at every kind of place
    /// (properties, lists of schemas, `items`, `$defs`, one subschema), and data that looks like
    /// a schema (an `enum` of objects, a `default`) left alone.
    #[test]
    fn editing_in_place_makes_what_the_copying_walk_makes() {
        let schema = json!({
            "description": " The root ",
            "type": "object",
            "format": "int32",
            "properties": {
                "description": { "type": "string", "description": "" },
                "format": { "type": "integer", "format": "int64", "title": "Format" },
                "count": { "type": ["integer", "null"], "format": "int32", "x-note": "n" },
                "user_status": { "description": "User status", "enum": [{ "description": "" }] },
                "when": { "type": "string", "format": "date-time", "default": { "format": "int32" } },
                "list": { "type": "array", "items": [{ "type": "number", "format": "double" }, true] },
            },
            "anyOf": [{ "description": "\tone\n", "type": "number", "format": "float" }, false],
            "not": { "type": "integer", "format": "int64", "description": "x" },
            "$defs": { "Thing": { "type": "object", "readOnly": true, "properties": { "id": { "type": "integer", "format": "int32" } } } },
            "additionalProperties": { "type": "string", "examples": ["a"] },
        });
        let editors: [&Editor; 3] = [
            &input_edit,
            &|key, value, object, _| match (key, value) {
                (key, _) if ANNOTATIONS.contains(&key) || key.starts_with("x-") => Edit::Drop,
                ("type", _) if implied_by_values(value, object) => Edit::Drop,
                _ => Edit::Keep,
            },
            &|key, value, _, property| match (key, value, property) {
                ("description", Value::String(text), Some(name)) if restates_name(text, name) => {
                    Edit::Drop
                }
                ("type", Value::Array(_), _) => Edit::Replace(json!("any")),
                _ => Edit::Keep,
            },
        ];
        for edit in editors {
            let copied = walk(&schema, None, edit);
            let mut edited = schema.clone();
            walk_in_place(&mut edited, None, edit);
            assert_eq!(edited.to_string(), copied.to_string());
            assert_ne!(copied.to_string(), schema.to_string());
        }
        assert_eq!(
            into_input(schema.clone()).to_string(),
            walk(&schema, None, &input_edit).to_string()
        );
    }
}
