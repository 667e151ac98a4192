"""Shared by the bench/run-*.py scripts: running one measured command, reading its summary."""
import re
import resource
import statistics
import subprocess
import sys
import time


def run(cmd, discard_stdout=False):
    """Runs cmd; returns (wall_s, total_cpu_s of all descendants, stdout+stderr). With
    discard_stdout, stdout goes to /dev/null (a tool printing hundreds of MB, measured without
    the cost of a reader) and only stderr comes back."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL if discard_stdout else subprocess.PIPE,
                       stderr=subprocess.PIPE if discard_stdout else subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr if discard_stdout else p.stdout}")
    return wall, cpu, p.stderr if discard_stdout else p.stdout


_SCALE = {"B": 1, "KiB": 1024, "MiB": 1024 * 1024}

# (key, pattern, value of the match): what `sprof record` and the bench workload print.
_FACTS = [
    ("samples", r"(\d+) samples?, \d+ lost ->", lambda m: int(m.group(1))),
    ("lost", r"\d+ samples?, (\d+) lost ->", lambda m: int(m.group(1))),
    ("bytes", r"lost -> \S+ \(([0-9.]+) (B|KiB|MiB)\)", lambda m: float(m.group(1)) * _SCALE[m.group(2)]),
    ("complete_pct", r"([0-9.]+)% of stacks unwound to the thread entry", lambda m: float(m.group(1))),
    ("cpu_us", r"([0-9.]+) us CPU per sample", lambda m: float(m.group(1))),
    ("latency_ms", r"written (\d+) ms after the command exited", lambda m: float(m.group(1))),
    ("self_contained_bytes", r"is self-contained \(([0-9.]+) (B|KiB|MiB), was",
     lambda m: float(m.group(1)) * _SCALE[m.group(2)]),
    ("embed_ms", r"is self-contained .*embedded in (\d+) ms", lambda m: float(m.group(1))),
    ("target_cpu", r"workload cpu_s ([0-9.]+)", lambda m: float(m.group(1))),
    ("end_ns", r"end_monotonic_ns (\d+)", lambda m: int(m.group(1))),
    ("perf_samples", r"\((\d+) samples\)", lambda m: int(m.group(1))),
    ("perf_lost_chunks", r"lost (\d+) chunks", lambda m: int(m.group(1))),
]


def sprof_facts(out):
    """The facts `out` states, by key (absent when not printed)."""
    facts = {}
    for key, pattern, value in _FACTS:
        m = re.search(pattern, out)
        if m:
            facts[key] = value(m)
    return facts


def min_median(values, fmt="{:.3f}"):
    """"min / median" of the values that are numbers, or "n/a"."""
    values = [v for v in values if v == v]
    if not values:
        return "n/a"
    return f"{fmt.format(min(values))} / {fmt.format(statistics.median(values))}"
