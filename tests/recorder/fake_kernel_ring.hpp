// tests/recorder/fake_kernel_ring.hpp
//
// A perf ring buffer over heap memory with the kernel's side played by the test, for the ring
// reader and the live record source without a kernel.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "perf/ring_buffer.hpp"

namespace sprof::test {

// Plays the kernel's side of a ring over heap memory: writes records at data_head (wrapping at
// the end of the data area) and refuses to overwrite what the reader has not released.
class FakeKernelRing {
 public:
  explicit FakeKernelRing(size_t data_bytes)
      : control_(std::make_unique<perf_event_mmap_page>()), data_(data_bytes, 0) {
    std::memset(control_.get(), 0, sizeof(perf_event_mmap_page));
  }

  recorder::perf::RingBuffer reader() { return recorder::perf::RingBuffer(control_.get(), data_); }

  // Returns false when the record does not fit (the kernel would count it as lost).
  bool write(const std::vector<uint8_t>& record) {
    const uint64_t head = control_->data_head;
    if (head + record.size() - control_->data_tail > data_.size()) return false;
    for (size_t i = 0; i < record.size(); ++i) data_[(head + i) % data_.size()] = record[i];
    control_->data_head = head + record.size();
    return true;
  }
  // Writes raw bytes at the head without the fit check (for corruption tests).
  void write_unchecked(const std::vector<uint8_t>& bytes) {
    const uint64_t head = control_->data_head;
    for (size_t i = 0; i < bytes.size(); ++i) data_[(head + i) % data_.size()] = bytes[i];
    control_->data_head = head + bytes.size();
  }
  void set_positions(uint64_t tail) {
    control_->data_head = tail;
    control_->data_tail = tail;
  }

  uint64_t head() const { return control_->data_head; }
  uint64_t tail() const { return control_->data_tail; }

 private:
  std::unique_ptr<perf_event_mmap_page> control_;
  std::vector<uint8_t> data_;
};

}  // namespace sprof::test
