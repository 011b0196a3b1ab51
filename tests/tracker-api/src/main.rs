//! `tracker-api --listen 127.0.0.1:PORT`: serves the Tracker API with fresh seed data.
//!
//! Once bound it prints one line, `listening on http://ADDRESS`, to stdout (port 0 is
//! replaced by the real port), so that tests can read where to connect. It stops on
//! SIGTERM or Ctrl-C.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use tokio::net::TcpListener;

/// Serve the in-memory Tracker API (specs/tracker/openapi.yaml) with fresh seed data.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080")]
    listen: String,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tracker-api: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &Args) -> Result<(), String> {
    let listener = TcpListener::bind(&args.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{address}")
        .and_then(|()| stdout.flush())
        .map_err(|e| format!("cannot write to stdout: {e}"))?;
    drop(stdout);
    tracker_api::serve_with_shutdown(listener, shutdown_signal())
        .await
        .map_err(|e| format!("server failed: {e}"))
}

/// Completes on Ctrl-C or, on Unix, SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            // Without a Ctrl-C handler, only SIGTERM (or a kill) stops the server.
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
    eprintln!("tracker-api: shutting down");
}
