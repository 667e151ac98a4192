// tests/support/profiler_cli.hpp (#include "profiler_cli.hpp", target sprof_test_support)
//
// Drives `@firefox-devtools/profiler-cli` (the Firefox Profiler's own loading, processing and
// symbolication code, docs/firefox-profiler-format.md, "what the UI requires") from tests. Each
// `ProfilerCli` owns one daemon session in a private, short PROFILER_CLI_SESSION_DIR (Unix socket
// paths are length-limited) and stops it on destruction.
//
// The CLI and a node 24 runtime are installed by tests/conformance/install-profiler-cli.sh into
// $SPROF_NODE_TOOLS (default <source>/.cache/node-tools); `locate` runs the script when they are
// missing. Commands are run as `<node24> <cli.js> args...` through `run_process`: no shell.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "subprocess.hpp"

namespace sprof::test {

// Results are `ProcessResult`s of `run_process` (subprocess.hpp): exit code, stdout, stderr.

class ProfilerCli {
 public:
  // Finds (installing if needed) node and the CLI. Fails when they cannot be installed.
  static Result<ProfilerCli> locate();
  // `locate`, then `load_standalone(file)`; fails with the load's output when it fails.
  static Result<ProfilerCli> with_standalone(const std::string& file);

  ProfilerCli(ProfilerCli&& other) noexcept;
  ProfilerCli& operator=(ProfilerCli&&) = delete;
  ProfilerCli(const ProfilerCli&) = delete;
  ProfilerCli& operator=(const ProfilerCli&) = delete;
  ~ProfilerCli();  // stops the session and removes its directory

  // `load <file|URL> [--symbol-server URL] --session S`.
  ProcessResult load(const std::string& file_or_url, const std::string& symbol_server = "");
  // `load <file>` with no symbol server and symbolication off (PROFILER_CLI_NO_SYMBOLICATE=1):
  // the profile shows only what it carries itself.
  ProcessResult load_standalone(const std::string& file);
  // `profile info --all --json` (--all: every process and thread, not the top 5).
  ProcessResult profile_info();
  // `thread info --thread t-N --json`.
  ProcessResult thread_info(int thread_index);
  // `thread samples --thread t-N --json [--include-idle]`.
  ProcessResult thread_samples(int thread_index, bool include_idle = false);
  // `thread samples --thread t-N --json --search TERM`: only the samples with a frame whose name
  // contains TERM.
  ProcessResult thread_samples_containing(int thread_index, const std::string& term);
  // `thread markers --thread t-N --list --json`.
  ProcessResult thread_markers(int thread_index);
  // `stop --session S`; also done by the destructor.
  ProcessResult stop();
  // Any other command; `--session S` is appended.
  ProcessResult run(std::vector<std::string> args);
  // Runs the CLI without a session argument (e.g. `--version`); `env` adds to the environment.
  ProcessResult run_without_session(
      const std::vector<std::string>& args,
      const std::vector<std::pair<std::string, std::string>>& env = {});

  const std::string& session() const { return session_; }
  const std::string& session_dir() const { return session_dir_; }
  // The daemon's log, for failure messages.
  std::string session_log() const;

 private:
  ProfilerCli(std::string node, std::string cli_js, std::string session_dir, std::string session);
  // Runs `load_args --session S` (which starts the session's daemon); when `load` gave up on a
  // daemon that is still starting, waits for that daemon, and retries in a fresh session only
  // if it died.
  ProcessResult start_daemon(const std::vector<std::string>& load_args,
                             const std::vector<std::pair<std::string, std::string>>& env);
  // Polls the session until `daemon` answers with its profile loaded (that answer), the load
  // failed (the answer saying so), or the daemon is gone or a generous bound passed (nullopt).
  std::optional<ProcessResult> wait_until_loaded(pid_t daemon);

  std::string node_;
  std::string cli_js_;
  std::string session_dir_;
  std::string session_;
  bool loaded_ = false;
};

// The node-tools directory: $SPROF_NODE_TOOLS, else <source>/.cache/node-tools.
std::string node_tools_dir();

}  // namespace sprof::test
