#include "sprof/profile/sample_list.hpp"

#include <algorithm>
#include <span>

#include "sprof/core/log.hpp"
#include "sprof/profile/sample_spill.hpp"

namespace sprof::profile {

void SampleList::push_back(const Sample& s) {
  if (blocks_.empty() || blocks_.back().packed.size() == kBlockSize || blocks_.back().spilled_at) {
    blocks_.emplace_back();
    // The first block grows as a vector does (most threads have few samples); the others are
    // allocated whole, once.
    if (blocks_.size() > 1) blocks_.back().packed.reserve(kBlockSize);
  }
  // A stack index of kNone itself would read back as none; no table has 4 billion stacks.
  Packed p{s.time_ms, s.stack.value_or(kNone), kNone};
  if (s.cpu_delta_ns) {
    if (*s.cpu_delta_ns < kLarge) {
      p.cpu_delta = static_cast<uint32_t>(*s.cpu_delta_ns);
    } else {
      p.cpu_delta = kLarge;
      large_deltas_.emplace_back(size_, *s.cpu_delta_ns);
    }
  }
  Block& block = blocks_.back();
  block.packed.push_back(p);
  ++size_;
  if (spill_ && block.packed.size() == kBlockSize) {
    const auto bytes = std::as_bytes(std::span<const Packed>(block.packed));
    if (const auto offset = spill_->append(bytes)) {
      block.spilled_at = *offset;
      std::vector<Packed>().swap(block.packed);
    }
  }
}

size_t SampleList::drop_before(double time_ms) {
  // Counted first: most calls drop nothing, and then nothing is copied.
  const auto dropped = static_cast<size_t>(
      std::count_if(begin(), end(), [time_ms](const Sample& s) { return s.time_ms < time_ms; }));
  if (dropped == 0) return 0;
  SampleList kept;
  kept.spill_ = spill_;
  for (const Sample s : *this) {
    if (s.time_ms >= time_ms) kept.push_back(s);
  }
  *this = std::move(kept);
  return dropped;
}

size_t SampleList::samples_in_memory() const {
  size_t n = 0;
  for (const Block& b : blocks_) n += b.packed.size();
  return n;
}

const std::vector<SampleList::Packed>& SampleList::read_spilled(uint64_t offset) const {
  // Readers go through a thread's samples in order: one block read serves 4,096 of them. The
  // cache is the reading thread's own, keyed by the spill file's id (an address may be reused).
  struct Cache {
    uint64_t spill_id = 0;
    uint64_t offset = 0;
    std::vector<Packed> packed;
  };
  thread_local Cache cache;
  if (cache.spill_id != spill_->id() || cache.offset != offset || cache.packed.empty()) {
    cache.packed.assign(kBlockSize, Packed{0, kNone, kNone});
    if (!spill_->read(offset, std::as_writable_bytes(std::span<Packed>(cache.packed)))) {
      log::error("reading samples back from the spill file failed; they are written empty");
      cache.packed.assign(kBlockSize, Packed{0, kNone, kNone});
    }
    cache.spill_id = spill_->id();
    cache.offset = offset;
  }
  return cache.packed;
}

const SampleList::Packed& SampleList::packed_at(size_t i) const {
  const Block& block = blocks_[i >> kBlockShift];
  const size_t j = i & (kBlockSize - 1);
  return block.spilled_at ? read_spilled(*block.spilled_at)[j] : block.packed[j];
}

Sample SampleList::operator[](size_t i) const {
  const Packed& p = packed_at(i);
  Sample s;
  s.time_ms = p.time_ms;
  if (p.stack != kNone) s.stack = p.stack;
  if (p.cpu_delta == kLarge) {
    const auto it = std::lower_bound(large_deltas_.begin(), large_deltas_.end(),
                                     std::pair<size_t, uint64_t>(i, 0));
    s.cpu_delta_ns = it != large_deltas_.end() && it->first == i ? it->second : kLarge;
  } else if (p.cpu_delta != kNone) {
    s.cpu_delta_ns = p.cpu_delta;
  }
  return s;
}

}  // namespace sprof::profile
