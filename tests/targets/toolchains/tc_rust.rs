// Toolchain target (tests/targets/toolchains.cmake): a Rust program built the way the suite
// builds Rust, `rustc -C opt-level=3 -C debuginfo=2` (rustc >= 1.90 links with rust-lld, so the
// executable LOAD segment has p_vaddr != p_offset), once with the default (legacy) mangling as
// tc_rust and once with `-C symbol-mangling-version=v0` as tc_rust_v0.
//
// Known call structure, every named function #[inline(never)] so that it is a frame:
//   main -> run_workers -> thread "words": words_worker -> count_words -> (inlined core/alloc/std:
//                                          SplitWhitespace, HashMap::entry, String) -> word_weight
//                       -> thread "sums":  sums_worker -> fill_values (Vec) -> mix_leaf (hot leaf)
//                                          and a closure passed to apply_to_all (`{{closure}}`)
//                                          and <Doubler as Transform>::apply (a trait method)
// Usage: tc_rust [milliseconds, default 1000]. Each thread prints what it did:
//   words: rounds=R words=W distinct=D weight_calls=N cpu_ms=C
//   sums: rounds=R mix_calls=M closure_calls=K checksum=X cpu_ms=C
// (cpu_ms from /proc/thread-self/schedstat: the thread's on-CPU time).
// Written for edition 2015, rustc's default, so that the suite's command line builds it as is.
use std::collections::HashMap;
use std::env;
use std::fs;
use std::thread;
use std::time::{Duration, Instant};

const TEXT: &'static str = "the quick brown fox jumps over the lazy dog while the cat \
                            sleeps under a warm sun and the fox runs back to the forest";

fn thread_cpu_ms() -> u64 {
    fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        .map(|ns| ns / 1_000_000)
        .unwrap_or(0)
}

#[inline(never)]
fn word_weight(word: &str) -> u64 {
    word.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))
}

#[inline(never)]
fn count_words(text: &str, counts: &mut HashMap<String, u64>, weight_calls: &mut u64) -> usize {
    let mut words = 0;
    for word in text.split_whitespace() {
        let weight = word_weight(word);
        *weight_calls += 1;
        *counts.entry(word.to_string()).or_insert(0) += weight & 0xff;
        words += 1;
    }
    words
}

#[inline(never)]
fn words_worker(deadline: Instant) -> String {
    let mut counts: HashMap<String, u64> = HashMap::new();
    let (mut rounds, mut words, mut weight_calls) = (0u64, 0u64, 0u64);
    while Instant::now() < deadline {
        let mut text = String::with_capacity(TEXT.len() * 2);
        text.push_str(TEXT);
        text.push(' ');
        text.push_str(&format!("round{}", rounds % 64));
        words += count_words(&text, &mut counts, &mut weight_calls) as u64;
        rounds += 1;
    }
    format!("words: rounds={} words={} distinct={} weight_calls={} cpu_ms={}",
            rounds, words, counts.len(), weight_calls, thread_cpu_ms())
}

trait Transform {
    fn apply(&self, x: u64) -> u64;
}

struct Doubler {
    offset: u64,
}

impl Transform for Doubler {
    #[inline(never)]
    fn apply(&self, x: u64) -> u64 {
        x.wrapping_mul(2).wrapping_add(self.offset)
    }
}

#[inline(never)]
fn mix_leaf(mut x: u64) -> u64 {
    for _ in 0..64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}

#[inline(never)]
fn fill_values(seed: u64, n: usize, mix_calls: &mut u64) -> Vec<u64> {
    let mut values = Vec::with_capacity(n);
    let mut x = seed | 1;
    for _ in 0..n {
        x = mix_leaf(x);
        *mix_calls += 1;
        values.push(x);
    }
    values
}

#[inline(never)]
fn apply_to_all<F: FnMut(u64) -> u64>(values: &mut [u64], mut f: F) {
    for v in values.iter_mut() {
        *v = f(*v);
    }
}

#[inline(never)]
fn sums_worker(deadline: Instant) -> String {
    let doubler = Doubler { offset: 3 };
    let (mut rounds, mut mix_calls, mut closure_calls, mut checksum) = (0u64, 0u64, 0u64, 0u64);
    while Instant::now() < deadline {
        let mut values = fill_values(rounds, 256, &mut mix_calls);
        apply_to_all(&mut values, |v| {
            closure_calls += 1;
            doubler.apply(v) ^ (v >> 3)
        });
        checksum = values.iter().fold(checksum, |c, v| c.wrapping_add(*v));
        rounds += 1;
    }
    format!("sums: rounds={} mix_calls={} closure_calls={} checksum={} cpu_ms={}",
            rounds, mix_calls, closure_calls, checksum, thread_cpu_ms())
}

#[inline(never)]
fn run_workers(duration: Duration) -> Vec<String> {
    let deadline = Instant::now() + duration;
    let words = thread::Builder::new().name("words".to_string())
        .spawn(move || words_worker(deadline)).expect("spawn words");
    let sums = thread::Builder::new().name("sums".to_string())
        .spawn(move || sums_worker(deadline)).expect("spawn sums");
    vec![words.join().expect("join words"), sums.join().expect("join sums")]
}

fn main() {
    let ms = env::args().nth(1).and_then(|a| a.parse::<u64>().ok()).unwrap_or(1000);
    for line in run_workers(Duration::from_millis(ms)) {
        println!("{}", line);
    }
}
