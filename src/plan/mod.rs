//! Plan: turns the normalized [`Api`] (and the bound curation [`Model`], when there is a
//! curation file) into the tool model — the server, its tools, their input and output schemas,
//! and the upstream operations they call. It never reads the curation file itself: `curate` has
//! checked it and resolved every reference in it into the [`Model`].
//!
//! Nothing here is Rust syntax: the model is what `build` renders and what a preview shows, so
//! every decision about names, schemas and annotations is made (and tested) here.
//!
//! The types and the planning code live apart: [`Plan`] and its parts (what `render` reads) are
//! in `model` and re-exported here, the curated tools' types in [`curated`]. This module plans
//! the server and its one-to-one tools; [`curated_planner`] plans the tools a curation file
//! describes; [`discovery`] holds the discovery tools' types and their planner; [`credentials`]
//! takes the parameters that carry a credential out of the operations, and [`lean`] trims the
//! schemas the tools publish.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

pub(crate) mod catalog;
pub mod credentials;
pub mod curated;
pub mod curated_planner;
pub mod discovery;
pub mod discovery_planner;
pub mod lean;
mod model;

use crate::api::{Api, Operation, SecurityScheme};
use crate::curate::Model;
use crate::curate::bound;
use crate::curate::model::CacheScope;
use crate::naming::{self, Scope};
use crate::text;

pub use model::{
    Action, Annotations, Auth, BodyPlan, Field, FieldTarget, FieldType, OperationPlan, Plan,
    Server, Tool,
};

/// What the user asked for beyond the document.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The server name (`--name`); `info.title` when absent.
    pub name: Option<String>,
    /// Without a curation file, a spec with more operations than this gets discovery tools
    /// instead of one tool per operation (default [`discovery::DEFAULT_DISCOVERY_THRESHOLD`]).
    pub discovery_threshold: Option<usize>,
    /// Never generate discovery tools on account of the spec's size: one tool per operation.
    pub no_discovery: bool,
    /// The folder external `$ref`s may read files from (`--refs-root`); the document's own folder
    /// when absent.
    pub refs_root: Option<std::path::PathBuf>,
}

/// Builds the plan for `api`: without curation one tool per operation (or, for a spec over the
/// discovery threshold, the three discovery tools only); with it, the curated tools, then
/// one-to-one tools for the operations the file includes, then discovery tools for the rest
/// when the file has a `discovery` section.
pub fn plan(api: &Api, options: &Options, model: Option<&Model>) -> Result<Plan, String> {
    let mode = discovery_planner::mode(api, options, model)?;
    let empty = Model::default();
    let model = model.unwrap_or(&empty);
    // The answers as the file declares them, as `check` checked them.
    let api = &*crate::curate::responses::apply(api, &model.declared);
    let name = match (&options.name, &model.server.name) {
        (Some(name), _) => naming::server_name(name)
            .ok_or_else(|| format!("--name {name:?} has no letters or digits to make a name of"))?,
        (None, Some(name)) => naming::server_name(name)
            .ok_or_else(|| format!("server name {name:?} has no letters or digits"))?,
        (None, None) => {
            naming::server_name_from_title(&api.title).unwrap_or_else(|| "api".to_string())
        }
    };
    let env_prefix = naming::env_prefix(&name);
    let server = Server {
        crate_name: format!("{name}-mcp"),
        auth: server_auth(api, model.auth.as_ref(), &env_prefix),
        env_prefix,
        name,
        title: api.title.clone(),
        api_version: api.version.clone(),
        description: api.description.clone(),
        instructions: model.server.instructions.clone(),
        default_base_url: api.servers.first().cloned(),
        tools_list_ttl_ms: model
            .server
            .tools_list_ttl_seconds
            .map_or(DEFAULT_TOOLS_LIST_TTL_MS, |s| s.saturating_mul(1000)),
        cache_public: model.server.cache_scope != Some(CacheScope::Private),
    };
    let prefix = model.server.prefix.as_str();
    // Parameters that carry a credential leave the operations here: no tool shows them.
    let api = &*credentials::carried(api, &server.auth);

    let mut builder = Builder::new(api);
    let mut tool_names = Scope::default();
    let mut tools = Vec::new();
    let curated = curated_planner::CuratedPlanner::new(model).plan(&mut builder, &mut tool_names);
    // The curated tools come in the file's order, one per entry.
    let mut scopes: Vec<(String, Vec<String>)> = model
        .tools
        .iter()
        .zip(&curated.tools)
        .filter(|(spec, _)| !spec.scopes.is_empty())
        .map(|(spec, tool)| (tool.name.clone(), spec.scopes.clone()))
        .collect();
    // Which tool calls each operation the curated tools call, for the discovery tools to point
    // the model to it.
    let mut served_by: Vec<(String, String)> = Vec::new();
    for tool in &curated.tools {
        let Action::Curated(curated_tool) = &tool.action else {
            continue;
        };
        let operations: Vec<usize> = match &curated_tool.body {
            curated::CuratedBody::Call { operation, .. } => vec![*operation],
            curated::CuratedBody::Steps(steps) => steps
                .iter()
                .filter_map(|step| match step {
                    curated::StepPlan::Call { operation, .. } => Some(*operation),
                    _ => None,
                })
                .collect(),
        };
        for operation in operations {
            let id = &builder.operations[operation].api_id;
            if !served_by.iter().any(|(served, _)| served == id) {
                served_by.push((id.clone(), tool.name.clone()));
            }
        }
    }
    tools.extend(curated.tools);
    let mut candidates = Vec::new();
    let mut unavailable: Vec<(String, String)> = Vec::new();
    for operation in &api.operations {
        let hidden = model.operations.hidden.contains(&operation.id);
        if hidden {
            unavailable.push((operation.id.clone(), "the server leaves it out".into()));
            continue;
        }
        if curated.used.contains(&operation.id) {
            let why = match served_by.iter().find(|(id, _)| *id == operation.id) {
                Some((_, tool)) => format!("the tool `{tool}` calls it; use that tool"),
                None => "the server calls it itself, to read names for ids".to_string(),
            };
            unavailable.push((operation.id.clone(), why));
            continue;
        }
        if matches!(mode, discovery::Mode::Automatic { .. })
            || !curated_planner::mirrored(model, operation, &curated.used)
        {
            candidates.push(operation);
            continue;
        }
        let index = builder.operation(operation);
        let tool_name = tool_names.tool_name(&format!("{prefix}{}", operation.id));
        unavailable.push((
            operation.id.clone(),
            format!("it has a tool of its own, `{tool_name}`; use that tool"),
        ));
        tools.push(mirror_tool(
            &builder.operations[index],
            operation,
            tool_name,
            index,
        ));
    }
    let discovery = match mode {
        discovery::Mode::Off => None,
        mode => {
            let section = model.discovery.clone().unwrap_or_default();
            let tool_prefix = discovery_planner::tool_prefix(prefix, &server.name);
            let (plan, discovery_tools) = discovery_planner::plan(
                &mut builder,
                mode,
                &section,
                &candidates,
                &tool_prefix,
                &mut tool_names,
                unavailable,
            )?;
            if !section.scopes.is_empty() {
                let needed = section.scopes.clone();
                scopes.extend(
                    discovery_tools
                        .iter()
                        .map(|tool| (tool.name.clone(), needed.clone())),
                );
            }
            tools.extend(discovery_tools);
            Some(plan)
        }
    };
    let plan = Plan {
        server,
        tools,
        operations: builder.operations,
        enums: curated.enums,
        resolvers: curated.resolvers,
        discovery,
        scopes,
    };
    every_value_names_a_parameter(&plan)?;
    Ok(plan)
}

/// Every value the plan gives an operation names one of its parameters: the generated code
/// fills each parameter struct field by field, so a value for a name the struct does not have
/// would be lost without a word. `check` refuses such names and `bind` binds each to an input
/// of its operation as `curate::schema::operation_inputs` names them; this makes sure the plan
/// names the operations' fields the same way.
fn every_value_names_a_parameter(plan: &Plan) -> Result<(), String> {
    let known = |operation: usize, name: &str| -> Result<(), String> {
        let operation = &plan.operations[operation];
        if operation.fields.iter().any(|f| f.property == name) {
            Ok(())
        } else {
            Err(format!(
                "internal error: a value is planned for `{name}`, which `{}` does not take",
                operation.api_id
            ))
        }
    };
    for tool in &plan.tools {
        let Action::Curated(curated) = &tool.action else {
            continue;
        };
        match &curated.body {
            curated::CuratedBody::Call {
                operation, fixed, ..
            } => {
                for param in &curated.params {
                    if let Some(target) = &param.target {
                        known(*operation, &target.api_name)?;
                    }
                }
                for (name, _) in fixed {
                    known(*operation, name)?;
                }
            }
            curated::CuratedBody::Steps(steps) => {
                for step in steps {
                    if let curated::StepPlan::Call {
                        operation, args, ..
                    } = step
                    {
                        for (name, _) in args {
                            known(*operation, name)?;
                        }
                    }
                }
            }
        }
    }
    for resolver in &plan.resolvers {
        let operation = match &resolver.source {
            curated::ResolverSource::List { operation, .. } => *operation,
            curated::ResolverSource::Lookup { operation, param } => {
                known(*operation, param)?;
                *operation
            }
        };
        for (name, _) in &resolver.scope {
            known(operation, name)?;
        }
    }
    Ok(())
}

/// The time clients may cache `tools/list` without a curation file saying otherwise: one day.
pub const DEFAULT_TOOLS_LIST_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// Collects the upstream operations the tools call, each planned once.
pub struct Builder<'a> {
    pub api: &'a Api,
    pub operations: Vec<OperationPlan>,
    by_id: IndexMap<String, usize>,
    fn_names: Scope,
    pub type_names: Scope,
    schemas: SharedSchemas,
}

/// The operations' input and response schemas, each distinct one held once: operations with the
/// same parameters or the same answer share one value (Kubernetes' 1,067 discoverable operations
/// have 443 distinct input schemas, 12 MB of JSON of which 6.9 MB distinct).
#[derive(Default)]
struct SharedSchemas {
    /// The schemas by the hash of their content (keys in their order).
    by_hash: HashMap<u64, Vec<Arc<Value>>>,
}

impl SharedSchemas {
    /// `schema`, of content hash `hash` ([`content_hash`]), or the one held already that is the
    /// same keyword for keyword, in the same order.
    fn share_hashed(&mut self, hash: u64, schema: Value) -> Arc<Value> {
        match self.held(hash, &schema) {
            Some(held) => held,
            None => self.hold(hash, schema),
        }
    }

    /// [`Self::share_hashed`] of a copy of `schema`, copied only when no same one is held. A
    /// copy rather than the loader's own (`Response::schema`, shared already): holding the
    /// loader's answers past loading kept their blocks, spread over the converters' heaps,
    /// from being freed with the rest of the model (Kubernetes' peak RSS 4 MiB higher).
    fn share_copy_hashed(&mut self, hash: u64, schema: &Value) -> Arc<Value> {
        match self.held(hash, schema) {
            Some(held) => held,
            None => self.hold(hash, schema.clone()),
        }
    }

    /// The schema held that is the same as `schema`, of hash `hash`.
    fn held(&self, hash: u64, schema: &Value) -> Option<Arc<Value>> {
        self.by_hash
            .get(&hash)?
            .iter()
            .find(|held| same_in_order(held, schema))
            .map(Arc::clone)
    }

    fn hold(&mut self, hash: u64, schema: Value) -> Arc<Value> {
        let schema = Arc::new(schema);
        self.by_hash
            .entry(hash)
            .or_default()
            .push(Arc::clone(&schema));
        schema
    }
}

/// The hash of `schema`'s content ([`hash_value`]): foldhash rather than SipHash, since schemas
/// are hashed whole and the hash only finds the held ones to compare with.
fn content_hash(schema: &Value) -> u64 {
    let mut hasher = foldhash::fast::FixedState::default().build_hasher();
    hash_value(schema, &mut hasher);
    hasher.finish()
}

/// Feeds `value` to `hasher`, its objects' entries in their order.
fn hash_value(value: &Value, hasher: &mut impl Hasher) {
    match value {
        Value::Null => hasher.write_u8(0),
        Value::Bool(boolean) => (1u8, boolean).hash(hasher),
        Value::Number(number) => (2u8, number).hash(hasher),
        Value::String(text) => (3u8, text).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            items.iter().for_each(|item| hash_value(item, hasher));
        }
        Value::Object(object) => {
            (5u8, object.len()).hash(hasher);
            for (key, value) in object {
                key.hash(hasher);
                hash_value(value, hasher);
            }
        }
    }
}

/// Whether `a` and `b` are the same value written the same way: [`Value`]'s own equality does
/// not look at the order of an object's entries, which the generated files show.
fn same_in_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_in_order(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_in_order(va, vb))
        }
        _ => a == b,
    }
}

impl<'a> Builder<'a> {
    /// A builder of the plans of `api`'s operations, none planned yet.
    pub fn new(api: &'a Api) -> Self {
        Builder {
            api,
            operations: Vec::new(),
            by_id: IndexMap::new(),
            fn_names: Scope::with_reserved(&["new", "upstream", "resolvers"]),
            type_names: Scope::with_reserved(&[
                "Client",
                "Value",
                "Map",
                "Input",
                "ResponseFormat",
            ]),
            schemas: SharedSchemas::default(),
        }
    }

    /// The index of `operation`'s plan, planning it on first use.
    pub fn operation(&mut self, operation: &Operation) -> usize {
        if let Some(index) = self.by_id.get(&operation.id) {
            return *index;
        }
        let prepared = Prepared::of(operation, &mut FieldIdents::default());
        self.commit(operation, prepared)
    }

    /// [`Self::operation`] of each of `operations`, in their order: what each plan needs of its
    /// operation alone (the fields, the input schema, the hashes of the schemas) is made on all
    /// cores, a batch at a time; the names and the shared schemas are then taken in order, as
    /// one call after another would take them. A batch is small enough that the input schemas it
    /// holds before their duplicates are dropped cost little memory. An operation that takes the
    /// same inputs as one before it ([`same_inputs`]) has that one's input schema, not built
    /// again (Kubernetes' 1,067 operations have 443 distinct input schemas).
    pub fn operations(&mut self, operations: &[&Operation]) -> Vec<usize> {
        use rayon::prelude::*;
        const BATCH: usize = 64;
        let same_as = self.same_inputs_before(operations);
        let mut indexes: Vec<usize> = Vec::with_capacity(operations.len());
        for (number, batch) in operations.chunks(BATCH).enumerate() {
            let start = number * BATCH;
            let prepared: Vec<Option<Prepared>> = batch
                .par_iter()
                .zip(&same_as[start..start + batch.len()])
                .map_init(FieldIdents::default, |idents, (operation, same_as)| {
                    (!self.by_id.contains_key(&operation.id)).then(|| match same_as {
                        Some(_) => Prepared::without_input_schema(operation, idents),
                        None => Prepared::of(operation, idents),
                    })
                })
                .collect();
            for ((operation, prepared), same_as) in
                batch.iter().zip(prepared).zip(&same_as[start..])
            {
                indexes.push(match prepared {
                    Some(mut prepared) => {
                        if let Some(earlier) = same_as {
                            let planned = &self.operations[indexes[*earlier]];
                            prepared.input = Input::Shared(Arc::clone(&planned.input_schema));
                        }
                        self.commit(operation, prepared)
                    }
                    None => self.by_id[&operation.id],
                });
            }
        }
        indexes
    }

    /// For each of `operations`, the first one before it that this builder plans here too (the
    /// first of its id, not planned before) and that takes the same inputs ([`same_inputs`]),
    /// when the operation itself is planned here; found on all cores, among the operations whose
    /// inputs look alike ([`inputs_outline`]).
    fn same_inputs_before(&self, operations: &[&Operation]) -> Vec<Option<usize>> {
        use rayon::prelude::*;
        let mut ids: HashSet<&str> = HashSet::with_capacity(operations.len());
        let planned_here: Vec<bool> = operations
            .iter()
            .map(|operation| {
                !self.by_id.contains_key(&operation.id) && ids.insert(operation.id.as_str())
            })
            .collect();
        let outlines: Vec<u64> = operations.par_iter().map(|o| inputs_outline(o)).collect();
        let mut alike: HashMap<u64, Vec<usize>> = HashMap::new();
        let mut before: Vec<&[usize]> = Vec::with_capacity(operations.len());
        for (index, outline) in outlines.iter().enumerate() {
            if planned_here[index] {
                alike.entry(*outline).or_default().push(index);
            }
        }
        for (index, outline) in outlines.iter().enumerate() {
            let group = alike.get(outline).map_or(&[][..], Vec::as_slice);
            let earlier = group.partition_point(|&other| other < index);
            before.push(match planned_here[index] {
                true => &group[..earlier],
                false => &[],
            });
        }
        before
            .par_iter()
            .enumerate()
            .map(|(index, earlier)| {
                earlier
                    .iter()
                    .copied()
                    .find(|&other| same_inputs(operations[other], operations[index]))
            })
            .collect()
    }

    /// Plans `operation` from what [`Prepared::of`] made of it, taking its names in this
    /// builder's scopes, unless an operation of its id is planned already.
    fn commit(&mut self, operation: &Operation, prepared: Prepared) -> usize {
        if let Some(index) = self.by_id.get(&operation.id) {
            return *index;
        }
        let fn_name = self
            .fn_names
            .unique(naming::rust_snake_ident(&operation.id, "operation"));
        let params_type = self.type_names.unique_type(naming::rust_type_ident(
            &format!("{} params", operation.id),
            "OperationParams",
        ));
        let Prepared {
            mut fields,
            body,
            input,
            response_hash,
        } = prepared;
        // The choices' type names, in the order `fields` would have taken them in this scope.
        for field in &mut fields {
            name_choices(&mut field.ty, &field.ident, &mut self.type_names);
        }
        let index = self.operations.len();
        self.operations.push(OperationPlan {
            api_id: operation.id.clone(),
            method: operation.method,
            reads_only: operation.reads_only(),
            path: operation.path.clone(),
            summary: operation.summary.clone(),
            fn_name,
            params_type,
            fields,
            body,
            input_schema: match input {
                Input::Built { schema, hash } => self.schemas.share_hashed(hash, schema),
                Input::Shared(schema) => schema,
                Input::Earlier => unreachable!("`Builder::operations` shares an earlier schema"),
            },
            link_paged: false,
            server: operation.server.clone(),
            credentials: operation.credentials.clone(),
            response: response_schema(operation)
                .zip(response_hash)
                .map(|(schema, hash)| self.schemas.share_copy_hashed(hash, schema)),
        });
        self.by_id.insert(operation.id.clone(), index);
        index
    }
}

/// The success response's schema of `operation`, when it has one.
fn response_schema(operation: &Operation) -> Option<&Value> {
    operation.success.as_ref().and_then(|r| r.schema.as_deref())
}

/// What the plan of an operation needs of the operation alone, made apart from the builder (on
/// any thread): its fields, whose choices (string enums) have type names of their own scope
/// until [`Builder::commit`] names them in the builder's, its body, its input schema, and the
/// content hash of the success response's schema.
struct Prepared {
    fields: Vec<Field>,
    body: Option<BodyPlan>,
    input: Input,
    response_hash: Option<u64>,
}

/// The input schema of a [`Prepared`] operation.
enum Input {
    /// Built from the operation, with its content hash.
    Built { schema: Value, hash: u64 },
    /// The schema of a planned operation that takes the same inputs.
    Shared(Arc<Value>),
    /// That of an operation before it that takes the same inputs, which [`Builder::operations`]
    /// gives it once that one is planned.
    Earlier,
}

impl Prepared {
    fn of(operation: &Operation, idents: &mut FieldIdents) -> Self {
        let (fields, properties, required, body) =
            fields(operation, &mut Scope::default(), Schemas::Built, idents);
        let mut input = Map::new();
        input.insert("type".into(), json!("object"));
        input.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            input.insert("required".into(), json!(required));
        }
        input.insert("additionalProperties".into(), json!(false));
        let schema = lean::into_input(hoist_defs(Value::Object(input)));
        Prepared {
            fields,
            body,
            input: Input::Built {
                hash: content_hash(&schema),
                schema,
            },
            response_hash: response_schema(operation).map(content_hash),
        }
    }

    /// [`Self::of`] but the input schema, which an operation before it that takes the same
    /// inputs has.
    fn without_input_schema(operation: &Operation, idents: &mut FieldIdents) -> Self {
        let (fields, _, _, body) =
            fields(operation, &mut Scope::default(), Schemas::Skipped, idents);
        Prepared {
            fields,
            body,
            input: Input::Earlier,
            response_hash: response_schema(operation).map(content_hash),
        }
    }
}

/// Whether `a` and `b` take the same inputs, so that their input schemas ([`Prepared::of`]) are
/// the same: the same parameters (name, location, whether required, description and schema, in
/// order) and the same body (kind, whether required, description and schema), schemas compared
/// keyword for keyword in their order ([`same_in_order`]). What the input schema is made of and
/// no more: a parameter's style or a body's content type change the fields, not the schema.
fn same_inputs(a: &Operation, b: &Operation) -> bool {
    let same_parameters = a.parameters.len() == b.parameters.len()
        && a.parameters.iter().zip(&b.parameters).all(|(a, b)| {
            a.name == b.name
                && a.location == b.location
                && a.required == b.required
                && a.description == b.description
                && same_in_order(&a.schema, &b.schema)
        });
    same_parameters
        && match (&a.body, &b.body) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.kind == b.kind
                    && a.required == b.required
                    && a.description == b.description
                    && same_in_order(&a.schema, &b.schema)
            }
            _ => false,
        }
}

/// A hash of the outline of `operation`'s inputs: what [`same_inputs`] compares, but only the
/// top levels of each schema ([`hash_outline`]), so that operations whose inputs are the same
/// have the same outline, and few whose inputs differ do.
fn inputs_outline(operation: &Operation) -> u64 {
    let mut hasher = foldhash::fast::FixedState::default().build_hasher();
    for parameter in &operation.parameters {
        parameter.name.hash(&mut hasher);
        parameter.location.as_str().hash(&mut hasher);
        parameter.required.hash(&mut hasher);
        parameter.description.hash(&mut hasher);
        hash_outline(&parameter.schema, 2, &mut hasher);
    }
    if let Some(body) = &operation.body {
        std::mem::discriminant(&body.kind).hash(&mut hasher);
        body.required.hash(&mut hasher);
        body.description.hash(&mut hasher);
        hash_outline(&body.schema, 3, &mut hasher);
    }
    hasher.finish()
}

/// [`hash_value`] of `value` down to `depth` levels, below which an array or object counts by
/// its length alone.
fn hash_outline(value: &Value, depth: usize, hasher: &mut impl Hasher) {
    match value {
        Value::Array(items) if depth > 0 => {
            (4u8, items.len()).hash(hasher);
            items
                .iter()
                .for_each(|item| hash_outline(item, depth - 1, hasher));
        }
        Value::Object(object) if depth > 0 => {
            (5u8, object.len()).hash(hasher);
            for (key, value) in object {
                key.hash(hasher);
                hash_outline(value, depth - 1, hasher);
            }
        }
        Value::Array(items) => (4u8, items.len()).hash(hasher),
        Value::Object(object) => (5u8, object.len()).hash(hasher),
        leaf => hash_value(leaf, hasher),
    }
}

/// Names the choices of `ty` (the type of the field `ident`) in `type_names`, as
/// [`field_type`] names them.
fn name_choices(ty: &mut FieldType, ident: &str, type_names: &mut Scope) {
    match ty {
        FieldType::StringEnum { type_name, .. } => *type_name = choice_type_name(ident, type_names),
        FieldType::List(item) => name_choices(item, ident, type_names),
        _ => {}
    }
}

/// The type name of the choice (string enum) of the field `ident`, unique in `type_names`.
fn choice_type_name(ident: &str, type_names: &mut Scope) -> String {
    type_names.unique_type(naming::rust_type_ident(ident, "Choice"))
}

/// The one-to-one tool for an operation: its input is the operation's (lean) input schema
/// without the spec's descriptions that only restate a property's name
/// ([`lean::without_restated_names`]), its annotations what the method says
/// ([`Annotations::from_method`]), and its description the summary and description
/// ([`description`]). It has no `title`: the summary would be said twice,
/// since it already opens the description.
///
/// The tool publishes the success response's schema with only the keywords that validate
/// ([`lean::output`]), so that a client can check and render what it gets — unless the answer
/// only echoes the request: a write whose reply has exactly the schema of its request body (the
/// resource it was given, sent back) answers with that reply as text and publishes no output
/// schema, since the tool's input already gives that shape and repeating it would be the largest
/// part of the definition. A write whose reply says something else (a form update answered with
/// the whole resource, an upload answered with a receipt) publishes its schema. A curated tool
/// over an echoing operation publishes one all the same.
fn mirror_tool(plan: &OperationPlan, operation: &Operation, name: String, index: usize) -> Tool {
    let response_schema = operation
        .success
        .as_ref()
        .and_then(|r| r.schema.as_deref())
        .filter(|schema| !echoes_body(operation, schema));
    let (output_schema, wrap) = match response_schema {
        Some(schema) if is_object_schema(schema) => (Some(lean::output(schema)), false),
        Some(schema) => (
            Some(lean::output(&hoist_defs(json!({
                "type": "object",
                "properties": { "result": schema },
                "required": ["result"],
            })))),
            true,
        ),
        None => (None, false),
    };
    Tool {
        name,
        title: None,
        description: description(operation),
        input_schema: lean::without_restated_names(&plan.input_schema),
        output_schema,
        annotations: Annotations::for_operation(operation),
        action: Action::Call {
            operation: index,
            wrap,
        },
    }
}

/// Whether the success `schema` of `operation` is its request body's schema, keyword for keyword
/// once both are lean (so a `readOnly` id or a description that only one of them has does not
/// tell them apart).
fn echoes_body(operation: &Operation, schema: &Value) -> bool {
    operation
        .body
        .as_ref()
        .is_some_and(|body| lean::output(&body.schema) == lean::output(schema))
}

/// The tool description: summary and description, without repeating one in the other.
///
/// When one of the two only restates the other ([`text::restates`]: "Update an existing pet."
/// before "Update an existing pet by Id.", "Deletes a pet." beside "Delete a pet."), the one that
/// says more stands alone. Otherwise the summary, as a sentence, opens the description: in the same
/// paragraph when the description starts as prose, after a blank line when it starts with
/// anything else (a list, a heading, code), so that its Markdown still reads as written.
pub fn description(operation: &Operation) -> Option<String> {
    let summary = operation
        .summary
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let description = operation
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty());
    match (summary, description) {
        (Some(summary), Some(description))
            if description.starts_with(summary)
                || text::restates(summary, text::first_sentence(description)) =>
        {
            Some(description.to_string())
        }
        (Some(summary), Some(description)) if text::restates(description, summary) => {
            Some(with_full_stop(summary))
        }
        (Some(summary), Some(description)) => {
            let prose = description.starts_with(char::is_alphabetic);
            let separator = if prose { " " } else { "\n\n" };
            Some(format!(
                "{}{separator}{description}",
                with_full_stop(summary)
            ))
        }
        (Some(summary), None) => Some(with_full_stop(summary)),
        (None, Some(description)) => Some(description.to_string()),
        (None, None) => Some(format!(
            "{} {}",
            operation.method.as_upper(),
            operation.path
        )),
    }
}

fn with_full_stop(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// Does `schema` describe a JSON object (so it can be `structuredContent` as is)?
pub fn is_object_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object"))
}

/// Moves every `$defs` found under `properties` to the root, where `#/$defs/…` points.
pub fn hoist_defs(mut schema: Value) -> Value {
    let mut defs = Map::new();
    collect_defs(&mut schema, &mut defs, true);
    if !defs.is_empty()
        && let Some(object) = schema.as_object_mut()
    {
        object.insert("$defs".into(), Value::Object(defs));
    }
    schema
}

fn collect_defs(schema: &mut Value, defs: &mut Map<String, Value>, is_root: bool) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if !is_root && let Some(Value::Object(found)) = object.remove("$defs") {
        for (name, definition) in found {
            defs.entry(name).or_insert(definition);
        }
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for property in properties.values_mut() {
            collect_defs(property, defs, false);
        }
    }
}

/// The Rust identifiers of input names ([`naming::rust_snake_ident`]), each made once: the
/// operations of an API take the same inputs again and again (each of Kubernetes' 1,067 takes
/// `pretty`, `dryRun` or `fieldManager`, and a body of `apiVersion`, `kind`, `metadata`…), and
/// making one costs thousands of instructions. Kept by each thread planning operations.
#[derive(Default)]
struct FieldIdents(HashMap<String, String, foldhash::fast::RandomState>);

impl FieldIdents {
    /// [`naming::rust_snake_ident`] of `name`, falling back to `field`.
    fn of(&mut self, name: &str) -> String {
        if let Some(ident) = self.0.get(name) {
            return ident.clone();
        }
        let ident = naming::rust_snake_ident(name, "field");
        self.0.insert(name.to_string(), ident.clone());
        ident
    }
}

type FieldsAndSchema = (
    Vec<Field>,
    Map<String, Value>,
    Vec<String>,
    Option<BodyPlan>,
);

/// Whether [`fields`] builds the input schema's properties.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Schemas {
    Built,
    /// Left empty: the operation shares the input schema of one that takes the same inputs.
    Skipped,
}

/// The operation's parameters and body properties, flattened into one set of fields and the
/// matching input-schema properties (empty when `schemas` is [`Schemas::Skipped`]).
fn fields(
    operation: &Operation,
    type_names: &mut Scope,
    schemas: Schemas,
    field_idents: &mut FieldIdents,
) -> FieldsAndSchema {
    let mut idents = Scope::with_reserved(&["client", "params", "request", "body", "upstream"]);
    let mut input_names = operation.input_names().into_iter();
    let mut fields = Vec::new();
    let mut properties = Map::new();
    let mut required = Vec::new();
    // `schema` is the input's schema as the spec gives it; `owned`, when the properties are
    // built, the property's schema to be (a copy of it, with the body's definitions).
    let mut add = |api_name: &str,
                   target: FieldTarget,
                   is_required: bool,
                   schema: &Value,
                   owned: Option<Value>,
                   given: Option<&String>,
                   fields: &mut Vec<Field>,
                   properties: &mut Map<String, Value>,
                   required: &mut Vec<String>| {
        let property = input_names.next().unwrap_or_else(|| api_name.to_string());
        let ident = idents.unique(field_idents.of(&property));
        let ty = field_type(schema, &ident, type_names);
        // The property's description: the input's own, in an object schema, else the schema's.
        let description = match (given, schema.is_object()) {
            (Some(description), true) => Some(description.clone()),
            _ => schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        if let Some(mut schema) = owned {
            if let (Some(description), Some(object)) = (given, schema.as_object_mut()) {
                object.insert("description".into(), json!(description));
            }
            properties.insert(property.clone(), schema);
        }
        if is_required {
            required.push(property.clone());
        }
        fields.push(Field {
            ident,
            property,
            api_name: api_name.to_string(),
            target,
            required: is_required,
            ty,
            description,
            style: None,
        });
    };
    let built = schemas == Schemas::Built;
    for parameter in &operation.parameters {
        add(
            &parameter.name,
            FieldTarget::Param(parameter.location),
            parameter.required,
            &parameter.schema,
            built.then(|| parameter.schema.clone()),
            parameter.description.as_ref(),
            &mut fields,
            &mut properties,
            &mut required,
        );
        if let Some(field) = fields.last_mut() {
            field.style = parameter.style;
        }
    }
    let body = operation.body.as_ref().map(|body| {
        if let Some(body_properties) = body.flattened_properties() {
            // The body's definitions go with its properties, for `hoist_defs` to gather at the
            // root of the input schema, where the first of them that holds them puts them all;
            // the others' are replaced by none rather than by copies it would find there
            // already (for Kubernetes, a copy per property of every body's `$defs`).
            let mut defs_given = false;
            for (name, schema) in body_properties {
                let owned = built.then(|| {
                    let mut schema = schema.clone();
                    if let (Some(defs), Some(object)) =
                        (body.schema.get("$defs"), schema.as_object_mut())
                    {
                        let defs = match defs_given {
                            true => Value::Object(Map::new()),
                            false => defs.clone(),
                        };
                        object.insert("$defs".into(), defs);
                        defs_given = true;
                    }
                    schema
                });
                add(
                    name,
                    FieldTarget::BodyProperty,
                    body.requires(name),
                    schema,
                    owned,
                    None,
                    &mut fields,
                    &mut properties,
                    &mut required,
                );
            }
        } else {
            add(
                "body",
                FieldTarget::WholeBody,
                body.required,
                &body.schema,
                built.then(|| Value::clone(&body.schema)),
                body.description.as_ref(),
                &mut fields,
                &mut properties,
                &mut required,
            );
        }
        BodyPlan {
            kind: body.kind,
            content_type: body.content_type.clone(),
            files: body.files.clone(),
        }
    });
    (fields, properties, required, body)
}

/// The Rust type for a property with `schema`.
pub fn field_type(schema: &Value, ident: &str, type_names: &mut Scope) -> FieldType {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => match string_enum(schema) {
            Some(values) => {
                let mut variant_names = Scope::default();
                let variants = values
                    .into_iter()
                    .map(|value| {
                        let variant =
                            variant_names.unique_type(naming::rust_type_ident(&value, "Value"));
                        (variant, value)
                    })
                    .collect();
                FieldType::StringEnum {
                    type_name: choice_type_name(ident, type_names),
                    variants,
                }
            }
            None => FieldType::String,
        },
        Some("integer") => FieldType::Integer {
            allowed: schema
                .get("enum")
                .and_then(Value::as_array)
                .and_then(|values| {
                    values
                        .iter()
                        .map(Value::as_i64)
                        .collect::<Option<Vec<i64>>>()
                }),
        },
        Some("number") => FieldType::Number,
        Some("boolean") => FieldType::Boolean,
        Some("array") => match schema.get("items") {
            Some(items) => match field_type(items, ident, type_names) {
                FieldType::Json => FieldType::Json,
                item => FieldType::List(Box::new(item)),
            },
            None => FieldType::Json,
        },
        _ => FieldType::Json,
    }
}

/// The values of a string enum, when every value is a distinct string.
fn string_enum(schema: &Value) -> Option<Vec<String>> {
    let values = schema.get("enum")?.as_array()?;
    let values: Vec<String> = values
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<_>>()?;
    (!values.is_empty()).then_some(values)
}

/// The schemes the spec asks for by default: the first alternative of the document's security
/// requirement, else the first operation's; and every API-key scheme whose parameter an
/// operation requires (Trello's description offers `key` and `token` as alternatives, yet every
/// operation requires both as query parameters).
pub fn required_schemes(api: &Api) -> Vec<&String> {
    let mut names: Vec<&String> = match api.security.iter().find(|alt| !alt.is_empty()) {
        Some(alternative) => alternative.iter().collect(),
        None => api
            .operations
            .iter()
            .filter_map(|op| op.security.as_ref())
            .flat_map(|alternatives| alternatives.first())
            .flatten()
            .take(1)
            .collect(),
    };
    for (name, scheme) in &api.security_schemes {
        if let SecurityScheme::ApiKey {
            location,
            name: key,
        } = scheme
            && !names.contains(&name)
            && api.operations.iter().any(|op| {
                // As loaded, or already taken out as a credential the server fills.
                op.parameters
                    .iter()
                    .any(|p| p.required && p.name == *key && p.location == *location)
                    || op
                        .credentials
                        .iter()
                        .any(|c| c.required && c.name == *key && c.location == Some(*location))
            })
        {
            names.push(name);
        }
    }
    names
}

/// The credentials the server sends: those of the curation file's `auth` section, else those the
/// spec requires ([`auth`]).
pub fn server_auth(api: &Api, section: Option<&bound::Auth>, env_prefix: &str) -> Vec<Auth> {
    match section {
        Some(section) => curated_planner::auth(section),
        None => auth(api, env_prefix),
    }
}

/// The credentials the server needs: those of [`required_schemes`]. One API key reads
/// `{PREFIX}_API_KEY`; several (a `key` and a `token`) each read a variable named after their
/// scheme (`{PREFIX}_API_TOKEN` for a scheme `ApiToken`), so that no two share one.
fn auth(api: &Api, env_prefix: &str) -> Vec<Auth> {
    let names = required_schemes(api);
    let api_keys = names
        .iter()
        .filter(|name| {
            matches!(
                api.security_schemes.get(name.as_str()),
                Some(SecurityScheme::ApiKey { .. })
            )
        })
        .count();
    let mut key_vars = Vec::new();
    let mut auth = Vec::new();
    for name in names {
        let Some(scheme) = api.security_schemes.get(name) else {
            continue;
        };
        let entry = match scheme {
            SecurityScheme::Bearer => Auth::Bearer {
                env: format!("{env_prefix}_TOKEN"),
                params: Vec::new(),
            },
            SecurityScheme::Basic => Auth::Basic {
                username_env: format!("{env_prefix}_USERNAME"),
                password_env: format!("{env_prefix}_PASSWORD"),
            },
            SecurityScheme::ApiKey {
                location,
                name: key_name,
            } => {
                let env = if api_keys > 1 {
                    let mut stem = naming::env_prefix(name);
                    if stem.is_empty() || stem == "BASE_URL" {
                        stem = "API_KEY".to_string();
                    }
                    let mut env = format!("{env_prefix}_{stem}");
                    let mut n = 2;
                    while key_vars.contains(&env) {
                        env = format!("{env_prefix}_{stem}_{n}");
                        n += 1;
                    }
                    env
                } else {
                    format!("{env_prefix}_API_KEY")
                };
                key_vars.push(env.clone());
                Auth::ApiKey {
                    location: *location,
                    name: key_name.clone(),
                    env,
                    params: Vec::new(),
                }
            }
            SecurityScheme::OAuth2ClientCredentials { .. } => Auth::Bearer {
                env: format!("{env_prefix}_TOKEN"),
                params: Vec::new(),
            },
            SecurityScheme::Unsupported { .. } => continue,
        };
        if !auth.contains(&entry) {
            auth.push(entry);
        }
    }
    auth
}

#[cfg(test)]
mod tests;
