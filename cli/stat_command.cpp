#include "stat_command.hpp"

#include <cstdio>
#include <fstream>

#include "console.hpp"
#include "exit_codes.hpp"
#include "signals.hpp"
#include "stat_json.hpp"
#include "stat_metrics.hpp"
#include "stat_report.hpp"

namespace sprof::cli {

namespace {

std::string describe_target(const recorder::CountOptions& count) {
  if (count.command.empty()) {
    std::string pids;
    for (int pid : count.attach_pids) pids += (pids.empty() ? "" : ",") + std::to_string(pid);
    return "process id '" + pids + "'";
  }
  std::string line;
  for (const auto& arg : count.command) line += (line.empty() ? "" : " ") + arg;
  return "'" + line + "'";
}

// The report goes where perf stat's goes, stderr, unless -o names a file: the command's own
// stdout stays its own.
bool write_report(const std::string& text, const std::string& path) {
  if (path.empty()) {
    std::fputs(text.c_str(), stderr);
    return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "sprof: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int run_stat_command(const StatCommandOptions& options) {
  std::vector<recorder::Counts> runs;
  bool stopped = false;
  for (int run = 0; run < options.repeat && !stopped; ++run) {
    auto session = recorder::CountingSession::start(options.count);
    if (!session.has_value()) {
      std::fprintf(stderr, "sprof: %s\n", session.error().message.c_str());
      return run_error_exit_code(session.error());
    }
    RecordingSignalGuard signals;
    recorder::RunControl control;
    control.pending_signal = &signals.pending_signal();
    control.stop_requests = &signals.stop_requests();
    auto counts = (*session)->run(control);
    if (!counts.has_value()) {
      std::fprintf(stderr, "sprof: counting failed: %s\n", counts.error().message.c_str());
      return run_error_exit_code(counts.error());
    }
    // Ctrl-C ends the repeats too (the command got it as well), as in perf stat -r.
    stopped = signals.stop_requests().load() > 0 || counts->stopped_early;
    runs.push_back(std::move(*counts));
  }

  const StatSummary summary = summarize(runs);
  const std::string text =
      options.json
          ? format_stat_json(options.count.command, options.count.attach_pids, summary, runs)
          : format_stat_report({describe_target(options.count)}, summary, runs);
  if (!quiet() || options.json || !options.output.empty()) {
    if (!write_report(text, options.output)) return kExitFailure;
  }
  if (options.count.command.empty()) return kExitOk;
  return runs.back().status.shell_code();
}

}  // namespace sprof::cli
