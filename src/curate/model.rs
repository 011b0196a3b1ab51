//! The curation file as written: what each key means, its JSON Schema (`mcpgen schema`), and
//! where each value came from (for diagnostics). Nothing here knows the spec; `check` does.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use indexmap::IndexMap;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A value and where it was written: 1-based line and column, and its length in characters.
#[derive(Debug, Clone)]
pub struct Spanned<T> {
    pub value: T,
    pub at: At,
}

/// A place in the curation file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct At {
    /// Character offset from the start of the file.
    pub offset: usize,
    pub line: usize,
    pub column: usize,
    /// Length in characters of the value (at least 1).
    pub len: usize,
}

impl At {
    pub fn from_span(span: &marked_yaml::Span, len: usize) -> Self {
        match span.start() {
            Some(start) => At {
                offset: start.character(),
                line: start.line(),
                column: start.column(),
                len: len.max(1),
            },
            None => At::default(),
        }
    }
}

impl<T> std::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Spanned<T> {}

impl<T: Hash> Hash for Spanned<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.value.hash(state)
    }
}

impl<'de, T: Deserialize<'de> + SpanLen + Clone> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = marked_yaml::Spanned::<T>::deserialize(deserializer)?;
        let len = spanned.span_len();
        let at = At::from_span(spanned.span(), len);
        let value: T = (*spanned).clone().typed();
        Ok(Spanned { value, at })
    }
}

/// How many characters a value takes in the file, for underlining it.
pub trait SpanLen: Sized {
    fn span_len(&self) -> usize;

    /// The value with YAML's plain scalars typed: the YAML reader hands every scalar over as
    /// text, so `3`, `true` and `null` are turned back into a number, a boolean and null.
    fn typed(self) -> Self {
        self
    }
}

impl SpanLen for String {
    fn span_len(&self) -> usize {
        self.chars().count()
    }
}

impl SpanLen for Value {
    fn span_len(&self) -> usize {
        match self {
            Value::String(s) => s.chars().count(),
            Value::Array(_) | Value::Object(_) => 1,
            other => other.to_string().len(),
        }
    }

    fn typed(self) -> Self {
        typed_scalars(self)
    }
}

/// Turns scalar text that YAML reads as a number, boolean or null into that value.
pub fn typed_scalars(value: Value) -> Value {
    match value {
        Value::String(text) => match text.as_str() {
            "null" | "~" | "" => Value::Null,
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => {
                if let Ok(integer) = text.parse::<i64>() {
                    Value::from(integer)
                } else if text.contains(['.', 'e', 'E'])
                    && text
                        .chars()
                        .all(|c| c.is_ascii_digit() || ".eE+-".contains(c))
                    && let Some(number) = text
                        .parse::<f64>()
                        .ok()
                        .and_then(serde_json::Number::from_f64)
                {
                    Value::Number(number)
                } else {
                    Value::String(text)
                }
            }
        },
        Value::Array(items) => Value::Array(items.into_iter().map(typed_scalars).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, typed_scalars(v)))
                .collect(),
        ),
        other => other,
    }
}

impl<T: SpanLen> SpanLen for marked_yaml::Spanned<T> {
    fn span_len(&self) -> usize {
        (**self).span_len()
    }
}

impl SpanLen for Vec<Spanned<String>> {
    fn span_len(&self) -> usize {
        1
    }
}

impl<T: JsonSchema> JsonSchema for Spanned<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// A curation file: how an API becomes a few workflow-shaped tools.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Curation {
    /// The server's name, tool-name prefix, instructions and caching hints.
    #[serde(default)]
    pub server: ServerSection,
    /// How the server authenticates to the API; credentials always come from environment
    /// variables. Without this section, the spec's security scheme decides.
    #[serde(default)]
    pub auth: Option<AuthSection>,
    /// Which operations also get a one-to-one tool, and which are hidden entirely.
    #[serde(default)]
    pub operations: OperationsSection,
    /// Discovery tools (search the operations, describe one, call one) for the operations that
    /// have no tool of their own, so a large API costs a few tools instead of hundreds.
    #[serde(default)]
    pub discovery: Option<DiscoverySection>,
    /// Readable names for the API's codes: `issue_status: { open: 1, in_progress: 2, done: 3 }`.
    #[serde(default)]
    pub enums: IndexMap<Spanned<String>, IndexMap<Spanned<String>, Spanned<Value>>>,
    /// How readable values (project keys, usernames, `me`) become the API's ids.
    #[serde(default)]
    pub resolvers: IndexMap<Spanned<String>, Resolver>,
    /// The API's paging style, for every operation that has these parameters.
    #[serde(default)]
    pub pagination: Option<Pagination>,
    /// Messages for API errors by HTTP status, for every tool: what the model should change.
    #[serde(default)]
    pub errors: IndexMap<Spanned<String>, String>,
    /// The curated tools, by name (the prefix is added).
    #[serde(default)]
    pub tools: IndexMap<Spanned<String>, ToolSpec>,
    /// The answers of operations, by operationId, as JSON Schema, where the spec does not
    /// describe them (`200: Success`) or leaves out fields the API returns: merged into the
    /// spec's own schema (declared properties added or replaced, level by level), so that
    /// resolvers, `find`, result fields and paging over them are checked like any other.
    #[serde(default)]
    #[schemars(with = "IndexMap<String, serde_json::Map<String, Value>>")]
    pub responses: IndexMap<Spanned<String>, Spanned<Value>>,
    /// The request bodies of operations, by operationId, as JSON Schema, where the spec
    /// describes a field wrongly (Notion's block objects typed as strings) or leaves out one the
    /// API takes: merged into the spec's body schema like `responses`, so that step arguments and
    /// the generated types follow the declaration.
    #[serde(default)]
    #[schemars(with = "IndexMap<String, serde_json::Map<String, Value>>")]
    pub requests: IndexMap<Spanned<String>, Spanned<Value>>,
    /// Query parameters the spec leaves out but the API takes (Discourse's `page` on a
    /// category's topics), or describes wrongly (Trello's `idOrganizations`, required though the
    /// API does without it), by operationId and parameter name, each as JSON Schema: the
    /// operation's query parameter is as declared, and optional, so that `pagination`, `fixed`,
    /// step `args` and tool parameters fill it like any other.
    #[serde(default)]
    #[schemars(with = "IndexMap<String, IndexMap<String, serde_json::Map<String, Value>>>")]
    pub query: IndexMap<Spanned<String>, IndexMap<Spanned<String>, Spanned<Value>>>,
    /// Token budgets for tool definitions, checked by `mcpgen check` and `mcpgen build`.
    pub budgets: Option<Budgets>,
    /// Where the parts of each template were written (read from the YAML, not a key of the file).
    #[serde(skip)]
    #[schemars(skip)]
    pub template_places: TemplatePlaces,
}

/// Where the parts of each template were written, by the place of the value it sits in (a
/// `fixed`, `args` or `where` value) and its path inside it (`query.jql`): a value read as JSON
/// keeps no places of its own, and a mistake is best shown at the clause or key at fault.
pub type TemplatePlaces = std::collections::HashMap<(usize, String), TemplateAt>;

/// Where one template's parts were written.
#[derive(Debug, Clone, Default)]
pub struct TemplateAt {
    /// Each clause, in order.
    pub clauses: Vec<At>,
    /// Each key, as written.
    pub keys: Vec<(String, At)>,
    /// The value of `quote` and of `join`.
    pub quote: Option<At>,
    pub join: Option<At>,
}

impl TemplateAt {
    /// The place of the part `fault` names, if known.
    pub fn of(&self, fault: &TemplateFault) -> Option<At> {
        match fault {
            TemplateFault::Whole => self.of(&TemplateFault::Key("template".into())),
            TemplateFault::Clause(index) => self.clauses.get(*index).copied(),
            TemplateFault::Key(key) => self.keys.iter().find(|(k, _)| k == key).map(|(_, at)| *at),
            TemplateFault::Quote => self.quote,
            TemplateFault::Join => self.join,
        }
    }
}

/// How many tokens of the model's context the tool definitions may take.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// The most tokens one tool's definition may take (default 800).
    pub per_tool: Option<Spanned<i64>>,
    /// The most tokens the whole `tools/list` may take (default 8000).
    pub total: Option<Spanned<i64>>,
}

/// The server's identity and the hints it gives clients.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// The server's name: the crate is `<name>-mcp`, its environment variables start with
    /// `<NAME>_` (default: from the spec's `info.title`).
    pub name: Option<Spanned<String>>,
    /// Put before every tool name (`tracker_`), so tools of several servers don't collide.
    pub prefix: Option<Spanned<String>>,
    /// Guidance for the model about the whole server, sent as the server's `instructions`.
    pub instructions: Option<String>,
    /// How long clients may cache `tools/list`, in seconds (default one day).
    pub tools_list_ttl_seconds: Option<u64>,
    /// Who may share a cached `tools/list`: `public` (default) or `private`.
    pub cache_scope: Option<CacheScope>,
}

/// Who may reuse a cached `tools/list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    Public,
    Private,
}

/// How the server authenticates to the API.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthSection {
    /// `Authorization: Bearer <token>` with the token from `env`.
    pub bearer: Option<EnvBearer>,
    /// An API key from `env`, sent in a header, query parameter or cookie called `name`.
    pub api_key: Option<ApiKeyAuth>,
    /// Several API keys, each sent in its own place (`key` and `token` query parameters).
    #[serde(default)]
    pub api_keys: Vec<ApiKeyAuth>,
    /// HTTP basic authentication.
    pub basic: Option<BasicAuth>,
    /// OAuth2 client credentials: the server fetches (and refreshes) its own access token.
    pub oauth2_client_credentials: Option<ClientCredentialsAuth>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvBearer {
    /// The environment variable holding the token.
    pub env: Spanned<String>,
    /// Parameters that carry the same token where an operation takes them (`[token]`): the
    /// server fills them, in the place each operation puts them, and the model never sees them.
    #[serde(default)]
    pub params: Vec<Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyAuth {
    /// Where the key goes.
    #[serde(rename = "in")]
    pub location: KeyIn,
    /// The header, query parameter or cookie name.
    pub name: Spanned<String>,
    /// The environment variable holding the key.
    pub env: Spanned<String>,
    /// Other parameters that carry the same key where an operation takes them: the server
    /// fills them, in the place each operation puts them, and the model never sees them.
    #[serde(default)]
    pub params: Vec<Spanned<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyIn {
    Header,
    Query,
    Cookie,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BasicAuth {
    pub username_env: Spanned<String>,
    pub password_env: Spanned<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientCredentialsAuth {
    /// The token endpoint (default: the spec's `clientCredentials` flow).
    pub token_url: Option<Spanned<String>>,
    pub client_id_env: Spanned<String>,
    pub client_secret_env: Spanned<String>,
    #[serde(default)]
    pub scopes: Vec<String>,
}

/// Which operations get a one-to-one tool beside the curated ones.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OperationsSection {
    /// Whether operations no curated tool calls also get a one-to-one tool named after their
    /// operationId: `all` (the default) or `none`.
    pub mirror: Option<Spanned<AllOrNone>>,
    /// Mirror only the operations matching one of these filters.
    #[serde(default)]
    pub include: Vec<Filter>,
    /// Filters for operations that get no one-to-one tool.
    #[serde(default)]
    pub exclude: Vec<Filter>,
    /// operationIds that are hidden entirely: no tool, no client code, and no curated tool may
    /// call them.
    #[serde(default)]
    pub hide: Vec<Spanned<String>>,
    /// operationIds that only read although their method may write (a search or query sent by
    /// POST): their tools are annotated `readOnlyHint: true`, and read-only discovery reaches
    /// them.
    #[serde(default)]
    pub read_only: Vec<Spanned<String>>,
}

/// Which operations the discovery tools reach. An operation is discoverable when it is not
/// hidden, has no one-to-one tool, no curated tool calls it, it matches `include` (when given)
/// and no `exclude` filter, and (with `read_only: true`) it changes nothing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscoverySection {
    /// Only the operations matching one of these filters are discoverable.
    #[serde(default)]
    pub include: Vec<Filter>,
    /// Operations matching one of these filters are not discoverable.
    #[serde(default)]
    pub exclude: Vec<Filter>,
    /// Only operations that change nothing (GET, HEAD) are discoverable: writes need a tool of
    /// their own (default false).
    #[serde(default)]
    pub read_only: bool,
    /// Words the search finds operations by besides their own: what the API's users say that
    /// its descriptions do not (`move` for a transition).
    #[serde(default)]
    pub search_words: Vec<SearchWords>,
    /// The OAuth scopes a caller's access token must grant for the discovery tools to be listed
    /// and called (all of them), when the server runs as a protected resource (`--oauth-issuer`).
    #[serde(default)]
    pub scopes: Vec<Spanned<String>>,
}

/// Search words for one operation, or for every operation with a tag (give one of the two).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchWords {
    pub operation: Option<Spanned<String>>,
    pub tag: Option<Spanned<String>>,
    /// Words or phrases; the search weighs them like the operation's summary.
    pub words: Spanned<Vec<Spanned<String>>>,
}

impl SearchWords {
    /// The operations these words are for, as a filter.
    pub fn filter(&self) -> Filter {
        Filter {
            operation: self.operation.clone(),
            tag: self.tag.clone(),
            ..Filter::default()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AllOrNone {
    All,
    None,
}

impl SpanLen for AllOrNone {
    fn span_len(&self) -> usize {
        4
    }
}

/// Operations matching every key given: an operationId, a tag, a path glob (`/v2/issues/*`,
/// `**` for any depth) or an HTTP method.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    pub operation: Option<Spanned<String>>,
    pub tag: Option<Spanned<String>>,
    pub path: Option<Spanned<String>>,
    pub method: Option<Spanned<String>>,
}

/// How readable values of one kind become the API's ids.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Resolver {
    /// What the readable value is, for messages ("project key" → `Project "WEBB" not found.
    /// Available project keys: …`).
    pub what: Option<String>,
    /// An operation that lists every item (pages are walked).
    pub list: Option<Spanned<String>>,
    /// Where the items are in the list operation's response (a field path; default: the
    /// response's only array).
    pub items: Option<Spanned<String>>,
    /// The item fields a readable value is matched against, case-insensitively.
    #[serde(rename = "match", default)]
    pub match_fields: Vec<Spanned<String>>,
    /// The item field holding the id (default `id`).
    pub id: Option<Spanned<String>>,
    /// An operation that finds one item by its readable value, instead of a list.
    pub lookup: Option<Spanned<String>>,
    /// The lookup operation's parameter that takes the value (default: its only required one).
    pub lookup_param: Option<Spanned<String>>,
    /// Arguments of the `list` or `lookup` operation that scope it: the labels *of a
    /// repository* (`{ owner: $owner, repo: $repo }`), each `$name` the value of the tool's own
    /// parameter of that name, or a literal. A list is cached per scope.
    #[serde(default)]
    pub args: IndexMap<Spanned<String>, Spanned<Value>>,
    /// Words that stand for one item: answered by an operation without parameters
    /// (`me: getCurrentUser`), or sent as a value the API itself understands
    /// (`me: { value: me }`).
    #[serde(default)]
    pub aliases: IndexMap<String, Alias>,
    /// How long a fetched list stays fresh, in seconds (default 300).
    pub cache_seconds: Option<u64>,
    /// Only the listed items whose fields have these values are resolved to (`where: { type:
    /// file }`: Box lists a folder's files, folders and links together). Text compares as `match`
    /// does, ignoring case.
    #[serde(rename = "where", default)]
    pub where_fields: IndexMap<Spanned<String>, Spanned<Value>>,
}

/// What a resolver's alias stands for.
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged, deny_unknown_fields)]
pub enum Alias {
    /// An operation without parameters whose answer is the item (`me: getCurrentUser`), its
    /// id where the resolver's `id` says.
    Operation(Spanned<String>),
    /// The same, with the id at a path of its own, for an answer shaped otherwise than the
    /// resolver's items (`me: { call: getCurrentUser, id: uuid }` beside members listed as
    /// `{ user: { uuid } }`).
    Call {
        /// The operation, without required parameters.
        call: Spanned<String>,
        /// The dotted path of the id in its answer.
        id: Spanned<String>,
    },
    /// A value sent to the API as it is, in place of an id (`me: { value: me }`, for an API
    /// that takes `me` itself).
    Literal {
        /// The value the API gets.
        value: Spanned<String>,
    },
}

impl Alias {
    /// The operation an alias calls, and the path of the id in its answer when the alias gives
    /// one (else the resolver's `id`).
    pub fn operation(&self) -> Option<(&Spanned<String>, Option<&Spanned<String>>)> {
        match self {
            Alias::Operation(operation) => Some((operation, None)),
            Alias::Call { call, id } => Some((call, Some(id))),
            Alias::Literal { .. } => None,
        }
    }
}

/// Read through a plain value, like [`FieldSpec`]: the YAML reader keeps positions only outside
/// untagged enums, so a literal is placed at the alias.
impl<'de> Deserialize<'de> for Alias {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let spanned = Spanned::<Value>::deserialize(deserializer)?;
        let at = spanned.at;
        match spanned.value {
            Value::String(operation) => Ok(Alias::Operation(Spanned {
                value: operation,
                at,
            })),
            Value::Object(map) if map.contains_key("call") => {
                if let Some(key) = map
                    .keys()
                    .find(|key| !matches!(key.as_str(), "call" | "id"))
                {
                    return Err(D::Error::custom(format!(
                        "unknown key `{key}` in an alias to an operation: it takes `call` and `id`"
                    )));
                }
                let text = |key: &str| match map.get(key) {
                    Some(Value::String(text)) => Ok(Spanned {
                        value: text.clone(),
                        at,
                    }),
                    _ => Err(D::Error::custom(format!(
                        "an alias to an operation with an id of its own is `{{ call: getCurrentUser, id: uuid }}`; `{key}` is missing or not text"
                    ))),
                };
                Ok(Alias::Call {
                    call: text("call")?,
                    id: text("id")?,
                })
            }
            Value::Object(map) => {
                if let Some(key) = map.keys().find(|key| *key != "value") {
                    return Err(D::Error::custom(format!(
                        "unknown key `{key}` in an alias: an alias is an operationId, `{{ call: operationId, id: path }}` or `{{ value: ... }}`"
                    )));
                }
                let value = match map.get("value") {
                    Some(Value::String(text)) => text.clone(),
                    Some(Value::Number(number)) => number.to_string(),
                    Some(Value::Bool(flag)) => flag.to_string(),
                    _ => {
                        return Err(D::Error::custom(
                            "an alias to a value needs `value`: the text the API gets, such as `{ value: me }`",
                        ));
                    }
                };
                Ok(Alias::Literal {
                    value: Spanned { value, at },
                })
            }
            _ => Err(D::Error::custom(
                "an alias is an operationId (`me: getCurrentUser`), one with the id's path in its answer (`me: { call: getCurrentUser, id: uuid }`) or a value the API understands (`me: { value: me }`)",
            )),
        }
    }
}

/// The API's paging style.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pagination {
    /// `page` (page number and size), `offset` (offset and limit), `cursor` (a cursor from the
    /// last response) or `link` (a `Link: rel="next"` header, or the URL at `next_link` in the
    /// body).
    pub style: Spanned<PagingStyle>,
    /// The page-number parameter (`page` style; default `page`).
    pub page_param: Option<Spanned<String>>,
    /// The page-size parameter (default `per_page` for `page` and `link`, `limit` otherwise);
    /// `none` for an API that takes no page size (its pages are the size it chooses).
    pub size_param: Option<Spanned<String>>,
    /// The offset parameter (`offset` style; default `offset`).
    pub offset_param: Option<Spanned<String>>,
    /// The cursor parameter (`cursor` style; default `cursor`).
    pub cursor_param: Option<Spanned<String>>,
    /// Where the next cursor is in a response (`cursor` style; a field path).
    pub next_cursor: Option<Spanned<String>>,
    /// The field of a page's last item that is the next cursor (`cursor` style, instead of
    /// `next_cursor`): Stripe's `starting_after` takes the last customer's `id`.
    pub last_item_cursor: Option<Spanned<String>>,
    /// Where a response holds the next page's URL (`link` style, for an API that gives it in
    /// the body rather than in a `Link` header: Bitbucket's and Spotify's `next`; a field path).
    /// The walk ends where it is null or absent; a link to another site is not followed.
    pub next_link: Option<Spanned<String>>,
    /// Where a response says whether more pages follow (a boolean field path, as Stripe's
    /// `has_more`): `false` ends the walk; `true` goes on, also past a page shorter than asked
    /// for.
    pub has_more: Option<Spanned<String>>,
    /// Where the items are in a response (a field path; default: the response's only array).
    pub items: Option<Spanned<String>>,
    /// Where the number of items the whole list has is in a response (`page` and `offset`
    /// styles; a field path, as `total` beside `startAt` and `maxResults`): the walk goes on
    /// until that many were received, also past pages shorter than asked for.
    pub total: Option<Spanned<String>>,
    /// The largest page the API gives (default: the size parameter's `maximum`, else 100).
    pub max_page_size: Option<i64>,
    /// The most pages one call walks (default 20).
    pub max_pages: Option<usize>,
}

impl Pagination {
    /// `size_param: none` (or YAML's `null`): the API takes no page size, so every page is the
    /// size the API chooses.
    pub fn takes_no_size(&self) -> bool {
        self.size_param
            .as_ref()
            .is_some_and(|p| matches!(p.value.as_str(), "none" | "null" | "~"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PagingStyle {
    Page,
    Offset,
    Cursor,
    Link,
}

impl SpanLen for PagingStyle {
    fn span_len(&self) -> usize {
        match self {
            PagingStyle::Page | PagingStyle::Link => 4,
            PagingStyle::Offset | PagingStyle::Cursor => 6,
        }
    }
}

/// One curated tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    /// The title people see.
    pub title: Option<String>,
    /// What the tool does and when to use it, written for the model.
    pub description: Option<String>,
    /// The operation the tool calls (a one-call tool); use `steps` for several.
    pub call: Option<Spanned<String>>,
    /// The operations a workflow tool runs, in order.
    #[serde(default)]
    pub steps: Vec<Spanned<Step>>,
    /// The tool's parameters, in the order the model sees them.
    #[serde(default)]
    pub params: IndexMap<Spanned<String>, Param>,
    /// API parameters sent with a fixed value (`api-version: 2024-01`), or built from the tool's
    /// parameters by a template (`q: { template: [...], quote: github }`, see `$defs/Template`).
    #[serde(default)]
    pub fixed: IndexMap<Spanned<String>, Spanned<Value>>,
    /// How the result is shaped for the model.
    pub results: Option<Results>,
    /// Behaviour hints; defaults come from the HTTP method.
    pub annotations: Option<AnnotationsSpec>,
    /// Messages for API errors by HTTP status, for this tool (`{param}` is replaced by the
    /// argument's value).
    #[serde(default)]
    pub errors: IndexMap<Spanned<String>, String>,
    /// The paging style of this tool's operation, when it differs from the file's.
    pub pagination: Option<Pagination>,
    /// The OAuth scopes a caller's access token must grant for this tool to be listed and called
    /// (all of them), when the server runs as a protected resource (`--oauth-issuer`): a caller
    /// without them does not see the tool, and a call is refused before the API is asked.
    #[serde(default)]
    pub scopes: Vec<Spanned<String>>,
}

/// One parameter of a curated tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// The API parameter or body property this parameter fills (default: the same name).
    /// Absent for a parameter only a workflow's steps use.
    pub from: Option<Spanned<String>>,
    /// The JSON type of a parameter that fills no API parameter: string, integer, number,
    /// boolean, or array (a list; its items are `items`).
    #[serde(rename = "type")]
    pub ty: Option<Spanned<ParamType>>,
    /// The type of the items of an `array` parameter: string (default), integer, number or
    /// boolean. With `resolve`, each item is a readable value resolved to its id.
    pub items: Option<Spanned<ParamType>>,
    /// The description the model sees. Default: the API's; `null` for none.
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(with = "Option<String>")]
    pub description: Option<Option<String>>,
    /// The name of an enum mapping: the model passes readable names, the API gets codes.
    #[serde(rename = "enum")]
    pub enum_name: Option<Spanned<String>>,
    /// The name of a resolver: the model passes a readable value, the API gets the id.
    pub resolve: Option<Spanned<String>>,
    /// The value used when the argument is missing (shown as JSON Schema `default`).
    pub default: Option<Spanned<Value>>,
    /// Whether the argument must be given (default: as the API says, false for a
    /// parameter with a default).
    pub required: Option<bool>,
    /// Copy the argument into the `Mcp-Param-<header>` HTTP header (`x-mcp-header`).
    pub header: Option<Spanned<String>>,
}

/// Tells a missing key (`None`) from an explicit `null` (`Some(None)`).
fn double_option<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<String>>, D::Error> {
    // The YAML reader hands `null` over as text.
    let text = Option::<String>::deserialize(deserializer)?;
    Ok(Some(
        text.filter(|t| !matches!(t.as_str(), "null" | "~" | "")),
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Array => "array",
        }
    }
}

impl SpanLen for ParamType {
    fn span_len(&self) -> usize {
        self.as_str().len()
    }
}

/// How a tool's result is shaped.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Results {
    /// Where the list of items is in the response (a field path); absent for a single item.
    pub items: Option<Spanned<String>>,
    /// The key the items are returned under (default `items`).
    pub name: Option<String>,
    /// The fields of each item in the concise format, in order: `name: field.path`, or
    /// `name: { from: field, enum: mapping }` / `{ from: field, resolve: resolver }`.
    #[serde(default)]
    pub fields: IndexMap<Spanned<String>, FieldSpec>,
    /// Fields added in the detailed format (adds a `response_format` parameter).
    #[serde(default)]
    pub detailed_fields: IndexMap<Spanned<String>, FieldSpec>,
    /// A result limit (adds a `limit` parameter); pages are walked up to it.
    pub limit: Option<Spanned<Limit>>,
    /// Guidance sent with a result that was cut at the limit.
    pub truncated_message: Option<String>,
    /// For a workflow: the step whose result is shaped (`$step`; default: the last call).
    pub from: Option<Spanned<String>>,
}

/// A field of a shaped result.
#[derive(Debug, Clone, JsonSchema)]
#[serde(untagged)]
pub enum FieldSpec {
    Path(Spanned<String>),
    Mapped(MappedField),
}

/// Read through a plain value: the YAML reader keeps positions only outside untagged enums, so
/// a mapped field's parts are placed at the field.
impl<'de> Deserialize<'de> for FieldSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let spanned = Spanned::<Value>::deserialize(deserializer)?;
        let at = spanned.at;
        let text = |value: &Value| match value {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        };
        match &spanned.value {
            Value::String(path) => Ok(FieldSpec::Path(Spanned {
                value: path.clone(),
                at,
            })),
            Value::Object(map) => {
                let get = |key: &str| {
                    map.get(key)
                        .and_then(text)
                        .map(|value| Spanned { value, at })
                };
                let from =
                    get("from").ok_or_else(|| D::Error::custom("a mapped field needs `from`"))?;
                Ok(FieldSpec::Mapped(MappedField {
                    from,
                    enum_name: get("enum"),
                    resolve: get("resolve"),
                }))
            }
            _ => Err(D::Error::custom(
                "a field is a field path or a mapping with `from`",
            )),
        }
    }
}

#[derive(Debug, Clone, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MappedField {
    /// The field path in the API's item.
    pub from: Spanned<String>,
    /// Map the API's code back to its readable name with this enum mapping.
    #[serde(rename = "enum")]
    pub enum_name: Option<Spanned<String>>,
    /// Show the readable value for this id with this resolver.
    pub resolve: Option<Spanned<String>>,
}

/// The `limit` parameter.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    pub default: Spanned<i64>,
    pub max: Spanned<i64>,
    pub description: Option<String>,
}

impl SpanLen for Limit {
    fn span_len(&self) -> usize {
        1
    }
}

impl SpanLen for Step {
    fn span_len(&self) -> usize {
        1
    }
}

impl SpanLen for i64 {
    fn span_len(&self) -> usize {
        self.to_string().len()
    }
}

/// One step of a workflow tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Call this operation.
    pub call: Option<Spanned<String>>,
    /// The name later steps use for this step's result (`$name.field`).
    #[serde(rename = "as")]
    pub name: Option<Spanned<String>>,
    /// The operation's arguments: `$param` (a tool argument), `$step.field.path` (an earlier
    /// result), a literal, a template (`{ template: [...], quote: ... }`, see `$defs/Template`),
    /// or objects and lists of these.
    #[serde(default)]
    pub args: IndexMap<Spanned<String>, Spanned<Value>>,
    /// Messages for this step's API errors by HTTP status.
    #[serde(default)]
    pub errors: IndexMap<Spanned<String>, String>,
    /// Pick the item of this list (`$step.items`) whose fields match `where`; text matches
    /// ignoring case. More than one different match is an error listing them.
    pub find: Option<Spanned<String>>,
    /// The fields the found item must have: `field: $value`.
    #[serde(rename = "where", default)]
    pub where_fields: IndexMap<Spanned<String>, Spanned<Value>>,
    /// The message when `find` finds nothing (`{param}` is replaced by the argument,
    /// `{available}` by the values the list had in the first `where` field).
    pub missing: Option<Spanned<String>>,
    /// The message when `find` finds several items (`{param}` is replaced by the argument,
    /// `{candidates}` by the items, each by the fields that tell them apart).
    pub ambiguous: Option<Spanned<String>>,
    /// End the workflow early, successfully, when both values are equal.
    pub stop_if: Option<StopIf>,
    /// Make this `call` only when both values are equal (compared as `find` matches), such as
    /// `equal: [$on, merge_request]`: one step per operation a choice of the model's leads to.
    /// Only a later step with the same `when` may read its answer; the tool returns the answer of
    /// the last step that ran.
    pub when: Option<Condition>,
    /// Resolve `value` with this resolver: the id, as `$name` (`as`) for later steps. The
    /// resolver lists within the scope `args` gives (its own `args`' names, each from a
    /// parameter or an earlier step's result: the users of the task's workspace), or within its
    /// own `args`.
    pub resolve: Option<Spanned<String>>,
    /// The readable value a `resolve` step resolves (`$param`); an absent one resolves to
    /// nothing, and is left out where it goes.
    pub value: Option<Spanned<Value>>,
}

/// When a step runs.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// Two values (`$param`, `$step.field` or literals), compared as `find` matches: text
    /// ignoring case.
    pub equal: Spanned<Vec<Spanned<String>>>,
}

/// End a workflow early.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StopIf {
    /// Two values (`$step.field`, `$param` or literals) that, when equal, end the workflow.
    pub equal: Spanned<Vec<Spanned<String>>>,
    /// The result to shape and return (`$step`; default: the last result).
    pub result: Option<Spanned<String>>,
    /// What the model is told beside the result: why nothing changed (`{param}` is replaced by
    /// the argument). Default: "Nothing changed: it was already as asked."
    pub message: Option<String>,
}

/// Behaviour hints, emitted exactly as written.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AnnotationsSpec {
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
}

/// A text argument built from clauses, each dropped when a parameter it names is absent:
/// `{ template: ["repo:{owner}/{repo}", "is:issue", "label:\"{label}\""], join: " ", quote:
/// github }`. Written wherever an argument goes (`fixed`, a step's `args` at any depth): a
/// mapping with a `template` key is a template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub clauses: Vec<Clause>,
    /// Put between the clauses kept (default one space).
    pub join: String,
    pub quote: QuoteRule,
}

/// One clause of a template: text and `{param}` placeholders.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    /// As written, for messages.
    pub written: String,
    pub parts: Vec<ClausePart>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ClausePart {
    /// Literal text (`{{` and `}}` already read as braces).
    Text(String),
    /// A tool parameter's value; `quoted` is the quote character written right around the
    /// placeholder (`"{label}"`), if any; `words` when written `{name:words}`: the value is
    /// free text, written word by word, each word by the quote rule (a search's plain words
    /// rather than one quoted phrase).
    Param {
        name: String,
        quoted: Option<char>,
        words: bool,
    },
    /// `{name:if}`: the clause is kept only when the boolean parameter `name` is true, and the
    /// placeholder writes nothing (`is:open{open_only:if}` writes `is:open`, or drops out).
    Switch { name: String },
}

/// How a template writes a value into its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteRule {
    /// As it is.
    None,
    /// GitHub search: a value of letters, digits and `-_./@#+` as it is, any other between
    /// double quotes; a double quote in a value is refused (the syntax cannot escape it).
    Github,
    /// Slack search: the same rule as GitHub's.
    Slack,
    /// JQL: always a quoted string, with `\`, `"`, `'` and control characters escaped.
    Jql,
}

impl QuoteRule {
    pub const NAMES: [&'static str; 4] = ["github", "slack", "jql", "none"];

    pub fn named(name: &str) -> Option<QuoteRule> {
        match name {
            "github" => Some(QuoteRule::Github),
            "slack" => Some(QuoteRule::Slack),
            "jql" => Some(QuoteRule::Jql),
            "none" => Some(QuoteRule::None),
            _ => None,
        }
    }
}

/// Why a template cannot be read: the message, the help when there is one, and the part at
/// fault.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateError {
    pub message: String,
    pub help: Option<String>,
    pub fault: TemplateFault,
}

/// The part of a template a mistake is in.
#[derive(Debug, Clone, PartialEq)]
pub enum TemplateFault {
    Whole,
    /// The clause of that index.
    Clause(usize),
    /// A key of the template's mapping.
    Key(String),
    Quote,
    Join,
}

impl TemplateError {
    fn new(message: impl Into<String>, help: Option<String>) -> Self {
        TemplateError {
            message: message.into(),
            help,
            fault: TemplateFault::Whole,
        }
    }

    fn at(mut self, fault: TemplateFault) -> Self {
        self.fault = fault;
        self
    }
}

impl Template {
    const KEYS: [&'static str; 3] = ["template", "join", "quote"];

    /// Is `value` written as a template (a mapping with a `template` key)?
    pub fn is_template(value: &Value) -> bool {
        value
            .as_object()
            .is_some_and(|m| m.contains_key("template"))
    }

    /// Reads a template written as `value`.
    pub fn parse(value: &Value) -> Result<Template, TemplateError> {
        let Some(map) = value.as_object().filter(|m| m.contains_key("template")) else {
            return Err(TemplateError::new("not a template", None));
        };
        for key in map.keys() {
            if !Self::KEYS.contains(&key.as_str()) {
                let help = match super::diagnostics::closest(key, Self::KEYS) {
                    Some(best) => format!("did you mean `{best}`?"),
                    None => "a template takes `template`, `join` and `quote`".to_string(),
                };
                return Err(TemplateError::new(
                    format!("unknown key `{key}` in a template"),
                    Some(help),
                )
                .at(TemplateFault::Key(key.clone())));
            }
        }
        let scalar_text = |value: &Value| match value {
            Value::String(text) => Some(text.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        };
        let written: Vec<String> = match &map["template"] {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    scalar_text(item).ok_or_else(|| {
                        TemplateError::new(
                            "each clause of a template is text, such as \"state:{state}\"",
                            None,
                        )
                        .at(TemplateFault::Clause(index))
                    })
                })
                .collect::<Result<_, _>>()?,
            other => vec![scalar_text(other).ok_or_else(|| {
                TemplateError::new(
                    "`template` is a clause or a list of clauses, such as [\"repo:{owner}/{repo}\", \"state:{state}\"]",
                    None,
                )
            })?],
        };
        if written.is_empty() {
            return Err(TemplateError::new(
                "a template needs at least one clause",
                None,
            ));
        }
        let join = match map.get("join") {
            None => " ".to_string(),
            Some(Value::String(join)) => join.clone(),
            Some(_) => {
                return Err(TemplateError::new(
                    "`join` is the text put between clauses, such as \" AND \"",
                    Some("quote it: join: \" AND \"".into()),
                )
                .at(TemplateFault::Join));
            }
        };
        let quote = match map.get("quote") {
            Some(Value::String(name)) => QuoteRule::named(name).ok_or_else(|| {
                let help = match super::diagnostics::closest(name, QuoteRule::NAMES) {
                    Some(best) => format!("did you mean `{best}`?"),
                    None => format!("use one of: {}", QuoteRule::NAMES.join(", ")),
                };
                TemplateError::new(format!("unknown quoting rule `{name}`"), Some(help))
                    .at(TemplateFault::Quote)
            })?,
            _ => {
                return Err(TemplateError::new(
                    "say how a template quotes its values with `quote`: github, slack, jql or none",
                    None,
                ));
            }
        };
        let clauses = written
            .into_iter()
            .enumerate()
            .map(|(index, text)| {
                Ok(Clause {
                    parts: clause_parts(&text).map_err(|e| e.at(TemplateFault::Clause(index)))?,
                    written: text,
                })
            })
            .collect::<Result<_, TemplateError>>()?;
        Ok(Template {
            clauses,
            join,
            quote,
        })
    }

    /// The parameters a template names, each once, in order.
    pub fn params(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for clause in &self.clauses {
            for name in clause.params() {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }
}

impl Clause {
    /// The parameters the clause names, each once, in order.
    pub fn params(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let ClausePart::Param { name, .. } | ClausePart::Switch { name } = part
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }
}

/// Reads one clause: text, `{name}` placeholders, `{{` and `}}` for braces.
fn clause_parts(text: &str) -> Result<Vec<ClausePart>, TemplateError> {
    let mut parts: Vec<ClausePart> = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literal.push('}');
            }
            '}' => {
                return Err(TemplateError::new(
                    format!("`}}` without `{{` in the clause \"{text}\""),
                    Some("write `}}` for a brace in the text".into()),
                ));
            }
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    name.push(c);
                }
                if !closed {
                    return Err(TemplateError::new(
                        format!("`{{` without `}}` in the clause \"{text}\""),
                        Some("write `{{` for a brace in the text".into()),
                    ));
                }
                let mut switch = false;
                let words = match name.split_once(':') {
                    Some((param, "words")) => {
                        name = param.to_string();
                        true
                    }
                    Some((param, "if")) => {
                        name = param.to_string();
                        switch = true;
                        false
                    }
                    Some((_, way)) => {
                        return Err(TemplateError::new(
                            format!(
                                "`{{{name}}}` in the clause \"{text}\" writes its value as `{way}`, which templates do not know"
                            ),
                            Some(
                                "`{name:words}` writes free text word by word, `{name:if}` keeps the clause when a flag is true; `{name}` writes the value whole".into(),
                            ),
                        ));
                    }
                    None => false,
                };
                let valid = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if !valid {
                    return Err(TemplateError::new(
                        format!("`{{{name}}}` in the clause \"{text}\" names no parameter"),
                        Some(
                            "a placeholder is a parameter's name in braces, such as {state}".into(),
                        ),
                    ));
                }
                if !literal.is_empty() {
                    parts.push(ClausePart::Text(std::mem::take(&mut literal)));
                }
                parts.push(if switch {
                    ClausePart::Switch { name }
                } else {
                    ClausePart::Param {
                        name,
                        quoted: None,
                        words,
                    }
                });
            }
            other => literal.push(other),
        }
    }
    if !literal.is_empty() {
        parts.push(ClausePart::Text(literal));
    }
    // A placeholder between two equal quote characters is quoted by the clause itself.
    for index in 0..parts.len() {
        let before = index.checked_sub(1).and_then(|i| match &parts[i] {
            ClausePart::Text(text) => text.chars().last(),
            ClausePart::Param { .. } | ClausePart::Switch { .. } => None,
        });
        let after = match parts.get(index + 1) {
            Some(ClausePart::Text(text)) => text.chars().next(),
            _ => None,
        };
        if let ClausePart::Param {
            name,
            quoted,
            words,
        } = &mut parts[index]
            && let (Some(open), Some(close)) = (before, after)
            && open == close
            && (open == '"' || open == '\'')
        {
            if *words {
                return Err(TemplateError::new(
                    format!(
                        "`{{{name}:words}}` in the clause \"{text}\" sits between quotes, which make its words one phrase"
                    ),
                    Some(format!(
                        "write `{{{name}}}` between quotes for a phrase, or `{{{name}:words}}` without them for words"
                    )),
                ));
            }
            *quoted = Some(open);
        }
    }
    Ok(parts)
}

/// The JSON Schema of a template, for editors (`$defs/Template`).
fn template_schema() -> Value {
    serde_json::json!({
        "description": "A text argument built from clauses, written wherever an argument goes (a mapping with a `template` key). A clause naming a parameter that is absent (not given, null, empty text or an empty list) is dropped; a list parameter repeats its clause once per item; values are written by the `quote` rule.",
        "type": "object",
        "properties": {
            "template": {
                "description": "The clauses, in order: text with `{param}` placeholders (`{param:words}` for free text written word by word; `{{` and `}}` for braces).",
                "anyOf": [
                    { "type": "string" },
                    { "type": "array", "items": { "type": "string" }, "minItems": 1 }
                ]
            },
            "join": {
                "description": "Put between the clauses kept (default one space).",
                "type": "string"
            },
            "quote": {
                "description": "How values are written: `github` and `slack` (double quotes around a value that needs them; a double quote in a value is refused), `jql` (a quoted string with backslash escapes), `none` (as they are).",
                "type": "string",
                "enum": QuoteRule::NAMES
            }
        },
        "required": ["template", "quote"],
        "additionalProperties": false
    })
}

/// The curation file's JSON Schema, for `mcpgen schema` and editors.
pub fn json_schema() -> Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Curation>();
    let mut value = serde_json::to_value(schema).expect("a schema always serializes");
    if let Some(object) = value.as_object_mut() {
        object.insert("title".into(), Value::String("mcpgen curation file".into()));
        if let Some(Value::Object(defs)) = object.get_mut("$defs") {
            defs.insert("Template".into(), template_schema());
        }
    }
    value
}
