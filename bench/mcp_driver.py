"""A minimal MCP client for the benchmarks, over stdio (raw JSON-RPC lines) or Streamable HTTP
(one keep-alive connection to 127.0.0.1); standard library only.

Not the Python SDK on purpose: the figures measured here (start → first `tools/list`, the time of
one `tools/call`) are a few milliseconds, and an SDK client's own work (pydantic models, anyio
task groups) would be most of them. This client writes one request and waits for one answer, so
what it times is the server. It speaks the 2025-11-25 handshake, which every server benchmarked
(rmcp, the TypeScript SDK 1.x, FastMCP) accepts.
"""

import http.client
import json
import os
import selectors
import socket
import subprocess
import time

PROTOCOL_VERSION = "2025-11-25"
CLIENT_INFO = {"name": "mcpgen-bench", "version": "1"}


class ServerError(Exception):
    pass


def list_tools(request):
    """Every page of `tools/list`, following `nextCursor`; `request(method, params)` -> result."""
    tools, cursor = [], None
    while True:
        result = request("tools/list", {"cursor": cursor} if cursor else {})
        tools.extend(result["tools"])
        cursor = result.get("nextCursor")
        if not cursor:
            return tools


def peak_rss_kib(pid):
    """A process's peak resident set (VmHWM) so far, in KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise ServerError("no VmHWM in /proc status")


class Session:
    """What both sessions share: a server process `proc` and a `request(method, params)`."""

    def call(self, name, arguments):
        """One `tools/call`; returns (seconds, result)."""
        started = time.perf_counter()
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        return time.perf_counter() - started, result

    def peak_rss_kib(self):
        """The server's peak resident set (VmHWM) so far."""
        return peak_rss_kib(self.proc.pid)


class StdioSession(Session):
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
        self.request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = list_tools(self.request)
        return time.perf_counter() - self.t_spawn, tools

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


class HttpSession(Session):
    """One server process serving MCP Streamable HTTP on a loopback port (`argv` must make it
    listen on 127.0.0.1:`port`), spoken to over one keep-alive connection; `start` runs the
    handshake and the first `tools/list`, timed from the spawn, as `StdioSession` does.

    The server may answer a POST with `application/json` or with a `text/event-stream` that
    carries the response (and perhaps notifications or requests of its own before it); a
    `Mcp-Session-Id` it hands out is sent back on every later request."""

    def __init__(self, argv, env, log_path, timeout, port, path="/mcp"):
        self.timeout = timeout
        self.port = port
        self.path = path
        self.log = open(log_path, "ab")
        self.log_path = log_path
        self.t_spawn = time.perf_counter()
        self.proc = subprocess.Popen(
            list(map(str, argv)), stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=env
        )
        self.connection = None
        self.session_id = None
        self.protocol_version = None  # sent as MCP-Protocol-Version once negotiated
        self.next_id = 0

    def _connect(self, deadline):
        """Polls until the port accepts; the connection that got through is the one kept."""
        while True:
            if self.proc.poll() is not None:
                raise ServerError(f"the server exited (exit {self.proc.returncode}) before listening: {self._last_log_line()}")
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                connection.connect()
            except ConnectionRefusedError:
                connection.close()
                if time.perf_counter() > deadline:
                    raise ServerError(f"127.0.0.1:{self.port} did not accept within {self.timeout} s")
                time.sleep(0.001)  # a refused loopback connect is cheap: poll finely, for the start time
                continue
            # http.client writes a request's headers and body separately: without TCP_NODELAY,
            # Nagle's algorithm would hold the body back until the headers are acknowledged.
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.connection = connection
            return

    def _last_log_line(self):
        self.log.flush()
        with open(self.log_path, "rb") as log:
            lines = log.read().decode(errors="replace").strip().splitlines()
        return lines[-1][-200:] if lines else "(no output)"

    def _post(self, message):
        """POSTs one JSON-RPC message; returns the answer to it (None for a notification)."""
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        deadline = time.perf_counter() + self.timeout
        self.connection.request("POST", self.path, body=json.dumps(message).encode(), headers=headers)
        response = self.connection.getresponse()
        session_id = response.getheader("Mcp-Session-Id")
        if session_id:
            self.session_id = session_id
        what = message["method"]
        if "id" not in message:  # a notification: 202 Accepted and no body
            response.read()
            if response.status not in (200, 202):
                raise ServerError(f"{what}: HTTP {response.status}")
            return None
        content_type = (response.getheader("Content-Type") or "").split(";")[0].strip()
        if response.status != 200:
            raise ServerError(f"{what}: HTTP {response.status}: {response.read()[:200].decode(errors='replace')}")
        if content_type == "application/json":
            answer = json.loads(response.read())
            if answer.get("id") != message["id"]:
                raise ServerError(f"{what}: the answer has id {answer.get('id')!r}")
        elif content_type == "text/event-stream":
            answer = self._read_events(response, message["id"], deadline, what)
        else:
            raise ServerError(f"{what}: unexpected Content-Type {content_type!r}")
        if "error" in answer:
            raise ServerError(f"{what}: {answer['error']}")
        return answer["result"]

    def _read_events(self, response, request_id, deadline, what):
        """The JSON-RPC response with `request_id` from an SSE stream: events are `data:` lines
        ended by a blank line; other fields (id, event, retry), comments, empty priming events
        and the server's own notifications or requests are skipped. The rest of the stream is
        read to its end so that the connection can carry the next request."""
        data, answer = [], None
        while True:
            if time.perf_counter() > deadline:
                raise ServerError(f"{what}: no complete answer within {self.timeout} s")
            line = response.readline()
            if not line:  # the stream ended
                break
            line = line.decode().rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif not line:  # the end of one event
                text, data = "\n".join(data), []
                if not text.strip():
                    continue  # a priming event (an id to resume from, no message)
                message = json.loads(text)
                if message.get("id") == request_id and "method" not in message:
                    answer = message
        if answer is None:
            raise ServerError(f"{what}: the event stream ended without the answer")
        return answer

    def request(self, method, params):
        self.next_id += 1
        return self._post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})

    def start(self):
        """Spawn → port accepts → handshake → every page of `tools/list`; returns (seconds since
        spawn, tools)."""
        self._connect(self.t_spawn + self.timeout)
        result = self.request(
            "initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        )
        self.protocol_version = result.get("protocolVersion", PROTOCOL_VERSION)
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = list_tools(self.request)
        return time.perf_counter() - self.t_spawn, tools

    def close(self):
        if self.connection:
            self.connection.close()
        # Killed, not asked: an HTTP server's graceful shutdown waits for its connections (actix:
        # up to 30 s), which measures nothing.
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=5)
        self.log.close()
