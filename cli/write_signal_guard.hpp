// cli/write_signal_guard.hpp
//
// While the profile is written, SIGINT/SIGTERM/SIGHUP/SIGQUIT must neither kill sprof with a
// half-written temporary file left behind nor lose what was recorded. The first of them lets
// the write finish and says so on stderr ("writing the profile; press Ctrl-C again to
// abandon"); the second abandons it: the handler removes the temporary file
// (ReplacingFile::remove_temporary_files_in_signal_handler), says so, and ends sprof at once with
// 128 + the signal, as a shell reports a command a signal stopped. It does not wait for the
// writer to notice: the write may be deep in gzip or in fsync, and the user asked twice.
//
// The handler runs on whichever thread the signal interrupts and uses async-signal-safe calls
// only (write(2), unlink(2), _exit(2)).
#pragma once

namespace sprof::cli {

class WriteSignalGuard {
 public:
  WriteSignalGuard();
  ~WriteSignalGuard();  // restores the default dispositions
  WriteSignalGuard(const WriteSignalGuard&) = delete;
  WriteSignalGuard& operator=(const WriteSignalGuard&) = delete;
};

}  // namespace sprof::cli
