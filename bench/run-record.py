#!/usr/bin/env python3
"""Recording overhead of sprof versus running alone and versus perf record, side by side.

Usage: bench/run-record.py [BUILD_DIR] [--runs N] [--units U] [--threads T] [--only-save]
       bench/run-record.py [BUILD_DIR] --rows [--runs N] [--long-units U] [--many-threads T]
                           [--save NOW.json] [--before BEFORE.json] [--doc docs/benchmarks.md]

Runs a fixed amount of CPU-bound work (bench_workload: libm, libstdc++ sort, plain loops,
-O2 -fomit-frame-pointer) under each configuration, interleaved round-robin so machine noise
hits all alike, and prints a Markdown table of min/median ratios plus sprof's own numbers
(bytes per sample, unwinding, exit-to-written latency). A second table compares saving the
self-contained file (symbols embedded, the default) with --no-presymbolicate; a third checks
lost samples at 10 kHz with 32 KiB stack copies. --only-save prints the saving table alone.
--rows measures issue 12's recorder rows next to their baselines (bench/record_rows.py) and
writes them into the doc's marked section, with a saved earlier run as the "before" column.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import record_rows
from bench_run import min_median as mm, run, sprof_facts


def exit_to_url_ms(sprof, workload, extra=()):
    """Starts `sprof record --no-open` and returns ms from the workload's last instruction (it
    prints its CLOCK_MONOTONIC end time) to sprof printing the Firefox Profiler URL."""
    p = subprocess.Popen([sprof, "record", "--no-open", *extra, "-P", "0", "-o",
                          os.path.join(tempfile.mkdtemp(prefix="sprof-bench-url-"), "p.json.gz"),
                          "--", *workload], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    end_ns = None
    latency = float("nan")
    for line in p.stdout:
        m = re.search(r"end_monotonic_ns (\d+)", line)
        if m:
            end_ns = int(m.group(1))
        if line.startswith("sprof: open ") and end_ns is not None:
            latency = (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - end_ns) / 1e6
            break
    p.send_signal(2)
    p.wait(timeout=30)
    return latency


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--units", type=int, default=150)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--only-save", action="store_true")
    ap.add_argument("--rows", action="store_true")
    ap.add_argument("--long-units", type=int, default=0, help="per thread, 2 threads, 10 kHz")
    ap.add_argument("--many-threads", type=int, default=0)
    ap.add_argument("--save")
    ap.add_argument("--before")
    ap.add_argument("--label", default="now")
    ap.add_argument("--before-label", default="before")
    ap.add_argument("--doc")
    args = ap.parse_args()
    if args.rows:
        record_rows.main(args)
        return

    sprof = os.path.join(args.build, "cli", "sprof")
    workload = [os.path.join(args.build, "bench", "bench_workload"), str(args.threads), str(args.units)]
    tmp = tempfile.mkdtemp(prefix="sprof-bench-")
    out_json = os.path.join(tmp, "p.json.gz")
    perf_data = os.path.join(tmp, "perf.data")
    perf = ["perf", "record", "-q", "-F", "1000", "--no-bpf-event", "--no-buildid-cache", "-o", perf_data]
    if args.only_save:
        save_table(sprof, workload, out_json, args.runs)
        return
    # Recording overhead alone: the file is saved in the Gecko form, as perf does not
    # symbolicate either; saving with symbols is the separate table below.
    configs = {
        "alone": workload,
        "sprof record (dwarf, 16 KiB)": [sprof, "record", "-s", "--no-presymbolicate", "-o", out_json, "--", *workload],
        "sprof record --unwind fp": [sprof, "record", "-s", "--no-presymbolicate", "--unwind", "fp", "-o", out_json, "--", *workload],
        "perf record -g": perf + ["-g", "--", *workload],
        "perf record --call-graph dwarf": perf + ["--call-graph", "dwarf", "--", *workload],
    }
    results = {name: {"wall": [], "cpu": [], "wcpu": [], "facts": []} for name in configs}
    for _ in range(args.runs):
        for name, cmd in configs.items():
            wall, cpu, out = run(cmd)
            results[name]["wall"].append(wall)
            results[name]["cpu"].append(cpu)
            results[name]["wcpu"].append(sprof_facts(out).get("target_cpu", float("nan")))
            results[name]["facts"].append(sprof_facts(out))

    base = results["alone"]
    base_wall = statistics.median(base["wall"])
    base_cpu = statistics.median(base["cpu"])
    print(f"Workload: {args.threads} threads x {args.units} units; alone: wall {base_wall:.2f} s, "
          f"CPU {base_cpu:.2f} s (median of {args.runs}). Ratios are min / median over runs.\n")
    print("| configuration | wall ratio | total CPU ratio (incl. profiler) | target CPU ratio |")
    print("| --- | ---: | ---: | ---: |")
    for name, r in results.items():
        print(f"| {name} | {mm([w / base_wall for w in r['wall']])} | "
              f"{mm([c / base_cpu for c in r['cpu']])} | "
              f"{mm([c / statistics.median(base['wcpu']) for c in r['wcpu']])} |")
    print()
    print("| sprof mode | samples | bytes/sample | lost | stacks complete | sprof CPU us/sample (min / median) | exit -> written ms (min / median) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in ("sprof record (dwarf, 16 KiB)", "sprof record --unwind fp"):
        facts = results[name]["facts"]
        samples = statistics.median(f.get("samples", 0) for f in facts)
        bps = statistics.median(f["bytes"] / f["samples"] for f in facts if f.get("samples"))
        lost = max(f.get("lost", 0) for f in facts)
        complete = statistics.median(f.get("complete_pct", float("nan")) for f in facts)
        print(f"| {name} | {samples:.0f} | {bps:.1f} | {lost} | "
              f"{'n/a' if complete != complete else f'{complete:.1f} %'} | "
              f"{mm([f.get('cpu_us', float('nan')) for f in facts])} | "
              f"{mm([f.get('latency_ms', float('nan')) for f in facts])} |")

    print()
    save_table(sprof, workload, out_json, args.runs)

    print()
    for extra, label in (((), "`sprof record --no-open`"),
                         (("--no-presymbolicate",), "`sprof record --no-open --no-presymbolicate`")):
        latencies = [exit_to_url_ms(sprof, workload, extra) for _ in range(args.runs)]
        print(f"Target exit -> Firefox Profiler URL printed ({label}): "
              f"{mm(latencies)} ms (min / median of {args.runs}).")

    # 10 kHz with 32 KiB stack copies on all CPUs: does anything get lost?
    print()
    print("| 10 kHz, 32 KiB stacks | samples | lost |")
    print("| --- | ---: | ---: |")
    _, _, out = run([sprof, "record", "-s", "-r", "10000", "--stack-size", "32768", "-o", out_json,
                     "--", *workload])
    f = sprof_facts(out)
    print(f"| sprof record | {f.get('samples', 0)} | {f.get('lost', 0)} records |")
    perf_10k = ["perf", "record", "-F", "10000", "--no-bpf-event", "--no-buildid-cache", "-o", perf_data,
                "--call-graph", "dwarf,32768", "--", *workload]
    _, _, out = run(perf_10k)
    f = sprof_facts(out)
    samples, lost = f.get("perf_samples", 0), f.get("perf_lost_chunks", 0)
    print(f"| perf record --call-graph dwarf,32768 | {samples} | {lost} chunks |")


def save_table(sprof, workload, out_json, runs):
    """Saving with symbols embedded (the default) next to --no-presymbolicate, round-robin:
    file size, and ms from the command's exit until the final file is in place."""
    gecko, embedded = [], []
    for _ in range(runs):
        _, _, out = run([sprof, "record", "-s", "--no-presymbolicate", "-o", out_json, "--", *workload])
        gecko.append(sprof_facts(out))
        _, _, out = run([sprof, "record", "-s", "-o", out_json, "--", *workload])
        embedded.append(sprof_facts(out))
    samples = statistics.median(f.get("samples", 0) for f in embedded)
    print(f"Saving {samples:.0f} samples ({' '.join(os.path.basename(w) for w in workload)}), "
          f"min / median of {runs} runs:\n")
    print("| saved as | file KiB | exit -> final file ms | of which embedding symbols ms |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| Gecko (`--no-presymbolicate`) | {mm([f['bytes'] / 1024 for f in gecko])} | "
          f"{mm([f.get('latency_ms', float('nan')) for f in gecko])} | - |")
    print(f"| self-contained (default) | "
          f"{mm([f.get('self_contained_bytes', float('nan')) / 1024 for f in embedded])} | "
          f"{mm([f.get('latency_ms', float('nan')) + f.get('embed_ms', float('nan')) for f in embedded])} | "
          f"{mm([f.get('embed_ms', float('nan')) for f in embedded])} |")


if __name__ == "__main__":
    main()
