//! The bound model: a checked curation file with every reference resolved against the API.
//!
//! [`check`](super::check) finds a file's mistakes and says where they are; [`bind`] then reads
//! the file once more, to resolve it: each operation it names becomes the operation's index in
//! the API, each `$name` and `$step.path` at any depth of a value the index of the tool's
//! parameter or of the step (with a JSON pointer into its answer), each enum and resolver its
//! index, each dotted field path a JSON pointer, each template its clauses over parameter
//! indices. Each parameter gets the API slot it fills (name, schema, whether required) and the
//! schemas of the fields a workflow fills with it, each list the paging it walks, each resolver
//! its items, lookup parameter and scope, each tool its own error messages merged with the
//! file's. The result, [`Model`], has no positions and no YAML types: the plan stage takes only
//! it, names things in Rust and writes the schemas, and never re-reads what the file means.
//!
//! A failure to bind is a [`Diagnostic`] at the place that failed (for a tool, naming it); `check`
//! refuses every file it would happen with, so one showing is a bug of `check`, reported like
//! any other mistake of the file rather than as a failed build.
//!
//! Operation indices are positions in `api.operations` of the [`Api`] the file was bound against.
//! The declared answers ([`responses::apply`](super::responses::apply)) and the credentials taken
//! out of the operations (`plan::credentials::carried`) change operations but never their order,
//! so an index holds in the API the plan stage derives from the same [`Api`].

use std::collections::BTreeSet;

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::diagnostics::Diagnostic;
use super::model::{
    self, AllOrNone, CacheScope, ClausePart, Curation, FieldSpec, KeyIn, PagingStyle, ParamType,
    QuoteRule, Spanned, Template,
};
use super::responses::Declared;
use super::schema::{
    dotted, is_array, json_types, nested_input, operation_inputs, pointer, schema_at,
    success_schema,
};
use super::semantics::{
    Reference, Written, find_walks, glob_matches, is_searched, lookup_param, paging_param_names,
    parameter_references, resolver_id_path, resolver_id_schema, resolver_items, resolver_paging,
    template_params, walked_pagination,
};
use crate::api::{Api, Location, Operation, SecurityScheme};
use crate::naming;

use super::At;

/// A curation file, bound to the API it was checked against.
#[derive(Debug, Clone, Default)]
pub struct Model {
    pub server: Server,
    /// The `auth` section: the credentials the server sends instead of those the spec requires.
    pub auth: Option<Auth>,
    /// Which operations get a one-to-one tool.
    pub operations: Operations,
    /// Answers, request bodies, query parameters and read-only operations the file declares.
    pub declared: Declared,
    /// The `discovery` section, when the file has one.
    pub discovery: Option<Discovery>,
    /// The enum mappings, in the file's order (what [`ParamSource::Enum`] and
    /// [`ShapeConvert::Enum`] index).
    pub enums: Vec<Enum>,
    /// The resolvers, in the file's order (what the resolver indices index).
    pub resolvers: Vec<Resolver>,
    /// The curated tools, in the file's order.
    pub tools: Vec<Tool>,
}

/// The `server` section.
#[derive(Debug, Clone, Default)]
pub struct Server {
    /// The server's name as written (the plan makes a crate name of it).
    pub name: Option<String>,
    /// What every tool name starts with (empty when the file gives none).
    pub prefix: String,
    /// Server-wide guidance for the model, trimmed.
    pub instructions: Option<String>,
    pub tools_list_ttl_seconds: Option<u64>,
    pub cache_scope: Option<CacheScope>,
}

/// The `auth` section, with the token URL of client credentials found in the spec when the
/// file does not give it.
#[derive(Debug, Clone, Default)]
pub struct Auth {
    pub bearer: Option<Bearer>,
    /// `api_key` then `api_keys`, in the file's order.
    pub api_keys: Vec<ApiKey>,
    pub basic: Option<Basic>,
    pub client_credentials: Option<ClientCredentials>,
}

#[derive(Debug, Clone)]
pub struct Bearer {
    pub env: String,
    /// Parameters of the API that carry the token.
    pub params: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ApiKey {
    pub location: Location,
    pub name: String,
    pub env: String,
    pub params: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Basic {
    pub username_env: String,
    pub password_env: String,
}

#[derive(Debug, Clone)]
pub struct ClientCredentials {
    /// The file's, else the spec's (empty when neither says).
    pub token_url: String,
    pub client_id_env: String,
    pub client_secret_env: String,
    pub scopes: Vec<String>,
}

/// The `operations` section.
#[derive(Debug, Clone)]
pub struct Operations {
    /// Operations no curated tool calls get one-to-one tools (`mirror: all`, the default).
    pub mirror: bool,
    /// Mirror only the operations these match (all when empty).
    pub include: Vec<Filter>,
    pub exclude: Vec<Filter>,
    /// operationIds with no tool and no client code.
    pub hidden: BTreeSet<String>,
}

impl Default for Operations {
    fn default() -> Self {
        Self {
            mirror: true,
            include: Vec::new(),
            exclude: Vec::new(),
            hidden: BTreeSet::new(),
        }
    }
}

impl Operations {
    /// Does the section let `operation` have a one-to-one tool (when no curated tool calls it)?
    pub fn mirrors(&self, operation: &Operation) -> bool {
        if self.hidden.contains(&operation.id) {
            return false;
        }
        let included = self.mirror
            && (self.include.is_empty() || self.include.iter().any(|f| f.matches(operation)));
        included && !self.exclude.iter().any(|f| f.matches(operation))
    }
}

/// Operations by operationId, tag, path glob and method (all that are given must match).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub operation: Option<String>,
    pub tag: Option<String>,
    pub path: Option<String>,
    pub method: Option<String>,
}

impl Filter {
    pub fn matches(&self, operation: &Operation) -> bool {
        self.operation.as_ref().is_none_or(|id| *id == operation.id)
            && self
                .tag
                .as_ref()
                .is_none_or(|tag| operation.tags.contains(tag))
            && self
                .method
                .as_ref()
                .is_none_or(|m| m.eq_ignore_ascii_case(operation.method.as_upper()))
            && self
                .path
                .as_ref()
                .is_none_or(|p| glob_matches(p, &operation.path))
    }

    fn of(filter: &model::Filter) -> Self {
        let value = |v: &Option<Spanned<String>>| v.as_ref().map(|v| v.value.clone());
        Self {
            operation: value(&filter.operation),
            tag: value(&filter.tag),
            path: value(&filter.path),
            method: value(&filter.method),
        }
    }
}

/// The `discovery` section.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub include: Vec<Filter>,
    pub exclude: Vec<Filter>,
    /// Only operations that read are discoverable.
    pub read_only: bool,
    /// Words added to the index of the operations each filter matches, in the file's order.
    pub search_words: Vec<(Filter, Vec<String>)>,
    /// The OAuth scopes the discovery tools need.
    pub scopes: Vec<String>,
}

/// An enum mapping: readable names and the API codes they stand for, in the file's order.
#[derive(Debug, Clone)]
pub struct Enum {
    pub name: String,
    pub values: Vec<(String, Value)>,
}

/// A resolver: how readable values of one kind become ids.
#[derive(Debug, Clone)]
pub struct Resolver {
    pub name: String,
    /// What one item is called in messages (`project`).
    pub what: String,
    pub source: ResolverSource,
    /// JSON pointers into an item.
    pub match_fields: Vec<String>,
    /// Only the items whose field (a JSON pointer) has this value, as text, are resolved to.
    pub only: Vec<(String, String)>,
    /// JSON pointer to an item's id.
    pub id_field: String,
    /// JSON pointer to an item's name: the first match field, else the id.
    pub name_field: String,
    /// Words that stand for one item.
    pub aliases: Vec<(String, AliasTarget)>,
    pub ttl_seconds: u64,
    /// The API's ids are integers (sent as numbers, not text).
    pub id_integer: bool,
    /// Arguments of the list or lookup operation that scope it, by API name.
    pub scope: Vec<(String, ScopeValue)>,
}

/// Where a resolver finds its items.
#[derive(Debug, Clone)]
pub enum ResolverSource {
    /// Every item is listed (pages walked) and cached: the operation (its index in the API), the
    /// JSON pointer to the items in its answer, and its paging.
    List {
        operation: usize,
        items: String,
        paging: Option<Box<PagingPlan>>,
    },
    /// One call per value, with the value in the API parameter `param`.
    Lookup { operation: usize, param: String },
}

/// What an alias of a resolver stands for.
#[derive(Debug, Clone)]
pub enum AliasTarget {
    /// The id of the item an operation without parameters (its index in the API) answers with,
    /// at the JSON pointer `id` in its answer.
    Operation { operation: usize, id: String },
    /// A value sent as it is, in place of an id.
    Literal(String),
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

/// A curated tool.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Its key in the file (without the server's prefix).
    pub name: String,
    pub title: Option<String>,
    /// Trimmed.
    pub description: Option<String>,
    /// What the model gives, in order: the file's parameters, then `limit` and
    /// `response_format` when the results add them.
    pub params: Vec<Param>,
    pub body: Body,
    /// The schema of the answer the results shape: the operation's, or for a workflow the
    /// answer `results.from` names, else the last call's.
    pub response: Option<Value>,
    pub results: Results,
    /// The annotations the file writes, which replace those the methods imply.
    pub annotations: Option<Hints>,
    /// Messages by HTTP status: the tool's own, then the file's.
    pub errors: Vec<(u16, String)>,
    /// The OAuth scopes it needs.
    pub scopes: Vec<String>,
}

/// Annotations as written.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// One parameter of a tool.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub source: ParamSource,
    /// The default as the model sees it (a readable name for an enum): the file's, else the API
    /// slot's.
    pub default: Option<Value>,
    pub required: bool,
    /// The file's, else the API slot's.
    pub description: Option<String>,
    /// The HTTP header a client may set it with (`x-mcp-header`).
    pub header: Option<String>,
    /// The API input it fills (one-call tools).
    pub slot: Option<Slot>,
    /// For a workflow's parameter: the schemas of the API fields it fills as a whole (`$name`
    /// at any depth of a step's `args`); empty when there are none or one cannot be found.
    pub fills: Vec<Value>,
}

/// The API input a parameter fills.
#[derive(Debug, Clone)]
pub struct Slot {
    pub api_name: String,
    pub schema: Value,
    pub required: bool,
    /// The API wants an integer (a resolved id is sent as a number).
    pub integer: bool,
}

/// What a parameter's values are.
#[derive(Debug, Clone)]
pub enum ParamSource {
    /// A readable name of the enum (index).
    Enum(usize),
    /// A readable value the resolver (index) turns into an id.
    Resolve(usize),
    /// A list of readable values, each resolved (resolver index).
    ResolveList(usize),
    /// As the API slot ([`Param::slot`]) takes it: the slot's schema.
    Api(Value),
    /// A value of the type the file declares.
    Declared(ParamType),
    /// A list of values of the item type the file declares.
    DeclaredList(ParamType),
    /// The most results to return (`results.limit`), with the description the file writes.
    Limit {
        max: i64,
        default: i64,
        description: Option<String>,
    },
    /// `concise` or `detailed` (`results.detailed_fields`).
    ResponseFormat,
}

/// What a tool runs.
#[derive(Debug, Clone)]
pub enum Body {
    /// One operation (index in the API), with the values the file fixes (literals and
    /// templates) and, for a list, its paging.
    Call {
        operation: usize,
        fixed: Vec<(String, Arg)>,
        paging: Option<Box<PagingPlan>>,
    },
    Steps(Vec<Step>),
}

/// One step of a workflow. `name` is the step's name as written, else `step_N`.
#[derive(Debug, Clone)]
pub enum Step {
    Call {
        name: String,
        /// Index in the API.
        operation: usize,
        args: Vec<(String, Arg)>,
        /// Runs only when the two values are equal.
        when: Option<Box<(Arg, Arg)>>,
        errors: Vec<(u16, String)>,
        /// The pages walked, for the last step of a workflow whose result is a list.
        paging: Option<Box<PagingPlan>>,
        /// The schema of the operation's answer.
        schema: Option<Value>,
    },
    StopIf {
        left: Arg,
        right: Arg,
        result: Option<Arg>,
        message: String,
    },
    Find {
        name: String,
        list: Arg,
        /// JSON pointers into an item, and the values they must equal.
        conditions: Vec<(String, Arg)>,
        missing: String,
        ambiguous: String,
    },
    Resolve {
        name: String,
        resolver: usize,
        value: Arg,
        /// The resolver's scoping arguments, by API name, in the resolver's order.
        scope: Vec<(String, Arg)>,
    },
}

/// A value a tool sends or compares.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// The tool's parameter (index).
    Param(usize),
    /// What an earlier step (index in the tool's steps; always a call, a `find` or a `resolve`)
    /// answered, at a JSON pointer.
    Answer {
        step: usize,
        pointer: String,
    },
    Literal(Value),
    /// An object some of whose fields (at any depth) are not literals.
    Object(Vec<(String, Arg)>),
    /// A list some of whose items (at any depth) are not literals.
    Array(Vec<Arg>),
    Template(TemplatePlan),
    /// `value` when `condition` is present, else nothing.
    When {
        condition: Box<Arg>,
        value: Box<Arg>,
    },
    /// One object per item of `list`.
    Each {
        list: Box<Arg>,
        fields: Vec<(String, Arg)>,
    },
    /// In an `$each` object, its item at a JSON pointer (empty: the whole item).
    Item(String),
    /// The value as text, a number as its digits: a resolved id the API gives as an integer
    /// where the field it fills takes text (DigitalOcean's `resource_id`).
    Text(Box<Arg>),
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

/// How a tool shapes its answer.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// For a workflow: the step (index; a call or a `find`) whose answer is shaped (default:
    /// the last call's).
    pub source: Option<usize>,
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

/// Binds `curation`, which `check` found no errors in, to `api`; every failure at its place.
pub fn bind(api: &Api, curation: &Curation) -> Result<Model, Vec<Diagnostic>> {
    let declared = Declared::of(curation);
    // The operations as check checked them and the server calls them: with the answers the
    // file declares, without the parameters that carry a credential.
    let api = super::responses::apply(api, &declared);
    let auth = curation.auth.as_ref().map(|section| auth(section, &api));
    let credentials = crate::plan::server_auth(&api, auth.as_ref(), "SERVER");
    let api = crate::plan::credentials::carried(&api, &credentials);
    let mut binder = Binder {
        api: &api,
        curation,
        enums: Vec::new(),
        resolvers: Vec::new(),
    };
    let mut failed = Vec::new();
    for (name, values) in &curation.enums {
        binder.enums.push(Enum {
            name: name.value.clone(),
            values: values
                .iter()
                .map(|(readable, code)| (readable.value.clone(), code.value.clone()))
                .collect(),
        });
    }
    for (name, spec) in &curation.resolvers {
        match binder.resolver(name, spec) {
            Ok(resolver) => binder.resolvers.push(resolver),
            Err(diagnostic) => failed.push(diagnostic),
        }
    }
    // A resolver that failed would shift the indices of those after it.
    if !failed.is_empty() {
        return Err(failed);
    }
    let mut tools = Vec::new();
    for (name, spec) in &curation.tools {
        match binder.tool(name, spec) {
            Ok(tool) => tools.push(tool),
            Err(mut diagnostic) => {
                diagnostic.tools = vec![name.value.clone()];
                failed.push(diagnostic);
            }
        }
    }
    if !failed.is_empty() {
        return Err(failed);
    }
    let server = &curation.server;
    let section = &curation.operations;
    let names = |values: &[Spanned<String>]| values.iter().map(|v| v.value.clone()).collect();
    Ok(Model {
        server: Server {
            name: server.name.as_ref().map(|n| n.value.clone()),
            prefix: server
                .prefix
                .as_ref()
                .map_or_else(String::new, |p| p.value.clone()),
            instructions: server.instructions.as_ref().map(|s| s.trim().to_string()),
            tools_list_ttl_seconds: server.tools_list_ttl_seconds,
            cache_scope: server.cache_scope,
        },
        auth,
        operations: Operations {
            mirror: section
                .mirror
                .as_ref()
                .is_none_or(|m| m.value == AllOrNone::All),
            include: section.include.iter().map(Filter::of).collect(),
            exclude: section.exclude.iter().map(Filter::of).collect(),
            hidden: section.hide.iter().map(|h| h.value.clone()).collect(),
        },
        declared,
        discovery: curation.discovery.as_ref().map(|section| Discovery {
            include: section.include.iter().map(Filter::of).collect(),
            exclude: section.exclude.iter().map(Filter::of).collect(),
            read_only: section.read_only,
            search_words: section
                .search_words
                .iter()
                .map(|words| (Filter::of(&words.filter()), names(&words.words.value)))
                .collect(),
            scopes: names(&section.scopes),
        }),
        enums: binder.enums,
        resolvers: binder.resolvers,
        tools,
    })
}

/// The `auth` section bound: the token URL of client credentials from the spec's OAuth2
/// client-credentials scheme when the file gives none.
pub fn auth(section: &model::AuthSection, api: &Api) -> Auth {
    let names = |params: &[Spanned<String>]| params.iter().map(|p| p.value.clone()).collect();
    Auth {
        bearer: section.bearer.as_ref().map(|bearer| Bearer {
            env: bearer.env.value.clone(),
            params: names(&bearer.params),
        }),
        api_keys: section
            .api_key
            .iter()
            .chain(&section.api_keys)
            .map(|key| ApiKey {
                location: match key.location {
                    KeyIn::Header => Location::Header,
                    KeyIn::Query => Location::Query,
                    KeyIn::Cookie => Location::Cookie,
                },
                name: key.name.value.clone(),
                env: key.env.value.clone(),
                params: names(&key.params),
            })
            .collect(),
        basic: section.basic.as_ref().map(|basic| Basic {
            username_env: basic.username_env.value.clone(),
            password_env: basic.password_env.value.clone(),
        }),
        client_credentials: section.oauth2_client_credentials.as_ref().map(|oauth| {
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
            ClientCredentials {
                token_url: token_url.unwrap_or_default(),
                client_id_env: oauth.client_id_env.value.clone(),
                client_secret_env: oauth.client_secret_env.value.clone(),
                scopes: oauth.scopes.clone(),
            }
        }),
    }
}

/// What a `find` step says when nothing matches and its file gives no `missing`: the first
/// condition that compares a field with a parameter, in words (`No transition has to_state
/// "{status}".`).
fn default_missing(noun: &str, step: &model::Step) -> String {
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

/// The steps that answer so far, by name as written: their index and the schema of their answer.
type Answers = IndexMap<String, (usize, Option<Value>)>;

struct Binder<'a> {
    api: &'a Api,
    curation: &'a Curation,
    enums: Vec<Enum>,
    resolvers: Vec<Resolver>,
}

impl<'a> Binder<'a> {
    /// The operation `id` names: its index and itself.
    fn operation(&self, id: &Spanned<String>) -> Result<(usize, &'a Operation), Diagnostic> {
        let api: &'a Api = self.api;
        api.operations
            .iter()
            .enumerate()
            .find(|(_, op)| op.id == id.value)
            .ok_or_else(|| {
                Diagnostic::error(id.at, format!("the API has no operation `{}`", id.value))
            })
    }

    /// `name`, when `operation` takes an input of that name (as [`operation_inputs`] names them).
    fn input(&self, operation: &Operation, name: &Spanned<String>) -> Result<String, Diagnostic> {
        if operation_inputs(operation)
            .iter()
            .any(|(input, _, _)| *input == name.value)
        {
            Ok(name.value.clone())
        } else {
            Err(Diagnostic::error(
                name.at,
                format!(
                    "operation `{}` has no parameter `{}`",
                    operation.id, name.value
                ),
            ))
        }
    }

    fn enum_index(&self, name: &Spanned<String>) -> Result<usize, Diagnostic> {
        self.enums
            .iter()
            .position(|e| e.name == name.value)
            .ok_or_else(|| Diagnostic::error(name.at, format!("no enum `{}`", name.value)))
    }

    fn resolver_index(&self, name: &Spanned<String>) -> Result<usize, Diagnostic> {
        self.resolvers
            .iter()
            .position(|r| r.name == name.value)
            .ok_or_else(|| Diagnostic::error(name.at, format!("no resolver `{}`", name.value)))
    }

    fn resolver(
        &self,
        name: &Spanned<String>,
        spec: &model::Resolver,
    ) -> Result<Resolver, Diagnostic> {
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
                let (index, operation) = self.operation(list)?;
                let items = resolver_items(spec, operation).ok_or_else(|| {
                    Diagnostic::error(
                        list.at,
                        format!("the answer of `{}` has no one list of items", list.value),
                    )
                    .with_help("say where the items are with `items`")
                })?;
                id_schema = resolver_id_schema(spec, operation);
                let paging = resolver_paging(self.curation, operation).map(|p| {
                    let mut paging = paging_plan(p, operation, &items);
                    // The resolver's own `items` is where its list's items are, whatever
                    // the other operations' pages hold (Slack: `members`, not `channels`).
                    if spec.items.is_some() {
                        paging.items = pointer(&items);
                    }
                    paging
                });
                ResolverSource::List {
                    operation: index,
                    items: pointer(&items),
                    paging: paging.map(Box::new),
                }
            }
            (None, Some(lookup)) => {
                let (index, operation) = self.operation(lookup)?;
                id_schema = resolver_id_schema(spec, operation);
                if let Some(param) = &spec.lookup_param {
                    self.input(operation, param)?;
                }
                let param = lookup_param(spec, operation).ok_or_else(|| {
                    Diagnostic::error(
                        lookup.at,
                        format!("`{}` has no one input to look a value up by", lookup.value),
                    )
                    .with_help("name it with `lookup_param`")
                })?;
                ResolverSource::Lookup {
                    operation: index,
                    param,
                }
            }
            (None, None) => {
                return Err(Diagnostic::error(
                    name.at,
                    format!("resolver `{}` has neither `list` nor `lookup`", name.value),
                ));
            }
        };
        let id_integer = id_schema.is_some_and(|id| id.get("type") == Some(&json!("integer")));
        // The operation the scope is given to takes every argument the scope names.
        let scoped = match &source {
            ResolverSource::List { operation, .. } | ResolverSource::Lookup { operation, .. } => {
                &self.api.operations[*operation]
            }
        };
        let mut scope = Vec::new();
        for (arg, value) in &spec.args {
            let value = match Reference::of(&value.value) {
                Some(_) if is_searched(&value.value) => ScopeValue::Searched,
                Some(reference) => ScopeValue::Param(reference.head.to_string()),
                None => ScopeValue::Literal(value.value.clone()),
            };
            scope.push((self.input(scoped, arg)?, value));
        }
        let mut aliases = Vec::new();
        for (word, alias) in &spec.aliases {
            let (operation, id) = match alias {
                model::Alias::Literal { value } => {
                    aliases.push((word.clone(), AliasTarget::Literal(value.value.clone())));
                    continue;
                }
                model::Alias::Operation(operation) => (operation, None),
                model::Alias::Call { call, id } => (call, Some(id)),
            };
            aliases.push((
                word.clone(),
                AliasTarget::Operation {
                    operation: self.operation(operation)?.0,
                    id: pointer(id.map_or(resolver_id_path(spec), |id| id.value.as_str())),
                },
            ));
        }
        Ok(Resolver {
            name: name.value.clone(),
            what: spec
                .what
                .clone()
                .unwrap_or_else(|| name.value.replace('_', " ")),
            name_field: match_fields
                .first()
                .cloned()
                .unwrap_or_else(|| id_field.clone()),
            match_fields,
            only: spec
                .where_fields
                .iter()
                .map(|(field, value)| {
                    let text = match &value.value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    (pointer(&field.value), text)
                })
                .collect(),
            id_field,
            source,
            aliases,
            ttl_seconds: spec.cache_seconds.unwrap_or(300),
            id_integer,
            scope,
        })
    }

    fn tool(&self, name: &Spanned<String>, spec: &model::ToolSpec) -> Result<Tool, Diagnostic> {
        let call = spec.call.as_ref().map(|c| self.operation(c)).transpose()?;
        let api_inputs = call
            .map(|(_, operation)| operation_inputs(operation))
            .unwrap_or_default();
        // A parameter a template uses reaches the API only through it, unless `from` says.
        let in_templates = template_params(spec);
        let mut params = Vec::new();
        // The parameters that fill a field inside an object input (`from: content.raw`): the
        // input, the path below it, and the parameter's index.
        let mut nested_params: Vec<(String, Vec<String>, usize)> = Vec::new();
        for (param_name, param) in &spec.params {
            let api = param
                .from
                .as_ref()
                .map_or(param_name.value.as_str(), |f| f.value.as_str());
            let only_templated = param.from.is_none() && in_templates.contains(&param_name.value);
            // `check` reported a field the object lacks.
            let inside = match call.filter(|_| !only_templated) {
                Some(_) if !api_inputs.iter().any(|(n, _, _)| n == api) => {
                    nested_input(&api_inputs, api).and_then(Result::ok)
                }
                _ => None,
            };
            let api_input = call
                .filter(|_| !only_templated)
                .and_then(|_| api_inputs.iter().find(|(n, _, _)| n == api));
            let mut bound = match &inside {
                Some(nested) => self.param(param_name, param, Some(&nested.field))?,
                None => self.param(param_name, param, api_input)?,
            };
            if let Some(nested) = inside {
                // Filled inside the object the call builds, not as an input of its own.
                bound.slot = None;
                nested_params.push((nested.input, nested.path, params.len()));
            }
            bound.fills = self.step_slots(spec, &param_name.value).unwrap_or_default();
            params.push(bound);
        }
        let results_spec = spec.results.clone().unwrap_or_default();
        if let Some(limit) = &results_spec.limit {
            let (max, default) = (limit.max.value, limit.default.value);
            params.push(Param {
                name: "limit".into(),
                source: ParamSource::Limit {
                    max,
                    default,
                    description: limit.description.clone(),
                },
                default: Some(json!(default)),
                required: false,
                description: Some(
                    limit
                        .description
                        .clone()
                        .unwrap_or_else(|| format!("The most results to return, from 1 to {max}.")),
                ),
                header: None,
                slot: None,
                fills: Vec::new(),
            });
        }
        if !results_spec.detailed_fields.is_empty() {
            params.push(Param {
                name: "response_format".into(),
                source: ParamSource::ResponseFormat,
                default: Some(json!("concise")),
                required: false,
                description: Some(
                    "`concise` to answer questions, `detailed` for the fields follow-up calls need."
                        .into(),
                ),
                header: None,
                slot: None,
                fills: Vec::new(),
            });
        }
        let (body, response) = match call {
            Some((index, operation)) => {
                let mut fixed: Vec<(String, Arg)> = spec
                    .fixed
                    .iter()
                    .map(|(k, v)| {
                        let value = if Template::is_template(&v.value) {
                            Arg::Template(template_plan(&v.value, v.at, &params)?)
                        } else {
                            Arg::Literal(v.value.clone())
                        };
                        Ok((self.input(operation, k)?, value))
                    })
                    .collect::<Result<_, Diagnostic>>()?;
                // Each object input some parameters fill fields of: the object, around the
                // fields the file fixes in it.
                for (top, path, index) in &nested_params {
                    let position = match fixed.iter().position(|(name, _)| name == top) {
                        Some(position) => position,
                        None => {
                            fixed.push((top.clone(), Arg::Object(Vec::new())));
                            fixed.len() - 1
                        }
                    };
                    let object = std::mem::replace(&mut fixed[position].1, Arg::Object(Vec::new()));
                    fixed[position].1 = place(object, path, Arg::Param(*index));
                }
                for (name, value) in &mut fixed {
                    if nested_params.iter().any(|(top, _, _)| top == name) {
                        let slot = api_inputs
                            .iter()
                            .find(|(n, _, _)| n == name)
                            .map(|(_, schema, _)| schema);
                        let arg = std::mem::replace(value, Arg::Object(Vec::new()));
                        *value =
                            self.ids_as_slot_takes(arg, slot, &params, &Answers::new(), &[], None);
                    }
                }
                (
                    Body::Call {
                        operation: index,
                        fixed,
                        paging: self.paging(spec, operation).map(Box::new),
                    },
                    success_schema(operation).cloned(),
                )
            }
            None => self.steps(spec, &params)?,
        };
        let results = self.results(&results_spec, &body)?;
        let mut errors: Vec<(u16, String)> = Vec::new();
        for (status, message) in spec.errors.iter().chain(&self.curation.errors) {
            if let Ok(code) = status.value.parse::<u16>()
                && !errors.iter().any(|(c, _)| *c == code)
            {
                errors.push((code, message.trim().to_string()));
            }
        }
        Ok(Tool {
            name: name.value.clone(),
            title: spec.title.clone(),
            description: spec.description.as_ref().map(|d| d.trim().to_string()),
            params,
            body,
            response,
            results,
            annotations: spec.annotations.as_ref().map(|written| Hints {
                read_only: written.read_only_hint,
                destructive: written.destructive_hint,
                idempotent: written.idempotent_hint,
                open_world: written.open_world_hint,
            }),
            errors,
            scopes: spec.scopes.iter().map(|s| s.value.clone()).collect(),
        })
    }

    fn param(
        &self,
        name: &Spanned<String>,
        param: &model::Param,
        api_input: Option<&(String, Value, bool)>,
    ) -> Result<Param, Diagnostic> {
        let api_schema = api_input.map(|(_, schema, _)| schema);
        let api_required = api_input.is_some_and(|(_, _, required)| *required);
        let mut default = param.default.as_ref().map(|d| d.value.clone());
        let source = if let Some(enum_name) = &param.enum_name {
            let index = self.enum_index(enum_name)?;
            if default.is_none()
                && let Some(code) = api_schema.and_then(|s| s.get("default"))
            {
                default = self.enums[index]
                    .values
                    .iter()
                    .find(|(_, c)| c == code)
                    .map(|(readable, _)| json!(readable));
            }
            ParamSource::Enum(index)
        } else if let Some(resolver) = &param.resolve {
            let index = self.resolver_index(resolver)?;
            if is_list_param(param, api_schema) {
                ParamSource::ResolveList(index)
            } else {
                ParamSource::Resolve(index)
            }
        } else if let Some(api_schema) = api_schema {
            if default.is_none() {
                default = api_schema.get("default").cloned();
            }
            ParamSource::Api(api_schema.clone())
        } else if param.ty.as_ref().map(|t| t.value) == Some(ParamType::Array) {
            ParamSource::DeclaredList(param.items.as_ref().map_or(ParamType::String, |t| t.value))
        } else {
            ParamSource::Declared(param.ty.as_ref().map_or(ParamType::String, |t| t.value))
        };
        let description = match &param.description {
            Some(explicit) => explicit.clone(),
            None => api_schema
                .and_then(|s| s.get("description"))
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        let required = param.required.unwrap_or(match api_input {
            Some(_) => api_required && default.is_none(),
            None => default.is_none(),
        });
        let slot = api_input.map(|(api_name, schema, required)| Slot {
            api_name: api_name.clone(),
            schema: schema.clone(),
            required: *required,
            integer: match &source {
                ParamSource::ResolveList(_) => {
                    schema.pointer("/items/type") == Some(&json!("integer"))
                }
                _ => schema.get("type") == Some(&json!("integer")),
            },
        });
        Ok(Param {
            name: name.value.clone(),
            source,
            default,
            required,
            description,
            header: param.header.as_ref().map(|h| h.value.clone()),
            slot,
            fills: Vec::new(),
        })
    }

    /// How a list tool walks the pages of `operation`: with the tool's `pagination`, else the
    /// file's when the operation takes its parameters; `None` for a tool that lists nothing
    /// (`results.items`) or an operation without paging.
    fn paging(&self, spec: &model::ToolSpec, operation: &Operation) -> Option<PagingPlan> {
        let items = spec.results.as_ref()?.items.as_ref()?;
        let pagination = walked_pagination(self.curation, spec, operation)?;
        Some(paging_plan(pagination, operation, &items.value))
    }

    /// Binds a workflow's steps; returns them and the schema of the answer the results shape.
    fn steps(
        &self,
        spec: &model::ToolSpec,
        params: &[Param],
    ) -> Result<(Body, Option<Value>), Diagnostic> {
        let mut answers: Answers = IndexMap::new();
        // The resolve steps, by index: their answers are ids.
        let mut resolved: Vec<usize> = Vec::new();
        let mut steps = Vec::new();
        let mut last: Option<Value> = None;
        for (index, step) in spec.steps.iter().enumerate() {
            let at = step.at;
            let step = &step.value;
            let written = step
                .name
                .as_ref()
                .map_or_else(|| format!("step_{}", index + 1), |n| n.value.clone());
            if let Some(call) = &step.call {
                let (operation_index, operation) = self.operation(call)?;
                let inputs = operation_inputs(operation);
                let args = step
                    .args
                    .iter()
                    .map(|(name, value)| {
                        let input = self.input(operation, name)?;
                        let slot = inputs
                            .iter()
                            .find(|(n, _, _)| *n == input)
                            .map(|(_, schema, _)| schema);
                        let arg = bind_value(value, params, &answers)?;
                        let arg =
                            self.ids_as_slot_takes(arg, slot, params, &answers, &resolved, None);
                        Ok((input, arg))
                    })
                    .collect::<Result<Vec<_>, Diagnostic>>()?;
                let when = step
                    .when
                    .as_ref()
                    .map(|when| equal_pair(&when.equal, params, &answers).map(Box::new))
                    .transpose()?;
                let schema = success_schema(operation).cloned();
                answers.insert(written.clone(), (index, schema.clone()));
                last = schema.clone();
                // The last step of a workflow whose result is a list is walked like a one-call
                // list tool's operation (check allows `results.items` only there).
                // A step whose list only a `find` reads is walked whole, its answer that list.
                let paging = if index + 1 == spec.steps.len() {
                    self.paging(spec, operation).map(Box::new)
                } else {
                    find_walks(self.curation, spec, index, operation).map(|(pagination, list)| {
                        // The list is where the find reads it, whatever the file's paging
                        // says of other lists.
                        let mut paging = paging_plan(pagination, operation, &list);
                        paging.items = pointer(&list);
                        Box::new(paging)
                    })
                };
                steps.push(Step::Call {
                    name: written,
                    operation: operation_index,
                    args,
                    when,
                    errors: step_errors(step),
                    paging,
                    schema,
                });
            } else if let Some(stop) = &step.stop_if {
                let (left, right) = equal_pair(&stop.equal, params, &answers)?;
                let result = stop
                    .result
                    .as_ref()
                    .map(|r| bind_text(r, params, &answers))
                    .transpose()?;
                steps.push(Step::StopIf {
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
                let resolver = self.resolver_index(resolver_name)?;
                let value = match &step.value {
                    Some(value) => bind_value(value, params, &answers)?,
                    None => Arg::Literal(Value::Null),
                };
                let scope = self.resolvers[resolver]
                    .scope
                    .iter()
                    .filter(|(_, own)| !matches!(own, ScopeValue::Searched))
                    .map(|(api_name, own)| {
                        let given = step.args.iter().find(|(arg, _)| arg.value == *api_name);
                        let value = match (given, own) {
                            (Some((_, given)), _) => bind_value(given, params, &answers)?,
                            (None, ScopeValue::Param(name)) => Arg::Param(
                                params.iter().position(|p| p.name == *name).ok_or_else(|| {
                                    Diagnostic::error(
                                        resolver_name.at,
                                        format!(
                                            "resolver `{}` is scoped by `${name}`, which is no parameter of this tool",
                                            resolver_name.value
                                        ),
                                    )
                                    .with_help(format!("give `{api_name}` under the step's `args`"))
                                })?,
                            ),
                            (None, ScopeValue::Literal(literal)) => Arg::Literal(literal.clone()),
                            (None, ScopeValue::Searched) => Arg::Literal(Value::Null),
                        };
                        Ok((api_name.clone(), value))
                    })
                    .collect::<Result<Vec<_>, Diagnostic>>()?;
                let id_type = if self.resolvers[resolver].id_integer {
                    "integer"
                } else {
                    "string"
                };
                answers.insert(written.clone(), (index, Some(json!({ "type": id_type }))));
                resolved.push(index);
                steps.push(Step::Resolve {
                    name: written,
                    resolver,
                    value,
                    scope,
                });
            } else if let Some(find) = &step.find {
                let list = bind_text(find, params, &answers)?;
                let conditions = step
                    .where_fields
                    .iter()
                    .map(|(field, value)| {
                        Ok((pointer(&field.value), bind_value(value, params, &answers)?))
                    })
                    .collect::<Result<Vec<_>, Diagnostic>>()?;
                let item_schema = match &list {
                    Arg::Answer {
                        step: list_step,
                        pointer: list_pointer,
                    } => answers
                        .values()
                        .find(|(i, _)| i == list_step)
                        .and_then(|(_, s)| s.as_ref())
                        .and_then(|s| schema_at(s, &dotted(list_pointer)).ok().flatten())
                        .and_then(|s| crate::curate::schema::items_of(&s)),
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
                answers.insert(written.clone(), (index, item_schema));
                steps.push(Step::Find {
                    name: written,
                    list,
                    conditions,
                    missing,
                    ambiguous,
                });
            } else {
                return Err(Diagnostic::error(
                    at,
                    "a step calls (`call`), finds (`find`), resolves (`resolve`) or stops (`stop_if`)",
                ));
            }
        }
        let response = match spec.results.as_ref().and_then(|r| r.from.as_ref()) {
            Some(from) => {
                let head = Reference::read(&from.value).map_or("", |r| r.head);
                answers.get(head).and_then(|(_, s)| s.clone())
            }
            None => last,
        };
        Ok((Body::Steps(steps), response))
    }

    fn results(&self, spec: &model::Results, body: &Body) -> Result<Results, Diagnostic> {
        let mut lookups: Vec<usize> = Vec::new();
        let mut fields_of = |fields: &IndexMap<Spanned<String>, FieldSpec>| {
            fields
                .iter()
                .map(|(name, field)| {
                    let (from, convert) = match field {
                        FieldSpec::Path(path) => (path.value.clone(), ShapeConvert::Copy),
                        FieldSpec::Mapped(mapped) => {
                            let convert = match (&mapped.enum_name, &mapped.resolve) {
                                (Some(e), _) => ShapeConvert::Enum(self.enum_index(e)?),
                                (None, Some(r)) => {
                                    let resolver = self.resolver_index(r)?;
                                    let slot = match lookups.iter().position(|l| *l == resolver) {
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
                .collect::<Result<Vec<_>, Diagnostic>>()
        };
        let fields = fields_of(&spec.fields)?;
        let detailed = fields_of(&spec.detailed_fields)?;
        let list = spec.items.as_ref().map(|items| ListPlan {
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
        });
        let source = match (&spec.from, body) {
            (Some(from), Body::Steps(steps)) => {
                let head = Reference::read(&from.value).map_or("", |r| r.head);
                steps.iter().position(|step| match step {
                    Step::Call { name, .. } | Step::Find { name, .. } => name == head,
                    Step::StopIf { .. } | Step::Resolve { .. } => false,
                })
            }
            _ => None,
        };
        Ok(Results {
            source,
            list,
            fields,
            detailed,
            lookups,
        })
    }

    /// The schemas of the API fields the workflow parameter `name` fills as a whole (`$name` at
    /// any depth of a step's `args`); `None` where one cannot be found.
    /// `arg` (filling the API field whose schema is `slot`) with each resolved id the API gives
    /// as an integer, where the field takes only text, sent as text: a resolved id takes the
    /// type of the field it fills. `item_integer`: inside an `$each` object, whether its items
    /// are such ids.
    fn ids_as_slot_takes(
        &self,
        arg: Arg,
        slot: Option<&Value>,
        params: &[Param],
        answers: &Answers,
        resolved: &[usize],
        item_integer: Option<bool>,
    ) -> Arg {
        // The field's types, those of each of its shapes for a choice (a nullable text's `anyOf`).
        let takes_text = |slot: Option<&Value>| {
            slot.is_some_and(|slot| {
                let mut types = json_types(slot);
                for key in ["anyOf", "oneOf"] {
                    for branch in slot
                        .get(key)
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        types.extend(json_types(branch));
                    }
                }
                types.contains(&"string") && types.iter().all(|t| matches!(*t, "string" | "null"))
            })
        };
        let integer_ids = |index: usize| match &params[index].source {
            ParamSource::Resolve(r) | ParamSource::ResolveList(r) => {
                self.resolvers.get(*r).is_some_and(|r| r.id_integer)
            }
            _ => false,
        };
        match arg {
            Arg::Param(index) if integer_ids(index) => {
                let list = matches!(params[index].source, ParamSource::ResolveList(_));
                let field = match list {
                    true => slot.and_then(|s| s.get("items")),
                    false => slot,
                };
                match takes_text(field) {
                    true => Arg::Text(Box::new(arg)),
                    false => arg,
                }
            }
            Arg::Answer { step, ref pointer }
                if pointer.is_empty()
                    && resolved.contains(&step)
                    && answers
                        .values()
                        .find(|(i, _)| *i == step)
                        .and_then(|(_, schema)| schema.as_ref())
                        .is_some_and(|schema| json_types(schema).contains(&"integer"))
                    && takes_text(slot) =>
            {
                Arg::Text(Box::new(arg))
            }
            Arg::Item(ref pointer) if pointer.is_empty() && item_integer == Some(true) => {
                match takes_text(slot) {
                    true => Arg::Text(Box::new(arg)),
                    false => arg,
                }
            }
            Arg::Object(fields) => Arg::Object(
                fields
                    .into_iter()
                    .map(|(name, field)| {
                        let inner = slot.and_then(|s| property(s, &name));
                        let field = self.ids_as_slot_takes(
                            field,
                            inner,
                            params,
                            answers,
                            resolved,
                            item_integer,
                        );
                        (name, field)
                    })
                    .collect(),
            ),
            Arg::Array(items) => {
                let inner = slot.and_then(|s| s.get("items"));
                Arg::Array(
                    items
                        .into_iter()
                        .map(|item| {
                            self.ids_as_slot_takes(
                                item,
                                inner,
                                params,
                                answers,
                                resolved,
                                item_integer,
                            )
                        })
                        .collect(),
                )
            }
            Arg::When { condition, value } => Arg::When {
                condition,
                value: Box::new(self.ids_as_slot_takes(
                    *value,
                    slot,
                    params,
                    answers,
                    resolved,
                    item_integer,
                )),
            },
            Arg::Each { list, fields } => {
                let item_integer = match list.as_ref() {
                    Arg::Param(index) => Some(integer_ids(*index)),
                    _ => Some(false),
                };
                let item = slot.and_then(|s| s.get("items"));
                Arg::Each {
                    list,
                    fields: fields
                        .into_iter()
                        .map(|(name, field)| {
                            let inner = item.and_then(|s| property(s, &name));
                            let field = self.ids_as_slot_takes(
                                field,
                                inner,
                                params,
                                answers,
                                resolved,
                                item_integer,
                            );
                            (name, field)
                        })
                        .collect(),
                }
            }
            other => other,
        }
    }

    fn step_slots(&self, spec: &model::ToolSpec, name: &str) -> Option<Vec<Value>> {
        let mut slots = Vec::new();
        for step in &spec.steps {
            let Some(call) = &step.value.call else {
                continue;
            };
            let (_, operation) = self.operation(call).ok()?;
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
}

/// Does a resolved parameter take a list of readable values? It does when the file says
/// `type: array`, or when the API slot it fills is an array.
pub fn is_list_param(param: &model::Param, api_schema: Option<&Value>) -> bool {
    param.ty.as_ref().map(|t| t.value) == Some(ParamType::Array) || api_schema.is_some_and(is_array)
}

fn step_errors(step: &model::Step) -> Vec<(u16, String)> {
    step.errors
        .iter()
        .filter_map(|(status, message)| {
            Some((status.value.parse().ok()?, message.trim().to_string()))
        })
        .collect()
}

/// A value as written (`$param`, `$step.field`, a literal, an object or list of these, a
/// template) bound to where each part of it comes from.
fn bind_value(
    value: &Spanned<Value>,
    params: &[Param],
    answers: &Answers,
) -> Result<Arg, Diagnostic> {
    let is_param = |name: &str| params.iter().any(|p| p.name == name);
    bind_written(
        &Written::read(&value.value, &is_param),
        value.at,
        params,
        answers,
    )
}

/// A reference written as text (a `find`'s list, what a `stop_if` or `when` compares) bound.
fn bind_text(
    text: &Spanned<String>,
    params: &[Param],
    answers: &Answers,
) -> Result<Arg, Diagnostic> {
    let value = Spanned {
        value: Value::String(text.value.clone()),
        at: text.at,
    };
    bind_value(&value, params, answers)
}

/// Where each part of a written value comes from, as check read it.
fn bind_written(
    written: &Written,
    at: At,
    params: &[Param],
    answers: &Answers,
) -> Result<Arg, Diagnostic> {
    let fields = |fields: &[(&str, Written)]| {
        fields
            .iter()
            .map(|(name, field)| Ok((name.to_string(), bind_written(field, at, params, answers)?)))
            .collect::<Result<Vec<_>, Diagnostic>>()
    };
    Ok(match written {
        Written::Template(value) => Arg::Template(template_plan(value, at, params)?),
        Written::Param(name) => match params.iter().position(|p| p.name == *name) {
            Some(index) => Arg::Param(index),
            None => {
                return Err(Diagnostic::error(
                    at,
                    format!("`${name}` is no parameter of this tool"),
                ));
            }
        },
        Written::Answer(Reference { head, path }) => match answers.get(*head) {
            Some((step, _)) => Arg::Answer {
                step: *step,
                pointer: pointer(path),
            },
            None => {
                return Err(Diagnostic::error(
                    at,
                    format!("`${head}` names no parameter and no earlier step that answers"),
                ));
            }
        },
        Written::When {
            condition,
            fields: kept,
        } => {
            let value = match Written::literal_object(kept) {
                Some(object) => Arg::Literal(object),
                None => Arg::Object(fields(kept)?),
            };
            Arg::When {
                condition: Box::new(bind_written(condition, at, params, answers)?),
                value: Box::new(value),
            }
        }
        Written::Each {
            list, fields: each, ..
        } => Arg::Each {
            list: Box::new(bind_written(list, at, params, answers)?),
            fields: fields(each)?,
        },
        Written::Item(path) => Arg::Item(pointer(path)),
        Written::Object(written) => Arg::Object(fields(written)?),
        Written::Array(items) => Arg::Array(
            items
                .iter()
                .map(|item| bind_written(item, at, params, answers))
                .collect::<Result<_, _>>()?,
        ),
        Written::Literal(value) => Arg::Literal((*value).clone()),
    })
}

/// The two values an `equal` compares (a `stop_if`'s, a `when`'s).
fn equal_pair(
    equal: &Spanned<Vec<Spanned<String>>>,
    params: &[Param],
    answers: &Answers,
) -> Result<(Arg, Arg), Diagnostic> {
    let values: Vec<Arg> = equal
        .value
        .iter()
        .map(|v| bind_text(v, params, answers))
        .collect::<Result<_, _>>()?;
    <[Arg; 2]>::try_from(values)
        .map(|[left, right]| (left, right))
        .map_err(|_| Diagnostic::error(equal.at, "`equal` compares two values"))
}

/// `object` (an object the file fixes, or one being built) with `value` placed at `path`, the
/// objects on the way made where missing.
fn place(object: Arg, path: &[String], value: Arg) -> Arg {
    let Some((first, rest)) = path.split_first() else {
        return value;
    };
    let mut fields: Vec<(String, Arg)> = match object {
        Arg::Object(fields) => fields,
        Arg::Literal(Value::Object(map)) => map
            .into_iter()
            .map(|(name, field)| (name, Arg::Literal(field)))
            .collect(),
        _ => Vec::new(),
    };
    match fields.iter().position(|(name, _)| name == first) {
        Some(position) => {
            let inner = std::mem::replace(&mut fields[position].1, Arg::Object(Vec::new()));
            fields[position].1 = place(inner, rest, value);
        }
        None => fields.push((first.clone(), place(Arg::Object(Vec::new()), rest, value))),
    }
    Arg::Object(fields)
}

/// The schema of the property `name` of the object schema `schema` (its parts' too).
fn property<'s>(schema: &'s Value, name: &str) -> Option<&'s Value> {
    crate::curate::schema::object_properties(schema, schema)?
        .into_iter()
        .find(|(property, _)| property.as_str() == name)
        .map(|(_, schema)| schema)
}

/// A template as written (at `at`), over `params`.
fn template_plan(value: &Value, at: At, params: &[Param]) -> Result<TemplatePlan, Diagnostic> {
    let template = Template::parse(value).map_err(|e| Diagnostic::error(at, e.message))?;
    let index = |name: &str| {
        params.iter().position(|p| p.name == name).ok_or_else(|| {
            Diagnostic::error(
                at,
                format!("the template writes `{{{name}}}`, which is no parameter of this tool"),
            )
        })
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

/// How `pagination` walks the pages of `operation`, whose items are at the dotted path `items`
/// unless the pagination says: the parameters it sets, the JSON pointers it reads, and the page
/// size (the file's maximum, else the spec's for the size parameter, else 100).
fn paging_plan(pagination: &model::Pagination, operation: &Operation, items: &str) -> PagingPlan {
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
        // Never more than the operation itself takes: a file-wide size (Box's 1000) over an
        // operation whose own maximum is lower (its search's 200) asks that operation for less.
        max_page_size: match (pagination.max_page_size, spec_max) {
            (Some(declared), Some(most)) => declared.min(most),
            (declared, most) => declared.or(most).unwrap_or(100),
        },
        max_pages: pagination.max_pages.unwrap_or(20),
    }
}
