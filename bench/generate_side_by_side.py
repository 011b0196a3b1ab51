#!/usr/bin/env python3
"""Two or more builds of mcpgen generating one spec side by side: the whole process's wall time,
CPU time (user + system), peak RSS and minor page faults, and the stage times `-vv` prints
(loading, then planning, rendering and writing), the binaries alternating run by run so that
they see the same machine. For comparing two builds of mcpgen (a change to planning, rendering or
writing); `bench/run --figures generate` compares mcpgen with the peers.

    bench/generate_side_by_side.py --runs 15 target/large-specs/kubernetes.yaml OLD_MCPGEN NEW_MCPGEN

Each run is `BINARY -vv build SPEC -o DIR` (plus `--flags`) into a fresh DIR, removed first.
Prints medians, and the load average before and after (a loaded machine's wall is mostly waiting
for a core: compare CPU there). Standard library only.
"""

import argparse
import os
import re
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time


def one_run(binary, spec, out, flags):
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    process = subprocess.Popen(
        [binary, "-vv", "build", spec, "-o", out, *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    stderr = process.stderr.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    if status != 0:
        raise SystemExit(f"{binary} failed:\n{stderr}")
    took = {m[1]: float(m[2]) * 1000 for m in re.finditer(r"(\w+) took ([\d.]+) s", stderr)}
    after = sum(took.get(stage, 0.0) for stage in ("planning", "rendering", "writing"))
    return {
        "wall": wall,
        "cpu": (usage.ru_utime + usage.ru_stime) * 1000,
        "rss": usage.ru_maxrss / 1024,
        "faults": usage.ru_minflt,
        "loading": took.get("loading", 0.0),
        "after": after,
        "planning": took.get("planning", 0.0),
        "rendering": took.get("rendering", 0.0),
        "writing": took.get("writing", 0.0),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec")
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--runs", type=int, default=9, help="runs of each binary (default 9)")
    parser.add_argument("--flags", default="", help="more arguments of `build` (quoted)")
    args = parser.parse_args()
    flags = shlex.split(args.flags)
    runs = {binary: [] for binary in args.binaries}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "crate")
        for _ in range(args.runs):
            for binary in args.binaries:
                runs[binary].append(one_run(binary, args.spec, out, flags))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for binary, results in runs.items():
        median = {key: statistics.median(r[key] for r in results) for key in results[0]}
        print(
            f"{binary}: n={len(results)} wall {median['wall']:.0f} ms, CPU {median['cpu']:.0f} ms, "
            f"peak RSS {median['rss']:.1f} MiB, minor faults {median['faults']:.0f}; "
            f"loading {median['loading']:.0f} ms, after it {median['after']:.0f} ms "
            f"(planning {median['planning']:.0f}, rendering {median['rendering']:.0f}, "
            f"writing {median['writing']:.0f})"
        )


if __name__ == "__main__":
    main()
