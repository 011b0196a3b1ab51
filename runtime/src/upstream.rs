//! The HTTP client for the API ([`Upstream`]): sending a built request with the server's
//! credentials, retries and limits, and turning the answer, or the failure, into a tool result.

mod client;
pub mod options;

pub use client::*;
pub use options::*;

use std::time::{Duration, SystemTime};

use serde_json::Value;

use self::client::{HttpClient, HttpSettings};
use super::credentials::{Credential, KeyLocation, sends_no_credential, unset_credentials};
use super::request::{Body, CarriedIn, Carries, Part, UpstreamRequest};
use super::tool::{ToolError, shorten};

/// The most characters of an upstream error body quoted back to the model.
const MAX_ERROR_TEXT: usize = 2_000;

/// The first pause before a request is tried again; each further try waits twice as long.
const RETRY_FIRST_DELAY: Duration = Duration::from_millis(250);

/// What replaces a credential in any text the server passes on.
const REDACTED: &str = "<redacted>";

/// The HTTP client for the upstream API.
pub struct Upstream {
    http: HttpClient,
    base_url: reqwest::Url,
    credentials: Vec<Credential>,
    options: UpstreamOptions,
}

impl Upstream {
    /// A client for the API at `base_url` that sends `credentials` with every request, with the
    /// timeouts, answer size limit and retries of `options`.
    pub fn new(
        base_url: &str,
        credentials: Vec<Credential>,
        options: UpstreamOptions,
    ) -> anyhow::Result<Self> {
        let mut base_url = reqwest::Url::parse(base_url)
            .map_err(|error| anyhow::anyhow!("invalid base URL {base_url:?}: {error}"))?;
        if base_url.cannot_be_a_base() {
            anyhow::bail!("invalid base URL {base_url}: it cannot have a path");
        }
        // Paths are appended segment by segment; a trailing slash would leave an empty one.
        if base_url.path().ends_with('/') {
            let trimmed = base_url.path().trim_end_matches('/').to_string();
            base_url.set_path(&trimmed);
        }
        // Where an operation's own server is said to be must be a whole URL: a word joined to
        // the base URL would send the credentials to a path nobody named.
        for route in &options.servers {
            if let Some(configured) = &route.configured {
                match reqwest::Url::parse(configured.trim()) {
                    Ok(url) if !url.cannot_be_a_base() && url.has_host() => {}
                    _ => anyhow::bail!(
                        "{} is {configured:?}, which is no URL: give the whole URL of the server that serves those operations (such as {})",
                        route.env,
                        route.spec
                    ),
                }
            }
        }
        let http = HttpClient::new(HttpSettings {
            base_url: base_url.clone(),
            connect_timeout: options.api_connect_timeout,
            timeout: options.api_timeout,
        });
        Ok(Self {
            http,
            base_url,
            credentials,
            options,
        })
    }

    /// The most pages of a list one call may walk (`--api-max-pages`).
    pub fn max_pages(&self) -> usize {
        usize::try_from(self.options.api_max_pages).unwrap_or(usize::MAX)
    }

    /// [`Upstream::request`] for an operation served at `server` (its own server in the API
    /// description): an absolute URL, or one relative to the base URL. A server that is no valid
    /// URL makes the request fail with a message, unsent.
    pub fn request_on(
        &self,
        server: &str,
        method: reqwest::Method,
        operation: &'static str,
        segments: &[&str],
    ) -> UpstreamRequest {
        let mut request = self.request(method, operation, segments);
        let route = self
            .options
            .servers
            .iter()
            .find(|route| route.spec == server);
        let server = match route {
            Some(ServerRoute {
                configured: Some(configured),
                ..
            }) => configured.trim(),
            Some(route) if self.options.base_url_changed => {
                request.problem = Some(format!(
                    "the API serves this operation at {server}, not at the base URL; with the base URL set to {}, the server calls that host only where {} says (set it to {server} to call the API's own)",
                    self.base_url, route.env
                ));
                return request;
            }
            _ => server,
        };
        match self.base_url.join(server) {
            Ok(mut url) => {
                if let Ok(mut path) = url.path_segments_mut() {
                    path.pop_if_empty();
                    path.extend(segments);
                }
                request.url = url;
            }
            Err(error) => {
                request.problem = Some(format!(
                    "the API's server {server:?} for this operation is not a valid URL ({error})"
                ));
            }
        }
        request
    }

    /// Starts a request to the operation `operation` (`"GET /pets/{id}"`, for messages) at the
    /// path made of `segments`, each percent-encoded as one path segment.
    pub fn request(
        &self,
        method: reqwest::Method,
        operation: &'static str,
        segments: &[&str],
    ) -> UpstreamRequest {
        let mut url = self.base_url.clone();
        // An empty segment, `.` or `..` would address another resource (`/issues/` instead of
        // `/issues/{id}`, or a parent path): such a path parameter is refused, not sent.
        let invalid = segments
            .iter()
            .find(|segment| matches!(**segment, "" | "." | ".."))
            .map(|segment| {
                format!(
                    "Invalid arguments for {operation}: a path parameter cannot be {segment:?}; give the identifier itself."
                )
            });
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            path.extend(segments);
        }
        UpstreamRequest {
            method,
            operation,
            url,
            query: Vec::new(),
            headers: Vec::new(),
            cookies: Vec::new(),
            body: Body::None,
            problem: None,
            invalid,
            carried: Vec::new(),
        }
    }

    /// The value of the credential a parameter carries, when the server has it.
    async fn credential_value(&self, carries: Carries) -> Result<Option<String>, ToolError> {
        for credential in &self.credentials {
            match (carries, credential) {
                (Carries::Bearer, Credential::Bearer(token)) => return Ok(Some(token.clone())),
                (Carries::Bearer, Credential::Fetched(source)) => {
                    return source.token().await.map(Some);
                }
                (Carries::ApiKey(wanted), Credential::ApiKey { name, value, .. })
                    if *name == wanted =>
                {
                    return Ok(Some(value.clone()));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// Sends `request` with the server's credentials and returns the response body as JSON
    /// (a non-JSON body as a string, an empty one as `null`).
    pub async fn send(&self, request: UpstreamRequest) -> Result<Value, ToolError> {
        self.exchange(request).await.map(|(body, _)| body)
    }

    /// Like [`Upstream::send`], and also returns the response's `Link` header, for APIs that
    /// page with `Link: <…>; rel="next"`.
    pub async fn send_with_link(
        &self,
        request: UpstreamRequest,
    ) -> Result<(Value, Option<String>), ToolError> {
        self.exchange(request).await
    }

    /// One call of an operation: the request refused as it stands, or sent (with retries where
    /// they are safe) and its answer read.
    async fn exchange(
        &self,
        request: UpstreamRequest,
    ) -> Result<(Value, Option<String>), ToolError> {
        let operation = request.operation;
        if let Some(invalid) = request.invalid {
            return Err(ToolError::InvalidArguments(invalid));
        }
        // Found while building the request (a next-page link to another site, a server URL
        // that is none): the same each time, so not worth another call.
        if let Some(problem) = request.problem {
            return Err(ToolError::Answer(format!(
                "Could not complete {operation}: {problem}. Calling again will not help; tell the user."
            )));
        }
        // A request that may have changed something once the API accepted it.
        let writes = !matches!(
            request.method,
            reqwest::Method::GET | reqwest::Method::HEAD | reqwest::Method::OPTIONS
        );
        let http = self.http.get(operation).await?;
        let (prepared, secrets) = self.prepare(http, request).await?;
        let response = self.deliver(http, prepared, operation).await?;
        self.answer(response, operation, writes, &secrets).await
    }

    /// The request as it goes out: `request` with the server's credentials, and the values its
    /// parameters carry from them, in their places. Also every credential value sent, to be
    /// blotted out of anything the API says back.
    async fn prepare(
        &self,
        http: &reqwest::Client,
        request: UpstreamRequest,
    ) -> Result<(reqwest::Request, Vec<String>), ToolError> {
        let operation = request.operation;
        let mut builder = http.request(request.method, request.url);
        let mut query = request.query;
        let mut cookies = request.cookies;
        let mut headers = request.headers;
        let mut body = request.body;
        let mut secrets: Vec<String> = Vec::new();
        for credential in &self.credentials {
            match credential {
                Credential::Bearer(token) => builder = builder.bearer_auth(token),
                Credential::Fetched(source) => builder = builder.bearer_auth(source.token().await?),
                Credential::Basic { username, password } => {
                    secrets.extend(password.iter().cloned());
                    builder = builder.basic_auth(username, password.as_ref())
                }
                Credential::ApiKey {
                    location,
                    name,
                    value,
                } => {
                    secrets.push(value.clone());
                    match location {
                        KeyLocation::Header => builder = builder.header(*name, value),
                        KeyLocation::Query => query.push((name.to_string(), value.clone())),
                        KeyLocation::Cookie => cookies.push((*name, value.clone())),
                    }
                }
                Credential::Unset(_) => {}
            }
        }
        for (place, name, carries) in request.carried {
            let Some(value) = self.credential_value(carries).await? else {
                continue;
            };
            secrets.push(value.clone());
            match place {
                CarriedIn::Query => query.push((name.to_string(), value)),
                CarriedIn::Header => headers.push((name, value)),
                CarriedIn::Cookie => cookies.push((name, value)),
                body_place => carry_in_body(&mut body, body_place, name, value),
            }
        }
        if !query.is_empty() {
            builder = builder.query(&query);
        }
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        if !cookies.is_empty() {
            let cookie: Vec<String> = cookies
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            builder = builder.header(reqwest::header::COOKIE, cookie.join("; "));
        }
        let prepared = with_body(builder, body)
            .build()
            .map_err(|_| ToolError::Transport {
                operation,
                message: "the request to the API could not be built".to_string(),
            })?;
        // The Authorization header as sent: a bearer token, or user and password in base64.
        if let Some((_, credential)) = prepared
            .headers()
            .get(reqwest::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
        {
            secrets.push(credential.to_string());
        }
        Ok((prepared, secrets))
    }

    /// Sends `prepared` and returns the API's response, trying again while that is safe and
    /// worth it: a connection that failed, or an answer of 429 or 5xx, for a method that leaves
    /// the API in the same state however often it arrives, within the server's retry limits.
    async fn deliver(
        &self,
        http: &reqwest::Client,
        prepared: reqwest::Request,
        operation: &'static str,
    ) -> Result<reqwest::Response, ToolError> {
        let idempotent = matches!(
            *prepared.method(),
            reqwest::Method::GET
                | reqwest::Method::HEAD
                | reqwest::Method::PUT
                | reqwest::Method::DELETE
                | reqwest::Method::OPTIONS
        );
        let mut waited = Duration::ZERO;
        let mut tries: u32 = 0;
        let mut next = Some(prepared);
        loop {
            tries += 1;
            let Some(attempt) = next.take() else {
                return Err(ToolError::Transport {
                    operation,
                    message: "the request to the API could not be repeated".to_string(),
                });
            };
            // A copy is kept for a retry; a multipart body is a stream that cannot be copied, so
            // such a request is sent once.
            if idempotent && tries <= self.options.api_retries {
                next = attempt.try_clone();
            }
            let retries_left = next.is_some();
            let response = match http.execute(attempt).await {
                Ok(response) => response,
                Err(error) => {
                    // A certificate the server does not trust is refused the same way each
                    // time: it is not tried again, and the model is told a retry will not help.
                    if let Some(cause) = tls_failure(&error) {
                        return Err(ToolError::Answer(format!(
                            "Could not complete {operation}: the API at {} could not be reached securely ({cause}). The user must check the server's base URL, and if the API's certificate is signed by a private authority, name that authority's root certificate in SSL_CERT_FILE (or a folder of them in SSL_CERT_DIR) in the server's environment and start the server again; calling again will not help.",
                            self.base_url.origin().ascii_serialization()
                        )));
                    }
                    let delay = backoff(tries);
                    if error.is_connect()
                        && retries_left
                        && waited + delay <= self.options.api_max_retry_wait
                    {
                        waited += delay;
                        tokio::time::sleep(delay).await;
                        continue;
                    }
                    return Err(ToolError::Transport {
                        operation,
                        message: self.describe_transport_error(&error, tries),
                    });
                }
            };
            let status = response.status();
            if retries_left
                && (status == reqwest::StatusCode::TOO_MANY_REQUESTS || status.is_server_error())
            {
                let delay = retry_after(response.headers()).unwrap_or_else(|| backoff(tries));
                if waited + delay <= self.options.api_max_retry_wait {
                    waited += delay;
                    drop(response);
                    tokio::time::sleep(delay).await;
                    continue;
                }
            }
            return Ok(response);
        }
    }

    /// What the API's `response` to `operation` means for the model: its body as JSON and its
    /// `Link` header, or the error to tell (credentials to set, a failure status, JSON that is
    /// not), with the credentials sent (`secrets`) blotted out of whatever the API says.
    async fn answer(
        &self,
        response: reqwest::Response,
        operation: &'static str,
        writes: bool,
        secrets: &[String],
    ) -> Result<(Value, Option<String>), ToolError> {
        let scrub = |text: String| redact(text, secrets);
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let link = response
            .headers()
            .get(reqwest::header::LINK)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        let claims_json = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| {
                let media = value.split(';').next().unwrap_or("").trim();
                media.eq_ignore_ascii_case("application/json") || media.ends_with("+json")
            });
        let bytes = self
            .read_limited(response, operation)
            .await
            .map_err(|error| match error {
                ToolError::Transport { operation, message } => ToolError::Transport {
                    operation,
                    message: scrub(message),
                },
                other => other,
            })?;
        let body = parse_body(&bytes);
        // Refused while some of the server's credentials are unset: which to set is the
        // whole answer.
        if matches!(status.as_u16(), 401 | 403)
            && let Some(unset) = unset_credentials(&self.credentials)
        {
            return Err(ToolError::Answer(no_credential_refusal(
                operation,
                status,
                &scrub(error_message(&body)),
                &unset,
                sends_no_credential(&self.credentials),
            )));
        }
        if !status.is_success() {
            return Err(ToolError::Status {
                operation,
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or(""),
                message: scrub(error_message(&body)),
                retry_after: retry_after.map(|delay| delay.as_secs_f64().ceil() as u64),
            });
        }
        // A JSON string is JSON; only a body that does not parse is not.
        if claims_json
            && matches!(body, Value::String(_))
            && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_err()
        {
            let text = scrub(shorten(&String::from_utf8_lossy(&bytes), 200));
            return Err(ToolError::Answer(if writes {
                format!(
                    "The API accepted {operation} (HTTP {}), but its answer says it is JSON and is not ({text}). The change was most likely made: do not call again; tell the user to check it.",
                    status.as_u16()
                )
            } else {
                format!(
                    "The API's answer to {operation} says it is JSON but is not ({text}). The API may be failing; try again later, and if it persists tell the user."
                )
            }));
        }
        Ok((body, link))
    }

    fn describe_transport_error(&self, error: &reqwest::Error, tries: u32) -> String {
        let after = if tries > 1 {
            format!(" after {tries} tries")
        } else {
            String::new()
        };
        if error.is_timeout() {
            format!(
                "the API did not answer within {}{after}",
                seconds(self.options.api_timeout)
            )
        } else if error.is_connect() {
            // The host tried: the base URL's, or an operation's own server's.
            let url = error.url().unwrap_or(&self.base_url);
            format!(
                "the API at {} is not reachable (the connection failed{after}); if this persists, the user must check that the API is up and the server's base URL",
                url.origin().ascii_serialization()
            )
        } else {
            "the request to the API failed".to_string()
        }
    }

    /// The body of `response`, refused when it is larger than the server reads. A body that
    /// says its size is refused before any of it is read.
    async fn read_limited(
        &self,
        mut response: reqwest::Response,
        operation: &'static str,
    ) -> Result<Vec<u8>, ToolError> {
        let limit = self.options.api_max_response_bytes;
        let too_large = || {
            ToolError::Answer(format!(
                "The API's answer to {operation} is larger than the {} bytes this server reads, so it was not read. Ask for less: a smaller page, a narrower filter or fewer fields.",
                limit
            ))
        };
        if response
            .content_length()
            .is_some_and(|length| length > limit as u64)
        {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if bytes.len() + chunk.len() > limit {
                        return Err(too_large());
                    }
                    bytes.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(bytes),
                Err(error) => {
                    return Err(ToolError::Transport {
                        operation,
                        message: if error.is_timeout() {
                            format!(
                                "the API did not finish its answer within {}",
                                seconds(self.options.api_timeout)
                            )
                        } else {
                            "the API's answer was cut off".to_string()
                        },
                    });
                }
            }
        }
    }
}

/// Puts a credential's `value`, which an operation's body carries under `name`, into `body`
/// (`place` is a form field, a JSON property or a multipart text part); a body of another kind,
/// or none, becomes one of that kind holding it.
fn carry_in_body(body: &mut Body, place: CarriedIn, name: &str, value: String) {
    match place {
        CarriedIn::Form => match body {
            Body::Form(fields) => fields.push((name.to_string(), value)),
            _ => *body = Body::Form(vec![(name.to_string(), value)]),
        },
        CarriedIn::Json => match body {
            Body::Json(Value::Object(object)) => {
                object.insert(name.to_string(), Value::String(value));
            }
            _ => {
                let mut object = serde_json::Map::new();
                object.insert(name.to_string(), Value::String(value));
                *body = Body::Json(Value::Object(object));
            }
        },
        CarriedIn::Multipart => match body {
            Body::Multipart(parts) => parts.push((name.to_string(), Part::Text(value))),
            _ => *body = Body::Multipart(vec![(name.to_string(), Part::Text(value))]),
        },
        CarriedIn::Query | CarriedIn::Header | CarriedIn::Cookie => {
            unreachable!("{place:?} is not a place in the body")
        }
    }
}

/// `builder` with `body` as the request's body, in its encoding.
fn with_body(builder: reqwest::RequestBuilder, body: Body) -> reqwest::RequestBuilder {
    match body {
        Body::None => builder,
        Body::Json(value) => builder.json(&value),
        Body::Form(fields) => builder.form(&fields),
        Body::Text { content_type, text } => builder
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(text),
        Body::Multipart(parts) => {
            let mut form = reqwest::multipart::Form::new();
            for (name, part) in parts {
                form = match part {
                    Part::Text(text) => form.text(name, text),
                    Part::File {
                        bytes,
                        filename,
                        content_type,
                    } => {
                        let file = reqwest::multipart::Part::bytes(bytes).file_name(filename);
                        // The media type was checked when the argument was read.
                        match file.mime_str(&content_type) {
                            Ok(file) => form.part(name, file),
                            Err(_) => form,
                        }
                    }
                };
            }
            builder.multipart(form)
        }
    }
}

/// A duration for people: `1 second`, `2.5 seconds`.
pub(super) fn seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds == 1.0 {
        "1 second".to_string()
    } else {
        format!("{seconds} seconds")
    }
}

/// What went wrong in the TLS handshake with the API (an untrusted or expired certificate, a
/// name it is not for), when that is why `error`'s connection failed.
fn tls_failure(error: &reqwest::Error) -> Option<String> {
    let mut source = std::error::Error::source(error);
    while let Some(mut cause) = source {
        // An `io::Error`'s own `source` skips the error it wraps, and hyper wraps rustls's error
        // in two of them: each is opened with `get_ref`.
        while let Some(inner) = cause
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            cause = inner;
        }
        if let Some(tls) = cause.downcast_ref::<rustls::Error>() {
            return Some(match tls {
                rustls::Error::InvalidCertificate(_) => {
                    format!("its TLS certificate is not accepted: {tls}")
                }
                _ => format!("the TLS handshake failed: {tls}"),
            });
        }
        source = cause.source();
    }
    None
}

/// The pause before try number `tries + 1`: 250 ms, then 500 ms, 1 s, ….
pub(super) fn backoff(tries: u32) -> Duration {
    RETRY_FIRST_DELAY.saturating_mul(1 << tries.saturating_sub(1).min(10))
}

/// How long a `Retry-After` header asks callers to wait: a number of seconds or an HTTP date.
pub(super) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(text).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// What a model reads when the API refuses a call (401 or 403) that went without credentials
/// because none were set: that, and which variables the user must set.
pub(super) fn no_credential_refusal(
    operation: &str,
    status: reqwest::StatusCode,
    message: &str,
    unset: &str,
    none_sent: bool,
) -> String {
    let mut text = format!(
        "The API rejected {operation} with HTTP {} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    if !message.is_empty() {
        text.push_str(": ");
        text.push_str(message.trim_end_matches('.'));
    }
    let sent = if none_sent {
        "The server sent no credentials, since none are set"
    } else {
        "The server sent only some of its credentials, since the others are not set"
    };
    text.push_str(&format!(
        ". {sent}; the user must set {unset} in the server's environment (or the same name with \
         `_FILE` added, naming a file that holds the value) and start the server again."
    ));
    text
}

/// `text` with every credential in `secrets` replaced by `<redacted>`.
pub(super) fn redact(mut text: String, secrets: &[String]) -> String {
    for secret in secrets {
        // A value this short would blot out ordinary words; no real credential is.
        if secret.len() >= 4 && text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), REDACTED);
        }
    }
    text
}

fn parse_body(bytes: &[u8]) -> Value {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Value::Null;
    }
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// The API's own explanation from an error body: `message`, `error.message`, `detail`, `title`
/// or `error` when it is text, or the body itself, shortened.
fn error_message(body: &Value) -> String {
    let candidates = [
        body.pointer("/message"),
        body.pointer("/error/message"),
        body.pointer("/detail"),
        body.pointer("/title"),
        body.pointer("/error"),
    ];
    let text = candidates
        .into_iter()
        .flatten()
        .find_map(|value| value.as_str().map(str::to_string))
        .unwrap_or_else(|| match body {
            Value::Null => String::new(),
            Value::String(text) => text.clone(),
            other => other.to_string(),
        });
    shorten(text.trim(), MAX_ERROR_TEXT)
}

#[cfg(test)]
mod tests {
    use super::super::tests::upstream;
    use super::*;

    #[tokio::test]
    async fn path_parameters_that_would_climb_or_vanish_are_refused_before_sending() {
        for segment in ["", ".", ".."] {
            let request = upstream().request(
                reqwest::Method::DELETE,
                "DELETE /issues/{id}",
                &["issues", segment],
            );
            let error = upstream().send(request).await.expect_err("refused");
            assert!(
                matches!(&error, ToolError::InvalidArguments(text) if text.contains("path parameter cannot be")),
                "{segment:?}: {error:?}"
            );
        }
    }

    #[test]
    fn an_operation_with_its_own_server_is_called_there() {
        let request = upstream().request_on(
            "https://uploads.example/v1",
            reqwest::Method::POST,
            "POST /files/{name}",
            &["files", "a b"],
        );
        assert_eq!(
            request.url.as_str(),
            "https://uploads.example/v1/files/a%20b"
        );
        let request =
            upstream().request_on("/other", reqwest::Method::GET, "GET /files", &["files"]);
        assert_eq!(
            request.url.as_str(),
            "http://127.0.0.1:9/other/files",
            "relative to the base URL"
        );
    }

    #[test]
    fn an_operations_own_server_is_called_where_its_variable_says_and_never_after_the_base_url_changed()
     {
        let route = |configured: Option<&str>| ServerRoute {
            spec: "https://uploads.example/v1",
            env: "NOTES_UPLOADS_EXAMPLE_URL",
            configured: configured.map(str::to_string),
        };
        let with = |routes: Vec<ServerRoute>, changed: bool| {
            let options = UpstreamOptions {
                servers: routes,
                base_url_changed: changed,
                ..UpstreamOptions::default()
            };
            Upstream::new("http://127.0.0.1:9", Vec::new(), options)
                .expect("a client")
                .request_on(
                    "https://uploads.example/v1",
                    reqwest::Method::POST,
                    "POST /files",
                    &["files"],
                )
        };
        // The description's base URL: the API's own upload host.
        let request = with(vec![route(None)], false);
        assert_eq!(request.url.as_str(), "https://uploads.example/v1/files");
        assert!(request.problem.is_none());
        // Where the variable says, whatever the base URL.
        let request = with(vec![route(Some("http://127.0.0.1:7/up"))], true);
        assert_eq!(request.url.as_str(), "http://127.0.0.1:7/up/files");
        // A variable that is no URL stops the server at start.
        let options = UpstreamOptions {
            servers: vec![route(Some("notaurl"))],
            ..UpstreamOptions::default()
        };
        let error = Upstream::new("http://127.0.0.1:9", Vec::new(), options)
            .err()
            .expect("refused");
        assert!(
            error
                .to_string()
                .starts_with("NOTES_UPLOADS_EXAMPLE_URL is \"notaurl\", which is no URL"),
            "{error}"
        );
        // Base URL changed, variable unset: not sent, and the message names the variable.
        let request = with(vec![route(None)], true);
        let problem = request.problem.expect("not sent");
        assert!(
            problem.contains("NOTES_UPLOADS_EXAMPLE_URL")
                && problem.contains("https://uploads.example/v1"),
            "{problem}"
        );
    }

    #[test]
    fn retries_back_off_and_read_retry_after_in_seconds_or_as_a_date() {
        assert_eq!(backoff(1), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_millis(500));
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::RETRY_AFTER,
            "7".parse().expect("a header value"),
        );
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        headers.insert(
            reqwest::header::RETRY_AFTER,
            later.parse().expect("a header value"),
        );
        let wait = retry_after(&headers).expect("a date is read");
        assert!(
            wait > Duration::from_secs(27) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        headers.insert(
            reqwest::header::RETRY_AFTER,
            "soon".parse().expect("a header value"),
        );
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn credentials_are_blotted_out_of_text_from_the_api() {
        let secrets = vec!["s3cr3t-token".to_string(), "abc".to_string()];
        assert_eq!(
            redact("bad token s3cr3t-token for abc".to_string(), &secrets),
            "bad token <redacted> for abc"
        );
    }

    #[test]
    fn a_refusal_with_some_credentials_unset_names_the_ones_to_set() {
        let text = no_credential_refusal(
            "GET /cards",
            reqwest::StatusCode::UNAUTHORIZED,
            "invalid token",
            "TRELLO_TOKEN",
            false,
        );
        assert_eq!(
            text,
            "The API rejected GET /cards with HTTP 401 Unauthorized: invalid token. The server sent only some of its credentials, since the others are not set; the user must set TRELLO_TOKEN in the server's environment (or the same name with `_FILE` added, naming a file that holds the value) and start the server again."
        );
    }
}
