#include "record_command.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "console.hpp"
#include "exit_codes.hpp"
#include "heap_summary.hpp"
#include "rotating_output.hpp"
#include "self_contained.hpp"
#include "serve.hpp"
#include "signals.hpp"
#include "sprof/convert/process_name.hpp"
#include "sprof/core/clock.hpp"
#include "sprof/core/replacing_file.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/recorder/session.hpp"
#include "status_line.hpp"
#include "summary.hpp"
#include "symbol_prefetch.hpp"
#include "write_signal_guard.hpp"

namespace sprof::cli {

namespace {

// What was recorded, for the summary: the command line, the pids, or the system.
std::string target_description(const recorder::RecordOptions& o) {
  if (o.system_wide) return "the whole system";
  if (o.attach_pids.empty()) return convert::join_arguments(o.command);
  std::string out = o.attach_pids.size() == 1 ? "pid" : "pids";
  for (size_t i = 0; i < o.attach_pids.size(); ++i) {
    out += (i == 0 ? " " : ", ") + std::to_string(o.attach_pids[i]);
  }
  return out;
}

// A flight recording writes on request: say how, and where.
void announce_flight_recorder(const RecordCommandOptions& o, const std::string& dir) {
  if (o.flight_recorder_s <= 0 || quiet()) return;
  std::fprintf(stderr,
               "sprof: keeping the last %.1f s; kill -USR2 %d writes them into %s (the end of "
               "the recording writes the last ones)\n",
               o.flight_recorder_s, static_cast<int>(::getpid()), dir.c_str());
}

// Attach and system-wide recordings have no command whose end stops them: say how they stop.
void announce_recording(const recorder::RecordOptions& o) {
  if (!o.command.empty() || quiet()) return;
  if (o.duration_s > 0) {
    std::fprintf(stderr, "sprof: recording %s for %.1f s; press Ctrl-C to stop earlier\n",
                 target_description(o).c_str(), o.duration_s);
  } else {
    std::fprintf(stderr, "sprof: recording %s; press Ctrl-C to stop\n",
                 target_description(o).c_str());
  }
}

// How sprof ended a command it launched: "terminated (SIGTERM)" or "killed (SIGKILL ...)".
std::string how_terminated(const recorder::Recording& r) {
  if (r.terminated_status && r.terminated_status->signaled &&
      r.terminated_status->signal == SIGKILL) {
    return "was killed (SIGKILL: it ignored SIGTERM)";
  }
  return "was terminated (SIGTERM)";
}

// "SIGTERM" for 15: the name a user sent, or a number where the C library knows none.
std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

void print_stop_notes(const recorder::Recording& r, const recorder::RecordOptions& o,
                      int stop_signal) {
  if (o.iteration_count > 1) {
    std::fprintf(stderr, "sprof: %d of %d iterations recorded\n", r.iterations, o.iteration_count);
  }
  if (o.command.empty()) return;
  if (r.stop_cause == recorder::StopCause::kDuration) {
    if (r.left_running.empty()) {
      std::fprintf(stderr, "sprof: stopped after %.1f s; the command (pid %d) %s\n", o.duration_s,
                   r.terminated_pid, how_terminated(r).c_str());
    } else {
      std::fprintf(stderr, "sprof: stopped after %.1f s; the command (pid %d) was left running\n",
                   o.duration_s, r.left_running.front());
    }
  } else if (r.stop_cause == recorder::StopCause::kStopRequested) {
    std::fprintf(stderr,
                 "sprof: stopped by a second signal (%s); the command (pid %d) ignored the first "
                 "and %s\n",
                 signal_name(stop_signal).c_str(), r.terminated_pid, how_terminated(r).c_str());
  }
}

void print_heap_summary(const recorder::Recording& r, symbolicator::Symbolicator* symbolicator) {
  const convert::HeapStats& heap = r.stats.heap;
  if (!heap.enabled) return;
  const std::vector<RetainedPath> paths =
      symbolicator != nullptr ? retained_paths(r.profile, heap, *symbolicator, kRetainedPathsShown)
                              : std::vector<RetainedPath>{};
  for (const std::string& line : heap_summary_lines(heap, paths))
    std::fprintf(stderr, "%s\n", line.c_str());
}

// The command got the first Ctrl-C and is still running a second later: say once what a second
// one does.
class SecondInterruptHint {
 public:
  void update(const RecordingSignalGuard& signals, StatusLine& status, double elapsed_s) {
    if (done_ || quiet() || signals.stop_requests().load() != 1) return;
    if (!first_seen_s_) first_seen_s_ = elapsed_s;
    if (elapsed_s - *first_seen_s_ < kPatienceS) return;
    done_ = true;
    status.clear();
    std::fprintf(stderr,
                 "sprof: the command is still running; Ctrl-C again stops the recording, writes "
                 "the profile and terminates the command\n");
  }

 private:
  static constexpr double kPatienceS = 1.0;  // most commands end well within it
  std::optional<double> first_seen_s_;
  bool done_ = false;
};

void print_rotation_summary(const RotationTotals& t, const std::string& dir) {
  if (quiet()) return;
  std::fprintf(stderr,
               "sprof: %d profiles written to %s (%d removed by --max-files, %d failed); %s "
               "samples, %s lost; longest write %.0f ms, longest wait for a write %.0f ms\n",
               t.files_written, dir.c_str(), t.files_removed, t.files_failed,
               grouped(t.samples).c_str(), grouped(t.lost).c_str(), t.longest_write_ms,
               t.longest_wait_ms);
}

// A flight recording's windows overlap, so their samples do not add up: only the files count.
void print_flight_summary(const RotationTotals& t, const std::string& dir) {
  if (quiet()) return;
  std::fprintf(stderr,
               "sprof: %d flight-recorder windows written to %s (%d removed by --max-files, %d "
               "failed); longest write %.0f ms\n",
               t.files_written, dir.c_str(), t.files_removed, t.files_failed, t.longest_write_ms);
}

// The exit status of a recording that was saved: the command's, or 128 + the signal that
// stopped it.
int record_exit_code(const recorder::Recording& recording, const RecordCommandOptions& options,
                     int stop_signal) {
  // Signalled twice: the user stopped it, and a shell reports that as 128 + the signal (130 for
  // Ctrl-C, 143 for SIGTERM).
  if (!options.record.command.empty() &&
      recording.stop_cause == recorder::StopCause::kStopRequested) {
    return kExitSignalled + stop_signal;
  }
  return recording.status.shell_code();
}

}  // namespace

int run_record_command(const RecordCommandOptions& options) {
  const bool flight = options.flight_recorder_s > 0;
  // From the start: a SIGUSR2 that came before the handler would end sprof.
  std::optional<WindowRequestSignal> window_requests;
  if (flight) window_requests.emplace();
  std::optional<RotatingOutput> rotation;
  if (options.rotate_s > 0 || flight) {
    auto opened = RotatingOutput::open(options);
    if (!opened.has_value()) {
      std::fprintf(stderr, "sprof: cannot write profiles (%s); nothing was recorded\n",
                   opened.error().message.c_str());
      return run_error_exit_code(opened.error());
    }
    rotation.emplace(std::move(*opened));
  }
  // A recording that cannot be saved is lost: find out before it starts, and hold the file
  // open, since a recording may use up every descriptor the limit (ulimit -n) allows.
  std::optional<ReplacingFile> output;
  if (!rotation) {
    auto reserved = ReplacingFile::reserve(options.output);
    if (!reserved.has_value()) {
      std::fprintf(stderr, "sprof: cannot write the profile to %s (%s); nothing was recorded\n",
                   options.output.c_str(), reserved.error().message.c_str());
      return run_error_exit_code(reserved.error());
    }
    output.emplace(std::move(*reserved));
  }
  recorder::RecordOptions record = options.record;
  record.symbol_dirs = options.serve.symbols.symbol_dirs;  // for the unwinder's debug files too
  auto session = recorder::Session::start(record);
  if (!session.has_value()) {
    std::fprintf(stderr, "sprof: %s\n", session.error().message.c_str());
    return run_error_exit_code(session.error());
  }

  // The symbols of a profile that is saved with them are read while the program runs.
  std::optional<SymbolPrefetch> prefetch;
  if (!rotation && options.presymbolicate) prefetch.emplace(options.serve.symbols);
  recorder::Recording recording;
  int stop_signal = 0;  // the signal that stopped a recording by request
  {
    RecordingSignalGuard signals;
    announce_recording(options.record);  // once Ctrl-C is handled
    if (rotation) announce_flight_recorder(options, rotation->directory());
    StatusLine status(!quiet());
    SecondInterruptHint hint;
    recorder::RunControl control;
    control.pending_signal = &signals.pending_signal();
    control.stop_requests = &signals.stop_requests();
    control.on_progress = [&](const recorder::Progress& progress) {
      if (!options.record.command.empty()) hint.update(signals, status, progress.elapsed_s);
      status.update(progress);
    };
    if (rotation) {
      control.rotate_interval =
          std::chrono::milliseconds(static_cast<int64_t>(options.rotate_s * 1000));
      control.flight_window =
          std::chrono::milliseconds(static_cast<int64_t>(options.flight_recorder_s * 1000));
      if (window_requests) control.window_requests = &window_requests->requests();
      control.on_interval = [&rotation](recorder::Recording&& interval) {
        rotation->submit(std::move(interval));
      };
      if (flight) {
        control.on_preview = [&rotation](recorder::Recording&& window_so_far) {
          rotation->preview(std::move(window_so_far));
        };
      }
    } else if (prefetch) {
      control.on_preview = [&prefetch](recorder::Recording&& so_far) {
        prefetch->offer(std::move(so_far));
      };
    }
    auto result = (*session)->run(control);
    status.clear();
    if (!result.has_value()) {
      std::fprintf(stderr, "sprof: recording failed: %s\n", result.error().message.c_str());
      return run_error_exit_code(result.error());
    }
    recording = std::move(*result);
    stop_signal = signals.last_signal();
  }
  if (rotation) {
    // The last, partial interval; Ctrl-C lets its write finish, a second one abandons it.
    const WriteSignalGuard signals;
    if (!quiet()) {
      if (recording.status.signaled) {
        std::fprintf(stderr, "sprof: the command was killed by signal %d\n",
                     recording.status.signal);
      }
      print_stop_notes(recording, options.record, stop_signal);
    }
    const int code = record_exit_code(recording, options, stop_signal);
    rotation->submit(std::move(recording));
    rotation->finish();
    if (flight) {
      print_flight_summary(rotation->totals(), rotation->directory());
    } else {
      print_rotation_summary(rotation->totals(), rotation->directory());
    }
    return code;
  }

  auto written = [&] {
    const WriteSignalGuard signals;  // Ctrl-C lets the write finish; a second one abandons it
    return profile::write_gecko_file(recording.profile, std::move(*output));
  }();
  if (!written.has_value()) {
    std::fprintf(stderr, "sprof: cannot write the profile: %s\n", written.error().message.c_str());
    return kExitFailure;
  }
  // The exit time comes from the exit record's timestamp, which can be a little later than this
  // read of the clock for a command that exits at once (`true`): never shown as negative (it
  // printed as 18446649747965 ms).
  const auto since_exit_ns = static_cast<int64_t>(clock_ns(CLOCK_MONOTONIC)) -
                             static_cast<int64_t>(recording.child_exit_monotonic_ns);
  const double write_latency_ms = static_cast<double>(std::max<int64_t>(since_exit_ns, 0)) / 1e6;
  const auto facts =
      facts_from(recording, target_description(options.record), options.output, *written);
  const bool command_ended =
      !options.record.command.empty() && recording.stop_cause == recorder::StopCause::kTargetsEnded;
  if (!quiet()) {
    std::fprintf(stderr, "%s\n%s; written %.0f ms after %s\n", summary_line(facts).c_str(),
                 details_line(recording.stats, options.record.frequency_hz).c_str(),
                 write_latency_ms, command_ended ? "the command exited" : "the recording stopped");
    if (recording.status.signaled) {
      std::fprintf(stderr, "sprof: the command was killed by signal %d\n", recording.status.signal);
    }
    print_stop_notes(recording, options.record, stop_signal);
    if (const auto hint = stack_size_hint(recording.stats, options.record.stack_size);
        !hint.empty()) {
      std::fprintf(stderr, "%s\n", hint.c_str());
    }
    if (const auto hooks = heap_hook_line(recording.stats); !hooks.empty()) {
      std::fprintf(stderr, "%s\n", hooks.c_str());
    }
  }
  // One symbolicator names the summary's allocation paths and embeds the symbols after: the
  // symbol maps it builds for the first serve the second.
  std::unique_ptr<symbolicator::Symbolicator> own_symbolicator;
  symbolicator::Symbolicator* symbolicator = nullptr;
  if (prefetch) {
    symbolicator = &prefetch->finish(recording.profile);
  } else if (recording.stats.heap.enabled && !quiet()) {
    own_symbolicator = symbolicator_for(recording.profile, options.serve.symbols);
    symbolicator = own_symbolicator.get();
  }
  if (!quiet()) {
    print_heap_summary(recording, symbolicator);
  }

  const int serve_code =
      save_and_serve(recording.profile, options.output, *written, options.save_only,
                     options.presymbolicate, options.serve, facts, symbolicator);
  if (serve_code != kExitOk) return serve_code;
  return record_exit_code(recording, options, stop_signal);
}

}  // namespace sprof::cli
