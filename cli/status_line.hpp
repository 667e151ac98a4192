// cli/status_line.hpp
//
// While recording on a terminal: one line on stderr, redrawn in place about twice a second, with
// the elapsed time, samples, lost records, processes and threads seen so far. Nothing when stderr
// is not a terminal (a pipe, a log file) or with -q. The line is erased before anything else is
// printed, so the final summary stands alone.
#pragma once

#include <string>

#include "sprof/recorder/session.hpp"

namespace sprof::cli {

// "sprof: 3.2 s, 3120 samples, 0 lost, 1 process, 5 threads"
std::string status_text(const recorder::Progress& progress);

class StatusLine {
 public:
  // Draws only when `enabled` and stderr is a terminal.
  explicit StatusLine(bool enabled);
  ~StatusLine() { clear(); }
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  bool active() const { return active_; }
  // Replaces the line with `progress` (cut to the terminal's width, so it never wraps).
  void update(const recorder::Progress& progress);
  // Erases the line, if one is shown.
  void clear();

 private:
  bool active_ = false;
  bool shown_ = false;
};

}  // namespace sprof::cli
