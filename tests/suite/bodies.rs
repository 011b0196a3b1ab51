//! Request bodies other than JSON, sent by a generated server to a real upstream: a
//! `multipart/form-data` body with text fields, lists, and files given as base64 or as a path
//! inside the folder the server's operator allows (`<NAME>_UPLOAD_DIR`), and never outside it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

use crate::support;

/// The server generated from `tests/fixtures/uploads.yaml` (clippy clean), built once per test
/// process.
fn uploads_server() -> PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            support::generate_and_build(
                "uploads-mcp",
                &support::repo().join("tests/fixtures/uploads.yaml"),
                None,
            )
        })
        .clone()
}

/// Every part of every multipart request the upstream received.
type Received = Arc<Mutex<Vec<Vec<Value>>>>;

/// `POST /documents`: answers 201 with the parts it parsed, in order.
async fn upload(
    State(received): State<Received>,
    mut form: Multipart,
) -> (StatusCode, axum::Json<Value>) {
    let mut parts = Vec::new();
    while let Some(field) = form
        .next_field()
        .await
        .expect("a well-formed multipart body")
    {
        let name = field.name().unwrap_or_default().to_string();
        let filename = field.file_name().map(str::to_string);
        let content_type = field.content_type().map(str::to_string);
        let bytes = field.bytes().await.expect("the part's bytes");
        parts.push(json!({
            "name": name,
            "filename": filename,
            "content_type": content_type,
            "text": String::from_utf8_lossy(&bytes),
        }));
    }
    received.lock().expect("lock").push(parts.clone());
    (StatusCode::CREATED, axum::Json(json!({ "parts": parts })))
}

/// Starts the upstream on a loopback port; returns its base URL and what it receives.
async fn start_upstream() -> (String, Received) {
    let received = Received::default();
    let app = axum::Router::new()
        .route("/documents", axum::routing::post(upload))
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}"), received)
}

/// Calls `upload_document` once over stdio with the official Rust client.
async fn call(
    binary: &Path,
    base_url: &str,
    upload_dir: Option<&Path>,
    arguments: Value,
) -> CallToolResult {
    let command = tokio::process::Command::new(binary).configure(|command| {
        command.env("UPLOADS_BASE_URL", base_url).kill_on_drop(true);
        match upload_dir {
            Some(dir) => command.env("UPLOADS_UPLOAD_DIR", dir),
            None => command.env_remove("UPLOADS_UPLOAD_DIR"),
        };
    });
    let client =
        ().serve(TokioChildProcess::new(command).expect("the server starts"))
            .await
            .expect("initialized");
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let request = CallToolRequestParams::new("upload_document").with_arguments(arguments);
    let result = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        client.call_tool(request),
    )
    .await
    .expect("the call answers within a minute")
    .expect("the call gets a result");
    let _ = client.cancel().await;
    result
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_multipart_body_carries_text_lists_and_files_from_base64_and_the_allowed_folder() {
    let binary = uploads_server();
    let (base_url, received) = start_upstream().await;
    let folder = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir(folder.path().join("scans")).expect("a subfolder");
    std::fs::write(folder.path().join("scans/page1.txt"), "first page").expect("a file");
    std::fs::write(folder.path().join("page2.txt"), "second page").expect("a file");

    let result = call(
        &binary,
        &base_url,
        Some(folder.path()),
        json!({
            "title": "Quarterly report",
            "tags": ["finance", "q3"],
            "file": { "content_base64": "aGVsbG8gd29ybGQ=", "filename": "report.txt", "content_type": "text/plain" },
            "attachments": [{ "path": "scans/page1.txt" }, { "path": "page2.txt", "content_type": "text/plain" }],
        }),
    )
    .await;
    assert_ne!(result.is_error, Some(true), "{}", text_of(&result));
    let parts = received
        .lock()
        .expect("lock")
        .pop()
        .expect("the upstream got one request");
    assert_eq!(
        parts,
        vec![
            json!({ "name": "title", "filename": null, "content_type": null, "text": "Quarterly report" }),
            json!({ "name": "tags", "filename": null, "content_type": null, "text": "finance" }),
            json!({ "name": "tags", "filename": null, "content_type": null, "text": "q3" }),
            json!({ "name": "file", "filename": "report.txt", "content_type": "text/plain", "text": "hello world" }),
            json!({ "name": "attachments", "filename": "page1.txt", "content_type": "application/octet-stream", "text": "first page" }),
            json!({ "name": "attachments", "filename": "page2.txt", "content_type": "text/plain", "text": "second page" }),
        ]
    );
    // The upload's reply is not its body sent back, so the tool answers structured, and with
    // the same JSON as text.
    let answer = result
        .structured_content
        .clone()
        .expect("the upload's answer is structured");
    assert_eq!(answer["parts"][3]["text"], "hello world");
    let as_text: serde_json::Value =
        serde_json::from_str(&text_of(&result)).expect("the text is the API's JSON reply");
    assert_eq!(as_text, answer);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_path_outside_the_allowed_folder_or_without_one_is_refused_before_anything_is_sent()
{
    let binary = uploads_server();
    let (base_url, received) = start_upstream().await;
    let outer = tempfile::tempdir().expect("a temporary folder");
    let allowed = outer.path().join("allowed");
    std::fs::create_dir(&allowed).expect("the allowed folder");
    std::fs::write(outer.path().join("secret.txt"), "not for upload").expect("a file outside");

    let climbing = call(
        &binary,
        &base_url,
        Some(&allowed),
        json!({ "title": "t", "file": { "path": "../secret.txt" } }),
    )
    .await;
    assert_eq!(climbing.is_error, Some(true));
    assert_eq!(
        text_of(&climbing),
        "Invalid arguments for POST /documents: `file.path`: \"../secret.txt\" is not a file inside the upload folder; give a path relative to it"
    );

    let absolute = outer.path().join("secret.txt");
    let absolute = call(
        &binary,
        &base_url,
        Some(&allowed),
        json!({ "title": "t", "file": { "path": absolute } }),
    )
    .await;
    assert_eq!(absolute.is_error, Some(true));
    assert!(
        text_of(&absolute).contains("is not a file inside the upload folder"),
        "{}",
        text_of(&absolute)
    );

    let no_folder = call(
        &binary,
        &base_url,
        None,
        json!({ "title": "t", "file": { "path": "a.txt" } }),
    )
    .await;
    assert_eq!(
        text_of(&no_folder),
        "Invalid arguments for POST /documents: `file.path`: this server reads no files (its operator can allow a folder with UPLOADS_UPLOAD_DIR); give `content_base64` instead"
    );

    let bad_base64 = call(
        &binary,
        &base_url,
        None,
        json!({ "title": "t", "file": { "content_base64": "not base64!" } }),
    )
    .await;
    assert_eq!(bad_base64.is_error, Some(true));
    assert!(
        text_of(&bad_base64).contains("`file.content_base64` is not valid base64"),
        "{}",
        text_of(&bad_base64)
    );

    let neither = call(
        &binary,
        &base_url,
        None,
        json!({ "title": "t", "file": { "filename": "x" } }),
    )
    .await;
    assert!(
        text_of(&neither).contains("`file` is a file: give"),
        "{}",
        text_of(&neither)
    );

    assert!(
        received.lock().expect("lock").is_empty(),
        "nothing reached the upstream"
    );
}
