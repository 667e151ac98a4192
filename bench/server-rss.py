#!/usr/bin/env python3
"""Peak RSS of `sprof load` answering one large /symbolicate/v5 request.

usage: bench/server-rss.py [--count N] [--rounds N] [--binary PATH] SPROF [SPROF ...]

The request (N addresses, default 200,000, a quarter each in libc, libm, libstdc++ and a large
C++ binary) and a profile naming those modules are written by `sprof_bench_symbolicate
--write-request`. Each round starts every given sprof in turn (so that load from other work
falls on all alike): `sprof load PROFILE -n -P 0+`, one POST of the request, the reply read and
counted as it arrives, then the server's VmHWM (peak resident set) from /proc and its VmRSS
before the request. Prints a Markdown table of min / median per sprof.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")


def measure(sprof, profile, request):
    server = subprocess.Popen([sprof, "load", profile, "-n", "-P", "0+", "--no-debuginfod"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line:
                break
            # The profile URL embeds the server's (percent-encoded) address and token.
            m = re.search(r"http%3A%2F%2F127\.0\.0\.1%3A(\d+)%2F([A-Za-z0-9_-]+)", line) or \
                re.search(r"http://127\.0\.0\.1:(\d+)/([A-Za-z0-9_-]+)", line)
            if m:
                url = f"http://127.0.0.1:{m.group(1)}/{m.group(2)}"
        if url is None:
            raise RuntimeError(f"{sprof} printed no server URL")
        before_kb = status_kb(server.pid, "VmRSS")
        start = time.monotonic()
        req = urllib.request.Request(url + "/symbolicate/v5", data=request,
                                     headers={"Content-Type": "application/json"})
        reply_bytes = 0
        with urllib.request.urlopen(req, timeout=600) as reply:
            if reply.status != 200:
                raise RuntimeError(f"status {reply.status}")
            while chunk := reply.read(1 << 20):
                reply_bytes += len(chunk)
        seconds = time.monotonic() - start
        peak_kb = status_kb(server.pid, "VmHWM")
        # What stays resident after the reply: the cached symbol maps (anonymous memory) and
        # the pages of the mapped ELF files that were read (file-backed, reclaimable).
        anon_kb = status_kb(server.pid, "RssAnon")
        file_kb = status_kb(server.pid, "RssFile")
        return before_kb, peak_kb, seconds, reply_bytes, anon_kb, file_kb
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--binary", help="the large C++ binary (default BUILD/cli/sprof)")
    ap.add_argument("sprof", nargs="+")
    args = ap.parse_args()
    binary = args.binary or os.path.join(args.build, "cli", "sprof")
    with tempfile.TemporaryDirectory(prefix="sprof-rss-") as tmp:
        subprocess.run([os.path.join(args.build, "bench", "sprof_bench_symbolicate"),
                        "--count", str(args.count), "--binary", binary,
                        "--write-request", tmp], check=True)
        with open(os.path.join(tmp, "request.json"), "rb") as f:
            request = f.read()
        profile = os.path.join(tmp, "profile.json")
        results = {s: [] for s in args.sprof}
        for _ in range(args.rounds):
            for s in args.sprof:
                results[s].append(measure(s, profile, request))
    print(f"One /symbolicate/v5 request of {args.count} addresses ({len(request)} bytes) to a "
          f"fresh `sprof load`, {args.rounds} rounds; MB = 2^20 bytes, min / median.\n")
    print("| sprof | RSS before the request | peak RSS (VmHWM) | after: anonymous | after: "
          "file-backed | request time s | reply MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s, rows in results.items():
        def col(i, scale):
            values = [r[i] / scale for r in rows]
            return f"{min(values):.1f} / {statistics.median(values):.1f}"
        print(f"| `{s}` | {col(0, 1024)} | {col(1, 1024)} | {col(4, 1024)} | {col(5, 1024)} | "
              f"{col(2, 1)} | {col(3, 1 << 20)} |")


if __name__ == "__main__":
    sys.exit(main())
