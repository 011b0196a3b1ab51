//! The curated part of the plan: tools as the curation file describes them — their own
//! parameters (renamed, mapped, resolved, defaulted), the operation or workflow they run, and
//! the shape of what they return. The curate stage has already checked every reference, so a
//! failure here is an internal error.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::{Action, Annotations, Auth, Builder, FieldType, Tool, field_type, hoist_defs};
use crate::api::{Api, Location, Operation, SecurityScheme};
use crate::curate::model::{
    Alias, AllOrNone, AnnotationsSpec, AuthSection, ClausePart, Curation, FieldSpec, Filter, KeyIn,
    Pagination, PagingStyle, Param, ParamType, QuoteRule, Results, Spanned, Step, Template,
    ToolSpec,
};
use crate::curate::schema::{
    accepts_null, is_array, operation_inputs, read_shape, schema_at, success_schema,
};
use crate::curate::semantics::{
    Reference, Written, glob_matches, is_searched, lookup_param, paging_param_names,
    parameter_references, resolver_id_path, resolver_id_schema, resolver_items, resolver_paging,
    template_params, walked_pagination,
};
use crate::naming::{self, Scope};

/// An enum mapping: readable names ↔ API codes, as a Rust enum.
#[derive(Debug, Clone)]
pub struct EnumPlan {
    pub name: String,
    pub type_name: String,
    pub variants: Vec<EnumVariant>,
}

#[derive(Debug, Clone)]
pub struct EnumVariant {
    pub ident: String,
    pub name: String,
    pub code: Value,
}

impl EnumPlan {
    fn name_of(&self, code: &Value) -> Option<&str> {
        self.variants
            .iter()
            .find(|v| v.code == *code)
            .map(|v| v.name.as_str())
    }
}

/// How readable values of one kind become ids.
#[derive(Debug, Clone)]
pub struct ResolverPlan {
    pub name: String,
    /// The snake_case name used in generated function names (`project`).
    pub ident: String,
    pub what: String,
    pub source: ResolverSource,
    /// JSON pointers into an item.
    pub match_fields: Vec<String>,
    pub id_field: String,
    pub name_field: String,
    /// Words that stand for one item, matched case-insensitively before the list or lookup.
    pub aliases: Vec<(String, AliasPlan)>,
    pub ttl_seconds: u64,
    /// The API's ids are integers (sent as numbers, not text).
    pub id_integer: bool,
    /// Arguments of the list or lookup operation that scope it, by API name; empty for a
    /// resolver of the whole API. A list is cached per scope.
    pub scope: Vec<(String, ScopeValue)>,
}

/// The value of one scoping argument of a resolver.
#[derive(Debug, Clone)]
pub enum ScopeValue {
    /// The API value of the tool's parameter of this name.
    Param(String),
    Literal(Value),
    /// The readable value being resolved (`$value`): the list is a search for it.
    Searched,
}

/// What an alias of a resolver stands for.
#[derive(Debug, Clone)]
pub enum AliasPlan {
    /// The id of the item an operation without parameters answers with (operation index), at
    /// the JSON pointer `id` in its answer.
    Operation { operation: usize, id: String },
    /// A value sent as it is, in place of an id.
    Literal(String),
}

#[derive(Debug, Clone)]
pub enum ResolverSource {
    /// Every item is listed (pages walked) and cached.
    List {
        operation: usize,
        items: String,
        paging: Option<Box<PagingPlan>>,
    },
    /// One call per value, with the value in `param`.
    Lookup { operation: usize, param: String },
}

/// How an operation's pages are walked.
#[derive(Debug, Clone)]
pub struct PagingPlan {
    pub style: PagingStyle,
    /// The API parameter names: page number or offset or cursor, and page size.
    pub position_param: Option<String>,
    /// `None` for an API that takes no page size.
    pub size_param: Option<String>,
    /// JSON pointer to the next cursor (cursor style).
    pub next_cursor: String,
    /// JSON pointer, in a page's last item, to the next cursor (cursor style, instead of
    /// `next_cursor`).
    pub last_item_cursor: Option<String>,
    /// JSON pointer to the boolean that says whether more pages follow.
    pub has_more: Option<String>,
    /// JSON pointer to the next page's URL in the body (link style, instead of the `Link`
    /// header).
    pub next_link: Option<String>,
    /// JSON pointer to the items in each page.
    pub items: String,
    /// JSON pointer to the number of items the whole list has (page and offset styles).
    pub total: Option<String>,
    pub max_page_size: i64,
    pub max_pages: usize,
}

/// A curated tool's parameters and behaviour.
#[derive(Debug, Clone)]
pub struct CuratedTool {
    pub params: Vec<ToolParam>,
    pub body: CuratedBody,
    pub results: ResultsPlan,
    /// Messages by HTTP status: the tool's own, then the file's.
    pub errors: Vec<(u16, String)>,
}

/// One parameter the model sees.
#[derive(Debug, Clone)]
pub struct ToolParam {
    pub name: String,
    pub ident: String,
    pub kind: ParamKind,
    pub required: bool,
    /// The default as the model sees it (a readable name for an enum).
    pub default: Option<Value>,
    /// The API parameter it fills (one-call tools).
    pub target: Option<Target>,
    /// What the model is told about it.
    pub description: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Target {
    pub api_name: String,
    /// The API wants an integer (a resolved id is sent as a number).
    pub integer: bool,
}

#[derive(Debug, Clone)]
pub enum ParamKind {
    Plain(FieldType),
    Enum(usize),
    Resolve(usize),
    /// A list of readable values, each resolved (resolver index).
    ResolveList(usize),
    Limit {
        max: i64,
    },
    ResponseFormat,
}

#[derive(Debug, Clone)]
pub enum CuratedBody {
    Call {
        operation: usize,
        /// API parameters the file fills: literals, and templates over the tool's parameters.
        fixed: Vec<(String, ValueRef)>,
        paging: Option<Box<PagingPlan>>,
    },
    Steps(Vec<StepPlan>),
}

#[derive(Debug, Clone)]
pub enum StepPlan {
    Call {
        operation: usize,
        api_id: String,
        var: String,
        args: Vec<(String, ValueRef)>,
        errors: Vec<(u16, String)>,
        /// How the pages are walked, for the last step of a workflow whose result is a list.
        paging: Option<PagingPlan>,
        /// What later steps read of the answer, as JSON Schema (`schema::read_shape`): checked
        /// before they rely on it, so that an answer that does not fit stops the workflow at this
        /// step as the API's. `None` when nothing later reads it.
        answer: Option<Value>,
        /// The operation changes something (its answer not fitting means it most likely did).
        writes: bool,
        /// The step runs only when these two values are equal (`when`); its answer is null
        /// otherwise, and only steps with the same condition read it.
        when: Option<Box<(ValueRef, ValueRef)>>,
    },
    StopIf {
        left: ValueRef,
        right: ValueRef,
        result: Option<ValueRef>,
        /// Why nothing changed, told beside the result (`{param}` placeholders).
        message: String,
    },
    Find {
        var: String,
        list: ValueRef,
        conditions: Vec<(String, ValueRef)>,
        missing: String,
        /// The message when several items match; `{candidates}` lists them.
        ambiguous: String,
    },
    /// A readable value resolved to its id by a resolver, within the scope the step gives.
    Resolve {
        var: String,
        /// The resolver (by index).
        resolver: usize,
        value: ValueRef,
        /// The resolver's scoping arguments, by API name, in the resolver's order.
        scope: Vec<(String, ValueRef)>,
    },
}

/// What a `find` step says when nothing matches and its file gives no `missing`: the first
/// condition that compares a field with a parameter, in words (`No transition has to_state
/// "{status}".`).
fn default_missing(noun: &str, step: &Step) -> String {
    let by_param = step.where_fields.iter().find_map(|(field, value)| {
        let name = Reference::of(&value.value)?.whole()?;
        Some((field.value.as_str(), name))
    });
    match by_param {
        Some((field, param)) => format!("No {noun} has {field} \"{{{param}}}\"."),
        None => format!("No {noun} matches."),
    }
}

/// What a `stop_if` step that ends a workflow says when its file gives no `message`.
const NOTHING_CHANGED: &str = "Nothing changed: it was already as asked.";

/// A value a step uses.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueRef {
    /// A tool parameter (by index), as the API wants it (enum code, resolved id).
    Input(usize),
    /// A field of an earlier result: the local variable and a JSON pointer.
    Step {
        var: String,
        pointer: String,
    },
    Literal(Value),
    /// An object some of whose fields (at any depth) are references.
    Object(Vec<(String, ValueRef)>),
    /// A list some of whose items (at any depth) are references.
    Array(Vec<ValueRef>),
    /// Text built from clauses over the tool's parameters.
    Template(TemplatePlan),
    /// `value` when `condition` is present (`{ $if: $description, ... }`), else nothing.
    When {
        condition: Box<ValueRef>,
        value: Box<ValueRef>,
    },
    /// One object per item of `list` (`{ $each: $reviewers, uuid: $item }`); absent when the
    /// list is.
    Each {
        list: Box<ValueRef>,
        fields: Vec<(String, ValueRef)>,
    },
    /// In an `$each` object, its item at a JSON pointer (empty: the whole item).
    Item(String),
}

/// A template: its clauses, what joins the ones kept, and how values are written.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplatePlan {
    pub clauses: Vec<ClausePlan>,
    pub join: String,
    pub quote: QuoteRule,
}

/// One clause: kept once per combination of its parameters' values (none when one is absent,
/// one per item for a list).
#[derive(Debug, Clone, PartialEq)]
pub struct ClausePlan {
    /// As written, for the generated code's comments.
    pub written: String,
    /// The tool parameters (by index) whose values it writes, each once.
    pub params: Vec<usize>,
    /// The boolean parameters (by index) that keep it only when true (`{name:if}`).
    pub switches: Vec<usize>,
    pub parts: Vec<TemplatePart>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TemplatePart {
    Text(String),
    /// A parameter's value; `quoted` when the clause writes quotes around it; `words` when it
    /// is written word by word.
    Value {
        param: usize,
        quoted: bool,
        words: bool,
    },
}

impl TemplatePlan {
    /// The parameters (by index) the template uses.
    pub fn params(&self) -> Vec<usize> {
        let mut params: Vec<usize> = Vec::new();
        for clause in &self.clauses {
            for param in clause.params.iter().chain(&clause.switches) {
                if !params.contains(param) {
                    params.push(*param);
                }
            }
        }
        params
    }
}

/// A template as written, over `params`.
fn template_plan(value: &Value, params: &[ToolParam]) -> Result<TemplatePlan, String> {
    let template = Template::parse(value)
        .map_err(|e| format!("internal error: a checked template fails: {}", e.message))?;
    let index = |name: &str| {
        params
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| format!("internal error: template parameter `{name}` vanished"))
    };
    let mut clauses = Vec::new();
    for clause in &template.clauses {
        let mut parts = Vec::new();
        let mut switches = Vec::new();
        let mut values = Vec::new();
        for part in &clause.parts {
            parts.push(match part {
                ClausePart::Switch { name } => {
                    let param = index(name)?;
                    if !switches.contains(&param) {
                        switches.push(param);
                    }
                    continue;
                }
                ClausePart::Text(text) => TemplatePart::Text(text.clone()),
                ClausePart::Param {
                    name,
                    quoted,
                    words,
                } => TemplatePart::Value {
                    param: {
                        let param = index(name)?;
                        if !values.contains(&param) {
                            values.push(param);
                        }
                        param
                    },
                    words: *words,
                    quoted: match template.quote {
                        QuoteRule::Github | QuoteRule::Slack => *quoted == Some('"'),
                        QuoteRule::Jql => quoted.is_some(),
                        QuoteRule::None => false,
                    },
                },
            });
        }
        clauses.push(ClausePlan {
            written: clause.written.clone(),
            params: values,
            switches,
            parts,
        });
    }
    Ok(TemplatePlan {
        clauses,
        join: template.join,
        quote: template.quote,
    })
}

impl ValueRef {
    /// What the value reads of earlier steps, at any depth, in order: each step's variable and
    /// the JSON pointer read.
    pub fn step_reads(&self) -> Vec<(&str, &str)> {
        fn collect<'v>(value: &'v ValueRef, out: &mut Vec<(&'v str, &'v str)>) {
            match value {
                ValueRef::Step { var, pointer } => out.push((var, pointer)),
                ValueRef::Object(fields) => fields.iter().for_each(|(_, v)| collect(v, out)),
                ValueRef::Array(items) => items.iter().for_each(|v| collect(v, out)),
                ValueRef::When { condition, value } => {
                    collect(condition, out);
                    collect(value, out);
                }
                ValueRef::Each { list, fields } => {
                    collect(list, out);
                    fields.iter().for_each(|(_, v)| collect(v, out));
                }
                ValueRef::Input(_)
                | ValueRef::Literal(_)
                | ValueRef::Template(_)
                | ValueRef::Item(_) => {}
            }
        }
        let mut out = Vec::new();
        collect(self, &mut out);
        out
    }
}

#[derive(Debug, Clone, Default)]
pub struct ResultsPlan {
    /// For a workflow: the result shaped (default: the last call's).
    pub source: Option<ValueRef>,
    pub list: Option<ListPlan>,
    pub fields: Vec<ShapeField>,
    pub detailed: Vec<ShapeField>,
    /// Resolvers whose names the fields show, in `Lookup` index order.
    pub lookups: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct ListPlan {
    pub items: String,
    pub name: String,
    pub limit: Option<(i64, i64)>,
    pub truncated_message: String,
}

#[derive(Debug, Clone)]
pub struct ShapeField {
    pub name: String,
    pub from: String,
    pub convert: ShapeConvert,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ShapeConvert {
    Copy,
    Enum(usize),
    Lookup(usize),
}

/// What the curated planning produced.
pub struct CuratedOutcome {
    pub tools: Vec<Tool>,
    pub enums: Vec<EnumPlan>,
    pub resolvers: Vec<ResolverPlan>,
    /// operationIds the curated tools and resolvers call.
    pub used: BTreeSet<String>,
}

/// A dotted field path as a JSON pointer.
fn pointer(path: &str) -> String {
    crate::curate::schema::pointer(path)
}

/// Should `operation` also get a one-to-one tool?
pub fn mirrored(curation: &Curation, operation: &Operation, used: &BTreeSet<String>) -> bool {
    let section = &curation.operations;
    if section.hide.iter().any(|h| h.value == operation.id) || used.contains(&operation.id) {
        return false;
    }
    let included = section
        .mirror
        .as_ref()
        .is_none_or(|m| m.value == AllOrNone::All)
        && (section.include.is_empty()
            || section.include.iter().any(|f| filter_matches(f, operation)));
    included && !section.exclude.iter().any(|f| filter_matches(f, operation))
}

pub(crate) fn filter_matches(filter: &Filter, operation: &Operation) -> bool {
    filter
        .operation
        .as_ref()
        .is_none_or(|id| id.value == operation.id)
        && filter
            .tag
            .as_ref()
            .is_none_or(|tag| operation.tags.contains(&tag.value))
        && filter
            .method
            .as_ref()
            .is_none_or(|m| m.value.eq_ignore_ascii_case(operation.method.as_upper()))
        && filter
            .path
            .as_ref()
            .is_none_or(|p| glob_matches(&p.value, &operation.path))
}

/// The credentials a curation file's `auth` section asks for.
pub fn auth(section: &AuthSection, api: &Api) -> Vec<Auth> {
    let mut auth = Vec::new();
    let names = |params: &[Spanned<String>]| params.iter().map(|p| p.value.clone()).collect();
    if let Some(bearer) = &section.bearer {
        auth.push(Auth::Bearer {
            env: bearer.env.value.clone(),
            params: names(&bearer.params),
        });
    }
    for key in section.api_key.iter().chain(&section.api_keys) {
        auth.push(Auth::ApiKey {
            location: match key.location {
                KeyIn::Header => Location::Header,
                KeyIn::Query => Location::Query,
                KeyIn::Cookie => Location::Cookie,
            },
            name: key.name.value.clone(),
            env: key.env.value.clone(),
            params: names(&key.params),
        });
    }
    if let Some(basic) = &section.basic {
        auth.push(Auth::Basic {
            username_env: basic.username_env.value.clone(),
            password_env: basic.password_env.value.clone(),
        });
    }
    if let Some(oauth) = &section.oauth2_client_credentials {
        let token_url = oauth
            .token_url
            .as_ref()
            .map(|u| u.value.clone())
            .or_else(|| {
                api.security_schemes
                    .values()
                    .find_map(|scheme| match scheme {
                        SecurityScheme::OAuth2ClientCredentials { token_url } => {
                            Some(token_url.clone())
                        }
                        _ => None,
                    })
            });
        auth.push(Auth::OAuth2ClientCredentials {
            token_url: token_url.unwrap_or_default(),
            client_id_env: oauth.client_id_env.value.clone(),
            client_secret_env: oauth.client_secret_env.value.clone(),
            scopes: oauth.scopes.clone(),
        });
    }
    auth
}

pub struct CuratedPlanner<'c> {
    curation: &'c Curation,
    prefix: &'c str,
    enums: Vec<EnumPlan>,
    resolvers: Vec<ResolverPlan>,
    used: BTreeSet<String>,
}

impl<'c> CuratedPlanner<'c> {
    pub fn new(curation: &'c Curation, prefix: &'c str) -> Self {
        Self {
            curation,
            prefix,
            enums: Vec::new(),
            resolvers: Vec::new(),
            used: BTreeSet::new(),
        }
    }

    pub fn plan(
        mut self,
        builder: &mut Builder,
        tool_names: &mut Scope,
    ) -> Result<CuratedOutcome, String> {
        for (name, values) in &self.curation.enums {
            let type_name = builder
                .type_names
                .unique_type(naming::rust_type_ident(&name.value, "Choice"));
            let mut variant_names = Scope::default();
            let variants = values
                .iter()
                .map(|(readable, code)| EnumVariant {
                    ident: variant_names
                        .unique_type(naming::rust_type_ident(&readable.value, "Value")),
                    name: readable.value.clone(),
                    code: code.value.clone(),
                })
                .collect();
            self.enums.push(EnumPlan {
                name: name.value.clone(),
                type_name,
                variants,
            });
        }
        let mut resolver_idents = Scope::default();
        for (name, spec) in &self.curation.resolvers {
            let plan = self.resolver(name, spec, builder, &mut resolver_idents)?;
            self.resolvers.push(plan);
        }
        let mut tools = Vec::new();
        for (name, spec) in &self.curation.tools {
            let full = format!("{}{}", self.prefix, name.value);
            let full = tool_names.unique(full);
            tools.push(self.tool(full, spec, builder)?);
        }
        Ok(CuratedOutcome {
            tools,
            enums: self.enums,
            resolvers: self.resolvers,
            used: self.used,
        })
    }

    fn use_operation(&mut self, id: &str, builder: &mut Builder) -> Result<usize, String> {
        let operation = builder.find(id)?;
        self.used.insert(operation.id.clone());
        Ok(builder.operation(operation))
    }

    fn resolver(
        &mut self,
        name: &Spanned<String>,
        spec: &crate::curate::model::Resolver,
        builder: &mut Builder,
        idents: &mut Scope,
    ) -> Result<ResolverPlan, String> {
        let match_fields: Vec<String> = spec
            .match_fields
            .iter()
            .map(|f| pointer(&f.value))
            .collect();
        let id_field = pointer(resolver_id_path(spec));
        // The ids' schema decides how ids are sent (integers as numbers).
        let id_schema;
        let source = match (&spec.list, &spec.lookup) {
            (Some(list), _) => {
                let operation = builder.find(&list.value)?.clone();
                let items = resolver_items(spec, &operation).unwrap_or_default();
                id_schema = resolver_id_schema(spec, &operation);
                let paging = resolver_paging(self.curation, &operation).map(|p| {
                    let mut paging = paging_plan(p, &operation, &items);
                    // The resolver's own `items` is where its list's items are, whatever
                    // the other operations' pages hold (Slack: `members`, not `channels`).
                    if spec.items.is_some() {
                        paging.items = pointer(&items);
                    }
                    paging
                });
                let index = self.use_operation(&list.value, builder)?;
                if paging
                    .as_ref()
                    .is_some_and(|p| p.style == PagingStyle::Link)
                {
                    builder.operations[index].link_paged = true;
                }
                ResolverSource::List {
                    operation: index,
                    items: pointer(&items),
                    paging: paging.map(Box::new),
                }
            }
            (None, Some(lookup)) => {
                let operation = builder.find(&lookup.value)?.clone();
                id_schema = resolver_id_schema(spec, &operation);
                ResolverSource::Lookup {
                    operation: self.use_operation(&lookup.value, builder)?,
                    param: lookup_param(spec, &operation).unwrap_or_default(),
                }
            }
            (None, None) => {
                return Err(format!(
                    "internal error: resolver `{}` has no source",
                    name.value
                ));
            }
        };
        let id_integer = id_schema.is_some_and(|id| id.get("type") == Some(&json!("integer")));
        let mut aliases = Vec::new();
        for (word, alias) in &spec.aliases {
            let alias = match alias {
                Alias::Literal { value } => AliasPlan::Literal(value.value.clone()),
                _ => {
                    let (operation, id) = alias
                        .operation()
                        .ok_or("internal error: an alias is an operation or a value")?;
                    AliasPlan::Operation {
                        operation: self.use_operation(&operation.value, builder)?,
                        id: pointer(id.map_or(resolver_id_path(spec), |id| id.value.as_str())),
                    }
                }
            };
            aliases.push((word.clone(), alias));
        }
        Ok(ResolverPlan {
            name: name.value.clone(),
            ident: idents.unique(naming::rust_snake_ident(&name.value, "resolver")),
            what: spec
                .what
                .clone()
                .unwrap_or_else(|| name.value.replace('_', " ")),
            name_field: match_fields
                .first()
                .cloned()
                .unwrap_or_else(|| id_field.clone()),
            match_fields,
            id_field,
            source,
            aliases,
            ttl_seconds: spec.cache_seconds.unwrap_or(300),
            id_integer,
            scope: spec
                .args
                .iter()
                .map(|(arg, value)| {
                    let value = match Reference::of(&value.value) {
                        Some(_) if is_searched(&value.value) => ScopeValue::Searched,
                        Some(reference) => ScopeValue::Param(reference.head.to_string()),
                        None => ScopeValue::Literal(value.value.clone()),
                    };
                    (arg.value.clone(), value)
                })
                .collect(),
        })
    }

    fn enum_index(&self, name: &str) -> Result<usize, String> {
        self.enums
            .iter()
            .position(|e| e.name == name)
            .ok_or_else(|| format!("internal error: enum `{name}` vanished"))
    }

    fn resolver_index(&self, name: &str) -> Result<usize, String> {
        self.resolvers
            .iter()
            .position(|r| r.name == name)
            .ok_or_else(|| format!("internal error: resolver `{name}` vanished"))
    }

    fn tool(
        &mut self,
        name: String,
        spec: &ToolSpec,
        builder: &mut Builder,
    ) -> Result<Tool, String> {
        let mut idents =
            Scope::with_reserved(&["client", "arguments", "args", "input", "vars", "params"]);
        let mut params = Vec::new();
        let mut properties = Map::new();
        let mut required = Vec::new();
        let call_operation = match &spec.call {
            Some(call) => Some(builder.find(&call.value)?.clone()),
            None => None,
        };
        let api_inputs = call_operation
            .as_ref()
            .map(operation_inputs)
            .unwrap_or_default();
        // A parameter a template uses reaches the API only through it, unless `from` says.
        let in_templates = template_params(spec);
        for (param_name, param) in &spec.params {
            let api = param
                .from
                .as_ref()
                .map_or(param_name.value.as_str(), |f| f.value.as_str());
            let only_templated = param.from.is_none() && in_templates.contains(&param_name.value);
            let api_input = call_operation
                .as_ref()
                .filter(|_| !only_templated)
                .and_then(|_| api_inputs.iter().find(|(n, _, _)| n == api));
            let (plan, mut schema) =
                self.param(param_name, param, api_input, &mut idents, builder)?;
            // A workflow's parameter says what the API fields it fills require of a value (a
            // text's format and least length, a list's least length), so that a value the API
            // would refuse ("next friday" for a date, a blank name, no items) is refused as an
            // argument.
            let kept: &[&str] = match schema.get("type").and_then(Value::as_str) {
                Some("string") => &["format", "minLength"],
                Some("array") => &["minItems"],
                _ => &[],
            };
            let slots = match kept {
                [] => Vec::new(),
                _ => step_slots(spec, &param_name.value, builder).unwrap_or_default(),
            };
            for keyword in kept {
                if let Some(value) = agreed(&slots, keyword)
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
        let results_spec = spec.results.clone().unwrap_or_default();
        if let Some(limit) = &results_spec.limit {
            let mut schema = Map::new();
            schema.insert("type".into(), json!("integer"));
            schema.insert("minimum".into(), json!(1));
            schema.insert("maximum".into(), json!(limit.max.value));
            schema.insert("default".into(), json!(limit.default.value));
            if let Some(description) = &limit.description {
                schema.insert("description".into(), json!(description));
            }
            properties.insert("limit".into(), Value::Object(schema));
            params.push(ToolParam {
                name: "limit".into(),
                ident: idents.unique("limit".into()),
                kind: ParamKind::Limit {
                    max: limit.max.value,
                },
                required: false,
                default: Some(json!(limit.default.value)),
                target: None,
                description: Some(limit.description.clone().unwrap_or_else(|| {
                    format!("The most results to return, from 1 to {}.", limit.max.value)
                })),
            });
        }
        if !results_spec.detailed_fields.is_empty() {
            properties.insert(
                "response_format".into(),
                json!({ "type": "string", "enum": ["concise", "detailed"], "default": "concise" }),
            );
            params.push(ToolParam {
                name: "response_format".into(),
                ident: idents.unique("response_format".into()),
                kind: ParamKind::ResponseFormat,
                required: false,
                default: Some(json!("concise")),
                target: None,
                description: Some("`concise` to answer questions, `detailed` for the fields follow-up calls need.".into()),
            });
        }
        let mut input = Map::new();
        input.insert("type".into(), json!("object"));
        input.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            input.insert("required".into(), json!(required));
        }
        input.insert("additionalProperties".into(), json!(false));

        let (body, response, method_annotations) = match &call_operation {
            Some(operation) => {
                let index = self.use_operation(&operation.id, builder)?;
                let fixed = spec
                    .fixed
                    .iter()
                    .map(|(k, v)| {
                        let value = if Template::is_template(&v.value) {
                            ValueRef::Template(template_plan(&v.value, &params)?)
                        } else {
                            ValueRef::Literal(v.value.clone())
                        };
                        Ok((k.value.clone(), value))
                    })
                    .collect::<Result<_, String>>()?;
                let paging = self.paging(spec, operation, index, builder);
                (
                    CuratedBody::Call {
                        operation: index,
                        fixed,
                        paging: paging.map(Box::new),
                    },
                    success_schema(operation).cloned(),
                    Annotations::for_operation(operation),
                )
            }
            None => self.steps(spec, &params, builder)?,
        };
        let results = self.results(&results_spec, response.as_ref(), &body)?;
        let output_schema = output_schema(&results, response.as_ref());
        let mut errors: Vec<(u16, String)> = Vec::new();
        for (status, message) in spec.errors.iter().chain(&self.curation.errors) {
            if let Ok(code) = status.value.parse::<u16>()
                && !errors.iter().any(|(c, _)| *c == code)
            {
                errors.push((code, message.trim().to_string()));
            }
        }
        Ok(Tool {
            name,
            title: spec.title.clone(),
            description: spec.description.as_ref().map(|d| d.trim().to_string()),
            input_schema: super::lean::input(&hoist_defs(Value::Object(input))),
            output_schema,
            annotations: match &spec.annotations {
                Some(written) => annotations(written),
                None => method_annotations,
            },
            action: Action::Curated(Box::new(CuratedTool {
                params,
                body,
                results,
                errors,
            })),
        })
    }

    fn param(
        &mut self,
        name: &Spanned<String>,
        param: &Param,
        api_input: Option<&(String, Value, bool)>,
        idents: &mut Scope,
        builder: &mut Builder,
    ) -> Result<(ToolParam, Value), String> {
        let ident = idents.unique(naming::rust_snake_ident(&name.value, "param"));
        let api_schema = api_input.map(|(_, schema, _)| schema);
        let api_required = api_input.is_some_and(|(_, _, required)| *required);
        let mut schema = Map::new();
        let kind;
        let mut default = param.default.as_ref().map(|d| d.value.clone());
        if let Some(enum_name) = &param.enum_name {
            let index = self.enum_index(&enum_name.value)?;
            let plan = &self.enums[index];
            schema.insert("type".into(), json!("string"));
            schema.insert(
                "enum".into(),
                json!(
                    plan.variants
                        .iter()
                        .map(|v| v.name.clone())
                        .collect::<Vec<_>>()
                ),
            );
            if default.is_none()
                && let Some(code) = api_schema.and_then(|s| s.get("default"))
            {
                default = plan.name_of(code).map(|n| json!(n));
            }
            kind = ParamKind::Enum(index);
        } else if let Some(resolver) = &param.resolve {
            let index = self.resolver_index(&resolver.value)?;
            if is_list_param(param, api_schema) {
                schema.insert("type".into(), json!("array"));
                schema.insert("items".into(), json!({ "type": "string" }));
                kind = ParamKind::ResolveList(index);
            } else {
                schema.insert("type".into(), json!("string"));
                kind = ParamKind::Resolve(index);
            }
        } else if let Some(api_schema) = api_schema {
            for (key, value) in api_schema.as_object().into_iter().flatten() {
                if !matches!(
                    key.as_str(),
                    "description" | "examples" | "default" | "title" | "x-mcp-header"
                ) {
                    schema.insert(key.clone(), value.clone());
                }
            }
            if default.is_none() {
                default = api_schema.get("default").cloned();
            }
            kind = ParamKind::Plain(field_type(api_schema, &ident, &mut builder.type_names));
        } else {
            let scalar = |ty: Option<&Spanned<ParamType>>| match ty.map(|t| t.value) {
                Some(ParamType::Integer) => FieldType::Integer { allowed: None },
                Some(ParamType::Number) => FieldType::Number,
                Some(ParamType::Boolean) => FieldType::Boolean,
                _ => FieldType::String,
            };
            if param.ty.as_ref().map(|t| t.value) == Some(ParamType::Array) {
                let items = param.items.as_ref().map_or("string", |t| t.value.as_str());
                schema.insert("type".into(), json!("array"));
                schema.insert("items".into(), json!({ "type": items }));
                kind = ParamKind::Plain(FieldType::List(Box::new(scalar(param.items.as_ref()))));
            } else {
                let ty = param.ty.as_ref().map_or("string", |t| t.value.as_str());
                schema.insert("type".into(), json!(ty));
                kind = ParamKind::Plain(scalar(param.ty.as_ref()));
            }
        }
        if let Some(default) = &default {
            schema.insert("default".into(), default.clone());
        }
        let description = match &param.description {
            Some(explicit) => explicit.clone(),
            None => api_schema
                .and_then(|s| s.get("description"))
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        if let Some(description) = &description {
            schema.insert("description".into(), json!(description.trim()));
        }
        if let Some(header) = &param.header {
            schema.insert("x-mcp-header".into(), json!(header.value));
        }
        let required = param.required.unwrap_or(match api_input {
            Some(_) => api_required && default.is_none(),
            None => default.is_none(),
        });
        let target = api_input.map(|(api_name, schema, _)| Target {
            api_name: api_name.clone(),
            integer: match &kind {
                ParamKind::ResolveList(_) => {
                    schema.pointer("/items/type") == Some(&json!("integer"))
                }
                _ => schema.get("type") == Some(&json!("integer")),
            },
        });
        Ok((
            ToolParam {
                name: name.value.clone(),
                ident,
                kind,
                required,
                default,
                target,
                description,
            },
            Value::Object(schema),
        ))
    }

    /// Plans a workflow's steps; returns them, the schema of the result shaped, and the
    /// annotations its writes imply.
    /// How a list tool walks the pages of `operation` (its index in `builder`): with the tool's
    /// `pagination`, else the file's when the operation takes its parameters; `None` for a tool
    /// that lists nothing (`results.items`) or an operation without paging.
    fn paging(
        &self,
        spec: &ToolSpec,
        operation: &Operation,
        index: usize,
        builder: &mut Builder,
    ) -> Option<PagingPlan> {
        let items = spec.results.as_ref()?.items.as_ref()?;
        let pagination = walked_pagination(self.curation, spec, operation)?;
        let paging = paging_plan(pagination, operation, &items.value);
        if paging.style == PagingStyle::Link {
            builder.operations[index].link_paged = true;
        }
        Some(paging)
    }

    fn steps(
        &mut self,
        spec: &ToolSpec,
        params: &[ToolParam],
        builder: &mut Builder,
    ) -> Result<(CuratedBody, Option<Value>, Annotations), String> {
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
        reserved.extend((1..=spec.steps.len()).map(|i| format!("ran_{i}")));
        reserved.extend((0..16).map(|i| format!("names_{i}")));
        let reserved: Vec<&str> = reserved.iter().map(String::as_str).collect();
        let mut vars = Scope::with_reserved(&reserved);
        // Step names as written → (local variable, result schema).
        let mut results: IndexMap<String, (String, Option<Value>)> = IndexMap::new();
        let mut steps = Vec::new();
        let mut last: Option<Value> = None;
        let mut methods = Vec::new();
        for (index, step) in spec.steps.iter().map(|s| &s.value).enumerate() {
            if let Some(call) = &step.call {
                let operation = builder.find(&call.value)?.clone();
                let op_index = self.use_operation(&operation.id, builder)?;
                methods.push(Annotations::for_operation(&operation));
                let written = step
                    .name
                    .as_ref()
                    .map_or_else(|| format!("step_{}", index + 1), |n| n.value.clone());
                let var = vars.unique(naming::rust_snake_ident(&written, "step"));
                let args = step
                    .args
                    .iter()
                    .map(|(name, value)| {
                        Ok((
                            name.value.clone(),
                            value_ref(&value.value, params, &results)?,
                        ))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let when = step
                    .when
                    .as_ref()
                    .map(|when| equal_pair(&when.equal.value, params, &results).map(Box::new))
                    .transpose()?;
                let schema = success_schema(&operation).cloned();
                results.insert(written, (var.clone(), schema.clone()));
                last = schema;
                // The last step of a workflow whose result is a list is walked like a one-call
                // list tool's operation (check allows `results.items` only there).
                let paging = if index + 1 == spec.steps.len() {
                    self.paging(spec, &operation, op_index, builder)
                } else {
                    None
                };
                steps.push(StepPlan::Call {
                    operation: op_index,
                    api_id: operation.id.clone(),
                    var,
                    args,
                    errors: step_errors(step),
                    paging,
                    answer: None,
                    writes: !Annotations::for_operation(&operation).read_only_hint(),
                    when,
                });
            } else if let Some(stop) = &step.stop_if {
                let (left, right) = equal_pair(&stop.equal.value, params, &results)?;
                let result = stop
                    .result
                    .as_ref()
                    .map(|r| value_ref(&Value::String(r.value.clone()), params, &results))
                    .transpose()?;
                steps.push(StepPlan::StopIf {
                    left,
                    right,
                    result,
                    message: stop
                        .message
                        .as_deref()
                        .map(str::trim)
                        .unwrap_or(NOTHING_CHANGED)
                        .to_string(),
                });
            } else if let Some(resolver_name) = &step.resolve {
                let resolver = self.resolver_index(&resolver_name.value)?;
                let value = match &step.value {
                    Some(value) => value_ref(&value.value, params, &results)?,
                    None => ValueRef::Literal(Value::Null),
                };
                let scope = self.resolvers[resolver]
                    .scope
                    .iter()
                    .filter(|(_, own)| !matches!(own, ScopeValue::Searched))
                    .map(|(api_name, own)| {
                        let given = step.args.iter().find(|(arg, _)| arg.value == *api_name);
                        let value = match (given, own) {
                            (Some((_, given)), _) => value_ref(&given.value, params, &results)?,
                            (None, ScopeValue::Param(name)) => ValueRef::Input(
                                params.iter().position(|p| p.name == *name).ok_or_else(|| {
                                    format!("internal error: scope parameter `{name}` vanished")
                                })?,
                            ),
                            (None, ScopeValue::Literal(literal)) => {
                                ValueRef::Literal(literal.clone())
                            }
                            (None, ScopeValue::Searched) => ValueRef::Literal(Value::Null),
                        };
                        Ok((api_name.clone(), value))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let written = step
                    .name
                    .as_ref()
                    .map_or_else(|| format!("step_{}", index + 1), |n| n.value.clone());
                let var = vars.unique(naming::rust_snake_ident(&written, "resolved"));
                let id_type = if self.resolvers[resolver].id_integer {
                    "integer"
                } else {
                    "string"
                };
                results.insert(written, (var.clone(), Some(json!({ "type": id_type }))));
                steps.push(StepPlan::Resolve {
                    var,
                    resolver,
                    value,
                    scope,
                });
            } else if let Some(find) = &step.find {
                let list = value_ref(&Value::String(find.value.clone()), params, &results)?;
                let conditions = step
                    .where_fields
                    .iter()
                    .map(|(field, value)| {
                        Ok((
                            pointer(&field.value),
                            value_ref(&value.value, params, &results)?,
                        ))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                let written = step
                    .name
                    .as_ref()
                    .map_or_else(|| format!("step_{}", index + 1), |n| n.value.clone());
                let var = vars.unique(naming::rust_snake_ident(&written, "found"));
                let item_schema = match &list {
                    ValueRef::Step {
                        var: list_var,
                        pointer: list_pointer,
                    } => results
                        .values()
                        .find(|(v, _)| v == list_var)
                        .and_then(|(_, s)| s.as_ref())
                        .and_then(|s| schema_at(s, &dotted(list_pointer)).ok().flatten())
                        .and_then(|s| s.get("items").cloned()),
                    _ => None,
                };
                // What the list holds, for the default messages: its field's name made
                // singular (`$transitions.transitions` holds transitions) unless it says nothing
                // (`data`, `items`), else the step's name.
                let noun = Reference::read(&find.value)
                    .and_then(|r| r.path.rsplit('.').next())
                    .filter(|field| {
                        !field.is_empty()
                            && field.parse::<usize>().is_err()
                            && !matches!(
                                *field,
                                "data"
                                    | "items"
                                    | "values"
                                    | "results"
                                    | "records"
                                    | "elements"
                                    | "entries"
                                    | "list"
                                    | "nodes"
                                    | "edges"
                                    | "objects"
                                    | "content"
                            )
                    })
                    .map(|field| naming::singular(field).replace('_', " "))
                    .unwrap_or_else(|| written.replace('_', " "));
                let missing = match &step.missing {
                    Some(missing) => missing.value.trim().to_string(),
                    None => default_missing(&noun, step),
                };
                let ambiguous = match &step.ambiguous {
                    Some(ambiguous) => ambiguous.value.trim().to_string(),
                    None => format!(
                        "More than one {noun} matches: {{candidates}}. This tool cannot choose \
                         between them; tell the user which ones were found."
                    ),
                };
                results.insert(written, (var.clone(), item_schema));
                steps.push(StepPlan::Find {
                    var,
                    list,
                    conditions,
                    missing,
                    ambiguous,
                });
            }
        }
        let read: BTreeMap<String, Vec<Vec<String>>> = answers_read(&steps)
            .into_iter()
            .map(|(var, paths)| (var.to_string(), paths))
            .collect();
        for step in &mut steps {
            if let StepPlan::Call { var, answer, .. } = step
                && let Some(paths) = read.get(var.as_str())
            {
                *answer = results
                    .values()
                    .find(|(v, _)| v == var)
                    .and_then(|(_, schema)| schema.as_ref())
                    .map(|schema| read_shape(schema, paths));
            }
        }
        let response = match spec.results.as_ref().and_then(|r| r.from.as_ref()) {
            Some(from) => {
                let head = Reference::read(&from.value).map_or("", |r| r.head);
                results.get(head).and_then(|(_, s)| s.clone())
            }
            None => last,
        };
        Ok((
            CuratedBody::Steps(steps),
            response,
            combined_annotations(&methods),
        ))
    }

    fn results(
        &self,
        spec: &Results,
        response: Option<&Value>,
        body: &CuratedBody,
    ) -> Result<ResultsPlan, String> {
        let mut lookups: Vec<usize> = Vec::new();
        let mut fields_of =
            |fields: &IndexMap<Spanned<String>, FieldSpec>| -> Result<Vec<ShapeField>, String> {
                fields
                    .iter()
                    .map(|(name, field)| {
                        let (from, convert) = match field {
                            FieldSpec::Path(path) => (path.value.clone(), ShapeConvert::Copy),
                            FieldSpec::Mapped(mapped) => {
                                let convert = match (&mapped.enum_name, &mapped.resolve) {
                                    (Some(e), _) => ShapeConvert::Enum(self.enum_index(&e.value)?),
                                    (None, Some(r)) => {
                                        let resolver = self.resolver_index(&r.value)?;
                                        let slot = match lookups.iter().position(|l| *l == resolver)
                                        {
                                            Some(slot) => slot,
                                            None => {
                                                lookups.push(resolver);
                                                lookups.len() - 1
                                            }
                                        };
                                        ShapeConvert::Lookup(slot)
                                    }
                                    (None, None) => ShapeConvert::Copy,
                                };
                                (mapped.from.value.clone(), convert)
                            }
                        };
                        Ok(ShapeField {
                            name: name.value.clone(),
                            from: pointer(&from),
                            convert,
                        })
                    })
                    .collect()
            };
        let fields = fields_of(&spec.fields)?;
        let detailed = fields_of(&spec.detailed_fields)?;
        let list = match (&spec.items, response) {
            (Some(items), _) => Some(ListPlan {
                items: pointer(&items.value),
                name: spec.name.clone().unwrap_or_else(|| "items".into()),
                limit: spec
                    .limit
                    .as_ref()
                    .map(|l| (l.value.default.value, l.value.max.value)),
                truncated_message: spec
                    .truncated_message
                    .as_ref()
                    .map(|m| m.trim().to_string())
                    .unwrap_or_else(|| {
                        "More results match than were returned; narrow the request.".into()
                    }),
            }),
            _ => None,
        };
        let source = match (&spec.from, body) {
            (Some(from), CuratedBody::Steps(steps)) => {
                let head = Reference::read(&from.value).map_or("", |r| r.head);
                let var = steps.iter().find_map(|step| match step {
                    StepPlan::Call { var, .. } | StepPlan::Find { var, .. } => {
                        (naming::rust_snake_ident(head, "step") == *var).then(|| var.clone())
                    }
                    StepPlan::StopIf { .. } | StepPlan::Resolve { .. } => None,
                });
                var.map(|var| ValueRef::Step {
                    var,
                    pointer: String::new(),
                })
            }
            _ => None,
        };
        Ok(ResultsPlan {
            source,
            list,
            fields,
            detailed,
            lookups,
        })
    }
}

/// The schemas of the API fields the workflow parameter `name` fills as a whole (`$name` at any
/// depth of a step's `args`); `None` where one cannot be found.
fn step_slots(spec: &ToolSpec, name: &str, builder: &Builder) -> Option<Vec<Value>> {
    let mut slots = Vec::new();
    for step in &spec.steps {
        let Some(call) = &step.value.call else {
            continue;
        };
        let operation = builder.find(&call.value).ok()?;
        let inputs = operation_inputs(operation);
        for (arg, value) in &step.value.args {
            for (param, path) in parameter_references(&value.value) {
                if param != name {
                    continue;
                }
                let slot = inputs.iter().find(|(n, _, _)| *n == arg.value)?;
                slots.push(schema_at(&slot.1, &path).ok().flatten()?.into_owned());
            }
        }
    }
    Some(slots)
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

fn dotted(pointer: &str) -> String {
    pointer.trim_start_matches('/').replace('/', ".")
}

fn step_errors(step: &Step) -> Vec<(u16, String)> {
    step.errors
        .iter()
        .filter_map(|(status, message)| {
            Some((status.value.parse().ok()?, message.trim().to_string()))
        })
        .collect()
}

/// A step value as written (`$param`, `$step.field`, or a literal) as a [`ValueRef`].
fn value_ref(
    value: &Value,
    params: &[ToolParam],
    results: &IndexMap<String, (String, Option<Value>)>,
) -> Result<ValueRef, String> {
    let is_param = |name: &str| params.iter().any(|p| p.name == name);
    bind(&Written::read(value, &is_param), params, results)
}

/// Where each part of a written value comes from, as check read it.
fn bind(
    written: &Written,
    params: &[ToolParam],
    results: &IndexMap<String, (String, Option<Value>)>,
) -> Result<ValueRef, String> {
    let fields = |fields: &[(&str, Written)]| {
        fields
            .iter()
            .map(|(name, field)| Ok((name.to_string(), bind(field, params, results)?)))
            .collect::<Result<Vec<_>, String>>()
    };
    Ok(match written {
        Written::Template(value) => ValueRef::Template(template_plan(value, params)?),
        Written::Param(name) => match params.iter().position(|p| p.name == *name) {
            Some(index) => ValueRef::Input(index),
            None => return Err(format!("internal error: `${name}` is not a parameter")),
        },
        Written::Answer(Reference { head, path }) => match results.get(*head) {
            Some((var, _)) => ValueRef::Step {
                var: var.clone(),
                pointer: pointer(path),
            },
            None => return Err(format!("internal error: `${head}` is unknown")),
        },
        Written::When {
            condition,
            fields: kept,
        } => {
            let value = match Written::literal_object(kept) {
                Some(object) => ValueRef::Literal(object),
                None => ValueRef::Object(fields(kept)?),
            };
            ValueRef::When {
                condition: Box::new(bind(condition, params, results)?),
                value: Box::new(value),
            }
        }
        Written::Each {
            list, fields: each, ..
        } => ValueRef::Each {
            list: Box::new(bind(list, params, results)?),
            fields: fields(each)?,
        },
        Written::Item(path) => ValueRef::Item(pointer(path)),
        Written::Object(written) => ValueRef::Object(fields(written)?),
        Written::Array(items) => ValueRef::Array(
            items
                .iter()
                .map(|item| bind(item, params, results))
                .collect::<Result<_, _>>()?,
        ),
        Written::Literal(value) => ValueRef::Literal((*value).clone()),
    })
}

/// The two values an `equal` compares (a `stop_if`'s, a `when`'s).
fn equal_pair(
    equal: &[Spanned<String>],
    params: &[ToolParam],
    results: &IndexMap<String, (String, Option<Value>)>,
) -> Result<(ValueRef, ValueRef), String> {
    let values: Vec<ValueRef> = equal
        .iter()
        .map(|v| value_ref(&Value::String(v.value.clone()), params, results))
        .collect::<Result<_, _>>()?;
    let [left, right] = <[ValueRef; 2]>::try_from(values)
        .map_err(|_| "internal error: `equal` takes two values".to_string())?;
    Ok((left, right))
}

fn paging_plan(pagination: &Pagination, operation: &Operation, items: &str) -> PagingPlan {
    let mut names = paging_param_names(pagination).into_iter();
    let position_param = match pagination.style.value {
        PagingStyle::Link => None,
        _ => names.next(),
    };
    let size_param = names.next();
    let spec_max = operation
        .parameters
        .iter()
        .find(|p| Some(&p.name) == size_param.as_ref())
        .and_then(|p| p.schema.get("maximum"))
        .and_then(Value::as_i64);
    PagingPlan {
        style: pagination.style.value,
        position_param,
        size_param,
        next_cursor: pagination
            .next_cursor
            .as_ref()
            .map(|c| pointer(&c.value))
            .unwrap_or_default(),
        last_item_cursor: pagination
            .last_item_cursor
            .as_ref()
            .map(|c| pointer(&c.value)),
        has_more: pagination.has_more.as_ref().map(|m| pointer(&m.value)),
        next_link: pagination.next_link.as_ref().map(|l| pointer(&l.value)),
        items: pointer(
            pagination
                .items
                .as_ref()
                .map_or(items, |i| i.value.as_str()),
        ),
        total: pagination.total.as_ref().map(|t| pointer(&t.value)),
        max_page_size: pagination.max_page_size.or(spec_max).unwrap_or(100),
        max_pages: pagination.max_pages.unwrap_or(20),
    }
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

fn annotations(written: &AnnotationsSpec) -> Annotations {
    Annotations {
        read_only: written.read_only_hint,
        destructive: written.destructive_hint,
        idempotent: written.idempotent_hint,
        open_world: written.open_world_hint,
    }
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
            .and_then(|s| s.get("items").cloned()),
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

/// Does a resolved parameter take a list of readable values? It does when the file says
/// `type: array`, or when the API slot it fills is an array.
pub fn is_list_param(param: &Param, api_schema: Option<&Value>) -> bool {
    param.ty.as_ref().map(|t| t.value) == Some(ParamType::Array) || api_schema.is_some_and(is_array)
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
