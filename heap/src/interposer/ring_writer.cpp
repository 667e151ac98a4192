// heap/src/interposer/ring_writer.cpp
#include "interposer/ring_writer.hpp"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

#include <climits>
#include <cstring>

namespace sprof::heap::interposer {
namespace {

// A CAS loop that keeps failing means heavy contention. Sampled mode then gives up (it never
// makes the program wait); record-all mode yields the CPU and tries again.
constexpr int kMaxReserveAttempts = 64;
// A waiting writer sleeps 20 us, doubling up to 1 ms: sprof drains every 10 ms at the latest.
constexpr long kFirstNapNs = 20'000;
constexpr long kLongestNapNs = 1'000'000;

void nap(uint32_t naps) {
  long ns = kFirstNapNs;
  for (uint32_t i = 0; i < naps && ns < kLongestNapNs; ++i) ns *= 2;
  struct timespec ts {
    0, ns < kLongestNapNs ? ns : kLongestNapNs
  };
  ::nanosleep(&ts, nullptr);  // async-signal-safe; EINTR just ends the nap early
}

void add(uint64_t& counter, uint64_t n) { __atomic_fetch_add(&counter, n, __ATOMIC_RELAXED); }

}  // namespace

void RingWriter::init(RingHeader* header, uint8_t* data, uint64_t data_bytes, bool wait_when_full,
                      uint64_t reader_pid) {
  header_ = header;
  data_ = data;
  data_bytes_ = data_bytes;
  // Only a real pid: kill(0, 0) or kill(-1, 0) would ask about whole groups of processes.
  reader_pid_ = reader_pid > 0 && reader_pid <= INT_MAX ? static_cast<int>(reader_pid) : 0;
  __atomic_store_n(&mode_, wait_when_full ? kWaitForReader : kDropWhenFull, __ATOMIC_RELAXED);
}

RingWriter::Claim RingWriter::try_reserve(uint32_t size, uint64_t& position) {
  for (int attempt = 0; attempt < kMaxReserveAttempts; ++attempt) {
    // The tail first, then the head (the acquire keeps that order): the reader only passes
    // records reserved before it moved the tail, so a head read after the tail is never behind
    // it. Read the other way round, a writer preempted between the two reads could find the
    // tail past its stale head and take a ring with room for full, and sampled mode drops the
    // record (most likely the one record a 64 MiB ring holding 3 MB dropped once in CI).
    const uint64_t tail = __atomic_load_n(&header_->read_tail, __ATOMIC_ACQUIRE);
    uint64_t head = __atomic_load_n(&header_->write_head, __ATOMIC_RELAXED);
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

bool RingWriter::reader_gone() const {
  if (__atomic_load_n(&header_->reader_closed, __ATOMIC_ACQUIRE) != 0) return true;
  if (reader_pid_ == 0) return false;
  // A signal-0 kill only asks whether the process exists (EPERM: it does, owned by another
  // user). The program's errno is left as it was.
  const int saved_errno = errno;
  const bool gone = ::kill(reader_pid_, 0) != 0 && errno == ESRCH;
  errno = saved_errno;
  return gone;
}

bool RingWriter::reserve(uint32_t size, uint64_t& position) {
  for (uint32_t naps = 0;;) {
    const Claim claim = try_reserve(size, position);
    if (claim == Claim::kClaimed) return true;
    const uint8_t mode = __atomic_load_n(&mode_, __ATOMIC_RELAXED);
    if (mode == kDropWhenFull) {
      if (claim == Claim::kContended) add(header_->counters.dropped_contended, 1);
      break;
    }
    if (mode == kReaderGone) {
      add(header_->counters.dropped_reader_gone, 1);
      break;
    }
    // Record-all mode: wait for as long as sprof reads, however slowly.
    if (claim == Claim::kContended) {
      ::sched_yield();
      continue;
    }
    if (reader_gone()) {
      __atomic_store_n(&mode_, kReaderGone, __ATOMIC_RELAXED);
      add(header_->counters.dropped_reader_gone, 1);
      break;
    }
    nap(naps++);
  }
  add(header_->counters.dropped_records, 1);
  add(header_->counters.dropped_bytes, size);
  return false;
}

void RingWriter::write(uint64_t position, uint32_t offset, const void* bytes, size_t n) {
  const uint64_t at = (position + offset) & (data_bytes_ - 1);
  const size_t first =
      static_cast<size_t>(data_bytes_ - at) < n ? static_cast<size_t>(data_bytes_ - at) : n;
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
