//! The dependencies of every generated crate, pinned in one sorted table so that all generated
//! servers build against the same, tested versions.

/// One dependency line of a generated `Cargo.toml`: name and the TOML after `=`.
pub const DEPENDENCIES: &[(&str, &str)] = &[
    ("anyhow", r#""1.0.100""#),
    ("base64", r#""0.23.1""#),
    // The log's times (the runtime's log.rs); already built for rmcp.
    (
        "chrono",
        r#"{ version = "0.4.45", default-features = false, features = ["std"] }"#,
    ),
    (
        "clap",
        r#"{ version = "4.6", features = ["env", "string"] }"#,
    ),
    // Bodies of the HTTP transport's requests and answers (the runtime's transport/http.rs);
    // already built for rmcp and reqwest.
    ("http-body-util", r#""0.1.3""#),
    ("httpdate", r#""1.0.3""#),
    (
        "hyper",
        r#"{ version = "1.8", features = ["http1", "server"] }"#,
    ),
    (
        "hyper-util",
        r#"{ version = "0.1.19", features = ["http1", "server", "server-graceful", "tokio"] }"#,
    ),
    // Not used by name: pins `url`'s international-domain back end to the unicode-rs one
    // (unicode-bidi, unicode-normalization), as idna_adapter's documentation describes, instead
    // of ICU4X's ten crates and their data tables; host names are mapped the same way.
    ("idna_adapter", r#""~1.1""#),
    // Access tokens (the runtime's oauth/resource.rs): no back end of jsonwebtoken's own (aws-lc-rs
    // is a C library built with cmake, RustCrypto 31 crates); signatures are checked with `ring`
    // below (oauth/signatures.rs). No PEM, since keys come as JWKs.
    (
        "jsonwebtoken",
        r#"{ version = "12.0.0", default-features = false }"#,
    ),
    // `$ref` fragments of the tools' schemas (the runtime's schema.rs); already built for
    // reqwest's URLs.
    ("percent-encoding", r#""2.3.2""#),
    // The patterns of the tools' schemas (the runtime's schema.rs, which says why it is not a
    // JSON Schema crate): a few seconds to build where `regex` takes half a minute.
    ("regex-lite", r#""0.1.9""#),
    (
        "reqwest",
        r#"{ version = "0.13.5", default-features = false, features = ["form", "json", "multipart", "query", "rustls-no-provider"] }"#,
    ),
    // The cryptography of access-token signatures (the runtime's oauth/signatures.rs): the same
    // ring that rustls uses for TLS below, so no second one is built.
    ("ring", r#""0.17.14""#),
    (
        "rmcp",
        r#"{ version = "3.11.0", default-features = false, features = ["server", "transport-io", "transport-streamable-http-server"] }"#,
    ),
    // TLS to the API: rustls on `ring` (reqwest's `rustls` feature would bring aws-lc-rs, a C
    // library built with cmake); runtime.rs installs the provider before any client is built.
    (
        "rustls",
        r#"{ version = "0.23.46", default-features = false, features = ["ring", "std", "tls12"] }"#,
    ),
    ("serde", r#"{ version = "1.0.228", features = ["derive"] }"#),
    (
        "serde_json",
        r#"{ version = "1.0.145", features = ["preserve_order"] }"#,
    ),
    ("serde_path_to_error", r#""0.1.20""#),
    ("subtle", r#""2.6""#),
    (
        "tokio",
        r#"{ version = "1.48", features = ["io-util", "macros", "net", "rt-multi-thread", "signal", "sync", "time"] }"#,
    ),
    ("tokio-util", r#"{ version = "0.7.17", features = ["rt"] }"#),
    ("tracing", r#""0.1.41""#),
];

#[cfg(test)]
mod tests {
    use super::DEPENDENCIES;

    #[test]
    fn the_dependency_table_is_sorted_and_has_no_duplicates() {
        let names: Vec<&str> = DEPENDENCIES.iter().map(|(name, _)| *name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
    }

    #[test]
    fn the_runtime_crate_depends_on_the_versions_generated_crates_pin() {
        let manifest = include_str!("../../runtime/Cargo.toml");
        let dependencies = manifest
            .split_once("\n[dependencies]\n")
            .expect("runtime/Cargo.toml has dependencies")
            .1;
        let mut checked = 0;
        for line in dependencies
            .lines()
            .take_while(|line| !line.starts_with('['))
        {
            let Some((name, spec)) = line.split_once(" = ") else {
                continue;
            };
            let expected = match DEPENDENCIES.iter().find(|(pinned, _)| *pinned == name) {
                // TLS is the runtime's `tls` feature (see runtime/Cargo.toml).
                Some((_, pinned)) if name == "reqwest" => pinned
                    .replace(r#", "rustls-no-provider"]"#, "]")
                    .replace(" }", ", optional = true }"),
                Some((_, pinned)) => match pinned.strip_suffix(" }") {
                    Some(table) => format!("{table}, optional = true }}"),
                    None => format!("{{ version = {pinned}, optional = true }}"),
                },
                // Only the discovery search's stemmer is not in the table (see Cargo.toml.jinja).
                None if name == "rust-stemmers" => {
                    r#"{ version = "1.2.0", optional = true }"#.into()
                }
                None => panic!(
                    "runtime/Cargo.toml depends on {name}, which generated crates do not pin"
                ),
            };
            assert_eq!(spec, expected, "{name}");
            checked += 1;
        }
        assert!(checked > 10, "read the runtime's dependencies: {checked}");
    }
}
