#include <algorithm>
#include <cmath>

#include "sprof/core/json_writer.hpp"
#include "sprof/report/diff_report.hpp"

namespace sprof::report {

namespace {

double hundredths(double value) { return std::round(value * 100) / 100; }

void write_side(JsonWriter& w, const DiffSide& side) {
  w.begin_object().field("self", side.self).field("total", side.total);
  w.key("selfPercent").value(hundredths(side.self_percent), 2);
  w.key("totalPercent").value(hundredths(side.total_percent), 2);
  w.end_object();
}

}  // namespace

std::string diff_json(const ProfileDiff& diff, const DiffReportOptions& options) {
  JsonWriter w;
  w.begin_object();
  w.key("base").begin_object().field("file", options.base_file);
  w.field("samples", diff.base_weight).end_object();
  w.key("new").begin_object().field("file", options.next_file);
  w.field("samples", diff.next_weight).end_object();
  w.field("matchedFunctions", diff.matched);
  w.key("functions").begin_array();
  const size_t shown =
      options.limit == 0 ? diff.functions.size() : std::min(options.limit, diff.functions.size());
  for (size_t i = 0; i < shown; ++i) {
    const FunctionDelta& f = diff.functions[i];
    w.begin_object().field("name", f.name).field("module", f.module);
    w.key("base");
    write_side(w, f.base);
    w.key("new");
    write_side(w, f.next);
    w.key("totalDelta").value(hundredths(f.total_delta()), 2);
    w.key("selfDelta").value(hundredths(f.self_delta()), 2);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take() + "\n";
}

}  // namespace sprof::report
