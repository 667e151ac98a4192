"""The recorder rows of issue 12, each next to its baseline, in interleaved rounds.

Used by `bench/run-record.py BUILD --rows`. Every configuration of a round runs once per round,
in the same order, so machine noise hits all alike; the table shows min / median per row.
Results are also saved as JSON so a later run can show them as its "before" column.
"""
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

from bench_run import min_median as _mm, run, sprof_facts

BEGIN = "<!-- recorder-rows:begin (bench/run-record.py --rows) -->"
END = "<!-- recorder-rows:end -->"


def _facts(out):
    f = sprof_facts(out)
    f.setdefault("perf_lost_chunks", 0)
    return f


def _timed(cmd):
    """run() plus the ms from the workload's last instruction to the command's exit."""
    wall, cpu, out = run(cmd)
    done = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    f = _facts(out)
    f["wall"], f["cpu"] = wall, cpu
    if "end_ns" in f:
        f["exit_ms"] = (done - f["end_ns"]) / 1e6
    return f


def _perf_script(perf_data):
    """`perf script` over a recording, to /dev/null: what perf needs after the command to have
    symbolic stacks (sprof writes them at exit). Returns (wall ms, CPU s)."""
    wall, cpu, _ = run(["sh", "-c", f"perf script -i {perf_data} > /dev/null 2>&1"])
    return wall * 1e3, cpu


def _sprof_rss(cmd, period_s=0.25):
    """Runs sprof `cmd`, polling its resident set; returns (facts, [(monotonic_ns, rss_mb)])."""
    curve = []
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
    reader.start()
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as s:
                for line in s:
                    if line.startswith("VmRSS:"):
                        curve.append((time.clock_gettime_ns(time.CLOCK_MONOTONIC),
                                      int(line.split()[1]) / 1024))
        except OSError:
            pass
        time.sleep(period_s)
    done = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    reader.join()
    f = _facts("".join(chunks))
    if "end_ns" in f:
        f["exit_ms"] = (done - f["end_ns"]) / 1e6
    f["peak_rss_mb"] = max((r for _, r in curve), default=float("nan"))
    return f, curve


def _profile_threads(path, prefix):
    """Threads named `prefix`* with at least one sample in a Gecko profile."""
    with gzip.open(path) as fh:
        doc = json.load(fh)
    names = set()

    def walk(p):
        for t in p.get("threads", []):
            if t.get("name", "").startswith(prefix) and t["samples"]["data"]:
                names.add((t.get("pid"), t.get("tid")))
        for c in p.get("processes", []):
            walk(c)
    walk(doc)
    return len(names)


def measure(build, runs, long_units, many_threads):
    sprof = os.path.join(build, "cli", "sprof")
    wl = os.path.join(build, "bench", "bench_workload")
    tmp = tempfile.mkdtemp(prefix="sprof-rows-")
    out = os.path.join(tmp, "p.json.gz")
    pdata = os.path.join(tmp, "perf.data")
    perf = ["perf", "record", "--no-bpf-event", "--no-buildid-cache", "-o", pdata]
    sp = [sprof, "record", "-s", "--no-presymbolicate", "-o", out]
    w1k = [wl, "4", "400"]
    w10k = [wl, "4", "450"]
    r = {k: [] for k in ("alone", "sprof", "sprof_fp", "perf_g", "perf_dwarf",
                         "alone10k", "sprof10k", "perf_dwarf10k")}
    for _ in range(runs):
        r["alone"].append(_timed(w1k))
        r["sprof"].append(_timed(sp + ["--", *w1k]))
        r["sprof_fp"].append(_timed(sp + ["--unwind", "fp", "--", *w1k]))
        r["perf_g"].append(_timed(perf + ["-F", "1000", "-g", "--", *w1k]))
        f = _timed(perf + ["-F", "1000", "--call-graph", "dwarf", "--", *w1k])
        f["script_ms"], f["script_cpu"] = _perf_script(pdata)
        r["perf_dwarf"].append(f)
        r["alone10k"].append(_timed(w10k))
        r["sprof10k"].append(_timed(sp + ["-r", "10000", "--", *w10k]))
        f = _timed(perf + ["-F", "10000", "--call-graph", "dwarf", "--", *w10k])
        f["script_ms"], f["script_cpu"] = _perf_script(pdata)
        r["perf_dwarf10k"].append(f)
    if many_threads:
        wmany = [wl, str(many_threads), "2"]
        r["many"] = []
        r["many_perf"] = []
        for _ in range(max(1, runs // 2)):
            f = _timed(sp + ["--", *wmany])
            f["present"] = _profile_threads(out, "work-")
            r["many"].append(f)
            r["many_perf"].append(_timed(perf + ["-F", "1000", "--call-graph", "dwarf", "--", *wmany]))
    if long_units:
        f, curve = _sprof_rss(sp + ["-r", "10000", "--", wl, "2", str(long_units)])
        r["long"] = [f]
        r["long_curve"] = curve
    shutil.rmtree(tmp, ignore_errors=True)  # perf.data of a 10 kHz DWARF run is ~350 MB
    return r


def _vals(rs, key, fn=None):
    return [fn(x) if fn else x[key] for x in rs if key in x]


def rows(r):
    """[(row, sprof value, baseline description, baseline value)] from one measure() result."""
    a_cpu = statistics.median(_vals(r["alone"], "cpu"))
    a_tcpu = statistics.median(_vals(r["alone"], "target_cpu"))

    def per_sample(x):  # profiler CPU (whole tree minus the target's own) per sample
        n = x.get("samples") or x.get("perf_samples") or 0
        return (x["cpu"] + x.get("script_cpu", 0) - x["target_cpu"]) * 1e6 / n if n else float("nan")

    out = []
    out.append(("CPU per sample, 1 kHz, us (summary line)", _mm(_vals(r["sprof"], "cpu_us")),
                "-", "-"))
    out.append(("CPU per sample, 10 kHz, us (summary line)", _mm(_vals(r["sprof10k"], "cpu_us")),
                "-", "-"))
    out.append(("profiler CPU per sample, 1 kHz, us (whole tree - target)",
                _mm(_vals(r["sprof"], "cpu", per_sample)),
                "perf -g / perf dwarf + script",
                _mm(_vals(r["perf_g"], "cpu", per_sample)) + " ; " +
                _mm(_vals(r["perf_dwarf"], "cpu", per_sample))))
    out.append(("target CPU ratio, DWARF, 1 kHz", _mm(_vals(r["sprof"], "target_cpu", lambda x: x["target_cpu"] / a_tcpu)),
                "perf dwarf ; perf -g",
                _mm(_vals(r["perf_dwarf"], "target_cpu", lambda x: x["target_cpu"] / a_tcpu)) + " ; " +
                _mm(_vals(r["perf_g"], "target_cpu", lambda x: x["target_cpu"] / a_tcpu))))
    out.append(("whole-tree CPU ratio, DWARF, 1 kHz", _mm(_vals(r["sprof"], "cpu", lambda x: x["cpu"] / a_cpu)),
                "perf dwarf + script ; perf -g",
                _mm(_vals(r["perf_dwarf"], "cpu", lambda x: (x["cpu"] + x["script_cpu"]) / a_cpu)) + " ; " +
                _mm(_vals(r["perf_g"], "cpu", lambda x: x["cpu"] / a_cpu))))
    n10k = statistics.median(_vals(r["sprof10k"], "samples") or [0])
    out.append((f"exit -> profile written, {n10k / 1e3:.0f} k samples (10 kHz, 4 threads), ms",
                _mm(_vals(r["sprof10k"], "latency_ms"), "{:.0f}"),
                "perf dwarf: exit -> perf.data + perf script",
                _mm(_vals(r["perf_dwarf10k"], "exit_ms", lambda x: x["exit_ms"] + x["script_ms"]), "{:.0f}")))
    if "long" in r:
        f = r["long"][0]
        # The halves are of the recording: polls after the workload's end catch the write, whose
        # peak only the first figure (the whole run's) includes.
        end_ns = f.get("end_ns")
        curve = [(t, v) for t, v in r["long_curve"] if end_ns is None or t <= end_ns]
        half = len(curve) // 2
        first = max((v for _, v in curve[:half]), default=float("nan"))
        second = max((v for _, v in curve[half:]), default=float("nan"))
        out.append((f"exit -> profile written, {f.get('samples', 0) / 1e3:.0f} k samples (10 kHz), ms",
                    f"{f.get('latency_ms', float('nan')):.0f}", "-", "-"))
        out.append(("sprof peak RSS over that run, MB (max of first half / second half)",
                    f"{f['peak_rss_mb']:.1f} ({first:.1f} / {second:.1f})", "-", "-"))
    if "many" in r:
        m = r["many"]
        lost_pct = [100 * x["lost"] / max(1, x["lost"] + x["samples"]) for x in m if "samples" in x]
        out.append(("2,000 threads on 2 CPUs, DWARF 1 kHz: threads with samples; lost %",
                    f"{min(_vals(m, 'present'))} ; {_mm(lost_pct, '{:.2f}')}",
                    "perf dwarf: lost chunks",
                    _mm(_vals(r["many_perf"], "perf_lost_chunks"), "{:.0f}")))
    return out


def table(now, before, label_now, label_before, runs):
    cur = rows(now)
    old = {k: v for k, v, _, _ in rows(before)} if before else {}
    lines = [f"| row | {label_before} | {label_now} | baseline | baseline value |",
             "| --- | ---: | ---: | --- | ---: |"]
    for k, v, bn, bv in cur:
        key = re.sub(r"\d+ k samples", "N k samples", k)
        prev = next((ov for ok, ov in old.items() if re.sub(r"\d+ k samples", "N k samples", ok) == key), "-")
        lines.append(f"| {k} | {prev} | {v} | {bn} | {bv} |")
    return "\n".join(lines)


def write_doc(doc, text, begin=BEGIN, end=END):
    """Replaces the doc's block between `begin` and `end` with `text` (a new block goes before
    the "## Unwinding" section)."""
    with open(doc) as fh:
        content = fh.read()
    block = f"{begin}\n{text}\n{end}"
    if begin in content:
        head, rest = content.split(begin, 1)
        content = head + block + rest.split(end, 1)[1]
    else:
        content = content.replace("## Unwinding", block + "\n\n## Unwinding", 1)
    with open(doc, "w") as fh:
        fh.write(content)


def main(args):
    now = measure(args.build, args.runs, args.long_units, args.many_threads)
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(now, fh)
    before = None
    if args.before:
        with open(args.before) as fh:
            before = json.load(fh)
    load = os.getloadavg()[0]
    text = (f"Measured by `bench/run-record.py {args.build} --rows --runs {args.runs}` "
            f"({args.runs} interleaved rounds; 2,000-thread case {max(1, args.runs // 2)} runs; "
            f"long run once), {time.strftime('%Y-%m-%d')}, load average {load:.1f} at the end. "
            "Values are min / median.\n\n" +
            table(now, before, args.label, args.before_label, args.runs))
    print(text)
    if args.doc:
        write_doc(args.doc, text)
