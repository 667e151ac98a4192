#include "record_command.hpp"

#include <time.h>

#include <cstdio>

#include "exit_codes.hpp"
#include "self_contained.hpp"
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

// What was recorded, for the summary: the command line, the pids, or the system.
std::string target_description(const recorder::RecordOptions& o) {
  if (o.system_wide) return "the whole system";
  if (o.attach_pids.empty()) return join_command(o.command);
  std::string out = o.attach_pids.size() == 1 ? "pid" : "pids";
  for (size_t i = 0; i < o.attach_pids.size(); ++i) {
    out += (i == 0 ? " " : ", ") + std::to_string(o.attach_pids[i]);
  }
  return out;
}

// Attach and system-wide recordings have no command whose end stops them: say how they stop.
void announce_recording(const recorder::RecordOptions& o) {
  if (!o.command.empty()) return;
  if (o.duration_s > 0) {
    std::fprintf(stderr, "sprof: recording %s for %.1f s; press Ctrl-C to stop earlier\n",
                 target_description(o).c_str(), o.duration_s);
  } else {
    std::fprintf(stderr, "sprof: recording %s; press Ctrl-C to stop\n",
                 target_description(o).c_str());
  }
}

void print_stop_notes(const recorder::Recording& r, const recorder::RecordOptions& o) {
  if (o.iteration_count > 1) {
    std::printf("sprof: %d of %d iterations recorded\n", r.iterations, o.iteration_count);
  }
  if (r.stop_cause == recorder::StopCause::kDuration && !o.command.empty()) {
    if (r.left_running.empty()) {
      std::printf("sprof: stopped after %.1f s; the command was terminated\n", o.duration_s);
    } else {
      std::printf("sprof: stopped after %.1f s; the command (pid %d) was left running\n",
                  o.duration_s, r.left_running.front());
    }
  }
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
  auto session = recorder::Session::start(options.record);
  if (!session.has_value()) {
    std::fprintf(stderr, "sprof: %s\n", session.error().message.c_str());
    return exit_code_for(session.error());
  }

  recorder::Recording recording;
  {
    RecordingSignalGuard signals;
    announce_recording(options.record);  // once Ctrl-C is handled
    auto result = (*session)->run(signals.pending_signal(), &signals.stop_requested());
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
      facts_from(recording, target_description(options.record), options.output, *written);
  const bool command_ended = !options.record.command.empty() &&
                             recording.stop_cause == recorder::StopCause::kTargetsEnded;
  std::printf("%s\n%s; written %.0f ms after %s\n", summary_line(facts).c_str(),
              details_line(recording.stats, options.record.frequency_hz).c_str(),
              write_latency_ms,
              command_ended ? "the command exited" : "the recording stopped");
  if (recording.status.signaled) {
    std::printf("sprof: the command was killed by signal %d\n", recording.status.signal);
  }
  print_stop_notes(recording, options.record);
  std::fflush(stdout);

  // The Gecko file is complete here; embedding symbols replaces it atomically when done.
  int serve_code = kExitOk;
  if (options.save_only) {
    if (options.presymbolicate) {
      const auto symbolicator = symbolicator_for(recording.profile, options.serve.symbols);
      embed_symbols(recording.profile, *symbolicator, options.output, *written, options.serve.symbols);
    }
  } else if (options.presymbolicate) {
    serve_code = serve_and_embed_symbols(recording.profile, options.output, options.serve, facts);
  } else {
    serve_code = serve_profile(options.output, options.serve, facts);
  }
  if (serve_code != kExitOk) return serve_code;
  return recording.status.shell_code();
}

}  // namespace sprof::cli
