//! An in-memory implementation of the Tracker API described by
//! `specs/tracker/openapi.yaml`: the upstream that mcpgen's end-to-end tests run the
//! generated tracker MCP server against, and what a newcomer starts to try it.
//!
//! Every fresh [`app`] holds the same seed data (see [`seed`]): projects WEB, API and
//! MOBILE, users alice, bob and carol (tokens `alice-token`, `bob-token`, `carol-token`),
//! 130 issues in WEB, 6 in API and 4 in MOBILE, with ids that are UUID v5 of readable
//! names. Changes made through the API are timestamped by a logical clock, so the
//! responses of a scripted session are always the same.

pub mod error;
pub mod handlers;
pub mod model;
pub mod seed;
pub mod store;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::RwLock;

use crate::store::Store;

/// The API with fresh seed data.
pub fn app() -> axum::Router {
    handlers::router(Arc::new(RwLock::new(Store::seeded())))
}

/// Serves a fresh [`app`] on `listener` until the process ends.
pub async fn serve(listener: TcpListener) -> std::io::Result<()> {
    axum::serve(listener, app()).await
}

/// Serves a fresh [`app`] on `listener` until `shutdown` completes, then finishes the
/// requests in flight.
pub async fn serve_with_shutdown(
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app())
        .with_graceful_shutdown(shutdown)
        .await
}
