#include "import_summary.hpp"

namespace sprof::cli {

namespace {

using Outcome = perfdata::BinaryCheck::Outcome;

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string origin_line(const perfdata::ImportReport& r) {
  std::string line = "imported " + r.file;
  std::string about;
  if (!r.perf_version.empty()) about += "perf " + r.perf_version;
  if (!r.hostname.empty()) about += std::string(about.empty() ? "" : " ") + "on " + r.hostname;
  if (!r.os_release.empty()) about += " (Linux " + r.os_release + ")";
  if (r.pipe_mode) about += std::string(about.empty() ? "" : ", ") + "pipe mode";
  if (!about.empty()) line += " (" + about + ")";
  if (!r.command_line.empty()) line += ": " + r.command_line;
  return line;
}

// Deleted files and memfds are not binaries one could have here.
bool names_a_file(const std::string& path) {
  return !path.empty() && path.front() == '/' && path.rfind("/memfd:", 0) != 0 &&
         path.find(" (deleted)") == std::string::npos;
}

// "binaries: 4 matched by build-id; 2 without a recorded build-id, used unverified: libc.so.6,
// libstdc++.so.6.0.30"
std::string binaries_line(const std::vector<perfdata::BinaryCheck>& checks) {
  size_t matched = 0;
  std::vector<std::string> unverified;
  for (const auto& c : checks) {
    if (!names_a_file(c.path) && c.path != perfdata::kVdsoName) continue;
    if (c.outcome == Outcome::kMatched) ++matched;
    if (c.outcome == Outcome::kUnverified) unverified.push_back(basename_of(c.path));
  }
  std::string line;
  if (matched > 0) line = std::to_string(matched) + " matched by build-id";
  if (!unverified.empty()) {
    line += std::string(line.empty() ? "" : "; ") + std::to_string(unverified.size()) +
            " without a recorded build-id, used unverified: ";
    constexpr size_t kShown = 6;
    for (size_t i = 0; i < unverified.size() && i < kShown; ++i) {
      line += (i ? ", " : "") + unverified[i];
    }
    if (unverified.size() > kShown) line += ", ...";
  }
  return line.empty() ? line : "binaries: " + line;
}

}  // namespace

std::vector<std::string> import_summary_lines(const perfdata::ImportReport& r,
                                              const std::optional<BuildId>& local_kernel) {
  std::vector<std::string> lines{origin_line(r)};
  if (auto b = binaries_line(r.binaries); !b.empty()) lines.push_back(b);
  for (const auto& c : r.binaries) {
    if (c.outcome == Outcome::kRefused) {
      lines.push_back("refused " + c.path + ": " + c.detail +
                      "; its frames have no lib and stacks through it stop there");
    } else if (c.outcome == Outcome::kMissing && names_a_file(c.path)) {
      lines.push_back("missing " + c.path + ": " + c.detail + "; stacks through it stop there");
    }
  }
  if (r.kernel_build_id && local_kernel && !(*r.kernel_build_id == *local_kernel)) {
    lines.push_back("recorded on another kernel (build-id " + r.kernel_build_id->code_id() +
                    ", this one is " + local_kernel->code_id() + "): kernel frames stay unnamed");
  }
  // Records of types sprof does not decode are worth a line; perf's bookkeeping records
  // (FINISHED_INIT, CPU_MAP, ...) that it does not need are not.
  std::string unknown;
  for (const auto& [type, n] : r.data.unknown_by_type) {
    unknown +=
        (unknown.empty() ? "" : ", ") + std::to_string(n) + " of type " + std::to_string(type);
  }
  if (r.stream.skipped_records > 0) {
    unknown += (unknown.empty() ? "" : ", ") + std::to_string(r.stream.skipped_records) +
               " kernel records of types sprof does not decode";
  }
  if (!unknown.empty()) lines.push_back("skipped records: " + unknown);
  if (r.stream.malformed_records > 0) {
    lines.push_back(std::to_string(r.stream.malformed_records) + " malformed records skipped");
  }
  if (r.filtered_out_records > 0) {
    lines.push_back(std::to_string(r.filtered_out_records) +
                    " records of other processes left out (--pid/--name)");
  }
  for (const auto& n : r.notes) lines.push_back("note: " + n);
  return lines;
}

}  // namespace sprof::cli
