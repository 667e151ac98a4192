// tests/targets/unwind/unwind_lib.cpp
//
// The shared library of the `unwind_snapshots` target: frames in a second module, called from the
// executable and calling back into it. Built -O2 -fomit-frame-pointer like the executable.
#include <cstdint>

namespace {

__attribute__((noinline)) uint64_t lib_inner(uint64_t x) {
  // Integer mixing with no calls: a frameless leaf inside the library.
  for (int i = 0; i < 64; ++i)
    x = (x ^ (x >> 7)) * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(i);
  return x;
}

}  // namespace

extern "C" __attribute__((visibility("default"), noinline)) uint64_t lib_apply(
    uint64_t n, uint64_t (*callback)(uint64_t)) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) sum += callback(lib_inner(i + sum));
  return sum;
}
