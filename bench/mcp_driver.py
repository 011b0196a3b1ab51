"""A minimal MCP client over stdio for the benchmarks: raw JSON-RPC lines, standard library only.

Not the Python SDK on purpose: the figures measured here (start → first `tools/list`, the time of
one `tools/call`) are a few milliseconds, and an SDK client's own work (pydantic models, anyio
task groups) would be most of them. This client writes one line and waits for one line, so what
it times is the server. It speaks the 2025-11-25 handshake, which every server benchmarked
(rmcp, the TypeScript SDK 1.x, FastMCP) accepts.
"""

import json
import os
import selectors
import subprocess
import time


class ServerError(Exception):
    pass


class StdioSession:
    """One server process, spawned over stdio; `start` runs the handshake and the first
    `tools/list`, timed from the spawn."""

    def __init__(self, argv, env, log_path, timeout):
        self.timeout = timeout
        self.log = open(log_path, "ab")
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env
        )
        self.buffer = b""
        self.next_id = 0
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def _send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def _read_line(self, deadline):
        while b"\n" not in self.buffer:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise ServerError(f"no answer within {self.timeout} s")
            if not self.selector.select(left):
                continue
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise ServerError(f"the server closed stdout (exit {self.proc.poll()})")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def request(self, method, params):
        self.next_id += 1
        request_id = self.next_id
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.perf_counter() + self.timeout
        while True:
            line = self._read_line(deadline)
            if not line.strip():
                continue
            message = json.loads(line)
            if message.get("id") != request_id or "method" in message:
                continue  # a notification or a request of the server's (logging, roots)
            if "error" in message:
                raise ServerError(f"{method}: {message['error']}")
            return message["result"]

    def start(self):
        """Handshake and every page of `tools/list`; returns (seconds since spawn, tools)."""
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "mcpgen-bench", "version": "1"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools, cursor = [], None
        while True:
            result = self.request("tools/list", {"cursor": cursor} if cursor else {})
            tools.extend(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                break
        return time.perf_counter() - self.t_spawn, tools

    def call(self, name, arguments):
        """One `tools/call`; returns (seconds, result)."""
        started = time.perf_counter()
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        return time.perf_counter() - started, result

    def peak_rss_kib(self):
        """The server's peak resident set (VmHWM) so far."""
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        raise ServerError("no VmHWM in /proc status")

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=3)
        self.selector.close()
        self.log.close()
