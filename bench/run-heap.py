#!/usr/bin/env python3
"""Heap recording overhead: `sprof record --heap` versus running alone and versus heaptrack.

Usage: bench/run-heap.py [BUILD_DIR] [--rounds N] [--skip-all] [--skip-interposer]
                         [--only WORKLOAD...] [--configs CONFIGURATION...]
                         [--baseline OTHER_BUILD_DIR]

Runs bench_heap_workload's workloads (small: ~10 M malloc/free pairs per second on two
threads with a little work per pair; mixed: 16 B-64 KiB blocks, 4,096 live per thread) plain,
under the full recorder (`sprof record -s --no-presymbolicate --heap --no-cpu`, and with CPU
samples too), under the interposer alone (sprof-heap-run, which drains the ring into /dev/null
without unwinding), and under heaptrack, interleaved round-robin with the order rotated every
round, so machine noise hits all alike. Record-all mode (`--heap=all`) makes the program wait
for sprof's unwinding, so it runs on a workload 40 times shorter ("small/40") beside plain and
heaptrack, with and without --heap-free-stacks (each free then records its stack as well).
Issue 24's own workloads run when named with --only: "churn" (2 threads x 2 M small
malloc/free pairs) and "rust-log" (bench/heap_log_processor.rs, a Rust log processor making
about 6 M allocations, built here with rustc), each plain, sampled (with and without CPU samples),
record-all and under heaptrack, and "churn/5M" (5 M pairs per thread: the issue's sampled-mode
target). Both modes also run with --heap-stacks=copy, the stack copies sprof unwinds that the interposer's
in-process walk replaced (docs/heap.md, "The in-process stack walk").

"heaptrack 1.4 + print" also runs heaptrack_print on the trace: heaptrack leaves its analysis to
a second step, while sprof's command ends with the profile written, so this is the time to the
same kind of result. With --baseline, each sprof configuration also runs with the sprof (and
libsprof-heap.so) of OTHER_BUILD_DIR, in the same rounds: a change measured against the build
before it.

Prints Markdown tables of min/median ratios to the plain run: the program's own wall time (what
the workload measures around its threads), the whole command's wall time (sprof's start, and
writing the profile after the program exited, included), the workload process's CPU (its own
getrusage) and the whole process tree's CPU (sprof's reader and unwinding, or heaptrack's
interpreter). On a shared machine the CPU ratios move much less than wall times.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

from bench_run import run

SMALL = ["small", "--threads", "2", "--pairs", "10000000", "--work", "30"]
# Each workload is a program ("heap": bench_heap_workload; "rust-log": heap_log_processor.rs,
# built here with rustc) and its arguments.
WORKLOADS = {
    "small": ("heap", SMALL),
    "mixed": ("heap", ["mixed", "--threads", "2", "--pairs", "1500000", "--work", "0"]),
    "small/40": ("heap", ["small", "--threads", "2", "--pairs", "250000", "--work", "30"]),
    # Issue 24's two workloads: churn, 2 threads x 2 M small malloc/free pairs, and a Rust log
    # processor (1,200,000 lines: about 6 M allocations of Strings, Vecs and HashMap keys).
    "churn": ("heap", ["small", "--threads", "2", "--pairs", "2000000", "--work", "30"]),
    "rust-log": ("rust-log", ["1200000"]),
    # The issue's sampled-mode target: churn with 5 M pairs per thread.
    "churn/5M": ("heap", ["small", "--threads", "2", "--pairs", "5000000", "--work", "30"]),
}
# What runs on issue 24's churn and rust-log workloads: both modes, beside heaptrack.
ISSUE_WORKLOAD_CONFIGS = ["plain", "sprof --heap=all --no-cpu", "sprof --heap --no-cpu",
                          "sprof --heap", "heaptrack 1.4", "heaptrack 1.4 + print"]
# Which configurations run on which workload.
PLAN = {
    "small": ["plain", "sprof --heap --no-cpu", "sprof --heap --heap-stacks=copy --no-cpu",
              "sprof --heap --heap-free-stacks --no-cpu", "sprof --heap", "interposer only",
              "heaptrack 1.4"],
    "mixed": ["plain", "sprof --heap --no-cpu", "sprof --heap", "interposer only", "heaptrack 1.4"],
    "small/40": ["plain", "sprof --heap=all --no-cpu", "sprof --heap=all --heap-stacks=copy --no-cpu",
                 "sprof --heap=all --heap-free-stacks --no-cpu", "heaptrack 1.4",
                 "heaptrack 1.4 + print"],
    "churn": ISSUE_WORKLOAD_CONFIGS,
    "rust-log": ISSUE_WORKLOAD_CONFIGS,
    "churn/5M": ["plain", "sprof --heap --no-cpu", "sprof --heap", "heaptrack 1.4"],
}


def counters(out):
    """What the workload and sprof's summary printed."""
    c = {}
    m = re.search(r"(?:pairs|lines)_per_s (\d+) wall_s ([0-9.]+) cpu_s ([0-9.]+)", out)
    if m:
        c["pairs_per_s"] = int(m.group(1))
        c["program_wall"] = float(m.group(2))
        c["target_cpu"] = float(m.group(3))
    m = re.search(r"heap: ([\d,]+) of ([\d,]+) allocations (sampled|recorded)", out)
    if m:
        c["records"] = int(m.group(1).replace(",", ""))
        c["calls"] = int(m.group(2).replace(",", ""))
    m = re.search(r"([\d,]+) records were dropped", out)
    c["dropped"] = int(m.group(1).replace(",", "")) if m else 0
    m = re.search(r"([0-9.]+) us CPU per sample or allocation", out)
    if m:
        c["us_per_record"] = float(m.group(1))
    # sprof-heap-run's own counters
    for key in ("allocations", "sampled"):
        m = re.search(rf"\b{key}=(\d+)", out)
        if m:
            c["hr_" + key] = int(m.group(1))
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--skip-all", action="store_true", help="leave out record-all mode")
    ap.add_argument("--skip-interposer", action="store_true",
                    help="leave out the interposer-only runs")
    ap.add_argument("--only", nargs="+", choices=list(WORKLOADS),
                    help="these workloads only (default: small, mixed, small/40)")
    ap.add_argument("--configs", nargs="+", help="these configurations only (plain is kept)")
    ap.add_argument("--baseline", help="another build whose sprof runs beside this one's")
    args = ap.parse_args()
    programs = {"heap": os.path.join(args.build, "bench", "bench_heap_workload")}
    heap_run = os.path.join(args.build, "heap", "sprof-heap-run")
    sprof = os.path.join(args.build, "cli", "sprof")
    tmp = tempfile.mkdtemp(prefix="sprof-bench-heap-")
    profile = os.path.join(tmp, "p.json.gz")
    record = [sprof, "record", "-s", "--no-presymbolicate", "-o", profile]
    if args.only and "rust-log" in args.only:
        # Built as `cargo build --release` with debug info builds it (rustc >= 1.90: rust-lld).
        # Beside the outputs, which are deleted after every run.
        programs["rust-log"] = os.path.join(tempfile.mkdtemp(prefix="sprof-bench-rust-"),
                                            "heap_log_processor")
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "heap_log_processor.rs")
        subprocess.run(["rustc", "-C", "opt-level=3", "-C", "debuginfo=2", "-o",
                        programs["rust-log"], source], check=True)
    # A workload's command line: its program and arguments.
    def command(w):
        program, arguments = WORKLOADS[w]
        return [programs[program], *arguments]

    configs = {
        "plain": lambda w: w,
        "sprof --heap --no-cpu": lambda w: [*record, "--heap", "--no-cpu", "--", *w],
        # Stacks copied for sprof to unwind, as before the in-process walk (docs/heap.md).
        "sprof --heap --heap-stacks=copy --no-cpu": lambda w: [
            *record, "--heap", "--heap-stacks=copy", "--no-cpu", "--", *w],
        "sprof --heap=all --heap-stacks=copy --no-cpu": lambda w: [
            *record, "--heap=all", "--heap-stacks=copy", "--no-cpu", "--", *w],
        "sprof --heap --heap-free-stacks --no-cpu": lambda w: [
            *record, "--heap", "--heap-free-stacks", "--no-cpu", "--", *w],
        "sprof --heap": lambda w: [*record, "--heap", "--", *w],
        "sprof --heap=all --no-cpu": lambda w: [*record, "--heap=all", "--no-cpu", "--", *w],
        "sprof --heap=all --heap-free-stacks --no-cpu": lambda w: [
            *record, "--heap=all", "--heap-free-stacks", "--no-cpu", "--", *w],
        "interposer only": lambda w: [heap_run, "--output", "/dev/null", "--", *w],
        "heaptrack 1.4": lambda w: ["heaptrack", "-o", os.path.join(tmp, "ht"), *w],
        "heaptrack 1.4 + print": lambda w: [
            "sh", "-c", 'heaptrack -o "$0/ht" "$@" && heaptrack_print "$0/ht.zst" >/dev/null',
            tmp, *w],
    }
    if args.baseline:
        other = os.path.join(args.baseline, "cli", "sprof")
        for name in [c for c in configs if c.startswith("sprof ")]:
            configs[name + " (baseline)"] = (
                lambda w, make=configs[name]: [other if a == sprof else a for a in make(w)])
    plan = {w: [c for c in cs if not (args.skip_all and "all" in c)
                and not (args.skip_interposer and c == "interposer only")]
            for w, cs in PLAN.items()}
    if args.baseline:
        plan = {w: [x for c in cs for x in ([c, c + " (baseline)"] if c.startswith("sprof ") else [c])]
                for w, cs in plan.items()}
    if args.skip_all:
        del plan["small/40"]
    if args.only:
        plan = {w: cs for w, cs in plan.items() if w in args.only}
    else:  # issue 24's workloads run when asked for
        plan = {w: cs for w, cs in plan.items() if w not in ("churn", "rust-log", "churn/5M")}
    if args.configs:
        wanted = set(args.configs) | {c + " (baseline)" for c in args.configs}
        plan = {w: [c for c in cs if c == "plain" or c in wanted] for w, cs in plan.items()}
    results = {(w, c): [] for w in plan for c in plan[w]}
    for r in range(args.rounds):
        for w, names in plan.items():
            names = names[r % len(names):] + names[:r % len(names)]  # rotate the order
            for c in names:
                wall, cpu, out = run(configs[c](command(w)))
                results[(w, c)].append((wall, cpu, counters(out)))
                for f in os.listdir(tmp):
                    os.remove(os.path.join(tmp, f))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    print("| workload | configuration | program wall min | program wall ratio min / median "
          "| command wall ratio min / median | target CPU ratio | total CPU ratio | recorded |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for w in plan:
        plain = results[(w, "plain")]
        plain_prog = [f["program_wall"] for _, _, f in plain]
        plain_cmd = [wall for wall, _, _ in plain]
        plain_target = statistics.median(f["target_cpu"] for _, _, f in plain)
        plain_total = statistics.median(cpu for _, cpu, _ in plain)
        for c in plan[w]:
            rs = results[(w, c)]
            prog = [f.get("program_wall", float("nan")) for _, _, f in rs]
            cmd = [wall for wall, _, _ in rs]
            prog_ratios = [a / b for a, b in zip(prog, plain_prog)]
            cmd_ratios = [a / b for a, b in zip(cmd, plain_cmd)]
            target = statistics.median(f.get("target_cpu", float("nan")) for _, _, f in rs)
            total = statistics.median(cpu for _, cpu, _ in rs)
            f = rs[-1][2]
            note = ""
            if c == "plain":
                unit = "lines" if WORKLOADS[w][0] == "rust-log" else "pairs"
                note = f"{f.get('pairs_per_s', 0) / 1e6:.1f} M {unit}/s"
            elif "records" in f:
                note = f"{f['records']:,} of {f['calls']:,} allocations"
                if f["dropped"]:
                    note += f", {f['dropped']:,} records dropped"
                if "us_per_record" in f:
                    note += f"; reader {f['us_per_record']:.1f} us per record"
            elif "hr_sampled" in f:
                note = f"{f['hr_sampled']:,} of {f['hr_allocations']:,} allocations"
            print(f"| {w} | {c} | {min(prog):.2f} s | {min(prog) / min(plain_prog):.2f}x / "
                  f"{statistics.median(prog_ratios):.2f}x | {min(cmd) / min(plain_cmd):.2f}x / "
                  f"{statistics.median(cmd_ratios):.2f}x | {target / plain_target:.2f}x | "
                  f"{total / plain_total:.2f}x | {note} |")


if __name__ == "__main__":
    main()
