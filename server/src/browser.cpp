#include "sprof/server/browser.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "sprof/core/log.hpp"

namespace sprof::server {
namespace {

// xdg-open hands the URL to the desktop and exits within a second or so; a browser named in
// $BROWSER may instead keep running for its whole session. Waiting this long tells the two apart
// without blocking the cli.
constexpr auto kExitWait = std::chrono::seconds(3);
constexpr auto kPollInterval = std::chrono::milliseconds(20);

enum class Outcome { kSucceeded, kNotStarted, kFailed };

std::vector<std::string> browser_candidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("BROWSER")) {
    std::string_view list(env);
    while (!list.empty()) {
      const std::size_t colon = list.find(':');
      const std::string_view entry = list.substr(0, colon);
      if (!entry.empty()) candidates.emplace_back(entry);
      if (colon == std::string_view::npos) break;
      list.remove_prefix(colon + 1);
    }
  }
  candidates.emplace_back("xdg-open");
  return candidates;
}

// Reaps `pid` without blocking the caller: the child may outlive this call by hours.
void reap_in_background(pid_t pid) {
  std::thread([pid] {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }).detach();
}

Outcome spawn_and_wait(const std::string& program, const std::string& url, std::string& detail) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The browser must not read the terminal the cli is using.
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv = {const_cast<char*>(program.c_str()), const_cast<char*>(url.c_str()),
                             nullptr};
  pid_t pid = -1;
  const int err = ::posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    detail = program + ": " + std::strerror(err);
    return Outcome::kNotStarted;
  }

  const auto deadline = std::chrono::steady_clock::now() + kExitWait;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Outcome::kSucceeded;
      // posix_spawnp reports exec failure as exit status 127 on glibc.
      if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        detail = program + ": could not be executed";
        return Outcome::kNotStarted;
      }
      detail = program + (WIFEXITED(status)
                              ? ": exited with status " + std::to_string(WEXITSTATUS(status))
                              : ": killed by signal " + std::to_string(WTERMSIG(status)));
      return Outcome::kFailed;
    }
    if (done < 0 && errno != EINTR) {
      detail = program + ": waitpid: " + std::strerror(errno);
      return Outcome::kFailed;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  reap_in_background(pid);
  return Outcome::kSucceeded;
}

}  // namespace

Result<void> open_in_browser(std::string_view url) {
  const std::string url_arg(url);
  std::string failures;
  bool any_started = false;
  for (const std::string& program : browser_candidates()) {
    std::string detail;
    const Outcome outcome = spawn_and_wait(program, url_arg, detail);
    if (outcome == Outcome::kSucceeded) return ok();
    if (outcome == Outcome::kFailed) any_started = true;
    log::debug("open_in_browser: " + detail);
    if (!failures.empty()) failures += "; ";
    failures += detail;
  }
  return fail(any_started ? Errc::kIo : Errc::kNotFound,
              "could not open a browser (" + failures + ")");
}

}  // namespace sprof::server
