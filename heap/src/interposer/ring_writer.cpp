// heap/src/interposer/ring_writer.cpp
#include "interposer/ring_writer.hpp"

#include <time.h>

#include <cstring>

namespace sprof::heap::interposer {
namespace {

// A CAS loop that keeps failing means heavy contention; give up rather than spin (never block).
constexpr int kMaxReserveAttempts = 64;
// A waiting writer sleeps 20 us, doubling up to 1 ms: sprof drains every 10 ms at the latest.
constexpr long kFirstNapNs = 20'000;
constexpr long kLongestNapNs = 1'000'000;

uint64_t now_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

void RingWriter::init(RingHeader* header, uint8_t* data, uint64_t data_bytes,
                      bool wait_when_full) {
  header_ = header;
  data_ = data;
  data_bytes_ = data_bytes;
  __atomic_store_n(&wait_when_full_, wait_when_full ? 1 : 0, __ATOMIC_RELAXED);
}

RingWriter::Claim RingWriter::try_reserve(uint32_t size, uint64_t& position) {
  uint64_t head = __atomic_load_n(&header_->write_head, __ATOMIC_RELAXED);
  for (int attempt = 0; attempt < kMaxReserveAttempts; ++attempt) {
    const uint64_t tail = __atomic_load_n(&header_->read_tail, __ATOMIC_ACQUIRE);
    // `head - tail` is what the reader has not consumed; a tail ahead of the head (a reader
    // bug, or the program scribbling) reads as a huge value and so as "full".
    if (head - tail > data_bytes_ || data_bytes_ - (head - tail) < size) return Claim::kFull;
    if (__atomic_compare_exchange_n(&header_->write_head, &head, head + size, true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      position = head;
      return Claim::kClaimed;
    }
  }
  return Claim::kContended;
}

bool RingWriter::wait_for_reader(uint32_t naps, uint64_t& last_tail, uint64_t& progress_ns) {
  const uint64_t tail = __atomic_load_n(&header_->read_tail, __ATOMIC_ACQUIRE);
  const uint64_t now = now_ns();
  if (naps == 0 || tail != last_tail) {
    last_tail = tail;
    progress_ns = now;
  } else if (now - progress_ns > kMaxWaitWithoutProgressNs) {
    __atomic_store_n(&wait_when_full_, 0, __ATOMIC_RELAXED);
    return false;
  }
  long nap = kFirstNapNs;
  for (uint32_t i = 0; i < naps && nap < kLongestNapNs; ++i) nap *= 2;
  struct timespec ts {0, nap < kLongestNapNs ? nap : kLongestNapNs};
  ::nanosleep(&ts, nullptr);  // async-signal-safe; EINTR just ends the nap early
  return true;
}

bool RingWriter::reserve(uint32_t size, uint64_t& position) {
  uint64_t last_tail = 0;
  uint64_t progress_ns = 0;
  for (uint32_t naps = 0;; ++naps) {
    const Claim claim = try_reserve(size, position);
    if (claim == Claim::kClaimed) return true;
    if (claim != Claim::kFull || __atomic_load_n(&wait_when_full_, __ATOMIC_RELAXED) == 0 ||
        !wait_for_reader(naps, last_tail, progress_ns)) {
      break;
    }
  }
  __atomic_fetch_add(&header_->counters.dropped_records, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&header_->counters.dropped_bytes, size, __ATOMIC_RELAXED);
  return false;
}

void RingWriter::write(uint64_t position, uint32_t offset, const void* bytes, size_t n) {
  const uint64_t at = (position + offset) & (data_bytes_ - 1);
  const size_t first = static_cast<size_t>(data_bytes_ - at) < n ? static_cast<size_t>(data_bytes_ - at) : n;
  std::memcpy(data_ + at, bytes, first);
  if (first < n) std::memcpy(data_, static_cast<const uint8_t*>(bytes) + first, n - first);
}

void RingWriter::begin_record(uint64_t position, uint32_t size, RecordKind kind, uint16_t flags,
                              const EventFields& event) {
  set_flags(position, size, kind, flags);
  write(position, sizeof(RecordHeader), &event, sizeof event);
}

void RingWriter::set_flags(uint64_t position, uint32_t size, RecordKind kind, uint16_t flags) {
  RecordHeader h{};
  h.size = size;
  h.kind = kind;
  h.flags = flags;
  write(position, offsetof(RecordHeader, size), &h.size, sizeof h - offsetof(RecordHeader, size));
}

void RingWriter::commit(uint64_t position) {
  // The first word is 8-byte aligned and never wraps (positions are multiples of 8).
  auto* word = reinterpret_cast<uint64_t*>(data_ + (position & (data_bytes_ - 1)));
  __atomic_store_n(word, commit_word(position), __ATOMIC_RELEASE);
}

}  // namespace sprof::heap::interposer
