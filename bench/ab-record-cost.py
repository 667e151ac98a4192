#!/usr/bin/env python3
"""sprof's own CPU per sample, two builds side by side in interleaved rounds.

Usage: bench/ab-record-cost.py BASE_BUILD NEW_BUILD [--runs N]

Two recordings, each at 1 kHz in DWARF mode, saved without symbols (--no-presymbolicate), so the
figure is the recorder's own cost as the summary line prints it ("us CPU per sample"):
  - bench_workload 4 x 400 units (of NEW_BUILD, the same program for both): the issue's 1 kHz row;
  - `g++ -O2 -c` of a small C++ file: a short run through large binaries (cc1plus: 35 MB, 2.6 MB
    of .eh_frame), where what is paid once per module weighs most.
Each round runs every (case, build) pair once, in the same order; the table is min / median.
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_run import min_median, run, sprof_facts  # noqa: E402

SOURCE = r"""
#include <map>
#include <string>
#include <vector>
int main() {
  std::map<std::string, int> m;
  for (int i = 0; i < 200000; i++) m[std::to_string(i * 7919 % 100003)]++;
  std::vector<int> v(m.size());
  return static_cast<int>(v.size() % 2);
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sprof-ab-")
    source = os.path.join(tmp, "t.cpp")
    with open(source, "w") as f:
        f.write(SOURCE)
    workload = [os.path.join(args.new, "bench", "bench_workload"), "4", "400"]
    cases = {
        "bench_workload 4 x 400, 1 kHz": workload,
        "g++ -O2 -c (cc1plus), 1 kHz": ["g++", "-O2", "-c", source, "-o", os.path.join(tmp, "t.o")],
    }
    builds = {"base": args.base, "new": args.new}
    results = {(c, b): [] for c in cases for b in builds}
    for _ in range(args.runs):
        for case, command in cases.items():
            for label, build in builds.items():
                sprof = os.path.join(build, "cli", "sprof")
                _, _, out = run([sprof, "record", "-s", "--no-presymbolicate",
                                 "-o", os.path.join(tmp, "p.json.gz"), "--", *command])
                facts = sprof_facts(out)
                results[(case, label)].append(facts)
    print(f"sprof CPU per sample (summary line), {args.runs} interleaved rounds, min / median:\n")
    print("| recording | samples | base us | new us | new / base (medians) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for case in cases:
        base = [f["cpu_us"] for f in results[(case, "base")] if "cpu_us" in f]
        new = [f["cpu_us"] for f in results[(case, "new")] if "cpu_us" in f]
        samples = statistics.median(f.get("samples", 0) for f in results[(case, "new")])
        ratio = statistics.median(new) / statistics.median(base) if base and new else float("nan")
        print(f"| {case} | {samples:.0f} | {min_median(base, '{:.2f}')} | "
              f"{min_median(new, '{:.2f}')} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
