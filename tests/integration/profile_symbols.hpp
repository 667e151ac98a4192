// tests/integration/profile_symbols.hpp
//
// Symbolicates the stacks of a recorded profile in-process with sprof's own symbolicator, the
// way the Firefox Profiler does through the server (lib lookup, relative address, return
// addresses nudged by one), so tests can assert on the function names of whole call chains.
#pragma once

#include <string>
#include <vector>

#include "recorded_profile.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::test {

class ProfileSymbols {
 public:
  explicit ProfileSymbols(const ProcessView& process);

  // Function names of one stack (root first, as ThreadView::stacks), inlined frames expanded
  // (outer function first). Frames that do not resolve are kept as their location string.
  std::vector<std::string> names(const std::vector<std::string>& stack);

 private:
  const ProcessView& process_;
  symbolicator::Symbolicator symbolicator_;
};

// True when `needle` appears in `haystack` in order (not necessarily adjacent).
bool contains_in_order(const std::vector<std::string>& haystack,
                       const std::vector<std::string>& needle);
// True when `needle` appears in `haystack` as one contiguous run.
bool adjacent_in_order(const std::vector<std::string>& haystack,
                       const std::vector<std::string>& needle);

}  // namespace sprof::test
