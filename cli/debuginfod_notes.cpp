#include "debuginfod_notes.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>

#include "console.hpp"
#include "sprof/elf/debuginfod_client.hpp"
#include "summary.hpp"

namespace sprof::cli {
namespace {

using symbolicator::DebuginfodEvent;

// Prints download notes from the symbolicator's download thread. The progress line is redrawn
// in place ("\r", erase to end of line) and only on a terminal; logs get the outcome lines.
class NotePrinter {
 public:
  explicit NotePrinter(bool terminal) : terminal_(terminal) {}

  void operator()(const DebuginfodEvent& e) {
    if (quiet()) return;  // notes, not errors: names fall back to the local files
    std::lock_guard lock(mutex_);
    switch (e.kind) {
      case DebuginfodEvent::Kind::kStarted:
      case DebuginfodEvent::Kind::kProgress:
        if (terminal_) progress(e);
        break;
      case DebuginfodEvent::Kind::kFetched:
        finish_line();
        std::fprintf(stderr, "sprof: debuginfod: %s of %s%s (%.1f s)\n", e.artifact.c_str(),
                     e.module.c_str(), source_of(e).c_str(), e.seconds);
        break;
      case DebuginfodEvent::Kind::kFailed:
        finish_line();
        std::fprintf(stderr,
                     "sprof: debuginfod: no %s for %s: %s; its functions keep the names its own "
                     "symbol table and .eh_frame give, without inline frames or source lines\n",
                     e.artifact.c_str(), e.module.c_str(), e.message.c_str());
        break;
    }
    std::fflush(stderr);
  }

 private:
  void progress(const DebuginfodEvent& e) {
    std::string amount = human_bytes(e.bytes);
    if (e.total > 0) amount += " of " + human_bytes(e.total);
    std::fprintf(stderr, "\rsprof: debuginfod: downloading %s of %s: %s\033[K", e.artifact.c_str(),
                 e.module.c_str(), amount.c_str());
    line_open_ = true;
  }

  void finish_line() {
    if (line_open_) std::fputs("\r\033[K", stderr);
    line_open_ = false;
  }

  static std::string source_of(const DebuginfodEvent& e) {
    if (e.url.empty()) return " found in the debuginfod cache";
    return " fetched from " + e.url.substr(0, e.url.find("/buildid/"));
  }

  const bool terminal_;
  std::mutex mutex_;
  bool line_open_ = false;
};

}  // namespace

symbolicator::DebuginfodOptions debuginfod_options(const SymbolSources& options) {
  symbolicator::DebuginfodOptions out;
  if (options.no_debuginfod) return out;
  out.urls = !options.debuginfod_urls.empty() ? options.debuginfod_urls
                                              : elf::debuginfod_urls_from_environment();
  out.timeout = std::chrono::seconds(options.debuginfod_timeout_s);
  auto printer = std::make_shared<NotePrinter>(::isatty(STDERR_FILENO) == 1);
  out.on_event = [printer](const DebuginfodEvent& e) { (*printer)(e); };
  return out;
}

}  // namespace sprof::cli
