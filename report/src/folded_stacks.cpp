#include "sprof/report/folded_stacks.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace sprof::report {

namespace {

// `name` as one folded frame.
std::string frame_text(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

std::string folded_stacks(const ReportProfile& profile, const ThreadSet& threads,
                          const FoldedOptions& options) {
  std::vector<std::string> names;
  names.reserve(profile.functions.size());
  for (const Function& f : profile.functions) names.push_back(frame_text(f.name));

  std::map<std::string, uint64_t> weights;
  std::vector<uint32_t> path;  // leaf first
  for (const ReportThread* thread : threads) {
    const std::string prefix =
        options.thread_prefix
            ? frame_text(thread->process_name + " (" + std::to_string(thread->pid) + ")/" +
                         thread->name + " (" + std::to_string(thread->tid) + ")")
            : std::string();
    for (size_t s = 0; s < thread->stacks.size(); ++s) {
      if (thread->stack_weight[s] == 0) continue;
      path.clear();
      for (std::optional<uint32_t> node = static_cast<uint32_t>(s); node;
           node = thread->stacks[*node].prefix) {
        path.push_back(thread->stacks[*node].function);
      }
      std::string line = prefix;
      for (auto it = path.rbegin(); it != path.rend(); ++it) {
        if (!line.empty()) line += ';';
        line += names[*it];
      }
      weights[std::move(line)] += thread->stack_weight[s];
    }
  }
  std::string out;
  for (const auto& [stack, weight] : weights) {
    out += stack;
    out += ' ';
    out += std::to_string(weight);
    out += '\n';
  }
  return out;
}

}  // namespace sprof::report
