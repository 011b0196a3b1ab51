//! The stdio transport whatever stdin and stdout are: pipes (as Python's and Rust's clients spawn
//! a server; the end-to-end tests cover them), a socket (as Node's `child_process` does), or
//! regular files, which the server reads and writes through tokio's blocking stdin and stdout.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support;

/// A stateless (2026-07-28) `tools/list` request, which needs no handshake.
fn tools_list(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/list",
        "params": { "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { "name": "mcpgen-tests", "version": "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
        } },
    })
}

fn server() -> Command {
    let mut command = Command::new(support::tracker_mcp());
    command
        .env("TRACKER_MIRROR_BASE_URL", "http://127.0.0.1:9")
        .env("TRACKER_MIRROR_TOKEN", "unused")
        .stderr(Stdio::inherit());
    command
}

/// Waits for the server to end by itself, or kills it after `timeout`; whether it ended.
fn ended_within(child: &mut Child, timeout: Duration) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        if child
            .try_wait()
            .expect("the server can be waited for")
            .is_some()
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

fn tool_names(response: &Value) -> Vec<&str> {
    response["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {response}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default())
        .collect()
}

#[test]
fn over_one_socket_for_stdin_and_stdout_two_requests_get_their_answers_in_turn() {
    let (ours, theirs) = UnixStream::pair().expect("a socket pair");
    let mut child = server()
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(
            theirs.try_clone().expect("dup"),
        )))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .spawn()
        .expect("the server starts");
    ours.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a read timeout");
    let mut reader = BufReader::new(ours.try_clone().expect("dup"));
    let mut writer = ours;
    for id in [1, 2] {
        writeln!(writer, "{}", tools_list(id)).expect("the request is written");
        let mut line = String::new();
        reader.read_line(&mut line).expect("an answer within 20 s");
        let response: Value = serde_json::from_str(&line).expect("a JSON-RPC answer");
        assert_eq!(response["id"], id, "{response}");
        assert!(tool_names(&response).contains(&"list_issues"), "{response}");
    }
    writer
        .shutdown(std::net::Shutdown::Write)
        .expect("stdin closes");
    assert!(
        ended_within(&mut child, Duration::from_secs(10)),
        "the server ends when the client closes its stdin"
    );
}

#[test]
fn from_a_file_to_a_file_every_request_is_answered_and_the_server_ends_at_the_end_of_the_file() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let requests = scratch.path().join("requests.jsonl");
    let answers = scratch.path().join("answers.jsonl");
    std::fs::write(&requests, format!("{}\n{}\n", tools_list(1), tools_list(2)))
        .expect("the requests are written");
    let mut child = server()
        .stdin(std::fs::File::open(&requests).expect("the requests open"))
        .stdout(std::fs::File::create(&answers).expect("the answers file is created"))
        .spawn()
        .expect("the server starts");
    assert!(
        ended_within(&mut child, Duration::from_secs(20)),
        "the server ends at the end of its input"
    );
    let written = std::fs::read_to_string(&answers).expect("the answers are readable");
    let mut ids: Vec<Value> = written
        .lines()
        .map(|line| {
            let response: Value = serde_json::from_str(line).expect("a JSON-RPC answer");
            assert!(tool_names(&response).contains(&"list_issues"), "{response}");
            response["id"].clone()
        })
        .collect();
    ids.sort_by_key(|id| id.as_u64());
    assert_eq!(ids, [json!(1), json!(2)], "{written}");
}

#[test]
fn from_a_pipe_to_a_file_the_answer_is_written_although_only_stdin_could_be_event_driven() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let answers = scratch.path().join("answers.jsonl");
    let mut child = server()
        .stdin(Stdio::piped())
        .stdout(std::fs::File::create(&answers).expect("the answers file is created"))
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{}", tools_list(7)).expect("the request is written");
    drop(stdin);
    assert!(
        ended_within(&mut child, Duration::from_secs(20)),
        "the server ends when its stdin closes"
    );
    let written = std::fs::read_to_string(&answers).expect("the answers are readable");
    let response: Value = serde_json::from_str(written.trim()).expect("one JSON-RPC answer");
    assert_eq!(response["id"], 7, "{response}");
    assert!(tool_names(&response).contains(&"list_issues"), "{response}");
}

/// The lines a server's stdout carries, read on a thread of their own so that a test can wait
/// for the next one with a deadline.
fn lines_of(stdout: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<Value> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|error| {
                panic!("stdout carries a line that is not JSON ({error}): {line}")
            });
            if sender.send(message).is_err() {
                break;
            }
        }
    });
    receiver
}

#[test]
fn lines_that_are_not_one_message_get_the_protocols_errors_and_the_next_request_is_answered() {
    let mut child = server()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let answers = lines_of(child.stdout.take().expect("stdout"));
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_object = format!("{}1{}", r#"{"a":"#.repeat(10_000), "}".repeat(10_000));
    let batch = json!([tools_list(1), tools_list(2)]).to_string();
    let mut input = Vec::new();
    for line in [
        deep.as_bytes(),
        deep_object.as_bytes(),
        b"\xff\xfe not UTF-8 \xc3\x28",
        b"this is not JSON",
        batch.as_bytes(),
        br#""a string""#,
        // A notification nobody knows: JSON-RPC answers no notification.
        br#"{"jsonrpc":"2.0","method":"notifications/nobody-knows"}"#,
    ] {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    writeln!(input, "{}", tools_list(5)).expect("the request is buffered");
    stdin.write_all(&input).expect("the lines are written");
    stdin.flush().expect("the lines are sent");

    let next = || {
        answers
            .recv_timeout(Duration::from_secs(20))
            .expect("an answer within 20 s")
    };
    let mut errors = Vec::new();
    let listed = loop {
        let answer = next();
        if answer["id"] == 5 {
            break answer;
        }
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["id"], Value::Null, "{answer}");
        errors.push((
            answer["error"]["code"]
                .as_i64()
                .unwrap_or_else(|| panic!("no error code in {answer}")),
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        ));
    };
    assert!(tool_names(&listed).contains(&"list_issues"), "{listed}");
    // The answers to the six bad lines may all come before the list, or some after it.
    while errors.len() < 6 {
        let answer = next();
        assert_eq!(answer["id"], Value::Null, "{answer}");
        errors.push((
            answer["error"]["code"].as_i64().unwrap_or_default(),
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        ));
    }
    let mut codes: Vec<i64> = errors.iter().map(|(code, _)| *code).collect();
    codes.sort_unstable();
    assert_eq!(
        codes,
        [-32700, -32700, -32700, -32700, -32600, -32600],
        "{errors:?}"
    );
    let said = |words: &str| {
        errors
            .iter()
            .filter(|(_, message)| message.contains(words))
            .count()
    };
    assert_eq!(said("recursion limit exceeded"), 2, "{errors:?}");
    assert_eq!(said("is not UTF-8"), 1, "{errors:?}");
    assert_eq!(said("batches are not supported"), 1, "{errors:?}");
    assert_eq!(said("a JSON-RPC message is a JSON object"), 1, "{errors:?}");

    // Nothing more came for the notification: the next answer is the next request's.
    writeln!(stdin, "{}", tools_list(6)).expect("the request is written");
    let answer = next();
    assert_eq!(answer["id"], 6, "{answer}");
    drop(stdin);
    assert!(
        ended_within(&mut child, Duration::from_secs(10)),
        "the server ends when its stdin closes"
    );
}

#[test]
fn a_bad_last_line_of_a_file_is_answered_before_the_server_ends() {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let requests = scratch.path().join("requests.jsonl");
    let answers = scratch.path().join("answers.jsonl");
    std::fs::write(&requests, format!("{}\n{{not json\n", tools_list(1)))
        .expect("the requests are written");
    let mut child = server()
        .stdin(std::fs::File::open(&requests).expect("the requests open"))
        .stdout(std::fs::File::create(&answers).expect("the answers file is created"))
        .spawn()
        .expect("the server starts");
    assert!(
        ended_within(&mut child, Duration::from_secs(20)),
        "the server ends at the end of its input"
    );
    let written = std::fs::read_to_string(&answers).expect("the answers are readable");
    let answers: Vec<Value> = written
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON-RPC answer"))
        .collect();
    assert_eq!(answers.len(), 2, "{written}");
    let error = answers
        .iter()
        .find(|answer| answer["id"].is_null())
        .unwrap_or_else(|| panic!("no error answer in {written}"));
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert!(answers.iter().any(|answer| answer["id"] == 1), "{written}");
}
