//! A chaos upstream: an HTTP/1.1 server on 127.0.0.1 that answers each request with the next
//! reply of a script the test sets — a JSON error, a stall, garbage, a huge or slow body, 429
//! with `Retry-After`, an echo of the `Authorization` header — and with a well-formed answer
//! once the script is used up. It records every request it gets, so a test can count tries.
//!
//! HTTP is written by hand here rather than served by a framework, because the failures must be
//! exact: a body that stops half way, headers sent long before the body, a length that is a lie.
//! Every connection serves one request and is closed (`Connection: close`). The server stops
//! when the [`Chaos`] is dropped.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The longest the server waits for a request's head and body.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head and body read.
const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// How the server answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `status` with a JSON `body` and extra headers.
    Json {
        status: u16,
        body: String,
        headers: Vec<(&'static str, String)>,
    },
    /// `status` with `body` as `content_type`; sent in chunks, without a length, when `chunked`.
    Raw {
        status: u16,
        content_type: &'static str,
        body: Vec<u8>,
        chunked: bool,
    },
    /// Reads the request, then says nothing for this long before closing the connection.
    Stall(Duration),
    /// Sends the head of a 200 JSON answer at once, then one byte of its body every `every`,
    /// `bytes` times.
    Trickle { every: Duration, bytes: usize },
    /// HTTP 401 with the request's `Authorization` header quoted in the JSON error message, as a
    /// careless API might.
    ReflectAuthorization,
}

impl Reply {
    /// `status` with a JSON body.
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply::Json {
            status,
            body: body.to_string(),
            headers: Vec::new(),
        }
    }

    /// HTTP 429 asking the caller to wait `seconds`.
    pub fn rate_limited(seconds: u64) -> Reply {
        Reply::Json {
            status: 429,
            body: r#"{"message":"Slow down."}"#.to_string(),
            headers: vec![("Retry-After", seconds.to_string())],
        }
    }
}

/// One request as the server got it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// The request target: path and query, as sent (still percent-encoded).
    pub target: String,
    /// Header names in lower case, with their values.
    pub headers: Vec<(String, String)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

#[derive(Default)]
struct State {
    script: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
}

/// The chaos upstream, listening on a loopback port until dropped.
pub struct Chaos {
    address: SocketAddr,
    state: Arc<State>,
    server: JoinHandle<()>,
}

impl Chaos {
    pub async fn start() -> Chaos {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port on 127.0.0.1 for the chaos upstream");
        let address = listener.local_addr().expect("the chaos upstream's address");
        let state = Arc::new(State::default());
        let shared = Arc::clone(&state);
        let server = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&shared);
                tokio::spawn(async move {
                    let _ = serve(stream, &state).await;
                });
            }
        });
        Chaos {
            address,
            state,
            server,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Answers the next requests with `replies`, in order; later ones get a good answer.
    pub fn script(&self, replies: impl IntoIterator<Item = Reply>) {
        let mut script = self.state.script.lock().expect("not poisoned");
        script.clear();
        script.extend(replies);
    }

    /// Every request received so far, and forgets them.
    pub fn take_requests(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.state.seen.lock().expect("not poisoned"))
    }
}

impl Drop for Chaos {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// A loopback URL where nothing listens: connecting to it is refused.
pub fn refusing_base_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port on 127.0.0.1");
    let address = listener.local_addr().expect("an address");
    drop(listener);
    format!("http://{address}")
}

async fn serve(mut stream: TcpStream, state: &State) -> std::io::Result<()> {
    let Some(seen) = tokio::time::timeout(READ_TIMEOUT, read_request(&mut stream))
        .await
        .ok()
        .flatten()
    else {
        return Ok(());
    };
    let reply = state
        .script
        .lock()
        .expect("not poisoned")
        .pop_front()
        .unwrap_or_else(|| good_answer(&seen));
    let authorization = seen.header("authorization").unwrap_or("").to_string();
    state.seen.lock().expect("not poisoned").push(seen);
    match reply {
        Reply::Json {
            status,
            body,
            headers,
        } => {
            let extra: String = headers
                .iter()
                .map(|(name, value)| format!("{name}: {value}\r\n"))
                .collect();
            write_whole(
                &mut stream,
                status,
                "application/json",
                &extra,
                body.as_bytes(),
            )
            .await
        }
        Reply::Raw {
            status,
            content_type,
            body,
            chunked: false,
        } => write_whole(&mut stream, status, content_type, "", &body).await,
        Reply::Raw {
            status,
            content_type,
            body,
            chunked: true,
        } => {
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await?;
            for chunk in body.chunks(16 * 1024) {
                stream
                    .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                    .await?;
                stream.write_all(chunk).await?;
                stream.write_all(b"\r\n").await?;
            }
            stream.write_all(b"0\r\n\r\n").await
        }
        Reply::Stall(duration) => {
            tokio::time::sleep(duration).await;
            Ok(())
        }
        Reply::Trickle { every, bytes } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {bytes}\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await?;
            for _ in 0..bytes {
                tokio::time::sleep(every).await;
                stream.write_all(b" ").await?;
            }
            Ok(())
        }
        Reply::ReflectAuthorization => {
            let body = serde_json::json!({
                "message": format!("The token in `Authorization: {authorization}` is not valid.")
            });
            write_whole(
                &mut stream,
                401,
                "application/json",
                "",
                body.to_string().as_bytes(),
            )
            .await
        }
    }
}

/// What a working API answers: a list for `GET /things`, the new thing for `POST /things`, the
/// thing itself for `GET /things/{id}`.
fn good_answer(seen: &Seen) -> Reply {
    let path = seen.target.split('?').next().unwrap_or("");
    let body = match (seen.method.as_str(), path) {
        ("GET", "/things") => serde_json::json!({"items": [{"id": "t1", "name": "first"}]}),
        ("POST", "/things") => serde_json::json!({"id": "t2", "name": "second"}),
        _ => serde_json::json!({"id": path.rsplit('/').next().unwrap_or(""), "name": "first"}),
    };
    let status = if seen.method == "POST" { 201 } else { 200 };
    Reply::json(status, body)
}

async fn write_whole(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    extra_headers: &str,
    body: &[u8],
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{extra_headers}Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    stream.shutdown().await
}

/// Reads one request's head and its body (by `Content-Length`); `None` if the connection ends
/// first or the request is too large.
async fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 || buffer.len() > MAX_REQUEST_BYTES {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_string();
    let target = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body_read = buffer.len() - (head_end + 4);
    while body_read < length.min(MAX_REQUEST_BYTES) {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        body_read += read;
    }
    Some(Seen {
        method,
        target,
        headers,
    })
}
