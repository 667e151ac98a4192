#include "export_command.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "exit_codes.hpp"
#include "report_input.hpp"
#include "sprof/report/folded_stacks.hpp"

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
  auto opened = open_profile(options.selection);
  if (!opened) return report_open_error(options.selection, opened.error());
  const std::string text = report::folded_stacks((*opened)->profile, (*opened)->threads,
                                                 {.thread_prefix = options.thread_prefix});
  return write_output(options.output, text) ? kExitOk : kExitFailure;
}

}  // namespace sprof::cli
