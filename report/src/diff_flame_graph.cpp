#include "sprof/report/diff_flame_graph.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>

#include "sprof/report/function_stats.hpp"

namespace sprof::report {

namespace {

// The base graph's children, looked up by the parent node and the function's module and name.
class ChildIndex {
 public:
  ChildIndex(const ReportProfile& profile, const FlameGraph& graph) : profile_(profile) {
    for (uint32_t n = 1; n < graph.nodes.size(); ++n) {
      const FlameNode& node = graph.nodes[n];
      children_.emplace(key(*node.parent, profile_.functions[*node.function]), n);
    }
  }

  std::optional<uint32_t> find(uint32_t parent, const Function& function) const {
    const auto it = children_.find(key(parent, function));
    if (it == children_.end()) return std::nullopt;
    return it->second;
  }

 private:
  static std::string key(uint32_t parent, const Function& f) {
    std::string k = std::to_string(parent);
    k += '\0';
    k += f.module;
    k += '\0';
    k += f.name;
    return k;
  }

  const ReportProfile& profile_;
  std::unordered_map<std::string, uint32_t> children_;
};

}  // namespace

std::vector<double> path_deltas(const ReportProfile& base, const FlameGraph& base_graph,
                                const ReportProfile& next, const FlameGraph& next_graph) {
  const ChildIndex base_children(base, base_graph);
  // Per new node: the base node of the same path, if the base profile has it.
  std::vector<std::optional<uint32_t>> in_base(next_graph.nodes.size());
  in_base[0] = 0;
  std::vector<double> deltas(next_graph.nodes.size(), 0.0);
  for (uint32_t n = 1; n < next_graph.nodes.size(); ++n) {
    const FlameNode& node = next_graph.nodes[n];  // a parent comes before its children
    if (const auto parent = in_base[*node.parent])
      in_base[n] = base_children.find(*parent, next.functions[*node.function]);
    const uint64_t base_total = in_base[n] ? base_graph.nodes[*in_base[n]].total : 0;
    deltas[n] = percent(node.total, next_graph.total()) - percent(base_total, base_graph.total());
  }
  return deltas;
}

DiffFills diff_fills(const std::vector<double>& deltas) {
  double scale = 0;
  for (const double d : deltas) scale = std::max(scale, std::abs(d));
  DiffFills fills;
  fills.node_fills.reserve(deltas.size());
  for (const double d : deltas) fills.node_fills.push_back(change_fill(d, scale));
  fills.legend = {{"grew", change_fill(scale, scale)},
                  {"shrank", change_fill(-scale, scale)},
                  {"unchanged", change_fill(0, scale)}};
  return fills;
}

}  // namespace sprof::report
