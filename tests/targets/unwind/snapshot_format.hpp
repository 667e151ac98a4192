// tests/targets/unwind/snapshot_format.hpp
//
// The file format shared by the `unwind_snapshots` target (writer) and the unwinder tests and
// benchmark (reader). The target samples itself with a SIGPROF timer and, in the handler, saves
// what perf would give for a sample: the interrupted user registers (perf's x86 numbering) and a
// copy of the stack from the interrupted rsp. Written in host byte order; read on the same host.
//
//   samples.bin : SnapshotFileHeader, then per sample SnapshotSampleHeader + stack_size bytes
//   maps.txt    : /proc/self/maps at the end of the run
//   vdso.bin    : the vdso's ELF image ([vdso] mapping)
#pragma once

#include <cstdint>

namespace sprof::test::unwind_snapshot {

inline constexpr char kMagic[8] = {'S', 'P', 'R', 'U', 'N', 'W', '0', '1'};
inline constexpr uint32_t kPerfRegCount = 24;      // PERF_REG_X86_64_MAX
inline constexpr uint64_t kStackCopyBytes = 8192;  // perf's default dwarf stack size

// What the program was doing when the sample was taken; tests check per phase.
enum class Phase : uint32_t {
  kIdle = 0,   // between phases
  kLeaf,       // leaf_polynomial <- leaf_caller <- phase_leaf <- main
  kSharedLib,  // exe_callback / lib_inner <- lib_apply (.so) <- phase_shared_lib <- main
  kLibm,       // libm <- phase_libm <- main
  kSignal,     // handler_work <- usr1_handler <- __restore_rt <- libc <- phase_signal <- main
  kRecursion,  // recurse x many, deeper than the stack copy
  kThread,     // thread_work <- thread_body <- libc thread start <- clone3
  kVdso,       // vdso <- libc clock_gettime <- phase_vdso <- main
  kQsort,      // compare_ints <- libc qsort internals <- phase_qsort <- main
  kCount
};

struct SnapshotFileHeader {
  char magic[8];
  uint32_t sample_count;
  uint32_t reserved;
};

struct SnapshotSampleHeader {
  uint32_t phase;
  uint32_t reserved;
  uint64_t regs_mask;            // bits in perf numbering, as attr.sample_regs_user
  uint64_t regs[kPerfRegCount];  // indexed by perf register number
  uint64_t stack_start;          // the interrupted rsp
  uint64_t stack_size;           // bytes following this header
  uint64_t stack_top;            // end of the thread's stack (to tell a complete copy)
};

}  // namespace sprof::test::unwind_snapshot
