#include "sprof/convert/stats.hpp"

#include "sprof/unwind/unwinder.hpp"

namespace sprof::convert {

static_assert(kUnwindStopKinds == unwind::kUnwindStopCount,
              "RecordingStats::unwind_stops has one counter per unwind::UnwindStop");

std::string describe_incomplete_unwinds(const RecordingStats& stats) {
  std::string out;
  // Index 0 is UnwindStop::kComplete.
  for (size_t i = 1; i < stats.unwind_stops.size(); ++i) {
    if (stats.unwind_stops[i] == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(stats.unwind_stops[i]) + " " +
           unwind::unwind_stop_name(static_cast<unwind::UnwindStop>(i));
  }
  return out;
}

}  // namespace sprof::convert
