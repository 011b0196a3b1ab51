//! Answers, request bodies and query parameters the spec does not describe as the API has them:
//! the curation file's `responses`, `requests` and `query` sections (and `operations.read_only`),
//! read once into [`Declared`] and merged into the operations before anything else reads them, by
//! `check`, `bind` and `plan` alike (plan from the bound model's copy), so that what one verifies
//! the others generate.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::diagnostics::Diagnostic;
use super::model::{Curation, Spanned};
use crate::api::{Api, Location, Operation, Parameter, Response};

/// What the file declares of the API beyond its spec, by operationId, in the file's order: the
/// operations that only read (`operations.read_only`), request bodies (`requests`), query
/// parameters (`query`) and answers (`responses`).
#[derive(Debug, Clone, Default)]
pub struct Declared {
    pub read_only: Vec<String>,
    pub requests: Vec<(String, Value)>,
    pub query: Vec<(String, Vec<(String, Value)>)>,
    pub responses: Vec<(String, Value)>,
    /// The operations the file's tools, steps, resolvers and aliases call: their answers are
    /// read whole where the loader cut them short.
    pub used: BTreeSet<String>,
}

impl Declared {
    /// What `curation` declares.
    pub fn of(curation: &Curation) -> Self {
        let schemas = |section: &indexmap::IndexMap<Spanned<String>, Spanned<Value>>| {
            section
                .iter()
                .map(|(key, value)| (key.value.clone(), value.value.clone()))
                .collect::<Vec<_>>()
        };
        Self {
            read_only: curation
                .operations
                .read_only
                .iter()
                .map(|id| id.value.clone())
                .collect(),
            requests: schemas(&curation.requests),
            query: curation
                .query
                .iter()
                .map(|(id, params)| (id.value.clone(), schemas(params)))
                .collect(),
            responses: schemas(&curation.responses),
            used: used_operations(curation)
                .into_iter()
                .map(str::to_string)
                .collect(),
        }
    }

    fn is_empty(&self) -> bool {
        self.responses.is_empty()
            && self.requests.is_empty()
            && self.query.is_empty()
            && self.read_only.is_empty()
    }
}

/// `api` with each declared answer merged into its operation's success response; `api` itself
/// when the file declares none. Declarations naming no operation are left out here and
/// reported by [`check`].
pub fn apply<'a>(api: &'a Api, declared: &Declared) -> Cow<'a, Api> {
    let cut_short = |op: &Operation| {
        declared.used.contains(&op.id)
            && op
                .success
                .as_ref()
                .and_then(|r| r.schema.as_deref())
                .is_some_and(has_stub)
    };
    let document = api.document.get();
    let expand = document.is_some() && api.operations.iter().any(cut_short);
    if declared.is_empty() && !expand {
        return Cow::Borrowed(api);
    }
    let mut patched = api.clone();
    // The answers the file reads, whole: the loader cut the schemas of large answers short (a
    // tool's schema stays small), and a field inside one could not be checked, nor its type
    // known. The schemas the server publishes stay as they were.
    if let Some(document) = document.filter(|_| expand) {
        for operation in &mut patched.operations {
            if !declared.used.contains(&operation.id) {
                continue;
            }
            if let Some(schema) = operation.success.as_mut().and_then(|r| r.schema.as_mut()) {
                crate::load::expand_stubs(document, Arc::make_mut(schema), EXPANSIONS);
            }
        }
    }
    for id in &declared.read_only {
        if let Some(operation) = patched.operations.iter_mut().find(|op| op.id == *id) {
            operation.declared_read_only = true;
        }
    }
    for (id, schema) in &declared.requests {
        let body = patched
            .operations
            .iter_mut()
            .find(|op| op.id == *id)
            .and_then(|op| op.body.as_mut());
        if let Some(body) = body {
            body.schema = Arc::new(merge(
                Arc::unwrap_or_clone(std::mem::take(&mut body.schema)),
                schema,
            ));
        }
    }
    for (id, params) in &declared.query {
        let Some(operation) = patched.operations.iter_mut().find(|op| op.id == *id) else {
            continue;
        };
        for (name, schema) in params {
            // A query parameter the description has wrongly (Trello's `idOrganizations`, required
            // though the API does without it; `cards_limit`, a number typed as text) is as
            // declared: its schema, and optional like every declared one.
            if let Some(given) = operation
                .parameters
                .iter_mut()
                .find(|p| p.name == *name && p.location == Location::Query)
            {
                given.schema = schema.clone();
                given.required = false;
                if let Some(description) = schema.get("description").and_then(Value::as_str) {
                    given.description = Some(description.to_string());
                }
                continue;
            }
            if operation.parameters.iter().any(|p| p.name == *name) {
                continue;
            }
            operation.parameters.push(Parameter {
                name: name.clone(),
                location: Location::Query,
                required: false,
                description: schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                deprecated: false,
                schema: schema.clone(),
                style: None,
            });
        }
    }
    for (id, schema) in &declared.responses {
        let Some(operation) = patched.operations.iter_mut().find(|op| op.id == *id) else {
            continue;
        };
        let response = operation.success.get_or_insert_with(|| Response {
            status: "200".to_string(),
            description: None,
            schema: None,
        });
        response.schema = Some(Arc::new(match response.schema.take() {
            Some(documented) => merge(Arc::unwrap_or_clone(documented), schema),
            None => schema.clone(),
        }));
    }
    Cow::Owned(patched)
}

/// The most schemas cut short that one answer has converted ([`crate::load::expand_stubs`]):
/// enough for the paths a file reads, bounded for answers whose every object refers to others.
const EXPANSIONS: usize = 64;

/// The operations the file's tools, steps, resolvers and aliases call.
fn used_operations(curation: &Curation) -> BTreeSet<&str> {
    let mut used = BTreeSet::new();
    for tool in curation.tools.values() {
        used.extend(tool.call.iter().map(|c| c.value.as_str()));
        for step in &tool.steps {
            used.extend(step.value.call.iter().map(|c| c.value.as_str()));
        }
    }
    for resolver in curation.resolvers.values() {
        used.extend(resolver.list.iter().map(|l| l.value.as_str()));
        used.extend(resolver.lookup.iter().map(|l| l.value.as_str()));
        for alias in resolver.aliases.values() {
            used.extend(alias.operation().map(|(call, _)| call.value.as_str()));
        }
    }
    used
}

/// Whether `schema` holds a schema the loader cut short.
fn has_stub(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => {
            object.contains_key(crate::load::STUB_OF) || object.values().any(has_stub)
        }
        Value::Array(items) => items.iter().any(has_stub),
        _ => false,
    }
}

/// The spec's schema with the declared one laid over it: `properties` merged one by one,
/// `items` merged, every other keyword of the declaration replacing the spec's. A `$ref` in the
/// spec (already a complete description elsewhere) is replaced by the declaration.
fn merge(documented: Value, declared: &Value) -> Value {
    let (Value::Object(mut documented), Value::Object(declared)) = (documented, declared) else {
        return declared.clone();
    };
    if documented.contains_key("$ref") {
        return Value::Object(declared.clone());
    }
    // A schema cut short and converted after all: the declaration is laid over what it stands for.
    if let Some(expanded) = documented.remove(crate::load::EXPANDED) {
        documented.insert(
            crate::load::EXPANDED.into(),
            merge(expanded, &Value::Object(declared.clone())),
        );
        return Value::Object(documented);
    }
    for (key, value) in declared {
        match key.as_str() {
            "properties" => {
                let merged = match documented.remove("properties") {
                    Some(Value::Object(mut properties)) => {
                        for (name, schema) in value.as_object().into_iter().flatten() {
                            let merged = match properties.remove(name) {
                                Some(old) => merge(old, schema),
                                None => schema.clone(),
                            };
                            properties.insert(name.clone(), merged);
                        }
                        Value::Object(properties)
                    }
                    _ => value.clone(),
                };
                documented.insert(key.clone(), merged);
            }
            "items" => {
                let merged = match documented.remove("items") {
                    Some(old) => merge(old, value),
                    None => value.clone(),
                };
                documented.insert(key.clone(), merged);
            }
            _ => {
                documented.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(documented)
}

/// The JSON Schema types a declaration may name.
const TYPES: [&str; 7] = [
    "object", "array", "string", "integer", "number", "boolean", "null",
];

/// Mistakes in the `responses` section: an operationId the API does not have, and schemas
/// that are not JSON Schema mcpgen can read (a type it does not know, `properties` or `items`
/// that are not schemas).
pub fn check(api: &Api, curation: &Curation) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (id, declared) in &curation.requests {
        let Some(operation) = api.operations.iter().find(|op| op.id == id.value) else {
            out.push(
                Diagnostic::error(id.at, format!("unknown operation `{}`", id.value))
                    .suggest(&id.value, api.operations.iter().map(|op| op.id.as_str())),
            );
            continue;
        };
        if operation.body.is_none() {
            out.push(
                Diagnostic::error(
                    id.at,
                    format!(
                        "operation `{}` takes no request body: `requests` corrects the body the API description gives",
                        id.value
                    ),
                )
                .with_help("its parameters are described one by one; give their values with `fixed` or a step's `args`"),
            );
            continue;
        }
        let mut problems = Vec::new();
        schema_problems(&declared.value, "", &mut problems);
        for problem in problems {
            out.push(
                Diagnostic::error(declared.at, problem.replace("the answer", "the body")).with_help(
                    "declare the body's fields as JSON Schema: `{ properties: { children: { type: array, items: { type: object } } } }`",
                ),
            );
        }
    }
    for (id, params) in &curation.query {
        let Some(operation) = api.operations.iter().find(|op| op.id == id.value) else {
            out.push(
                Diagnostic::error(id.at, format!("unknown operation `{}`", id.value))
                    .suggest(&id.value, api.operations.iter().map(|op| op.id.as_str())),
            );
            continue;
        };
        for (name, schema) in params {
            if let Some(given) = operation
                .parameters
                .iter()
                .find(|p| p.name == name.value && p.location != Location::Query)
            {
                out.push(
                    Diagnostic::error(
                        name.at,
                        format!(
                            "operation `{}` has a {} parameter `{}`: `query` declares query parameters",
                            id.value,
                            given.location.as_str(),
                            name.value
                        ),
                    )
                    .with_help("fill it with `fixed`, a step's `args` or a tool parameter's `from`"),
                );
                continue;
            }
            let mut problems = Vec::new();
            schema_problems(&schema.value, "", &mut problems);
            for problem in problems {
                out.push(
                    Diagnostic::error(
                        schema.at,
                        problem.replace("the answer", &format!("`{}`", name.value)),
                    )
                    .with_help("declare the parameter as JSON Schema: `{ type: integer }`"),
                );
            }
            let types = crate::curate::schema::json_types(&schema.value);
            if types.is_empty() || types.iter().any(|t| matches!(*t, "object")) {
                out.push(
                    Diagnostic::error(
                        schema.at,
                        format!(
                            "`{}` needs a type a query string can carry: string, integer, number, boolean or array",
                            name.value
                        ),
                    )
                    .with_help("declare the parameter as JSON Schema: `{ type: integer }`"),
                );
            }
        }
    }
    for (id, declared) in &curation.responses {
        if !api.operations.iter().any(|op| op.id == id.value) {
            out.push(
                Diagnostic::error(id.at, format!("unknown operation `{}`", id.value))
                    .suggest(&id.value, api.operations.iter().map(|op| op.id.as_str())),
            );
            continue;
        }
        let mut problems = Vec::new();
        schema_problems(&declared.value, "", &mut problems);
        for problem in problems {
            out.push(
                Diagnostic::error(declared.at, problem).with_help(
                    "declare the answer as JSON Schema: `{ type: object, properties: { id: { type: string } } }`",
                ),
            );
        }
    }
    out
}

/// What is wrong with `schema` at `path` (a dotted field path, for messages).
fn schema_problems(schema: &Value, path: &str, out: &mut Vec<String>) {
    let at = match path {
        "" => "the answer".to_string(),
        "[]" => "the answer's items".to_string(),
        path => format!("`{path}`"),
    };
    let Value::Object(schema) = schema else {
        out.push(format!(
            "{at} is not a schema: write it as a mapping such as `{{ type: string }}`"
        ));
        return;
    };
    // The declaration is merged into the spec's schema, where a reference would point nowhere
    // (or at a schema it no longer is beside): it is written out.
    if let Some(reference) = schema.get("$ref") {
        out.push(format!(
            "{at} refers to {reference}: a declaration here writes its schema out, since `$ref` is not followed in the curation file"
        ));
    }
    let types: Vec<&Value> = match schema.get("type") {
        Some(Value::Array(types)) => types.iter().collect(),
        Some(one) => vec![one],
        None => Vec::new(),
    };
    for ty in types {
        if !ty.as_str().is_some_and(|t| TYPES.contains(&t)) {
            out.push(format!(
                "{at} has type {ty}, which is not a JSON Schema type ({})",
                TYPES.join(", ")
            ));
        }
    }
    match schema.get("properties") {
        Some(Value::Object(properties)) => {
            for (name, property) in properties {
                let inner = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                schema_problems(property, &inner, out);
            }
        }
        Some(_) => out.push(format!(
            "the `properties` of {at} must map field names to schemas"
        )),
        None => {}
    }
    if let Some(items) = schema.get("items") {
        let inner = if path.is_empty() {
            "[]".to_string()
        } else {
            format!("{path}[]")
        };
        schema_problems(items, &inner, out);
    }
}
