// tests/heap/heap_recording.hpp
//
// Runs a target program under sprof-heap-run (libsprof-heap.so preloaded, a fresh ring) and
// reads back the dump it wrote: the decoded events in ring order, the final header, the
// program's output. Also maps return addresses in recorded stack copies to the target's
// functions, by name, through nm and the "pid=N main=0x..." line each target prints.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sprof/heap/heap_dump.hpp"
#include "sprof/heap/heap_events.hpp"
#include "subprocess.hpp"

namespace sprof::heap::test {

std::string target_path(const std::string& name);
std::string interposer_path();

struct HeapRecording {
  HeapRecording() = default;
  HeapRecording(HeapRecording&&) = default;
  HeapRecording& operator=(HeapRecording&&) = default;
  HeapRecording(const HeapRecording&) = delete;  // events point into dump_bytes

  sprof::test::ProcessResult process;  // sprof-heap-run's (the program's status and output)
  std::vector<uint8_t> dump_bytes;
  bool dump_ok = false;
  std::string dump_error;
  RingHeader header{};
  std::vector<HeapEvent> events;  // ring order
  DumpReadStats stats;
  std::map<uint32_t, uint64_t> main_by_pid;  // runtime address of main, per process

  std::vector<HeapAlloc> allocs() const;
  std::vector<HeapFree> frees() const;
  std::vector<HeapAttach> attaches() const;
};

// `options` are sprof-heap-run's (e.g. {"--all", "--stack-bytes", "2048"}).
HeapRecording record_heap(const std::string& name, const std::vector<std::string>& options,
                          const std::vector<std::string>& program_args = {});

// A target's function symbols (nm), for naming return addresses.
class TargetSymbols {
 public:
  explicit TargetSymbols(const std::string& path);
  bool ok() const { return !symbols_.empty(); }
  std::optional<uint64_t> address_of(const std::string& name) const;
  // The function whose [start, start + size) holds `link_address`, or "".
  std::string function_at(uint64_t link_address) const;

 private:
  struct Symbol {
    uint64_t size;
    std::string name;
  };
  std::map<uint64_t, Symbol> symbols_;  // by link-time start address
};

// The target function an allocation returns to: the return address on top of the copied stack
// (the capture stub's registers are the entry state of malloc & co), mapped to a function of
// the target with that process's load bias. "" when the stack or the process is unknown.
std::string caller_function(const HeapAlloc& alloc, const HeapRecording& recording,
                            const TargetSymbols& symbols);

}  // namespace sprof::heap::test
