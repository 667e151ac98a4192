#include "sprof/profile/sample_list.hpp"

#include <algorithm>

namespace sprof::profile {

void SampleList::push_back(const Sample& s) {
  if (blocks_.empty() || blocks_.back().size() == kBlockSize) {
    blocks_.emplace_back();
    // The first block grows as a vector does (most threads have few samples); the others are
    // allocated whole, once.
    if (blocks_.size() > 1) blocks_.back().reserve(kBlockSize);
  }
  Packed p{s.time_ms, s.stack.value_or(kNone), kNone};
  if (s.stack && *s.stack >= kNone) p.stack = kNone;  // no table has 4 billion stacks
  if (s.cpu_delta_ns) {
    if (*s.cpu_delta_ns < kLarge) {
      p.cpu_delta = static_cast<uint32_t>(*s.cpu_delta_ns);
    } else {
      p.cpu_delta = kLarge;
      large_deltas_.emplace_back(size_, *s.cpu_delta_ns);
    }
  }
  blocks_.back().push_back(p);
  ++size_;
}

Sample SampleList::operator[](size_t i) const {
  const Packed& p = blocks_[i >> kBlockShift][i & (kBlockSize - 1)];
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
