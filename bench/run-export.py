#!/usr/bin/env python3
"""sprof export -f folded and sprof report against perf's own way to the same output, on one
program recorded by each tool (docs/benchmarks.md, "Report without a browser").

perf's way to folded stacks is `perf script | stackcollapse-perf.pl` (FlameGraph) or
`inferno-collapse-perf`; neither is packaged by Debian. `perf script` alone, the first half of
that pipeline, is always measured (a lower bound of its cost); with --collapse PATH (a local copy of
FlameGraph's stackcollapse-perf.pl) the whole pipeline is too. Rounds are interleaved (sprof, perf,
sprof, perf, ...) and each round's ratio is taken within the round, per sample (the two recordings
do not hold the same number).

  bench/run-export.py --sprof build/cli/sprof --program build/tests/targets/it_unwind \\
      --seconds 30 --rounds 5 [--collapse ~/FlameGraph/stackcollapse-perf.pl]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile

from bench_run import run


def samples_of_report(sprof, profile):
    out = subprocess.run([sprof, "report", profile], capture_output=True, text=True, check=True)
    m = re.search(r"# ([\d,]+) samples", out.stdout)
    return int(m.group(1).replace(",", ""))


def samples_of_perf_data(perf_data):
    # One line per sample: with only the tid asked for, perf script prints no call chains.
    out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "tid"], capture_output=True,
                         text=True, check=True)
    return len(out.stdout.splitlines())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sprof", required=True)
    ap.add_argument("--program", required=True, help="it_unwind (two threads, no frame pointers)")
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--rate", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--collapse", help="stackcollapse-perf.pl, to time perf script | it too")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="sprof-bench-export-")
    profile = os.path.join(work, "p.json.gz")
    perf_data = os.path.join(work, "perf.data")
    run([args.sprof, "record", "-q", "-s", "-r", str(args.rate), "-o", profile, "--", args.program,
         "2", str(args.seconds)])
    run(["perf", "record", "-q", "-F", str(args.rate), "-g", "-o", perf_data, "--", args.program,
         "2", str(args.seconds)])
    sprof_samples = samples_of_report(args.sprof, profile)
    perf_samples = samples_of_perf_data(perf_data)
    print(f"sprof: {sprof_samples} samples, {os.path.getsize(profile)} bytes; "
          f"perf: {perf_samples} samples, {os.path.getsize(perf_data)} bytes")

    pairs = {
        "folded": ([args.sprof, "export", "-f", "folded", profile],
                   ["perf", "script", "-i", perf_data]),
        "report": ([args.sprof, "report", "--tree", profile],
                   ["perf", "report", "--stdio", "-i", perf_data]),
    }
    if args.collapse:
        pairs["folded+collapse"] = (pairs["folded"][0], [
            "sh", "-c", f"perf script -i '{perf_data}' | '{args.collapse}'"])
    for name, (ours, theirs) in pairs.items():
        walls = {"sprof": [], "perf": []}
        ratios = []
        for _ in range(args.rounds):
            a, _, _ = run(ours, discard_stdout=True)
            b, _, _ = run(theirs, discard_stdout=True)
            walls["sprof"].append(a)
            walls["perf"].append(b)
            # Per sample: the two recordings do not hold the same number of samples.
            ratios.append((b / perf_samples) / (a / sprof_samples))
        for tool, w in walls.items():
            n = sprof_samples if tool == "sprof" else perf_samples
            print(f"{name:15s} {tool:5s} wall min {min(w):.3f} s, median {statistics.median(w):.3f} s"
                  f" ({statistics.median(w) / n * 1e5:.3f} s per 100k samples)")
        print(f"{name:15s} perf/sprof per sample: min {min(ratios):.1f}x, "
              f"median {statistics.median(ratios):.1f}x")


if __name__ == "__main__":
    main()
