// unwind/src/unwinder.cpp
//
// The small shared pieces of the unwinding interface (unwinder.hpp): decoding perf's register
// array, bounds-checked reads of the stack copy, and stop-reason names.
#include "sprof/unwind/unwinder.hpp"

#include <bit>
#include <cstring>

namespace sprof::unwind {

UserRegs UserRegs::from_perf(uint64_t mask, std::span<const uint64_t> packed) {
  // PERF_SAMPLE_REGS_USER: "u64 regs[weight(mask)]", one value per set bit of
  // attr.sample_regs_user, lowest bit first (perf_output_sample_regs in kernel/events/core.c).
  UserRegs out;
  size_t next = 0;
  for (unsigned bit = 0; bit < static_cast<unsigned>(PerfReg::kCount) && next < packed.size();
       ++bit) {
    if (((mask >> bit) & 1) == 0) continue;
    out.regs[bit] = packed[next++];
    out.valid |= uint64_t{1} << bit;
  }
  return out;
}

bool StackMemory::read_u64(uint64_t address, uint64_t& out) const {
  if (address < start_) return false;
  const uint64_t offset = address - start_;
  if (offset > bytes_.size() || bytes_.size() - offset < sizeof(uint64_t)) return false;
  std::memcpy(&out, bytes_.data() + offset, sizeof(uint64_t));
  return true;
}

const char* unwind_stop_name(UnwindStop s) {
  switch (s) {
    case UnwindStop::kComplete: return "complete";
    case UnwindStop::kStackTruncated: return "stack-truncated";
    case UnwindStop::kNoModule: return "no-module";
    case UnwindStop::kNoCfi: return "no-cfi";
    case UnwindStop::kBadCfi: return "bad-cfi";
    case UnwindStop::kNoProgress: return "no-progress";
    case UnwindStop::kMaxDepth: return "max-depth";
    case UnwindStop::kNoRegisters: return "no-registers";
  }
  return "unknown";
}

}  // namespace sprof::unwind
