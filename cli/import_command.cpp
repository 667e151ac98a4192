#include "import_command.hpp"

#include <cmath>
#include <cstdio>

#include "console.hpp"
#include "exit_codes.hpp"
#include "import_summary.hpp"
#include "self_contained.hpp"
#include "sprof/core/clock.hpp"
#include "sprof/core/replacing_file.hpp"
#include "sprof/elf/kernel_image.hpp"
#include "sprof/perfdata/perf_data_import.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/recorder/local_files.hpp"
#include "summary.hpp"
#include "write_signal_guard.hpp"

namespace sprof::cli {

namespace {

// As for `sprof load`: a file that is missing or not one sprof reads is a usage error.
int exit_code_for(const Error& e) {
  switch (e.code) {
    case Errc::kNotFound:
    case Errc::kMalformed:
    case Errc::kUnsupported:
    case Errc::kInvalidArgument:
    case Errc::kTooLarge: return kExitUsage;
    default: return kExitFailure;
  }
}

RecordingFacts import_facts(const perfdata::ImportedProfile& imported, const std::string& output,
                            uint64_t output_bytes) {
  const auto& r = imported.report;
  return facts_from(imported.stats, r.command_line.empty() ? r.file : r.command_line,
                    imported.profile.meta.profiling_end_ms.value_or(0) / 1e3, output, output_bytes);
}

}  // namespace

int run_import_command(const ImportCommandOptions& options) {
  auto bytes = perfdata::FileBytes::open(options.perf_data_path);
  if (!bytes) {
    std::fprintf(stderr, "sprof: cannot read %s: %s\n", options.perf_data_path.c_str(),
                 bytes.error().message.c_str());
    return exit_code_for(bytes.error());
  }
  // Before the work: a profile that cannot be written is better known now.
  if (auto writable = ReplacingFile::check_target(options.output); !writable.has_value()) {
    std::fprintf(stderr, "sprof: cannot write the profile to %s (%s); nothing was imported\n",
                 options.output.c_str(), writable.error().message.c_str());
    return kExitFailure;
  }
  recorder::LocalFiles local(options.serve.symbols.symbol_dirs);  // also the unwinder's debug files
  perfdata::ImportOptions import_options;
  import_options.pids = options.pids;
  import_options.names = options.names;
  import_options.sample_spill = profile::SampleSpill::open_temporary();
  const uint64_t cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  auto imported = perfdata::import_perf_data(*bytes, local, import_options);
  if (!imported) {
    std::fprintf(stderr, "sprof: cannot import %s: %s\n", options.perf_data_path.c_str(),
                 imported.error().message.c_str());
    return exit_code_for(imported.error());
  }
  imported->stats.reader_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start;

  auto written = [&] {
    const WriteSignalGuard signals;  // Ctrl-C lets the write finish; a second one abandons it
    return profile::write_gecko_file(imported->profile, options.output);
  }();
  if (!written) {
    std::fprintf(stderr, "sprof: cannot write the profile: %s\n", written.error().message.c_str());
    return kExitFailure;
  }
  const auto facts = import_facts(*imported, options.output, *written);
  auto local_kernel = elf::read_kernel_build_id();
  const std::optional<BuildId> kernel =
      local_kernel ? std::optional<BuildId>(*local_kernel) : std::nullopt;
  if (!quiet()) {
    for (const auto& line : import_summary_lines(imported->report, kernel)) {
      std::fprintf(stderr, "sprof: %s\n", line.c_str());
    }
    const double rate =
        imported->profile.meta.interval_ms > 0 ? 1000.0 / imported->profile.meta.interval_ms : 0;
    std::fprintf(stderr, "%s\n%s\n", summary_line(facts).c_str(),
                 details_line(imported->stats, static_cast<int>(std::lround(rate))).c_str());
  }
  return save_and_serve(imported->profile, options.output, *written, options.save_only,
                        options.presymbolicate, options.serve, facts);
}

}  // namespace sprof::cli
