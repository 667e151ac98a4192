#include "record_command.hpp"

#include <time.h>

#include <cstdio>

#include "exit_codes.hpp"
#include "serve.hpp"
#include "signals.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/recorder/session.hpp"
#include "summary.hpp"

namespace sprof::cli {

namespace {

std::string join_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

int exit_code_for(const Error& e) {
  switch (e.code) {
    case Errc::kExecFailed: return kExitCannotExecute;
    case Errc::kPermissionDenied: return kExitPermission;
    case Errc::kInvalidArgument: return kExitUsage;
    default: return kExitFailure;
  }
}

}  // namespace

int run_record_command(const RecordCommandOptions& options) {
  auto session = recorder::Session::launch(options.record);
  if (!session.has_value()) {
    std::fprintf(stderr, "sprof: %s\n", session.error().message.c_str());
    return exit_code_for(session.error());
  }

  recorder::Recording recording;
  {
    RecordingSignalGuard signals;
    auto result = (*session)->run(signals.pending_signal());
    if (!result.has_value()) {
      std::fprintf(stderr, "sprof: recording failed: %s\n", result.error().message.c_str());
      return exit_code_for(result.error());
    }
    recording = std::move(*result);
  }

  auto written = profile::write_gecko_file(recording.profile, options.output);
  if (!written.has_value()) {
    std::fprintf(stderr, "sprof: cannot write the profile: %s\n",
                 written.error().message.c_str());
    return kExitFailure;
  }
  const double write_latency_ms =
      static_cast<double>(monotonic_ns() - recording.child_exit_monotonic_ns) / 1e6;
  const auto facts =
      facts_from(recording, join_command(options.record.command), options.output, *written);
  std::printf("%s\n%s; written %.0f ms after the command exited\n", summary_line(facts).c_str(),
              details_line(recording.stats, options.record.frequency_hz).c_str(),
              write_latency_ms);
  if (!recording.status.exited) {
    std::printf("sprof: the command was killed by signal %d\n", recording.status.signal);
  }
  std::fflush(stdout);

  if (!options.save_only) {
    const int serve_code = serve_profile(options.output, options.serve, facts);
    if (serve_code != kExitOk) return serve_code;
  }
  return recording.status.shell_code();
}

}  // namespace sprof::cli
