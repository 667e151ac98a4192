#include "background_cache_fill.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "console.hpp"

namespace sprof::cli {
namespace {

// "-" stands for a path the module has none of: an empty argument is easy to lose in a shell.
constexpr const char* kNone = "-";

std::string path_argument(const std::string& path) { return path.empty() ? kNone : path; }
std::string path_from(const std::string& argument) { return argument == kNone ? "" : argument; }

// The modules follow the options without "--" (cache_definition.cpp): a module whose name
// looks like an option is left for a later run to save.
bool passable(const symbolicator::SymbolCacheRequest& r) {
  return !r.debug_name.starts_with('-') && !r.breakpad_id.starts_with('-');
}

}  // namespace

std::vector<std::string> cache_fill_arguments(
    const std::string& directory, const std::vector<std::string>& symbol_dirs,
    const std::vector<symbolicator::SymbolCacheRequest>& requests) {
  std::vector<std::string> args = {"--symbol-cache", directory};
  for (const std::string& dir : symbol_dirs) {
    args.push_back("--symbol-dir");
    args.push_back(dir);
  }
  for (const auto& r : requests) {
    if (!passable(r)) continue;
    args.push_back(r.debug_name);
    args.push_back(r.breakpad_id);
    args.push_back(path_argument(r.binary_path));
    args.push_back(path_argument(r.debug_path));
  }
  return args;
}

std::optional<std::vector<symbolicator::SymbolCacheRequest>> cache_fill_requests(
    const std::vector<std::string>& modules) {
  if (modules.empty() || modules.size() % 4 != 0) return std::nullopt;
  std::vector<symbolicator::SymbolCacheRequest> requests;
  for (size_t i = 0; i < modules.size(); i += 4) {
    requests.push_back(
        {modules[i], modules[i + 1], path_from(modules[i + 2]), path_from(modules[i + 3])});
  }
  return requests;
}

void start_background_cache_fill(const std::string& directory,
                                 const std::vector<std::string>& symbol_dirs,
                                 const std::vector<symbolicator::SymbolCacheRequest>& requests) {
  const size_t modules =
      static_cast<size_t>(std::count_if(requests.begin(), requests.end(), passable));
  if (modules == 0) return;
  std::vector<std::string> args = {"sprof", "cache", "fill"};
  for (auto& a : cache_fill_arguments(directory, symbol_dirs, requests)) args.push_back(a);
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attr);
  for (const int fd : {0, 1, 2}) {
    posix_spawn_file_actions_addopen(&files, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  }
  posix_spawn_file_actions_addclosefrom_np(&files, 3);
  // Its own session: Ctrl-C at the terminal, meant for the next command, does not reach it.
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  // /proc/self/exe: this very executable, even when a newer sprof was installed meanwhile.
  const int err = posix_spawn(&pid, "/proc/self/exe", &files, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  if (err != 0) {
    if (verbose()) {
      std::fprintf(stderr, "sprof: cannot start sprof cache fill: %s\n", std::strerror(err));
    }
    return;
  }
  // A command that goes on (serving the profile) reaps it; one that ends leaves it to init.
  std::thread([pid] { ::waitpid(pid, nullptr, 0); }).detach();
  if (verbose()) {
    std::fprintf(stderr,
                 "sprof: the symbols of %zu module%s are saved to the symbol cache in the "
                 "background (sprof cache fill, pid %d)\n",
                 modules, modules == 1 ? "" : "s", static_cast<int>(pid));
  }
}

}  // namespace sprof::cli
