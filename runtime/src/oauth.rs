//! OAuth: the server as an OAuth 2.1 protected resource over HTTP ([`resource`]) and, with the
//! `oauth-client` feature, an OAuth2 client-credentials token source for the API ([`client`]).

#[cfg(feature = "oauth-client")]
pub mod client;
pub mod resource;
mod signatures;

#[cfg(feature = "oauth-client")]
pub use client::*;
pub use resource::*;
