//! Test support: loads the Tracker OpenAPI document, starts the real server on a free
//! loopback port, and sends operations the way the document describes them (method and
//! path template looked up by operationId, only declared parameters), checking every
//! response against the document's schema for its status.
//!
//! The check is stricter than the document on one point: objects may not carry
//! properties the document does not declare, so the server cannot drift from it
//! unnoticed.

use std::sync::OnceLock;

use jsonschema::Validator;
use serde_json::{Map, Value, json};

/// The document, as JSON.
pub struct Document {
    root: Value,
    /// `components/schemas`, translated to JSON Schema 2020-12, to use as `$defs`.
    defs: Value,
}

/// The document shared by all tests.
pub fn document() -> &'static Document {
    static DOCUMENT: OnceLock<Document> = OnceLock::new();
    DOCUMENT.get_or_init(Document::load)
}

/// One operation of the document.
#[derive(Debug, Clone)]
pub struct Operation {
    pub id: String,
    pub method: String,
    pub path: String,
    pub spec: Value,
}

impl Document {
    fn load() -> Document {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../specs/tracker/openapi.yaml"
        );
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let root: Value =
            yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{path} is not YAML: {e}"));
        let schemas = root
            .pointer("/components/schemas")
            .unwrap_or_else(|| panic!("{path} has no components/schemas"));
        let defs = to_json_schema(schemas.clone());
        Document { root, defs }
    }

    /// The whole document.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// Every operation, in document order.
    pub fn operations(&self) -> Vec<Operation> {
        let paths = self.root["paths"]
            .as_object()
            .unwrap_or_else(|| panic!("the document has no paths"));
        let mut operations = Vec::new();
        for (path, item) in paths {
            let item = item
                .as_object()
                .unwrap_or_else(|| panic!("{path} is not an object"));
            for (method, spec) in item {
                if let Some(id) = spec.get("operationId").and_then(Value::as_str) {
                    operations.push(Operation {
                        id: id.to_owned(),
                        method: method.to_uppercase(),
                        path: path.clone(),
                        spec: spec.clone(),
                    });
                }
            }
        }
        operations
    }

    /// The operation with this operationId.
    pub fn operation(&self, id: &str) -> Operation {
        self.operations()
            .into_iter()
            .find(|operation| operation.id == id)
            .unwrap_or_else(|| panic!("the document has no operation {id}"))
    }

    /// Follows `$ref`s (local JSON pointers) until a value without one.
    pub fn resolve<'a>(&'a self, mut value: &'a Value) -> &'a Value {
        for _ in 0..32 {
            let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
                return value;
            };
            let pointer = reference
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("only local $refs are expected, got {reference}"));
            value = self
                .root
                .pointer(pointer)
                .unwrap_or_else(|| panic!("dangling $ref {reference}"));
        }
        panic!("$ref chain too long (a cycle?)")
    }

    /// The operation's parameters with `$ref`s resolved.
    pub fn parameters(&self, operation: &Operation) -> Vec<Value> {
        operation.spec["parameters"]
            .as_array()
            .map(|parameters| {
                parameters
                    .iter()
                    .map(|parameter| self.resolve(parameter).clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The operation's response for a status, with `$ref`s resolved.
    pub fn response(&self, operation: &Operation, status: u16) -> Option<Value> {
        let response = operation.spec.get("responses")?.get(status.to_string())?;
        Some(self.resolve(response).clone())
    }

    /// A validator for a schema of the document (usually a `$ref` to a component).
    pub fn validator(&self, schema: &Value) -> Validator {
        let mut root = match to_json_schema(schema.clone()) {
            Value::Object(object) => object,
            other => panic!("a schema must be an object, got {other}"),
        };
        root.insert("$defs".to_owned(), self.defs.clone());
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .unwrap_or_else(|e| panic!("invalid schema {schema}: {e}"))
    }

    /// The messages of every way `instance` breaks `schema`.
    pub fn violations(&self, schema: &Value, instance: &Value) -> Vec<String> {
        self.validator(schema)
            .iter_errors(instance)
            .map(|error| format!("{} at {}", error, error.instance_path()))
            .collect()
    }
}

/// Translates an OpenAPI 3.0 schema into JSON Schema 2020-12: `nullable: true` becomes a
/// type union with `null` (and `null` joins an `enum`), component `$ref`s point into
/// `$defs`, and objects that list their properties allow no others.
pub fn to_json_schema(schema: Value) -> Value {
    match schema {
        Value::Object(object) => Value::Object(translate_object(object)),
        Value::Array(items) => Value::Array(items.into_iter().map(to_json_schema).collect()),
        other => other,
    }
}

fn translate_object(object: Map<String, Value>) -> Map<String, Value> {
    let mut out: Map<String, Value> = object
        .into_iter()
        .map(|(key, value)| match (key.as_str(), value) {
            ("$ref", Value::String(reference)) => (
                key,
                Value::String(reference.replace("#/components/schemas/", "#/$defs/")),
            ),
            // Examples are data, not schemas.
            ("example", value) => (key, value),
            (_, value) => (key, to_json_schema(value)),
        })
        .collect();
    let nullable = out.remove("nullable") == Some(Value::Bool(true));
    if out.contains_key("properties") && !out.contains_key("additionalProperties") {
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    if !nullable {
        return out;
    }
    if let Some(Value::Array(values)) = out.get_mut("enum") {
        values.push(Value::Null);
    }
    match out.get("type").cloned() {
        Some(Value::String(name)) => {
            out.insert("type".to_owned(), json!([name, "null"]));
            out
        }
        _ => {
            let mut wrapper = Map::new();
            wrapper.insert(
                "anyOf".to_owned(),
                json!([Value::Object(out), { "type": "null" }]),
            );
            wrapper
        }
    }
}

/// The server under test, with fresh seed data, on a free port of 127.0.0.1.
pub struct Server {
    base_url: String,
    client: reqwest::Client,
}

impl Server {
    /// Starts a server in this test's runtime; it stops when the test ends.
    pub async fn start() -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("bound address");
        tokio::spawn(tracker_api::serve(listener));
        Server::at(format!("http://{address}"))
    }

    /// A client of a server that is already running at `base_url`.
    pub fn at(base_url: String) -> Server {
        Server {
            base_url,
            client: reqwest::Client::new(),
        }
    }

    /// A request for the operation with this operationId, as alice.
    pub fn call(&self, operation_id: &str) -> Call<'_> {
        Call {
            server: self,
            operation: document().operation(operation_id),
            path_params: Vec::new(),
            query: Vec::new(),
            body: None,
            token: Some("alice-token".to_owned()),
        }
    }
}

/// A request being built; see [`Server::call`].
pub struct Call<'a> {
    server: &'a Server,
    operation: Operation,
    path_params: Vec<(String, String)>,
    query: Vec<(String, String)>,
    body: Option<Body>,
    token: Option<String>,
}

enum Body {
    Json(Value),
    Raw(&'static str),
}

impl Call<'_> {
    /// Sets a path parameter, which the operation must declare.
    pub fn path(mut self, name: &str, value: impl ToString) -> Self {
        self.assert_declared(name, "path");
        self.path_params.push((name.to_owned(), value.to_string()));
        self
    }

    /// Adds a query parameter, which the operation must declare.
    pub fn query(mut self, name: &str, value: impl ToString) -> Self {
        self.assert_declared(name, "query");
        self.query.push((name.to_owned(), value.to_string()));
        self
    }

    /// Sends this JSON body; the operation must declare a request body.
    pub fn json(mut self, body: Value) -> Self {
        self.assert_has_body();
        self.body = Some(Body::Json(body));
        self
    }

    /// Sends this text as an `application/json` body, to test malformed bodies.
    pub fn raw_json(mut self, text: &'static str) -> Self {
        self.assert_has_body();
        self.body = Some(Body::Raw(text));
        self
    }

    /// Sends the request with `Authorization: Bearer <token>`, or without the header.
    pub fn token(mut self, token: Option<&str>) -> Self {
        self.token = token.map(str::to_owned);
        self
    }

    fn assert_declared(&self, name: &str, location: &str) {
        let declared = document()
            .parameters(&self.operation)
            .iter()
            .any(|parameter| parameter["name"] == name && parameter["in"] == location);
        assert!(
            declared,
            "{} declares no {location} parameter {name}",
            self.operation.id
        );
    }

    fn assert_has_body(&self) {
        assert!(
            self.operation.spec.get("requestBody").is_some(),
            "{} declares no request body",
            self.operation.id
        );
    }

    /// Sends the request and checks the response against the document: its status must
    /// be declared, and its body must match the declared schema (or be empty when the
    /// response declares no content).
    pub async fn send(self) -> Reply {
        let operation = &self.operation;
        let mut path = operation.path.clone();
        for (name, value) in &self.path_params {
            path = path.replace(&format!("{{{name}}}"), &encode_path_segment(value));
        }
        assert!(
            !path.contains('{'),
            "{}: path parameters missing in {path}",
            operation.id
        );
        let method = reqwest::Method::from_bytes(operation.method.as_bytes()).expect("method");
        let mut request = self
            .server
            .client
            .request(method, format!("{}{path}", self.server.base_url))
            .query(&self.query);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        request = match self.body {
            Some(Body::Json(body)) => request.json(&body),
            Some(Body::Raw(text)) => request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(text),
            None => request,
        };
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let text = response.text().await.expect("a readable body");
        let declared = document().response(operation, status).unwrap_or_else(|| {
            panic!(
                "{} answered {status}, which the document does not declare; body: {text}",
                operation.id
            )
        });
        let body = match declared.pointer("/content/application~1json/schema") {
            None => {
                assert!(
                    text.is_empty(),
                    "{} {status} declares no content but has a body: {text}",
                    operation.id
                );
                Value::Null
            }
            Some(schema) => {
                assert_eq!(
                    content_type.as_deref(),
                    Some("application/json"),
                    "{} {status}: content type",
                    operation.id
                );
                let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
                    panic!("{} {status}: body is not JSON ({e}): {text}", operation.id)
                });
                let violations = document().violations(schema, &body);
                assert!(
                    violations.is_empty(),
                    "{} {status}: the body breaks the document's schema:\n  {}\nbody: {body:#}",
                    operation.id,
                    violations.join("\n  ")
                );
                body
            }
        };
        Reply {
            operation: operation.id.clone(),
            status,
            body,
        }
    }
}

/// Percent-encodes what a path segment cannot hold as is.
fn encode_path_segment(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (byte as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// A response that matched the document.
#[derive(Debug)]
pub struct Reply {
    pub operation: String,
    pub status: u16,
    pub body: Value,
}

impl Reply {
    /// The body, after asserting the status.
    #[track_caller]
    pub fn expect(self, status: u16) -> Value {
        assert_eq!(
            self.status, status,
            "{} answered {} instead of {status}: {:#}",
            self.operation, self.status, self.body
        );
        self.body
    }

    /// The error code, after asserting the status.
    #[track_caller]
    pub fn expect_error(self, status: u16) -> String {
        let body = self.expect(status);
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "error without message: {body}");
        body["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}
