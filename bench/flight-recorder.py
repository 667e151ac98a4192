#!/usr/bin/env python3
"""sprof's memory and CPU over a long flight recording, and how soon SIGUSR2 gives a file.

usage: bench/flight-recorder.py [--seconds N] [--window W] [--threads T] [--triggers K]
                                [--presymbolicate] SPROF TARGET

Records `TARGET T SECONDS+5` (tests/targets' it_threads: T threads spinning) with
`sprof record --flight-recorder W -F 1000`, reads sprof's VmRSS and CPU time (user + system,
all its threads) from /proc every 10 s, and
sends SIGUSR2 K times spread over the run, timing each from kill(2) to the window's file
appearing in the output directory (it appears by rename, so it is whole). Then stops sprof
with SIGINT. Prints the RSS series, the CPU sprof used in each 10 s (as % of one CPU), and the
latencies; with --baseline also the same series of the recording without --flight-recorder.
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_s(pid):
    # utime and stime, fields 14 and 15 of /proc/PID/stat (after the parenthesised name).
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def files(d):
    return sorted(n for n in os.listdir(d) if n.endswith(".json.gz")) if os.path.isdir(d) else []


def run(args, flight):
    out = tempfile.mkdtemp(prefix="sprof-flight-bench-")
    cmd = [args.sprof, "record", "-F", "1000"]
    if not args.presymbolicate:
        cmd.append("--no-presymbolicate")
    if flight:
        cmd += ["--flight-recorder", args.window, "--output-dir", out + "/w"]
    else:
        cmd += ["-s", "-o", out + "/p.json.gz"]
    cmd += ["--", args.target, str(args.threads), str(args.seconds + 5)]
    sprof = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(out + "/log", "w"))
    start = time.monotonic()
    rss = []
    cpu = []
    last_cpu = 0.0
    latencies = []
    trigger_at = [args.seconds * (i + 1) / (args.triggers + 1) for i in range(args.triggers)]
    next_rss = 10.0
    while time.monotonic() - start < args.seconds:
        now = time.monotonic() - start
        if now >= next_rss:
            rss.append((round(now), rss_kb(sprof.pid)))
            used = cpu_s(sprof.pid)
            cpu.append((round(now), (used - last_cpu) / 10 * 100))
            last_cpu = used
            next_rss += 10
        if flight and trigger_at and now >= trigger_at[0]:
            trigger_at.pop(0)
            before = len(files(out + "/w"))
            t0 = time.monotonic()
            os.kill(sprof.pid, signal.SIGUSR2)
            while len(files(out + "/w")) == before and time.monotonic() - t0 < 30:
                time.sleep(0.0005)
            latencies.append((time.monotonic() - t0) * 1000)
        time.sleep(0.01)
    sprof.send_signal(signal.SIGINT)
    sprof.wait(timeout=120)
    return rss, cpu, latencies, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=int, default=120)
    p.add_argument("--window", default="10s")
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--triggers", type=int, default=5)
    p.add_argument("--presymbolicate", action="store_true")
    p.add_argument("--baseline", action="store_true")
    p.add_argument("sprof")
    p.add_argument("target")
    args = p.parse_args()
    rss, cpu, lat, out = run(args, True)
    print(f"flight recorder {args.window}, {args.threads} threads, {args.seconds} s ({out})")
    print("RSS MB at s:", " ".join(f"{t}:{kb / 1024:.1f}" for t, kb in rss))
    print("CPU % of one CPU in the 10 s before s:", " ".join(f"{t}:{p:.1f}" for t, p in cpu))
    print("SIGUSR2 -> file ms:", " ".join(f"{ms:.0f}" for ms in lat))
    if args.baseline:
        rss, cpu, _, out = run(args, False)
        print(f"without --flight-recorder ({out})")
        print("RSS MB at s:", " ".join(f"{t}:{kb / 1024:.1f}" for t, kb in rss))
        print("CPU % of one CPU in the 10 s before s:", " ".join(f"{t}:{p:.1f}" for t, p in cpu))


if __name__ == "__main__":
    sys.exit(main())
