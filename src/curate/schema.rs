//! What a JSON schema of the API says: the schema at a field path, its properties and types.
//! Shared by `check`, `bind`, `plan` and `init`, which all read the API's schemas the same way.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::api::Operation;

/// A dotted field path (`items`, `assignee.id`) as a JSON pointer.
pub fn pointer(path: &str) -> String {
    if path.is_empty() {
        return String::new();
    }
    path.split('.')
        .map(|part| format!("/{}", part.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// A JSON pointer as a dotted field path (escapes are not read back: `~1` stays as written).
pub fn dotted(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}

/// The schema reached by following a dotted `path` through `properties`; `Err` with the names
/// available where the path stops. Where the schema on the way is a list, a number picks one
/// item (`items.0.uri`: the first item's `uri`) and a name applies to every item (`items.uri`:
/// a list of the items' `uri`, whose schema is then an array of the field's), as the generated
/// server reads the same path in the answer (`curated::value_at`).
pub fn schema_at<'s>(
    root: &'s Value,
    path: &str,
) -> Result<Option<Cow<'s, Value>>, (String, Vec<String>)> {
    let mut current = root;
    if path.is_empty() {
        return Ok(Some(Cow::Borrowed(current)));
    }
    // How many lists the path went through by name: the value is a list of lists that deep.
    let mut lists = 0;
    for part in path.split('.') {
        current = deref(root, current);
        if object_properties(root, current).is_none() && is_array(current) {
            let Some(items) = current.get("items") else {
                return Ok(None);
            };
            current = deref(root, items);
            if part.parse::<usize>().is_ok() {
                continue;
            }
            lists += 1;
        }
        let Some(properties) = object_properties(root, current) else {
            // A schema that does not list its properties: the path cannot be checked.
            return Ok(None);
        };
        match properties.iter().find(|(name, _)| name.as_str() == part) {
            Some((_, schema)) => current = schema,
            // A part of the object that does not list its properties (one the spec leaves open,
            // or too deep to be written out) may hold the field: it cannot be checked.
            None if has_open_part(root, current) => return Ok(None),
            None => {
                return Err((
                    part.to_string(),
                    properties
                        .iter()
                        .map(|(name, _)| name.to_string())
                        .collect(),
                ));
            }
        }
    }
    let found = deref(root, current);
    let defs = root.get("$defs").filter(|_| refers_to_defs(found));
    if lists == 0 && defs.is_none() {
        return Ok(Some(Cow::Borrowed(found)));
    }
    let mut schema = found.clone();
    for _ in 0..lists {
        schema = serde_json::json!({ "type": "array", "items": schema });
    }
    Ok(Some(Cow::Owned(with_defs(schema, defs))))
}

/// The items of the list `schema`, which keep the definitions (`$defs`) the list's schema
/// carries, so that they can be read on their own.
pub fn items_of(schema: &Value) -> Option<Value> {
    let items = schema.get("items")?.clone();
    Some(with_defs(
        items,
        schema.get("$defs").filter(|_| refers_to_defs(schema)),
    ))
}

/// `schema` with the root's definitions `defs` beside it, where it has none of its own: a part of
/// a schema that refers to them (`#/$defs/File`) read on its own.
fn with_defs(schema: Value, defs: Option<&Value>) -> Value {
    match (schema, defs) {
        (Value::Object(mut object), Some(defs)) if !object.contains_key("$defs") => {
            object.insert("$defs".into(), defs.clone());
            Value::Object(object)
        }
        (schema, _) => schema,
    }
}

/// Whether `schema` refers to a definition under the root's `$defs` anywhere in it.
fn refers_to_defs(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => object
            .iter()
            .any(|(key, value)| match (key.as_str(), value) {
                ("$ref", Value::String(reference)) => reference.starts_with("#/$defs/"),
                ("$defs", _) => false,
                (_, value) => refers_to_defs(value),
            }),
        Value::Array(items) => items.iter().any(refers_to_defs),
        _ => false,
    }
}

pub(crate) fn deref<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    // A schema the loader cut short, converted after all for the fields a file reads.
    if let Some(expanded) = schema.get(crate::load::EXPANDED) {
        return deref(root, expanded);
    }
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or(schema),
        None => schema,
    }
}

/// The properties of an object schema, merged across `allOf`, and those of any of its `oneOf` or
/// `anyOf` shapes.
pub(crate) fn object_properties<'s>(
    root: &'s Value,
    schema: &'s Value,
) -> Option<Vec<(&'s String, &'s Value)>> {
    let schema = deref(root, schema);
    let mut found: Option<Vec<(&String, &Value)>> = None;
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        found.get_or_insert_with(Vec::new).extend(properties.iter());
    }
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(more) = object_properties(root, part) {
            found.get_or_insert_with(Vec::new).extend(more);
        }
    }
    // One of several shapes (Spotify's track or episode, an object or null): a field any shape
    // has is there to read; where two shapes both have it, the first shape's says its type.
    for part in ["oneOf", "anyOf"]
        .iter()
        .filter_map(|key| schema.get(key).and_then(Value::as_array))
        .flatten()
    {
        if let Some(more) = object_properties(root, part) {
            let found = found.get_or_insert_with(Vec::new);
            for (name, property) in more {
                if !found.iter().any(|(seen, _)| *seen == name) {
                    found.push((name, property));
                }
            }
        }
    }
    found
}

/// Is `schema` made of parts (`allOf`), one of which is an object that lists no properties?
fn has_open_part(root: &Value, schema: &Value) -> bool {
    deref(root, schema)
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|part| {
            let part = deref(root, part);
            part.get("$ref").is_some()
                || (object_properties(root, part).is_none() && !is_array(part))
                || has_open_part(root, part)
        })
}

/// Is `schema` a list?
pub fn is_array(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => schema.get("items").is_some(),
    }
}

/// One input of an operation: its name, its schema and whether the API requires it.
pub type Input = (String, Value, bool);

/// A field inside an object input, named by a dotted `from` (`content.raw`).
pub struct NestedInput {
    /// The input the object is (`content`).
    pub input: String,
    /// The path below it (`["raw"]`).
    pub path: Vec<String>,
    /// The field as an input: its dotted name, its schema (`true` where the object does not
    /// say), and whether the API requires it (the input and every object on the way require the
    /// next).
    pub field: Input,
}

/// The field a dotted `from` names inside one of `inputs`; `None` when `from` has no dot or its
/// first part is no input; `Err` with the part the object lacks and the fields it has. One
/// reading for `check` and `bind`.
pub fn nested_input(
    inputs: &[Input],
    from: &str,
) -> Option<Result<NestedInput, (String, Vec<String>)>> {
    let (top, rest) = from.split_once('.')?;
    let (_, schema, top_required) = inputs.iter().find(|(n, _, _)| n == top)?;
    let field = match schema_at(schema, rest) {
        Ok(field) => field.map_or(Value::Bool(true), Cow::into_owned),
        Err(missing) => return Some(Err(missing)),
    };
    let mut required = *top_required;
    let mut object = schema;
    for part in rest.split('.') {
        let object_schema = deref(schema, object);
        required = required && required_properties(object_schema).contains(&part);
        match object_properties(schema, object_schema)
            .and_then(|p| p.into_iter().find(|(n, _)| n.as_str() == part))
        {
            Some((_, inner)) => object = inner,
            None => break,
        }
    }
    Some(Ok(NestedInput {
        input: top.to_string(),
        path: rest.split('.').map(str::to_string).collect(),
        field: (from.to_string(), field, required),
    }))
}

/// The properties an object schema requires, its parts' (`allOf`) together.
pub(crate) fn required_properties(schema: &Value) -> Vec<&str> {
    let own = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    let parts = schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(required_properties);
    own.chain(parts).collect()
}

/// The operation's inputs by name: parameters, and the properties of an object body.
pub fn operation_inputs(operation: &Operation) -> Vec<(String, Value, bool)> {
    let mut inputs: Vec<(Value, bool)> = operation
        .parameters
        .iter()
        .map(|p| {
            // The parameter's own description is what a tool parameter filling it inherits.
            let mut schema = p.schema.clone();
            if let (Some(description), Some(object)) = (&p.description, schema.as_object_mut()) {
                object.insert("description".into(), Value::String(description.clone()));
            }
            (schema, p.required)
        })
        .collect();
    if let Some(body) = &operation.body {
        match body.flattened_properties() {
            Some(properties) => inputs.extend(
                properties
                    .iter()
                    .map(|(name, schema)| (schema.clone(), body.requires(name))),
            ),
            None => inputs.push((Value::clone(&body.schema), body.required)),
        }
    }
    operation
        .input_names()
        .into_iter()
        .zip(inputs)
        .map(|(name, (schema, required))| (name, schema, required))
        .collect()
}

/// The name of the only array property of a response schema, for `items` defaults.
pub fn only_array(schema: &Value) -> Option<String> {
    if is_array(schema) {
        return Some(String::new());
    }
    let properties = schema.get("properties")?.as_object()?;
    let arrays: Vec<&String> = properties
        .iter()
        .filter(|(_, s)| is_array(s))
        .map(|(name, _)| name)
        .collect();
    match arrays.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// The JSON schema of an operation's success response.
pub fn success_schema(operation: &Operation) -> Option<&Value> {
    operation.success.as_ref().and_then(|r| r.schema.as_deref())
}

/// The JSON types a schema allows (`integer` is also a `number`); empty when it does not say.
pub(crate) fn json_types(schema: &Value) -> Vec<&'static str> {
    const TYPES: [&str; 7] = [
        "string", "integer", "number", "boolean", "object", "array", "null",
    ];
    let named = |t: &str| TYPES.iter().copied().find(|known| *known == t);
    match schema.get("type") {
        Some(Value::String(t)) => named(t).into_iter().collect(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .filter_map(named)
            .collect(),
        _ if schema.get("properties").is_some() => vec!["object"],
        // The parts of one value (`allOf`) are of its one type.
        _ => schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(json_types)
            .find(|types| !types.is_empty())
            .unwrap_or_default(),
    }
}

/// Does the schema allow `null`?
pub fn accepts_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        Some(Value::String(t)) => t == "null",
        _ => schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|variants| variants.iter().any(accepts_null)),
    }
}

/// What a reader of `paths` (each a list of field names, as `curated::value_at` reads them) relies
/// on in an answer `root` documents: the answer's own JSON type and, along each path, the type of
/// every field it passes through and reaches, required where `root` requires it. Nothing else of
/// `root` is kept, so an answer that strays from its documentation elsewhere still serves.
pub fn read_shape(root: &Value, paths: &[Vec<String>]) -> Value {
    let paths: Vec<&[String]> = paths.iter().map(Vec::as_slice).collect();
    shape_read(root, root, &paths)
}

fn shape_read(root: &Value, schema: &Value, paths: &[&[String]]) -> Value {
    let schema = deref(root, schema);
    let mut types = json_types(schema);
    if types.is_empty() && is_array(schema) {
        types.push("array");
    }
    if types.is_empty() {
        // A schema that does not say its type: nothing to rely on.
        return Value::Object(Map::new());
    }
    if accepts_null(schema) && !types.contains(&"null") {
        types.push("null");
    }
    let mut shape = Map::new();
    shape.insert(
        "type".into(),
        match types.as_slice() {
            [one] => Value::String((*one).into()),
            many => many.iter().map(|t| Value::String((*t).into())).collect(),
        },
    );
    let deeper: Vec<&[String]> = paths.iter().copied().filter(|p| !p.is_empty()).collect();
    if deeper.is_empty() {
        return Value::Object(shape);
    }
    if types.contains(&"array") && object_properties(root, schema).is_none() {
        // A list read through: a number picks one item, a name reads every item; either way the
        // items have the shape the rest of the path relies on.
        if let Some(items) = schema.get("items") {
            let rest: Vec<&[String]> = deeper
                .iter()
                .map(|p| match p[0].parse::<usize>() {
                    Ok(_) => &p[1..],
                    Err(_) => *p,
                })
                .collect();
            shape.insert("items".into(), shape_read(root, items, &rest));
        }
        return Value::Object(shape);
    }
    let Some(properties) = object_properties(root, schema) else {
        return Value::Object(shape);
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut read = Map::new();
    let mut needed = Vec::new();
    for (name, property) in properties {
        let under: Vec<&[String]> = deeper
            .iter()
            .filter(|p| p[0] == *name)
            .map(|p| &p[1..])
            .collect();
        if under.is_empty() || read.contains_key(name.as_str()) {
            continue;
        }
        read.insert(name.clone(), shape_read(root, property, &under));
        if required.contains(&name.as_str()) {
            needed.push(Value::String(name.clone()));
        }
    }
    shape.insert("properties".into(), Value::Object(read));
    if !needed.is_empty() {
        shape.insert("required".into(), Value::Array(needed));
    }
    Value::Object(shape)
}
