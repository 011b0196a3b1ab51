#!/usr/bin/env python3
"""Builds of one server side by side under load: `tools/call` throughput and p99 over Streamable
HTTP (stateless 2026-07-28 requests, as `bench/run --figures throughput` sends them), `wrk` with
`--connections` connections for `--seconds` per run, the binaries alternating round by round so
that they see the same machine. For comparing two builds of a generated server (a dependency or
runtime change); `bench/side_by_side.py` gives the same pair's start, RSS and added latency.

    bench/throughput_side_by_side.py --rounds 5 --base-url http://127.0.0.1:4010 \\
        --tool tracker_search_issues --arguments '{"project": "WEB"}' OLD_BINARY NEW_BINARY

Each server gets `--base-url`, `--transport http` and `--listen` on a free loopback port; a token
its API needs comes from the environment as usual (`TRACKER_TOKEN=...`). Needs `wrk` (Debian's
package; `bench/run` installs it). Standard library only.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import LOGS, Service, free_port  # noqa: E402

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
}


def request_body(args):
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcpgen-bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": args.tool, "arguments": json.loads(args.arguments), "_meta": meta},
    })


def one_round(binary, args, script):
    """One server: started, one call checked, then `wrk`; (calls/s, p99 in ms)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = Service([binary, "--base-url", args.base_url, "--transport", "http", "--listen", f"127.0.0.1:{port}"],
                     env=dict(os.environ), name=f"throughput-{Path(binary).name}")
    try:
        server.wait_http(url, ok=lambda status: True)
        headers = dict(HEADERS, **{"Mcp-Name": args.tool})
        request = urllib.request.Request(url, data=request_body(args).encode(), headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = response.read().decode()
        if '"isError":true' in answer.replace(" ", "") or '"result"' not in answer:
            raise SystemExit(f"{binary}: {args.tool} does not succeed over HTTP: {answer[:300]}")
        proc = subprocess.run(
            ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.seconds}s", "--latency", "-s", script, url],
            capture_output=True, text=True, timeout=args.seconds + 60,
        )
        (LOGS / "wrk-side-by-side.log").open("a").write(f"== {binary}\n{proc.stdout}{proc.stderr}")
        if proc.returncode != 0 or "Non-2xx" in proc.stdout or "Socket errors" in proc.stdout:
            raise SystemExit(f"{binary}: errors under load, see {LOGS / 'wrk-side-by-side.log'}:\n{proc.stdout}")
        rate = float(re.search(r"Requests/sec:\s+([\d.]+)", proc.stdout).group(1))
        value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", proc.stdout).groups()
        return rate, float(value) * {"us": 1e-3, "ms": 1, "s": 1e3}[unit]
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base-url", required=True, help="the upstream, http://127.0.0.1:PORT")
    parser.add_argument("--tool", required=True)
    parser.add_argument("--arguments", default="{}", help="the tool's arguments, as JSON")
    parser.add_argument("--seconds", type=int, default=10, help="duration of one wrk run")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    LOGS.mkdir(parents=True, exist_ok=True)
    headers = dict(HEADERS, **{"Mcp-Name": args.tool})
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write("wrk.method = 'POST'\n")
        script.write(f"wrk.body = {json.dumps(request_body(args))}\n")
        script.writelines(f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}\n" for k, v in headers.items())
    try:
        results = {binary: [] for binary in args.binaries}
        for _ in range(args.rounds):
            for binary in args.binaries:
                results[binary].append(one_round(binary, args, script.name))
    finally:
        os.unlink(script.name)
    print(f"{args.rounds} rounds of {args.seconds} s, wrk -t{args.threads} -c{args.connections}, median [min–max]")
    for binary, rows in results.items():
        rates = [rate for rate, _ in rows]
        p99s = [p99 for _, p99 in rows]
        print(f"{binary}\n  throughput {statistics.median(rates):.0f} calls/s [{min(rates):.0f}–{max(rates):.0f}]; "
              f"p99 {statistics.median(p99s):.2f} ms [{min(p99s):.2f}–{max(p99s):.2f}]")


if __name__ == "__main__":
    main()
