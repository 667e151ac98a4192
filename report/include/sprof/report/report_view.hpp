// sprof/report/report_view.hpp
//
// What one `sprof report` shows, computed once and rendered as text (text_report.hpp) or JSON
// (json_report.hpp): the function list, the top-down call tree or the callers of a function, for
// the selected threads merged into one section or one section per thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/report/call_tree.hpp"
#include "sprof/report/function_stats.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {

enum class View { kFunctions, kTree, kCallers };

struct ViewOptions {
  View view = View::kFunctions;
  SortKey sort = SortKey::kTotal;
  size_t limit = 0;        // functions listed; 0: all
  double min_percent = 0;  // functions and tree nodes below this share of the total are left out
  size_t max_depth = 0;    // tree levels shown; 0: all
  std::string callers_of;  // View::kCallers
  bool per_thread = false;
};

struct Section {
  ThreadSet threads;
  FunctionStats functions;  // View::kFunctions
  CallTree tree;            // View::kTree and kCallers
};

Result<std::vector<Section>> build_sections(const ReportProfile& profile, const ThreadSet& threads,
                                            const ViewOptions& options);

// The facts of the header, from the profile's meta and the selected threads.
struct ReportSummary {
  std::string name;  // meta.product (the command, --profile-name), else the root process's
  double duration_ms = 0;
  std::string event;                    // meta.sprof.event; empty if unknown
  uint64_t samples = 0;                 // sample rows of the selected threads
  uint64_t idle_samples = 0;            // of those, left out as idle
  std::optional<int64_t> lost_samples;  // meta.sprof.lostSamples
  size_t processes = 0;
  size_t threads = 0;
};

ReportSummary summarize(const ReportProfile& profile, const ThreadSet& threads);

}  // namespace sprof::report
