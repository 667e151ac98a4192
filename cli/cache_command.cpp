#include "cache_command.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>

#include "background_cache_fill.hpp"
#include "console.hpp"
#include "exit_codes.hpp"
#include "sprof/core/unique_fd.hpp"
#include "summary.hpp"

namespace sprof::cli {
namespace {

std::string local_time(int64_t unix_s) {
  const std::time_t t = unix_s;
  std::tm tm{};
  char text[32];
  if (::localtime_r(&t, &tm) == nullptr || std::strftime(text, sizeof text, "%F %R", &tm) == 0) {
    return "?";
  }
  return text;
}

int show(const std::string& directory) {
  const auto entries = symbolicator::symbol_cache_entries(directory);
  uint64_t total = 0;
  for (const auto& e : entries) total += e.bytes;
  std::printf("symbol cache %s: %zu module%s, %s (at most %s; the least recently used go first)\n",
              directory.c_str(), entries.size(), entries.size() == 1 ? "" : "s",
              human_bytes(total).c_str(),
              human_bytes(symbolicator::SymbolicatorOptions{}.symbol_cache_max_bytes).c_str());
  for (const auto& e : entries) {
    std::printf(
        "  %s  %10s  %s\n", local_time(e.last_used_s).c_str(), human_bytes(e.bytes).c_str(),
        e.key.empty() ? "(not an index of this sprof version: replaced when used)" : e.key.c_str());
  }
  return kExitOk;
}

int fill(const std::string& directory, const CacheCommandOptions& options) {
  const auto requests = cache_fill_requests(options.modules);
  if (!requests) {
    std::fprintf(stderr, "sprof: cache fill takes NAME BREAKPAD-ID BINARY DEBUG-FILE per module\n");
    return kExitUsage;
  }
  // Background work: the user's next command comes first.
  ::setpriority(PRIO_PROCESS, 0, 19);
  // The command that started this made the directory; gone since (a temporary cache removed),
  // it is not made again.
  struct stat st {};
  if (::stat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "sprof: no symbol cache directory %s\n", directory.c_str());
    return kExitFailure;
  }
  // One filler at a time per cache: a second one waits, then finds what the first saved, where
  // two at once would both read the same DWARF.
  const UniqueFd lock(
      ::open((directory + "/fill.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (lock.valid()) ::flock(lock.get(), LOCK_EX);
  symbolicator::SymbolicatorOptions symbolicator_options;
  symbolicator_options.symbol_cache_dir = directory;
  symbolicator_options.symbol_dirs = options.symbol_dirs;
  symbolicator::Symbolicator symbolicator(std::move(symbolicator_options));
  int status = kExitOk;
  for (const auto& request : *requests) {
    const auto saved = symbolicator.fill_symbol_cache(request);
    if (!saved) {
      std::fprintf(stderr, "sprof: %s: %s\n", request.debug_name.c_str(),
                   saved.error().message.c_str());
      status = kExitFailure;
    } else if (!quiet()) {
      std::fprintf(stderr, "sprof: %s: %s\n", request.debug_name.c_str(),
                   *saved ? "saved" : "in the cache already");
    }
  }
  return status;
}

}  // namespace

int run_cache_command(const CacheCommandOptions& options) {
  const std::string directory =
      options.directory.empty() ? symbolicator::default_symbol_cache_dir() : options.directory;
  if (directory.empty()) {
    std::fprintf(stderr,
                 "sprof: no symbol cache directory: neither XDG_CACHE_HOME nor HOME is an absolute "
                 "path; give --symbol-cache DIR\n");
    return kExitUsage;
  }
  if (options.action == "fill") return fill(directory, options);
  if (options.action == "clear") {
    const size_t removed = symbolicator::clear_symbol_cache(directory);
    if (!quiet()) {
      std::printf("symbol cache %s: removed %zu module%s\n", directory.c_str(), removed,
                  removed == 1 ? "" : "s");
    }
    return kExitOk;
  }
  if (!options.modules.empty()) {
    std::fprintf(stderr, "sprof: cache %s takes no arguments; unexpected: %s\n",
                 options.action.c_str(), options.modules.front().c_str());
    return kExitUsage;
  }
  return show(directory);
}

}  // namespace sprof::cli
