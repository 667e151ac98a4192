#!/usr/bin/env python3
"""`sprof import` versus `perf script` and `perf report --stdio` on the same DWARF perf.data.

Usage: bench/run-import.py [BUILD_DIR] [--runs N] [--perf-data FILE] [--units U]

Without --perf-data, records one first: `perf record -F 4000 --call-graph dwarf` of
bench_workload (2 threads, U units of fixed CPU work: libm, std::sort, plain loops, built -O2
-fomit-frame-pointer), about 110,000 samples with 8 KiB stack copies (~0.9 GB) for the default
U = 7500. Then runs each tool on it N times, interleaved round-robin so machine noise hits all
alike, output to /dev/null (perf) or a temporary profile (sprof), and prints a Markdown table of
min/median wall and CPU (user + system) times and the ratio to `sprof import`.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

from bench_run import run


def record(build, units, out):
    workload = os.path.join(build, "bench", "bench_workload")
    subprocess.run(["perf", "record", "-q", "--no-bpf-event", "--no-buildid-cache", "-F", "4000",
                    "--call-graph", "dwarf", "-o", out, "--", workload, "2", str(units)],
                   check=True, stdout=subprocess.DEVNULL)


def samples_in(perf_data):
    out = subprocess.run(["perf", "report", "--stats", "-i", perf_data],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("SAMPLE events:"):
            return int(line.split(":")[1].split()[0])
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--perf-data")
    ap.add_argument("--units", type=int, default=7500)
    args = ap.parse_args()
    sprof = os.path.join(args.build, "cli", "sprof")
    tmp = tempfile.mkdtemp(prefix="sprof-bench-import-")
    perf_data = args.perf_data or os.path.join(tmp, "perf.data")
    if not args.perf_data:
        record(args.build, args.units, perf_data)
    profile = os.path.join(tmp, "p.json.gz")
    tools = {
        "sprof import --no-presymbolicate": [sprof, "import", "-s", "--no-presymbolicate", "-o",
                                             profile, perf_data],
        "sprof import (self-contained)": [sprof, "import", "-s", "-o", profile, perf_data],
        "perf script": ["perf", "script", "-i", perf_data],
        "perf report --stdio": ["perf", "report", "--stdio", "-i", perf_data],
    }
    walls = {name: [] for name in tools}
    cpus = {name: [] for name in tools}
    for _ in range(args.runs):
        for name, cmd in tools.items():
            wall, cpu, _ = run(cmd, discard_stdout=True)
            walls[name].append(wall)
            cpus[name].append(cpu)
    base = "sprof import --no-presymbolicate"
    size_mb = os.path.getsize(perf_data) / 1e6
    print(f"{samples_in(perf_data):,} samples, {size_mb:.0f} MB; {args.runs} runs each\n")
    print("| tool | wall min | wall median | CPU min | CPU median | CPU median / sprof's |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in tools:
        w, c = walls[name], cpus[name]
        ratio = statistics.median(c) / statistics.median(cpus[base])
        print(f"| `{name}` | {min(w):.2f} s | {statistics.median(w):.2f} s | {min(c):.2f} s | "
              f"{statistics.median(c):.2f} s | {ratio:.1f}x |")


if __name__ == "__main__":
    main()
