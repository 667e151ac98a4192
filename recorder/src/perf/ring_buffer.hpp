// recorder/src/perf/ring_buffer.hpp
//
// The consumer side of a perf mmap ring buffer. The kernel maps 1 + 2^n pages: the first is the
// control page (`struct perf_event_mmap_page`), the rest the data area the kernel writes records
// into at `data_head`, while we consume from `data_tail`. Both counters grow forever; the byte
// offset in the data area is `counter & (size - 1)`.
//
// `RingBuffer` is pure and works over any memory (tests use a heap buffer); `MappedRingBuffer`
// owns the real mmap. Neither interprets records beyond their `perf_event_header`.
//
// Threading: one reader thread per ring; the kernel is the only writer.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/perf/record_parser.hpp"

namespace sprof::recorder::perf {

class RingBuffer {
 public:
  // `data.size()` must be a power of two (the kernel's data area always is).
  RingBuffer(perf_event_mmap_page* control, std::span<uint8_t> data);

  // Calls `visit` for every complete record from where the last `read` stopped (at first:
  // data_tail) up to data_head, in ring order, and returns how many it visited. No space goes
  // back to the kernel: the reader parses records in place and may keep them past the visit, so
  // it hands the space back itself with `release_to(position)` (a `read_position()` from
  // earlier), after which the kernel may overwrite everything before `position`. The `RawRecord`
  // views the ring itself or, for a record that wraps the end of the data area, a scratch copy
  // valid only during the call (`in_ring` tells which).
  //
  // A header whose size is 0, not u64-aligned, larger than the data area or larger than what the
  // kernel published cannot be walked past: the rest of the published data is skipped (the read
  // position jumps to the head) and `corruptions()` grows by one.
  size_t read(const std::function<void(sprof::perf::RawRecord)>& visit);
  uint64_t read_position() const { return read_position_; }
  void release_to(uint64_t position);
  // True when `bytes` lie in the ring's data area (false for the scratch copy of a wrapped record).
  bool in_ring(std::span<const uint8_t> bytes) const {
    return bytes.data() >= data_.data() &&
           bytes.data() + bytes.size() <= data_.data() + data_.size();
  }

  // True when the kernel has published data we have not read.
  bool has_data() const;

  uint64_t corruptions() const { return corruptions_; }
  size_t data_size() const { return data_.size(); }

 private:
  perf_event_mmap_page* control_;
  std::span<uint8_t> data_;
  std::vector<uint8_t> scratch_;  // reassembly buffer for records that wrap the end
  uint64_t read_position_ = 0;    // counter up to which records were visited; >= data_tail
  uint64_t corruptions_ = 0;
};

// Owns `mmap(fd, (1 + data_pages) * page_size)` for one perf event fd.
class MappedRingBuffer {
 public:
  // `data_pages` must be a power of two. Errors name the fd and the size; EPERM usually means
  // the perf_event_mlock_kb limit for unprivileged users.
  static Result<MappedRingBuffer> map(int fd, size_t data_pages);

  MappedRingBuffer(MappedRingBuffer&& o) noexcept;
  MappedRingBuffer& operator=(MappedRingBuffer&& o) noexcept;
  MappedRingBuffer(const MappedRingBuffer&) = delete;
  MappedRingBuffer& operator=(const MappedRingBuffer&) = delete;
  ~MappedRingBuffer();

  RingBuffer& ring() { return ring_; }
  const RingBuffer& ring() const { return ring_; }
  size_t mapped_bytes() const { return length_; }

 private:
  MappedRingBuffer(void* base, size_t length, RingBuffer ring)
      : base_(base), length_(length), ring_(std::move(ring)) {}
  void unmap();

  void* base_ = nullptr;
  size_t length_ = 0;
  RingBuffer ring_;
};

}  // namespace sprof::recorder::perf
