#include "sprof/report/thread_selection.hpp"

#include <charconv>
#include <set>

namespace sprof::report {

namespace {

// True when `pattern` is the decimal `id` or exactly `name`.
bool matches(const std::string& pattern, int64_t id, const std::string& name) {
  int64_t number = 0;
  const char* end = pattern.data() + pattern.size();
  const auto [ptr, ec] = std::from_chars(pattern.data(), end, number);
  if (ec == std::errc() && ptr == end) return number == id;
  return pattern == name;
}

std::string available(const ReportProfile& profile, bool processes) {
  std::set<std::string> labels;
  for (const ReportThread& t : profile.threads) {
    labels.insert(processes ? t.process_name + " (" + std::to_string(t.pid) + ")"
                            : thread_label(t));
  }
  std::string out;
  for (const std::string& label : labels) out += (out.empty() ? "" : ", ") + label;
  return out.empty() ? "none" : out;
}

}  // namespace

std::string thread_label(const ReportThread& thread) {
  return thread.name + " (" + std::to_string(thread.tid) + ")";
}

Result<ThreadSet> select_threads(const ReportProfile& profile, const ThreadFilter& filter) {
  ThreadSet in_process;
  for (const ReportThread& t : profile.threads) {
    if (filter.process.empty() || matches(filter.process, t.pid, t.process_name)) {
      in_process.push_back(&t);
    }
  }
  if (in_process.empty()) {
    return fail(Errc::kNotFound, "no process " + filter.process +
                                     " in the profile; processes: " + available(profile, true));
  }
  ThreadSet selected;
  for (const ReportThread* t : in_process) {
    if (filter.thread.empty() || matches(filter.thread, t->tid, t->name)) selected.push_back(t);
  }
  if (selected.empty()) {
    return fail(Errc::kNotFound, "no thread " + filter.thread +
                                     " in the profile; threads: " + available(profile, false));
  }
  return selected;
}

}  // namespace sprof::report
