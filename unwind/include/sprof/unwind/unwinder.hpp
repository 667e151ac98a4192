// sprof/unwind/unwinder.hpp
//
// The seam between sampling and stack walking. A sample gives user registers (perf's
// PERF_SAMPLE_REGS_USER, in perf_regs order) and a copy of the user stack (PERF_SAMPLE_STACK_USER);
// an `Unwinder` turns them into return addresses using the address space of the sampled process.
// Only the resulting frames are kept — raw stacks never reach the profile or the disk.
//
// Threading: an Unwinder is used from the recording thread only; it may cache per-module data.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sprof/arch/x86_64.hpp"
#include "sprof/core/address.hpp"

namespace sprof::unwind {

// The unwinder walks x86-64 stacks (sprof/arch/x86_64.hpp): sampled registers are named by perf's
// register numbers.
using arch::x86_64::PerfReg;

// User registers of one sample, indexed by perf register number; `valid` bit i says regs[i] was
// sampled.
struct UserRegs {
  std::array<uint64_t, static_cast<size_t>(PerfReg::kCount)> regs{};
  uint64_t valid = 0;

  uint64_t get(PerfReg r) const { return regs[static_cast<size_t>(r)]; }
  bool has(PerfReg r) const { return (valid >> static_cast<unsigned>(r)) & 1; }
  uint64_t ip() const { return get(PerfReg::kIp); }
  uint64_t sp() const { return get(PerfReg::kSp); }
  uint64_t bp() const { return get(PerfReg::kBp); }
  // Fills from perf's packed array: one value per bit set in `mask`, in bit order.
  static UserRegs from_perf(uint64_t mask, std::span<const uint64_t> packed);
};

// The sampled copy of the user stack: `bytes[0]` is the memory at address `start` (= sp at the
// time of the sample). Reads outside it fail; they never touch real memory.
class StackMemory {
 public:
  StackMemory(uint64_t start, std::span<const uint8_t> bytes) : start_(start), bytes_(bytes) {}
  bool read_u64(uint64_t address, uint64_t& out) const;
  uint64_t start() const { return start_; }
  uint64_t end() const { return start_ + bytes_.size(); }

 private:
  uint64_t start_;
  std::span<const uint8_t> bytes_;
};

// One executable mapping of a file in a process, as the unwinder needs it.
struct MappedFile {
  uint64_t start = 0;  // AVMA range [start, end)
  uint64_t end = 0;
  // AVMA - SVMA for addresses in this mapping, from the file's LOAD segments
  // (elf::ModuleIdentity::svma_of_mapping); read it through to_svma.
  uint64_t bias = 0;

  Svma to_svma(Avma avma) const { return Svma{avma.value - bias}; }
  std::string path;  // file to read CFI from (may be "[vdso]" for the vdso, see vdso_image)
  std::shared_ptr<const std::vector<uint8_t>> vdso_image;  // set for the vdso only
};

// The address space of the sampled process at the time of the sample.
class AddressSpace {
 public:
  virtual ~AddressSpace() = default;
  virtual const MappedFile* find(uint64_t avma) const = 0;
};

// Why an unwind stopped. `kComplete` means it reached the thread's entry (no caller).
enum class UnwindStop : uint8_t {
  kComplete,
  kStackTruncated,  // the next frame's data lies beyond the copied stack
  kNoModule,        // pc in no known mapping (JIT, anonymous memory) and no frame pointer
  kNoCfi,           // module has no CFI for pc and frame-pointer fallback failed
  kBadCfi,          // CFI rule we cannot evaluate, or it produced an invalid result
  kNoProgress,      // the unwinder would loop (sp did not grow)
  kMaxDepth,
  kNoRegisters,  // sample had no user registers (kernel thread)
};
const char* unwind_stop_name(UnwindStop s);
inline constexpr size_t kUnwindStopCount = 8;

struct UnwindResult {
  // frames[0] is the sampled ip (kInstructionPointer), the rest are return addresses.
  std::vector<FrameAddress> frames;
  // cfas[i]: the CFA of frames[i] (its caller's stack pointer), 0 where unknown; the last one is
  // known when the walk stopped at the end of the copied stack. Only the CFI unwinder fills it
  // (StackStitcher uses it); others leave it empty.
  std::vector<uint64_t> cfas;
  UnwindStop stop = UnwindStop::kComplete;
  // Frames left through the frame pointer because no CFI covered their code (Go, JIT code,
  // hand-written assembly): the walk went on where it would otherwise have stopped.
  uint32_t frame_pointer_steps = 0;
};

class Unwinder {
 public:
  virtual ~Unwinder() = default;
  virtual void unwind(const UserRegs& regs, const StackMemory& stack, const AddressSpace& space,
                      UnwindResult& out) = 0;
};

}  // namespace sprof::unwind
