//! Parameters that carry a credential: an operation's `key` query parameter that is also the
//! spec's API-key scheme, or Slack's `token` that `auth` says carries the bearer token. The server
//! fills them from its own environment, so they leave the operations before anything else looks:
//! the checker, the planner, one-to-one and discovery tools all see operations without them, and
//! each operation keeps them in [`Operation::credentials`] for the client to send.

use std::borrow::Cow;

use serde_json::Value;

use super::Auth;
use crate::api::{Api, CredentialParam, CredentialSource, Location, Operation, SecurityScheme};

/// `api` with every parameter that carries a credential moved from the operations' parameters
/// and bodies to their [`Operation::credentials`]; borrowed as it is when no operation has one.
///
/// A parameter carries a credential when, in this order:
/// - an API key of `auth` has its name and location: the server sends that key with every
///   request, so the parameter is the key itself ([`CredentialSource::Sent`]), sent once;
/// - a credential of `auth` lists its name under `params`: it gets that credential, in the place
///   the operation puts it (a header, a query parameter, a cookie or a body property);
/// - an API-key security scheme of the spec has its name and location, and `auth` does not fill
///   it ([`CredentialSource::Missing`]): the model is not asked for it either; the checker
///   refuses a tool whose operation requires it.
pub fn carried<'a>(api: &'a Api, auth: &[Auth]) -> Cow<'a, Api> {
    let carries = |operation: &Operation| {
        operation
            .parameters
            .iter()
            .any(|p| source(api, auth, &p.name, Some(p.location)).is_some())
            || body_properties(operation).any(|name| source(api, auth, name, None).is_some())
    };
    if !api.operations.iter().any(carries) {
        return Cow::Borrowed(api);
    }
    let mut api = api.clone();
    let schemes = api.security_schemes.clone();
    for operation in &mut api.operations {
        let mut credentials = Vec::new();
        operation.parameters.retain(|p| {
            match source_in(&schemes, auth, &p.name, Some(p.location)) {
                Some(source) => {
                    credentials.push(CredentialParam {
                        name: p.name.clone(),
                        location: Some(p.location),
                        required: p.required,
                        source,
                    });
                    false
                }
                None => true,
            }
        });
        if let Some(body) = &mut operation.body {
            let names: Vec<String> = body
                .schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|properties| properties.keys().cloned())
                .collect();
            let required_names: Vec<String> = body
                .schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
            for name in names {
                let Some(source) = source_in(&schemes, auth, &name, None) else {
                    continue;
                };
                if let Some(properties) = std::sync::Arc::make_mut(&mut body.schema)
                    .get_mut("properties")
                    .and_then(Value::as_object_mut)
                {
                    properties.shift_remove(&name);
                }
                if let Some(required) = std::sync::Arc::make_mut(&mut body.schema)
                    .get_mut("required")
                    .and_then(Value::as_array_mut)
                {
                    required.retain(|r| r.as_str() != Some(name.as_str()));
                }
                credentials.push(CredentialParam {
                    required: body.required && required_names.contains(&name),
                    name,
                    location: None,
                    source,
                });
            }
        }
        operation.credentials = credentials;
    }
    Cow::Owned(api)
}

/// The names of the properties of `operation`'s object body.
fn body_properties(operation: &Operation) -> impl Iterator<Item = &String> {
    operation
        .body
        .as_ref()
        .and_then(|body| body.schema.get("properties"))
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.keys())
}

fn source(
    api: &Api,
    auth: &[Auth],
    name: &str,
    location: Option<Location>,
) -> Option<CredentialSource> {
    source_in(&api.security_schemes, auth, name, location)
}

/// Where the value of the parameter `name` at `location` (`None`: a body property) comes from,
/// when it carries a credential.
fn source_in(
    schemes: &indexmap::IndexMap<String, SecurityScheme>,
    auth: &[Auth],
    name: &str,
    location: Option<Location>,
) -> Option<CredentialSource> {
    if location == Some(Location::Path) {
        return None;
    }
    let same = |key_location: Location, key_name: &str| {
        location == Some(key_location) && same_name(key_location, key_name, name)
    };
    for entry in auth {
        if let Auth::ApiKey {
            location: key_location,
            name: key_name,
            ..
        } = entry
            && same(*key_location, key_name)
        {
            return Some(CredentialSource::Sent);
        }
    }
    for entry in auth {
        let listed = |params: &[String]| params.iter().any(|p| p == name);
        match entry {
            Auth::Bearer { params, .. } if listed(params) => return Some(CredentialSource::Bearer),
            Auth::ApiKey {
                name: key_name,
                params,
                ..
            } if listed(params) => return Some(CredentialSource::ApiKey(key_name.clone())),
            _ => {}
        }
    }
    schemes
        .iter()
        .find_map(|(scheme, definition)| match definition {
            SecurityScheme::ApiKey {
                location: key_location,
                name: key_name,
            } if same(*key_location, key_name) => Some(CredentialSource::Missing {
                scheme: scheme.clone(),
            }),
            _ => None,
        })
}

/// Whether the parameter `name` is the credential `key_name`: header names ignore case.
fn same_name(location: Location, key_name: &str, name: &str) -> bool {
    if location == Location::Header {
        key_name.eq_ignore_ascii_case(name)
    } else {
        key_name == name
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const SPEC: &str = r#"
openapi: 3.0.3
info: { title: Keys, version: "1" }
components:
  securitySchemes:
    header_key: { type: apiKey, in: header, name: X-Api-Key }
    query_key: { type: apiKey, in: query, name: api_key }
paths:
  /things/{token}:
    get:
      operationId: listThings
      parameters:
        - { name: x-api-key, in: header, required: true, schema: { type: string } }
        - { name: api_key, in: query, schema: { type: string } }
        - { name: token, in: query, required: true, schema: { type: string } }
        - { name: token, in: path, required: true, schema: { type: string } }
        - { name: q, in: query, schema: { type: string } }
      responses: { "200": { description: ok } }
"#;

    fn api() -> Api {
        crate::load::load_text(Path::new("openapi.yaml"), SPEC).expect("it loads")
    }

    fn key(location: Location, name: &str, params: &[&str]) -> Auth {
        Auth::ApiKey {
            location,
            name: name.into(),
            env: "KEYS_KEY".into(),
            params: params.iter().map(|p| p.to_string()).collect(),
        }
    }

    /// (name, location, source) of each parameter of `listThings` that carries a credential.
    fn carried_by(auth: &[Auth]) -> Vec<(String, Option<Location>, CredentialSource)> {
        let api = api();
        let carried = carried(&api, auth);
        let operation = &carried.operations[0];
        operation
            .credentials
            .iter()
            .map(|c| (c.name.clone(), c.location, c.source.clone()))
            .collect()
    }

    #[test]
    fn a_key_of_auth_is_its_parameter_whatever_the_case_of_a_header_name() {
        assert_eq!(
            carried_by(&[key(Location::Header, "X-API-KEY", &["token"])]),
            [
                (
                    "x-api-key".into(),
                    Some(Location::Header),
                    CredentialSource::Sent
                ),
                (
                    "api_key".into(),
                    Some(Location::Query),
                    CredentialSource::Missing {
                        scheme: "query_key".into()
                    }
                ),
                (
                    "token".into(),
                    Some(Location::Query),
                    CredentialSource::ApiKey("X-API-KEY".into())
                ),
            ],
            "a path parameter never carries a credential; `q` is the model's"
        );
        let api = api();
        let names: Vec<String> = carried(&api, &[key(Location::Header, "X-API-KEY", &["token"])])
            .operations[0]
            .parameters
            .iter()
            .map(|p| format!("{} {}", p.location.as_str(), p.name))
            .collect();
        assert_eq!(names, ["path token", "query q"]);
    }

    #[test]
    fn an_api_without_credential_parameters_is_borrowed_as_it_is() {
        let api = api();
        let bearer = Auth::Bearer {
            env: "KEYS_TOKEN".into(),
            params: Vec::new(),
        };
        let mut without = api.clone();
        without.security_schemes.clear();
        assert!(matches!(
            carried(&without, std::slice::from_ref(&bearer)),
            Cow::Borrowed(_)
        ));
        assert!(matches!(carried(&api, &[bearer]), Cow::Owned(_)));
    }
}
