#!/usr/bin/env python3
"""Builds of one stdio server side by side: start → first `tools/list`, peak RSS after the calls,
and added `tools/call` latency (median call minus median direct keep-alive GET of the same
resource, interleaved), the binaries alternating round by round so that they see the same
machine. For comparing two builds of a generated server (a profile setting, a runtime change);
`bench/run` compares mcpgen with the peers.

    bench/side_by_side.py --rounds 7 --base-url http://127.0.0.1:4010 --tool get_pet_by_id \\
        --arguments '{"petId": 1}' --path /pet/1 OLD_BINARY NEW_BINARY

Each server gets `--base-url`; a token its API needs comes from the environment as usual
(`PETSTORE_BENCH_TOKEN=...`), and the direct GET sends `--token` as a bearer token.
Standard library only.
"""

import argparse
import http.client
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_driver import StdioSession  # noqa: E402


def one_round(binary, args):
    session = StdioSession([binary, "--base-url", args.base_url], dict(os.environ), os.devnull, args.timeout)
    host, port = args.base_url.removeprefix("http://").split(":")
    direct = http.client.HTTPConnection(host, int(port), timeout=args.timeout)
    headers = {"Authorization": f"Bearer {args.token}", "Accept": "application/json"}
    try:
        start, _ = session.start()

        def direct_call():
            started = time.perf_counter()
            direct.request("GET", args.path, headers=headers)
            direct.getresponse().read()
            return time.perf_counter() - started

        def mcp_call():
            seconds, result = session.call(args.tool, json.loads(args.arguments))
            if result.get("isError"):
                raise SystemExit(f"{binary}: {args.tool} failed: {json.dumps(result)[:300]}")
            return seconds

        for _ in range(args.warmup):
            direct_call()
            mcp_call()
        plain, mcp = [], []
        for _ in range(args.calls):
            plain.append(direct_call())
            mcp.append(mcp_call())
        added = statistics.median(mcp) - statistics.median(plain)
        return start * 1000, session.peak_rss_kib() / 1024, added * 1000
    finally:
        direct.close()
        session.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--base-url", required=True, help="the upstream, http://127.0.0.1:PORT")
    parser.add_argument("--tool", required=True)
    parser.add_argument("--arguments", default="{}", help="the tool's arguments, as JSON")
    parser.add_argument("--path", required=True, help="the same resource's path on the upstream")
    parser.add_argument("--token", default="bench-token")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()
    results = {binary: [] for binary in args.binaries}
    for _ in range(args.rounds):
        for binary in args.binaries:
            results[binary].append(one_round(binary, args))
    print(f"{args.rounds} rounds, median [min–max]")
    for binary, rows in results.items():
        cells = []
        for index, (label, unit) in enumerate([("start", "ms"), ("peak RSS", "MiB"), ("added latency", "ms")]):
            values = [row[index] for row in rows]
            cells.append(f"{label} {statistics.median(values):.3f} {unit} [{min(values):.3f}–{max(values):.3f}]")
        print(f"{binary}\n  " + "; ".join(cells))


if __name__ == "__main__":
    main()
