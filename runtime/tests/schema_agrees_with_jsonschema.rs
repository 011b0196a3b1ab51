//! The runtime's own schema checker ([`mcpgen_runtime::schema::Schema`]) against the `jsonschema`
//! crate, a complete JSON Schema 2020-12 validator that generated servers used before: on every
//! input and output schema the committed example servers publish, both give the same verdict for
//! a value made to fit and for each of a few hundred values broken one way at a time (a required
//! member dropped, a member of another type, an unknown member, a string that is no date,
//! bounds crossed, …).

use std::collections::BTreeSet;

use mcpgen_runtime::schema::Schema;
use serde_json::{Map, Value, json};

/// Every schema a committed example publishes in `tools/list`: `(where, schema)`.
fn published_schemas() -> Vec<(String, Value)> {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../generated-examples");
    let mut found = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(examples)
        .expect("generated-examples/ beside runtime/")
        .map(|entry| entry.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let text = std::fs::read_to_string(dir.join("tests/tools.json")).expect("tools.json");
        let list: Value = serde_json::from_str(&text).unwrap();
        for tool in list["tools"].as_array().expect("a tools array") {
            for which in ["inputSchema", "outputSchema"] {
                if let Some(schema) = tool.get(which) {
                    found.push((
                        format!(
                            "{} {} {which}",
                            dir.file_name().unwrap().to_string_lossy(),
                            tool["name"].as_str().unwrap()
                        ),
                        schema.clone(),
                    ));
                }
            }
        }
    }
    found
}

/// The schema `schema` stands for: itself, or what its local `$ref` points to.
fn resolved<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..16 {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                schema = root
                    .pointer(reference.trim_start_matches('#'))
                    .expect("a local $ref that resolves")
            }
            None => break,
        }
    }
    schema
}

/// A value meant to fit `schema` (it may not, where the schema asks for more than this knows:
/// a pattern, a combination; the checkers must then agree that it does not).
fn sample(schema: &Value, root: &Value, depth: usize) -> Value {
    let schema = resolved(schema, root);
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema.get(combinator).and_then(|e| e.get(0)) {
            return sample(first, root, depth);
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "string" => {
            let text = match schema.get("format").and_then(Value::as_str) {
                Some("date") => "2026-12-06",
                Some("date-time") => "2026-12-06T16:16:00Z",
                Some("time") => "16:16:00Z",
                Some("email") => "ada@example.com",
                Some("uri") => "https://example.com/a",
                Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
                Some("ipv4") => "127.0.0.1",
                _ => "sample",
            };
            let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            Value::String(format!(
                "{text}{}",
                "x".repeat(min.saturating_sub(text.len()))
            ))
        }
        "integer" => json!(schema.get("minimum").and_then(Value::as_i64).unwrap_or(1)),
        "number" => json!(schema.get("minimum").and_then(Value::as_f64).unwrap_or(1.5)),
        "boolean" => json!(true),
        "null" => Value::Null,
        "array" => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1) as usize;
            let item = match schema.get("items") {
                Some(items) if depth < 6 => sample(items, root, depth + 1),
                _ => json!("sample"),
            };
            Value::Array(vec![item; min.max(1)])
        }
        _ => {
            let mut object = Map::new();
            if depth < 6 {
                for (name, property) in schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    object.insert(name.clone(), sample(property, root, depth + 1));
                }
            }
            Value::Object(object)
        }
    }
}

/// Values of every kind, to put where a value of one kind belongs.
fn strangers() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-7),
        json!(2.5),
        json!(1e12),
        json!(""),
        json!("not a date"),
        json!("ada@"),
        json!("2026-13-45"),
        json!([]),
        json!(["a", "a"]),
        json!({}),
        json!({ "unknown": 1 }),
    ]
}

/// `fitting` broken one way at a time: each member dropped or replaced by a stranger (one level
/// down too), an unknown member added, an array emptied or grown, and the whole replaced.
fn broken(fitting: &Value) -> Vec<Value> {
    let mut out = strangers();
    match fitting {
        Value::Object(object) => {
            let mut extra = object.clone();
            extra.insert("not_a_member".into(), json!(1));
            out.push(Value::Object(extra));
            for (name, member) in object {
                let mut without = object.clone();
                without.remove(name);
                out.push(Value::Object(without));
                let replacements = strangers()
                    .into_iter()
                    .chain(broken_shallow(member))
                    .collect::<Vec<_>>();
                for stranger in replacements {
                    let mut changed = object.clone();
                    changed.insert(name.clone(), stranger);
                    out.push(Value::Object(changed));
                }
            }
        }
        Value::Array(items) => {
            out.push(json!([]));
            let mut more = items.clone();
            more.extend(items.iter().cloned());
            out.push(Value::Array(more.clone()));
            more.extend(std::iter::repeat_n(json!(1), 300));
            out.push(Value::Array(more));
        }
        _ => {}
    }
    out
}

/// One level of [`broken`] for a member: its own members dropped or made strangers.
fn broken_shallow(member: &Value) -> Vec<Value> {
    match member {
        Value::Object(object) => object
            .keys()
            .flat_map(|name| {
                let mut without = object.clone();
                without.remove(name);
                let mut nulled = object.clone();
                nulled.insert(name.clone(), json!(7));
                [Value::Object(without), Value::Object(nulled)]
            })
            .collect(),
        Value::Array(items) => vec![json!([]), json!([null]), json!([items.clone()])],
        _ => Vec::new(),
    }
}

#[test]
fn the_runtimes_checker_agrees_with_jsonschema_on_every_published_schema() {
    let schemas = published_schemas();
    assert!(
        schemas.len() > 50,
        "read the examples' schemas: {}",
        schemas.len()
    );
    let (mut fit, mut unfit, mut skipped) = (0, 0, BTreeSet::new());
    let mut disagreements = Vec::new();
    for (place, schema) in &schemas {
        let (ours, unread) = Schema::new(schema);
        if !unread.is_empty() {
            // A pattern the runtime cannot read is not checked there, by design (schema.rs).
            skipped.insert(place.clone());
            continue;
        }
        let theirs = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .unwrap_or_else(|e| panic!("{place}: jsonschema refuses the schema: {e}"));
        let fitting = sample(schema, schema, 0);
        for value in std::iter::once(fitting.clone()).chain(broken(&fitting)) {
            let (a, b) = (ours.is_valid(&value), theirs.is_valid(&value));
            if a != b {
                disagreements.push(format!(
                    "{place}: runtime says {a}, jsonschema says {b}, for {value}"
                ));
            }
            if b { fit += 1 } else { unfit += 1 }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first ones:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
    // Both verdicts were given often, so agreement means something.
    assert!(fit > 200 && unfit > 2_000, "fit {fit}, unfit {unfit}");
    assert!(skipped.len() * 20 < schemas.len(), "skipped {skipped:?}");
}
