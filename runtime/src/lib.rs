//! What every MCP server mcpgen generates shares: the MCP server handler and its transports,
//! argument checking, the upstream HTTP client and the requests it sends, credentials, and the
//! translation of failures into tool results the model can act on; with features, the support
//! of curated tools (`curated`), an OAuth2 client-credentials token source (`oauth-client`) and
//! the discovery tools' search index (`search`). The checker of values against a tool's schemas
//! (`schema`) is part of the server, and mcpgen compiles schemas with it too.
//!
//! A generated crate either vendors these files as its `src/runtime/` folder, byte for byte
//! (this file as `src/runtime/mod.rs`, the unit tests left out), or depends on the published
//! crate (`mcpgen build --runtime-crate VERSION`) and names it `runtime` (`pub use
//! mcpgen_runtime as runtime;`). Its code reaches everything through `crate::runtime::…` either
//! way, and the files here name each other only through `super::` paths, which mean the same in
//! both places. A crate that vendors the folder receives every file, the same in every crate,
//! and declares this crate's features in its own `Cargo.toml` with those it uses on, so that
//! it compiles nothing it does not call (and warns of no dead code) and builds no dependency of
//! a part it leaves off.

#[cfg(feature = "server")]
pub mod arguments;
#[cfg(feature = "server")]
pub mod credentials;
#[cfg(feature = "curated")]
pub mod curated;
#[cfg(feature = "server")]
pub mod log;
#[cfg(feature = "server")]
pub mod oauth;
#[cfg(feature = "server")]
pub mod request;
#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "search")]
pub mod search;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod tool;
#[cfg(feature = "server")]
pub mod transport;
#[cfg(feature = "server")]
pub mod upstream;

#[cfg(feature = "server")]
pub use arguments::*;
#[cfg(feature = "server")]
pub use credentials::*;
#[cfg(feature = "server")]
pub use request::*;
#[cfg(feature = "server")]
pub use server::*;
#[cfg(feature = "server")]
pub use tool::*;
#[cfg(feature = "server")]
pub use transport::*;
#[cfg(feature = "server")]
pub use upstream::*;

#[cfg(all(test, feature = "server"))]
mod tests;
