#!/usr/bin/env python3
"""How close each thread's CPU in a profile comes to the thread's own clock.

Records the test suite's CPU workloads with `sprof record` several times, optionally with
busy loops competing for the CPUs, and compares every thread's summed threadCPUDelta (what
the Firefox Profiler shows) with the CLOCK_THREAD_CPUTIME_ID that the workload printed for
it. Given two sprof binaries, runs them in interleaved rounds.

  python3 bench/cpu-accuracy.py BUILD [--base OTHER_SPROF] [--runs N] [--busy N]

BUILD is a build directory (its cli/sprof and the test targets under tests/targets).
Errors are (profile - real) / real, in percent, for threads of >= 20 ms CPU each; the
"short" row sums the fifty 2 ms threads of one run.
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile

WORKLOADS = {
    # Two threads of 300 ms CPU, then fifty of 2 ms (the integration test's shape).
    "cpu_threads": ["offcpu_cpu_threads", "2", "300", "50", "2"],
    # "sleeper": 10 x (20 ms CPU, 20 ms sleep); two threads wait ~300 ms on a mutex / pipe.
    "blockers": ["offcpu_blockers", "10", "20", "20", "300"],
}
LONG_THREAD_NS = 20_000_000
# Workloads whose threads under LONG_THREAD_NS run on CPU (the blockers' waiters barely do).
SHORT_THREADS = {"cpu_threads"}


def threads_of(profile):
    yield from profile.get("threads", [])
    for sub in profile.get("processes", []):
        yield from threads_of(sub)


def cpu_deltas(thread):
    samples = thread["samples"]
    if "data" in samples:
        column = samples["schema"].get("threadCPUDelta")
        return [row[column] for row in samples["data"]] if column is not None else []
    return samples.get("threadCPUDelta", [])


def profile_cpu_ns(profile):
    """tid -> CPU ns as the front end sums it (it ignores the first delta)."""
    unit = profile["meta"].get("sampleUnits", {}).get("threadCPUDelta", "µs")
    scale = {"ns": 1, "µs": 1_000, "us": 1_000, "ms": 1_000_000}.get(unit, 1_000)
    out = {}
    for t in threads_of(profile):
        deltas = cpu_deltas(t)
        out[int(t["tid"])] = sum(d or 0 for d in deltas[1:]) * scale
    return out


def measured(stdout):
    """The workload's own report: one "tid cpu_ns name" line per thread."""
    threads = {}
    for line in stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0].isdigit() and fields[1].isdigit():
            threads[int(fields[0])] = (int(fields[1]), fields[2])
    return threads


def record_once(sprof, targets, workload, out):
    args = [sprof, "record", "-q", "-s", "-e", "cpu-clock", "-o", out, "--",
            os.path.join(targets, workload[0]), *workload[1:]]
    run = subprocess.run(args, capture_output=True, text=True, check=True)
    with gzip.open(out) as f:
        profile = json.load(f)
    meta = dict(profile["meta"].get("sprof", {}) or {})
    return measured(run.stdout), profile_cpu_ns(profile), meta


def beyond_stalls(got, cpu_ns, stalls):
    """The error left once the stalls the profile reports are taken either way: what it left
    out may have been the thread's, what it credited may have been steal (see
    tests/integration/thread_cpu.hpp, error_beyond_stalls)."""
    left_out, credited = stalls
    low, high = max(got - credited, 0), got + left_out
    if cpu_ns < low:
        return 100.0 * (low - cpu_ns) / cpu_ns
    if cpu_ns > high:
        return 100.0 * (high - cpu_ns) / cpu_ns
    return 0.0


def errors_of(real, in_profile, stalls=(0, 0), beyond=None):
    long_errors, short_real, short_profile = [], 0, 0
    for tid, (cpu_ns, name) in real.items():
        got = in_profile.get(tid, 0)
        if cpu_ns >= LONG_THREAD_NS:
            long_errors.append((name, 100.0 * (got - cpu_ns) / cpu_ns))
            if beyond is not None:
                beyond.append(beyond_stalls(got, cpu_ns, stalls))
        else:
            short_real += cpu_ns
            short_profile += got
    short = 100.0 * (short_profile - short_real) / short_real if short_real else None
    return long_errors, short


def describe(label, values):
    if not values:
        return f"{label:>22}: -"
    mean = statistics.fmean(values)
    worst = max(values, key=abs)
    over = sum(1 for v in values if abs(v) > 1.0)
    return (f"{label:>22}: n {len(values):3d}  mean {mean:+.2f} %  median "
            f"{statistics.median(values):+.2f} %  worst {worst:+.2f} %  |err| > 1 %: {over}")


def start_busy_loops(n):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--base", help="another sprof binary to compare, run in alternation")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--busy", type=int, default=0, help="busy loops to run meanwhile")
    ap.add_argument("--workload", choices=sorted(WORKLOADS), action="append")
    args = ap.parse_args()
    targets = os.path.join(args.build, "tests", "targets")
    binaries = {"this": os.path.join(args.build, "cli", "sprof")}
    if args.base:
        binaries["base"] = args.base
    workloads = args.workload or sorted(WORKLOADS)
    results = {(b, w): {"long": [], "beyond": [], "short": [], "stalls": 0, "stalled_ms": 0.0,
                        "counts": 0, "removed_ms": 0.0, "added_ms": 0.0}
               for b in binaries for w in workloads}
    busy = start_busy_loops(args.busy)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(args.runs):
                for w in workloads:
                    for b, sprof in binaries.items():
                        real, got, meta = record_once(sprof, targets, WORKLOADS[w],
                                                      os.path.join(tmp, "p.json.gz"))
                        r = results[(b, w)]
                        stalls = (float(meta.get("cpuStalledMs", 0.0)) * 1e6,
                                  float(meta.get("cpuStallCreditedMs", 0.0)) * 1e6)
                        long_errors, short = errors_of(real, got, stalls, r["beyond"])
                        r["long"] += [e for _, e in long_errors]
                        if short is not None and w in SHORT_THREADS:
                            r["short"].append(short)
                        r["stalls"] += int(meta.get("cpuStalls", 0))
                        r["stalled_ms"] += float(meta.get("cpuStalledMs", 0.0))
                        r["counts"] += int(meta.get("cpuCounts", 0))
                        r["removed_ms"] += float(meta.get("cpuCountRemovedMs", 0.0))
                        r["added_ms"] += float(meta.get("cpuCountAddedMs", 0.0))
    finally:
        for p in busy:
            p.kill()
    print(f"{args.runs} runs, {args.busy} busy loops; error = (profile - own clock) / own clock")
    for (b, w), r in results.items():
        print(f"{b} / {w}")
        print(describe("threads >= 20 ms", r["long"]))
        print(describe("beyond stated stalls", r["beyond"]))
        if r["short"]:
            print(describe("2 ms threads, summed", r["short"]))
        print(f"{'stalls seen':>22}: {r['stalls']} ({r['stalled_ms']:.1f} ms left out)")
        if r["counts"]:
            # The scheduler's runtime counts (docs/design.md): what they corrected in the deltas
            # the switch records gave, over all runs.
            print(f"{'scheduler counts':>22}: {r['counts']} ({r['removed_ms']:.1f} ms taken out, "
                  f"{r['added_ms']:.1f} ms added)")


if __name__ == "__main__":
    sys.exit(main())
