#include "sprof/report/call_tree.hpp"

#include <algorithm>
#include <unordered_map>

namespace sprof::report {

namespace {

constexpr uint32_t kNoParent = UINT32_MAX;

// Nodes keyed by (parent, function); roots have kNoParent.
class CallTreeBuilder {
 public:
  uint32_t child(uint32_t parent, uint32_t function) {
    const uint64_t key = (static_cast<uint64_t>(parent) << 32) | function;
    auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(tree_.nodes.size()));
    if (added) {
      tree_.nodes.push_back({function, 0, 0, {}});
      parents_.push_back(parent);
      (parent == kNoParent ? tree_.roots : tree_.nodes[parent].children).push_back(it->second);
    }
    return it->second;
  }
  uint32_t parent(uint32_t node) const { return parents_[node]; }
  CallTree& tree() { return tree_; }

  // Sorts children heaviest first and drops nodes no sample reached (stacks of left-out samples).
  CallTree finish() {
    const auto unreached = [&](uint32_t n) { return tree_.nodes[n].total == 0; };
    std::erase_if(tree_.roots, unreached);
    for (CallNode& node : tree_.nodes) std::erase_if(node.children, unreached);
    const auto heavier = [&](uint32_t a, uint32_t b) {
      return tree_.nodes[a].total > tree_.nodes[b].total;
    };
    std::stable_sort(tree_.roots.begin(), tree_.roots.end(), heavier);
    for (CallNode& node : tree_.nodes) {
      std::stable_sort(node.children.begin(), node.children.end(), heavier);
    }
    return std::move(tree_);
  }

 private:
  CallTree tree_;
  std::vector<uint32_t> parents_;
  std::unordered_map<uint64_t, uint32_t> index_;
};

}  // namespace

CallTree top_down_tree(const ReportProfile& profile, const ThreadSet& threads) {
  (void)profile;
  CallTreeBuilder builder;
  for (const ReportThread* thread : threads) {
    // Prefixes come before their stacks, so each stack's caller node is known when it is met.
    std::vector<uint32_t> node_of(thread->stacks.size());
    for (size_t s = 0; s < thread->stacks.size(); ++s) {
      const StackNode& stack = thread->stacks[s];
      node_of[s] = builder.child(stack.prefix ? node_of[*stack.prefix] : kNoParent, stack.function);
      builder.tree().nodes[node_of[s]].self += thread->stack_weight[s];
      builder.tree().weight += thread->stack_weight[s];
    }
  }
  // Children come after their parents: adding totals from the end reaches every ancestor.
  CallTree& tree = builder.tree();
  for (size_t n = tree.nodes.size(); n-- > 0;) {
    tree.nodes[n].total += tree.nodes[n].self;
    if (builder.parent(static_cast<uint32_t>(n)) != kNoParent) {
      tree.nodes[builder.parent(static_cast<uint32_t>(n))].total += tree.nodes[n].total;
    }
  }
  return builder.finish();
}

Result<CallTree> callers_tree(const ReportProfile& profile, const ThreadSet& threads,
                              const std::string& name) {
  std::vector<bool> wanted(profile.functions.size(), false);
  bool any_equal = false;
  for (size_t f = 0; f < profile.functions.size(); ++f) {
    wanted[f] = profile.functions[f].name == name;
    any_equal = any_equal || wanted[f];
  }
  if (!any_equal) {
    for (size_t f = 0; f < profile.functions.size(); ++f) {
      wanted[f] = profile.functions[f].name.find(name) != std::string::npos;
    }
  }
  if (std::find(wanted.begin(), wanted.end(), true) == wanted.end()) {
    return fail(Errc::kNotFound, "no function named " + name + " in the profile");
  }
  CallTreeBuilder builder;
  for (const ReportThread* thread : threads) {
    for (size_t s = 0; s < thread->stacks.size(); ++s) {
      const uint64_t weight = thread->stack_weight[s];
      if (weight == 0) continue;
      builder.tree().weight += weight;
      std::optional<uint32_t> at = static_cast<uint32_t>(s);
      while (at && !wanted[thread->stacks[*at].function]) at = thread->stacks[*at].prefix;
      uint32_t node = kNoParent;
      for (; at; at = thread->stacks[*at].prefix) {
        node = builder.child(node, thread->stacks[*at].function);
        builder.tree().nodes[node].total += weight;
      }
    }
  }
  return builder.finish();
}

}  // namespace sprof::report
