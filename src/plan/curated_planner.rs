//! The curated planner: turns the tools a curation file describes into the plan's types
//! ([`super::curated`]) — their own parameters (renamed, mapped, resolved, defaulted), the
//! operation or workflow they run, and the shape of what they return.
//!
//! It reads only the bound [`Model`]: the curate stage has resolved every reference of the file
//! (operations, parameters, steps, enums, resolvers, field paths, templates, paging) and merged
//! what the file says with what the API says. What is left here is the plan's own work: Rust
//! names (types, variants, functions, locals), the operations' client code ([`Builder`]), the
//! tools' input and output schemas, and their annotations.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::curated::{
    AliasPlan, CuratedBody, CuratedTool, EnumPlan, EnumVariant, ParamKind, ResolverPlan,
    ResolverSource, ResultsPlan, ShapeConvert, StepPlan, Target, ToolParam, ValueRef,
};
use super::{Action, Annotations, Auth, Builder, FieldType, Tool, field_type, hoist_defs};
use crate::api::Operation;
use crate::curate::bound::{self, Arg, Model, ParamSource};
use crate::curate::model::{PagingStyle, ParamType};
use crate::curate::schema::{accepts_null, dotted, is_array, read_shape, schema_at};
use crate::naming::{self, Scope};

/// What the curated planning produced.
pub struct CuratedOutcome {
    pub tools: Vec<Tool>,
    pub enums: Vec<EnumPlan>,
    pub resolvers: Vec<ResolverPlan>,
    /// operationIds the curated tools and resolvers call.
    pub used: BTreeSet<String>,
}

/// Should `operation` also get a one-to-one tool? Not when a curated tool or resolver calls it
/// (`used`), nor when the file's `operations` section rules it out.
pub fn mirrored(model: &Model, operation: &Operation, used: &BTreeSet<String>) -> bool {
    !used.contains(&operation.id) && model.operations.mirrors(operation)
}

/// The credentials a curation file's `auth` section asks for.
pub fn auth(section: &bound::Auth) -> Vec<Auth> {
    let mut auth = Vec::new();
    if let Some(bearer) = &section.bearer {
        auth.push(Auth::Bearer {
            env: bearer.env.clone(),
            params: bearer.params.clone(),
        });
    }
    for key in &section.api_keys {
        auth.push(Auth::ApiKey {
            location: key.location,
            name: key.name.clone(),
            env: key.env.clone(),
            params: key.params.clone(),
        });
    }
    if let Some(basic) = &section.basic {
        auth.push(Auth::Basic {
            username_env: basic.username_env.clone(),
            password_env: basic.password_env.clone(),
        });
    }
    if let Some(oauth) = &section.client_credentials {
        auth.push(Auth::OAuth2ClientCredentials {
            token_url: oauth.token_url.clone(),
            client_id_env: oauth.client_id_env.clone(),
            client_secret_env: oauth.client_secret_env.clone(),
            scopes: oauth.scopes.clone(),
        });
    }
    auth
}

pub struct CuratedPlanner<'c> {
    model: &'c Model,
    enums: Vec<EnumPlan>,
    resolvers: Vec<ResolverPlan>,
    used: BTreeSet<String>,
}

impl<'c> CuratedPlanner<'c> {
    pub fn new(model: &'c Model) -> Self {
        Self {
            model,
            enums: Vec::new(),
            resolvers: Vec::new(),
            used: BTreeSet::new(),
        }
    }

    pub fn plan(mut self, builder: &mut Builder, tool_names: &mut Scope) -> CuratedOutcome {
        for spec in &self.model.enums {
            let type_name = builder
                .type_names
                .unique_type(naming::rust_type_ident(&spec.name, "Choice"));
            let mut variant_names = Scope::default();
            let variants = spec
                .values
                .iter()
                .map(|(readable, code)| EnumVariant {
                    ident: variant_names.unique_type(naming::rust_type_ident(readable, "Value")),
                    name: readable.clone(),
                    code: code.clone(),
                })
                .collect();
            self.enums.push(EnumPlan {
                name: spec.name.clone(),
                type_name,
                variants,
            });
        }
        let mut resolver_idents = Scope::default();
        for spec in &self.model.resolvers {
            let plan = self.resolver(spec, builder, &mut resolver_idents);
            self.resolvers.push(plan);
        }
        let mut tools = Vec::new();
        for spec in &self.model.tools {
            let full = format!("{}{}", self.model.server.prefix, spec.name);
            let full = tool_names.unique(full);
            tools.push(self.tool(full, spec, builder));
        }
        CuratedOutcome {
            tools,
            enums: self.enums,
            resolvers: self.resolvers,
            used: self.used,
        }
    }

    /// The plan of the operation of index `operation` in the API, planned on first use.
    fn use_operation(&mut self, operation: usize, builder: &mut Builder) -> usize {
        let operation = &builder.api.operations[operation];
        self.used.insert(operation.id.clone());
        builder.operation(operation)
    }

    fn resolver(
        &mut self,
        spec: &bound::Resolver,
        builder: &mut Builder,
        idents: &mut Scope,
    ) -> ResolverPlan {
        let source = match &spec.source {
            bound::ResolverSource::List {
                operation,
                items,
                paging,
            } => {
                let index = self.use_operation(*operation, builder);
                if paging
                    .as_ref()
                    .is_some_and(|p| p.style == PagingStyle::Link)
                {
                    builder.operations[index].link_paged = true;
                }
                ResolverSource::List {
                    operation: index,
                    items: items.clone(),
                    paging: paging.clone(),
                }
            }
            bound::ResolverSource::Lookup { operation, param } => ResolverSource::Lookup {
                operation: self.use_operation(*operation, builder),
                param: param.clone(),
            },
        };
        let aliases = spec
            .aliases
            .iter()
            .map(|(word, alias)| {
                let alias = match alias {
                    bound::AliasTarget::Literal(value) => AliasPlan::Literal(value.clone()),
                    bound::AliasTarget::Operation { operation, id } => AliasPlan::Operation {
                        operation: self.use_operation(*operation, builder),
                        id: id.clone(),
                    },
                };
                (word.clone(), alias)
            })
            .collect();
        ResolverPlan {
            name: spec.name.clone(),
            ident: idents.unique(naming::rust_snake_ident(&spec.name, "resolver")),
            what: spec.what.clone(),
            name_field: spec.name_field.clone(),
            match_fields: spec.match_fields.clone(),
            only: spec.only.clone(),
            id_field: spec.id_field.clone(),
            source,
            aliases,
            ttl_seconds: spec.ttl_seconds,
            id_integer: spec.id_integer,
            scope: spec.scope.clone(),
        }
    }

    fn tool(&mut self, name: String, spec: &bound::Tool, builder: &mut Builder) -> Tool {
        let mut idents =
            Scope::with_reserved(&["client", "arguments", "args", "input", "vars", "params"]);
        let mut params = Vec::new();
        let mut properties = Map::new();
        let mut required = Vec::new();
        for param in &spec.params {
            let (plan, mut schema) = self.param(param, &mut idents, builder);
            // A workflow's parameter says what the API fields it fills require of a value (a
            // text's format and least length, a list's least length), so that a value the API
            // would refuse ("next friday" for a date, a blank name, no items) is refused as an
            // argument.
            let kept: &[&str] = match schema.get("type").and_then(Value::as_str) {
                Some("string") => &["format", "minLength"],
                Some("array") => &["minItems"],
                _ => &[],
            };
            for keyword in kept {
                if let Some(value) = agreed(&param.fills, keyword)
                    && let Some(schema) = schema.as_object_mut()
                {
                    schema.entry(*keyword).or_insert(value);
                }
            }
            if plan.required {
                required.push(plan.name.clone());
            }
            properties.insert(plan.name.clone(), schema);
            params.push(plan);
        }
        let mut input = Map::new();
        input.insert("type".into(), json!("object"));
        input.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            input.insert("required".into(), json!(required));
        }
        input.insert("additionalProperties".into(), json!(false));

        let api = builder.api;
        let (body, method_annotations, vars) = match &spec.body {
            bound::Body::Call {
                operation,
                fixed,
                paging,
            } => {
                let index = self.use_operation(*operation, builder);
                let fixed = fixed
                    .iter()
                    .map(|(name, value)| (name.clone(), value_ref(value, &[])))
                    .collect();
                if paging
                    .as_ref()
                    .is_some_and(|p| p.style == PagingStyle::Link)
                {
                    builder.operations[index].link_paged = true;
                }
                (
                    CuratedBody::Call {
                        operation: index,
                        fixed,
                        paging: paging.clone(),
                    },
                    Annotations::for_operation(&api.operations[*operation]),
                    Vec::new(),
                )
            }
            bound::Body::Steps(steps) => self.steps(steps, &params, &spec.results, builder),
        };
        let results = ResultsPlan {
            source: spec.results.source.map(|step| ValueRef::Step {
                var: vars[step].clone(),
                pointer: String::new(),
            }),
            list: spec.results.list.clone(),
            fields: spec.results.fields.clone(),
            detailed: spec.results.detailed.clone(),
            lookups: spec.results.lookups.clone(),
        };
        let output_schema = output_schema(&results, spec.response.as_ref());
        Tool {
            name,
            title: spec.title.clone(),
            description: spec.description.clone(),
            input_schema: super::lean::into_input(hoist_defs(Value::Object(input))),
            output_schema,
            annotations: match &spec.annotations {
                Some(written) => Annotations {
                    read_only: written.read_only,
                    destructive: written.destructive,
                    idempotent: written.idempotent,
                    open_world: written.open_world,
                },
                None => method_annotations,
            },
            action: Action::Curated(Box::new(CuratedTool {
                params,
                body,
                results,
                errors: spec.errors.clone(),
            })),
        }
    }

    /// A parameter as the model sees it: its Rust name and type, and its JSON Schema.
    fn param(
        &self,
        param: &bound::Param,
        idents: &mut Scope,
        builder: &mut Builder,
    ) -> (ToolParam, Value) {
        let plan = |ident: String, kind: ParamKind| ToolParam {
            name: param.name.clone(),
            ident,
            kind,
            required: param.required,
            default: param.default.clone(),
            target: param.slot.as_ref().map(|slot| Target {
                api_name: slot.api_name.clone(),
                integer: slot.integer,
            }),
            description: param.description.clone(),
        };
        let mut schema = Map::new();
        let ident = match &param.source {
            ParamSource::Limit { .. } | ParamSource::ResponseFormat => {
                idents.unique(param.name.clone())
            }
            _ => idents.unique(naming::rust_snake_ident(&param.name, "param")),
        };
        let scalar = |ty: ParamType| match ty {
            ParamType::Integer => FieldType::Integer { allowed: None },
            ParamType::Number => FieldType::Number,
            ParamType::Boolean => FieldType::Boolean,
            ParamType::String | ParamType::Array => FieldType::String,
        };
        let kind = match &param.source {
            ParamSource::Limit {
                max,
                default,
                description,
            } => {
                schema.insert("type".into(), json!("integer"));
                schema.insert("minimum".into(), json!(1));
                schema.insert("maximum".into(), json!(max));
                schema.insert("default".into(), json!(default));
                if let Some(description) = description {
                    schema.insert("description".into(), json!(description));
                }
                return (
                    plan(ident, ParamKind::Limit { max: *max }),
                    Value::Object(schema),
                );
            }
            ParamSource::ResponseFormat => {
                return (
                    plan(ident, ParamKind::ResponseFormat),
                    json!({ "type": "string", "enum": ["concise", "detailed"], "default": "concise" }),
                );
            }
            ParamSource::Enum(index) => {
                schema.insert("type".into(), json!("string"));
                schema.insert(
                    "enum".into(),
                    json!(
                        self.enums[*index]
                            .variants
                            .iter()
                            .map(|v| v.name.clone())
                            .collect::<Vec<_>>()
                    ),
                );
                ParamKind::Enum(*index)
            }
            ParamSource::Resolve(index) => {
                schema.insert("type".into(), json!("string"));
                ParamKind::Resolve(*index)
            }
            ParamSource::ResolveList(index) => {
                schema.insert("type".into(), json!("array"));
                schema.insert("items".into(), json!({ "type": "string" }));
                ParamKind::ResolveList(*index)
            }
            ParamSource::Api(api_schema) => {
                for (key, value) in api_schema.as_object().into_iter().flatten() {
                    if !matches!(
                        key.as_str(),
                        "description" | "examples" | "default" | "title" | "x-mcp-header"
                    ) {
                        schema.insert(key.clone(), value.clone());
                    }
                }
                ParamKind::Plain(field_type(api_schema, &ident, &mut builder.type_names))
            }
            ParamSource::DeclaredList(items) => {
                schema.insert("type".into(), json!("array"));
                schema.insert("items".into(), json!({ "type": items.as_str() }));
                ParamKind::Plain(FieldType::List(Box::new(scalar(*items))))
            }
            ParamSource::Declared(ty) => {
                schema.insert("type".into(), json!(ty.as_str()));
                ParamKind::Plain(scalar(*ty))
            }
        };
        if let Some(default) = &param.default {
            schema.insert("default".into(), default.clone());
        }
        if let Some(description) = &param.description {
            schema.insert("description".into(), json!(description.trim()));
        }
        if let Some(header) = &param.header {
            schema.insert("x-mcp-header".into(), json!(header));
        }
        (plan(ident, kind), Value::Object(schema))
    }

    /// Plans a workflow's steps; returns them, the annotations its operations imply together,
    /// and each step's local variable (empty for a `stop_if`, which answers nothing).
    fn steps(
        &mut self,
        steps: &[bound::Step],
        params: &[ToolParam],
        results: &bound::Results,
        builder: &mut Builder,
    ) -> (CuratedBody, Annotations, Vec<String>) {
        // Step results become locals of the generated function: they must not shadow its own
        // (the arguments as `arg_<name>`, the `find` conditions, the resolved names...).
        let mut reserved: Vec<String> = [
            "client",
            "arguments",
            "args",
            "input",
            "vars",
            "params",
            "body",
            "collected",
            "items",
            "limit",
            "more",
            "e",
            "page",
            "value",
            "answer",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        reserved.extend(
            params
                .iter()
                .map(|p| format!("arg_{}", p.ident.trim_end_matches('_'))),
        );
        reserved.extend((0..16).map(|i| format!("wanted_{i}")));
        reserved.extend((1..=steps.len()).map(|i| format!("ran_{i}")));
        reserved.extend((0..16).map(|i| format!("names_{i}")));
        let reserved: Vec<&str> = reserved.iter().map(String::as_str).collect();
        let mut scope = Scope::with_reserved(&reserved);
        let api = builder.api;
        // Each step's local variable, by the step's index.
        let mut vars: Vec<String> = Vec::new();
        let mut planned = Vec::new();
        let mut methods = Vec::new();
        for step in steps {
            match step {
                bound::Step::Call {
                    name,
                    operation,
                    args,
                    when,
                    errors,
                    paging,
                    schema: _,
                } => {
                    let api_operation = &api.operations[*operation];
                    let index = self.use_operation(*operation, builder);
                    let annotations = Annotations::for_operation(api_operation);
                    let writes = !annotations.read_only_hint();
                    methods.push(annotations);
                    let var = scope.unique(naming::rust_snake_ident(name, "step"));
                    let args = args
                        .iter()
                        .map(|(name, value)| (name.clone(), value_ref(value, &vars)))
                        .collect();
                    let when = when.as_deref().map(|(left, right)| {
                        Box::new((value_ref(left, &vars), value_ref(right, &vars)))
                    });
                    if paging
                        .as_ref()
                        .is_some_and(|p| p.style == PagingStyle::Link)
                    {
                        builder.operations[index].link_paged = true;
                    }
                    vars.push(var.clone());
                    planned.push(StepPlan::Call {
                        operation: index,
                        api_id: api_operation.id.clone(),
                        var,
                        args,
                        errors: errors.clone(),
                        paging: paging.as_deref().cloned(),
                        answer: None,
                        writes,
                        when,
                    });
                }
                bound::Step::StopIf {
                    left,
                    right,
                    result,
                    message,
                } => {
                    planned.push(StepPlan::StopIf {
                        left: value_ref(left, &vars),
                        right: value_ref(right, &vars),
                        result: result.as_ref().map(|r| value_ref(r, &vars)),
                        message: message.clone(),
                    });
                    vars.push(String::new());
                }
                bound::Step::Resolve {
                    name,
                    resolver,
                    value,
                    scope: given,
                } => {
                    let value = value_ref(value, &vars);
                    let given = given
                        .iter()
                        .map(|(api_name, value)| (api_name.clone(), value_ref(value, &vars)))
                        .collect();
                    let var = scope.unique(naming::rust_snake_ident(name, "resolved"));
                    vars.push(var.clone());
                    planned.push(StepPlan::Resolve {
                        var,
                        resolver: *resolver,
                        value,
                        scope: given,
                    });
                }
                bound::Step::Find {
                    name,
                    list,
                    conditions,
                    missing,
                    ambiguous,
                } => {
                    let list = value_ref(list, &vars);
                    let conditions = conditions
                        .iter()
                        .map(|(field, value)| (field.clone(), value_ref(value, &vars)))
                        .collect();
                    let var = scope.unique(naming::rust_snake_ident(name, "found"));
                    vars.push(var.clone());
                    planned.push(StepPlan::Find {
                        var,
                        list,
                        conditions,
                        missing: missing.clone(),
                        ambiguous: ambiguous.clone(),
                    });
                }
            }
        }
        // What later steps read of each call's answer, checked before they rely on it; and what
        // the result's fields read of the answer they shape (a list result is read as it is
        // walked).
        let mut read: BTreeMap<String, Vec<Vec<String>>> = answers_read(&planned)
            .into_iter()
            .map(|(var, paths)| (var.to_string(), paths))
            .collect();
        if results.list.is_none() && !(results.fields.is_empty() && results.detailed.is_empty()) {
            let shaped: Vec<usize> = match results.source {
                Some(step) => vec![step],
                // The last call, and the calls before it made only `when` their condition
                // holds: the tool answers with the last that ran.
                None => {
                    let mut shaped = Vec::new();
                    for (index, step) in steps.iter().enumerate().rev() {
                        if let bound::Step::Call { when, .. } = step {
                            shaped.push(index);
                            if when.is_none() {
                                break;
                            }
                        }
                    }
                    shaped
                }
            };
            for index in shaped {
                if !matches!(steps.get(index), Some(bound::Step::Call { .. })) {
                    continue;
                }
                let paths = read.entry(vars[index].clone()).or_default();
                for field in results.fields.iter().chain(&results.detailed) {
                    paths.push(
                        field
                            .from
                            .split('/')
                            .skip(1)
                            .map(|s| s.replace("~1", "/").replace("~0", "~"))
                            .collect(),
                    );
                }
            }
        }
        for (plan, step) in planned.iter_mut().zip(steps) {
            if let (
                StepPlan::Call { var, answer, .. },
                bound::Step::Call {
                    schema: Some(schema),
                    ..
                },
            ) = (plan, step)
                && let Some(paths) = read.get(var.as_str())
            {
                *answer = Some(read_shape(schema, paths));
            }
        }
        (
            CuratedBody::Steps(planned),
            combined_annotations(&methods),
            vars,
        )
    }
}

/// A bound value as the generated code reads it: an earlier step's answer through the step's
/// local variable (`vars`, by step index).
fn value_ref(value: &Arg, vars: &[String]) -> ValueRef {
    let fields = |fields: &[(String, Arg)]| {
        fields
            .iter()
            .map(|(name, value)| (name.clone(), value_ref(value, vars)))
            .collect()
    };
    match value {
        Arg::Param(index) => ValueRef::Input(*index),
        Arg::Answer { step, pointer } => ValueRef::Step {
            var: vars[*step].clone(),
            pointer: pointer.clone(),
        },
        Arg::Literal(value) => ValueRef::Literal(value.clone()),
        Arg::Object(written) => ValueRef::Object(fields(written)),
        Arg::Array(items) => ValueRef::Array(items.iter().map(|v| value_ref(v, vars)).collect()),
        Arg::Template(template) => ValueRef::Template(template.clone()),
        Arg::When { condition, value } => ValueRef::When {
            condition: Box::new(value_ref(condition, vars)),
            value: Box::new(value_ref(value, vars)),
        },
        Arg::Each { list, fields: each } => ValueRef::Each {
            list: Box::new(value_ref(list, vars)),
            fields: fields(each),
        },
        Arg::Item(pointer) => ValueRef::Item(pointer.clone()),
        Arg::Text(value) => ValueRef::Text(Box::new(value_ref(value, vars))),
    }
}

/// The value of the schema keyword `keyword` (`format`, `minLength`) every one of `slots` agrees
/// on; `None` when one has none or they differ.
fn agreed(slots: &[Value], keyword: &str) -> Option<Value> {
    let first = slots.first()?.get(keyword)?;
    slots
        .iter()
        .all(|slot| slot.get(keyword) == Some(first))
        .then(|| first.clone())
}

/// The paths (field names) later steps read from each call's answer, by the call's variable: its
/// fields as step arguments and `stop_if` values, the list a `find` searches and the fields it
/// compares, and the fields of the item it finds (read through the list).
fn answers_read(steps: &[StepPlan]) -> BTreeMap<&str, Vec<Vec<String>>> {
    fn segments(pointer: &str) -> Vec<String> {
        pointer
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect()
    }
    fn visit<'s>(
        value: &'s ValueRef,
        found: &BTreeMap<&'s str, (&'s str, Vec<String>)>,
        read: &mut BTreeMap<&'s str, Vec<Vec<String>>>,
    ) {
        for (var, pointer) in value.step_reads() {
            let (var, mut path) = match found.get(var) {
                Some((list_var, list_path)) => (*list_var, list_path.clone()),
                None => (var, Vec::new()),
            };
            path.extend(segments(pointer));
            read.entry(var).or_default().push(path);
        }
    }
    let mut read = BTreeMap::new();
    // Each `find` step's variable → the answer and path of the list it searched.
    let mut found: BTreeMap<&str, (&str, Vec<String>)> = BTreeMap::new();
    for step in steps {
        match step {
            StepPlan::Call { args, when, .. } => {
                args.iter().for_each(|(_, v)| visit(v, &found, &mut read));
                if let Some((left, right)) = when.as_deref() {
                    visit(left, &found, &mut read);
                    visit(right, &found, &mut read);
                }
            }
            StepPlan::Resolve { value, scope, .. } => {
                visit(value, &found, &mut read);
                scope.iter().for_each(|(_, v)| visit(v, &found, &mut read));
            }
            StepPlan::StopIf {
                left,
                right,
                result,
                ..
            } => {
                for value in [Some(left), Some(right), result.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    visit(value, &found, &mut read);
                }
            }
            StepPlan::Find {
                var,
                list,
                conditions,
                ..
            } => {
                visit(list, &found, &mut read);
                for (_, value) in conditions {
                    visit(value, &found, &mut read);
                }
                if let ValueRef::Step {
                    var: list_var,
                    pointer,
                } = list
                {
                    let list_path = segments(pointer);
                    let (list_var, list_path) = match found.get(list_var.as_str()) {
                        Some((outer, outer_path)) => {
                            (*outer, [outer_path.clone(), list_path].concat())
                        }
                        None => (list_var.as_str(), list_path),
                    };
                    for (field, _) in conditions {
                        let mut path = list_path.clone();
                        path.extend(segments(field));
                        read.entry(list_var).or_default().push(path);
                    }
                    found.insert(var, (list_var, list_path));
                }
            }
        }
    }
    read
}

/// What a workflow's operations say together (each as [`Annotations::for_operation`] has it),
/// as only the hints that differ from MCP's defaults: read-only when every step reads; otherwise idempotent
/// when every writing step is (PUT, DELETE), and destructive (the default, so absent) since
/// every writing method may be.
fn combined_annotations(each: &[Annotations]) -> Annotations {
    let writes: Vec<&Annotations> = each.iter().filter(|a| !a.read_only_hint()).collect();
    if writes.is_empty() {
        return Annotations {
            read_only: Some(true),
            ..Annotations::default()
        };
    }
    Annotations {
        read_only: Some(false),
        destructive: Some(writes.iter().any(|a| a.destructive_hint())),
        idempotent: Some(writes.iter().all(|a| a.idempotent_hint())),
        open_world: None,
    }
    .without_defaults()
}

/// The output schema of a shaped result: only what the tool returns, each field with just its
/// type (the model needs the shape, not the API's documentation). A tool that returns the
/// response as it is publishes the response's schema with only the keywords that validate
/// ([`super::lean::output`]).
fn output_schema(results: &ResultsPlan, response: Option<&Value>) -> Option<Value> {
    if results.fields.is_empty() {
        return match (&results.list, response) {
            (None, Some(schema)) if super::is_object_schema(schema) => {
                Some(super::lean::output(schema))
            }
            _ => None,
        };
    }
    let item_schema = match (&results.list, response) {
        (Some(list), Some(schema)) => schema_at(schema, &dotted(&list.items))
            .ok()
            .flatten()
            .and_then(|s| crate::curate::schema::items_of(&s)),
        (None, Some(schema)) => Some(schema.clone()),
        _ => None,
    };
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in &results.fields {
        let source = item_schema.as_ref().and_then(|item| {
            schema_at(item, &dotted(&field.from))
                .ok()
                .flatten()
                .map(Cow::into_owned)
        });
        let schema = match field.convert {
            ShapeConvert::Copy => source.as_ref().map_or(json!({}), minimal_schema),
            ShapeConvert::Enum(_) | ShapeConvert::Lookup(_) => json!({ "type": "string" }),
        };
        properties.insert(field.name.clone(), schema);
        let top = field.from.matches('/').count() == 1;
        let source_required = item_schema
            .as_ref()
            .and_then(|item| item.get("required"))
            .and_then(Value::as_array)
            .is_some_and(|r| {
                r.iter()
                    .any(|n| Some(n.as_str().unwrap_or_default()) == field.from.strip_prefix('/'))
            });
        let nullable = source.as_ref().is_some_and(accepts_null);
        if top && source_required && !nullable {
            required.push(field.name.clone());
        }
    }
    let mut item = Map::new();
    item.insert("type".into(), json!("object"));
    item.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        item.insert("required".into(), json!(required));
    }
    let item = Value::Object(item);
    Some(match &results.list {
        Some(list) => json!({
            "type": "object",
            "properties": {
                list.name.clone(): { "type": "array", "items": item },
                "truncated": { "type": "boolean" },
            },
            "required": [list.name, "truncated"],
        }),
        None => item,
    })
}

/// Just the type of a schema (arrays keep their items' type).
fn minimal_schema(schema: &Value) -> Value {
    let kind = match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(str::to_string),
        _ => None,
    };
    match kind.as_deref() {
        Some("array") => match schema.get("items") {
            Some(items) => json!({ "type": "array", "items": minimal_schema(items) }),
            None => json!({ "type": "array" }),
        },
        Some(kind) => json!({ "type": kind }),
        None if is_array(schema) => json!({ "type": "array" }),
        None => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Method;

    #[test]
    fn a_workflow_is_read_only_only_when_every_step_reads() {
        let read = combined_annotations(&[Method::Get, Method::Get].map(Annotations::from_method));
        assert_eq!(
            read,
            Annotations {
                read_only: Some(true),
                ..Annotations::default()
            }
        );
        let write =
            combined_annotations(&[Method::Get, Method::Post].map(Annotations::from_method));
        assert!(!write.read_only_hint());
    }

    #[test]
    fn a_workflow_is_idempotent_only_when_every_write_is_and_always_destructive() {
        // Only the hints that differ from MCP's defaults are set: destructive is the default.
        let put_then_delete =
            combined_annotations(&[Method::Put, Method::Delete].map(Annotations::from_method));
        assert_eq!(
            put_then_delete,
            Annotations {
                idempotent: Some(true),
                ..Annotations::default()
            }
        );
        // A POST then a PUT: the POST is not idempotent, so the workflow is not.
        let post_then_put =
            combined_annotations(&[Method::Post, Method::Put].map(Annotations::from_method));
        assert_eq!(post_then_put, Annotations::default());
        assert!(post_then_put.destructive_hint() && !post_then_put.idempotent_hint());
        let post = combined_annotations(&[Method::Get, Method::Post].map(Annotations::from_method));
        assert_eq!(post, Annotations::default());
    }
}
