//! The credentials the server sends to the API, as configured through environment variables,
//! and the warnings about those it was not given.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::tool::ToolError;

/// Where an API key goes.
#[derive(Clone, Copy, Debug)]
pub enum KeyLocation {
    Header,
    Query,
    Cookie,
}

/// Something that hands out a current access token (an OAuth2 client-credentials flow).
pub trait TokenSource: Send + Sync {
    fn token(&self) -> Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + '_>>;
}

/// One credential the server adds to every upstream request. Values come from the server's own
/// environment, never from the MCP client.
#[derive(Clone)]
pub enum Credential {
    Bearer(String),
    ApiKey {
        location: KeyLocation,
        name: &'static str,
        value: String,
    },
    Basic {
        username: String,
        password: Option<String>,
    },
    /// A bearer token fetched (and refreshed) by the server itself.
    Fetched(Arc<dyn TokenSource>),
    /// A credential the API describes that the server was not given: the environment variables
    /// that would give it (all of them, for one that takes more than one). Nothing is sent for it.
    Unset(&'static [&'static str]),
}

/// The variables that would give the server the credentials it was not given ("A", "A and B",
/// "A, B and C"): the server sends every credential it is configured with, so each unset one is
/// needed; `None` when nothing is unset.
pub(super) fn unset_credentials(credentials: &[Credential]) -> Option<String> {
    let unset: Vec<&str> = credentials
        .iter()
        .filter_map(|credential| match credential {
            Credential::Unset(variables) => Some(*variables),
            _ => None,
        })
        .flatten()
        .copied()
        .collect();
    match unset.as_slice() {
        [] => None,
        [one] => Some(one.to_string()),
        [init @ .., last] => Some(format!("{} and {last}", init.join(", "))),
    }
}

/// Says on stderr, once at start, which credentials the server was not given and which variables
/// would give them: a server started without its token otherwise says nothing until the API
/// refuses a call.
pub fn warn_unset_credentials(credentials: &[Credential]) {
    let Some(unset) = unset_credentials(credentials) else {
        return;
    };
    if sends_no_credential(credentials) {
        tracing::warn!(
            "no credentials for the API are set: set {unset} in the server's environment (or the \
             same name with `_FILE` added, naming a file that holds the value); until then the \
             server calls the API without credentials"
        );
    } else {
        tracing::warn!(
            "not every credential the API describes is set: {unset} (or the same name with \
             `_FILE` added) is not; requests go to the API without it"
        );
    }
}

/// Whether the server sends no credential at all although the API describes some.
pub(super) fn sends_no_credential(credentials: &[Credential]) -> bool {
    !credentials.is_empty()
        && credentials
            .iter()
            .all(|credential| matches!(credential, Credential::Unset(_)))
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credential::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Credential::ApiKey { location, name, .. } => {
                write!(f, "ApiKey({location:?} {name}: <redacted>)")
            }
            Credential::Basic { username, .. } => write!(f, "Basic({username}: <redacted>)"),
            Credential::Fetched(_) => f.write_str("Fetched(<redacted>)"),
            Credential::Unset(variables) => write!(f, "Unset({})", variables.join(", ")),
        }
    }
}

/// Reads an optional environment variable; an empty value counts as unset.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// Reads a credential from the server's environment: the variable `name`, or else the file
/// named by `{name}_FILE` (for secrets mounted as files), without its trailing line break. An
/// empty value counts as unset; a file that cannot be read is an error naming the file, never
/// its content.
pub fn secret_var(name: &str) -> anyhow::Result<Option<String>> {
    if let Some(value) = env_var(name) {
        return Ok(Some(value));
    }
    let file_variable = format!("{name}_FILE");
    let Some(path) = env_var(&file_variable) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|error| {
        anyhow::anyhow!("cannot read the file {path} named by {file_variable}: {error}")
    })?;
    let value = text.strip_suffix('\n').unwrap_or(&text);
    let value = value.strip_suffix('\r').unwrap_or(value);
    Ok(Some(value.to_string()).filter(|value| !value.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unset_credential_is_named_as_needed_since_the_server_sends_them_all() {
        assert_eq!(unset_credentials(&[]), None);
        assert_eq!(
            unset_credentials(&[Credential::Unset(&["A_KEY"])]).as_deref(),
            Some("A_KEY")
        );
        assert_eq!(
            unset_credentials(&[
                Credential::Unset(&["A_KEY"]),
                Credential::Unset(&["A_USER"])
            ])
            .as_deref(),
            Some("A_KEY and A_USER")
        );
        assert_eq!(
            unset_credentials(&[
                Credential::Unset(&["U", "P"]),
                Credential::Bearer("t".into()),
                Credential::Unset(&["K"]),
            ])
            .as_deref(),
            Some("U, P and K")
        );
    }
}
