//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the curated
//! servers over Streamable HTTP, for protocol 2026-07-28: the tracker server in front of the
//! tracker API, and the petstore server in front of a Prism mock of its document. Every scenario
//! the revision requires must pass, except those listed in `tests/conformance/baseline.yml`,
//! which call the fixture tools, prompts and resources of the suite's reference server.
//!
//! Needs `MCPGEN_TEST_NODE22`, `MCPGEN_TEST_CONFORMANCE` and `MCPGEN_TEST_PRISM`, which
//! `scripts/test` installs under `target/` and sets. Everything listens on 127.0.0.1; every
//! process started here is killed when its guard drops; every wait is bounded.

use std::fs::File;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support;
use crate::support::{HttpServer, Server, Upstream};

/// The longest one run of the suite may take (it runs each scenario with its own timeout).
const SUITE_TIMEOUT: Duration = Duration::from_secs(8 * 60);
/// The longest Prism or the petstore server may take to accept connections.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(45);

fn required_env(name: &str, what: &str) -> PathBuf {
    let value = std::env::var_os(name).unwrap_or_else(|| {
        panic!("{name} is not set: run the tests with scripts/test, which installs {what}")
    });
    PathBuf::from(value)
}

/// A child process, killed when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn read(path: &Path) -> String {
    let mut text = String::new();
    let _ = File::open(path).and_then(|mut file| file.read_to_string(&mut text));
    text
}

fn free_address() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port on 127.0.0.1")
}

/// Waits until `address` accepts connections or `child` exits; panics with `log` otherwise.
fn wait_until_listening(child: &mut Guard, address: SocketAddr, what: &str, log: &Path) {
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    loop {
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!("{what} exited ({status}):\n{}", read(log));
        }
        if std::net::TcpStream::connect(address).is_ok() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on {address} within {STARTUP_TIMEOUT:?}:\n{}",
            read(log)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs the suite's 2026-07-28 server scenarios against `url` with the baseline, and fails with
/// the suite's report when it does not pass.
fn run_suite(url: &str, what: &str) {
    let node = required_env("MCPGEN_TEST_NODE22", "Node 22");
    let suite = required_env("MCPGEN_TEST_CONFORMANCE", "the conformance suite");
    let baseline = support::repo().join("tests/conformance/baseline.yml");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let log = scratch.path().join("suite.log");
    let out = File::create(&log).expect("a file for the suite's output");
    let child = Command::new(&node)
        .arg(&suite)
        .args(["server", "--url", url, "--requirements", "2026-07-28"])
        .arg("--expected-failures")
        .arg(&baseline)
        .arg("-o")
        .arg(scratch.path().join("results"))
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("a second handle"))
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", node.display()));
    let mut suite_process = Guard(child);
    let deadline = Instant::now() + SUITE_TIMEOUT;
    let status = loop {
        if let Some(status) = suite_process.0.try_wait().expect("the suite's status") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the conformance suite did not finish within {SUITE_TIMEOUT:?}:\n{}",
            read(&log)
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        status.success(),
        "the conformance suite failed against the {what} ({status}); a scenario that fails only \
         because it needs the reference server's fixtures belongs in {} with the reason:\n{}",
        baseline.display(),
        read(&log)
    );
}

#[test]
fn the_curated_tracker_server_passes_the_2026_07_28_conformance_suite() {
    // The server and its upstream run on this runtime; the suite is waited for on another thread.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    Server::Curated.binary();
    let upstream = runtime.block_on(Upstream::start());
    let server = runtime.block_on(HttpServer::start_server(Server::Curated, &upstream));
    let url = server.url().to_owned();
    std::thread::spawn(move || run_suite(&url, "curated tracker server"))
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    drop(server);
    drop(upstream);
}

#[test]
fn the_curated_petstore_server_passes_the_2026_07_28_conformance_suite() {
    let prism = required_env("MCPGEN_TEST_PRISM", "Prism");
    let binary = support::build_crate(
        &support::repo().join("generated-examples/petstore-mcp"),
        "petstore-mcp",
    )
    .unwrap_or_else(|message| panic!("{message}"));
    let scratch = tempfile::tempdir().expect("a scratch directory");

    let prism_address = free_address();
    let prism_log = scratch.path().join("prism.log");
    let prism_out = File::create(&prism_log).expect("a file for Prism's log");
    let mut prism = Guard(
        Command::new(&prism)
            .arg("mock")
            .arg(support::repo().join("tests/corpus/swagger-petstore-v3/openapi.yaml"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &prism_address.port().to_string(),
                "--errors",
            ])
            .stdin(Stdio::null())
            .stdout(prism_out.try_clone().expect("a second handle"))
            .stderr(prism_out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", prism.display())),
    );
    wait_until_listening(&mut prism, prism_address, "Prism", &prism_log);

    let server_address = free_address();
    let server_log = scratch.path().join("server.log");
    let server_out = File::create(&server_log).expect("a file for the server's log");
    let mut server = Guard(
        Command::new(&binary)
            .args([
                "--transport",
                "http",
                "--listen",
                &server_address.to_string(),
            ])
            .args(["--base-url", &format!("http://{prism_address}")])
            .env("PETSTORE_TOKEN", "petstore-conformance-token")
            .env_remove("PETSTORE_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(server_out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display())),
    );
    wait_until_listening(
        &mut server,
        server_address,
        "the petstore server",
        &server_log,
    );

    run_suite(
        &format!("http://{server_address}/mcp"),
        "curated petstore server",
    );
}
