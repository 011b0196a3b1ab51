//! The server as an OAuth 2.1 protected resource (MCP 2026-07-28, Authorization), for the HTTP
//! transport: its metadata (RFC 9728), the validation of every access token (a JWT signed by the
//! authorization server, for this server's audience), and the scopes each tool needs.
//!
//! This file is the same in every crate mcpgen generates. Nothing here is on unless
//! `--oauth-issuer` is given; a server then takes the user's identity and scopes from the verified
//! token only, and never sends that token anywhere.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

use super::super::transport::http::{
    HttpRequest, HttpResponse, payload_too_large, read, read_body, text_response,
};
use super::super::upstream::options::defaulted;

/// The shortest time between two fetches of the key set for a token signed with a key the server
/// does not know: a stream of forged tokens cannot make it fetch more often than this.
const MIN_REFETCH: Duration = Duration::from_secs(10);
/// How long a fetched key set is used before it is fetched again, so that revoked keys go away.
const MAX_KEY_AGE: Duration = Duration::from_secs(3600);
/// How long a fetch from the authorization server may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest metadata document or key set read from the authorization server, in bytes.
const MAX_FETCH_BYTES: usize = 512 * 1024;
/// The path of Protected Resource Metadata (RFC 9728 §3), before the resource's own path.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The options that make the HTTP transport an OAuth 2.1 protected resource.
/// [`ResourceOptions::args`] declares them on the command line, each also read from an
/// environment variable (see [`ResourceOptions::read_env`]), and
/// [`ResourceOptions::from_matches`] reads them back.
#[derive(Debug, Clone)]
pub struct ResourceOptions {
    /// `--oauth-issuer`: the authorization server whose access tokens are accepted.
    pub oauth_issuer: Option<String>,
    /// `--resource-url`: this server's canonical URL, the audience of its tokens.
    pub resource_url: Option<String>,
    /// `--oauth-jwks-url`: where the authorization server publishes its signing keys.
    pub oauth_jwks_url: Option<String>,
    /// `--oauth-algorithms`: the signature algorithms accepted.
    pub oauth_algorithms: Vec<Algorithm>,
    /// `--oauth-leeway`: seconds the clocks may differ when `exp` and `nbf` are checked.
    pub oauth_leeway: u64,
    /// `--oauth-introspection-url`: the endpoint asked about opaque tokens.
    pub oauth_introspection_url: Option<String>,
    /// `--oauth-introspection-client-id`: this server's client id there.
    pub oauth_introspection_client_id: Option<String>,
    /// `--oauth-introspection-secret-env`: the variable holding its client secret there.
    pub oauth_introspection_secret_env: Option<String>,
    /// `--token-exchange-url`: where each user's token is exchanged for one for the API.
    pub token_exchange_url: Option<String>,
    /// `--token-exchange-client-id`: this server's client id there.
    pub token_exchange_client_id: Option<String>,
    /// `--token-exchange-secret-env`: the variable holding its client secret there.
    pub token_exchange_secret_env: Option<String>,
    /// `--token-exchange-audience`: the `audience` asked for in the exchange.
    pub token_exchange_audience: Option<String>,
    /// `--token-exchange-scope`: the `scope` asked for in the exchange.
    pub token_exchange_scope: Option<String>,
}

impl ResourceOptions {
    /// The ids of the options, which are also their field names.
    const IDS: [&'static str; 13] = [
        "oauth_issuer",
        "resource_url",
        "oauth_jwks_url",
        "oauth_algorithms",
        "oauth_leeway",
        "oauth_introspection_url",
        "oauth_introspection_client_id",
        "oauth_introspection_secret_env",
        "token_exchange_url",
        "token_exchange_client_id",
        "token_exchange_secret_env",
        "token_exchange_audience",
        "token_exchange_scope",
    ];

    /// `command` with these options, under their own heading of `--help`. Written with clap's
    /// builder rather than its derive, which would add clap_derive and heck to every server's
    /// build (BENCHMARKS.md, issue 26).
    pub fn args(command: clap::Command) -> clap::Command {
        use clap::{Arg, ArgAction, value_parser};
        // An option of the text `help`, taking a value named `value_name`.
        let text = |id: &'static str, help: &'static str, value_name: &'static str| {
            Arg::new(id)
                .long(id.replace('_', "-"))
                .help(help)
                .value_name(value_name)
                .action(ArgAction::Set)
        };
        // The heading of the options after these, as it was.
        let heading = match command.get_next_help_heading() {
            Some(heading) => clap::builder::Resettable::Value(heading.to_string().into()),
            None => clap::builder::Resettable::Reset,
        };
        command
            .next_help_heading("OAuth 2.1 protected resource (--transport http)")
            .arg(
                text(
                    "oauth_issuer",
                    "Accept only access tokens issued by this authorization server (its issuer \
                     URL, the `iss` of its tokens): every request must then carry a JWT access \
                     token that it signed, for `--resource-url`, not expired. Off by default",
                    "URL",
                )
                .requires("resource_url")
                .value_parser(parse_url),
            )
            .arg(
                text(
                    "resource_url",
                    "This server's canonical URL as clients reach it \
                     (`https://mcp.example.com/mcp`): the audience (`aud`) every token must \
                     name, and the `resource` of its metadata",
                    "URL",
                )
                .requires("oauth_issuer")
                .value_parser(parse_url),
            )
            .arg(
                text(
                    "oauth_jwks_url",
                    "Where the authorization server publishes its signing keys (a JWK Set) \
                     [default: the `jwks_uri` of its metadata, read from \
                     `/.well-known/oauth-authorization-server` or \
                     `/.well-known/openid-configuration` at the issuer]",
                    "URL",
                )
                .value_parser(parse_url),
            )
            .arg(
                text(
                    "oauth_algorithms",
                    "The signature algorithms accepted, comma-separated; symmetric ones (HS256) \
                     and `none` never are",
                    "ALGS",
                )
                .value_delimiter(',')
                .default_value("RS256,PS256,ES256,EdDSA")
                .value_parser(parse_algorithm)
                .action(ArgAction::Append),
            )
            .arg(
                text(
                    "oauth_leeway",
                    "How far, in seconds, the clocks of this server and the authorization server \
                     may differ when `exp` and `nbf` are checked",
                    "SECONDS",
                )
                .default_value("30")
                .value_parser(value_parser!(u64).range(0..=300)),
            )
            .arg(
                text(
                    "oauth_introspection_url",
                    "Also accept opaque access tokens (any token that is not a JWT), asking this \
                     token introspection endpoint (RFC 7662) of the authorization server about \
                     each one; it must answer that the token is active, for this server's \
                     audience, and not expired",
                    "URL",
                )
                .requires("oauth_issuer")
                .value_parser(parse_url),
            )
            .arg(
                text(
                    "oauth_introspection_client_id",
                    "The client id this server authenticates with at \
                     `--oauth-introspection-url`",
                    "ID",
                )
                .requires("oauth_introspection_url"),
            )
            .arg(
                text(
                    "oauth_introspection_secret_env",
                    "The environment variable holding the client secret for \
                     `--oauth-introspection-url` (also read from a file named by the variable \
                     with `_FILE` added)",
                    "VAR",
                )
                .requires("oauth_introspection_url"),
            )
            .arg(
                text(
                    "token_exchange_url",
                    "Call the API with each user's own token instead of the server's: exchanged \
                     (RFC 8693) at this token endpoint of the API's authorization server for the \
                     user's verified access token, and cached per user until it expires. Needs \
                     `--oauth-issuer`; the user's token itself is never sent to the API",
                    "URL",
                )
                .requires("oauth_issuer")
                .value_parser(parse_url),
            )
            .arg(
                text(
                    "token_exchange_client_id",
                    "The client id this server authenticates with at `--token-exchange-url`",
                    "ID",
                )
                .requires("token_exchange_url"),
            )
            .arg(
                text(
                    "token_exchange_secret_env",
                    "The environment variable holding the client secret for \
                     `--token-exchange-url` (also read from a file named by the variable with \
                     `_FILE` added)",
                    "VAR",
                )
                .requires("token_exchange_url"),
            )
            .arg(
                text(
                    "token_exchange_audience",
                    "The `audience` asked for in the exchange: the API, as its authorization \
                     server names it",
                    "AUDIENCE",
                )
                .requires("token_exchange_url"),
            )
            .arg(
                text(
                    "token_exchange_scope",
                    "The `scope` asked for in the exchange (space-separated)",
                    "SCOPES",
                )
                .requires("token_exchange_url"),
            )
            .next_help_heading(heading)
    }

    /// The options as `matches` (of a command with [`ResourceOptions::args`]) gives them.
    pub fn from_matches(matches: &clap::ArgMatches) -> Self {
        let text = |id: &str| matches.get_one::<String>(id).cloned();
        Self {
            oauth_issuer: text("oauth_issuer"),
            resource_url: text("resource_url"),
            oauth_jwks_url: text("oauth_jwks_url"),
            oauth_algorithms: matches
                .get_many::<Algorithm>("oauth_algorithms")
                .map(|algorithms| algorithms.copied().collect())
                .unwrap_or_default(),
            oauth_leeway: defaulted(matches, "oauth_leeway"),
            oauth_introspection_url: text("oauth_introspection_url"),
            oauth_introspection_client_id: text("oauth_introspection_client_id"),
            oauth_introspection_secret_env: text("oauth_introspection_secret_env"),
            token_exchange_url: text("token_exchange_url"),
            token_exchange_client_id: text("token_exchange_client_id"),
            token_exchange_secret_env: text("token_exchange_secret_env"),
            token_exchange_audience: text("token_exchange_audience"),
            token_exchange_scope: text("token_exchange_scope"),
        }
    }

    /// `command` with each of these options also read from the environment variable
    /// `{prefix}_{OPTION}`: `TRACKER_OAUTH_ISSUER` for `--oauth-issuer` with prefix `TRACKER`.
    pub fn read_env(command: clap::Command, prefix: &str) -> clap::Command {
        Self::IDS.into_iter().fold(command, |command, id| {
            let variable = format!("{prefix}_{}", id.to_ascii_uppercase());
            command.mut_arg(id, |arg| arg.env(variable))
        })
    }
}

/// An absolute `http` or `https` URL without a fragment.
fn parse_url(text: &str) -> Result<String, String> {
    match reqwest::Url::parse(text.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.fragment().is_none() => {
            Ok(text.trim().to_string())
        }
        _ => Err(format!(
            "`{text}` is not an http(s) URL without a fragment (such as https://mcp.example.com/mcp)"
        )),
    }
}

/// One asymmetric JWS algorithm.
fn parse_algorithm(text: &str) -> Result<Algorithm, String> {
    let algorithm: Algorithm = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a JWS algorithm (such as RS256, ES256, EdDSA)"))?;
    match algorithm {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => Err(format!(
            "`{text}` is symmetric: a resource server that can check it can also forge tokens"
        )),
        other => Ok(other),
    }
}

/// What a verified access token allows: whose it is and the scopes it grants.
#[derive(Clone, PartialEq, Eq)]
pub struct Grant {
    /// The user or client the token was issued to (`sub`), when it names one.
    pub subject: Option<String>,
    /// The scopes granted (`scope`, or `scp`).
    pub scopes: BTreeSet<String>,
    /// The verified token itself: the `subject_token` of a token exchange, never sent to the API.
    token: Arc<str>,
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grant")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("token", &"<redacted>")
            .finish()
    }
}

impl Grant {
    /// The scopes of `needed` this grant lacks, in their order.
    pub fn missing<'a>(&self, needed: &[&'a str]) -> Vec<&'a str> {
        needed
            .iter()
            .copied()
            .filter(|scope| !self.scopes.contains(*scope))
            .collect()
    }
}

/// The scopes each tool needs, by tool name; a tool not named needs none.
pub type ToolScopes = HashMap<String, &'static [&'static str]>;

/// The claims of an access token this server reads besides those the validation checks.
#[derive(Debug, Deserialize)]
struct AccessClaims {
    sub: Option<String>,
    scope: Option<String>,
    /// Some authorization servers list the scopes here instead, as an array or a string.
    scp: Option<Value>,
}

/// The keys of the authorization server, as last fetched.
#[derive(Default)]
struct KeyCache {
    keys: JwkSet,
    /// When the keys were last fetched.
    fetched: Option<Instant>,
    /// When a fetch was last tried, whether it worked or not.
    tried: Option<Instant>,
}

/// This server as a protected resource: where its tokens come from, for which audience, and the
/// keys that sign them.
pub struct ProtectedResource {
    issuer: String,
    resource: String,
    jwks_url: Option<String>,
    algorithms: Vec<Algorithm>,
    leeway: u64,
    scopes_supported: Vec<String>,
    resource_name: String,
    http: reqwest::Client,
    /// Locked across a fetch, so that many requests with a new key fetch once.
    keys: tokio::sync::Mutex<KeyCache>,
    /// Where opaque tokens are checked, when they are accepted.
    introspection: Option<Introspection>,
}

/// A token introspection endpoint (RFC 7662) and this server's client credentials for it.
struct Introspection {
    url: String,
    client_id: String,
    secret: String,
}

/// Why a token is refused, worded for the client (`error_description`) and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl ProtectedResource {
    /// The protected resource the options describe, or `None` when `--oauth-issuer` is not
    /// given. `scopes_supported` are the scopes the tools need, published in the metadata.
    pub fn new(
        options: &ResourceOptions,
        scopes_supported: Vec<String>,
        resource_name: &str,
    ) -> anyhow::Result<Option<Self>> {
        let (Some(issuer), Some(resource)) = (&options.oauth_issuer, &options.resource_url) else {
            return Ok(None);
        };
        if options.oauth_algorithms.is_empty() {
            anyhow::bail!("--oauth-algorithms names no algorithm");
        }
        super::signatures::install();
        let http = super::super::client_builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let introspection = match &options.oauth_introspection_url {
            None => None,
            Some(url) => {
                let (Some(client_id), Some(secret_env)) = (
                    &options.oauth_introspection_client_id,
                    &options.oauth_introspection_secret_env,
                ) else {
                    anyhow::bail!(
                        "--oauth-introspection-url needs --oauth-introspection-client-id and \
                         --oauth-introspection-secret-env"
                    );
                };
                let Some(secret) = super::super::secret_var(secret_env)? else {
                    anyhow::bail!(
                        "--oauth-introspection-secret-env names {secret_env}, which is unset or \
                         empty: set it to the client secret for {url}"
                    );
                };
                Some(Introspection {
                    url: url.clone(),
                    client_id: client_id.clone(),
                    secret,
                })
            }
        };
        Ok(Some(Self {
            issuer: issuer.clone(),
            resource: resource.clone(),
            jwks_url: options.oauth_jwks_url.clone(),
            algorithms: options.oauth_algorithms.clone(),
            leeway: options.oauth_leeway,
            scopes_supported,
            resource_name: resource_name.to_string(),
            http,
            keys: tokio::sync::Mutex::new(KeyCache::default()),
            introspection,
        }))
    }

    /// The path this server's metadata is served at: the well-known prefix before the path of
    /// the resource URL (RFC 9728 §3.1), `/.well-known/oauth-protected-resource/mcp`.
    pub fn metadata_path(&self) -> String {
        let path = reqwest::Url::parse(&self.resource)
            .map(|url| url.path().trim_end_matches('/').to_string())
            .unwrap_or_default();
        format!("{METADATA_PATH}{path}")
    }

    /// The URL of the metadata, as `WWW-Authenticate` names it.
    pub fn metadata_url(&self) -> String {
        match reqwest::Url::parse(&self.resource) {
            Ok(url) => format!(
                "{}{}",
                url.origin().ascii_serialization(),
                self.metadata_path()
            ),
            Err(_) => self.metadata_path(),
        }
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    pub fn metadata(&self) -> Value {
        let mut metadata = serde_json::json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": self.resource_name,
        });
        if !self.scopes_supported.is_empty() {
            metadata["scopes_supported"] = serde_json::json!(self.scopes_supported);
        }
        metadata
    }

    /// The `WWW-Authenticate` value of a refusal: `error` and its description when there is
    /// one, the scope needed, and always where the metadata is.
    pub fn challenge(&self, error: Option<(&str, &str)>, scope: Option<&str>) -> String {
        let mut parts = Vec::new();
        if let Some((code, description)) = error {
            parts.push(format!("error=\"{code}\""));
            parts.push(format!("error_description=\"{}\"", quoted(description)));
        }
        if let Some(scope) = scope {
            parts.push(format!("scope=\"{}\"", quoted(scope)));
        }
        parts.push(format!(
            "resource_metadata=\"{}\"",
            quoted(&self.metadata_url())
        ));
        format!("Bearer {}", parts.join(", "))
    }

    /// Verifies `token`: signed with one of the authorization server's keys in an allowed
    /// algorithm, issued by it, for this server, and within its lifetime.
    pub async fn validate(&self, token: &str) -> Result<Grant, Refusal> {
        let header = match jsonwebtoken::decode_header(token) {
            Ok(header) => header,
            Err(_) => {
                return match &self.introspection {
                    Some(introspection) => self.introspect(introspection, token).await,
                    None => Err(Refusal("the access token is not a JWT".to_string())),
                };
            }
        };
        if !self.algorithms.contains(&header.alg) {
            return Err(Refusal(format!(
                "the access token is signed with {:?}, which this server does not accept",
                header.alg
            )));
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway;
        let data =
            jsonwebtoken::decode::<AccessClaims>(token, &key, &validation).map_err(|error| {
                use jsonwebtoken::errors::ErrorKind;
                Refusal(
                    match error.kind() {
                        ErrorKind::ExpiredSignature => "the access token has expired",
                        ErrorKind::ImmatureSignature => "the access token is not valid yet",
                        ErrorKind::InvalidAudience => {
                            "the access token was not issued for this server (its audience differs)"
                        }
                        ErrorKind::InvalidIssuer => {
                            "the access token was issued by another authorization server"
                        }
                        ErrorKind::InvalidSignature => "the access token's signature is wrong",
                        ErrorKind::MissingRequiredClaim(_) => {
                            "the access token lacks exp, iss or aud"
                        }
                        _ => "the access token cannot be verified",
                    }
                    .to_string(),
                )
            })?;
        let claims = data.claims;
        let mut scopes: BTreeSet<String> = claims
            .scope
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        match claims.scp {
            Some(Value::String(text)) => {
                scopes.extend(text.split_whitespace().map(str::to_string));
            }
            Some(Value::Array(items)) => {
                scopes.extend(items.iter().filter_map(Value::as_str).map(str::to_string));
            }
            _ => {}
        }
        Ok(Grant {
            subject: claims.sub,
            scopes,
            token: Arc::from(token),
        })
    }

    /// Asks the introspection endpoint about an opaque `token` (RFC 7662 §2): it must be active,
    /// issued by the issuer when the answer names one, for this server's audience, and within
    /// its lifetime.
    async fn introspect(
        &self,
        introspection: &Introspection,
        token: &str,
    ) -> Result<Grant, Refusal> {
        let form = [
            ("token", token),
            ("token_type_hint", "access_token"),
            ("client_id", introspection.client_id.as_str()),
            ("client_secret", introspection.secret.as_str()),
        ];
        let answer = self
            .http
            .post(&introspection.url)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status);
        let answer: Value = match answer {
            Ok(response) => response.json().await.unwrap_or(Value::Null),
            Err(error) => {
                tracing::warn!(
                    "the introspection endpoint {} failed: {}",
                    introspection.url,
                    error.without_url()
                );
                return Err(Refusal(
                    "the access token cannot be checked now (introspection failed)".to_string(),
                ));
            }
        };
        if answer["active"] != Value::Bool(true) {
            return Err(Refusal("the access token is not active".to_string()));
        }
        if let Some(issuer) = answer["iss"].as_str()
            && issuer != self.issuer
        {
            return Err(Refusal(
                "the access token was issued by another authorization server".to_string(),
            ));
        }
        let for_us = match &answer["aud"] {
            Value::String(audience) => *audience == self.resource,
            Value::Array(audiences) => audiences.iter().any(|a| *a == *self.resource),
            _ => false,
        };
        if !for_us {
            return Err(Refusal(
                "the access token was not issued for this server (its audience differs)"
                    .to_string(),
            ));
        }
        let now = jsonwebtoken::get_current_timestamp();
        if answer["exp"]
            .as_u64()
            .is_some_and(|exp| exp.saturating_add(self.leeway) <= now)
        {
            return Err(Refusal("the access token has expired".to_string()));
        }
        if answer["nbf"]
            .as_u64()
            .is_some_and(|nbf| nbf > now.saturating_add(self.leeway))
        {
            return Err(Refusal("the access token is not valid yet".to_string()));
        }
        Ok(Grant {
            subject: answer["sub"].as_str().map(str::to_string),
            scopes: answer["scope"]
                .as_str()
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_string)
                .collect(),
            token: Arc::from(token),
        })
    }

    /// The key that signed a token with `kid` in `algorithm`: from the cached key set, fetched
    /// again when it is old or does not have the key (at most once per [`MIN_REFETCH`]).
    async fn key(&self, kid: Option<&str>, algorithm: Algorithm) -> Result<DecodingKey, Refusal> {
        let mut cache = self.keys.lock().await;
        let stale = cache
            .fetched
            .is_none_or(|fetched| fetched.elapsed() > MAX_KEY_AGE);
        // Also while the authorization server is down: a failed fetch is not tried again at once.
        let may_fetch = cache
            .tried
            .is_none_or(|tried| tried.elapsed() > MIN_REFETCH);
        let unknown = find_key(&cache.keys, kid, algorithm).is_none();
        if may_fetch && (stale || unknown) {
            cache.tried = Some(Instant::now());
            match self.fetch_keys().await {
                Ok(keys) => {
                    cache.keys = keys;
                    cache.fetched = Some(Instant::now());
                }
                Err(error) => {
                    tracing::warn!("cannot fetch the authorization server's keys: {error:#}");
                }
            }
        }
        // Keys fetched before still serve while the authorization server is unreachable.
        if cache.fetched.is_none() {
            return Err(Refusal(
                "the authorization server's keys cannot be fetched".to_string(),
            ));
        }
        let jwk = find_key(&cache.keys, kid, algorithm).ok_or_else(|| {
            Refusal(
                "the access token is signed with a key the authorization server does not publish"
                    .to_string(),
            )
        })?;
        DecodingKey::from_jwk(jwk)
            .map_err(|_| Refusal("the authorization server's key cannot be used".to_string()))
    }

    /// The authorization server's key set, from `--oauth-jwks-url` or its metadata.
    async fn fetch_keys(&self) -> anyhow::Result<JwkSet> {
        let jwks_url = match &self.jwks_url {
            Some(url) => url.clone(),
            None => self.discover_jwks_url().await?,
        };
        let keys = self.fetch_json(&jwks_url).await?;
        serde_json::from_value(keys)
            .map_err(|error| anyhow::anyhow!("{jwks_url} is not a JWK Set: {error}"))
    }

    /// The `jwks_uri` of the authorization server's metadata: RFC 8414's well-known URL first,
    /// then OpenID Connect Discovery's. The metadata must name the configured issuer.
    async fn discover_jwks_url(&self) -> anyhow::Result<String> {
        let issuer = reqwest::Url::parse(&self.issuer)?;
        let path = issuer.path().trim_end_matches('/');
        let origin = issuer.origin().ascii_serialization();
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!(
                "{}/.well-known/openid-configuration",
                self.issuer.trim_end_matches('/')
            ),
        ];
        let mut failures = Vec::new();
        for url in candidates {
            match self.fetch_json(&url).await {
                Ok(metadata) => {
                    if metadata["issuer"].as_str() != Some(self.issuer.as_str()) {
                        anyhow::bail!(
                            "the metadata at {url} names issuer {}, not {}",
                            metadata["issuer"],
                            self.issuer
                        );
                    }
                    return metadata["jwks_uri"]
                        .as_str()
                        .map(str::to_string)
                        .ok_or_else(|| anyhow::anyhow!("the metadata at {url} has no jwks_uri"));
                }
                Err(error) => failures.push(format!("{error:#}")),
            }
        }
        anyhow::bail!("no authorization server metadata: {}", failures.join("; "))
    }

    /// GETs `url` and reads its JSON body, refusing a body over [`MAX_FETCH_BYTES`].
    async fn fetch_json(&self, url: &str) -> anyhow::Result<Value> {
        let mut response = self.http.get(url).send().await?.error_for_status()?;
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            if body.len() + chunk.len() > MAX_FETCH_BYTES {
                anyhow::bail!("{url} answered more than {MAX_FETCH_BYTES} bytes");
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body)
            .map_err(|error| anyhow::anyhow!("{url} did not answer JSON: {error}"))
    }
}

/// The key in `keys` with `kid` (the only key, when the token names none) that can check
/// `algorithm`: a key that declares another algorithm does not.
fn find_key<'k>(
    keys: &'k JwkSet,
    kid: Option<&str>,
    algorithm: Algorithm,
) -> Option<&'k jsonwebtoken::jwk::Jwk> {
    let fits = |jwk: &&jsonwebtoken::jwk::Jwk| {
        jwk.common
            .key_algorithm
            .is_none_or(|declared| format!("{declared:?}") == format!("{algorithm:?}"))
    };
    match kid {
        Some(kid) => keys.find(kid).filter(fits),
        None => match keys.keys.as_slice() {
            [only] => Some(only).filter(fits),
            _ => None,
        },
    }
}

/// `text` inside a quoted string of an HTTP header: quotes and backslashes escaped, and
/// anything outside printable ASCII dropped.
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii() && !c.is_ascii_control())
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect()
}

/// The bearer token of a request, when it sends one (`Authorization: Bearer <token>`, the
/// scheme in any case).
pub fn bearer_token(headers: &hyper::HeaderMap) -> Option<&str> {
    headers
        .get(hyper::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .split_once(' ')
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("Bearer"))
        .map(|(_, token)| token.trim())
        .filter(|token| !token.is_empty())
}

/// Lets a request through only with a valid access token, which it hands on as a [`Grant`] in
/// the request's extensions; answers 401 without one or with an invalid one, and 403 to a
/// `tools/call` of a tool that needs scopes the token lacks, before anything is sent to the API.
pub async fn require_access_token(
    resource: &ProtectedResource,
    scopes: &ToolScopes,
    max_request_bytes: usize,
    request: HttpRequest,
) -> Result<HttpRequest, Box<HttpResponse>> {
    use hyper::{StatusCode, header};

    let refusal = |status: StatusCode, challenge: String, text: String| {
        let mut response = Box::new(text_response(status, text));
        // A challenge is built from the resource's own URL and the token's refusal, both
        // printable ASCII (`quoted`), so it is always a valid header value.
        if let Ok(challenge) = header::HeaderValue::try_from(challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge);
        }
        response
    };
    let Some(token) = bearer_token(request.headers()) else {
        return Err(refusal(
            StatusCode::UNAUTHORIZED,
            resource.challenge(None, None),
            "Unauthorized: this server needs an OAuth access token (see its resource metadata).\n"
                .to_string(),
        ));
    };
    let grant = match resource.validate(token).await {
        Ok(grant) => grant,
        Err(Refusal(reason)) => {
            tracing::debug!("access token refused: {reason}");
            return Err(refusal(
                StatusCode::UNAUTHORIZED,
                resource.challenge(Some(("invalid_token", &reason)), None),
                format!("Unauthorized: {reason}.\n"),
            ));
        }
    };
    // The body is read only when some tool needs a scope this token lacks: only then can the
    // answer depend on which tool is called.
    let lacks_some = scopes
        .values()
        .any(|needed| !grant.missing(needed).is_empty());
    let mut request = request;
    if lacks_some {
        let (parts, body) = request.into_parts();
        let Some(bytes) = read_body(body, max_request_bytes).await else {
            return Err(Box::new(payload_too_large(max_request_bytes)));
        };
        if let Some(tool) = called_tool(&bytes)
            && let Some(needed) = scopes.get(&tool)
        {
            let missing = grant.missing(needed);
            if !missing.is_empty() {
                let needed = needed.join(" ");
                let reason = format!("the tool {tool} needs the scope {}", missing.join(" "));
                tracing::debug!(subject = ?grant.subject, "refused: {reason}");
                return Err(refusal(
                    StatusCode::FORBIDDEN,
                    resource.challenge(Some(("insufficient_scope", &reason)), Some(&needed)),
                    format!("Forbidden: {reason}.\n"),
                ));
            }
        }
        request = HttpRequest::from_parts(parts, read(bytes));
    }
    request.extensions_mut().insert(grant);
    Ok(request)
}

tokio::task_local! {
    /// The verified caller of the tool call being run, for a token exchange on its behalf.
    static CALLER: Grant;
}

/// Set once the API is called with each user's own token (token exchange): what the API shows
/// then differs by user, so what is cached of its answers is kept per user.
static PER_USER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whose view of the API a cache of its answers holds: the calling user's (`sub`, or the token
/// itself when it names none) when the API is called with each user's own token, else everyone's
/// (`""`).
pub fn cache_owner() -> String {
    if !PER_USER.load(std::sync::atomic::Ordering::Relaxed) {
        return String::new();
    }
    CALLER
        .try_with(|caller| {
            caller
                .subject
                .clone()
                .unwrap_or_else(|| caller.token.to_string())
        })
        .unwrap_or_default()
}

/// `call` run on behalf of `grant`'s user, when the request carried a verified token.
pub fn as_caller(grant: Option<Grant>, call: super::super::ToolFuture) -> super::super::ToolFuture {
    match grant {
        Some(grant) => Box::pin(CALLER.scope(grant, call)),
        None => call,
    }
}

/// The earliest an exchanged token is used before it expires.
const EXCHANGE_MARGIN: Duration = Duration::from_secs(30);
/// How long an exchanged token is used when the answer does not say (`expires_in`).
const EXCHANGE_DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
/// The most users whose exchanged tokens are kept at once; past it, expired ones are dropped
/// and, if that is not enough, all of them.
const EXCHANGE_CACHE_USERS: usize = 10_000;

/// `credentials` with the bearer credential of the API replaced by each user's own token,
/// through token exchange, when `--token-exchange-url` is given: the service token (`Bearer`, a
/// client-credentials token, or one unset whose variables are `bearer_vars`) is then not sent.
pub fn with_token_exchange(
    credentials: Vec<super::super::Credential>,
    bearer_vars: &[&str],
    options: &ResourceOptions,
) -> anyhow::Result<Vec<super::super::Credential>> {
    use super::super::Credential;

    let Some(url) = &options.token_exchange_url else {
        return Ok(credentials);
    };
    if bearer_vars.is_empty() {
        anyhow::bail!(
            "--token-exchange-url gives each user a bearer token for the API, but this API takes \
             no bearer token"
        );
    }
    let (Some(client_id), Some(secret_env)) = (
        &options.token_exchange_client_id,
        &options.token_exchange_secret_env,
    ) else {
        anyhow::bail!(
            "--token-exchange-url needs --token-exchange-client-id and --token-exchange-secret-env"
        );
    };
    let Some(secret) = super::super::secret_var(secret_env)? else {
        anyhow::bail!(
            "--token-exchange-secret-env names {secret_env}, which is unset or empty: set it to \
             the client secret for {url}"
        );
    };
    let exchange = Arc::new(TokenExchange {
        url: url.clone(),
        client_id: client_id.clone(),
        secret,
        audience: options.token_exchange_audience.clone(),
        scope: options.token_exchange_scope.clone(),
        http: super::super::client_builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()?,
        cache: tokio::sync::Mutex::new(HashMap::new()),
    });
    let mut replaced = Vec::with_capacity(credentials.len());
    for credential in credentials {
        match credential {
            Credential::Bearer(_) | Credential::Fetched(_) => {}
            Credential::Unset(variables) if variables.iter().all(|v| bearer_vars.contains(v)) => {}
            other => replaced.push(other),
        }
    }
    replaced.push(Credential::Fetched(exchange));
    PER_USER.store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(replaced)
}

/// Each user's token for the API, from OAuth 2.0 Token Exchange (RFC 8693) with the user's
/// verified access token as `subject_token`, cached per user until shortly before it expires.
struct TokenExchange {
    url: String,
    client_id: String,
    secret: String,
    audience: Option<String>,
    scope: Option<String>,
    http: reqwest::Client,
    /// By user (`sub`, or the token itself when it names none): the token and when to stop
    /// using it. Locked across an exchange, so that a user's concurrent calls exchange once.
    cache: tokio::sync::Mutex<HashMap<String, (String, Instant)>>,
}

impl super::super::TokenSource for TokenExchange {
    fn token(
        &self,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<String, super::super::ToolError>> + Send + '_>>
    {
        Box::pin(async move {
            let caller = CALLER.try_with(Grant::clone).map_err(|_| {
                super::super::ToolError::Answer(
                    "This server calls the API with each user's own token, and this call came \
                     without a verified user: the user must connect over HTTP with an access \
                     token."
                        .to_string(),
                )
            })?;
            let user = caller
                .subject
                .clone()
                .unwrap_or_else(|| caller.token.to_string());
            let mut cache = self.cache.lock().await;
            if let Some((token, until)) = cache.get(&user)
                && Instant::now() < *until
            {
                return Ok(token.clone());
            }
            let (token, lifetime) = self.exchange(&caller.token).await?;
            if cache.len() >= EXCHANGE_CACHE_USERS {
                let now = Instant::now();
                cache.retain(|_, (_, until)| now < *until);
                if cache.len() >= EXCHANGE_CACHE_USERS {
                    cache.clear();
                }
            }
            let now = Instant::now();
            let until = now
                .checked_add(lifetime.saturating_sub(EXCHANGE_MARGIN))
                .unwrap_or(now);
            cache.insert(user, (token.clone(), until));
            Ok(token)
        })
    }
}

impl TokenExchange {
    /// The API token the authorization server issues for `subject_token`, and how long it
    /// lasts. Error texts never quote either token or the secret.
    async fn exchange(
        &self,
        subject_token: &str,
    ) -> Result<(String, Duration), super::super::ToolError> {
        let failed = |why: String| {
            super::super::ToolError::Answer(format!(
                "Could not get the user's token for the API: the token exchange at {} {why}. \
                 Try again later; if this persists, the user must check the server's token \
                 exchange settings.",
                self.url
            ))
        };
        let mut form = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("subject_token", subject_token),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:access_token",
            ),
            (
                "requested_token_type",
                "urn:ietf:params:oauth:token-type:access_token",
            ),
            ("client_id", self.client_id.as_str()),
            ("client_secret", self.secret.as_str()),
        ];
        if let Some(audience) = &self.audience {
            form.push(("audience", audience));
        }
        if let Some(scope) = &self.scope {
            form.push(("scope", scope));
        }
        let response = self
            .http
            .post(&self.url)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await
            .map_err(|error| {
                failed(
                    if error.is_timeout() {
                        "did not answer in time"
                    } else {
                        "is unreachable"
                    }
                    .to_string(),
                )
            })?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            let error = body["error"].as_str().unwrap_or("no error code");
            return Err(failed(format!("was refused (HTTP {status}, {error})")));
        }
        let token = body["access_token"]
            .as_str()
            .filter(|token| !token.is_empty())
            .ok_or_else(|| failed("answered without an access_token".to_string()))?;
        let lifetime = body["expires_in"]
            .as_u64()
            .map_or(EXCHANGE_DEFAULT_LIFETIME, Duration::from_secs);
        Ok((token.to_string(), lifetime))
    }
}

/// The tool a JSON-RPC `tools/call` request names; `None` for any other message.
fn called_tool(bytes: &[u8]) -> Option<String> {
    let message: Value = serde_json::from_slice(bytes).ok()?;
    if message["method"] != "tools/call" {
        return None;
    }
    message["params"]["name"].as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(resource_url: &str) -> ProtectedResource {
        let options = ResourceOptions {
            oauth_issuer: Some("https://auth.example.com".to_string()),
            resource_url: Some(resource_url.to_string()),
            oauth_jwks_url: None,
            oauth_algorithms: vec![Algorithm::RS256],
            oauth_leeway: 30,
            oauth_introspection_url: None,
            oauth_introspection_client_id: None,
            oauth_introspection_secret_env: None,
            token_exchange_url: None,
            token_exchange_client_id: None,
            token_exchange_secret_env: None,
            token_exchange_audience: None,
            token_exchange_scope: None,
        };
        ProtectedResource::new(&options, vec!["issues:read".to_string()], "Tracker")
            .expect("the resource is built")
            .expect("an issuer is given")
    }

    #[test]
    fn the_metadata_path_puts_the_well_known_prefix_before_the_resource_path() {
        let resource = resource("https://mcp.example.com/mcp");
        assert_eq!(
            resource.metadata_path(),
            "/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            resource.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        let metadata = resource.metadata();
        assert_eq!(metadata["resource"], "https://mcp.example.com/mcp");
        assert_eq!(
            metadata["authorization_servers"],
            serde_json::json!(["https://auth.example.com"])
        );
        assert_eq!(
            metadata["scopes_supported"],
            serde_json::json!(["issues:read"])
        );
    }

    #[test]
    fn a_challenge_names_the_error_the_scope_and_the_metadata() {
        let resource = resource("https://mcp.example.com/mcp");
        assert_eq!(
            resource.challenge(Some(("insufficient_scope", "needs \"a\"")), Some("a b")),
            "Bearer error=\"insufficient_scope\", error_description=\"needs \\\"a\\\"\", \
             scope=\"a b\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
    }

    #[test]
    fn symmetric_algorithms_are_never_accepted() {
        assert!(parse_algorithm("HS256").is_err());
        assert!(parse_algorithm("none").is_err());
        assert_eq!(parse_algorithm("ES256"), Ok(Algorithm::ES256));
    }

    #[test]
    fn only_a_tools_call_names_a_tool() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(called_tool(call), Some("x".to_string()));
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x"}}"#;
        assert_eq!(called_tool(list), None);
    }

    #[test]
    fn a_grant_lacks_the_scopes_it_does_not_hold() {
        let grant = Grant {
            subject: None,
            scopes: ["a".to_string()].into(),
            token: Arc::from("t"),
        };
        assert_eq!(grant.missing(&["a", "b"]), vec!["b"]);
        assert!(grant.missing(&["a"]).is_empty());
    }
}
