#include "status_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "summary.hpp"

namespace sprof::cli {

namespace {

size_t terminal_columns() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace

std::string status_text(const recorder::Progress& p) {
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.1f s", p.elapsed_s);
  return std::string("sprof: ") + elapsed + ", " + count_of(p.samples, "sample", "samples") + ", " +
         std::to_string(p.lost) + " lost, " + count_of(p.processes, "process", "processes") + ", " +
         count_of(p.threads, "thread", "threads");
}

StatusLine::StatusLine(bool enabled) : active_(enabled && ::isatty(STDERR_FILENO) == 1) {}

void StatusLine::update(const recorder::Progress& progress) {
  if (!active_) return;
  std::string text = status_text(progress);
  // One column short of the width: a line that fills it wraps on some terminals.
  const size_t columns = terminal_columns();
  if (text.size() >= columns) text.resize(columns > 1 ? columns - 1 : 0);
  // \r and "erase to the end of the line" (ECMA-48 EL): the new text replaces the old.
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void StatusLine::clear() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace sprof::cli
