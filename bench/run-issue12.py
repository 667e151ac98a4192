#!/usr/bin/env python3
"""Every row of issue 12, each next to its baseline, in one command.

  python3 bench/run-issue12.py BUILD [--runs N] [--before BEFORE.json] [--save NOW.json]
                               [--doc docs/benchmarks.md]

Runs, one after the other:
  - `bench/run-record.py BUILD --rows`: the recorder rows (CPU per sample, target and whole-tree
    CPU ratios, exit -> written, peak RSS, 2,000 threads) in rounds interleaved with the workload
    alone, `perf record -g` and `perf record --call-graph dwarf` + `perf script`;
  - `BUILD/bench/sprof_bench_symbolicate`: cold and warm /symbolicate/v5 of 10 k addresses over
    libc, libm, libstdc++ and sprof, against `llvm-symbolizer` on the same addresses;
  - `bench/server-rss.py`: the server's peak RSS for one 200 k-address request.
With --doc the recorder rows go into the doc's "recorder-rows" block (as `run-record.py --doc`)
and the other two into its "symbolication-rows" block.
"""
import argparse
import os
import subprocess
import sys
import time

import record_rows

HERE = os.path.dirname(os.path.abspath(__file__))
BEGIN = "<!-- symbolication-rows:begin (bench/run-issue12.py) -->"
END = "<!-- symbolication-rows:end -->"


def output_of(cmd):
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--before", help="a saved recorder-rows run, shown as the 'before' column")
    ap.add_argument("--save", help="where to keep this recorder-rows run (JSON)")
    ap.add_argument("--doc")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    sprof = os.path.join(build, "cli", "sprof")

    # run-record.py names the build as given in the doc's text.
    rows = [sys.executable, os.path.join(HERE, "run-record.py"), args.build, "--rows",
            "--runs", str(args.runs), "--many-threads", "2000", "--long-units", "18000"]
    for flag in ("before", "save", "doc"):
        if getattr(args, flag):
            rows += [f"--{flag}", getattr(args, flag)]
    print(output_of(rows))

    symbolicate = output_of([os.path.join(build, "bench", "sprof_bench_symbolicate"),
                             "--runs", str(args.runs), "--skip-addr2line", "--binary", sprof])
    server = output_of([sys.executable, os.path.join(HERE, "server-rss.py"),
                        "--rounds", str(args.runs), "--build", build, sprof])
    text = (f"Measured by `bench/run-issue12.py BUILD --runs {args.runs}`, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
            f"{os.getloadavg()[0]:.1f} at the end.\n\n"
            f"Cold and warm `/symbolicate/v5` against `llvm-symbolizer` "
            f"(`sprof_bench_symbolicate`):\n\n{symbolicate}\n\n"
            f"The server's peak RSS for one 200 k-address request (`server-rss.py`):\n\n{server}")
    print(text)
    if args.doc:
        record_rows.write_doc(args.doc, text, BEGIN, END)


if __name__ == "__main__":
    sys.exit(main())
