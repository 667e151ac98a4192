// heap/src/reader/ring_reader.cpp
#include "sprof/heap/ring_reader.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>

#include "sprof/heap/record_decoder.hpp"

namespace sprof::heap {

Result<RingReader> RingReader::open(std::span<uint8_t> area) {
  if (area.size() < sizeof(RingHeader))
    return fail(Errc::kMalformed, "heap ring: area of " + std::to_string(area.size()) +
                                      " bytes is smaller than its header");
  if (reinterpret_cast<uintptr_t>(area.data()) % alignof(RingHeader) != 0)
    return fail(Errc::kInvalidArgument, "heap ring: area is not 64-byte aligned");
  RingConfig config;
  std::memcpy(&config, area.data(), sizeof config);
  if (const char* problem = ring_config_problem(config, area.size()))
    return fail(Errc::kMalformed, std::string("heap ring: ") + problem);
  return RingReader(area, config);
}

RingReader::RingReader(std::span<uint8_t> area, const RingConfig& config)
    : area_(area),
      config_(config),
      header_(reinterpret_cast<RingHeader*>(area.data())),
      data_(area.data() + config.header_bytes) {
  position_ = std::atomic_ref<uint64_t>(header_->read_tail).load(std::memory_order_acquire);
  position_ &= ~uint64_t{kRecordAlign - 1};
  published_ = position_;
}

uint64_t RingReader::load_word(uint64_t position) const {
  auto* word = reinterpret_cast<uint64_t*>(data_ + (position & (config_.data_bytes - 1)));
  return std::atomic_ref<uint64_t>(*word).load(std::memory_order_acquire);
}

std::array<std::span<const uint8_t>, 2> RingReader::pieces(uint64_t position, size_t n) const {
  const uint64_t at = position & (config_.data_bytes - 1);
  const size_t first = std::min<uint64_t>(n, config_.data_bytes - at);
  return {std::span<const uint8_t>(data_ + at, first), std::span<const uint8_t>(data_, n - first)};
}

void RingReader::copy_out(uint64_t position, size_t n, uint8_t* out) const {
  for (const std::span<const uint8_t> piece : pieces(position, n)) {
    std::memcpy(out, piece.data(), piece.size());
    out += piece.size();
  }
}

void RingReader::append_out(uint64_t position, size_t n, std::vector<uint8_t>& out) const {
  // Inserted rather than resized and copied into: the bytes are not zeroed first.
  for (const std::span<const uint8_t> piece : pieces(position, n))
    out.insert(out.end(), piece.begin(), piece.end());
}

bool RingReader::committed(uint64_t position) const {
  return load_word(position) == commit_word(position);
}

uint32_t RingReader::plausible_size(uint64_t position, uint64_t limit) const {
  uint32_t size = 0;
  copy_out(position + offsetof(RecordHeader, size), sizeof size, reinterpret_cast<uint8_t*>(&size));
  if (size < sizeof(RecordHeader) || size % kRecordAlign != 0 || size > kMaxRecordBytes ||
      size > limit - position)
    return 0;
  return size;
}

void RingReader::resync(uint64_t limit) {
  ++stats_.resyncs;
  uint64_t p = position_ + kRecordAlign;
  while (p < limit && !(committed(p) && plausible_size(p, limit) != 0)) p += kRecordAlign;
  stats_.skipped_bytes += p - position_;
  position_ = p;
  stalled_at_ = ~0ULL;
}

void RingReader::publish_tail() {
  std::atomic_ref<uint64_t>(header_->read_tail).store(position_, std::memory_order_release);
  published_ = position_;
}

void RingReader::close_for_writers() {
  std::atomic_ref<uint64_t>(header_->reader_closed).store(1, std::memory_order_release);
}

uint64_t RingReader::drain_head() {
  uint64_t head = std::atomic_ref<uint64_t>(header_->write_head).load(std::memory_order_acquire);
  if (head < position_ || head - position_ > config_.data_bytes) {
    // A head behind us or more than a ring ahead is not something writers produce.
    ++stats_.bad_heads;
    head = position_ + config_.data_bytes;
  }
  return head;
}

uint32_t RingReader::next_committed(const DrainOptions& options, uint64_t head) {
  while (position_ < head) {
    if (!committed(position_)) {
      // Reserved but not (yet) written. Wait for its writer, unless it is gone or too slow.
      const bool timed_out = stalled_at_ == position_ &&
                             options.now_ns - stalled_since_ns_ >= options.stall_timeout_ns;
      if (!options.final && !timed_out) {
        if (stalled_at_ != position_) {
          stalled_at_ = position_;
          stalled_since_ns_ = options.now_ns;
        }
        return 0;
      }
      resync(head);
      continue;
    }
    const uint32_t size = plausible_size(position_, head);
    if (size == 0) {
      resync(head);
      continue;
    }
    return size;
  }
  return 0;
}

void RingReader::pass(uint32_t size) {
  // The record is copied out: writers may reuse its bytes. A visitor can be slow (the
  // recorder's tables grow), and writers waiting for room should not wait for the whole drain.
  position_ += size;
  stalled_at_ = ~0ULL;
  if (position_ - published_ >= config_.data_bytes / 16) publish_tail();
}

size_t RingReader::drain(const DrainOptions& options,
                         const std::function<void(const DrainedRecord&)>& visit) {
  const uint64_t head = drain_head();
  const DecodeLimits limits{config_.stack_copy_bytes};
  size_t visited = 0;
  uint64_t visited_bytes = 0;
  while (options.max_bytes == 0 || visited_bytes < options.max_bytes) {
    const uint32_t size = next_committed(options, head);
    if (size == 0) break;
    scratch_.resize(size);
    copy_out(position_, size, scratch_.data());
    pass(size);
    const auto bytes = std::span<const uint8_t>(scratch_.data(), size);
    auto event = decode_record(bytes, limits);
    visited_bytes += size;
    if (event) {
      ++stats_.records;
      ++visited;
      visit(DrainedRecord{*event, bytes});
    } else {
      ++stats_.malformed_records;
    }
  }
  publish_tail();
  return visited;
}

uint64_t RingReader::copy_records(const DrainOptions& options, std::vector<uint8_t>& out) {
  const uint64_t head = drain_head();
  uint64_t copied = 0;
  while (options.max_bytes == 0 || copied < options.max_bytes) {
    const uint32_t size = next_committed(options, head);
    if (size == 0) break;
    const size_t at = out.size();
    append_out(position_, size, out);
    pass(size);
    // The copy is what will be decoded, so its own header must frame it: a writer that changed
    // the size after plausible_size read it loses that record, never the framing of the rest.
    uint32_t copied_size = 0;
    std::memcpy(&copied_size, out.data() + at + offsetof(RecordHeader, size), sizeof copied_size);
    if (copied_size != size) {
      out.resize(at);
      ++stats_.malformed_records;
      continue;
    }
    ++stats_.records;
    copied += size;
  }
  publish_tail();
  return copied;
}

RingCounters RingReader::counters() const {
  RingCounters c;
  auto* src = reinterpret_cast<uint64_t*>(&header_->counters);
  auto* dst = reinterpret_cast<uint64_t*>(&c);
  for (size_t i = 0; i < sizeof c / sizeof(uint64_t); ++i)
    dst[i] = std::atomic_ref<uint64_t>(src[i]).load(std::memory_order_relaxed);
  return c;
}

RingHeader RingReader::header_snapshot() const {
  RingHeader h{};
  h.config = config_;
  h.write_head = std::atomic_ref<uint64_t>(header_->write_head).load(std::memory_order_relaxed);
  h.read_tail = position_;
  h.counters = counters();
  return h;
}

}  // namespace sprof::heap
