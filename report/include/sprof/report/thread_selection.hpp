// sprof/report/thread_selection.hpp
//
// Which threads a report covers: `--process PID|NAME` and `--thread NAME|TID`. A number matches
// a pid or tid, anything else a process or thread name exactly. Nothing matching is an error
// (kNotFound) that lists what there is, so a typo never prints an empty report.
#pragma once

#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/report/report_profile.hpp"

namespace sprof::report {

struct ThreadFilter {
  std::string process;  // empty: every process
  std::string thread;   // empty: every thread
};

using ThreadSet = std::vector<const ReportThread*>;

Result<ThreadSet> select_threads(const ReportProfile& profile, const ThreadFilter& filter);

// "name (tid)" for messages and headings.
std::string thread_label(const ReportThread& thread);

}  // namespace sprof::report
