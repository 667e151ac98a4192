// sprof/convert/marker_files.hpp
//
// User markers through marker files, samply's protocol (also what include/sprof/markers.h
// writes): a program creates a file named marker-<pid>.txt or marker-<pid>-<tid>.txt, mmaps it
// so that perf reports a MMAP record naming it (a data mapping: attr.mmap_data), and appends
// one line per marker:
//
//     <start_ns> <end_ns> <name>
//
// with CLOCK_MONOTONIC nanoseconds, the clock the recording uses (use_clockid). start == end
// makes an instant marker. The converter remembers every such path it sees and reads the files
// through the host (host.hpp) when the recording ends; a marker goes to thread <tid> from the
// name, else the process's main thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/convert/host.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::convert {

struct MarkerFileName {
  uint32_t pid = 0;
  std::optional<uint32_t> tid;
};

// Parses the basename of `path`; nullopt unless it is marker-<pid>.txt or marker-<pid>-<tid>.txt.
std::optional<MarkerFileName> parse_marker_file_name(std::string_view path);

struct MarkerLine {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  std::string name;
};

// Every well-formed line; malformed ones (a line cut by a crash, end < start) are skipped.
std::vector<MarkerLine> parse_marker_lines(std::string_view text);

// A user marker in the profile: instant when start == end, else an interval.
profile::Marker user_marker(const MarkerLine& line, double start_ms, double end_ms);

// The marker files a recording saw, in the order first seen.
class MarkerFiles {
 public:
  explicit MarkerFiles(HostFiles& files) : host_(files) {}

  struct File {
    std::string path;
    uint32_t pid = 0;
    uint32_t tid = 0;  // the name's tid, else the pid (the main thread)
  };

  // Remembers `path` if it names a marker file; true if it does.
  bool note_mmap(const std::string& path);
  const std::vector<File>& files() const { return files_; }

  // Reads every remembered file and passes each marker line with its file to `sink`. Files that
  // are gone or unreadable are skipped.
  template <typename Sink>
  void read_all(Sink&& sink) const {
    for (const File& f : files_) {
      for (const MarkerLine& line : read_file(f.path)) sink(f, line);
    }
  }

 private:
  std::vector<MarkerLine> read_file(const std::string& path) const;
  HostFiles& host_;
  std::vector<File> files_;
};

}  // namespace sprof::convert
