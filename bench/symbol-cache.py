#!/usr/bin/env python3
"""What the symbol cache saves: embedding symbols with a warm cache against no cache, and the
whole cost of `sprof record -s` (self-contained) against a plain recording.

Usage: bench/symbol-cache.py BUILD [--runs N]

Cases (each a Gecko file recorded once with --no-presymbolicate, then `sprof symbolicate`d):
  - the bundled demo program (build/demo/sprof-demo 2), as scripts/demo.sh records it;
  - bench_workload 4 x 400 units (4 threads);
  - a recording of `sprof import` of a perf.data (the sprof binary: large DWARF).
For each, interleaved rounds of `sprof symbolicate --no-symbol-cache` and `sprof symbolicate
--symbol-cache WARM` (WARM filled before the first round); the table shows what the summary
line states ("embedded in N ms") and the command's CPU, min / median.

Then `sprof record` of bench_workload 4 x 500 units (about 1.6 s, 4 threads) in interleaved rounds:
--no-presymbolicate (the plain recording), -s with the warm cache, and -s with --no-symbol-cache,
the order rotated every round: wall and whole-tree CPU (sprof and the program), min / median, and their ratios of medians to the
program run alone.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_run import min_median, run, sprof_facts  # noqa: E402


def wait_for_background_fill():
    """Waits for `sprof cache fill` processes (the cache is filled in the background)."""
    while subprocess.run(["pgrep", "-f", "sprof cache fill"], stdout=subprocess.DEVNULL).returncode == 0:
        subprocess.run(["sleep", "0.2"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    sprof = f"{build}/cli/sprof"
    workload = f"{build}/bench/bench_workload"
    tmp = tempfile.mkdtemp(prefix="sprof-bench-cache-")
    warm = f"{tmp}/warm-cache"
    try:
        # The sprof import case needs a perf.data, so it is left out where perf is missing.
        cases = {
            "demo (sprof-demo 2)": [f"{build}/demo/sprof-demo", "2"],
            "bench_workload 4 x 400": [workload, "4", "400"],
        }
        if shutil.which("perf"):
            perf_data = f"{tmp}/perf.data"
            subprocess.run(["perf", "record", "-q", "-g", "-o", perf_data, workload, "2", "200"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # A copy of sprof: the recorded binary must stay as it was (its build-id names it).
            sprof_copy = f"{tmp}/sprof"
            shutil.copy2(sprof, sprof_copy)
            cases["sprof import (sprof's own DWARF)"] = [
                sprof_copy, "import", "-s", "--no-presymbolicate", "-o", f"{tmp}/imported.json.gz",
                perf_data]
        gecko = {}
        for name, cmd in cases.items():
            path = f"{tmp}/{len(gecko)}.json.gz"
            run([sprof, "record", "-s", "--no-presymbolicate", "--no-symbol-cache", "-o", path, "--"] + cmd)
            gecko[name] = path
            # Fill the warm cache once.
            copy = f"{tmp}/fill.json.gz"
            shutil.copy(path, copy)
            run([sprof, "symbolicate", "--symbol-cache", warm, copy])
            wait_for_background_fill()

        print("| recording | modules | embedded ms, no cache | embedded ms, warm cache | "
              "symbolicate CPU s, no cache | warm cache |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for name, path in gecko.items():
            series = {"none": ([], []), "warm": ([], [])}
            modules = ""
            for _ in range(args.runs):
                for mode, flags in (("none", ["--no-symbol-cache"]), ("warm", ["--symbol-cache", warm])):
                    copy = f"{tmp}/s.json.gz"
                    shutil.copy(path, copy)
                    _, cpu, out = run([sprof, "symbolicate"] + flags + [copy])
                    facts = sprof_facts(out)
                    series[mode][0].append(facts.get("embed_ms", float("nan")))
                    series[mode][1].append(cpu)
                    if mode == "warm" and "from the symbol cache" not in out:
                        sys.exit(f"warm run did not use the cache:\n{out}")
                    if mode == "warm":
                        modules = out.split("addresses named in ")[1].split(";")[0]
            print(f"| {name} | {modules} | {min_median(series['none'][0], '{:.0f}')} | "
                  f"{min_median(series['warm'][0], '{:.0f}')} | {min_median(series['none'][1], '{:.3f}')} | "
                  f"{min_median(series['warm'][1], '{:.3f}')} |")

        record = {"alone": [workload, "4", "500"]}
        modes = {
            "program alone": None,
            "record --no-presymbolicate": ["--no-presymbolicate", "--no-symbol-cache"],
            "record -s, warm cache": ["--symbol-cache", warm],
            "record -s, no cache": ["--no-symbol-cache"],
        }
        results = {m: ([], []) for m in modes}
        names = list(modes)
        for r in range(args.runs):
            # The order rotates every round, so that no mode always runs after the same one.
            for mode in names[r % len(names):] + names[:r % len(names)]:
                flags = modes[mode]
                if flags is None:
                    wall, cpu, _ = run(record["alone"])
                else:
                    wall, cpu, _ = run([sprof, "record", "-s", "-o", f"{tmp}/r.json.gz"] + flags +
                                       ["--"] + record["alone"])
                results[mode][0].append(wall)
                results[mode][1].append(cpu)
        base_wall = sorted(results["program alone"][0])[len(results["program alone"][0]) // 2]
        base_cpu = sorted(results["program alone"][1])[len(results["program alone"][1]) // 2]
        print()
        print("| bench_workload 4 x 500 | wall s | whole-tree CPU s | wall ratio | CPU ratio |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for mode, (walls, cpus) in results.items():
            mw = sorted(walls)[len(walls) // 2]
            mc = sorted(cpus)[len(cpus) // 2]
            print(f"| {mode} | {min_median(walls)} | {min_median(cpus)} | {mw / base_wall:.3f} | "
                  f"{mc / base_cpu:.3f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
