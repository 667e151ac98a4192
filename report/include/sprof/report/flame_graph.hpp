// sprof/report/flame_graph.hpp
//
// The merged stacks a flame graph draws: the selected threads' stacks folded into one tree whose
// nodes are (caller path, function), as `sprof report --tree` and `export --format folded` merge
// them (inline frames are frames), laid out in samples: each node starts where its previous
// sibling ends, and siblings are ordered by function name, so one profile always gives the same
// layout. Node 0 is the root ("all"), whose total is every sample with a stack.
//
// Also says what kind of code each function is, for colours: the file's category (kernel, JIT)
// and, for user code, whether it lives in a shared library.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

enum class CodeKind : uint8_t { kUser, kLibrary, kKernel, kJit, kOther };

struct FlameNode {
  std::optional<uint32_t> function;  // index into ReportProfile::functions; none at the root
  std::optional<uint32_t> parent;    // none at the root
  uint32_t depth = 0;                // 0 at the root
  uint64_t start = 0;                // samples left of this node on its row
  uint64_t total = 0;                // samples with this node on the stack
  uint64_t self = 0;                 // samples whose leaf this node is
  std::vector<uint32_t> children;    // by function name
};

struct FlameGraph {
  std::vector<FlameNode> nodes;  // a parent before its children
  uint32_t max_depth = 0;
  // Per function: its kind (the category of the first frame met with it).
  std::vector<CodeKind> function_kinds;

  uint64_t total() const { return nodes.front().total; }
};

FlameGraph build_flame_graph(const ReportProfile& profile, const ThreadSet& threads);

}  // namespace sprof::report
