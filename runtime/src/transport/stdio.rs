//! MCP over this process's stdin and stdout, one JSON-RPC message a line.

use std::future::Future;
use std::sync::Arc;

use rmcp::{RoleServer, ServiceExt};
use serde_json::Value;

use super::super::server::McpServer;
use super::http::malformed_message;

/// Serves MCP over this process's stdin and stdout until the client closes them.
pub async fn serve_stdio<C: Send + Sync + 'static>(server: McpServer<C>) -> anyhow::Result<()> {
    let running = match stdio_on_event_loop()? {
        Some((input, output)) => server.serve(LineTransport::new(input, output)).await?,
        None => {
            let (input, output) = rmcp::transport::stdio();
            server.serve(LineTransport::new(input, output)).await?
        }
    };
    running.waiting().await?;
    Ok(())
}

/// The longest line read as one message over stdio, as rmcp's own stdio transport allows: a
/// longer one is answered with an error and skipped without being held in memory.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Newline-delimited JSON-RPC over a reader and a writer (the stdio transport), answering every
/// line that is not one message with the protocol's error (id null) and reading on. rmcp's own
/// stdio transport drops a line that is not JSON (invalid UTF-8 and nesting deeper than
/// serde_json's 128 levels included) without a word, which leaves a client waiting for an answer
/// that never comes; this one answers -32700 (parse error) for such a line, -32600 (invalid
/// request) for a batch array, any other non-object, or an over-long line, and like rmcp ignores
/// a notification it does not know (JSON-RPC never answers notifications).
struct LineTransport<R, W> {
    input: tokio::io::BufReader<R>,
    /// The line read so far; kept across calls, since `receive` is polled inside a `select!` and
    /// may be cancelled mid-line.
    line: Vec<u8>,
    /// Set while the rest of an over-long line is skipped.
    discarding: bool,
    output: Arc<tokio::sync::Mutex<W>>,
    /// The error answers being written, waited for before the transport ends.
    answers: tokio::task::JoinSet<()>,
}

impl<R, W> LineTransport<R, W>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    fn new(input: R, output: W) -> Self {
        LineTransport {
            input: tokio::io::BufReader::new(input),
            line: Vec::new(),
            discarding: false,
            output: Arc::new(tokio::sync::Mutex::new(output)),
            answers: tokio::task::JoinSet::new(),
        }
    }

    /// Writes `line` and a line break whole, after any line being written.
    fn write_line(
        &self,
        mut line: Vec<u8>,
    ) -> impl Future<Output = std::io::Result<()>> + Send + 'static {
        use tokio::io::AsyncWriteExt;
        line.push(b'\n');
        let output = self.output.clone();
        async move {
            let mut output = output.lock().await;
            output.write_all(&line).await?;
            output.flush().await
        }
    }

    /// Answers a line that is not a message. Written by a task of its own, so that `receive`
    /// being cancelled cannot cut the answer short.
    fn answer(&mut self, code: i64, message: String) {
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": code, "message": message },
        });
        let write = self.write_line(error.to_string().into_bytes());
        self.answers.spawn(async move {
            if let Err(error) = write.await {
                tracing::warn!("cannot write an error answer to stdout: {error}");
            }
        });
    }

    /// Reads up to the next line break into `self.line`, never letting it grow past
    /// [`MAX_LINE_BYTES`]: `Some(true)` for a whole line, `Some(false)` for an over-long one
    /// (dropped), `None` at the end of the input. Cancellation-safe: what is read stays in
    /// `self.line` for the next call.
    async fn read_line(&mut self) -> Option<bool> {
        use tokio::io::AsyncBufReadExt;
        loop {
            let available = match self.input.fill_buf().await {
                Ok([]) => return None,
                Ok(available) => available,
                Err(error) => {
                    tracing::warn!("cannot read stdin: {error}");
                    return None;
                }
            };
            let newline = available.iter().position(|byte| *byte == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let mut outcome = None;
            if self.discarding {
                self.discarding = newline.is_none();
            } else if self.line.len() + take > MAX_LINE_BYTES {
                self.line.clear();
                self.discarding = newline.is_none();
                outcome = Some(false);
            } else {
                self.line.extend_from_slice(&available[..take]);
                if newline.is_some() {
                    outcome = Some(true);
                }
            }
            self.input.consume(take);
            if outcome.is_some() {
                return outcome;
            }
        }
    }
}

/// Whether `message` is a notification that is not MCP's. rmcp hands one on as a custom
/// notification, and a server that gets one before its first request stops ("expect initialized
/// request"); this server acts on none, so the transport drops them, as rmcp's own stdio
/// transport means to (it drops only those it cannot parse).
fn is_unknown_notification(message: &rmcp::service::RxJsonRpcMessage<RoleServer>) -> bool {
    use rmcp::model::{ClientNotification, JsonRpcMessage, JsonRpcNotification};
    matches!(
        message,
        JsonRpcMessage::Notification(JsonRpcNotification {
            notification: ClientNotification::CustomNotification(_),
            ..
        })
    )
}

impl<R, W> rmcp::transport::Transport<RoleServer> for LineTransport<R, W>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item);
        let write = line.map(|line| self.write_line(line));
        async move { write?.await }
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleServer>> {
        loop {
            let Some(whole) = self.read_line().await else {
                // The answers to the last lines are written before the server ends.
                while self.answers.join_next().await.is_some() {}
                return None;
            };
            // Answers already written are forgotten.
            while self.answers.try_join_next().is_some() {}
            if !whole {
                self.answer(
                    -32600,
                    format!("Invalid Request: the message is over {MAX_LINE_BYTES} bytes"),
                );
                continue;
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            // A byte order mark may start JSON text (RFC 8259 §8.1).
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            let parsed = if text.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                Some(serde_json::from_slice(text))
            };
            let refusal = match parsed {
                None => None,
                Some(Ok(message)) => {
                    self.line = line;
                    self.line.clear();
                    if is_unknown_notification(&message) {
                        continue;
                    }
                    return Some(message);
                }
                Some(Err(_)) => match malformed_message(text, "the line") {
                    Some(refusal) => Some(refusal),
                    // An object, but not a message rmcp knows: a notification gets no answer;
                    // anything else is an invalid request.
                    None => serde_json::from_slice::<Value>(text)
                        .ok()
                        .filter(|message| message.get("id").is_some())
                        .map(|_| {
                            (
                                -32600,
                                "Invalid Request: not a JSON-RPC request or response".to_string(),
                            )
                        }),
                },
            };
            // The buffer's room is kept for the next line.
            self.line = line;
            self.line.clear();
            if let Some((code, message)) = refusal {
                self.answer(code, message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        use tokio::io::AsyncWriteExt;
        while self.answers.join_next().await.is_some() {}
        self.output.lock().await.shutdown().await
    }
}

/// One direction of the stdio transport.
type StdioInput = Box<dyn tokio::io::AsyncRead + Send + Unpin>;
type StdioOutput = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// stdin and stdout read and written on the runtime's own event loop, when both are pipes or
/// sockets (as when a client spawns the server): tokio's `stdin()` and `stdout()` hand every read
/// and write to a blocking thread, two thread switches more for every message. `None`, and
/// nothing changed, for a terminal or a file, which keep tokio's.
#[cfg(unix)]
fn stdio_on_event_loop() -> std::io::Result<Option<(StdioInput, StdioOutput)>> {
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;
    use std::os::unix::net::UnixStream;
    use tokio::net::unix::pipe;

    let input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    let (input_type, output_type) = (
        input.metadata()?.file_type(),
        output.metadata()?.file_type(),
    );
    // Both or neither: making one of them non-blocking would break tokio's blocking reads or
    // writes of it.
    if !(input_type.is_fifo() || input_type.is_socket())
        || !(output_type.is_fifo() || output_type.is_socket())
    {
        return Ok(None);
    }
    let socket = |file: std::fs::File| -> std::io::Result<tokio::net::UnixStream> {
        let stream = UnixStream::from(OwnedFd::from(file));
        stream.set_nonblocking(true)?;
        tokio::net::UnixStream::from_std(stream)
    };
    let input: StdioInput = match input_type.is_fifo() {
        true => Box::new(pipe::Receiver::from_file(input)?),
        false => Box::new(socket(input)?),
    };
    let output: StdioOutput = match output_type.is_fifo() {
        true => Box::new(pipe::Sender::from_file(output)?),
        false => Box::new(socket(output)?),
    };
    Ok(Some((input, output)))
}

#[cfg(not(unix))]
fn stdio_on_event_loop() -> std::io::Result<Option<(StdioInput, StdioOutput)>> {
    Ok(None)
}
