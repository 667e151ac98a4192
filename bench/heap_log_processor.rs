// A Rust log processor for bench/run-heap.py: issue 24's second workload ("a Rust log processor,
// 6 M allocations: String, Vec, HashMap"). It formats LINES synthetic access-log lines, splits
// each into fields, keeps per-service and per-path statistics in HashMaps keyed by owned
// Strings, and prints a summary, so its allocations are what such a program does: a String per
// line that grows while formatted, a Vec of fields that grows while collected, an owned key per
// map lookup, and the maps' own growth. Built by run-heap.py with rustc -C opt-level=3
// -C debuginfo=2 (as `cargo build --release` with debug info would), no crates.
//
// Usage: heap_log_processor [LINES]   (default 1200000: about 6 M allocations)
// Prints what it counted, then "lines_per_s N wall_s S cpu_s C": the wall time around the work
// and the process's CPU time (run-heap.py reads them as the program's own, as it reads
// bench_heap_workload's "pairs_per_s N wall_s S cpu_s C").
use std::collections::HashMap;
use std::env;
use std::fs;
use std::time::Instant;

#[derive(Default)]
struct Stats {
    count: u64,
    total_ms: u64,
    max_ms: u64,
}

// The line a service would log; a little arithmetic makes the fields vary like real traffic.
fn format_line(i: u64) -> String {
    let service = i % 17;
    let user = (i * 7919) % 100_003;
    let item = (i * 31) % 2_000;
    let ms = (i * 13) % 250;
    let level = if ms > 200 { "WARN" } else { "INFO" };
    format!("2026-12-04T12:{:02}:{:02} level={} svc=api-{} user=u{} path=/items/{}/detail ms={}",
            (i / 60) % 60, i % 60, level, service, user, item, ms)
}

// The process's CPU time so far: the first field of /proc/self/schedstat is the nanoseconds the
// main thread (the only one) ran. std has no getrusage; 0 where the file is missing.
fn cpu_seconds() -> f64 {
    let text = fs::read_to_string("/proc/self/schedstat").unwrap_or_default();
    let ns: u64 = text.split(' ').next().and_then(|s| s.parse().ok()).unwrap_or(0);
    ns as f64 / 1e9
}

fn main() {
    let lines: u64 = env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1_200_000);
    let start = Instant::now();
    let mut services: HashMap<String, Stats> = HashMap::new();
    let mut paths: HashMap<String, Stats> = HashMap::new();
    let mut slow = 0u64;
    let mut bytes = 0u64;
    for i in 0..lines {
        let line = format_line(i);
        bytes += line.len() as u64;
        let fields: Vec<&str> = line.split(' ').collect();
        let mut service = String::new();
        let mut path = String::new();
        let mut ms = 0u64;
        for field in &fields[1..] {
            let Some((key, value)) = field.split_once('=') else { continue };
            match key {
                "svc" => service = value.to_string(),
                "path" => path = value.replace("/detail", ""),
                "ms" => ms = value.parse().unwrap_or(0),
                "level" if value == "WARN" => slow += 1,
                _ => {}
            }
        }
        for (map, key) in [(&mut services, service), (&mut paths, path)] {
            let stats = map.entry(key).or_default();
            stats.count += 1;
            stats.total_ms += ms;
            stats.max_ms = stats.max_ms.max(ms);
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let busiest = services.values().map(|s| s.count).max().unwrap_or(0);
    let slowest = paths.values().map(|s| s.max_ms).max().unwrap_or(0);
    println!("lines={} services={} paths={} slow={} bytes={} busiest={} slowest_ms={}", lines,
             services.len(), paths.len(), slow, bytes, busiest, slowest);
    println!("lines_per_s {} wall_s {:.6} cpu_s {:.6}", (lines as f64 / elapsed) as u64, elapsed,
             cpu_seconds());
}
