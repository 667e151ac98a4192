#include "perf/ring_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>

namespace sprof::recorder::perf {

namespace {

// The uapi comment on `data_head`/`data_tail` asks for smp_rmb() after reading data_head and a
// full barrier between reading the data and storing data_tail. The kernel side pairs them in
// perf_output_put_handle() / perf_output_begin(); tools/include/linux/ring_buffer.h expresses
// the same contract as smp_load_acquire(data_head) and smp_store_release(data_tail), which is
// what these two helpers do:
//   - acquire: record bytes below data_head are visible once we see the new data_head;
//   - release: our reads of the records complete before the kernel sees the space as free and
//     may overwrite it.
uint64_t load_head_acquire(const perf_event_mmap_page* control) {
  return __atomic_load_n(&control->data_head, __ATOMIC_ACQUIRE);
}

void store_tail_release(perf_event_mmap_page* control, uint64_t tail) {
  __atomic_store_n(&control->data_tail, tail, __ATOMIC_RELEASE);
}

}  // namespace

RingBuffer::RingBuffer(perf_event_mmap_page* control, std::span<uint8_t> data)
    : control_(control), data_(data), read_position_(control->data_tail) {}

bool RingBuffer::has_data() const { return load_head_acquire(control_) != read_position_; }

void RingBuffer::release_to(uint64_t position) { store_tail_release(control_, position); }

size_t RingBuffer::read(const std::function<void(sprof::perf::RawRecord)>& visit) {
  const uint64_t head = load_head_acquire(control_);
  uint64_t tail = read_position_;
  const uint64_t size = data_.size();
  const uint64_t mask = size - 1;

  // Copies `n` bytes starting at counter `pos`, wrapping at the end of the data area.
  auto copy_out = [&](uint64_t pos, uint8_t* out, size_t n) {
    const size_t offset = static_cast<size_t>(pos & mask);
    const size_t first = std::min<size_t>(n, static_cast<size_t>(size) - offset);
    std::memcpy(out, data_.data() + offset, first);
    std::memcpy(out + first, data_.data(), n - first);
  };

  size_t visited = 0;
  // With a PROT_WRITE mapping the kernel never publishes more than one buffer ahead of
  // data_tail (which is at or before our read position); more than that means the control page
  // is not what we think.
  if (head - tail > size) {
    ++corruptions_;
    tail = head;
  }
  while (tail != head) {
    const uint64_t available = head - tail;
    perf_event_header h{};
    if (available < sizeof h) {
      ++corruptions_;
      tail = head;
      break;
    }
    copy_out(tail, reinterpret_cast<uint8_t*>(&h), sizeof h);
    // Every record is u64-aligned and fully published before data_head moves past it
    // (perf_output_end); anything else cannot be resynchronised, since record boundaries are
    // only known by walking sizes.
    if (h.size < sizeof h || h.size % 8 != 0 || h.size > size || h.size > available) {
      ++corruptions_;
      tail = head;
      break;
    }
    const size_t offset = static_cast<size_t>(tail & mask);
    std::span<const uint8_t> bytes;
    if (offset + h.size <= size) {
      bytes = std::span<const uint8_t>(data_.data() + offset, h.size);
    } else {
      scratch_.resize(h.size);
      copy_out(tail, scratch_.data(), h.size);
      bytes = scratch_;
    }
    visit(sprof::perf::RawRecord{bytes});
    ++visited;
    tail += h.size;
  }
  read_position_ = tail;
  return visited;
}

Result<MappedRingBuffer> MappedRingBuffer::map(int fd, size_t data_pages) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  if (data_pages == 0 || (data_pages & (data_pages - 1)) != 0) {
    return fail(Errc::kInvalidArgument, "perf ring buffer: data_pages=" +
                                            std::to_string(data_pages) + " is not a power of two");
  }
  const size_t length = (1 + data_pages) * page;
  // PROT_WRITE makes this a non-overwriting ring: the kernel honours our data_tail and drops
  // (and reports as PERF_RECORD_LOST) what does not fit.
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    return unexpected(Error::from_errno("mmap(perf fd=" + std::to_string(fd) +
                                        ", bytes=" + std::to_string(length) + ")"));
  }
  auto* control = static_cast<perf_event_mmap_page*>(base);
  std::span<uint8_t> data(static_cast<uint8_t*>(base) + page, data_pages * page);
  return MappedRingBuffer(base, length, RingBuffer(control, data));
}

MappedRingBuffer::MappedRingBuffer(MappedRingBuffer&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      length_(std::exchange(o.length_, 0)),
      ring_(std::move(o.ring_)) {}

MappedRingBuffer& MappedRingBuffer::operator=(MappedRingBuffer&& o) noexcept {
  if (this != &o) {
    unmap();
    base_ = std::exchange(o.base_, nullptr);
    length_ = std::exchange(o.length_, 0);
    ring_ = std::move(o.ring_);
  }
  return *this;
}

MappedRingBuffer::~MappedRingBuffer() { unmap(); }

void MappedRingBuffer::unmap() {
  if (base_ != nullptr) ::munmap(base_, length_);
  base_ = nullptr;
}

}  // namespace sprof::recorder::perf
