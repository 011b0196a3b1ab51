//! An OAuth2 client-credentials token source ([`ClientCredentials`]): the access token the
//! server sends to an API that takes one, fetched, cached and refreshed before it expires.

use std::fmt;
use std::future::Future;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::Mutex;

use super::super::ToolError;
use super::super::tool::shorten;

/// How long before its expiry an OAuth2 access token is replaced.
const TOKEN_REFRESH_MARGIN: Duration = Duration::from_secs(60);
/// How long an OAuth2 access token is used when the token endpoint does not say.
const TOKEN_DEFAULT_LIFETIME: Duration = Duration::from_secs(5 * 60);
/// The longest an OAuth2 access token is used, whatever the token endpoint says.
const TOKEN_MAX_LIFETIME_SECS: f64 = 24.0 * 60.0 * 60.0;
/// The most characters of a token endpoint's error description quoted back.
const MAX_TOKEN_ERROR_TEXT: usize = 300;

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// An access token and when to replace it.
struct CachedToken {
    access_token: String,
    refresh_at: Instant,
}

/// Fetches and caches an access token with the client-credentials grant; refreshes it 60 s
/// before it expires (or after 5 min when the token response has no `expires_in`).
pub struct ClientCredentials {
    token_url: String,
    client_id: String,
    client_secret: String,
    scopes: Vec<String>,
    /// Built on the first token request, so that reading the system's root certificates does
    /// not delay the server's start; `None` when it could not be built, reported by
    /// [`ClientCredentials::token`].
    http: std::sync::OnceLock<Option<reqwest::Client>>,
    /// Held across a fetch, so that concurrent calls share one token request.
    cached: Mutex<Option<CachedToken>>,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("token_url", &self.token_url)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    pub fn new(
        token_url: &str,
        client_id: String,
        client_secret: String,
        scopes: Vec<String>,
    ) -> Self {
        Self {
            token_url: token_url.to_string(),
            client_id,
            client_secret,
            scopes,
            http: std::sync::OnceLock::new(),
            cached: Mutex::new(None),
        }
    }

    fn http(&self) -> Option<&reqwest::Client> {
        self.http
            .get_or_init(|| {
                // No redirects: a 307 would send the client secret on to wherever it points.
                super::super::client_builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .connect_timeout(Duration::from_secs(10))
                    .timeout(Duration::from_secs(30))
                    .user_agent(concat!(
                        env!("CARGO_PKG_NAME"),
                        "/",
                        env!("CARGO_PKG_VERSION")
                    ))
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// A valid access token: the cached one, or a new one from the token endpoint (form POST of
    /// `grant_type=client_credentials`, `client_id`, `client_secret` and, when there are scopes,
    /// `scope`). Error texts never contain the secret.
    pub async fn token(&self) -> Result<String, ToolError> {
        let mut cached = self.cached.lock().await;
        if let Some(token) = cached.as_ref()
            && Instant::now() < token.refresh_at
        {
            return Ok(token.access_token.clone());
        }
        let token = self.fetch().await?;
        let access_token = token.access_token.clone();
        *cached = Some(token);
        Ok(access_token)
    }

    async fn fetch(&self) -> Result<CachedToken, ToolError> {
        let Some(http) = self.http() else {
            return Err(self.unreachable("the server could not create an HTTP client"));
        };
        let scope = self.scopes.join(" ");
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("client_id", self.client_id.as_str()),
            ("client_secret", self.client_secret.as_str()),
        ];
        if !scope.is_empty() {
            form.push(("scope", scope.as_str()));
        }
        let response = http
            .post(&self.token_url)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await
            // The error's own text may quote the request; only its kind is reported.
            .map_err(|error| {
                self.unreachable(if error.is_timeout() {
                    "it did not answer in time"
                } else if error.is_builder() {
                    "its URL is invalid"
                } else {
                    "it is unreachable"
                })
            })?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|_| self.unreachable("its answer was cut off"))?;
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(self.refused(status, &body));
        }
        let access_token = body
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|token| !token.is_empty())
            .ok_or_else(|| {
                ToolError::InvalidArguments(format!(
                    "The OAuth2 token endpoint {} answered without an access_token. The user must check the server's OAuth2 token URL.",
                    self.token_url
                ))
            })?;
        let lifetime = match body.get("expires_in").and_then(seconds) {
            Some(seconds) => Duration::from_secs_f64(seconds).saturating_sub(TOKEN_REFRESH_MARGIN),
            None => TOKEN_DEFAULT_LIFETIME,
        };
        let now = Instant::now();
        Ok(CachedToken {
            access_token: access_token.to_string(),
            refresh_at: now.checked_add(lifetime).unwrap_or(now),
        })
    }

    fn unreachable(&self, why: &str) -> ToolError {
        ToolError::InvalidArguments(format!(
            "Could not get an access token for the API: the OAuth2 token endpoint {} failed ({why}). Try again later; if this persists, the user must check the server's OAuth2 token URL.",
            self.token_url
        ))
    }

    /// The error for a token endpoint that answered with an error status, quoting the
    /// standard `error` and `error_description` fields with any echo of the secret removed.
    fn refused(&self, status: reqwest::StatusCode, body: &Value) -> ToolError {
        let detail: Vec<&str> = ["error", "error_description"]
            .iter()
            .filter_map(|field| body.get(*field).and_then(Value::as_str))
            .filter(|text| !text.is_empty())
            .collect();
        // Redact before shortening: a cut through the secret would leave its start readable.
        let mut detail = detail.join(": ");
        if !self.client_secret.is_empty() {
            detail = detail.replace(&self.client_secret, "<redacted>");
        }
        let detail = shorten(&detail, MAX_TOKEN_ERROR_TEXT);
        let status_text = match status.canonical_reason() {
            Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
            None => format!("HTTP {}", status.as_u16()),
        };
        let quoted = if detail.is_empty() {
            status_text
        } else {
            format!("{status_text}: {detail}")
        };
        ToolError::InvalidArguments(if status.is_server_error() {
            format!(
                "Could not get an access token for the API: the OAuth2 token endpoint failed ({quoted}). Try again later."
            )
        } else {
            format!(
                "The server's OAuth2 credentials were refused by the token endpoint ({quoted}); the user must fix the server's OAuth2 client configuration."
            )
        })
    }
}

/// A token lifetime in seconds from `expires_in`, which some servers send as a string; capped
/// so that no answer can push the refresh out of reach.
fn seconds(value: &Value) -> Option<f64> {
    let seconds = match value {
        Value::Number(number) => number.as_f64()?,
        Value::String(text) => text.trim().parse().ok()?,
        _ => return None,
    };
    (seconds.is_finite() && seconds >= 0.0).then(|| seconds.min(TOKEN_MAX_LIFETIME_SECS))
}

// ---------------------------------------------------------------------------------------------
// Workflow helpers: the small pieces generated tool code is made of.
// ---------------------------------------------------------------------------------------------

impl super::super::TokenSource for ClientCredentials {
    fn token(
        &self,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + '_>> {
        Box::pin(ClientCredentials::token(self))
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn text(error: ToolError) -> String {
        match error {
            ToolError::InvalidArguments(text) => text,
            ToolError::NotFound(not_found) => not_found.to_string(),
            ToolError::Answer(text) => text,
            other => panic!("expected InvalidArguments, NotFound or Answer, got {other:?}"),
        }
    }

    #[test]
    fn token_futures_are_send() {
        fn assert_send<T: Send>(_: &T) {}
        let credentials =
            ClientCredentials::new("http://127.0.0.1:9/token", "id".into(), "s".into(), vec![]);
        assert_send(&credentials.token());
    }

    /// A token endpoint on 127.0.0.1 answering every POST to `/token` with `status` and `body`;
    /// returns its URL, the number of POSTs and the last form body received.
    async fn token_endpoint(
        status: u16,
        body: Value,
    ) -> (String, Arc<AtomicUsize>, Arc<std::sync::Mutex<String>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let address = listener.local_addr().expect("has an address");
        let posts = Arc::new(AtomicUsize::new(0));
        let last_form = Arc::new(std::sync::Mutex::new(String::new()));
        let (counter, form_seen) = (Arc::clone(&posts), Arc::clone(&last_form));
        let app = axum::Router::new().route(
            "/token",
            axum::routing::post(move |form: String| {
                let issued = counter.fetch_add(1, Ordering::SeqCst) + 1;
                *form_seen.lock().expect("not poisoned") = form;
                let mut body = body.clone();
                if body.get("access_token").is_some() {
                    body["access_token"] = json!(format!("token-{issued}"));
                }
                async move {
                    (
                        axum::http::StatusCode::from_u16(status).expect("a status"),
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        body.to_string(),
                    )
                }
            }),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (format!("http://{address}/token"), posts, last_form)
    }

    fn credentials(url: &str, scopes: &[&str]) -> ClientCredentials {
        ClientCredentials::new(
            url,
            "my-client".to_string(),
            "s3cr3t-value".to_string(),
            scopes.iter().map(|scope| scope.to_string()).collect(),
        )
    }

    #[tokio::test]
    async fn a_token_is_fetched_once_and_cached() {
        let (url, posts, form) = token_endpoint(
            200,
            json!({"access_token": "", "token_type": "Bearer", "expires_in": 3600}),
        )
        .await;
        let source = credentials(&url, &["read", "write"]);
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(posts.load(Ordering::SeqCst), 1);
        let form = form.lock().expect("not poisoned").clone();
        let mut fields: Vec<&str> = form.split('&').collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            [
                "client_id=my-client",
                "client_secret=s3cr3t-value",
                "grant_type=client_credentials",
                "scope=read+write",
            ]
        );
    }

    #[tokio::test]
    async fn no_scope_is_sent_without_scopes() {
        let (url, _, form) = token_endpoint(200, json!({"access_token": ""})).await;
        let source = credentials(&url, &[]);
        source.token().await.expect("a token");
        assert!(!form.lock().expect("not poisoned").contains("scope"));
    }

    #[tokio::test]
    async fn a_token_about_to_expire_is_refreshed() {
        // 60 s is within the refresh margin, so the token is stale as soon as it arrives.
        let (url, posts, _) =
            token_endpoint(200, json!({"access_token": "", "expires_in": 60})).await;
        let source = credentials(&url, &[]);
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(source.token().await.expect("a token"), "token-2");
        assert_eq!(posts.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_short_lived_token_is_used_then_replaced_before_it_expires() {
        // Valid for 61 s: usable for the 1 s before the 60 s refresh margin begins.
        let (url, posts, _) =
            token_endpoint(200, json!({"access_token": "", "expires_in": 61})).await;
        let source = credentials(&url, &[]);
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(source.token().await.expect("a token"), "token-1");
        assert_eq!(
            posts.load(Ordering::SeqCst),
            1,
            "the fresh token was reused"
        );
        tokio::time::sleep(Duration::from_millis(1_100)).await;
        // token-1 is valid for another 59 s, yet it is replaced now.
        assert_eq!(source.token().await.expect("a token"), "token-2");
        assert_eq!(posts.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_token_without_expires_in_is_kept() {
        let (url, posts, _) = token_endpoint(200, json!({"access_token": ""})).await;
        let source = credentials(&url, &[]);
        source.token().await.expect("a token");
        source.token().await.expect("a token");
        assert_eq!(posts.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn refused_credentials_are_reported_without_the_secret() {
        let (url, _, _) = token_endpoint(
            401,
            json!({"error": "invalid_client", "error_description": "bad secret s3cr3t-value"}),
        )
        .await;
        let source = credentials(&url, &[]);
        let error = text(source.token().await.expect_err("refused"));
        assert!(!error.contains("s3cr3t-value"), "{error}");
        assert_eq!(
            error,
            "The server's OAuth2 credentials were refused by the token endpoint (HTTP 401 Unauthorized: invalid_client: bad secret <redacted>); the user must fix the server's OAuth2 client configuration."
        );
    }

    #[tokio::test]
    async fn an_answer_without_a_token_is_an_error() {
        let (url, _, _) = token_endpoint(200, json!({"token_type": "Bearer"})).await;
        let source = credentials(&url, &[]);
        let error = text(source.token().await.expect_err("no token"));
        assert!(error.contains("without an access_token"), "{error}");
    }

    #[tokio::test]
    async fn an_unreachable_token_endpoint_is_reported_without_the_secret() {
        // A port that was just free: nothing listens there any more.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let address = listener.local_addr().expect("has an address");
        drop(listener);
        let url = format!("http://{address}/token");
        let source = credentials(&url, &[]);
        let error = text(source.token().await.expect_err("unreachable"));
        assert!(!error.contains("s3cr3t-value"), "{error}");
        assert_eq!(
            error,
            format!(
                "Could not get an access token for the API: the OAuth2 token endpoint {url} failed (it is unreachable). Try again later; if this persists, the user must check the server's OAuth2 token URL."
            )
        );
        assert!(!format!("{source:?}").contains("s3cr3t-value"));
    }

    #[test]
    fn token_lifetimes_are_read_leniently_and_capped() {
        assert_eq!(seconds(&json!(3600)), Some(3600.0));
        assert_eq!(seconds(&json!("3600")), Some(3600.0));
        assert_eq!(seconds(&json!(1e300)), Some(TOKEN_MAX_LIFETIME_SECS));
        assert_eq!(seconds(&json!(-5)), None);
        assert_eq!(seconds(&json!(null)), None);
    }
}
