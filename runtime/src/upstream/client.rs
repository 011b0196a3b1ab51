//! The reqwest client under [`super::Upstream`], built in the background after start-up, with
//! TLS on rustls and `ring`.

use std::sync::Arc;
use std::time::Duration;

use super::super::tool::ToolError;

/// The reqwest client, built on a thread of its own shortly after the server starts. Building
/// one reads and parses every root certificate of the system (several milliseconds of CPU),
/// which the MCP handshake and the first `tools/list` — what a host waits for when it launches
/// its servers — need not wait for, nor share the CPU with: the build starts
/// [`CLIENT_BUILD_DELAY`] after start-up. A request to the API before then builds it at once
/// (and waits for it), as does one that comes while it is being built.
pub(super) struct HttpClient {
    client: Arc<tokio::sync::OnceCell<reqwest::Client>>,
    settings: Arc<HttpSettings>,
}

/// A reqwest client builder whose TLS runs on rustls with the `ring` provider. The crate
/// builds rustls without a provider of its own choosing (its default, aws-lc-rs, is a C library
/// built with cmake), so `ring`'s is installed here, once, before the first client is built.
pub fn client_builder() -> reqwest::ClientBuilder {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        // rustls 0.23.48 deprecates this provider because `ring` has no post-quantum key
        // exchange (X25519MLKEM768); connections to the API use X25519 and the other classical
        // groups instead. That is kept for a crate that builds in half the time and with no C
        // toolchain beyond `cc`; a crate that needs post-quantum TLS to its API can install
        // aws-lc-rs's provider before the first call, which this then leaves in place.
        #[allow(deprecated)]
        let provider = rustls::crypto::ring::default_provider();
        // An error means a provider was installed first, and that one serves as well.
        let _ = provider.install_default();
    });
    reqwest::Client::builder()
}

/// What the reqwest client is built from.
pub(super) struct HttpSettings {
    /// The API's base URL, whose origin is the only one redirects may lead to.
    pub(super) base_url: reqwest::Url,
    pub(super) connect_timeout: Duration,
    pub(super) timeout: Duration,
}

impl HttpSettings {
    fn build(&self) -> reqwest::Result<reqwest::Client> {
        // Redirects are followed only within the API's own origin: reqwest strips
        // `Authorization` on a cross-host hop but not API-key headers.
        let origin = self.base_url.origin();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 10 {
                attempt.error("too many redirects")
            } else if attempt.url().origin() == origin {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        // The server reads JSON: an API that can answer in several formats (JSON or XML, say)
        // is asked for JSON, and for anything else only when it has nothing better. A request's
        // own `Accept` (a header parameter of the operation) replaces this.
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::ACCEPT,
            reqwest::header::HeaderValue::from_static("application/json, */*;q=0.8"),
        );
        client_builder()
            .default_headers(headers)
            .redirect(redirects)
            .connect_timeout(self.connect_timeout)
            .timeout(self.timeout)
            .user_agent(concat!(
                env!("CARGO_PKG_NAME"),
                "/",
                env!("CARGO_PKG_VERSION")
            ))
            .build()
    }
}

impl HttpClient {
    /// Schedules the client's build in the background when called inside a tokio runtime (as
    /// the server is); otherwise it is built on first use.
    pub(super) fn new(settings: HttpSettings) -> Self {
        let client = Self {
            client: Arc::new(tokio::sync::OnceCell::new()),
            settings: Arc::new(settings),
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (cell, settings) = (Arc::clone(&client.client), Arc::clone(&client.settings));
            runtime.spawn(async move {
                tokio::time::sleep(CLIENT_BUILD_DELAY).await;
                if let Err(error) = cell.get_or_try_init(|| build_client(settings)).await {
                    tracing::warn!("the HTTP client for the API could not be built: {error}");
                }
            });
        }
        client
    }

    /// The client, once built.
    pub(super) async fn get(&self, operation: &'static str) -> Result<&reqwest::Client, ToolError> {
        self.client
            .get_or_try_init(|| build_client(Arc::clone(&self.settings)))
            .await
            .map_err(|error| ToolError::Transport {
                operation,
                message: format!(
                    "the server could not set up its HTTP client ({error}); the operator must check the machine's TLS root certificates"
                ),
            })
    }
}

/// How long after start-up the HTTP client is built, unless a request needs it sooner: long
/// enough for a client's handshake and first `tools/list` (a few milliseconds), short next to
/// the time a model takes before its first call. On two busy cores, building it at once made
/// the first `tools/list` answer up to 3 ms later.
const CLIENT_BUILD_DELAY: Duration = Duration::from_millis(200);

async fn build_client(settings: Arc<HttpSettings>) -> Result<reqwest::Client, String> {
    match tokio::task::spawn_blocking(move || settings.build()).await {
        Ok(built) => built.map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    }
}
