//! The transports the server speaks MCP over: stdio ([`stdio`]) and streamable HTTP ([`http`]).

pub mod http;
pub mod stdio;

pub use http::*;
pub use stdio::*;

/// The async runtime for a transport. Over stdio the server answers one client, and one thread
/// does that with less memory and a faster start than a pool; over HTTP it serves many clients
/// at once, on every core.
pub fn async_runtime(many_clients: bool) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = if many_clients {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    builder.enable_all().build()
}
