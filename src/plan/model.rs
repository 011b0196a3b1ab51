//! The plan's types: the tool model `render` reads and a preview shows — the server, its tools
//! with their schemas and annotations, and the upstream operations they call. Only types (and
//! what they answer about themselves) live here; the planner in [`super`] makes them.

use serde_json::{Map, Value, json};

use super::{curated, discovery};
use crate::api::{BodyKind, Location, Method};

/// The whole generated server.
#[derive(Debug, Clone)]
pub struct Plan {
    pub server: Server,
    pub tools: Vec<Tool>,
    /// The upstream operations the tools call, in the order first used.
    pub operations: Vec<OperationPlan>,
    /// Readable names for API codes.
    pub enums: Vec<curated::EnumPlan>,
    /// Readable values → ids.
    pub resolvers: Vec<curated::ResolverPlan>,
    /// The discovery tools' operations, index and catalog, when the server has them.
    pub discovery: Option<discovery::DiscoveryPlan>,
    /// The OAuth scopes each tool that needs some needs, by tool name, in `tools/list` order.
    pub scopes: Vec<(String, Vec<String>)>,
}

/// The server's identity and configuration.
#[derive(Debug, Clone)]
pub struct Server {
    /// `tracker`
    pub name: String,
    /// `tracker-mcp`: the crate and its binary.
    pub crate_name: String,
    /// `TRACKER`: the prefix of the server's environment variables.
    pub env_prefix: String,
    /// The API's title (`Tracker`).
    pub title: String,
    pub api_version: String,
    pub description: Option<String>,
    pub instructions: Option<String>,
    pub default_base_url: Option<String>,
    pub auth: Vec<Auth>,
    /// `ttlMs` of `tools/list`.
    pub tools_list_ttl_ms: u64,
    /// `cacheScope` of `tools/list`: public, or private.
    pub cache_public: bool,
}

/// One credential the server sends upstream, read from its environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    Bearer {
        env: String,
        /// Parameters that carry the token too, where an operation takes them.
        params: Vec<String>,
    },
    ApiKey {
        location: Location,
        name: String,
        env: String,
        /// Other parameters that carry the key too, where an operation takes them.
        params: Vec<String>,
    },
    Basic {
        username_env: String,
        password_env: String,
    },
    OAuth2ClientCredentials {
        token_url: String,
        client_id_env: String,
        client_secret_env: String,
        scopes: Vec<String>,
    },
}

impl Auth {
    /// The environment variables this credential reads.
    pub fn env_vars(&self) -> Vec<&str> {
        match self {
            Auth::Bearer { env, .. } | Auth::ApiKey { env, .. } => vec![env],
            Auth::Basic {
                username_env,
                password_env,
            } => vec![username_env, password_env],
            Auth::OAuth2ClientCredentials {
                client_id_env,
                client_secret_env,
                ..
            } => vec![client_id_env, client_secret_env],
        }
    }
}

/// Tool annotations, emitted exactly as set: a hint left `None` is absent from the definition,
/// and a client reads it as MCP's default ([`Annotations::read_only_hint`] and the others).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

impl Annotations {
    /// What an operation's method says about it ([`Annotations::from_method`]), or read-only
    /// when the curation file says it only reads (`operations.read_only`).
    pub fn for_operation(operation: &crate::api::Operation) -> Self {
        if operation.declared_read_only {
            Self::from_method(Method::Get)
        } else {
            Self::from_method(operation.method)
        }
    }

    /// What the HTTP method says about an operation, as only the hints that differ from MCP's
    /// defaults ([`Annotations::without_defaults`]): GET/HEAD (and OPTIONS/TRACE) read only,
    /// `{"readOnlyHint": true}`; PUT/DELETE idempotent, `{"idempotentHint": true}` (destructive,
    /// which is the default); POST/PATCH neither, so no annotations at all (not read-only,
    /// destructive and not idempotent are all the defaults).
    pub fn from_method(method: Method) -> Self {
        let write = |idempotent| Annotations {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(idempotent),
            open_world: None,
        };
        match method {
            Method::Get | Method::Head | Method::Options | Method::Trace => Annotations {
                read_only: Some(true),
                ..Annotations::default()
            },
            Method::Put | Method::Delete => write(true),
            Method::Post | Method::Patch => write(false),
        }
        .without_defaults()
    }

    /// Only the hints a client would not assume: those that differ from MCP's defaults
    /// (`readOnlyHint: false`, `destructiveHint: true`, `idempotentHint: false`,
    /// `openWorldHint: true`), and neither `destructiveHint` nor `idempotentHint` on a read-only
    /// tool (the spec gives them meaning only when `readOnlyHint` is false). For annotations
    /// mcpgen derives; curated ones are emitted as written.
    pub fn without_defaults(&self) -> Self {
        let read_only = self.read_only_hint();
        let differs = |value: Option<bool>, default: bool| value.filter(|v| *v != default);
        Annotations {
            read_only: differs(self.read_only, false),
            destructive: if read_only {
                None
            } else {
                differs(self.destructive, true)
            },
            idempotent: if read_only {
                None
            } else {
                differs(self.idempotent, false)
            },
            open_world: differs(self.open_world, true),
        }
    }

    /// `readOnlyHint` as a client reads it: false unless given.
    pub fn read_only_hint(&self) -> bool {
        self.read_only.unwrap_or(false)
    }

    /// `destructiveHint` as a client reads it: true unless given (meaningful only when the tool
    /// is not read-only).
    pub fn destructive_hint(&self) -> bool {
        self.destructive.unwrap_or(true)
    }

    /// `idempotentHint` as a client reads it: false unless given (meaningful only when the tool
    /// is not read-only).
    pub fn idempotent_hint(&self) -> bool {
        self.idempotent.unwrap_or(false)
    }

    /// `openWorldHint` as a client reads it: true unless given.
    pub fn open_world_hint(&self) -> bool {
        self.open_world.unwrap_or(true)
    }

    /// The `annotations` object of `tools/list`: only the hints given, none when there are none.
    pub(super) fn to_json(&self) -> Option<Value> {
        let mut object = Map::new();
        for (key, value) in [
            ("readOnlyHint", self.read_only),
            ("destructiveHint", self.destructive),
            ("idempotentHint", self.idempotent),
            ("openWorldHint", self.open_world),
        ] {
            if let Some(value) = value {
                object.insert(key.into(), Value::Bool(value));
            }
        }
        (!object.is_empty()).then_some(Value::Object(object))
    }
}

/// One tool of the server.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub annotations: Annotations,
    pub action: Action,
}

impl Tool {
    /// The tool's definition exactly as `tools/list` returns it.
    pub fn definition(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), json!(self.name));
        if let Some(title) = &self.title {
            tool.insert("title".into(), json!(title));
        }
        if let Some(description) = &self.description {
            tool.insert("description".into(), json!(description));
        }
        tool.insert("inputSchema".into(), self.input_schema.clone());
        if let Some(output) = &self.output_schema {
            tool.insert("outputSchema".into(), output.clone());
        }
        if let Some(annotations) = self.annotations.to_json() {
            tool.insert("annotations".into(), annotations);
        }
        Value::Object(tool)
    }
}

/// What a tool does when called.
#[derive(Debug, Clone)]
pub enum Action {
    /// Calls one operation with the arguments as its parameters and returns its result;
    /// `wrap` puts a result that is not an object under `result`.
    Call { operation: usize, wrap: bool },
    /// A curated tool: its own parameters, resolved and mapped, then one call or a workflow.
    Curated(Box<curated::CuratedTool>),
    /// One of the discovery tools (search, describe, call the discoverable operations).
    Discovery(discovery::DiscoveryTool),
}

/// One upstream operation, as the generated client calls it.
#[derive(Debug, Clone)]
pub struct OperationPlan {
    /// The operationId as the API spells it.
    pub api_id: String,
    pub method: Method,
    /// Calling it changes nothing: its method is safe, or the curation file says so.
    pub reads_only: bool,
    pub path: String,
    pub summary: Option<String>,
    /// The client method's name (`list_issues`).
    pub fn_name: String,
    /// The parameter struct's name (`ListIssuesParams`).
    pub params_type: String,
    pub fields: Vec<Field>,
    /// How the body is sent, when the operation has one.
    pub body: Option<BodyPlan>,
    /// The operation's parameters as one JSON Schema object (a one-to-one tool's input), shared
    /// by the operations whose input schemas are the same.
    pub input_schema: std::sync::Arc<Value>,
    /// Whether a tool walks its pages through `Link` headers (the client then also gets a
    /// `<name>_page` method).
    pub link_paged: bool,
    /// The operation's own server (absolute, or relative to the base URL), when it has one.
    pub server: Option<String>,
    /// The parameters that carry a credential, which the client fills (none of them is a field).
    pub credentials: Vec<crate::api::CredentialParam>,
    /// The JSON Schema of the first success response's body, when it has one (the generated
    /// crate's tests answer from it).
    pub response: Option<std::sync::Arc<Value>>,
}

impl OperationPlan {
    /// `GET /v2/projects/{project_id}/issues`: how messages name the operation.
    pub fn label(&self) -> String {
        format!("{} {}", self.method.as_upper(), self.path)
    }
}

/// How a request body is made from the fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyPlan {
    pub kind: BodyKind,
    pub content_type: String,
    /// The API names of the multipart body's file properties.
    pub files: Vec<String>,
}

/// Where a field of a parameter struct goes in the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldTarget {
    Param(Location),
    /// A property of a JSON or form body.
    BodyProperty,
    /// The whole body (a body that is not an object).
    WholeBody,
}

/// One field of an operation's parameter struct, which is also a property of the tool's input.
#[derive(Debug, Clone)]
pub struct Field {
    /// The Rust field name.
    pub ident: String,
    /// The property name in the tool's input schema.
    pub property: String,
    /// The name the API expects.
    pub api_name: String,
    pub target: FieldTarget,
    pub required: bool,
    pub ty: FieldType,
    /// What the property means, from the document.
    pub description: Option<String>,
    /// How a parameter's value is written, when not its location's default.
    pub style: Option<crate::api::ParamStyle>,
}

/// The Rust type of a field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldType {
    String,
    Integer {
        /// The only values the API accepts, when the schema lists them.
        allowed: Option<Vec<i64>>,
    },
    Number,
    Boolean,
    /// A string with a closed set of values: a Rust enum.
    StringEnum {
        type_name: String,
        variants: Vec<(String, String)>,
    },
    List(Box<FieldType>),
    /// Anything else, kept as JSON.
    Json,
}
