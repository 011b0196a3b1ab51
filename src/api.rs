//! The normalized API model: what the loader makes of any supported OpenAPI document, and all
//! that later stages know of it. Schemas are already JSON Schema 2020-12 with every `$ref`
//! resolved (recursive ones point into `$defs`).

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

/// The JSON Schema 2020-12 keywords whose values are subschemas, for every stage that walks the
/// model's schemas (the loader converting them, the plan trimming them).
pub mod subschemas {
    /// Keywords whose value is one schema (`items` also takes a list in older dialects).
    pub const ONE: &[&str] = &[
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
        "contentSchema",
    ];
    /// Keywords whose value is a list of schemas.
    pub const LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
    /// Keywords whose value maps names to schemas.
    pub const MAPS: &[&str] = &[
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
    ];
}

/// One API description, normalized.
#[derive(Debug, Clone)]
pub struct Api {
    pub title: String,
    pub version: String,
    pub description: Option<String>,
    /// Server URLs, variables replaced by their defaults.
    pub servers: Vec<String>,
    pub operations: Vec<Operation>,
    pub security_schemes: IndexMap<String, SecurityScheme>,
    /// The document's default security requirement: alternatives, each a set of scheme names.
    pub security: Vec<Vec<String>>,
    /// What the loader repaired or dropped to publish valid schemas, and what makes the
    /// document invalid against its specification, for the CLI to show as warnings.
    pub warnings: Vec<Warning>,
    /// The document itself (its `paths` aside, which the operations hold), for the schemas the
    /// loader cut short in the operations' answers ([`crate::load::expand_stubs`]).
    pub document: Document,
}

/// The document an [`Api`] was loaded from, shared by its copies; empty for one built otherwise.
#[derive(Clone, Default)]
pub struct Document(Option<std::sync::Arc<serde_json::Value>>);

impl Document {
    pub fn new(document: serde_json::Value) -> Self {
        Self(Some(std::sync::Arc::new(document)))
    }

    pub fn get(&self) -> Option<&serde_json::Value> {
        self.0.as_deref()
    }
}

/// Not the document's values: megabytes, in every debug print of an API.
impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Some(_) => "Document(..)",
            None => "Document(none)",
        })
    }
}

/// Something the loader found wrong in a document without refusing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file it is in, when it is an external file a `$ref` named (as the user would see it);
    /// `None` for the document itself.
    pub file: Option<std::path::PathBuf>,
    /// The JSON pointer of the value, in that file.
    pub pointer: String,
    /// Line and column (from 1) of the value in that file, when found.
    pub position: Option<(usize, usize)>,
    /// What is wrong, and what was done about it.
    pub message: String,
}

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
}

impl Method {
    /// The methods in the order the loader visits a path item's operations.
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    /// The method's key in a path item (`get`).
    pub fn key(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
        }
    }

    /// Whether the method is safe in HTTP's sense (RFC 9110 §9.2.1): it only reads.
    pub fn is_safe(self) -> bool {
        matches!(
            self,
            Method::Get | Method::Head | Method::Options | Method::Trace
        )
    }

    /// The method as sent on the wire (`GET`).
    pub fn as_upper(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }
}

/// One operation of the API.
#[derive(Debug, Clone)]
pub struct Operation {
    /// The operationId, or one made from method and path when the document has none.
    pub id: String,
    pub method: Method,
    pub path: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    /// The curation file says the operation only reads although its method may write
    /// (`operations.read_only`: a search sent by POST).
    pub declared_read_only: bool,
    pub parameters: Vec<Parameter>,
    pub body: Option<Body>,
    /// The first success response.
    pub success: Option<Response>,
    /// The operation's own security requirement, when it overrides the document's.
    pub security: Option<Vec<Vec<String>>>,
    /// The server the operation is called on when it (or its path) names its own, variables
    /// replaced by their defaults; relative URLs are relative to the API's base URL.
    pub server: Option<String>,
    /// The parameters (and body properties) that carry a credential, taken out of `parameters`
    /// and `body` by [`crate::plan::credentials::carried`]: the server fills them, the model and
    /// the curation file never do. Empty as loaded.
    pub credentials: Vec<CredentialParam>,
}

impl Operation {
    /// Whether calling the operation changes nothing: its method is safe, or the curation file
    /// says so.
    pub fn reads_only(&self) -> bool {
        self.method.is_safe() || self.declared_read_only
    }

    /// The name each input goes by in a tool's arguments and in a curation file: the parameters
    /// in order, then the properties of a flattened body (or `body`, a body sent whole), each by
    /// its API name; a name taken already is prefixed with where the input goes (`body_uris`
    /// beside a query parameter `uris`, `query_id` beside a path `id`), numbered past further
    /// clashes. The one rule the planner and `check` share.
    pub fn input_names(&self) -> Vec<String> {
        let mut taken: Vec<String> = Vec::new();
        let mut name = |api_name: &str, prefix: &str| {
            let mut name = api_name.to_string();
            if taken.contains(&name) {
                name = format!("{prefix}_{api_name}");
                let mut n = 2;
                while taken.contains(&name) {
                    name = format!("{prefix}_{api_name}_{n}");
                    n += 1;
                }
            }
            taken.push(name.clone());
            name
        };
        let mut names: Vec<String> = self
            .parameters
            .iter()
            .map(|p| name(&p.name, p.location.as_str()))
            .collect();
        if let Some(body) = &self.body {
            match body.flattened_properties() {
                Some(properties) => names.extend(properties.keys().map(|n| name(n, "body"))),
                None => names.push(name("body", "body")),
            }
        }
        names
    }

    /// The name another input of the same API name as input `name` goes by (`body_uris` for
    /// `uris`), if there is one.
    pub fn twin_of(&self, name: &str) -> Option<String> {
        let api_names =
            self.parameters
                .iter()
                .map(|p| p.name.as_str())
                .chain(
                    self.body
                        .iter()
                        .flat_map(|body| match body.flattened_properties() {
                            Some(properties) => properties.keys().map(String::as_str).collect(),
                            None => vec!["body"],
                        }),
                );
        self.input_names()
            .into_iter()
            .zip(api_names)
            .find(|(input, api_name)| *api_name == name && input != name)
            .map(|(input, _)| input)
    }
}

/// A parameter of an operation that carries one of the server's credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialParam {
    /// The name the API expects.
    pub name: String,
    /// Where it goes: a parameter's location, or `None` for a property of the request body.
    pub location: Option<Location>,
    pub required: bool,
    pub source: CredentialSource,
}

/// Where the value of a [`CredentialParam`] comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialSource {
    /// An API key of `auth` with this very name and location: the server sends it with every
    /// request already, so the parameter is that key, sent once.
    Sent,
    /// The bearer token of `auth`, also sent in this parameter.
    Bearer,
    /// The API key of `auth` named so (its header, query or cookie name), also sent here.
    ApiKey(String),
    /// The API-key security scheme of the spec named so, which `auth` does not fill.
    Missing { scheme: String },
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Location {
    Path,
    Query,
    Header,
    Cookie,
}

impl Location {
    pub fn as_str(self) -> &'static str {
        match self {
            Location::Path => "path",
            Location::Query => "query",
            Location::Header => "header",
            Location::Cookie => "cookie",
        }
    }
}

/// One path, query, header or cookie parameter.
#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: String,
    pub location: Location,
    pub required: bool,
    pub description: Option<String>,
    pub deprecated: bool,
    pub schema: Value,
    /// How the value is written, when not the location's default (`form` exploded for query and
    /// cookie, `simple` for path and header).
    pub style: Option<ParamStyle>,
}

/// OpenAPI's `style` and `explode` of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamStyle {
    pub style: Style,
    pub explode: bool,
}

/// OpenAPI's parameter styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Form,
    Simple,
    Label,
    Matrix,
    SpaceDelimited,
    PipeDelimited,
    DeepObject,
}

impl Style {
    /// The style named `name` in a document.
    pub fn from_name(name: &str) -> Option<Style> {
        Some(match name {
            "form" => Style::Form,
            "simple" => Style::Simple,
            "label" => Style::Label,
            "matrix" => Style::Matrix,
            "spaceDelimited" => Style::SpaceDelimited,
            "pipeDelimited" => Style::PipeDelimited,
            "deepObject" => Style::DeepObject,
            _ => return None,
        })
    }

    /// The name of the generated runtime's variant.
    pub fn variant(self) -> &'static str {
        match self {
            Style::Form => "Form",
            Style::Simple => "Simple",
            Style::Label => "Label",
            Style::Matrix => "Matrix",
            Style::SpaceDelimited => "SpaceDelimited",
            Style::PipeDelimited => "PipeDelimited",
            Style::DeepObject => "DeepObject",
        }
    }
}

impl ParamStyle {
    /// The style a parameter in `location` has when the document says nothing.
    pub fn default_for(location: Location) -> ParamStyle {
        match location {
            Location::Query | Location::Cookie => ParamStyle {
                style: Style::Form,
                explode: true,
            },
            Location::Path | Location::Header => ParamStyle {
                style: Style::Simple,
                explode: false,
            },
        }
    }
}

/// How a request body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    Json,
    Form,
    /// `multipart/form-data`: each property one part; file properties are listed in
    /// [`Body::files`].
    Multipart,
    /// Any other media type, sent as text.
    Text,
}

/// The request body of an operation.
#[derive(Debug, Clone)]
pub struct Body {
    pub kind: BodyKind,
    pub content_type: String,
    pub required: bool,
    pub description: Option<String>,
    /// Shared by the operations that take the same `$ref` (the loader converts it once): in
    /// Kubernetes' description a hundred operations take `DeleteOptions`. Changed with
    /// [`Arc::make_mut`], which copies it for the one operation changed.
    pub schema: Arc<Value>,
    /// The top-level properties of a multipart body that are files (their schema is
    /// [`file_schema`]).
    pub files: Vec<String>,
}

impl Body {
    /// Whether the body's schema requires property `name`. That holds even where the spec leaves
    /// the body itself optional: a tool that sends the body sends it whole, and many descriptions
    /// (Discourse's, Spotify's) never set `requestBody.required` on bodies the API needs.
    pub fn requires(&self, name: &str) -> bool {
        self.schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|required| required.iter().any(|r| r.as_str() == Some(name)))
    }

    /// The properties of a body whose top-level properties are parameters of their own (the
    /// tool's arguments, the curation file's `args`), in order; `None` for a body sent whole
    /// (text, or a schema that lists no properties). A schema that lists properties is an
    /// object even when it does not say `type: object`. The one rule `check` and the planner
    /// share, so that what the file may name is what the generated code fills.
    pub fn flattened_properties(&self) -> Option<&serde_json::Map<String, Value>> {
        if self.kind == BodyKind::Text {
            return None;
        }
        let object = match self.schema.get("type") {
            None => true,
            Some(Value::String(ty)) => ty == "object",
            Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
            Some(_) => false,
        };
        if !object {
            return None;
        }
        self.schema.get("properties").and_then(Value::as_object)
    }
}

/// The input schema of a file argument: its bytes in base64, or a path the server may read.
pub fn file_schema(description: Option<&str>) -> Value {
    let how = "A file: give `content_base64` (its bytes in base64) or `path` (a file in the folder \
               the server allows uploads from), and optionally `filename` and `content_type`.";
    let description = match description {
        Some(text) if !text.trim().is_empty() => format!("{} {how}", text.trim_end()),
        _ => how.to_string(),
    };
    serde_json::json!({
        "type": "object",
        "description": description,
        "properties": {
            "content_base64": { "type": "string", "contentEncoding": "base64", "description": "The file's bytes, base64-encoded." },
            "path": { "type": "string", "description": "A file inside the folder the server allows uploads from." },
            "filename": { "type": "string", "description": "The file name sent to the API (default: the path's last part, or the argument's name)." },
            "content_type": { "type": "string", "description": "The file's media type (default: application/octet-stream)." }
        },
        "additionalProperties": false
    })
}

/// A success response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: String,
    pub description: Option<String>,
    /// The JSON schema of the body, when the response has a JSON body; shared as
    /// [`Body::schema`] is.
    pub schema: Option<Arc<Value>>,
}

/// How the API authenticates callers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecurityScheme {
    Bearer,
    Basic,
    ApiKey {
        location: Location,
        name: String,
    },
    OAuth2ClientCredentials {
        token_url: String,
    },
    /// A scheme the generated server cannot satisfy by itself (interactive OAuth2 flows,
    /// OpenID Connect, mutual TLS): requests go without it.
    Unsupported {
        kind: String,
    },
}
