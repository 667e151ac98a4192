// Toolchain target (tests/targets/toolchains.cmake): a Rust program that allocates through the
// standard library's allocation paths from known functions, built like tc_rust (legacy mangling
// as tc_rust_alloc, v0 as tc_rust_alloc_v0), for `sprof record --heap=all`'s allocation stacks.
//
//   grow_site:  pushes into a Vec that starts empty, so its buffer grows through
//               alloc::raw_vec (grow_one -> finish_grow -> __rust_alloc / __rust_realloc)
//   boxed_site: Box::new of a 4 KiB array (__rust_alloc straight from the caller)
//   zeroed_site: vec![0u64; 1000] (__rust_alloc_zeroed)
// Each runs ROUNDS times (argument, default 20) and frees what it allocated. The program prints
// the bytes each site asked the allocator for, counting a reallocation's new size, as
// "grow_site bytes=N" (the capacities it saw, in bytes, summed).
use std::env;

#[inline(never)]
fn grow_site(n: usize) -> usize {
    let mut values: Vec<u64> = Vec::new();
    let mut bytes = 0;
    let mut capacity = values.capacity();
    for i in 0..n {
        values.push(i as u64);
        if values.capacity() != capacity {
            capacity = values.capacity();
            bytes += capacity * std::mem::size_of::<u64>();
        }
    }
    std::hint::black_box(&values);
    bytes
}

#[inline(never)]
fn boxed_site() -> usize {
    let block = Box::new([7u8; 4096]);
    std::hint::black_box(&block);
    4096
}

#[inline(never)]
fn zeroed_site() -> usize {
    let values = vec![0u64; 1000];
    std::hint::black_box(&values);
    values.len() * std::mem::size_of::<u64>()
}

fn main() {
    let rounds = env::args().nth(1).and_then(|a| a.parse::<usize>().ok()).unwrap_or(20);
    let (mut grown, mut boxed, mut zeroed) = (0, 0, 0);
    for _ in 0..rounds {
        grown += grow_site(1000);
        boxed += boxed_site();
        zeroed += zeroed_site();
    }
    println!("grow_site bytes={}", grown);
    println!("boxed_site bytes={}", boxed);
    println!("zeroed_site bytes={}", zeroed);
}
