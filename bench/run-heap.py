#!/usr/bin/env python3
"""Heap recording overhead: libsprof-heap.so versus running alone and versus heaptrack.

Usage: bench/run-heap.py [BUILD_DIR] [--rounds N] [--skip-all]

Runs bench_heap_workload's two workloads (small: ~10 M malloc/free pairs per second on two
threads with a little work per pair; mixed: 16 B-64 KiB blocks, 4,096 live per thread) plain,
under sprof-heap-run at the default sampling interval, under sprof-heap-run --all, and under
heaptrack, interleaved round-robin so machine noise hits all alike. Prints Markdown tables of
min/median wall-time ratios to the plain run, with what the interposer counted (sampled/total,
ring drops), and CPU-time ratios: of the workload process alone (its own getrusage), and of
the whole process tree (with sprof-heap-run's reader, or heaptrack's interpreter). On a shared
machine the CPU ratios move much less than wall time. sprof-heap-run drains the ring into
/dev/null: the reader's cost is that of copying and validating records, not of unwinding them.
"""
import argparse
import os
import re
import statistics
import sys
import tempfile

from bench_run import run

WORKLOADS = {
    "small": ["small", "--threads", "2", "--pairs", "10000000", "--work", "30"],
    "mixed": ["mixed", "--threads", "2", "--pairs", "1500000", "--work", "0"],
}


def counters(out):
    c = {}
    for key in ("allocations", "sampled", "dropped", "records", "free_records"):
        m = re.search(rf"\b{key}=(\d+)", out)
        if m:
            c[key] = int(m.group(1))
    m = re.search(r"pairs_per_s (\d+) wall_s [0-9.]+ cpu_s ([0-9.]+)", out)
    if m:
        c["pairs_per_s"] = int(m.group(1))
        c["target_cpu"] = float(m.group(2))
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--skip-all", action="store_true", help="leave out record-all mode")
    args = ap.parse_args()
    workload = os.path.join(args.build, "bench", "bench_heap_workload")
    heap_run = os.path.join(args.build, "heap", "sprof-heap-run")
    tmp = tempfile.mkdtemp(prefix="sprof-bench-heap-")
    configs = {
        "plain": lambda w: [workload, *w],
        "sprof default": lambda w: [heap_run, "--output", "/dev/null", "--", workload, *w],
        "sprof all": lambda w: [heap_run, "--all", "--output", "/dev/null", "--", workload, *w],
        "heaptrack 1.4": lambda w: ["heaptrack", "-o", os.path.join(tmp, "ht"), workload, *w],
    }
    if args.skip_all:
        del configs["sprof all"]
    walls = {(w, c): [] for w in WORKLOADS for c in configs}
    cpus = {(w, c): [] for w in WORKLOADS for c in configs}
    facts = {}
    for r in range(args.rounds):
        for w, wargs in WORKLOADS.items():
            names = list(configs)
            names = names[r % len(names):] + names[:r % len(names)]  # rotate the order
            for c in names:
                wall, cpu, out = run(configs[c](wargs))
                walls[(w, c)].append(wall)
                cpus[(w, c)].append(cpu)
                facts.setdefault((w, c), []).append(counters(out))
                for f in os.listdir(tmp):
                    os.remove(os.path.join(tmp, f))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    print("| workload | configuration | wall min | wall ratio min / median | target CPU ratio "
          "| total CPU ratio | recorded |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for w in WORKLOADS:
        plain = walls[(w, "plain")]
        plain_target = statistics.median(f["target_cpu"] for f in facts[(w, "plain")])
        plain_total = statistics.median(cpus[(w, "plain")])
        for c in configs:
            ws = walls[(w, c)]
            ratios = [a / b for a, b in zip(ws, plain)]
            target = statistics.median(f.get("target_cpu", float("nan")) for f in facts[(w, c)])
            total = statistics.median(cpus[(w, c)])
            f = facts[(w, c)][-1]
            note = ""
            if c == "plain":
                note = f"{f.get('pairs_per_s', 0) / 1e6:.1f} M pairs/s"
            elif "sampled" in f:
                note = f"{f['sampled']:,} of {f['allocations']:,} allocations"
                dropped = f.get("dropped", 0)
                if dropped:
                    written = f.get("records", 0)
                    note += f"; {100.0 * dropped / (dropped + written):.0f} % of records dropped"
            print(f"| {w} | {c} | {min(ws):.2f} s | {min(ws) / min(plain):.2f}x / "
                  f"{statistics.median(ratios):.2f}x | {target / plain_target:.2f}x | "
                  f"{total / plain_total:.2f}x | {note} |")


if __name__ == "__main__":
    main()
