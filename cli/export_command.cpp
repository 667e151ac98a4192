#include "export_command.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "exit_codes.hpp"
#include "report_input.hpp"
#include "sprof/report/folded_stacks.hpp"
#include "sprof/report/pprof_export.hpp"

namespace sprof::cli {

namespace {

bool write_output(const std::string& path, const std::string& bytes) {
  const bool to_stdout = path.empty() || path == "-";
  std::FILE* out = to_stdout ? stdout : std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "sprof: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  const bool closed = to_stdout ? std::fflush(out) == 0 : std::fclose(out) == 0;
  if (!written || !closed) {
    std::fprintf(stderr, "sprof: cannot write %s: %s\n",
                 to_stdout ? "standard output" : path.c_str(), std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

int run_export_command(const ExportCommandOptions& options) {
  const bool to_stdout = options.output.empty() || options.output == "-";
  if (options.format == ExportFormat::kPprof && to_stdout) {
    std::fprintf(stderr, "sprof: --format pprof writes a binary file: give it with -o FILE\n");
    return kExitUsage;
  }
  auto opened = open_profile(options.selection);
  if (!opened) return report_open_error(options.selection, opened.error());
  const report::ReportProfile& profile = (*opened)->profile;
  const report::ThreadSet& threads = (*opened)->threads;
  if (options.format == ExportFormat::kFolded) {
    const std::string text =
        report::folded_stacks(profile, threads, {.thread_prefix = options.thread_prefix});
    return write_output(options.output, text) ? kExitOk : kExitFailure;
  }
  auto pprof = report::pprof_gzip(profile, threads);
  if (!pprof) {
    std::fprintf(stderr, "sprof: %s\n", pprof.error().message.c_str());
    return kExitFailure;
  }
  return write_output(options.output, *pprof) ? kExitOk : kExitFailure;
}

}  // namespace sprof::cli
