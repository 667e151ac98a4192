// sprof/heap/heap_ring.hpp
//
// sprof's side of the heap ring handshake (docs/heap.md, "Handshake"):
//   1. `MappedHeapRing::create` makes a memfd (close-on-exec), sizes it, maps it and writes the
//      configuration; the ring exists before the program does;
//   2. `heap_child_environment` gives the launched program LD_PRELOAD=<libsprof-heap.so> and
//      SPROF_HEAP_RING=/proc/<sprof pid>/fd/<memfd>; every process that inherits that
//      environment (the program, its fork children by inheritance of the mapping, its exec'd
//      descendants by opening the path again) attaches and counts itself in the header;
//   3. sprof drains the ring with RingReader over `area()` while the program runs.
// If sprof is gone, the path no longer opens and new programs run without the interposer; a
// process already attached keeps writing until the ring is full, then counts drops.
//
// `locate_interposer` finds libsprof-heap.so relative to the sprof executable.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/core/unique_fd.hpp"

namespace sprof::heap {

struct HeapRingOptions {
  uint64_t sample_interval_bytes = 512ULL * 1024;  // 0: record every allocation
  uint32_t stack_copy_bytes = 32 * 1024;           // docs/heap.md, "Stack copy size"
  // Small on purpose: a writer takes a page fault per ring page on its first lap (4-11 us each
  // here), docs/heap.md "Ring size".
  uint64_t data_bytes = 8ULL << 20;
  uint32_t tracked_capacity_log2 = 16;  // 65,536 slots (512 KiB per process)
  bool free_stacks = false;             // kOptionFreeStacks: recorded frees copy their stack
  bool copy_stacks = false;             // kOptionCopyStacks: never walk stacks in the process
};

class MappedHeapRing {
 public:
  // Errors: Errc::kInvalidArgument for options outside the format's bounds, Errc::kIo for
  // memfd_create/ftruncate/mmap failures (with errno).
  static Result<MappedHeapRing> create(const HeapRingOptions& options);

  MappedHeapRing(MappedHeapRing&& o) noexcept;
  MappedHeapRing& operator=(MappedHeapRing&& o) noexcept;
  MappedHeapRing(const MappedHeapRing&) = delete;
  MappedHeapRing& operator=(const MappedHeapRing&) = delete;
  ~MappedHeapRing();

  std::span<uint8_t> area() const { return {static_cast<uint8_t*>(area_), size_}; }
  int fd() const { return fd_.get(); }
  // What SPROF_HEAP_RING must hold for a process to open this ring.
  std::string path_for_children() const;

 private:
  MappedHeapRing(UniqueFd fd, void* area, size_t size)
      : fd_(std::move(fd)), area_(area), size_(size) {}

  UniqueFd fd_;
  void* area_ = nullptr;
  size_t size_ = 0;
};

// "NAME=value" entries to add to a launched program's environment. Our library goes first in
// LD_PRELOAD, before `existing_ld_preload` (sprof's own LD_PRELOAD: getenv's result, may be
// null).
// Errc::kInvalidArgument if the library path holds a separator LD_PRELOAD cannot carry
// (space or colon).
[[nodiscard]] Result<std::vector<std::string>> heap_child_environment(
    const std::string& interposer_path, const std::string& ring_path,
    const char* existing_ld_preload);

inline constexpr const char* kInterposerFileName = "libsprof-heap.so";

// Where libsprof-heap.so may be, in order, for an sprof executable in `executable_dir`:
// next to it, the installed layout <prefix>/lib/sprof/, and the build tree's heap/ folder.
std::vector<std::string> interposer_candidates(std::string_view executable_dir);

// The first candidate that exists (for the running executable: /proc/self/exe), or
// Errc::kNotFound listing where it looked.
[[nodiscard]] Result<std::string> locate_interposer(const std::string& executable_path);

}  // namespace sprof::heap
