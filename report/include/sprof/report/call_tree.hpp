// sprof/report/call_tree.hpp
//
// Call trees of a set of threads, merged by function as the Firefox Profiler merges them: the
// top-down tree (a node per distinct path of functions from a root) and the callers of one
// function (bottom-up: the function, then who called it, up to the roots).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

struct CallNode {
  uint32_t function = 0;
  uint64_t total = 0;              // weight of the samples through this node
  uint64_t self = 0;               // of those, the samples that end here (top-down only)
  std::vector<uint32_t> children;  // by total, heaviest first
};

struct CallTree {
  std::vector<CallNode> nodes;
  std::vector<uint32_t> roots;  // by total, heaviest first
  uint64_t weight = 0;          // every sample with a stack: the 100% of percentages
};

CallTree top_down_tree(const ReportProfile& profile, const ThreadSet& threads);

// The callers of every function named `name` (exactly; else, when no name is equal, every
// function whose name contains it): each sample with such a function on its stack counts once,
// at its innermost such frame, along the path from that frame to the root. kNotFound when no
// function matches.
Result<CallTree> callers_tree(const ReportProfile& profile, const ThreadSet& threads,
                              const std::string& name);

}  // namespace sprof::report
