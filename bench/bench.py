"""mcpgen and the peers side by side: the figures of issue 7, measured in one run, one table.

Run through `bench/run`, which installs the peers and builds what this needs; `bench/run --help`
lists the options. Standard library only (the peers' own environments run the peers).
"""

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import http.client
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mcp_driver import HttpSession, ServerError, StdioSession  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "target/bench"
WORK = BENCH / "work"
LOGS = BENCH / "logs"

PEERS = ["mcpgen", "openapi-mcp-generator", "fastmcp", "rmcp-openapi"]
GENERATORS = ["mcpgen", "openapi-mcp-generator"]  # the others generate nothing: run-time proxies
# The peers that serve MCP over Streamable HTTP only, with their endpoint's path: measured over
# HTTP (`HttpSession`), the others over stdio, and their cells say so.
HTTP_PEERS = {"rmcp-openapi": "/mcp"}

# One call per small input: the tool (found by operationId, whatever the generator's naming),
# its arguments, and the same request sent directly to the upstream.
CALLS = {
    "petstore": ("getPetById", {"petId": 1}, "/pet/1"),
    "tracker": ("getIssueByKey", {"issue_key": "WEB-1"}, "/v2/issues/by-key/WEB-1"),
}
# The bearer token each server sends (prism only checks that petstore's is there).
TOKENS = {"petstore": "bench-token", "tracker": "alice-token"}


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Statistics and the table


class Figure:
    """Repeated measurements of one figure for one peer; `failed` says why there are none."""

    def __init__(self, samples=(), unit="", failed=None, note=None, in_ratio=True):
        self.samples = list(samples)
        self.unit = unit
        self.failed = failed
        self.note = note
        self.in_ratio = in_ratio  # False: shown, but not "the best peer" (measured another way)

    @property
    def median(self):
        return statistics.median(self.samples) if self.samples else None

    def cell(self):
        if not self.samples:
            return f"failed: {self.failed}" if self.failed else "—"
        text = f"{fmt(self.median, self.unit)}"
        if len(self.samples) > 1:
            text += f" [{fmt(min(self.samples), self.unit, bare=True)}–{fmt(max(self.samples), self.unit, bare=True)}]"
        if self.note:
            text += f" ({self.note})"
        return text


def fmt(value, unit, bare=False):
    if unit == "s":
        if value < 0.01:
            text, suffix = f"{value * 1000:.2f}", "ms"
        elif value < 1:
            text, suffix = f"{value * 1000:.0f}", "ms"
        else:
            text, suffix = f"{value:.2f}", "s"
    elif unit == "ms+":
        text, suffix = f"{value * 1000:+.2f}", "ms"
    elif unit == "MiB":
        text, suffix = f"{value:.1f}", "MiB"
    elif unit == "tokens":
        text, suffix = f"{value:,.0f}", "tokens"
    elif unit == "calls/s":
        text, suffix = f"{value:,.0f}", "calls/s"
    else:
        text, suffix = f"{value}", unit
    return text if bare else f"{text} {suffix}".strip()


class Table:
    def __init__(self, peers):
        self.peers = peers
        self.rows = []

    def add(self, figure, input_name, results, target, lower_is_better=True):
        self.rows.append((figure, input_name, results, target, lower_is_better))

    def ratio(self, results, lower_is_better):
        ours = results.get("mcpgen")
        if not ours or ours.median is None:
            return "—"
        others = [f.median for p, f in results.items() if p != "mcpgen" and f and f.in_ratio and f.median is not None]
        if not others:
            return "—"
        best = min(others) if lower_is_better else max(others)
        if ours.unit == "ms+":
            return f"{(ours.median - best) * 1000:+.2f} ms"
        if ours.median == 0 or best == 0:
            return "—"
        factor = best / ours.median if lower_is_better else ours.median / best
        return f"{factor:.1f}× {'better' if factor >= 1 else 'worse'}"

    def render(self):
        header = ["figure", "input"] + self.peers + ["mcpgen vs best peer", "target"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for figure, input_name, results, target, lower in self.rows:
            cells = [figure, input_name]
            cells += [results[p].cell() if p in results else "n/a" for p in self.peers]
            cells += [self.ratio(results, lower), target]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Processes


def timed(argv, cwd=None, env=None, timeout=300, log_name="timed"):
    """Runs argv under `/usr/bin/time -v`; returns (wall seconds, peak RSS in MiB, CPU seconds:
    user + system) or raises. CPU time is what a loaded machine disturbs least: the wall time of a
    CPU-bound process grows with the run queue, its CPU time hardly."""
    LOGS.mkdir(parents=True, exist_ok=True)
    log_file = LOGS / f"{log_name}.log"
    with open(log_file, "ab") as out:
        out.write(f"\n$ {shlex.join(map(str, argv))}\n".encode())
        out.flush()
        proc = subprocess.run(
            ["/usr/bin/time", "-v", *map(str, argv)],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
        err = proc.stderr.decode(errors="replace")
        out.write(err.encode())
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}, see {log_file.relative_to(REPO)}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", err).group(1)
    seconds = 0.0
    for part in wall.split(":"):
        seconds = seconds * 60 + float(part)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
    cpu = sum(float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", err).group(1)) for kind in ("User", "System"))
    return seconds, rss, cpu


def run(argv, cwd=None, env=None, timeout=600, log_name="setup"):
    LOGS.mkdir(parents=True, exist_ok=True)
    with open(LOGS / f"{log_name}.log", "ab") as out:
        out.write(f"\n$ {shlex.join(map(str, argv))}\n".encode())
        out.flush()
        proc = subprocess.run(list(map(str, argv)), cwd=cwd, env=env, stdout=out, stderr=out, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"`{shlex.join(map(str, argv))}` failed (exit {proc.returncode}), see target/bench/logs/{log_name}.log")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slowest_units(report):
    """The ten crates whose compilation took longest in a `cargo build --timings` report: its
    HTML page carries the units as a JSON array (`const UNIT_DATA = [...]`)."""
    try:
        text = Path(report).read_text()
    except OSError:
        return []
    match = re.search(r"const UNIT_DATA = (\[.*?\]);\n", text, re.S)
    if not match:
        return []
    totals = {}
    for unit in json.loads(match.group(1)):
        name = unit["name"] + (" (build script)" if unit.get("target", "").strip().startswith("build-script") or "run-custom-build" in unit.get("mode", "") else "")
        totals[name] = totals.get(name, 0.0) + float(unit["duration"])
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:10]


class Service:
    """A background process (an upstream or an HTTP server) stopped when the run ends."""

    def __init__(self, argv, env=None, name="service"):
        LOGS.mkdir(parents=True, exist_ok=True)
        self.log = open(LOGS / f"{name}.log", "ab")
        self.proc = subprocess.Popen(
            list(map(str, argv)), stdout=self.log, stderr=self.log, env=env, start_new_session=True
        )

    def wait_http(self, url, timeout=60, ok=lambda status: status < 500):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{url}: the process exited ({self.proc.returncode})")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if ok(response.status):
                        return
            except urllib.error.HTTPError as e:
                if ok(e.code):
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{url} did not answer within {timeout} s")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self.log.close()


# ---------------------------------------------------------------------------------------------
# The harness


class Bench:
    def __init__(self, args):
        self.args = args
        self.peers = args.peers
        self.table = Table(self.peers)
        self.services = []
        self.upstreams = {}
        self.tools = {}  # (peer, input) -> tools/list tools, for the token count
        self.notes = []  # lines printed after the table
        self.mcpgen = REPO / "target/release/mcpgen"
        # "release": the servers as deployed, the generated crate's `dist` profile (link-time
        # optimised; its `release` profile is the faster-building one CI uses).
        self.profile_dir = "dist" if args.profile == "release" else "debug"
        self.generated_target = REPO / ("target/bench/generated" if args.profile == "release" else "target/generated")

    # -- inputs ------------------------------------------------------------------------------

    def spec(self, name):
        large = Path(os.environ["MCPGEN_BENCH_LARGE_SPECS"])
        return {
            "petstore": Path(os.environ["MCPGEN_BENCH_PETSTORE"]),
            "tracker": REPO / "specs/tracker/openapi.yaml",
            "github": large / "github-rest.json",
            "stripe": large / "stripe.yaml",
            "kubernetes": large / "kubernetes.yaml",
        }[name]

    def start_upstream(self, name):
        if name in self.upstreams:
            return self.upstreams[name]
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        if name == "petstore":
            service = Service(
                [os.environ["MCPGEN_BENCH_PRISM"], "mock", "-h", "127.0.0.1", "-p", port, "--errors", "false", self.spec(name)],
                name="upstream-petstore",
            )
            self.services.append(service)
            service.wait_http(f"{base}/pet/1", timeout=90)
        elif name == "tracker":
            service = Service([os.environ["MCPGEN_BENCH_TRACKER_API"], "--listen", f"127.0.0.1:{port}"], name="upstream-tracker")
            self.services.append(service)
            service.wait_http(f"{base}/v2/projects")
        else:
            raise RuntimeError(f"no upstream for {name}")
        self.upstreams[name] = base
        return base

    def stop(self):
        for service in reversed(self.services):
            service.stop()

    # -- generation ----------------------------------------------------------------------------

    def mcpgen_flags(self, name):
        if name in ("github", "stripe", "kubernetes"):
            return shlex.split(self.args.mcpgen_flags)
        return ["--name", f"{name}-bench"]

    def generate_argv(self, peer, name, out, mcpgen=None):
        spec = self.spec(name)
        if peer == "mcpgen":
            return [mcpgen or self.mcpgen, "-q", "build", spec, "-o", out, *self.mcpgen_flags(name)]
        if peer == "openapi-mcp-generator":
            base = ["-b", "http://127.0.0.1:9"] if name in ("petstore", "tracker") else []
            return [BENCH / "npm/node_modules/.bin/openapi-mcp-generator", "-i", spec, "-o", out, "--force", *base]
        raise ValueError(peer)

    def generation(self, name):
        """Each generator in turn, round by round (the order reversed every other round, so that
        a change in the machine's load falls on every column alike); with `--baseline REV`, mcpgen
        at REV is a column too, left out of the ratio to the best peer."""
        columns = [(peer, peer, None) for peer in self.peers if peer in GENERATORS]
        if self.args.baseline and "mcpgen" in self.peers:
            columns.insert(0, (self.baseline_column, "mcpgen", self.baseline_mcpgen()))
        samples = {column: ([], [], []) for column, _, _ in columns}
        failed = {}
        for round_ in range(self.args.repeat):
            for column, peer, binary in columns if round_ % 2 == 0 else columns[::-1]:
                if column in failed:
                    continue
                # Apart from the servers built from WORK/peer.
                out = WORK / "generate" / column.replace(" ", "-") / name
                shutil.rmtree(out, ignore_errors=True)
                try:
                    measured = timed(
                        self.generate_argv(peer, name, out, binary),
                        timeout=self.args.timeout,
                        log_name=f"generate-{column.replace(' ', '-')}-{name}",
                    )
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    failed[column] = f"timed out after {e.timeout:.0f} s" if isinstance(e, subprocess.TimeoutExpired) else str(e)
                    continue
                seconds, peak, used = measured
                for kept, value in zip(samples[column], (seconds, used, peak)):
                    kept.append(value)
        results = {}
        for column, _, _ in columns:
            in_ratio = column != self.baseline_column
            if column in failed:
                results[column] = (Figure(failed=failed[column]), Figure(failed="—"), Figure(failed="—"))
            else:
                walls, cpus, peaks = samples[column]
                results[column] = tuple(
                    Figure(values, unit, in_ratio=in_ratio) for values, unit in ((walls, "s"), (cpus, "s"), (peaks, "MiB"))
                )
            log(f"generate {name} with {column}: " + ", ".join(f.cell() for f in results[column]))
        # Issue 26: a quarter of openapi-mcp-generator's time and half its memory on each large API.
        target_t, target_m = ("≤ 0.25× the peer's", "≤ ½ the peer's") if name in ("github", "stripe", "kubernetes") else ("", "")
        self.table.add("generate, whole process, wall", name, {p: r[0] for p, r in results.items()}, target_t)
        self.table.add("generate, CPU (user+sys)", name, {p: r[1] for p, r in results.items()}, target_t)
        self.table.add("generate, peak RSS", name, {p: r[2] for p, r in results.items()}, target_m)

    # -- building the servers ------------------------------------------------------------------

    def build_mcpgen_server(self, name):
        crate = WORK / "mcpgen" / name
        # Generated every run, so that the crate is what this mcpgen makes: `mcpgen build` writes
        # only the files that changed, and cargo rebuilds only what they touch.
        run(self.generate_argv("mcpgen", name, crate), log_name=f"generate-mcpgen-{name}")
        env = dict(os.environ, CARGO_TARGET_DIR=str(self.generated_target))
        argv = ["cargo", "build", "-q", "--manifest-path", crate / "Cargo.toml"]
        if self.args.profile == "release":
            argv += ["--profile", "dist"]
        run(argv, env=env, timeout=1800, log_name=f"build-mcpgen-{name}")
        package = re.search(r'^name = "([^"]+)"', (crate / "Cargo.toml").read_text(), re.M).group(1)
        return self.generated_target / self.profile_dir / package

    def build_omg_server(self, name):
        project = WORK / "openapi-mcp-generator" / name
        if not (project / "package.json").exists():
            run(self.generate_argv("openapi-mcp-generator", name, project), log_name=f"generate-omg-{name}")
        # tsc writes build/index.js even when it finds type errors; only a build that passed
        # (the stamp) counts, so that a project that fails to compile fails in every run, not
        # only in the run that first built it.
        built = project / "build/.tsc-passed"
        if not built.exists():
            run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=project, timeout=600, log_name=f"build-omg-{name}")
            run(["npx", "tsc"], cwd=project, timeout=900, log_name=f"build-omg-{name}")
            built.touch()
        return project / "build/index.js"

    def server_argv(self, peer, name, base):
        """The command line and environment of peer's stdio server for input `name`."""
        env = dict(os.environ)
        token = TOKENS.get(name)
        if peer == "mcpgen":
            binary = self.build_mcpgen_server(name)
            prefix = f"{name.upper()}_BENCH" if name in ("petstore", "tracker") else None
            if token and prefix:
                env[f"{prefix}_TOKEN"] = token
            return [binary, "--base-url", base], env
        if peer == "openapi-mcp-generator":
            script = self.build_omg_server(name)
            env["API_BASE_URL"] = base
            if name == "tracker":
                env["BEARER_TOKEN_BEARERAUTH"] = token
            elif name == "petstore":
                env["OAUTH_TOKEN_PETSTORE_AUTH"] = token
                env["API_KEY_API_KEY"] = token
            return ["node", script], env
        if peer == "fastmcp":
            argv = [BENCH / "venv/bin/python", REPO / "bench/fastmcp_server.py", self.spec(name), base]
            return argv + ([token] if token else []), env
        if peer == "rmcp-openapi":
            # rmcp-openapi-server 0.32.1 serves Streamable HTTP only, at /mcp, stateless by
            # default; `open_session` adds `--port`. It reads a JSON spec only. `--header` is
            # sent with every upstream request.
            binary = BENCH / "rmcp-openapi/bin/rmcp-openapi-server"
            if not binary.exists():
                raise RuntimeError("not installed: bench/run --with-rmcp-openapi installs it")
            argv = [binary, self.json_spec(name), "--base-url", base, "--bind-address", "127.0.0.1"]
            return argv + (["--header", f"Authorization: Bearer {token}"] if token else []), env
        raise ValueError(peer)

    def json_spec(self, name):
        """The spec of `name` as JSON, for servers that read no YAML: converted once, by the
        FastMCP venv's PyYAML (this script uses the standard library only)."""
        spec = self.spec(name)
        if spec.suffix == ".json":
            return spec
        out = WORK / "json-specs" / f"{name}.json"
        if not out.exists() or out.stat().st_mtime < spec.stat().st_mtime:
            out.parent.mkdir(parents=True, exist_ok=True)
            convert = "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], 'w'), default=str)"
            run([BENCH / "venv/bin/python", "-c", convert, spec, out], log_name=f"json-spec-{name}")
        return out

    def open_session(self, peer, name, argv, env):
        """A session with peer's server: over Streamable HTTP on a fresh loopback port for the
        HTTP_PEERS, over stdio for the others."""
        log_path = LOGS / f"serve-{peer}-{name}.log"
        if peer in HTTP_PEERS:
            port = free_port()
            return HttpSession([*argv, "--port", port], env, log_path, self.args.timeout, port, HTTP_PEERS[peer])
        return StdioSession(argv, env, log_path, self.args.timeout)

    # -- serving: start, memory, latency ---------------------------------------------------------

    def serving(self, name):
        base = self.start_upstream(name) if name in CALLS else "http://127.0.0.1:9"
        starts, peaks, added = {}, {}, {}
        for peer in self.peers:
            try:
                argv, env = self.server_argv(peer, name, base)
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
                starts[peer] = peaks[peer] = added[peer] = Figure(failed=f"build: {e}")
                log(f"{peer} {name}: {e}")
                continue
            start_samples, rss_samples, added_samples = [], [], []
            try:
                for attempt in range(self.args.repeat):
                    session = self.open_session(peer, name, argv, env)
                    try:
                        seconds, tools = session.start()
                        start_samples.append(seconds)
                        self.tools[(peer, name)] = tools
                        if name in CALLS:
                            added_samples.append(self.latency(session, tools, name, base))
                        rss_samples.append(session.peak_rss_kib() / 1024)
                    finally:
                        session.close()
                # Over HTTP the start includes binding the port, the latency the HTTP exchange:
                # shown, but out of the ratio column, whose other peers are measured over stdio.
                over_http = peer in HTTP_PEERS
                over = ", over HTTP" if over_http else ""
                starts[peer] = Figure(start_samples, "s", note=f"{len(tools)} tools{over}", in_ratio=not over_http)
                peaks[peer] = Figure(rss_samples, "MiB", note="over HTTP" if over_http else None, in_ratio=not over_http)
                added[peer] = (
                    Figure(added_samples, "ms+", note="over HTTP" if over_http else None, in_ratio=not over_http)
                    if added_samples else Figure()
                )
            except (ServerError, RuntimeError, OSError, KeyError, ValueError, http.client.HTTPException) as e:
                starts[peer] = peaks[peer] = added[peer] = Figure(failed=str(e)[:80] or type(e).__name__)
            log(f"serve {name} with {peer}: start {starts[peer].cell()}, rss {peaks[peer].cell()}, added {added[peer].cell()}")
        small = name in ("petstore", "tracker")
        self.table.add("server start → first tools/list", name, starts, "≤ 5 ms" if small else "≤ 50 ms" if name == "github" else "")
        self.table.add("server peak RSS (after the calls)", name, peaks, "≤ 10 MiB" if small else "≤ 40 MiB" if name == "github" else "")
        if name in CALLS:
            self.table.add("tools/call added latency (median)", name, added, "≤ +0.2 ms")

    def latency(self, session, tools, name, base):
        """Median of one tools/call minus median of the same request sent directly over a
        keep-alive connection, interleaved so both see the same machine load."""
        operation, arguments, path = CALLS[name]
        tool = find_tool(tools, operation)
        host, port = base.removeprefix("http://").split(":")
        direct = http.client.HTTPConnection(host, int(port), timeout=self.args.timeout)
        headers = {"Authorization": f"Bearer {TOKENS[name]}", "Accept": "application/json"}

        def direct_call():
            started = time.perf_counter()
            direct.request("GET", path, headers=headers)
            response = direct.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"direct GET {path}: {response.status}")
            return time.perf_counter() - started

        def mcp_call():
            seconds, result = session.call(tool["name"], arguments)
            if result.get("isError"):
                raise RuntimeError(f"{tool['name']}: isError: {json.dumps(result)[:200]}")
            return seconds

        for _ in range(self.args.warmup):
            direct_call()
            mcp_call()
        mcp, plain = [], []
        for _ in range(self.args.calls):
            plain.append(direct_call())
            mcp.append(mcp_call())
        direct.close()
        return statistics.median(mcp) - statistics.median(plain)

    # -- tokens --------------------------------------------------------------------------------

    def tokens(self, name):
        results = {}
        for peer in self.peers:
            tools = self.tools.get((peer, name))
            if tools is None:
                results[peer] = Figure(failed="no tools/list")
                continue
            path = WORK / f"tools-{peer}-{name}.json"
            path.write_text(json.dumps(tools, ensure_ascii=False, separators=(",", ":")))
            count = subprocess.run(
                ["node", REPO / "bench/tokens.mjs", path], capture_output=True, text=True, timeout=60, check=True,
                env=dict(os.environ, NODE_PATH=str(BENCH / "npm/node_modules")),
            ).stdout.strip()
            with_output = sum(1 for t in tools if "outputSchema" in t)
            over = ", listed over HTTP" if peer in HTTP_PEERS else ""
            results[peer] = Figure([int(count)], "tokens", note=f"{with_output}/{len(tools)} with outputSchema{over}")
        self.table.add("tools/list size, cl100k", name, results, "≤ 2,500 with output schemas" if name == "petstore" else "")

    # -- compile cost ----------------------------------------------------------------------------

    def compile_github(self):
        """The generated GitHub crate, debug, dependencies already built (target/generated)."""
        results = {}
        crate = WORK / "mcpgen/github"
        run(self.generate_argv("mcpgen", "github", crate), log_name="generate-mcpgen-github")
        env = dict(os.environ, CARGO_TARGET_DIR=str(REPO / "target/generated"))
        manifest = ["--manifest-path", crate / "Cargo.toml"]
        package = re.search(r'^name = "([^"]+)"', (crate / "Cargo.toml").read_text(), re.M).group(1)
        try:
            # Dependencies built, the crate itself not: a crate left built by an earlier run
            # (unchanged since) would otherwise be timed as a no-op.
            run(["cargo", "build", *manifest], env=env, timeout=1800, log_name="compile-mcpgen-github-deps")
            run(["cargo", "clean", "-p", package, *manifest], env=env, log_name="compile-mcpgen-github-clean")
            seconds, _, _ = timed(
                ["cargo", "build", *manifest], env=env, timeout=1800, log_name="compile-mcpgen-github"
            )
            text = (LOGS / "compile-mcpgen-github.log").read_text(errors="replace")
            warnings = len(re.findall(r"^warning: ", text.split("$ ")[-1], re.M))
            results["mcpgen"] = Figure([seconds], "s", note=f"{warnings} warnings")
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            results["mcpgen"] = Figure(failed=str(e))
        if "openapi-mcp-generator" in self.peers:
            project = WORK / "openapi-mcp-generator/github"
            try:
                run(self.generate_argv("openapi-mcp-generator", "github", project), log_name="generate-omg-github")
                run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=project, timeout=600, log_name="build-omg-github")
                proc = subprocess.run(["npx", "tsc", "--noEmit"], cwd=project, capture_output=True, text=True, timeout=1800)
                errors = len(re.findall(r"error TS\d+", proc.stdout))
                results["openapi-mcp-generator"] = Figure(failed=f"tsc: {errors} errors") if errors else Figure([0], "", note="tsc clean")
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                results["openapi-mcp-generator"] = Figure(failed=str(e))
        self.table.add("generated GitHub crate, debug build, deps built", "github", results, "≤ 3 min; warnings 0")

    def rebuild_tracker(self):
        """Curated tracker crate: regenerate after a spec change (one description edited), then
        an incremental debug build."""
        crate = WORK / "mcpgen/tracker-curated"
        spec_text = (REPO / "specs/tracker/openapi.yaml").read_text()
        spec = WORK / "tracker-edited.yaml"
        env = dict(os.environ, CARGO_TARGET_DIR=str(REPO / "target/generated"))
        build = ["cargo", "build", "--manifest-path", crate / "Cargo.toml"]
        samples, cpu = [], []
        for i in range(self.args.repeat + 1):
            edited = spec_text.replace("summary: Get an issue by its key", f"summary: Get an issue by its key ({i})", 1)
            spec.write_text(edited)
            run([self.mcpgen, "-q", "build", spec, "-c", REPO / "specs/tracker/mcpgen.yaml", "-o", crate], log_name="rebuild-tracker")
            if i == 0:
                run(build, env=env, timeout=1800, log_name="rebuild-tracker")  # the first build is not incremental
                continue
            seconds, _, used = timed(build, env=env, timeout=600, log_name="rebuild-tracker")
            samples.append(seconds)
            cpu.append(used)
        self.table.add("curated tracker, incremental debug rebuild after regeneration", "tracker", {"mcpgen": Figure(samples, "s")}, "≤ 5 s")
        self.table.add("the same rebuild, CPU (user+sys)", "tracker", {"mcpgen": Figure(cpu, "s")}, "")

    # -- cold builds -------------------------------------------------------------------------------

    def cold_build_tracker(self):
        """The curated tracker crate built from nothing, as CI without a cache builds it: every
        dependency compiled (their sources already downloaded: `cargo fetch` first, untimed), in
        a target directory of its own, release and debug. With `--baseline REV`, the crate mcpgen
        REV generates is built the same way, the two alternating, so that the machine's load falls
        on both; the ten slowest crates of each (`cargo build --timings`) are printed after the
        table."""
        variants = [("mcpgen", self.mcpgen)]
        if self.args.baseline:
            variants.insert(0, (self.baseline_column, self.baseline_mcpgen()))
        crates = {}
        for column, mcpgen in variants:
            crate = WORK / "coldbuild" / column.replace(" ", "-") / "tracker-mcp"
            shutil.rmtree(crate, ignore_errors=True)
            run([mcpgen, "-q", "build", REPO / "specs/tracker/openapi.yaml", "-c", REPO / "specs/tracker/mcpgen.yaml", "-o", crate], log_name="coldbuild-generate")
            run(["cargo", "fetch", "--manifest-path", crate / "Cargo.toml"], timeout=900, log_name="coldbuild-fetch")
            lock = (crate / "Cargo.lock").read_text()
            crates[column] = (crate, len(re.findall(r"^\[\[package\]\]", lock, re.M)))
        for profile in ("release", "debug"):
            walls = {column: [] for column, _ in variants}
            cpus = {column: [] for column, _ in variants}
            rss = {column: [] for column, _ in variants}
            slowest = {}
            size = {}
            failed = {}
            for _ in range(self.args.build_repeat):
                for column, _ in variants:
                    crate, _count = crates[column]
                    target = WORK / "coldbuild" / f"target-{column.replace(' ', '-')}"
                    shutil.rmtree(target, ignore_errors=True)
                    env = dict(os.environ, CARGO_TARGET_DIR=str(target), CARGO_INCREMENTAL="0")
                    argv = ["cargo", "build", "--timings", "--manifest-path", crate / "Cargo.toml"]
                    if profile == "release":
                        argv.append("--release")
                    try:
                        seconds, peak, used = timed(argv, env=env, timeout=1800, log_name=f"coldbuild-{profile}")
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        failed[column] = str(e)
                        continue
                    walls[column].append(seconds)
                    cpus[column].append(used)
                    rss[column].append(peak)
                    slowest[column] = slowest_units(target / "cargo-timings/cargo-timing.html")
                    binary = target / profile / "tracker-mcp"
                    if binary.exists():
                        size[column] = binary.stat().st_size / (1024 * 1024)
            def figures(samples, unit):
                return {c: Figure(samples[c], unit) if samples[c] else Figure(failed=failed.get(c)) for c, _ in variants}
            target_wall = "≤ 90 s" if profile == "release" else "≤ 45 s"
            self.table.add(f"curated tracker crate, cold {profile} build, wall", "tracker", figures(walls, "s"), target_wall)
            self.table.add(f"the same build, CPU (user+sys)", "tracker", figures(cpus, "s"), "")
            self.table.add(f"the same build, peak RSS of one process", "tracker", figures(rss, "MiB"), "")
            if profile == "release":
                self.table.add("release binary size", "tracker", {c: Figure([size[c]], "MiB") for c, _ in variants if c in size}, "")
            for column, units in slowest.items():
                self.notes.append(f"ten slowest crates of the cold {profile} build, {column}: " + ", ".join(f"{name} {secs:.1f} s" for name, secs in units))
        self.table.add("crates in Cargo.lock", "tracker", {c: Figure([count], "") for c, (_, count) in crates.items()}, "")

    @property
    def baseline_column(self):
        return f"mcpgen {self.args.baseline}"

    def baseline_mcpgen(self):
        """mcpgen at `--baseline REV`, built in release from `git archive REV` (not a worktree:
        nothing of this checkout changes)."""
        source = BENCH / "baseline" / "src"
        stamp = BENCH / "baseline" / "rev"
        commit = subprocess.run(["git", "rev-parse", "--verify", f"{self.args.baseline}^{{commit}}"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
        binary = BENCH / "baseline" / "target/release/mcpgen"
        if not (binary.exists() and stamp.exists() and stamp.read_text() == commit):
            log(f"building mcpgen {self.args.baseline} ({commit[:10]}) in release into target/bench/baseline")
            shutil.rmtree(source, ignore_errors=True)
            source.mkdir(parents=True)
            archive = subprocess.run(["git", "archive", commit], cwd=REPO, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", source], input=archive, check=True)
            env = dict(os.environ, CARGO_TARGET_DIR=str(BENCH / "baseline/target"))
            run(["cargo", "build", "--release", "--bin", "mcpgen", "--manifest-path", source / "Cargo.toml"], env=env, timeout=1800, log_name="baseline-build")
            stamp.write_text(commit)
        return binary

    # -- throughput --------------------------------------------------------------------------------

    def throughput(self):
        """mcpgen's tracker server over Streamable HTTP, stateless 2026-07-28 requests, `wrk` with
        50 connections for a bounded time."""
        if not shutil.which("wrk"):
            self.table.add("tools/call throughput, HTTP, 50 clients", "tracker", {"mcpgen": Figure(failed="wrk not installed")}, "≥ 5,000 calls/s, p99 ≤ 20 ms")
            return
        base = self.start_upstream("tracker")
        argv, env = self.server_argv("mcpgen", "tracker", base)
        port = free_port()
        server = Service([*argv, "--transport", "http", "--listen", f"127.0.0.1:{port}"], env=env, name="serve-http-mcpgen-tracker")
        self.services.append(server)
        url = f"http://127.0.0.1:{port}/mcp"
        server.wait_http(url, ok=lambda status: True)
        tool = "get_issue_by_key"
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "mcpgen-bench", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": tool, "arguments": {"issue_key": "WEB-1"}, "_meta": meta}})
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
        }
        request = urllib.request.Request(url, data=body.encode(), headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = response.read().decode()
        if '"isError":true' in answer.replace(" ", "") or "WEB-1" not in answer:
            raise RuntimeError(f"the HTTP tools/call does not succeed: {answer[:300]}")
        script = WORK / "wrk-call.lua"
        script.write_text(
            "wrk.method = 'POST'\n"
            f"wrk.body = {json.dumps(body)}\n"
            + "".join(f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}\n" for k, v in headers.items())
        )
        rates, p99s = [], []
        for _ in range(self.args.repeat):
            proc = subprocess.run(
                ["wrk", "-t2", "-c50", f"-d{self.args.load_seconds}s", "--latency", "-s", script, url],
                capture_output=True, text=True, timeout=self.args.load_seconds + 60,
            )
            (LOGS / "wrk.log").open("a").write(proc.stdout + proc.stderr)
            if "Non-2xx" in proc.stdout:
                raise RuntimeError(f"non-2xx answers under load: see {LOGS / 'wrk.log'}")
            rates.append(float(re.search(r"Requests/sec:\s+([\d.]+)", proc.stdout).group(1)))
            value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", proc.stdout).groups()
            p99s.append(float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1}[unit])
        self.table.add("tools/call throughput, HTTP, 50 clients", "tracker", {"mcpgen": Figure(rates, "calls/s")}, "≥ 5,000 calls/s", lower_is_better=False)
        self.table.add("tools/call p99 under that load", "tracker", {"mcpgen": Figure(p99s, "s")}, "≤ 20 ms")


def find_tool(tools, operation_id):
    """The tool of an operation, whatever the generator's naming (getPetById, get_pet_by_id)."""
    key = operation_id.lower()
    for tool in tools:
        if tool["name"].replace("_", "").replace("-", "").lower() == key:
            return tool
    raise KeyError(f"no tool for {operation_id} among {[t['name'] for t in tools][:10]}")


def main():
    parser = argparse.ArgumentParser(prog="bench/run", description=__doc__)
    parser.add_argument("--peers", default="mcpgen,openapi-mcp-generator,fastmcp", help="comma-separated, from: " + ", ".join(PEERS))
    parser.add_argument("--inputs", default="petstore,tracker,github,stripe,kubernetes", help="comma-separated: petstore, tracker, github, stripe, kubernetes")
    parser.add_argument("--figures", default="generate,serve,tokens,rebuild,throughput",
                        help="comma-separated: generate, serve (start, RSS, call latency), tokens, rebuild, throughput, "
                        "compile (slow: builds the generated GitHub crate), coldbuild (slow: the curated tracker crate "
                        "from nothing, release and debug)")
    parser.add_argument("--baseline", metavar="REV",
                        help="coldbuild and generate: also measure mcpgen at git revision REV (coldbuild: the crate it "
                        "generates), alternating with today's, as a column of its own (mcpgen REV is built in release "
                        "into target/bench/baseline)")
    parser.add_argument("--build-repeat", type=int, default=1, help="coldbuild: cold builds of each crate and profile (default 1; one takes minutes)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement (default 5)")
    parser.add_argument("--calls", type=int, default=200, help="timed tools/call per server run (default 200)")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--load-seconds", type=int, default=10, help="duration of one throughput run")
    parser.add_argument("--timeout", type=float, default=120, help="seconds any one run may take")
    parser.add_argument("--profile", choices=["release", "debug"], default="release", help="how generated Rust servers are built: release is the generated crate's `dist` profile, as its Dockerfile deploys it")
    parser.add_argument("--serve-large", action="store_true", help="also serve GitHub with every peer (mcpgen's crate is built: minutes)")
    parser.add_argument("--mcpgen-flags", default="", help="extra flags for `mcpgen build` on the large specs, e.g. --mcpgen-flags='--discovery'")
    parser.add_argument("--out", default=str(BENCH / "results.md"), help="where the table is also written")
    parser.add_argument("--with-rmcp-openapi", action="store_true", help="also rmcp-openapi-server 0.32.1 (bench/run cargo-installs it: slow)")
    args = parser.parse_args()
    args.peers = [p for p in args.peers.split(",") if p]
    if args.with_rmcp_openapi and "rmcp-openapi" not in args.peers:
        args.peers.append("rmcp-openapi")
    unknown = set(args.peers) - set(PEERS)
    if unknown:
        parser.error(f"unknown peers: {', '.join(sorted(unknown))}")
    inputs = [i for i in args.inputs.split(",") if i]
    figures = set(args.figures.split(","))

    bench = Bench(args)
    if args.baseline and figures & {"coldbuild", "generate"}:
        # A column of the table, not a peer: only the coldbuild and generate figures measure it.
        bench.table.peers = [*bench.table.peers, bench.baseline_column]
    WORK.mkdir(parents=True, exist_ok=True)
    started = time.time()
    try:
        if "generate" in figures:
            for name in inputs:
                bench.generation(name)
        if "compile" in figures and "github" in inputs and "mcpgen" in args.peers:
            bench.compile_github()
        if "rebuild" in figures and "tracker" in inputs and "mcpgen" in args.peers:
            bench.rebuild_tracker()
        if "coldbuild" in figures and "tracker" in inputs and "mcpgen" in args.peers:
            bench.cold_build_tracker()
        if "serve" in figures or "tokens" in figures:
            for name in inputs:
                if name in CALLS or (name == "github" and args.serve_large):
                    bench.serving(name)
        if "tokens" in figures:
            for name in inputs:
                if name in CALLS:
                    bench.tokens(name)
        if "throughput" in figures and "tracker" in inputs and "mcpgen" in args.peers:
            bench.throughput()
    finally:
        bench.stop()
    table = bench.table.render()
    if bench.notes:
        table += "\n\n" + "\n".join(f"- {note}" for note in bench.notes)
    header = (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
        f"repeat {args.repeat}, generated Rust servers built {args.profile}, {time.time() - started:.0f} s\n\n"
    )
    Path(args.out).write_text(header + table + "\n")
    print(header + table)


if __name__ == "__main__":
    main()
