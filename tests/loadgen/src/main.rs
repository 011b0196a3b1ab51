//! `loadgen --url URL --clients N --duration SECONDS`: N concurrent MCP clients, each with its own
//! HTTP connection, call one tool of a server over Streamable HTTP (2026-07-28, stateless
//! JSON-RPC POSTs) as fast as the server answers, for a fixed time. Meanwhile it samples the
//! server's resident memory (`VmRSS` of `/proc/PID/status`).
//!
//! With `--flood N` it first opens N more connections that never finish a request, held for the
//! whole run: half send nothing, half the start of a request head and then one header byte a
//! second (a slow-header client). The table then also gives how many the server still held at the
//! end and the most file descriptors the server held (`/proc/PID/fd`).
//!
//! Prints a table of the figures and exits 1 when any call failed (an HTTP error, a JSON-RPC
//! error or an `isError` result) or the server's memory kept growing; the run stops by itself.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{Value, json};

#[derive(Debug, Parser)]
#[command(about = "Load an MCP server over Streamable HTTP with concurrent tool calls.")]
struct Args {
    /// The server's MCP endpoint; must be on the loopback interface.
    #[arg(long)]
    url: String,
    /// How many clients call at once.
    #[arg(long, default_value_t = 50)]
    clients: usize,
    /// How long the clients call, in seconds.
    #[arg(long, default_value_t = 30)]
    duration: u64,
    /// The tool to call.
    #[arg(long, default_value = "tracker_search_issues")]
    tool: String,
    /// The tool's arguments, a JSON object.
    #[arg(long, default_value = r#"{"project":"WEB"}"#)]
    arguments: String,
    /// The server's process id, whose memory is sampled.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Connections that never finish a request, opened before the clients start and held for
    /// the run (half idle, half slow-header).
    #[arg(long, default_value_t = 0)]
    flood: usize,
}

/// What one client saw.
#[derive(Default)]
struct Outcome {
    latencies: Vec<Duration>,
    failures: Vec<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("loadgen: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<bool, String> {
    let host = reqwest::Url::parse(&args.url)
        .map_err(|e| format!("--url {}: {e}", args.url))?
        .host_str()
        .unwrap_or_default()
        .to_owned();
    if !matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]") {
        return Err(format!(
            "--url must be on the loopback interface, not {host}"
        ));
    }
    let arguments: Value =
        serde_json::from_str(&args.arguments).map_err(|e| format!("--arguments: {e}"))?;
    if args.clients == 0 || args.duration == 0 {
        return Err("--clients and --duration must be at least 1".into());
    }
    let request = Arc::new(
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": args.tool,
                "arguments": arguments,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": { "name": "loadgen", "version": "1" },
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        })
        .to_string(),
    );
    let duration = Duration::from_secs(args.duration);
    let started = Instant::now();
    let deadline = started + duration;

    let flood = if args.flood > 0 {
        let address = reqwest::Url::parse(&args.url)
            .ok()
            .and_then(|url| url.socket_addrs(|| None).ok())
            .and_then(|addresses| addresses.into_iter().next())
            .ok_or_else(|| format!("--url {}: no address", args.url))?;
        Some(open_flood(address, args.flood).await)
    } else {
        None
    };
    let flood_opened = flood.as_ref().map(Vec::len);
    let flood_task = flood.map(|streams| tokio::spawn(hold_flood(streams, deadline)));
    let sampler = args
        .server_pid
        .map(|pid| tokio::spawn(sample_rss(pid, deadline)));
    let mut clients = Vec::with_capacity(args.clients);
    for _ in 0..args.clients {
        let url = args.url.clone();
        let tool = args.tool.clone();
        let request = Arc::clone(&request);
        clients.push(tokio::spawn(async move {
            client(&url, &tool, &request, deadline).await
        }));
    }
    let mut latencies = Vec::new();
    let mut failures = Vec::new();
    for client in clients {
        let outcome = client
            .await
            .map_err(|e| format!("a client panicked: {e}"))?;
        latencies.extend(outcome.latencies);
        failures.extend(outcome.failures);
    }
    let elapsed = started.elapsed();
    let (rss, descriptors) = match sampler {
        Some(sampler) => {
            let (rss, descriptors) = sampler
                .await
                .map_err(|e| format!("the sampler panicked: {e}"))?;
            (Some(rss), descriptors.into_iter().max())
        }
        None => (None, None),
    };
    let flood_held = match flood_task {
        Some(task) => Some(task.await.map_err(|e| format!("the flood panicked: {e}"))?),
        None => None,
    };

    latencies.sort_unstable();
    let calls = latencies.len() + failures.len();
    let percentile = |p: f64| -> String {
        if latencies.is_empty() {
            return "-".into();
        }
        let index = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1;
        format!("{:.1} ms", latencies[index].as_secs_f64() * 1000.0)
    };
    let (rss_start, rss_peak, rss_end, growing) = match &rss {
        Some(samples) if !samples.is_empty() => {
            let peak = samples.iter().max().copied().unwrap_or(0);
            (
                samples[0],
                peak,
                *samples.last().unwrap_or(&0),
                keeps_growing(samples),
            )
        }
        _ => (0, 0, 0, false),
    };
    let kib = |value: u64| {
        if rss.is_some() {
            format!("{:.1} MiB", value as f64 / 1024.0)
        } else {
            "-".into()
        }
    };
    let or_dash = |value: Option<usize>| value.map_or_else(|| "-".to_string(), |v| v.to_string());
    let rows = [
        ("flood", args.flood.to_string()),
        ("flood opened", or_dash(flood_opened)),
        ("flood held", or_dash(flood_held)),
        ("server fds", or_dash(descriptors)),
        ("clients", args.clients.to_string()),
        ("duration", format!("{:.1} s", elapsed.as_secs_f64())),
        ("calls", calls.to_string()),
        ("failed calls", failures.len().to_string()),
        (
            "calls/s",
            format!("{:.0}", calls as f64 / elapsed.as_secs_f64()),
        ),
        ("p50 latency", percentile(0.50)),
        ("p99 latency", percentile(0.99)),
        ("RSS start", kib(rss_start)),
        ("RSS peak", kib(rss_peak)),
        ("RSS end", kib(rss_end)),
    ];
    println!("| {:<12} | {:>12} |", "figure", "value");
    println!("|{:-<14}|{:->14}|", "", "");
    for (name, value) in rows {
        println!("| {name:<12} | {value:>12} |");
    }
    if args.flood > 0 && calls == failures.len() {
        eprintln!("no call succeeded during the flood");
    }

    let mut ok = true;
    if !failures.is_empty() {
        ok = false;
        eprintln!("{} calls failed; the first ones:", failures.len());
        for failure in failures.iter().take(5) {
            eprintln!("  {failure}");
        }
    }
    if calls == 0 {
        ok = false;
        eprintln!("no call finished");
    }
    if growing {
        ok = false;
        eprintln!(
            "the server's memory kept growing: {:?} KiB",
            rss.unwrap_or_default()
        );
    }
    Ok(ok)
}

/// One client: its own connection, one call after another until `deadline`.
async fn client(url: &str, tool: &str, request: &str, deadline: Instant) -> Outcome {
    let http = match reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .timeout(Duration::from_secs(30))
        .build()
    {
        Ok(http) => http,
        Err(error) => {
            return Outcome {
                latencies: Vec::new(),
                failures: vec![format!("no HTTP client: {error}")],
            };
        }
    };
    let mut outcome = Outcome::default();
    while Instant::now() < deadline {
        let sent = Instant::now();
        match call(&http, url, tool, request).await {
            Ok(()) => outcome.latencies.push(sent.elapsed()),
            Err(failure) => outcome.failures.push(failure),
        }
    }
    outcome
}

/// One `tools/call`; an error says why it failed.
async fn call(http: &reqwest::Client, url: &str, tool: &str, request: &str) -> Result<(), String> {
    let response = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", tool)
        .body(request.to_owned())
        .send()
        .await
        .map_err(|e| format!("request failed: {e}"))?;
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|e| format!("cannot read the answer: {e}"))?;
    if !status.is_success() {
        return Err(format!("HTTP {status}: {body}"));
    }
    let message: Value = serde_json::from_str(&body)
        .ok()
        .or_else(|| {
            body.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .find(|message| message.get("id").is_some())
        })
        .ok_or_else(|| format!("no JSON-RPC response in: {body}"))?;
    if let Some(error) = message.get("error") {
        return Err(format!("JSON-RPC error: {error}"));
    }
    if message["result"]["isError"] == true {
        return Err(format!("isError result: {}", message["result"]));
    }
    Ok(())
}

/// Opens `count` connections to `address` at once; every other one sends the start of a request
/// head. A connection not established within 3 s is left out.
async fn open_flood(
    address: std::net::SocketAddr,
    count: usize,
) -> Vec<(bool, tokio::net::TcpStream)> {
    use tokio::io::AsyncWriteExt;
    let connecting: Vec<_> = (0..count)
        .map(|index| {
            tokio::spawn(async move {
                let connect = tokio::net::TcpStream::connect(address);
                let Ok(Ok(mut stream)) =
                    tokio::time::timeout(Duration::from_secs(3), connect).await
                else {
                    return None;
                };
                let slow = index % 2 == 1;
                if slow {
                    let _ = stream
                        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                        .await;
                }
                Some((slow, stream))
            })
        })
        .collect();
    let mut streams = Vec::with_capacity(count);
    for task in connecting {
        if let Ok(Some(stream)) = task.await {
            streams.push(stream);
        }
    }
    streams
}

/// Holds the flood until `deadline`, the slow ones sending a header byte a second, and returns how
/// many the server had not closed by then.
async fn hold_flood(mut streams: Vec<(bool, tokio::net::TcpStream)>, deadline: Instant) -> usize {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut open = vec![true; streams.len()];
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_secs(1).min(deadline - Instant::now())).await;
        for ((slow, stream), open) in streams.iter_mut().zip(open.iter_mut()) {
            if *open && *slow && stream.write_all(b"x").await.is_err() {
                *open = false;
            }
        }
    }
    let mut held = 0;
    let mut buffer = [0u8; 256];
    for ((_, stream), open) in streams.iter_mut().zip(open) {
        if !open {
            continue;
        }
        // Closed by the server: end-of-file or an error within 100 ms; anything else is held.
        match tokio::time::timeout(Duration::from_millis(100), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => {}
            _ => held += 1,
        }
    }
    held
}

/// The server's `VmRSS` in KiB and the descriptors it holds, every 250 ms until `deadline`.
async fn sample_rss(pid: u32, deadline: Instant) -> (Vec<u64>, Vec<usize>) {
    let mut descriptors = Vec::new();
    let mut samples = Vec::new();
    let mut ticker = tokio::time::interval(Duration::from_millis(250));
    while Instant::now() < deadline {
        ticker.tick().await;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let rss = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok());
        if let Some(rss) = rss {
            samples.push(rss);
        }
        if let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
            descriptors.push(entries.count());
        }
    }
    (samples, descriptors)
}

/// Whether memory kept growing: after the first third of the run (warm-up: connections, pools,
/// allocator arenas), the mean of the last third is more than 10% and 4 MiB above the mean of the
/// middle third.
fn keeps_growing(samples: &[u64]) -> bool {
    let third = samples.len() / 3;
    if third == 0 {
        return false;
    }
    let mean = |part: &[u64]| part.iter().sum::<u64>() as f64 / part.len() as f64;
    let middle = mean(&samples[third..2 * third]);
    let last = mean(&samples[2 * third..]);
    last > middle * 1.10 && last - middle > 4096.0
}

#[cfg(test)]
mod tests {
    use super::keeps_growing;

    #[test]
    fn memory_that_levels_off_after_warm_up_is_flat() {
        let samples = [
            10_000, 30_000, 40_000, 41_000, 41_500, 41_000, 41_200, 41_300, 41_100,
        ];
        assert!(!keeps_growing(&samples));
    }

    #[test]
    fn memory_that_climbs_to_the_end_keeps_growing() {
        let samples = [
            10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000,
        ];
        assert!(keeps_growing(&samples));
    }
}
