//! OpenAPI schema objects → self-contained JSON Schema 2020-12.
//!
//! `$ref`s are inlined, except where a schema refers to itself: that reference becomes
//! `#/$defs/Name` and the definition is placed under `$defs` of the converted root (the plan stage
//! hoists it to the root of the tool's schema). OpenAPI 3.0 dialect (`nullable`, `example`,
//! boolean `exclusiveMinimum`) is rewritten; 3.1 keywords (`const`, type arrays, `prefixItems`,
//! `$defs`) pass through.

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::{Fail, percent_decode, pointer_token};

/// Keywords whose value is one schema.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// OpenAPI-only keywords that mean nothing to a JSON Schema validator or a model.
const DROPPED: &[&str] = &["discriminator", "xml", "externalDocs", "nullable", "example"];

/// Converts the schemas of one document; one converter per root schema.
pub struct SchemaConverter<'a> {
    document: &'a Value,
    /// Pointers of the referenced schemas being converted, innermost last.
    stack: Vec<String>,
    /// Recursive references met so far: pointer → name under `$defs`.
    recursive: IndexMap<String, String>,
}

impl<'a> SchemaConverter<'a> {
    pub fn new(document: &'a Value) -> Self {
        Self {
            document,
            stack: Vec::new(),
            recursive: IndexMap::new(),
        }
    }

    /// Converts `schema` (found at `pointer`) and attaches the definitions of its recursive parts.
    pub fn convert_root(mut self, schema: &Value, pointer: &str) -> Result<Value, Fail> {
        let mut converted = self.convert(schema, pointer)?;
        let mut defs = Map::new();
        let mut next = 0;
        while let Some((target, name)) = self
            .recursive
            .get_index(next)
            .map(|(t, n)| (t.clone(), n.clone()))
        {
            next += 1;
            let Some(schema) = self.document.pointer(&target) else {
                return Err((pointer.into(), format!("`$ref` target {target} is missing")));
            };
            self.stack.push(target.clone());
            let definition = self.convert(schema, &target)?;
            self.stack.pop();
            if definition.get("$ref").and_then(Value::as_str) == Some(&def_ref(&name))
                && definition.as_object().is_some_and(|o| o.len() == 1)
            {
                return Err((
                    target,
                    "this `$ref` leads back to itself through other `$ref`s without ever reaching a schema".into(),
                ));
            }
            defs.insert(name, definition);
        }
        if !defs.is_empty() {
            match converted.as_object_mut() {
                Some(object) => {
                    object.insert("$defs".into(), Value::Object(defs));
                }
                None => {
                    converted = json!({ "allOf": [converted], "$defs": defs });
                }
            }
        }
        Ok(converted)
    }

    fn convert(&mut self, schema: &Value, pointer: &str) -> Result<Value, Fail> {
        let Some(object) = schema.as_object() else {
            // `true`, `false`, or something that is not a schema: kept as is.
            return Ok(schema.clone());
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return self.convert_ref(reference, object, pointer);
        }
        let mut out = Map::new();
        for (key, value) in object {
            let at = format!("{pointer}/{}", pointer_token(key));
            if DROPPED.contains(&key.as_str())
                || (key.starts_with("x-") && key != "x-mcp-header")
            {
                continue;
            }
            let converted = if ONE_SCHEMA.contains(&key.as_str()) && value.is_object() {
                self.convert(value, &at)?
            } else if key == "items" && value.is_array() {
                // Draft-4 tuple form: a list of item schemas is `prefixItems` in 2020-12.
                out.insert("prefixItems".into(), self.convert_list(value, &at)?);
                continue;
            } else if SCHEMA_LISTS.contains(&key.as_str()) && value.is_array() {
                self.convert_list(value, &at)?
            } else if SCHEMA_MAPS.contains(&key.as_str()) && value.is_object() {
                let mut map = Map::new();
                for (name, schema) in value.as_object().into_iter().flatten() {
                    map.insert(
                        name.clone(),
                        self.convert(schema, &format!("{at}/{}", pointer_token(name)))?,
                    );
                }
                Value::Object(map)
            } else {
                value.clone()
            };
            let key = if key == "definitions" { "$defs" } else { key };
            out.insert(key.to_string(), converted);
        }
        rewrite_exclusive_bounds(&mut out);
        if let Some(example) = object.get("example")
            && !out.contains_key("examples")
        {
            out.insert("examples".into(), json!([example]));
        }
        let mut converted = Value::Object(out);
        if object.get("nullable") == Some(&Value::Bool(true)) {
            converted = make_nullable(converted);
        }
        Ok(converted)
    }

    fn convert_list(&mut self, list: &Value, pointer: &str) -> Result<Value, Fail> {
        let mut out = Vec::new();
        for (index, schema) in list.as_array().into_iter().flatten().enumerate() {
            out.push(self.convert(schema, &format!("{pointer}/{index}"))?);
        }
        Ok(Value::Array(out))
    }

    fn convert_ref(
        &mut self,
        reference: &str,
        object: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Value, Fail> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err((
                pointer.into(),
                format!(
                    "`$ref: {reference}` points into another file; external references are not supported yet — bundle the document into one file"
                ),
            ));
        };
        let target = percent_decode(fragment);
        let Some(schema) = self.document.pointer(&target) else {
            return Err((
                pointer.into(),
                format!("`$ref: {reference}` points to nothing in this document"),
            ));
        };
        let mut converted = if self.stack.contains(&target) {
            json!({ "$ref": def_ref(&self.def_name(&target)) })
        } else {
            self.stack.push(target.clone());
            let result = self.convert(schema, &target);
            self.stack.pop();
            result?
        };
        // Keywords beside a `$ref` (allowed from 3.1) refine the referenced schema.
        let siblings: Vec<(&String, &Value)> = object
            .iter()
            .filter(|(key, _)| key.as_str() != "$ref" && key.as_str() != "nullable")
            .collect();
        if object.get("nullable") == Some(&Value::Bool(true)) {
            converted = make_nullable(converted);
        }
        if !siblings.is_empty() {
            let mut extra = Map::new();
            for (key, value) in siblings {
                extra.insert(key.clone(), value.clone());
            }
            let extra = self.convert(&Value::Object(extra), pointer)?;
            if let (Some(target), Some(extra)) = (converted.as_object_mut(), extra.as_object()) {
                for (key, value) in extra {
                    target.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(converted)
    }

    /// The name under `$defs` for the schema at `target`, unique within this root.
    fn def_name(&mut self, target: &str) -> String {
        if let Some(name) = self.recursive.get(target) {
            return name.clone();
        }
        let last = target.rsplit('/').next().unwrap_or("Schema");
        let last = last.replace("~1", "/").replace("~0", "~");
        let mut name = last.clone();
        let mut n = 2;
        while self.recursive.values().any(|taken| *taken == name) {
            name = format!("{last}{n}");
            n += 1;
        }
        self.recursive.insert(target.to_string(), name.clone());
        name
    }
}

/// A JSON pointer to `name` under the root's `$defs`.
fn def_ref(name: &str) -> String {
    format!("#/$defs/{}", pointer_token(name))
}

/// OpenAPI 3.0 writes `exclusiveMinimum: true` beside `minimum`; 2020-12 wants the number.
fn rewrite_exclusive_bounds(schema: &mut Map<String, Value>) {
    for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        match schema.get(exclusive) {
            Some(Value::Bool(true)) => match schema.remove(bound) {
                Some(value) => {
                    schema.insert(exclusive.into(), value);
                }
                None => {
                    schema.remove(exclusive);
                }
            },
            Some(Value::Bool(false)) => {
                schema.remove(exclusive);
            }
            _ => {}
        }
    }
}

/// Lets `null` through a converted schema.
fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut object) = schema else {
        return schema;
    };
    match object.get("type").cloned() {
        Some(Value::String(kind)) => {
            object.insert("type".into(), json!([kind, "null"]));
        }
        Some(Value::Array(mut kinds)) => {
            if !kinds.contains(&json!("null")) {
                kinds.push(json!("null"));
            }
            object.insert("type".into(), Value::Array(kinds));
        }
        _ => return json!({ "anyOf": [Value::Object(object), { "type": "null" }] }),
    }
    if let Some(Value::Array(values)) = object.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Value::Object(object)
}
