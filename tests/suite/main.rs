//! The test suite of mcpgen, as one test binary: one module per part (the command line, the
//! golden crates, the curation features, the generated servers end to end against real upstreams
//! and real MCP clients, ...) and `support`, what they share.
//!
//! One binary links the dependencies once instead of once per part. Run one part with
//! `scripts/test --test suite PART::` (for instance `scripts/test --test suite cli_check::`), and
//! one test by its path (`scripts/test --test suite -- --exact
//! e2e::python_http_legacy::lists_the_ten_tools_in_document_order`).

#[path = "../support/mod.rs"]
mod support;

mod acceptance;
mod bodies;
mod cli;
mod cli_build;
mod cli_check;
mod cli_diff;
mod cli_help;
mod cli_init;
mod cli_tools;
mod clients;
mod conformance;
mod corpus;
mod curated_e2e;
mod curation_features;
mod discovery;
mod e2e;
mod generated_crates;
mod golden;
mod http_transport;
mod large_specs;
mod oauth;
mod petstore;
mod real_apis;
mod schema_validity;
mod soundness;
mod spec_check;
mod spec_semantics;
mod stdio_transport;
mod tls_upstream;
mod upstream;
