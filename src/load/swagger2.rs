//! Swagger 2.0 → the OpenAPI 3.0 shape the loader reads: a pure value-to-value conversion, run
//! before loading.
//!
//! What changes: `host` + `basePath` + `schemes` become `servers`; `definitions`, `parameters`,
//! `responses` and `securityDefinitions` move under `components` (and `$ref`s to them are
//! rewritten everywhere); `in: body` and `in: formData` parameters become a `requestBody`
//! (media types from `consumes`); a response's `schema` becomes `content` (media types from
//! `produces`); the schema keywords of other parameters move into their `schema`;
//! `x-nullable` becomes `nullable`; `type: file` becomes a binary string.
//!
//! Operations get their parameters and responses inlined when the referenced one has to change
//! shape with the operation (a body parameter, a parameter brought in from another file);
//! `$ref`s to plain components stay `$ref`s.

use serde_json::{Map, Value, json};

use super::{Fail, percent_decode, pointer_token, refs};

/// The OpenAPI version the converted document declares.
const CONVERTED_VERSION: &str = "3.0.3";

/// Keywords of a non-body parameter (and of its `items`) that describe its value.
const VALUE_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "items",
    "default",
    "enum",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "x-nullable",
    "nullable",
];

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Converts a Swagger 2.0 document into an OpenAPI 3.0 one.
#[cfg(test)]
pub fn convert(document: &Value) -> Result<Value, Fail> {
    convert_leaving_refs_into_paths(document).map(|converted| converted.finished(document))
}

/// A Swagger 2.0 document converted but for its `$ref`s into `/paths`, which still name their
/// places in the document as written (see [`Upgraded::with_refs_into_paths`]).
pub struct Upgraded {
    value: Value,
}

/// [`convert`] without its last step, the one that needs to know whether some `$ref` points into
/// `/paths`: the loader finds that out in the walk it makes of the document as written
/// ([`refs::RefTargets`]), on another core meanwhile, and then finishes with
/// [`Upgraded::with_refs_into_paths`].
pub fn convert_leaving_refs_into_paths(document: &Value) -> Result<Upgraded, Fail> {
    let Some(root) = document.as_object() else {
        return Err((
            String::new(),
            "not an OpenAPI document: the top level is not a mapping".into(),
        ));
    };
    let converter = Converter {
        original: document,
        root,
        consumes: media_types(root.get("consumes")),
        produces: media_types(root.get("produces")),
    };
    converter.document().map(|value| Upgraded { value })
}

impl Upgraded {
    /// The conversion of `original` finished: [`Upgraded::with_refs_into_paths`], looking
    /// through the conversion for a `$ref` into `/paths`.
    pub fn finished(mut self, original: &Value) -> Value {
        let mut into_paths = false;
        for_each_ref(&mut self.value, None, None, &mut |reference| {
            into_paths = into_paths || points_into_paths(reference);
        });
        self.with_refs_into_paths(original, into_paths)
    }

    /// The conversion of `original` (the document this was converted from) with each `$ref`
    /// into `/paths` pointing where the conversion moved its place, when `into_paths` says some
    /// `$ref` may point there (few documents have one). The `$ref`s are copied as written, so a
    /// walk of the document as written that finds none finds none here either.
    pub fn with_refs_into_paths(self, original: &Value, into_paths: bool) -> Value {
        let mut converted = self.value;
        if !into_paths {
            return converted;
        }
        let Some(root) = original.as_object() else {
            return converted;
        };
        let converter = Converter {
            original,
            root,
            consumes: None,
            produces: None,
        };
        // The places are looked up in a copy of the converted document: a copy of a large
        // document was a third of converting it, and memory for a third document beside the
        // other two, so it is made only here.
        let snapshot = converted.clone();
        for_each_ref(&mut converted, None, None, &mut |reference| {
            if let Some(moved) = converter.moved_path_pointer(reference, &snapshot) {
                *reference = moved;
            }
        });
        converted
    }
}

struct Converter<'a> {
    /// The document as written: `$ref`s are followed here (they are still 2.0 pointers); every
    /// value copied from it into the result goes through [`rewritten`].
    original: &'a Value,
    root: &'a Map<String, Value>,
    consumes: Option<Vec<String>>,
    produces: Option<Vec<String>>,
}

impl Converter<'_> {
    /// The converted document, but for its `$ref`s into `/paths` (see [`Upgraded`]). The path
    /// items and the components are converted at once, each on all cores.
    fn document(&self) -> Result<Value, Fail> {
        let (paths, components) = rayon::join(
            || self.root.get("paths").map(|paths| self.paths(paths)),
            || self.components(),
        );
        let mut paths = Some(paths);
        let mut out = Map::new();
        out.insert("openapi".into(), json!(CONVERTED_VERSION));
        for (key, value) in self.root {
            match key.as_str() {
                "swagger"
                | "host"
                | "basePath"
                | "schemes"
                | "consumes"
                | "produces"
                | "definitions"
                | "parameters"
                | "responses"
                | "securityDefinitions" => {}
                "paths" => {
                    // A key is written once in a map: `paths` comes here once.
                    if let Some(Some(paths)) = paths.take() {
                        out.insert("paths".into(), paths?);
                    }
                }
                _ => {
                    out.insert(key.clone(), rewritten_at(key, value));
                }
            }
        }
        let servers = self.servers();
        if !servers.is_empty() {
            out.insert("servers".into(), Value::Array(servers));
        }
        let components = components?;
        if !components.is_empty() {
            out.insert("components".into(), Value::Object(components));
        }
        Ok(Value::Object(out))
    }

    /// Where a `$ref` into `/paths` of the document as written points in the converted document
    /// `converted`, when the conversion moved that place: a response's `schema` into its
    /// `content` (under the first media type), a body parameter's `schema` into the
    /// `requestBody`, a plain parameter to its index among the plain ones, its keywords into its
    /// `schema`. `None` when the `$ref` does not point into `/paths` or names a place the
    /// conversion did not keep.
    fn moved_path_pointer(&self, reference: &str, converted: &Value) -> Option<String> {
        // Always a 2.0 place: the conversion copies these `$ref`s as written.
        if !points_into_paths(reference) {
            return None;
        }
        let pointer = percent_decode(reference.strip_prefix('#')?);
        let tokens: Vec<String> = pointer[1..]
            .split('/')
            .map(|token| token.replace("~1", "/").replace("~0", "~"))
            .collect();
        let token = |index: usize| tokens.get(index).map(String::as_str);
        let escaped = |tokens: &[&str]| -> String {
            tokens
                .iter()
                .map(|t| format!("/{}", pointer_token(t)))
                .collect()
        };
        let path = token(1)?;
        // The path item's own parameters, or an operation's.
        let (owner, rest): (Vec<&str>, &[String]) = match token(2)? {
            method if METHODS.contains(&method) => (vec!["paths", path, method], &tokens[3..]),
            "parameters" => (vec!["paths", path], &tokens[2..]),
            _ => return None,
        };
        let first_media = |at: &str| -> Option<String> {
            converted.pointer(at)?.as_object()?.keys().next().cloned()
        };
        let moved: Vec<String> = match rest.first().map(String::as_str)? {
            "responses"
                if owner.len() == 3 && rest.get(2).map(String::as_str) == Some("schema") =>
            {
                let code = rest.get(1)?;
                let response = format!("{}/responses/{}", escaped(&owner), pointer_token(code));
                let media = first_media(&format!("{response}/content"))?;
                let mut moved: Vec<String> = owner.iter().map(|t| t.to_string()).collect();
                moved.extend(["responses".into(), code.clone(), "content".into(), media]);
                moved.extend(rest[2..].iter().cloned());
                moved
            }
            "parameters" => {
                let index: usize = rest.get(1)?.parse().ok()?;
                let written = self
                    .original
                    .pointer(&format!("{}/parameters", escaped(&owner)))?
                    .as_array()?;
                let parameter = written.get(index)?;
                let mut moved: Vec<String> = owner.iter().map(|t| t.to_string()).collect();
                if is_body_or_form(parameter) {
                    // Only a body parameter's `schema` has a place of its own in the request body.
                    if owner.len() != 3 || rest.get(2).map(String::as_str) != Some("schema") {
                        return None;
                    }
                    let body = format!("{}/requestBody/content", escaped(&owner));
                    moved.extend(["requestBody".into(), "content".into(), first_media(&body)?]);
                    moved.extend(rest[2..].iter().cloned());
                } else {
                    let plain = written[..index]
                        .iter()
                        .filter(|p| !is_body_or_form(p))
                        .count();
                    moved.extend(["parameters".into(), plain.to_string()]);
                    match rest.get(2) {
                        Some(keyword) if VALUE_KEYWORDS.contains(&keyword.as_str()) => {
                            moved.push("schema".into());
                            moved.extend(rest[2..].iter().cloned());
                        }
                        _ => moved.extend(rest[2..].iter().cloned()),
                    }
                }
                moved
            }
            _ => return None,
        };
        let moved: Vec<&str> = moved.iter().map(String::as_str).collect();
        let moved = escaped(&moved);
        converted.pointer(&moved).map(|_| format!("#{moved}"))
    }

    /// `schemes` × `host` + `basePath`; https first, since that is what a client should prefer.
    fn servers(&self) -> Vec<Value> {
        let base_path = self
            .root
            .get("basePath")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim_end_matches('/');
        let Some(host) = self.root.get("host").and_then(Value::as_str) else {
            return match base_path.is_empty() {
                true => Vec::new(),
                false => vec![json!({ "url": base_path })],
            };
        };
        let mut schemes: Vec<&str> = self
            .root
            .get("schemes")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        schemes.retain(|s| *s == "https" || *s == "http");
        if schemes.is_empty() {
            schemes.push("https");
        }
        schemes.sort_by_key(|s| *s != "https");
        schemes.dedup();
        schemes
            .into_iter()
            .map(|scheme| json!({ "url": format!("{scheme}://{host}{base_path}") }))
            .collect()
    }

    fn components(&self) -> Result<Map<String, Value>, Fail> {
        let mut components = Map::new();
        if let Some(definitions) = self.root.get("definitions").and_then(Value::as_object) {
            use rayon::prelude::*;
            let entries: Vec<(&String, &Value)> = definitions.iter().collect();
            let converted: Vec<Value> = entries
                .par_iter()
                .map(|(_, schema)| file_to_binary(rewritten(schema)))
                .collect();
            let schemas = entries
                .into_iter()
                .zip(converted)
                .map(|((name, _), schema)| (name.clone(), schema))
                .collect();
            components.insert("schemas".into(), Value::Object(schemas));
        }
        if let Some(parameters) = self.root.get("parameters").and_then(Value::as_object) {
            let mut out = Map::new();
            for (name, parameter) in parameters {
                // Body and form parameters become part of each operation's `requestBody`.
                if !is_body_or_form(parameter) {
                    out.insert(name.clone(), parameter_value(&rewritten(parameter)));
                }
            }
            if !out.is_empty() {
                components.insert("parameters".into(), Value::Object(out));
            }
        }
        if let Some(responses) = self.root.get("responses").and_then(Value::as_object) {
            let mut out = Map::new();
            for (name, response) in responses {
                let at = format!("/responses/{}", pointer_token(name));
                out.insert(name.clone(), self.response(response, &at, &self.produces)?);
            }
            components.insert("responses".into(), Value::Object(out));
        }
        if let Some(schemes) = self
            .root
            .get("securityDefinitions")
            .and_then(Value::as_object)
        {
            let schemes = schemes
                .iter()
                .map(|(name, scheme)| (name.clone(), security_scheme(scheme)))
                .collect();
            components.insert("securitySchemes".into(), Value::Object(schemes));
        }
        Ok(components)
    }

    /// The path items, converted on all cores (each reads the document as written only), kept
    /// in their order; the first that fails, in that order, is the error.
    fn paths(&self, paths: &Value) -> Result<Value, Fail> {
        use rayon::prelude::*;
        let Some(paths) = paths.as_object() else {
            return Ok(paths.clone());
        };
        let items: Vec<(&String, &Value)> = paths.iter().collect();
        let converted: Vec<Result<Value, Fail>> = items
            .par_iter()
            .map(|(path, item)| {
                let at = format!("/paths/{}", pointer_token(path));
                self.path_item(item, &at)
            })
            .collect();
        let mut out = Map::with_capacity(items.len());
        for ((path, _), item) in items.into_iter().zip(converted) {
            out.insert(path.clone(), item?);
        }
        Ok(Value::Object(out))
    }

    fn path_item(&self, item: &Value, pointer: &str) -> Result<Value, Fail> {
        let (item, pointer) = self.follow(item, pointer)?;
        let Some(item) = item.as_object() else {
            return Ok(item.clone());
        };
        // Path-level parameters: plain ones stay here, body and form ones go to each operation.
        let mut shared = Vec::new();
        let mut shared_body = Vec::new();
        if let Some(list) = item.get("parameters").and_then(Value::as_array) {
            for (index, parameter) in list.iter().enumerate() {
                let at = format!("{pointer}/parameters/{index}");
                match self.parameter(parameter, &at)? {
                    Converted::Plain(value) => shared.push(value),
                    Converted::Body(resolved) => shared_body.push(resolved),
                }
            }
        }
        let mut out = Map::new();
        for (key, value) in item {
            if key == "parameters" {
                if !shared.is_empty() {
                    out.insert(key.clone(), Value::Array(shared.clone()));
                }
            } else if METHODS.contains(&key.as_str()) {
                let at = format!("{pointer}/{key}");
                out.insert(key.clone(), self.operation(value, &at, &shared_body)?);
            } else {
                out.insert(key.clone(), rewritten_at(key, value));
            }
        }
        Ok(Value::Object(out))
    }

    fn operation(
        &self,
        operation: &Value,
        pointer: &str,
        shared_body: &[Value],
    ) -> Result<Value, Fail> {
        let Some(operation) = operation.as_object() else {
            return Ok(operation.clone());
        };
        let consumes = media_types(operation.get("consumes")).or_else(|| self.consumes.clone());
        let produces = media_types(operation.get("produces")).or_else(|| self.produces.clone());
        let mut parameters = Vec::new();
        let mut body_parameters: Vec<Value> = Vec::new();
        if let Some(list) = operation.get("parameters").and_then(Value::as_array) {
            for (index, parameter) in list.iter().enumerate() {
                let at = format!("{pointer}/parameters/{index}");
                match self.parameter(parameter, &at)? {
                    Converted::Plain(value) => parameters.push(value),
                    Converted::Body(resolved) => body_parameters.push(resolved),
                }
            }
        }
        // Path-level body and form parameters apply unless the operation has its own.
        for inherited in shared_body {
            let same = |p: &Value| {
                p.get("name") == inherited.get("name") && p.get("in") == inherited.get("in")
            };
            if !body_parameters.iter().any(same) {
                body_parameters.push(inherited.clone());
            }
        }
        let mut out = Map::new();
        for (key, value) in operation {
            match key.as_str() {
                "consumes" | "produces" | "schemes" => {}
                "parameters" => {
                    if !parameters.is_empty() {
                        out.insert(key.clone(), Value::Array(parameters.clone()));
                    }
                }
                "responses" => {
                    out.insert(
                        key.clone(),
                        self.responses(value, &format!("{pointer}/responses"), &produces)?,
                    );
                }
                _ => {
                    out.insert(key.clone(), rewritten_at(key, value));
                }
            }
        }
        if let Some(body) = request_body(&body_parameters, &consumes) {
            out.insert("requestBody".into(), body);
        }
        Ok(Value::Object(out))
    }

    /// One parameter of an operation or path item: a plain one, converted (a `$ref` to a plain
    /// component stays a `$ref`), or a body or form one, resolved (still in 2.0 shape).
    fn parameter(&self, parameter: &Value, pointer: &str) -> Result<Converted, Fail> {
        let reference = parameter.get("$ref").and_then(Value::as_str);
        let (resolved, _) = self.follow(parameter, pointer)?;
        if is_body_or_form(resolved) {
            return Ok(Converted::Body(rewritten(resolved)));
        }
        if let Some(reference) = reference
            && let Some(name) = reference.strip_prefix("#/parameters/")
            && !name.contains('/')
        {
            return Ok(Converted::Plain(
                json!({ "$ref": format!("#/components/parameters/{name}") }),
            ));
        }
        Ok(Converted::Plain(parameter_value(&rewritten(resolved))))
    }

    fn responses(
        &self,
        responses: &Value,
        pointer: &str,
        produces: &Option<Vec<String>>,
    ) -> Result<Value, Fail> {
        let Some(responses) = responses.as_object() else {
            return Ok(responses.clone());
        };
        let mut out = Map::new();
        for (code, response) in responses {
            let at = format!("{pointer}/{}", pointer_token(code));
            let converted = match response.get("$ref").and_then(Value::as_str) {
                // A shared response keeps its `$ref` when the operation produces what the document does.
                Some(reference)
                    if *produces == self.produces
                        && reference
                            .strip_prefix("#/responses/")
                            .is_some_and(|n| !n.contains('/')) =>
                {
                    json!({ "$ref": reference.replacen("#/responses/", "#/components/responses/", 1) })
                }
                _ => self.response(response, &at, produces)?,
            };
            out.insert(code.clone(), converted);
        }
        Ok(Value::Object(out))
    }

    /// One response (as written, or a `$ref` to one): `schema` (and `examples`) → `content`,
    /// headers' keywords into their `schema`.
    fn response(
        &self,
        response: &Value,
        pointer: &str,
        produces: &Option<Vec<String>>,
    ) -> Result<Value, Fail> {
        let response = rewritten(self.follow(response, pointer)?.0);
        let Some(object) = response.as_object() else {
            return Ok(response);
        };
        let mut out = Map::new();
        for (key, value) in object {
            match key.as_str() {
                "schema" | "examples" => {}
                "headers" => {
                    let headers = value
                        .as_object()
                        .map(|headers| {
                            headers
                                .iter()
                                .map(|(name, header)| (name.clone(), parameter_value(header)))
                                .collect()
                        })
                        .unwrap_or_default();
                    out.insert(key.clone(), Value::Object(headers));
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if !out.contains_key("description") {
            out.insert("description".into(), json!(""));
        }
        if let Some(schema) = object.get("schema") {
            let schema = file_to_binary(schema.clone());
            let examples = object.get("examples").and_then(Value::as_object);
            let mut content = Map::new();
            for media_type in produces
                .clone()
                .unwrap_or_else(|| vec!["application/json".into()])
            {
                let mut media = Map::new();
                media.insert("schema".into(), schema.clone());
                if let Some(example) = examples.and_then(|e| e.get(&media_type)) {
                    media.insert("example".into(), example.clone());
                }
                content.insert(media_type, Value::Object(media));
            }
            out.insert("content".into(), Value::Object(content));
        }
        Ok(Value::Object(out))
    }

    /// Follows `$ref`s (2.0 pointers, in the document as written) to a value that is not one.
    fn follow<'v>(&'v self, value: &'v Value, pointer: &str) -> Result<(&'v Value, String), Fail> {
        let mut current = value;
        let mut at = pointer.to_string();
        for _ in 0..32 {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                return Ok((current, at));
            };
            let Some(fragment) = reference.strip_prefix('#') else {
                return Err((
                    at,
                    format!("`$ref: {reference}` points into another file that was not read"),
                ));
            };
            let target = percent_decode(fragment);
            current = self.original.pointer(&target).ok_or_else(|| {
                (
                    at.clone(),
                    format!("`$ref: {reference}` points to nothing in this document"),
                )
            })?;
            at = target;
        }
        Err((
            pointer.into(),
            "a chain of `$ref`s loops back on itself".into(),
        ))
    }
}

enum Converted {
    Plain(Value),
    Body(Value),
}

fn is_body_or_form(parameter: &Value) -> bool {
    matches!(
        parameter.get("in").and_then(Value::as_str),
        Some("body" | "formData")
    )
}

/// A copy of a value taken from the document as written, with its `$ref`s and `x-nullable`
/// rewritten.
fn rewritten(value: &Value) -> Value {
    let mut value = value.clone();
    rewrite_refs_and_nullable(&mut value);
    value
}

/// [`rewritten`] for the value under `key` of an object: an extension is literal data, copied.
fn rewritten_at(key: &str, value: &Value) -> Value {
    let mut value = value.clone();
    if !refs::is_literal(None, None, key, &value) {
        rewrite_refs_and_nullable_under(&mut value, None, Some(key));
    }
    value
}

fn media_types(value: Option<&Value>) -> Option<Vec<String>> {
    let list: Vec<String> = value?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    (!list.is_empty()).then_some(list)
}

/// A non-body parameter (or a header) in 3.0 shape: its value keywords moved into `schema`.
fn parameter_value(parameter: &Value) -> Value {
    let Some(object) = parameter.as_object() else {
        return parameter.clone();
    };
    if object.contains_key("$ref") || object.contains_key("schema") {
        return parameter.clone();
    }
    let mut out = Map::new();
    let mut schema = Map::new();
    for (key, value) in object {
        if key == "collectionFormat" {
            // csv (the default) is 3.0's default style once `explode` is said; `multi` is the
            // exploded form; tsv has no 3.0 style and stays csv.
            let is_query = object.get("in").and_then(Value::as_str) == Some("query");
            let (style, explode) = match value.as_str() {
                Some("multi") => ("form", true),
                Some("ssv") if is_query => ("spaceDelimited", false),
                Some("pipes") if is_query => ("pipeDelimited", false),
                _ if is_query => ("form", false),
                _ => ("simple", false),
            };
            out.insert("style".into(), Value::from(style));
            out.insert("explode".into(), Value::Bool(explode));
            continue;
        }
        if VALUE_KEYWORDS.contains(&key.as_str()) {
            schema.insert(key.clone(), value.clone());
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    // Swagger 2.0's default `collectionFormat` is csv: a list in the query is `a,b`, not `x=a&x=b`.
    if object.get("in").and_then(Value::as_str) == Some("query")
        && object.get("type").and_then(Value::as_str) == Some("array")
        && !out.contains_key("style")
    {
        out.insert("style".into(), Value::from("form"));
        out.insert("explode".into(), Value::Bool(false));
    }
    if !schema.is_empty() {
        out.insert("schema".into(), value_schema(schema));
    }
    Value::Object(out)
}

/// The schema of a non-body parameter's value: `collectionFormat` dropped from nested `items`,
/// `x-nullable` made `nullable`, `type: file` a binary string.
fn value_schema(mut schema: Map<String, Value>) -> Value {
    schema.remove("collectionFormat");
    if let Some(Value::Object(items)) = schema.remove("items") {
        schema.insert("items".into(), value_schema(items));
    }
    if let Some(nullable) = schema.remove("x-nullable") {
        schema.insert("nullable".into(), nullable);
    }
    file_to_binary(Value::Object(schema))
}

/// `type: file` → `type: string, format: binary` (at the top of a schema).
fn file_to_binary(schema: Value) -> Value {
    match schema {
        Value::Object(mut object) if object.get("type") == Some(&json!("file")) => {
            object.insert("type".into(), json!("string"));
            object.insert("format".into(), json!("binary"));
            Value::Object(object)
        }
        other => other,
    }
}

/// The `requestBody` made of an operation's body or form parameters (already rewritten).
fn request_body(parameters: &[Value], consumes: &Option<Vec<String>>) -> Option<Value> {
    if let Some(body) = parameters
        .iter()
        .find(|p| p.get("in").and_then(Value::as_str) == Some("body"))
    {
        let schema = file_to_binary(body.get("schema").cloned().unwrap_or_else(|| json!({})));
        let media_types = consumes
            .clone()
            .unwrap_or_else(|| vec!["application/json".into()]);
        let content: Map<String, Value> = media_types
            .into_iter()
            .map(|media_type| (media_type, json!({ "schema": schema })))
            .collect();
        let mut out = Map::new();
        if let Some(description) = body.get("description") {
            out.insert("description".into(), description.clone());
        }
        out.insert("content".into(), Value::Object(content));
        if body.get("required") == Some(&Value::Bool(true)) {
            out.insert("required".into(), json!(true));
        }
        return Some(Value::Object(out));
    }
    let form: Vec<&Value> = parameters
        .iter()
        .filter(|p| p.get("in").and_then(Value::as_str) == Some("formData"))
        .collect();
    if form.is_empty() {
        return None;
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut has_file = false;
    for parameter in &form {
        let Some(name) = parameter.get("name").and_then(super::name_text) else {
            continue;
        };
        let name = name.as_str();
        has_file |= parameter.get("type") == Some(&json!("file"));
        let mut schema = match parameter_value(parameter).get("schema") {
            Some(Value::Object(schema)) => schema.clone(),
            _ => Map::new(),
        };
        for key in ["description", "deprecated"] {
            if let Some(value) = parameter.get(key) {
                schema.insert(key.into(), value.clone());
            }
        }
        if parameter.get("required") == Some(&Value::Bool(true)) {
            required.push(json!(name));
        }
        properties.insert(name.to_string(), Value::Object(schema));
    }
    let consumes = consumes.clone().unwrap_or_default();
    let says = |media_type: &str| {
        consumes.iter().any(|c| {
            c.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case(media_type)
        })
    };
    let media_type = if has_file
        || (says("multipart/form-data") && !says("application/x-www-form-urlencoded"))
    {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required.clone()));
    }
    let mut out = Map::new();
    out.insert(
        "content".into(),
        json!({ media_type: { "schema": Value::Object(schema) } }),
    );
    if !required.is_empty() {
        out.insert("required".into(), json!(true));
    }
    Some(Value::Object(out))
}

fn security_scheme(scheme: &Value) -> Value {
    let Some(object) = scheme.as_object() else {
        return scheme.clone();
    };
    let text = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut out = Map::new();
    match text("type") {
        "basic" => {
            out.insert("type".into(), json!("http"));
            out.insert("scheme".into(), json!("basic"));
        }
        "oauth2" => {
            out.insert("type".into(), json!("oauth2"));
            let flow_name = match text("flow") {
                "application" => "clientCredentials",
                "accessCode" => "authorizationCode",
                "password" => "password",
                _ => "implicit",
            };
            let mut flow = Map::new();
            for key in ["authorizationUrl", "tokenUrl"] {
                if let Some(value) = object.get(key) {
                    flow.insert(key.into(), value.clone());
                }
            }
            flow.insert(
                "scopes".into(),
                object.get("scopes").cloned().unwrap_or_else(|| json!({})),
            );
            out.insert("flows".into(), json!({ flow_name: flow }));
        }
        _ => return scheme.clone(),
    }
    if let Some(description) = object.get("description") {
        out.insert("description".into(), description.clone());
    }
    Value::Object(out)
}

/// Whether the `$ref` `reference` points into the document's `/paths`.
fn points_into_paths(reference: &str) -> bool {
    reference
        .strip_prefix('#')
        .is_some_and(|fragment| percent_decode(fragment).starts_with("/paths/"))
}

/// Calls `f` with every `$ref` of `value` (whose object is under `parent`, and that one under
/// `grandparent`) outside literal data.
fn for_each_ref(
    value: &mut Value,
    grandparent: Option<&str>,
    parent: Option<&str>,
    f: &mut dyn FnMut(&mut String),
) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get_mut("$ref") {
                f(reference);
            }
            for (key, child) in object.iter_mut() {
                if key != "$ref" && !refs::is_literal(grandparent, parent, key, child) {
                    for_each_ref(child, parent, Some(key), f);
                }
            }
        }
        Value::Array(items) => {
            for child in items {
                for_each_ref(child, parent, Some(refs::ITEM), f);
            }
        }
        _ => {}
    }
}

/// `#/definitions/X` → `#/components/schemas/X` (and the same for `parameters` and `responses`),
/// `x-nullable` → `nullable`, in every object of `value`.
fn rewrite_refs_and_nullable(value: &mut Value) {
    rewrite_refs_and_nullable_under(value, None, None);
}

/// [`rewrite_refs_and_nullable`] in `value`, whose object is under `parent` (and that one under
/// `grandparent`); literal data (examples, defaults, extensions) is left as written.
fn rewrite_refs_and_nullable_under(
    value: &mut Value,
    grandparent: Option<&str>,
    parent: Option<&str>,
) {
    match value {
        Value::Object(object) => {
            // One pass over the keys rather than a lookup of each keyword: this runs on every
            // object of the document.
            let mut nullable = None;
            for (key, child) in object.iter_mut() {
                match (key.as_str(), child) {
                    ("$ref", Value::String(reference)) => {
                        for (from, to) in [
                            ("#/definitions/", "#/components/schemas/"),
                            ("#/parameters/", "#/components/parameters/"),
                            ("#/responses/", "#/components/responses/"),
                        ] {
                            if let Some(rest) = reference.strip_prefix(from) {
                                *reference = format!("{to}{rest}");
                                break;
                            }
                        }
                    }
                    ("x-nullable", Value::Bool(value)) => nullable = Some(*value),
                    (key, child) => {
                        if !refs::is_literal(grandparent, parent, key, child) {
                            rewrite_refs_and_nullable_under(child, parent, Some(key));
                        }
                    }
                }
            }
            if let Some(nullable) = nullable {
                object.remove("x-nullable");
                object.insert("nullable".into(), Value::Bool(nullable));
            }
        }
        Value::Array(items) => {
            for child in items {
                rewrite_refs_and_nullable_under(child, parent, Some(refs::ITEM));
            }
        }
        _ => {}
    }
}
