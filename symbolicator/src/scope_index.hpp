// scope_index.hpp (private)
//
// Answers "which is the deepest of these nested ranges that contains address A?" with one binary
// search. DWARF function and inline ranges nest (an inlined subroutine lies inside its caller), so
// they can be flattened once into non-overlapping segments, each naming the deepest range that
// covers it. Ranges that overlap without nesting (damaged DWARF) are clipped to their parent.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace sprof::symbolicator::detail {

struct ModuleIndexCodec;

class ScopeIndex {
 public:
  struct Range {
    uint64_t begin = 0;  // [begin, end)
    uint64_t end = 0;
    uint32_t depth = 0;  // deeper ranges win where they overlap
    uint32_t value = 0;  // what `find` returns; among identical ranges the lowest wins
  };

  ScopeIndex() = default;
  static ScopeIndex build(std::vector<Range> ranges);

  std::optional<uint32_t> find(uint64_t address) const;
  size_t segment_count() const { return starts_.size(); }

 private:
  friend struct ModuleIndexCodec;  // module_index_codec.cpp: the symbol cache's file format
  static constexpr uint32_t kGap = UINT32_MAX;

  void emit(uint64_t start, uint32_t value);

  std::vector<uint64_t> starts_;  // sorted; segment i covers [starts_[i], starts_[i + 1])
  std::vector<uint32_t> values_;  // kGap where no range covers the segment
};

}  // namespace sprof::symbolicator::detail
