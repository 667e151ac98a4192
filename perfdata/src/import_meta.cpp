#include "sprof/perfdata/import_meta.hpp"

namespace sprof::perfdata {

void add_import_meta(profile::Meta& meta, const ImportReport& report) {
  auto& extra = meta.extra;
  const auto add = [&extra](const char* key, auto value) { extra.emplace_back(key, value); };
  add("source", std::string("perf.data"));
  add("importedFile", report.file);
  if (!report.perf_version.empty()) add("perfVersion", report.perf_version);
  if (!report.hostname.empty()) add("hostname", report.hostname);
  if (!report.os_release.empty()) add("osRelease", report.os_release);
  if (!report.command_line.empty()) add("perfCommandLine", report.command_line);
  add("startTimeSource", std::string(start_time_source_name(report.start_time)));
  int64_t counts[4] = {};
  for (const auto& b : report.binaries) ++counts[static_cast<int>(b.outcome)];
  add("binariesMatched", counts[static_cast<int>(BinaryCheck::Outcome::kMatched)]);
  add("binariesRefused", counts[static_cast<int>(BinaryCheck::Outcome::kRefused)]);
  add("binariesMissing", counts[static_cast<int>(BinaryCheck::Outcome::kMissing)]);
  add("binariesUnverified", counts[static_cast<int>(BinaryCheck::Outcome::kUnverified)]);
  int64_t unknown = static_cast<int64_t>(report.stream.skipped_records);
  for (const auto& [type, n] : report.data.unknown_by_type) unknown += static_cast<int64_t>(n);
  add("unknownRecords", unknown);
  add("filteredOutRecords", static_cast<int64_t>(report.filtered_out_records));
}

}  // namespace sprof::perfdata
