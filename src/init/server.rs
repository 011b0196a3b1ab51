//! The opening of the file: the header comment with the build command, the `server` section, and
//! the `auth` section the spec's security schemes ask for.

use super::SCHEMA_URL;
use super::out::Out;
use super::text::{clip, one_line, scalar, shell_word};
use crate::api::{Api, SecurityScheme};
// The schemes the spec asks for by default, exactly as the generated server picks them when the
// file has no `auth`.
use crate::plan::required_schemes;

pub(super) fn header(out: &mut Out, api: &Api, spec: &str, file: &str) {
    out.line(&format!("# yaml-language-server: $schema={SCHEMA_URL}"));
    out.line("#");
    let title = clip(&one_line(&api.title), 60);
    let version = clip(&one_line(&api.version), 30);
    let about = match (title.is_empty(), version.is_empty()) {
        (false, false) => format!("{title} {version}"),
        (false, true) => title,
        (true, _) => "this API".to_string(),
    };
    out.prose(
        "# ",
        &format!(
            "A starter curation file for {about}, written by `mcpgen init`. As written, every \
             operation of the API is a tool of its own. Curate it: write a few tools shaped for \
             the model's tasks under `tools:` (the commented examples below use this API's own \
             operations), then set `operations.mirror: none`. Every key is described in the \
             README and in `mcpgen schema`. Build the server with:"
        ),
    );
    out.line(&format!(
        "#   mcpgen build {} -c {}",
        one_line(&shell_word(spec)),
        one_line(&shell_word(file))
    ));
    out.blank();
}

pub(super) fn server(out: &mut Out, api: &Api, name: &str, env: &str, prefix: &str) {
    out.line("server:");
    out.note(
        &format!("  name: {name}"),
        &format!("crate {name}-mcp, environment variables {env}_*"),
    );
    out.note(
        &format!("  prefix: {prefix}"),
        "every tool name starts with it",
    );
    out.note(
        "  # instructions: >-",
        "guidance for the model about the whole server",
    );
    let title = clip(&one_line(&api.title), 60);
    let title = if title.is_empty() {
        "this API".to_string()
    } else {
        title
    };
    out.prose(
        "  #   ",
        &format!(
            "Tools for {title}. Say what the tools are for, how things are named (keys, names, \
             `me`) and which tool to start with."
        ),
    );
    out.note(
        "  # tools_list_ttl_seconds: 86400",
        "how long clients may cache tools/list (default one day)",
    );
    out.note(
        "  # cache_scope: public",
        "public (default) or private: who may share a cached tools/list",
    );
    out.blank();
}

// ---------------------------------------------------------------------------------------------
// Auth

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum AuthKind {
    Bearer,
    ApiKey,
    Basic,
    ClientCredentials,
}

pub(super) fn kind_of(scheme: &SecurityScheme) -> Option<AuthKind> {
    match scheme {
        SecurityScheme::Bearer => Some(AuthKind::Bearer),
        SecurityScheme::ApiKey { .. } => Some(AuthKind::ApiKey),
        SecurityScheme::Basic => Some(AuthKind::Basic),
        SecurityScheme::OAuth2ClientCredentials { .. } => Some(AuthKind::ClientCredentials),
        SecurityScheme::Unsupported { .. } => None,
    }
}

/// The `auth` entry (`key: { … }`) for a scheme of `kind`, with the spec's values when `scheme`
/// is given.
pub(super) fn auth_entry(kind: AuthKind, scheme: Option<&SecurityScheme>, env: &str) -> String {
    match kind {
        AuthKind::Bearer => format!("bearer: {{ env: {env}_TOKEN }}"),
        AuthKind::ApiKey => {
            let (location, name) = match scheme {
                Some(SecurityScheme::ApiKey { location, name }) => {
                    (location.as_str(), scalar(name, true))
                }
                _ => ("header", "X-API-Key".to_string()),
            };
            format!("api_key: {{ in: {location}, name: {name}, env: {env}_API_KEY }}")
        }
        AuthKind::Basic => {
            format!("basic: {{ username_env: {env}_USERNAME, password_env: {env}_PASSWORD }}")
        }
        AuthKind::ClientCredentials => {
            let token_url = match scheme {
                Some(SecurityScheme::OAuth2ClientCredentials { token_url })
                    if !token_url.is_empty() =>
                {
                    format!("token_url: {}, ", scalar(token_url, true))
                }
                _ => format!(
                    "token_url: {}, ",
                    scalar("https://auth.example.com/oauth/token", true)
                ),
            };
            format!(
                "oauth2_client_credentials: {{ {token_url}client_id_env: {env}_CLIENT_ID, \
                 client_secret_env: {env}_CLIENT_SECRET, scopes: [] }}"
            )
        }
    }
}

pub(super) fn auth_comment(kind: AuthKind, scheme_name: Option<&str>) -> String {
    let what = match kind {
        AuthKind::Bearer => "Authorization: Bearer <token>",
        AuthKind::ApiKey => "in: header, query or cookie",
        AuthKind::Basic => "HTTP basic authentication",
        AuthKind::ClientCredentials => "the server fetches its own token",
    };
    match scheme_name {
        Some(name) => format!("{} in the spec: {what}", clip(&one_line(name), 30)),
        None => what.to_string(),
    }
}

/// Writes the `auth` section; returns the environment variable holding the main credential, for
/// the error-message example.
pub(super) fn auth(out: &mut Out, api: &Api, env: &str) -> Option<String> {
    let required = required_schemes(api);
    let mut chosen: Vec<(&String, &SecurityScheme, AuthKind)> = Vec::new();
    let mut unsupported: Vec<(&String, &str)> = Vec::new();
    for name in &required {
        match api.security_schemes.get(*name) {
            Some(SecurityScheme::Unsupported { kind }) => unsupported.push((name, kind.as_str())),
            Some(scheme) => {
                let kind = kind_of(scheme).expect("a supported scheme");
                if !chosen.iter().any(|(_, _, k)| *k == kind) {
                    chosen.push((name, scheme, kind));
                }
            }
            None => {}
        }
    }
    // What the spec asks for by default cannot be sent: offer a scheme it declares that can.
    let fallback = chosen.is_empty() && !required.is_empty();
    if fallback
        && let Some((name, scheme)) = api
            .security_schemes
            .iter()
            .find(|(_, s)| kind_of(s).is_some())
    {
        chosen.push((name, scheme, kind_of(scheme).expect("a supported scheme")));
    }
    let declared = |kind: AuthKind| {
        api.security_schemes
            .iter()
            .find(|(_, s)| kind_of(s) == Some(kind))
            .map(|(name, scheme)| (name.as_str(), scheme))
    };
    let others: Vec<AuthKind> = [
        AuthKind::Bearer,
        AuthKind::ApiKey,
        AuthKind::Basic,
        AuthKind::ClientCredentials,
    ]
    .into_iter()
    .filter(|kind| !chosen.iter().any(|(_, _, k)| k == kind))
    .collect();

    if chosen.is_empty() {
        let why = if unsupported.is_empty() {
            "the spec asks for no credentials; uncomment one if the API wants them"
        } else {
            "the spec asks only for credentials the server cannot get by itself"
        };
        for (name, kind) in &unsupported {
            out.prose(
                "# ",
                &format!(
                    "The spec's scheme {} ({}) needs a sign-in the server cannot do by itself; \
                     with a token obtained elsewhere, use `bearer`.",
                    clip(&one_line(name), 30),
                    clip(&one_line(kind), 40)
                ),
            );
        }
        out.note("# auth:", why);
        for kind in others {
            let spec = declared(kind);
            out.note(
                &format!("#   {}", auth_entry(kind, spec.map(|s| s.1), env)),
                &auth_comment(kind, spec.map(|s| s.0)),
            );
        }
        out.blank();
        return None;
    }

    out.note(
        "auth:",
        "credentials for the API, from the server's environment only",
    );
    if fallback {
        for (name, kind) in &unsupported {
            out.prose(
                "  # ",
                &format!(
                    "The spec's default scheme {} ({}) needs an interactive sign-in the server \
                     cannot do; this scheme, which the spec also declares, can be sent instead.",
                    clip(&one_line(name), 30),
                    clip(&one_line(kind), 40)
                ),
            );
        }
    }
    // Several API keys at once (Trello's `key` and `token`): every one, each with the variable
    // the server reads without a file.
    let keys: Vec<(&String, &str, &String)> = required
        .iter()
        .filter_map(|name| match api.security_schemes.get(*name) {
            Some(SecurityScheme::ApiKey {
                location,
                name: key,
            }) => Some((*name, location.as_str(), key)),
            _ => None,
        })
        .collect();
    let zero_config = crate::plan::server_auth(api, None, env);
    for (name, scheme, kind) in &chosen {
        if *kind == AuthKind::ApiKey && keys.len() > 1 {
            out.note("  api_keys:", "the spec asks for all of these at once");
            let vars = zero_config.iter().filter_map(|auth| match auth {
                crate::plan::Auth::ApiKey { env, .. } => Some(env),
                _ => None,
            });
            for ((scheme_name, location, key), var) in keys.iter().zip(vars) {
                out.note(
                    &format!(
                        "    - {{ in: {location}, name: {}, env: {var} }}",
                        scalar(key, true)
                    ),
                    &auth_comment(AuthKind::ApiKey, Some(scheme_name)),
                );
            }
            continue;
        }
        out.note(
            &format!("  {}", auth_entry(*kind, Some(scheme), env)),
            &auth_comment(*kind, Some(name)),
        );
    }
    if !fallback {
        for (name, kind) in &unsupported {
            out.prose(
                "  # ",
                &format!(
                    "({} in the spec: {}, which the server cannot get by itself)",
                    clip(&one_line(name), 30),
                    clip(&one_line(kind), 40)
                ),
            );
        }
    }
    for kind in others {
        let spec = declared(kind);
        out.note(
            &format!("  # {}", auth_entry(kind, spec.map(|s| s.1), env)),
            &auth_comment(kind, spec.map(|s| s.0)),
        );
    }
    out.blank();
    Some(match chosen[0].2 {
        AuthKind::Bearer => format!("{env}_TOKEN"),
        AuthKind::ApiKey => format!("{env}_API_KEY"),
        AuthKind::Basic => format!("{env}_USERNAME and {env}_PASSWORD"),
        AuthKind::ClientCredentials => format!("{env}_CLIENT_ID and {env}_CLIENT_SECRET"),
    })
}
