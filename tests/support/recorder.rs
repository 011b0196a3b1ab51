//! A recording, validating upstream for end-to-end tests of servers generated from real API
//! descriptions: Prism (`MCPGEN_TEST_PRISM`, installed by `scripts/test`) mocks the description
//! with `--errors`, so it answers from the description's examples and refuses (422) any request
//! the description does not allow; in front of it, a small proxy of our own on 127.0.0.1 records
//! every request exactly as it arrived (method, path, query pairs in order, the headers a test
//! cares about, and the body parsed as JSON or as form fields) and forwards it unchanged.
//!
//! A test asserts the exact requests with [`Recorder::requests`]; [`Recorder::assert_clean`]
//! fails it when Prism refused a request or when any value the API received is still an
//! unsubstituted `$name` of the curation file (the bug of issue 19: `"$project"` sent as text).
//!
//! Everything listens on 127.0.0.1; Prism is killed when the recorder drops; every wait is bounded.

use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Map, Value, json};

/// The longest Prism may take to listen (a 2 MB description takes Prism several seconds).
const STARTUP_TIMEOUT: Duration = Duration::from_secs(90);
const POLL: Duration = Duration::from_millis(50);

/// The request headers recorded (lowercase); others vary by client and mean nothing to a test.
const RECORDED_HEADERS: [&str; 4] = ["authorization", "content-type", "token", "notion-version"];

/// One request as the API received it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// The query's `name=value` pairs, percent-decoded, in the order sent.
    pub query: Vec<(String, String)>,
    /// The recorded headers that were present, lowercase names.
    pub headers: Vec<(String, String)>,
    /// The body: JSON as parsed, form fields as `{"form": [[name, value], ...]}`, `Null` if empty,
    /// anything else as `{"raw": text}`.
    pub body: Value,
    /// The status Prism answered with.
    pub status: u16,
}

impl Request {
    /// The value of a recorded header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The request in one line: `METHOD /path?query`, for messages.
    pub fn line(&self) -> String {
        if self.query.is_empty() {
            format!("{} {}", self.method, self.path)
        } else {
            let query: Vec<String> = self.query.iter().map(|(n, v)| format!("{n}={v}")).collect();
            format!("{} {}?{}", self.method, self.path, query.join("&"))
        }
    }
}

/// A child process killed (and reaped) when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Prism behind a recording proxy; both run until it drops.
pub struct Recorder {
    _prism: Guard,
    prism_log: PathBuf,
    port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("the system gives a free loopback port")
        .port()
}

fn accepts(port: u16) -> bool {
    TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200)).is_ok()
}

/// The part of an API description Prism needs for `paths`: those paths (every method), and of
/// `definitions` (Swagger 2.0) and `components` (OpenAPI 3) only what they reach through `$ref`,
/// transitively; `webhooks` and `x-webhooks` (requests the API sends, not ones it serves) are
/// left out; everything else of the document (security schemes included) is kept as it is, with
/// what it reaches. Before, GitHub's `x-webhooks` stayed and referred to schemas that were left
/// out, and Prism refused the part with `MissingPointerError`.
/// Prism takes minutes to start on a description of thousands of operations; on the part a test
/// uses it starts in seconds and validates those operations exactly as the whole would.
pub fn subset(spec: &Value, paths: &[&str]) -> Value {
    let mut part = spec.clone();
    let all_paths = spec["paths"]
        .as_object()
        .expect("the description has paths");
    let mut kept = Map::new();
    for path in paths {
        let item = all_paths
            .get(*path)
            .unwrap_or_else(|| panic!("the description has no path {path}"));
        kept.insert((*path).to_owned(), item.clone());
    }
    if let Some(document) = part.as_object_mut() {
        document.remove("webhooks");
        document.remove("x-webhooks");
    }
    // Follow `$ref`s from what is kept whole until nothing new is reached.
    let mut reached = std::collections::BTreeSet::new();
    let mut pending: Vec<Value> = vec![Value::Object(kept.clone())];
    for (key, value) in part.as_object().into_iter().flatten() {
        if !matches!(key.as_str(), "paths" | "components" | "definitions") {
            pending.push(value.clone());
        }
    }
    if let Some(schemes) = part.pointer("/components/securitySchemes") {
        pending.push(schemes.clone());
    }
    while let Some(value) = pending.pop() {
        let mut refs = Vec::new();
        collect_refs(&value, &mut refs);
        for reference in refs {
            if reached.insert(reference.clone()) {
                let pointer = reference.trim_start_matches('#');
                if let Some(target) = spec.pointer(pointer) {
                    pending.push(target.clone());
                }
            }
        }
    }
    part["paths"] = Value::Object(kept);
    let prune = |section: &mut Value, prefix: &str| {
        if let Some(entries) = section.as_object_mut() {
            entries.retain(|name, _| {
                let pointer = format!("{prefix}/{}", name.replace('~', "~0").replace('/', "~1"));
                reached.contains(&pointer)
            });
        }
    };
    if let Some(definitions) = part.get_mut("definitions") {
        prune(definitions, "#/definitions");
    }
    if let Some(Value::Object(components)) = part.get_mut("components") {
        for (kind, section) in components.iter_mut() {
            if kind != "securitySchemes" {
                prune(section, &format!("#/components/{kind}"));
            }
        }
    }
    part
}

/// `spec` with every reference that closes a cycle of named schemas (`definitions`,
/// `components/schemas`) replaced by `{}`, the schema anything fits. Prism (5.14.2) dereferences
/// the whole description before it listens, and on a description whose schemas refer back to
/// themselves through other schemas (Stripe's expandable objects: a customer's invoice has a
/// customer) it never finishes. A depth-first walk from every schema cuts only the references
/// back to a schema on the walk's own path, so what is left has no cycle and every other schema
/// is exactly as written: requests are validated as the whole description would (no request
/// schema the tests use is recursive), and only answers nested past a cycle are left loose.
pub fn without_cycles(mut spec: Value) -> Value {
    let names: Vec<String> = ["/definitions", "/components/schemas"]
        .iter()
        .flat_map(|section| {
            spec.pointer(section)
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(move |schemas| {
                    schemas.keys().map(move |name| {
                        format!("#{section}/{}", name.replace('~', "~0").replace('/', "~1"))
                    })
                })
        })
        .collect();
    let mut done = std::collections::BTreeSet::new();
    for name in &names {
        visit_schema(&mut spec, name, &mut Vec::new(), &mut done);
    }
    let mut paths = spec["paths"].take();
    cut_back_references(&mut spec, &mut paths, &mut Vec::new(), &mut done);
    spec["paths"] = paths;
    spec
}

fn visit_schema(
    spec: &mut Value,
    name: &str,
    path: &mut Vec<String>,
    done: &mut std::collections::BTreeSet<String>,
) {
    if done.contains(name) {
        return;
    }
    let pointer = name.trim_start_matches('#');
    let Some(mut schema) = spec.pointer_mut(pointer).map(Value::take) else {
        return;
    };
    path.push(name.to_owned());
    cut_back_references(spec, &mut schema, path, done);
    path.pop();
    *spec
        .pointer_mut(pointer)
        .expect("the schema was just there") = schema;
    done.insert(name.to_owned());
}

fn cut_back_references(
    spec: &mut Value,
    value: &mut Value,
    path: &mut Vec<String>,
    done: &mut std::collections::BTreeSet<String>,
) {
    match value {
        Value::Object(fields) => {
            if let Some(Value::String(reference)) = fields.get("$ref") {
                let reference = reference.clone();
                let named = reference.starts_with("#/definitions/")
                    || reference.starts_with("#/components/schemas/");
                if named && path.contains(&reference) {
                    fields.clear();
                } else if named {
                    visit_schema(spec, &reference, path, done);
                }
                return;
            }
            for item in fields.values_mut() {
                cut_back_references(spec, item, path, done);
            }
        }
        Value::Array(items) => {
            for item in items {
                cut_back_references(spec, item, path, done);
            }
        }
        _ => {}
    }
}

fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            if let Some(Value::String(reference)) = fields.get("$ref") {
                into.push(reference.clone());
            }
            fields.values().for_each(|item| collect_refs(item, into));
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, into)),
        _ => {}
    }
}

impl Recorder {
    /// Starts Prism on the part of the description at `spec` that `paths` need (see [`subset`]),
    /// with the references that close a cycle cut (see [`without_cycles`]), written into
    /// `log_dir`, and the proxy in front of it.
    pub fn start_on_paths(spec: &Path, paths: &[&str], log_dir: &Path) -> Recorder {
        let text = std::fs::read_to_string(spec)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", spec.display()));
        let whole: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", spec.display()));
        let part = log_dir.join("description.json");
        std::fs::write(&part, without_cycles(subset(&whole, paths)).to_string())
            .expect("the description's part");
        Recorder::start(&part, log_dir)
    }

    /// Starts Prism on `spec` and the proxy in front of it; `log_dir` keeps Prism's log.
    pub fn start(spec: &Path, log_dir: &Path) -> Recorder {
        let prism = match std::env::var_os("MCPGEN_TEST_PRISM") {
            Some(path) if !path.is_empty() => PathBuf::from(path),
            _ => panic!(
                "MCPGEN_TEST_PRISM is not set: run the tests with `scripts/test`, which installs Prism under target/ and sets it"
            ),
        };
        let prism_port = free_port();
        let prism_log = log_dir.join("prism.log");
        let out = File::create(&prism_log).expect("a log file for Prism");
        let err = out.try_clone().expect("the log file can be shared");
        let child = Command::new(&prism)
            .arg("mock")
            .arg(spec)
            .args(["-h", "127.0.0.1", "-p", &prism_port.to_string(), "--errors"])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", prism.display()));
        let mut process = Guard(child);
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        let read_log = || std::fs::read_to_string(&prism_log).unwrap_or_default();
        while !(read_log().contains("Prism is listening") && accepts(prism_port)) {
            if let Ok(Some(status)) = process.0.try_wait() {
                panic!("Prism exited ({status}):\n{}", read_log());
            }
            assert!(
                Instant::now() < deadline,
                "Prism did not listen on 127.0.0.1:{prism_port} within {STARTUP_TIMEOUT:?}:\n{}",
                read_log()
            );
            std::thread::sleep(POLL);
        }

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime for the proxy");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("a loopback port for the proxy");
        let port = listener.local_addr().expect("a bound address").port();
        let upstream = format!("http://127.0.0.1:{prism_port}");
        let client = reqwest::Client::new();
        let recorded = Arc::clone(&requests);
        let app = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let client = client.clone();
                let upstream = upstream.clone();
                let recorded = Arc::clone(&recorded);
                async move { forward(client, upstream, recorded, method, uri, headers, body).await }
            },
        );
        runtime.spawn(async move {
            axum::serve(listener, app).await.expect("the proxy serves");
        });
        Recorder {
            _prism: process,
            prism_log,
            port,
            requests,
            runtime: Some(runtime),
        }
    }

    /// The base URL the server under test is given.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("the record is intact").clone()
    }

    /// Fails when Prism refused a request (it does not match the description) or when any query
    /// value, header or body string the API received is an unsubstituted `$name`.
    pub fn assert_clean(&self) {
        let log = std::fs::read_to_string(&self.prism_log).unwrap_or_default();
        for request in self.requests() {
            assert!(
                (200..300).contains(&request.status),
                "Prism refused {} with {} (the description does not allow it): {:#?}\nPrism's log:\n{log}",
                request.line(),
                request.status,
                request
            );
            let mut texts: Vec<&str> = Vec::new();
            texts.extend(request.query.iter().map(|(_, v)| v.as_str()));
            texts.extend(request.headers.iter().map(|(_, v)| v.as_str()));
            collect_strings(&request.body, &mut texts);
            if let Some(placeholder) = texts.into_iter().find(|text| is_placeholder(text)) {
                panic!(
                    "the API received the curation file's placeholder {placeholder:?} instead of a value in {}: {request:#?}",
                    request.line()
                );
            }
        }
    }
}

/// `$name` or `$step.path`, as written in a curation file.
pub fn is_placeholder(text: &str) -> bool {
    text.strip_prefix('$').is_some_and(|rest| {
        rest.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    })
}

fn collect_strings<'a>(value: &'a Value, into: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => into.push(text),
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, into)),
        Value::Object(fields) => fields.values().for_each(|item| collect_strings(item, into)),
        _ => {}
    }
}

async fn forward(
    client: reqwest::Client,
    upstream: String,
    recorded: Arc<Mutex<Vec<Request>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let mut request = Request {
        method: method.to_string(),
        path: uri.path().to_owned(),
        query: uri.query().map(form_pairs).unwrap_or_default(),
        headers: RECORDED_HEADERS
            .iter()
            .filter_map(|name| {
                let value = headers.get(*name)?.to_str().ok()?;
                Some(((*name).to_owned(), value.to_owned()))
            })
            .collect(),
        body: parse_body(&content_type, &body),
        status: 0,
    };
    let url = format!(
        "{upstream}{}",
        uri.path_and_query().map_or("/", |p| p.as_str())
    );
    let mut outgoing = client.request(method, url).body(body);
    for (name, value) in &headers {
        if name != "host" && name != "content-length" {
            outgoing = outgoing.header(name, value);
        }
    }
    let (status, response_headers, answer) = match outgoing.send().await {
        Ok(answer) => {
            let status = answer.status();
            let headers = answer.headers().clone();
            let bytes = answer.bytes().await.unwrap_or_default();
            (status, headers, bytes)
        }
        Err(e) => (
            StatusCode::BAD_GATEWAY,
            HeaderMap::new(),
            Bytes::from(format!("the recorder could not reach Prism: {e}")),
        ),
    };
    request.status = status.as_u16();
    recorded.lock().expect("the record is intact").push(request);
    let mut response = Response::builder().status(status);
    for (name, value) in &response_headers {
        if name != "content-length" && name != "transfer-encoding" && name != "connection" {
            response = response.header(name, value);
        }
    }
    response
        .body(Body::from(answer))
        .expect("a response from Prism's parts")
}

fn parse_body(content_type: &str, body: &[u8]) -> Value {
    if body.is_empty() {
        return Value::Null;
    }
    let text = String::from_utf8_lossy(body);
    if content_type.starts_with("application/json") {
        serde_json::from_slice(body).unwrap_or_else(|_| json!({ "raw": text }))
    } else if content_type.starts_with("application/x-www-form-urlencoded") {
        let pairs: Vec<Value> = form_pairs(&text)
            .into_iter()
            .map(|(n, v)| json!([n, v]))
            .collect();
        let mut form = Map::new();
        form.insert("form".into(), Value::Array(pairs));
        Value::Object(form)
    } else {
        json!({ "raw": text })
    }
}

/// `a=1&b=x%20y` as `[("a", "1"), ("b", "x y")]`, in order, `+` as a space.
pub fn form_pairs(text: &str) -> Vec<(String, String)> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(name), percent_decode(value))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let digits = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(digits, 16) {
                    Ok(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
