#include "sprof/report/flame_graph.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace sprof::report {

namespace {

// "libc.so.6", "libfoo.so", "libbar.so.1.2": a shared object. Anything else named is the
// program's own code.
bool is_shared_library(std::string_view module) {
  const size_t so = module.rfind(".so");
  if (so == std::string_view::npos) return false;
  const std::string_view version = module.substr(so + 3);
  return version.empty() || (version.size() >= 2 && version[0] == '.' &&
                             std::isdigit(static_cast<unsigned char>(version[1])));
}

CodeKind kind_of(const Frame& frame, const Function& function) {
  switch (frame.category) {
    case FrameCategory::kKernel: return CodeKind::kKernel;
    case FrameCategory::kJit: return CodeKind::kJit;
    case FrameCategory::kUser:
    case FrameCategory::kOther: break;
  }
  if (function.module.empty()) {
    return frame.category == FrameCategory::kUser ? CodeKind::kUser : CodeKind::kOther;
  }
  return is_shared_library(function.module) ? CodeKind::kLibrary : CodeKind::kUser;
}

// Finds or adds the child of `parent` for `function`.
class FlameTreeBuilder {
 public:
  explicit FlameTreeBuilder(FlameGraph& graph) : graph_(graph) { graph_.nodes.emplace_back(); }

  uint32_t child(uint32_t parent, uint32_t function) {
    const uint64_t key = (uint64_t{parent} << 32) | function;
    const auto [it, added] = children_.try_emplace(key, static_cast<uint32_t>(graph_.nodes.size()));
    if (added) {
      FlameNode node;
      node.function = function;
      node.parent = parent;
      node.depth = graph_.nodes[parent].depth + 1;
      graph_.nodes.push_back(std::move(node));
      graph_.nodes[parent].children.push_back(it->second);
    }
    return it->second;
  }

 private:
  FlameGraph& graph_;
  std::unordered_map<uint64_t, uint32_t> children_;
};

// Orders siblings by name and gives every node its start; parents come before children.
void lay_out(const ReportProfile& profile, FlameGraph& graph) {
  const auto key = [&](uint32_t node) {
    const Function& f = profile.functions[*graph.nodes[node].function];
    return std::tie(f.name, f.module, *graph.nodes[node].function);
  };
  for (FlameNode& node : graph.nodes) {
    std::sort(node.children.begin(), node.children.end(),
              [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    uint64_t start = node.start;
    for (uint32_t c : node.children) {
      graph.nodes[c].start = start;
      start += graph.nodes[c].total;
    }
  }
}

}  // namespace

FlameGraph build_flame_graph(const ReportProfile& profile, const ThreadSet& threads) {
  FlameGraph graph;
  graph.function_kinds.assign(profile.functions.size(), CodeKind::kOther);
  std::vector<bool> kind_known(profile.functions.size(), false);
  FlameTreeBuilder tree(graph);
  std::vector<uint32_t> node_of_stack;
  for (const ReportThread* thread : threads) {
    // Stack tables are topological: a prefix's node is known before its stack's.
    node_of_stack.assign(thread->stacks.size(), 0);
    for (size_t s = 0; s < thread->stacks.size(); ++s) {
      const StackNode& stack = thread->stacks[s];
      const uint32_t parent = stack.prefix ? node_of_stack[*stack.prefix] : 0;
      node_of_stack[s] = tree.child(parent, stack.function);
      graph.nodes[node_of_stack[s]].self += thread->stack_weight[s];
      if (!kind_known[stack.function] && stack.frame < thread->frames.size()) {
        kind_known[stack.function] = true;
        graph.function_kinds[stack.function] =
            kind_of(thread->frames[stack.frame], profile.functions[stack.function]);
      }
    }
  }
  // Children come after their parent, so a backward pass adds each total into its parent's.
  for (size_t n = graph.nodes.size(); n-- > 0;) {
    FlameNode& node = graph.nodes[n];
    node.total += node.self;
    if (node.parent) graph.nodes[*node.parent].total += node.total;
  }
  // Stacks without samples (a caller only of idle leaves) would be empty rectangles.
  for (FlameNode& node : graph.nodes) {
    std::erase_if(node.children, [&](uint32_t c) { return graph.nodes[c].total == 0; });
    if (node.total > 0) graph.max_depth = std::max(graph.max_depth, node.depth);
  }
  lay_out(profile, graph);
  return graph;
}

}  // namespace sprof::report
