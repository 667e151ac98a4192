// tests/targets/unwind/debug_frame_lib.cpp
//
// A library whose CFI is only in .debug_frame: built with -fno-asynchronous-unwind-tables
// -fno-exceptions -g, GCC emits no .eh_frame entries for it (tests/targets/unwind.cmake). It is
// also linked with --no-ld-generated-unwind-info, so its PLT has no FDE at all.
#include <unistd.h>

#include <cstdint>

extern "C" __attribute__((visibility("default"), noinline)) uint64_t debug_frame_function(
    uint64_t x, uint64_t (*callback)(uint64_t)) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < x; ++i) sum += callback(i) ^ (sum >> 3);
  return sum + static_cast<uint64_t>(getpid());  // a call through the PLT
}
