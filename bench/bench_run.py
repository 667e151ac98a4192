"""Shared by the bench/run-*.py scripts: running one measured command."""
import resource
import subprocess
import sys
import time


def run(cmd):
    """Runs cmd; returns (wall_s, total_cpu_s of all descendants, stdout+stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}")
    return wall, cpu, p.stdout
