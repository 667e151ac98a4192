// heap/src/reader/ring_reader.cpp
#include "sprof/heap/ring_reader.hpp"

#include <atomic>
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

void RingReader::copy_out(uint64_t position, size_t n, uint8_t* out) const {
  const uint64_t at = position & (config_.data_bytes - 1);
  const size_t first = std::min<uint64_t>(n, config_.data_bytes - at);
  std::memcpy(out, data_ + at, first);
  std::memcpy(out + first, data_, n - first);
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

size_t RingReader::drain(const DrainOptions& options,
                         const std::function<void(const DrainedRecord&)>& visit) {
  uint64_t head = std::atomic_ref<uint64_t>(header_->write_head).load(std::memory_order_acquire);
  if (head < position_ || head - position_ > config_.data_bytes) {
    // A head behind us or more than a ring ahead is not something writers produce.
    ++stats_.bad_heads;
    head = position_ + config_.data_bytes;
  }
  const DecodeLimits limits{config_.stack_copy_bytes};
  // A visitor can be slow (the recorder's tables grow); writers waiting for room should not
  // wait for the whole drain.
  const uint64_t publish_every = config_.data_bytes / 16;
  size_t visited = 0;
  uint64_t visited_bytes = 0;
  while (position_ < head && (options.max_bytes == 0 || visited_bytes < options.max_bytes)) {
    if (!committed(position_)) {
      // Reserved but not (yet) written. Wait for its writer, unless it is gone or too slow.
      const bool timed_out = stalled_at_ == position_ &&
                             options.now_ns - stalled_since_ns_ >= options.stall_timeout_ns;
      if (!options.final && !timed_out) {
        if (stalled_at_ != position_) {
          stalled_at_ = position_;
          stalled_since_ns_ = options.now_ns;
        }
        break;
      }
      resync(head);
      continue;
    }
    const uint32_t size = plausible_size(position_, head);
    if (size == 0) {
      resync(head);
      continue;
    }
    scratch_.resize(size);
    copy_out(position_, size, scratch_.data());
    // The record is copied out: writers may reuse its bytes.
    position_ += size;
    stalled_at_ = ~0ULL;
    if (position_ - published_ >= publish_every) publish_tail();
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
