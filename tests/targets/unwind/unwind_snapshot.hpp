// tests/targets/unwind/unwind_snapshot.hpp
//
// Loads the self-sampled snapshots of the `unwind_snapshots` target (tests/targets/unwind) for
// the unwinder tests and benchmark: per sample the registers and stack copy, plus an
// AddressSpace built from the run's /proc/self/maps (bias from each file's PT_LOADs) and a
// symbol lookup for naming the unwound frames.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "snapshot_format.hpp"
#include "sprof/core/result.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::test {

using unwind_snapshot::Phase;

struct UnwindSnapshot {
  Phase phase = Phase::kIdle;
  sprof::unwind::UserRegs regs;
  uint64_t stack_start = 0;
  uint64_t stack_top = 0;
  std::vector<uint8_t> stack;

  sprof::unwind::StackMemory memory() const { return {stack_start, stack}; }
  // The copy reaches the top of the thread's stack (nothing was cut off).
  bool copy_is_complete() const { return stack_start + stack.size() == stack_top; }
};

// Executable mappings of the run, as the recorder's converter would build them from MMAP2.
class MapsAddressSpace final : public sprof::unwind::AddressSpace {
 public:
  static Result<MapsAddressSpace> parse(const std::string& maps_text,
                                        std::shared_ptr<const std::vector<uint8_t>> vdso_image);
  const sprof::unwind::MappedFile* find(uint64_t avma) const override;
  const std::vector<sprof::unwind::MappedFile>& mappings() const { return mappings_; }

 private:
  std::vector<sprof::unwind::MappedFile> mappings_;  // sorted by start
};

// Names addresses with the ELF symbol tables of the mapped files (not the vdso).
class SymbolLookup {
 public:
  explicit SymbolLookup(const MapsAddressSpace& space) : space_(space) {}
  // The function containing `avma`, or "" when unknown.
  std::string name_of(uint64_t avma);
  // Path of the file mapped at `avma`, or "".
  std::string module_of(uint64_t avma) const;

 private:
  const MapsAddressSpace& space_;
  std::map<std::string, std::vector<elf::ElfSymbol>> symbols_;  // sorted by address
};

struct SnapshotRun {
  std::string dir;
  std::vector<UnwindSnapshot> samples;
  MapsAddressSpace space;
};

Result<SnapshotRun> load_snapshot_run(const std::string& dir);
// Runs `target` into a new temporary directory and loads the result.
Result<SnapshotRun> record_snapshot_run(const std::string& target, int phase_ms);

const char* phase_name(Phase phase);

}  // namespace sprof::test
