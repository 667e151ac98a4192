// heap/src/ring/mapped_heap_ring.cpp
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "sprof/heap/heap_ring.hpp"
#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap {

Result<MappedHeapRing> MappedHeapRing::create(const HeapRingOptions& options) {
  const RingConfig config =
      make_ring_config(options.data_bytes, options.sample_interval_bytes, options.stack_copy_bytes,
                       options.tracked_capacity_log2, static_cast<uint64_t>(::getpid()),
                       (options.free_stacks ? kOptionFreeStacks : 0) |
                           (options.copy_stacks ? kOptionCopyStacks : 0));
  const uint64_t size = uint64_t{kRingHeaderBytes} + options.data_bytes;
  if (const char* problem = ring_config_problem(config, size))
    return fail(Errc::kInvalidArgument, std::string("heap ring options: ") + problem);

  UniqueFd fd(::memfd_create("sprof-heap-ring", MFD_CLOEXEC));
  if (!fd.valid()) return unexpected(Error::from_errno("memfd_create(sprof-heap-ring)"));
  if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0)
    return unexpected(Error::from_errno("ftruncate(heap ring, " + std::to_string(size) + ")"));
  void* area =
      ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd.get(), 0);
  if (area == MAP_FAILED)
    return unexpected(Error::from_errno("mmap(heap ring, " + std::to_string(size) + ")"));
  // A fresh memfd reads as zeros: head, tail and totals start at 0.
  std::memcpy(area, &config, sizeof config);
  return MappedHeapRing(std::move(fd), area, static_cast<size_t>(size));
}

MappedHeapRing::MappedHeapRing(MappedHeapRing&& o) noexcept
    : fd_(std::move(o.fd_)),
      area_(std::exchange(o.area_, nullptr)),
      size_(std::exchange(o.size_, 0)) {}

MappedHeapRing& MappedHeapRing::operator=(MappedHeapRing&& o) noexcept {
  if (this != &o) {
    if (area_ != nullptr) ::munmap(area_, size_);
    fd_ = std::move(o.fd_);
    area_ = std::exchange(o.area_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

MappedHeapRing::~MappedHeapRing() {
  if (area_ != nullptr) ::munmap(area_, size_);
}

std::string MappedHeapRing::path_for_children() const {
  return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_.get());
}

}  // namespace sprof::heap
