// A program whose own .eh_frame is hostile to its profiler: `hostile_cfi_function`'s FDE holds
// DW_CFA_offset_extended for DWARF register 2^27, which x86-64 does not have (libdw would size
// an array of 2^27 registers, 1 GiB, on every lookup of a PC in it). `plain_cfi_function` has
// the same code and well-formed CFI. Both call back into C++, so a sampled stack passes through
// them. Usage: hostile_cfi [seconds] (default 1): spins that long below the hostile frame.
#include <cstdlib>
#include <ctime>

extern "C" void hostile_cfi_function(void (*callee)());
extern "C" void plain_cfi_function(void (*callee)());

// Written in assembly so that the CFI is exactly what the directives say. The escape is
// DW_CFA_offset_extended (0x05), register ULEB128 80 80 80 40 = 2^27, offset ULEB128 3 (times
// the data alignment factor -8: CFA - 24).
asm(R"(
  .text
  .globl hostile_cfi_function
  .type hostile_cfi_function, @function
hostile_cfi_function:
  .cfi_startproc
  pushq %rbx
  .cfi_def_cfa_offset 16
  .cfi_offset %rbx, -16
  .cfi_escape 0x05, 0x80, 0x80, 0x80, 0x40, 0x03
  call *%rdi
  popq %rbx
  .cfi_def_cfa_offset 8
  ret
  .cfi_endproc
  .size hostile_cfi_function, .-hostile_cfi_function

  .globl plain_cfi_function
  .type plain_cfi_function, @function
plain_cfi_function:
  .cfi_startproc
  pushq %rbx
  .cfi_def_cfa_offset 16
  .cfi_offset %rbx, -16
  call *%rdi
  popq %rbx
  .cfi_def_cfa_offset 8
  ret
  .cfi_endproc
  .size plain_cfi_function, .-plain_cfi_function
)");

namespace {

double g_seconds = 1.0;
volatile unsigned long g_sink = 0;

double now_s() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

extern "C" __attribute__((noinline)) void spin_below_hostile_frame() {
  const double end = now_s() + g_seconds;
  unsigned long x = 1;
  while (now_s() < end) {
    for (int i = 0; i < 100000; ++i) x = x * 6364136223846793005UL + 1;
  }
  g_sink = x;
}

extern "C" __attribute__((noinline)) void spin_briefly() { g_sink = g_sink + 1; }

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_seconds = std::atof(argv[1]);
  plain_cfi_function(spin_briefly);
  hostile_cfi_function(spin_below_hostile_frame);
  return 0;
}
