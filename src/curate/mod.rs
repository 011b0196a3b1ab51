//! Curate: reads a curation file, checks it against its own schema and against the API, and
//! binds it to the API.
//!
//! Takes the file's text and the normalized [`Api`]. [`parse`] reads the YAML into the
//! [`Curation`] (serde types that keep each value's position); [`check::check`] finds every
//! mistake in it at once, each with `FILE:LINE:COL`, the offending line and a suggestion (unknown
//! keys are errors); a file without errors is then bound ([`bound::bind`]) into the [`Model`],
//! every reference resolved to what it names in the API. [`load`] and [`check_text`] do all three
//! and return the [`Checked`] file: the model, which is all the plan stage reads, and the
//! [`Curation`], for what reports positions in the file (`lint`, `diff`, `init`).

pub mod bound;
pub mod check;
pub mod diagnostics;
pub mod model;
pub mod responses;
pub mod schema;
pub mod semantics;

use std::path::Path;

use marked_yaml::{LoaderOptions, Node};
use serde_json::{Map, Value};

use crate::api::Api;
pub use bound::Model;
pub use diagnostics::{Diagnostic, Severity};
pub use model::{At, Curation};

/// A curation file without errors, bound to the API it was checked against.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The file as written, with positions.
    pub curation: Curation,
    /// What it means, every reference resolved: what `plan` takes.
    pub model: Model,
}

/// Checks `curation` against `api` and, when it has no errors, binds it: the checked file (or,
/// when it has errors, the file back) and every diagnostic found, a failure to bind among them.
pub fn check_and_bind(
    api: &Api,
    curation: Curation,
) -> (Result<Checked, Curation>, Vec<Diagnostic>) {
    let (curation, mut diagnostics) = check::check(api, curation);
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return (Err(curation), diagnostics);
    }
    match bound::bind(api, &curation) {
        Ok(model) => (Ok(Checked { curation, model }), diagnostics),
        Err(failed) => {
            diagnostics.extend(failed);
            (Err(curation), diagnostics)
        }
    }
}

/// A curation file that could not be used: its diagnostics, rendered.
#[derive(Debug)]
pub struct CurationError {
    pub diagnostics: Vec<Diagnostic>,
    pub rendered: String,
}

impl std::fmt::Display for CurationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.rendered.trim_end())
    }
}

impl std::error::Error for CurationError {}

/// Reads the curation file at `path` and checks it against `api`.
pub fn load(path: &Path, api: &Api) -> Result<Checked, CurationError> {
    let text = std::fs::read(path).map_err(|e| CurationError {
        diagnostics: Vec::new(),
        rendered: format!("{}: cannot read the curation file: {e}", path.display()),
    })?;
    let text = String::from_utf8(text).map_err(|_| CurationError {
        diagnostics: Vec::new(),
        rendered: format!(
            "{}: the curation file is not UTF-8 text; save it as UTF-8",
            path.display()
        ),
    })?;
    check_text(path, &text, api)
}

/// Parses and checks curation `text` (named `path` in messages) against `api`.
pub fn check_text(path: &Path, text: &str, api: &Api) -> Result<Checked, CurationError> {
    let fail = |diagnostics: Vec<Diagnostic>| CurationError {
        rendered: diagnostics::render(path, text, &diagnostics),
        diagnostics,
    };
    let curation = parse(text).map_err(fail)?;
    match check_and_bind(api, curation) {
        (Ok(checked), _) => Ok(checked),
        (Err(_), diagnostics) => Err(fail(diagnostics)),
    }
}

/// Parses curation `text`: YAML syntax, then the file's schema (every unknown key and wrong
/// type at once), then the typed model.
pub fn parse(text: &str) -> Result<Curation, Vec<Diagnostic>> {
    if text.trim().is_empty() {
        return Ok(Curation::default());
    }
    // Quoted scalars are marked as such, so that `"true"` stays text (see keep_quoted_strings).
    let options = LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .prevent_coercion(true);
    let node = marked_yaml::parse_yaml_with_options(0, text, options)
        .map_err(|error| vec![load_error(&error)])?;
    let schema = model::json_schema();
    let mut diagnostics = Vec::new();
    Walker {
        root: &schema,
        out: &mut diagnostics,
    }
    .walk(&node, &schema, "");
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let mut curation = marked_yaml::from_node::<Curation>(&node).map_err(|error| {
        let at = error
            .start_mark()
            .map(|m| At {
                offset: m.character(),
                line: m.line(),
                column: m.column(),
                len: 1,
            })
            .unwrap_or_default();
        vec![Diagnostic::error(at, error.to_string())]
    })?;
    place_mapped_fields(&mut curation, &node);
    keep_quoted_strings(&mut curation, &node);
    place_templates(&mut curation, &node);
    Ok(curation)
}

/// Gives the parts of mapped result fields (`{ from, enum, resolve }`) their own positions, which
/// the YAML reader cannot keep through the field's two forms.
fn place_mapped_fields(curation: &mut Curation, node: &Node) {
    let Some(tools) = node.as_mapping().and_then(|m| m.get_mapping("tools")) else {
        return;
    };
    for (name, tool) in curation.tools.iter_mut() {
        let Some(results) = tools
            .get_mapping(name.value.as_str())
            .and_then(|t| t.get_mapping("results"))
        else {
            continue;
        };
        let Some(results_spec) = tool.results.as_mut() else {
            continue;
        };
        for (section, fields) in [
            ("fields", &mut results_spec.fields),
            ("detailed_fields", &mut results_spec.detailed_fields),
        ] {
            let Some(section) = results.get_mapping(section) else {
                continue;
            };
            for (field_name, field) in fields.iter_mut() {
                let (model::FieldSpec::Mapped(mapped), Some(written)) =
                    (field, section.get_mapping(field_name.value.as_str()))
                else {
                    continue;
                };
                let place = |key: &str, target: &mut model::At| {
                    if let Some(scalar) = written.get_scalar(key) {
                        *target = At::from_span(scalar.span(), scalar.as_str().chars().count());
                    }
                };
                place("from", &mut mapped.from.at);
                if let Some(enum_name) = mapped.enum_name.as_mut() {
                    place("enum", &mut enum_name.at);
                }
                if let Some(resolve) = mapped.resolve.as_mut() {
                    place("resolve", &mut resolve.at);
                }
            }
        }
    }
}

/// Turns back into text every value the file quotes: the YAML reader hands each scalar over as
/// text and [`model::typed_scalars`] reads `3`, `true` and `null` as a number, a boolean and
/// null, but `"true"` and `'3'` are strings as written (a quoted `"true"` under `fixed:` reaches
/// a string parameter as the text `true`). Covers every literal the API receives: `fixed`
/// values, enum codes, parameter defaults and step `args` and `where` values at any depth.
fn keep_quoted_strings(curation: &mut Curation, node: &Node) {
    // Declared schemas: `type: [string, "null"]` names the type `null`, not a null.
    let root = node.as_mapping();
    for (section, declared) in [
        ("responses", &mut curation.responses),
        ("requests", &mut curation.requests),
    ] {
        let Some(written) = root.and_then(|m| m.get_mapping(section)) else {
            continue;
        };
        for (key, value) in declared.iter_mut() {
            if let Some(node) = written.get_node(key.value.as_str()) {
                quoted_stay_strings(&mut value.value, node);
            }
        }
    }
    if let Some(written) = root.and_then(|m| m.get_mapping("query")) {
        for (operation, params) in curation.query.iter_mut() {
            let Some(written) = written.get_mapping(operation.value.as_str()) else {
                continue;
            };
            for (key, value) in params.iter_mut() {
                if let Some(node) = written.get_node(key.value.as_str()) {
                    quoted_stay_strings(&mut value.value, node);
                }
            }
        }
    }
    if let Some(enums) = node.as_mapping().and_then(|m| m.get_mapping("enums")) {
        for (name, codes) in curation.enums.iter_mut() {
            let Some(written) = enums.get_mapping(name.value.as_str()) else {
                continue;
            };
            for (readable, code) in codes.iter_mut() {
                if let Some(node) = written.get_node(readable.value.as_str()) {
                    quoted_stay_strings(&mut code.value, node);
                }
            }
        }
    }
    let Some(tools) = node.as_mapping().and_then(|m| m.get_mapping("tools")) else {
        return;
    };
    for (name, tool) in curation.tools.iter_mut() {
        let Some(written) = tools.get_mapping(name.value.as_str()) else {
            continue;
        };
        if let Some(fixed) = written.get_mapping("fixed") {
            for (key, value) in tool.fixed.iter_mut() {
                if let Some(node) = fixed.get_node(key.value.as_str()) {
                    quoted_stay_strings(&mut value.value, node);
                }
            }
        }
        if let Some(params) = written.get_mapping("params") {
            for (key, param) in tool.params.iter_mut() {
                let node = params
                    .get_mapping(key.value.as_str())
                    .and_then(|p| p.get_node("default"));
                if let (Some(default), Some(node)) = (param.default.as_mut(), node) {
                    quoted_stay_strings(&mut default.value, node);
                }
            }
        }
        let Some(steps) = written.get_sequence("steps") else {
            continue;
        };
        for (step, written) in tool.steps.iter_mut().zip(steps.iter()) {
            let Some(written) = written.as_mapping() else {
                continue;
            };
            for (section, values) in [
                ("args", &mut step.value.args),
                ("where", &mut step.value.where_fields),
            ] {
                let Some(section) = written.get_mapping(section) else {
                    continue;
                };
                for (key, value) in values.iter_mut() {
                    if let Some(node) = section.get_node(key.value.as_str()) {
                        quoted_stay_strings(&mut value.value, node);
                    }
                }
            }
        }
    }
}

/// Records where the parts of every template under `fixed`, `args` and `where` were written
/// (see [`model::TemplatePlaces`]).
fn place_templates(curation: &mut Curation, node: &Node) {
    let Some(tools) = node.as_mapping().and_then(|m| m.get_mapping("tools")) else {
        return;
    };
    let mut places = model::TemplatePlaces::new();
    for (name, tool) in &curation.tools {
        let Some(written) = tools.get_mapping(name.value.as_str()) else {
            continue;
        };
        if let Some(fixed) = written.get_mapping("fixed") {
            for (key, value) in &tool.fixed {
                if let Some(node) = fixed.get_node(key.value.as_str()) {
                    template_places(node, value.at.offset, key.value.clone(), &mut places);
                }
            }
        }
        let Some(steps) = written.get_sequence("steps") else {
            continue;
        };
        for (step, written) in tool.steps.iter().zip(steps.iter()) {
            let Some(written) = written.as_mapping() else {
                continue;
            };
            for (section, values) in [
                ("args", &step.value.args),
                ("where", &step.value.where_fields),
            ] {
                let Some(section) = written.get_mapping(section) else {
                    continue;
                };
                for (key, value) in values {
                    if let Some(node) = section.get_node(key.value.as_str()) {
                        template_places(node, value.at.offset, key.value.clone(), &mut places);
                    }
                }
            }
        }
    }
    curation.template_places = places;
}

/// [`place_templates`] for one value, `slot` naming the path to it as the checker does
/// (`query.jql`, `labels[]`).
fn template_places(node: &Node, root: usize, slot: String, out: &mut model::TemplatePlaces) {
    match node {
        Node::Mapping(mapping) if mapping.get_node("template").is_some() => {
            let clauses = match mapping.get_node("template") {
                Some(Node::Sequence(items)) => items.iter().map(node_at).collect(),
                Some(other) => vec![node_at(other)],
                None => Vec::new(),
            };
            let keys = mapping
                .keys()
                .map(|key| {
                    let at = At::from_span(key.span(), key.as_str().chars().count());
                    (key.as_str().to_string(), at)
                })
                .collect();
            out.entry((root, slot)).or_insert(model::TemplateAt {
                clauses,
                keys,
                quote: mapping.get_node("quote").map(node_at),
                join: mapping.get_node("join").map(node_at),
            });
        }
        Node::Mapping(mapping) => {
            for (key, value) in mapping.iter() {
                template_places(value, root, format!("{slot}.{}", key.as_str()), out);
            }
        }
        Node::Sequence(items) => {
            for item in items.iter() {
                template_places(item, root, format!("{slot}[]"), out);
            }
        }
        Node::Scalar(_) => {}
    }
}

/// [`keep_quoted_strings`] for one value and the node it was read from, at any depth.
fn quoted_stay_strings(value: &mut Value, node: &Node) {
    match (value, node) {
        (value, Node::Scalar(scalar)) if !scalar.may_coerce() => {
            *value = Value::String(scalar.as_str().to_string());
        }
        (Value::Object(fields), Node::Mapping(mapping)) => {
            for (key, field) in fields.iter_mut() {
                if let Some(node) = mapping.get_node(key.as_str()) {
                    quoted_stay_strings(field, node);
                }
            }
        }
        (Value::Array(items), Node::Sequence(nodes)) => {
            for (item, node) in items.iter_mut().zip(nodes.iter()) {
                quoted_stay_strings(item, node);
            }
        }
        _ => {}
    }
}

fn load_error(error: &marked_yaml::LoadError) -> Diagnostic {
    use marked_yaml::LoadError as E;
    let at = |m: &marked_yaml::Marker| At {
        offset: m.character(),
        line: m.line(),
        column: m.column(),
        len: 1,
    };
    match error {
        E::TopLevelMustBeMapping(m) => Diagnostic::error(
            at(m),
            "a curation file is a mapping of keys such as `server` and `tools`",
        ),
        E::DuplicateKey(inner) => {
            let first = inner
                .prev_key
                .span()
                .start()
                .map(|m| format!("line {}", m.line()))
                .unwrap_or_else(|| "earlier".into());
            let marker = inner
                .key
                .span()
                .start()
                .copied()
                .unwrap_or_else(|| marked_yaml::Marker::new(0, 0, 1, 1));
            Diagnostic::error(
                At {
                    len: inner.key.as_str().chars().count(),
                    ..at(&marker)
                },
                format!("duplicate key `{}` (first at {first})", inner.key.as_str()),
            )
        }
        E::ScanError(m, scan) => {
            Diagnostic::error(at(m), format!("not valid YAML: {}", scan.info()))
        }
        E::TopLevelMustBeSequence(m)
        | E::UnexpectedAnchor(m)
        | E::MappingKeyMustBeScalar(m)
        | E::UnexpectedTag(m) => Diagnostic::error(at(m), error.to_string()),
    }
}

/// Where a node is, underlining a scalar's text.
fn node_at(node: &Node) -> At {
    let len = match node {
        Node::Scalar(s) => s.as_str().chars().count(),
        _ => 1,
    };
    At::from_span(node.span(), len)
}

/// The kind of a YAML node, as JSON Schema types name it.
fn node_types(node: &Node) -> Vec<&'static str> {
    match node {
        Node::Mapping(_) => vec!["object"],
        Node::Sequence(_) => vec!["array"],
        Node::Scalar(s) => {
            let text = s.as_str();
            let mut kinds = vec!["string"];
            if s.may_coerce() {
                if text == "~" || text == "null" || text.is_empty() {
                    kinds.push("null");
                }
                if s.as_bool().is_some() {
                    kinds.push("boolean");
                }
                if text.parse::<i64>().is_ok() {
                    kinds.push("integer");
                    kinds.push("number");
                } else if text.parse::<f64>().is_ok() {
                    kinds.push("number");
                }
            }
            kinds
        }
    }
}

/// Checks a YAML tree against the curation file's JSON Schema, collecting every mistake.
struct Walker<'a> {
    root: &'a Value,
    out: &'a mut Vec<Diagnostic>,
}

impl Walker<'_> {
    fn deref(&self, schema: &Value) -> Value {
        let mut current = schema.clone();
        for _ in 0..16 {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let pointer = reference.trim_start_matches('#');
            let Some(target) = self.root.pointer(pointer) else {
                break;
            };
            let mut merged = target.clone();
            if let (Some(merged), Some(extra)) = (merged.as_object_mut(), current.as_object()) {
                for (key, value) in extra {
                    if key != "$ref" {
                        merged.entry(key.clone()).or_insert(value.clone());
                    }
                }
            }
            current = merged;
        }
        current
    }

    /// The JSON types `schema` accepts, through `$ref`s and `anyOf` (empty: any).
    fn types_of(&self, schema: &Value) -> Vec<&'static str> {
        let schema = self.deref(schema);
        match schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            Some(variants) => {
                let mut types = Vec::new();
                for variant in variants {
                    for kind in self.types_of(variant) {
                        if !types.contains(&kind) {
                            types.push(kind);
                        }
                    }
                }
                types
            }
            None => schema_types(&schema),
        }
    }

    fn walk(&mut self, node: &Node, schema: &Value, path: &str) {
        let schema = self.deref(schema);
        if schema == Value::Bool(true) || schema.as_object().is_some_and(Map::is_empty) {
            return;
        }
        let kinds = node_types(node);
        if let Some(variants) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            let fitting: Vec<&Value> = variants
                .iter()
                .filter(|variant| self.types_of(variant).iter().any(|t| kinds.contains(t)))
                .collect();
            // Of two mappings (an alias `{ call, id }` or `{ value }`), the one whose keys these
            // are; else the first that takes this kind of node.
            let keys_fit = |variant: &Value| {
                let variant = self.deref(variant);
                let properties = variant.get("properties").and_then(Value::as_object);
                node.as_mapping().is_some_and(|mapping| {
                    mapping
                        .keys()
                        .all(|key| properties.is_some_and(|p| p.contains_key(key.as_str())))
                })
            };
            let chosen = fitting
                .iter()
                .find(|variant| keys_fit(variant))
                .or(fitting.first())
                .copied();
            match chosen {
                Some(variant) => self.walk(node, variant, path),
                None => self.wrong_type(node, variants, path),
            }
            return;
        }
        let types = self.types_of(&schema);
        if !types.is_empty() && !types.iter().any(|t| kinds.contains(t)) {
            self.wrong_type(node, std::slice::from_ref(&schema), path);
            return;
        }
        if let (Some(allowed), Node::Scalar(scalar)) =
            (schema.get("enum").and_then(Value::as_array), node)
        {
            let names: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
            if !names.contains(&scalar.as_str()) {
                let diagnostic = Diagnostic::error(
                    node_at(node),
                    format!(
                        "`{}` is not allowed{}; use one of: {}",
                        scalar.as_str(),
                        at_path(path),
                        names.join(", ")
                    ),
                )
                .suggest(scalar.as_str(), names.iter().copied());
                self.out.push(diagnostic);
            }
            return;
        }
        match node {
            Node::Mapping(mapping) => {
                let properties = schema.get("properties").and_then(Value::as_object);
                let additional = schema.get("additionalProperties");
                for (key, value) in mapping.iter() {
                    let child = format!(
                        "{path}{}{}",
                        if path.is_empty() { "" } else { "." },
                        key.as_str()
                    );
                    if let Some(property) = properties.and_then(|p| p.get(key.as_str())) {
                        let empty = matches!(value, Node::Scalar(s) if s.as_str().is_empty());
                        if empty && !self.types_of(property).contains(&"null") {
                            // Nothing was written after the key: point at the key.
                            let key_at = At::from_span(key.span(), key.as_str().chars().count());
                            self.wrong_type_at(
                                key_at,
                                "nothing".into(),
                                std::slice::from_ref(property),
                                &child,
                            );
                            continue;
                        }
                        self.walk(value, property, &child);
                    } else if let Some(additional) =
                        additional.filter(|a| **a != Value::Bool(false))
                    {
                        self.walk(value, additional, &child);
                    } else if properties.is_some() || additional == Some(&Value::Bool(false)) {
                        let names: Vec<&str> = properties
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        let key_at = At::from_span(key.span(), key.as_str().chars().count());
                        let mut diagnostic = Diagnostic::error(
                            key_at,
                            format!("unknown key `{}`{}", key.as_str(), at_path(path)),
                        );
                        // `{ description: The project, for example WEB }`: the comma ended the
                        // value and made the rest a key of its own, without a value.
                        let split_value = key.as_str().contains(' ')
                            && value
                                .as_scalar()
                                .is_some_and(|v| matches!(v.as_str(), "" | "~" | "null"));
                        diagnostic = match diagnostics::closest(key.as_str(), names.iter().copied())
                        {
                            _ if split_value => diagnostic.with_help(
                                "a comma inside an unquoted value of `{ ... }` starts a new key: put the value before it in quotes (`description: \"The project, for example WEB\"`)",
                            ),
                            Some(best) => diagnostic.with_help(format!("did you mean `{best}`?")),
                            None => diagnostic
                                .with_help(format!("expected one of: {}", names.join(", "))),
                        };
                        self.out.push(diagnostic);
                    }
                }
                for required in schema
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if mapping.get_node(required).is_none() {
                        self.out.push(Diagnostic::error(
                            node_at(node),
                            format!("missing key `{required}`{}", at_path(path)),
                        ));
                    }
                }
            }
            Node::Sequence(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (index, item) in items.iter().enumerate() {
                        self.walk(item, item_schema, &format!("{path}[{index}]"));
                    }
                }
            }
            Node::Scalar(_) => {}
        }
    }

    fn wrong_type(&mut self, node: &Node, expected: &[Value], path: &str) {
        let found = match node {
            Node::Mapping(_) => "a mapping".to_string(),
            Node::Sequence(_) => "a list".to_string(),
            Node::Scalar(s) if s.as_str().is_empty() => "nothing".to_string(),
            Node::Scalar(s) => format!("`{}`", s.as_str()),
        };
        self.wrong_type_at(node_at(node), found, expected, path);
    }

    fn wrong_type_at(&mut self, at: At, found: String, expected: &[Value], path: &str) {
        let mut names: Vec<&'static str> = Vec::new();
        for variant in expected {
            for kind in self.types_of(variant) {
                if !names.contains(&kind) {
                    names.push(kind);
                }
            }
        }
        // `null` is always allowed where a key may be left out; naming it only adds noise.
        if names.len() > 1 {
            names.retain(|name| *name != "null");
        }
        let expected = names
            .iter()
            .map(|kind| match *kind {
                "object" => "a mapping",
                "array" => "a list",
                "string" => "text",
                "integer" => "a whole number",
                "number" => "a number",
                "boolean" => "true or false",
                "null" => "null",
                _ => "a value",
            })
            .collect::<Vec<_>>()
            .join(" or ");
        self.out.push(Diagnostic::error(
            at,
            format!("expected {expected}{}, found {found}", at_path(path)),
        ));
    }
}

fn at_path(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" in `{path}`")
    }
}

/// The JSON types a schema accepts (empty: any).
fn schema_types(schema: &Value) -> Vec<&'static str> {
    const ALL: [&str; 7] = [
        "object", "array", "string", "integer", "number", "boolean", "null",
    ];
    let named = |name: &str| ALL.iter().copied().find(|t| *t == name);
    match schema.get("type") {
        Some(Value::String(name)) => named(name).into_iter().collect(),
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .filter_map(named)
            .collect(),
        _ if schema.get("enum").is_some() => vec!["string"],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
