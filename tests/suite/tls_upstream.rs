//! A generated server calls an API over HTTPS: TLS on rustls with the `ring` provider the
//! generated crate installs (it builds rustls without aws-lc-rs), the API's certificate checked
//! against the trusted roots of the machine (`SSL_CERT_FILE` here, a certificate authority made
//! by the test). The upstream is the tracker API served over TLS on 127.0.0.1, behind a layer
//! that records every request that reaches it.

use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::{self, pki_types};
use tokio_rustls::server::TlsStream;

use crate::support::{Server, TOKEN, call_over_stdio};

/// A certificate authority of the test's own: its certificate in PEM, and what signs with it.
struct Authority {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl Authority {
    fn new() -> Authority {
        let mut params = CertificateParams::new(Vec::new()).expect("CA parameters");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let key = KeyPair::generate().expect("a CA key");
        let pem = params.self_signed(&key).expect("the CA certificate").pem();
        Authority {
            pem,
            issuer: Issuer::new(params, key),
        }
    }

    /// A server certificate for `localhost` and 127.0.0.1, and its private key, in DER.
    fn server_certificate(
        &self,
    ) -> (
        pki_types::CertificateDer<'static>,
        pki_types::PrivateKeyDer<'static>,
    ) {
        let params = CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()])
            .expect("server certificate parameters");
        let key = KeyPair::generate().expect("a server key");
        let certificate = params
            .signed_by(&key, &self.issuer)
            .expect("the server certificate");
        let key = pki_types::PrivatePkcs8KeyDer::from(key.serialize_der());
        (certificate.der().clone(), key.into())
    }
}

/// One request as it reached the API: method, path and query, and its `Authorization`.
type Recorded = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

/// Accepts TCP connections and completes their TLS handshake; a connection whose handshake fails
/// (a client that does not trust the certificate) is dropped and the next one awaited.
struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, address)) = self.tcp.accept().await else {
                continue;
            };
            if let Ok(tls) = self.acceptor.accept(stream).await {
                return (tls, address);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// The tracker API over HTTPS on a free port of 127.0.0.1, with a certificate `authority`
/// signed; returns its base URL (by the name `localhost`, which the certificate holds) and what
/// reached it. Served on a runtime of its own thread until the process ends.
fn https_tracker(authority: &Authority) -> (String, Recorded) {
    let (certificate, key) = authority.server_certificate();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("TLS versions")
    .with_no_client_auth()
    .with_single_cert(vec![certificate], key)
    .expect("the server certificate fits its key");
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let recorded = Recorded::default();
    let app = tracker_api::app().layer(middleware::from_fn_with_state(recorded.clone(), record));
    let (port_sender, port) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        runtime.block_on(async move {
            let tcp = TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a free port on 127.0.0.1");
            port_sender
                .send(tcp.local_addr().expect("its address").port())
                .expect("the test waits for the port");
            axum::serve(TlsListener { tcp, acceptor }, app)
                .await
                .expect("the HTTPS tracker serves");
        });
    });
    let port = port
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the HTTPS tracker listens");
    (format!("https://localhost:{port}"), recorded)
}

async fn record(
    axum::extract::State(recorded): axum::extract::State<Recorded>,
    request: Request,
    next: Next,
) -> Response {
    let authorization = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    recorded.lock().expect("the record").push((
        request.method().to_string(),
        request.uri().to_string(),
        authorization,
    ));
    next.run(request).await
}

/// Calls `get_issue_by_key` on the tracker mirror with the API at `base_url` and only the
/// certificates of `roots` (a PEM file) trusted.
fn get_issue_by_key(base_url: &str, roots: &Path) -> Value {
    let server = Server::Mirror;
    let roots = roots.to_str().expect("a UTF-8 path");
    let no_dir = roots.to_owned() + ".no-such-dir";
    call_over_stdio(
        server.binary(),
        &[
            (server.base_url_env(), base_url),
            (server.token_env(), TOKEN),
            ("SSL_CERT_FILE", roots),
            ("SSL_CERT_DIR", &no_dir),
        ],
        &[],
        "get_issue_by_key",
        json!({ "issue_key": "WEB-1" }),
    )
}

#[test]
fn a_server_calls_an_https_api_whose_certificate_a_trusted_root_signed() {
    let authority = Authority::new();
    let (base_url, recorded) = https_tracker(&authority);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let roots = folder.path().join("roots.pem");
    std::fs::write(&roots, &authority.pem).expect("the roots are written");

    let result = get_issue_by_key(&base_url, &roots);

    assert_ne!(result["isError"], json!(true), "the call failed: {result}");
    assert_eq!(
        result["structuredContent"]["key"],
        json!("WEB-1"),
        "{result}"
    );
    assert_eq!(
        *recorded.lock().expect("the record"),
        vec![(
            "GET".to_owned(),
            "/v2/issues/by-key/WEB-1".to_owned(),
            Some(format!("Bearer {TOKEN}")),
        )],
        "the one request the API received over TLS"
    );
}

#[test]
fn a_certificate_no_trusted_root_signed_is_refused_and_nothing_is_sent() {
    let authority = Authority::new();
    let (base_url, recorded) = https_tracker(&authority);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let roots = folder.path().join("other-roots.pem");
    std::fs::write(&roots, Authority::new().pem).expect("the roots are written");

    let result = get_issue_by_key(&base_url, &roots);

    assert_eq!(
        result["isError"],
        json!(true),
        "the call succeeded: {result}"
    );
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("its TLS certificate is not accepted: invalid peer certificate"),
        "the error says the API's certificate was not trusted, and why: {text}"
    );
    assert!(
        text.contains("SSL_CERT_FILE"),
        "the error says how the user makes the server trust a private authority: {text}"
    );
    assert!(
        text.contains("calling again will not help") && !text.contains("tries"),
        "a refused certificate is not tried again, and the model is told so: {text}"
    );
    assert!(
        recorded.lock().expect("the record").is_empty(),
        "no request reached the API over an untrusted connection"
    );
}
