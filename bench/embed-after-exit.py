#!/usr/bin/env python3
"""How long `sprof record -s` takes to embed symbols after the command exits, and what it costs.

usage: bench/embed-after-exit.py [--runs N] BASELINE_SPROF SPROF -- COMMAND [ARGS...]

Records COMMAND with each sprof (`record -s -o <tmp>/p.json.gz`), alternating between the two
in N interleaved rounds, and reads from each run's summary "written N ms after the command
exited" and "embedded in N ms"; also the wall time of the whole run and the CPU (user + system)
of sprof and the command together (getrusage of the children). Prints min / median of each, and
the ratios of the medians (SPROF / BASELINE). Typical use: BASELINE a build without the symbol
prefetch (or with --no-presymbolicate passed through SPROF_EXTRA), SPROF the current build.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def one_run(sprof, command, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run([sprof, "record", "-s", "-o", out, "--", *command],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{sprof} failed:\n{p.stderr}")
    # The last of each: a recorded sprof prints its own before.
    embedded = re.findall(r"embedded in (\d+) ms", p.stderr)
    written = re.findall(r"written (\d+) ms after", p.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"embed_ms": float(embedded[-1]) if embedded else float("nan"),
            "write_ms": float(written[-1]) if written else float("nan"),
            "wall_s": wall, "cpu_s": cpu}


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    split = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("baseline")
    ap.add_argument("sprof")
    args = ap.parse_args(argv[:split])
    command = argv[split + 1:]
    out = os.path.join(tempfile.mkdtemp(prefix="sprof-embed-bench-"), "p.json.gz")
    runs = {args.baseline: [], args.sprof: []}
    for _ in range(args.runs):
        for sprof in (args.baseline, args.sprof):
            runs[sprof].append(one_run(sprof, command, out))
    print(f"`sprof record -s -- {' '.join(command)}`, {args.runs} interleaved rounds, min / median")
    print("| sprof | embedded after exit (ms) | written after exit (ms) | wall (s) | CPU, sprof + command (s) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    medians = {}
    for sprof, rs in runs.items():
        cells = []
        for key in ("embed_ms", "write_ms", "wall_s", "cpu_s"):
            values = [r[key] for r in rs]
            medians[(sprof, key)] = statistics.median(values)
            fmt = "{:.0f}" if key.endswith("ms") else "{:.2f}"
            cells.append(f"{fmt.format(min(values))} / {fmt.format(statistics.median(values))}")
        print(f"| `{sprof}` | " + " | ".join(cells) + " |")
    ratio = " | ".join(f"{medians[(args.sprof, k)] / medians[(args.baseline, k)]:.2f}"
                       for k in ("embed_ms", "write_ms", "wall_s", "cpu_s"))
    print(f"| ratio of medians | {ratio} |")


if __name__ == "__main__":
    main()
