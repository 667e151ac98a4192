#include "export_command.hpp"

#include <cstdio>
#include <string>

#include "exit_codes.hpp"
#include "output_file.hpp"
#include "report_input.hpp"
#include "sprof/report/folded_stacks.hpp"
#include "sprof/report/pprof_export.hpp"

namespace sprof::cli {

int run_export_command(const ExportCommandOptions& options) {
  if (options.format == ExportFormat::kPprof && is_standard_output(options.output)) {
    std::fprintf(stderr, "sprof: --format pprof writes a binary file: give it with -o FILE\n");
    return kExitUsage;
  }
  auto opened = open_profile_stacks(options.selection, options.heap);
  if (!opened) return report_open_error(options.selection, opened.error());
  const report::ReportProfile& profile = (*opened)->profile;
  const report::ThreadSet& threads = (*opened)->threads;
  if (options.format == ExportFormat::kFolded) {
    const std::string text =
        report::folded_stacks(profile, threads, {.thread_prefix = options.thread_prefix});
    return write_output(options.output, text) ? kExitOk : kExitFailure;
  }
  report::PprofOptions pprof_options;
  pprof_options.memory = options.heap != HeapView::kNone;
  if (options.heap == HeapView::kRetained)
    pprof_options.default_type = report::HeapWeight::kRetained;
  auto pprof = report::pprof_gzip(profile, threads, pprof_options);
  if (!pprof) {
    std::fprintf(stderr, "sprof: %s\n", pprof.error().message.c_str());
    return kExitFailure;
  }
  return write_output(options.output, *pprof) ? kExitOk : kExitFailure;
}

}  // namespace sprof::cli
